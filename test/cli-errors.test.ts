/**
 * The CLI on damaged input: exit code 3, exactly one line on stderr of the form
 * `refscope: <file>: offset <n>: <expected>`, no stack trace; inputs beyond 2 GiB (sparse files)
 * are read in slices and answered at once.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'bin/refscope.mjs');
const FX = path.join(__dirname, 'fixtures/reftable');
let tmp = '';

function run(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
/** Exit 3 and one stderr line matching `re`; no stack trace. */
function expectOneLine(r: { code: number | null; stderr: string }, re: RegExp): void {
  expect(r.stderr).toMatch(/^[^\n]*\n$/);
  expect(r.stderr).toMatch(re);
  expect(r.stderr).not.toMatch(/\bat .*\(|Error:/);
  expect(r.code).toBe(3);
}
/** Copy fixture `fx`'s reftable directory to a fresh temp dir; returns it. */
function copyStack(fx: string, name: string): string {
  const dir = path.join(tmp, name, 'reftable');
  fs.mkdirSync(dir, { recursive: true });
  for (const f of fs.readdirSync(path.join(FX, fx, 'reftable'))) {
    fs.copyFileSync(path.join(FX, fx, 'reftable', f), path.join(dir, f));
    fs.chmodSync(path.join(dir, f), 0o644);
  }
  return dir;
}
const tablesOf = (dir: string) => fs.readFileSync(path.join(dir, 'tables.list'), 'utf8').trim().split('\n');
function footerCrcFix(b: Buffer): void {
  const fsz = b[4] === 2 ? 72 : 68;
  b.writeUInt32BE(zlib.crc32(b.subarray(b.length - fsz, b.length - 4)), b.length - 4);
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-cli-'));
});
afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('CLI on damaged input', () => {
  it('refs: a damaged table in a stack → exit 3, one line with file and offset', () => {
    const dir = copyStack('basic-sha1', 'refs-damaged');
    const [oldest] = tablesOf(dir);
    const p = path.join(dir, oldest);
    const b = fs.readFileSync(p);
    b[4] = 7; // version byte
    fs.writeFileSync(p, b);
    const r = run('refs', dir);
    expectOneLine(
      r,
      new RegExp(`^refscope: ${oldest.replace(/\./g, '\\.')}: offset 4: expected version 1 or 2, found 7\\n$`),
    );
    expect(r.stdout).toBe('');
  });

  it('analyze: the report still comes out on stdout, the error is one stderr line, exit 3', () => {
    const dir = copyStack('nocompact-s1', 'analyze-damaged');
    const names = tablesOf(dir);
    const p = path.join(dir, names[3]);
    const b = fs.readFileSync(p);
    const countAt = b.readUIntBE(25, 3) - 2; // the first block's restart_count: block_len − 2
    b.writeUInt16BE(0, countAt);
    fs.writeFileSync(p, b);
    const r = run('analyze', dir, '--json');
    expectOneLine(
      r,
      new RegExp(
        `^refscope: ${names[3].replace(/\./g, '\\.')}: offset ${countAt}: expected restart_count ≥ 1, found 0\\n$`,
      ),
    );
    const report = JSON.parse(r.stdout);
    expect(report.stack.incomplete).toBe(true);
    expect(report.tables.filter((t: { error: unknown }) => t.error).length).toBe(1);
    // The other tables are still read.
    expect(report.tables.filter((t: { version: number | null }) => t.version === 1).length).toBe(names.length - 1);
  });

  it('analyze: a lone damaged .ref file (bad footer CRC) → exit 3, one line', () => {
    const src = path.join(FX, 'basic-sha256/reftable');
    const name = fs.readdirSync(src).find((n) => n.endsWith('.ref'))!;
    const b = fs.readFileSync(path.join(src, name));
    b[b.length - 10] ^= 0x40;
    const p = path.join(tmp, 'lone.ref');
    fs.writeFileSync(p, b);
    expectOneLine(
      run('analyze', p),
      new RegExp(
        `^refscope: lone\\.ref: offset ${b.length - 4}: expected footer CRC-32 0x[0-9a-f]{8}, found 0x[0-9a-f]{8}\\n$`,
      ),
    );
  });

  it('refs: an unsafe name in tables.list → exit 3, one line', () => {
    const dir = copyStack('basic-sha1', 'unsafe-list');
    fs.writeFileSync(path.join(dir, 'tables.list'), '../../etc/passwd\n');
    expectOneLine(
      run('refs', dir),
      /^refscope: tables\.list: offset 0: expected a plain file name \(no '\/', no '\.\.'\), found "\.\.\/\.\.\/etc\/passwd"\n$/,
    );
  });

  it('refs: a file name with a newline stays on one line (escaped)', () => {
    const dir = path.join(tmp, 'newline-name');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'evil\nname.ref'), 'REFT garbage');
    expectOneLine(
      run('refs', dir),
      /^refscope: evil\\x0aname\.ref: offset 12: expected a reftable header of 24 bytes \(file too short\)\n$/,
    );
  });

  it('refs: random bytes as a table → exit 3, one line', () => {
    const p = path.join(tmp, 'random.ref');
    fs.writeFileSync(p, Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919 + 13) & 255)));
    expectOneLine(run('refs', p), /^refscope: random\.ref: offset 0: expected magic 'REFT'\n$/);
  });
});

