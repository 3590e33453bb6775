/**
 * `spawnSync` for tests that start thousands of short processes (real gits): the same call, run
 * by a small helper process (test/lib/spawner.mjs) instead of the test worker itself.
 *
 * Node starts a child by forking the calling process (libuv's uv_spawn on Linux), which copies
 * its page tables and makes its memory copy-on-write until the child execs. A test worker holds
 * the engine, fixtures and module caches of every file it ran (vitest.config.ts: isolate off),
 * some hundreds of MB: measured, a spawn of /bin/true costs 1 ms of system CPU from a fresh Node
 * and 57 ms from one holding 1 GB. The helper stays a few tens of MB, so its forks stay cheap.
 *
 * The worker talks to the helper over two FIFOs in a temporary directory (removed once both are
 * open), with blocking reads and writes, so a call is as synchronous as spawnSync: the helper
 * runs one request at a time and answers with the exit status, signal, spawn error, stdout and
 * stderr. The helper exits when the worker closes its end (the worker exiting closes it).
 */
import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface SpawnResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
  /** The spawn's own failure (no such executable, say), as spawnSync reports it. */
  error?: Error;
}

interface Channel {
  req: number;
  res: number;
}

let channel: Channel | undefined;

function open(): Channel {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-spawner-'));
  const req = path.join(dir, 'req');
  const res = path.join(dir, 'res');
  for (const f of [req, res]) {
    const r = spawnSync('mkfifo', ['-m', '600', f]);
    if (r.status !== 0) throw new Error(`mkfifo ${f}: ${r.error?.message ?? r.stderr.toString()}`);
  }
  const helper = spawn(process.execPath, [path.join(__dirname, 'spawner.mjs'), req, res], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  helper.unref();
  // Each open blocks until the helper opens the other end (it opens them in the same order).
  const c = { req: fs.openSync(req, 'w'), res: fs.openSync(res, 'r') };
  fs.rmSync(dir, { recursive: true, force: true });
  return c;
}

function readExactly(fd: number, n: number): Buffer {
  const buf = Buffer.alloc(n);
  let got = 0;
  while (got < n) {
    const k = fs.readSync(fd, buf, got, n - got, null);
    if (k === 0) throw new Error('test/lib/spawner.mjs ended before answering');
    got += k;
  }
  return buf;
}

/**
 * `spawnSync(cmd, args, opts)` run by the helper: stdout and stderr as Buffers. Takes the options
 * the tests use: cwd, env, input, maxBuffer.
 */
export function spawnSyncLight(
  cmd: string,
  args: string[],
  opts: Pick<SpawnSyncOptions, 'cwd' | 'env' | 'maxBuffer'> & { input?: string | Uint8Array } = {},
): SpawnResult {
  channel ??= open();
  const input = opts.input === undefined ? null : Buffer.from(opts.input).toString('base64');
  const body = Buffer.from(
    JSON.stringify({
      cmd,
      args,
      cwd: path.resolve(String(opts.cwd ?? process.cwd())),
      env: opts.env ?? process.env,
      input,
      maxBuffer: opts.maxBuffer ?? 1024 * 1024,
    }),
  );
  const frame = Buffer.alloc(4);
  frame.writeUInt32BE(body.length, 0);
  const msg = Buffer.concat([frame, body]);
  for (let off = 0; off < msg.length;) off += fs.writeSync(channel.req, msg, off, msg.length - off);
  const head = JSON.parse(readExactly(channel.res, readExactly(channel.res, 4).readUInt32BE(0)).toString('utf8')) as {
    status: number | null;
    signal: NodeJS.Signals | null;
    error: { message: string; code?: string } | null;
    stdout: number;
    stderr: number;
  };
  const stdout = readExactly(channel.res, head.stdout);
  const stderr = readExactly(channel.res, head.stderr);
  const out: SpawnResult = { status: head.status, signal: head.signal, stdout, stderr };
  if (head.error) out.error = Object.assign(new Error(head.error.message), { code: head.error.code });
  return out;
}
