// The helper process of test/lib/spawn.ts: reads requests from the FIFO named first, runs each
// with spawnSync, writes the result to the FIFO named second, one at a time, until the requesting
// process closes its end. Being a small process, its fork for each child costs little (see
// spawn.ts). Frames: a 4-byte big-endian length, then that many bytes.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const [reqPath, resPath] = process.argv.slice(2);
const req = fs.openSync(reqPath, 'r');
const res = fs.openSync(resPath, 'w');

/** Exactly `n` bytes from `fd`, or null at the end of the stream. */
function readExactly(fd, n) {
  const buf = Buffer.alloc(n);
  let got = 0;
  while (got < n) {
    const k = fs.readSync(fd, buf, got, n - got, null);
    if (k === 0) return null;
    got += k;
  }
  return buf;
}

function writeAll(fd, buf) {
  for (let off = 0; off < buf.length;) off += fs.writeSync(fd, buf, off, buf.length - off);
}

for (;;) {
  const len = readExactly(req, 4);
  if (!len) break;
  const body = readExactly(req, len.readUInt32BE(0));
  if (!body) break;
  const r = JSON.parse(body.toString('utf8'));
  const out = spawnSync(r.cmd, r.args, {
    cwd: r.cwd,
    env: r.env,
    input: r.input === null ? undefined : Buffer.from(r.input, 'base64'),
    maxBuffer: r.maxBuffer,
  });
  const stdout = out.stdout ?? Buffer.alloc(0);
  const stderr = out.stderr ?? Buffer.alloc(0);
  const head = Buffer.from(
    JSON.stringify({
      status: out.status,
      signal: out.signal,
      error: out.error ? { message: out.error.message, code: out.error.code } : null,
      stdout: stdout.length,
      stderr: stderr.length,
    }),
  );
  const frame = Buffer.alloc(4);
  frame.writeUInt32BE(head.length, 0);
  writeAll(res, Buffer.concat([frame, head, stdout, stderr]));
}