describe('inputs beyond 2 GiB (sparse files, read in slices)', () => {
  const SIZE = 2 ** 31 + 4096 * 3; // 2 GiB + 12 KiB, almost all of it a hole
  function sparse(name: string, head: Buffer, foot: Buffer): string {
    const p = path.join(tmp, name);
    const fd = fs.openSync(p, 'w');
    fs.writeSync(fd, head, 0, head.length, 0);
    fs.writeSync(fd, foot, 0, foot.length, SIZE - foot.length);
    fs.closeSync(fd);
    expect(fs.statSync(p).size).toBe(SIZE);
    return p;
  }
  // A real first block (header + first ref block of basic-sha1's newest table, whose ref section
  // ends at its log block), then a hole; a footer whose log_position is 2^31 (inside the hole).
  function parts(): { head: Buffer; foot: Buffer } {
    const dir = path.join(FX, 'basic-sha1/reftable');
    const name = fs.readFileSync(path.join(dir, 'tables.list'), 'utf8').trim().split('\n')[1];
    const t = fs.readFileSync(path.join(dir, name));
    const blockLen = t.readUIntBE(25, 3);
    const head = t.subarray(0, blockLen);
    const foot = Buffer.from(t.subarray(t.length - 68));
    foot.writeUInt32BE(0, 24 + 24);
    foot.writeUInt32BE(2 ** 31, 24 + 24 + 4); // log_position = 2^31
    footerCrcFix(foot);
    return { head, foot };
  }

  it('bad footer CRC at 2 GiB + 12 KiB − 4: found without reading the file whole', () => {
    const { head, foot } = parts();
    foot[foot.length - 1] ^= 1;
    const p = sparse('big-crc.ref', head, foot);
    // Reads only the footer of the sparse file: the test's own timeout guards a full read.
    expectOneLine(run('refs', p), new RegExp(`^refscope: big-crc\\.ref: offset ${SIZE - 4}: expected footer CRC-32 `));
  });

  it('a valid first block, then a hole: the block walk stops at the hole (block size 4096)', () => {
    const { head, foot } = parts();
    const p = sparse('big-hole.ref', head, foot);
    // First block, then NUL padding up to block_size 4096, then a "block" of type 0x00 at 4096.
    expectOneLine(
      run('analyze', p),
      /^refscope: big-hole\.ref: offset 4096: expected block type 'r' \(ref\) in the ref section, found 0x0\n$/,
    );
  });
});

describe('the CLI and its surroundings', () => {
  it('a reader that stops early (| head -1): exit 141 as git under SIGPIPE, nothing on stderr', () => {
    // A pipe through the shell: `refscope refs` writes ~100 KB, head reads one line and leaves.
    const r = spawnSync(
      'bash',
      [
        '-o',
        'pipefail',
        '-c',
        `"${process.execPath}" "${BIN}" refs test/fixtures/packed-refs/gitgit/packed-refs | head -1`,
      ],
      { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
    );
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(141);
  });

  it('a missing --stdin file: one line naming it and what was expected, the error code not twice', () => {
    const r = run('simulate', path.join(FX, 'recreate-1000/reftable'), '--stdin', '/nonexistent/updates.txt');
    expectOneLine(
      r,
      /^refscope: \/nonexistent\/updates\.txt: offset 0: expected an existing file or directory \(none there, open\)\n$/,
    );
  });

  it('--model repeated collects the models, as a comma list does', () => {
    const a = run(
      'simulate',
      path.join(FX, 'recreate-1000/reftable'),
      '--workload',
      'recreate',
      '--model',
      'git-2.49',
      '--model',
      '2.53',
      '--json',
      '--no-fixes',
      '--no-curve',
    );
    expect(a.code).toBe(0);
    expect(JSON.parse(a.stdout).results.map((x: { model: string }) => x.model)).toEqual(['git-2.49', 'git-2.55']);
  });
});
