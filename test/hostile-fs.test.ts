/**
 * File-system attacks through the CLI: symbolic links out of the input and in loops, FIFOs,
 * devices and a directory where a file belongs, and `--stdin` streams that never end. Every case
 * ends with an answer or exit 3 and one stderr line; none reads outside the input (a link out is
 * refused by name before anything behind it is opened, so its content cannot reach the message).
 * What git does with symlinked loose refs comes from a real git run on the same layout.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { realGits, gitSkipReason, gitRepo } from './lib/realgit.ts';

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'bin/refscope.mjs');
const FX = path.join(__dirname, 'fixtures/reftable');
let tmp = '';

function run(args: string[], opts: { input?: string } = {}): { code: number | null; stdout: string; stderr: string } {
  // 60 s: a hang guard, not a speed assertion (the attacks here used to never end).
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    encoding: 'latin1',
    timeout: 60_000,
    input: opts.input,
    maxBuffer: 1 << 28,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
function expectOneLine(r: { code: number | null; stderr: string }, re: RegExp): void {
  expect(r.stderr).toMatch(/^refscope: [^\n]*\n$/);
  expect(r.stderr).toMatch(re);
  expect(r.stderr).not.toMatch(/\n\s+at |Error:/);
  expect(r.code).toBe(3);
}

const A = 'a'.repeat(40),
  B = 'b'.repeat(40);
/** A minimal files-backend git directory under `dir` (HEAD, packed-refs, one loose ref). */
function filesGitDir(dir: string): string {
  const g = path.join(dir, '.git');
  fs.mkdirSync(path.join(g, 'refs/heads'), { recursive: true });
  fs.writeFileSync(path.join(g, 'HEAD'), 'ref: refs/heads/main\n');
  fs.writeFileSync(path.join(g, 'packed-refs'), `# pack-refs with: peeled fully-peeled sorted \n${B} refs/tags/v1\n`);
  fs.writeFileSync(path.join(g, 'refs/heads/main'), `${A}\n`);
  return g;
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-hostile-fs-'));
});
afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('symbolic links in the input', () => {
  it('refs/heads/{a,b} -> . (a loop git never finishes): exit 3, one line naming the link', () => {
    const g = filesGitDir(path.join(tmp, 'loop2'));
    fs.symlinkSync('.', path.join(g, 'refs/heads/a'));
    fs.symlinkSync('.', path.join(g, 'refs/heads/b'));
    const r = run(['refs', g]);
    expectOneLine(
      r,
      /refs\/heads\/a: offset 0: expected a directory tree without loops, found a symbolic link to a directory that contains it/,
    );
    expect(r.stdout).toBe('');
  });
  it('refs/heads/root -> / : refused by name, nothing outside is walked', () => {
    const g = filesGitDir(path.join(tmp, 'linkroot'));
    fs.symlinkSync('/', path.join(g, 'refs/heads/root'));
    const r = run(['analyze', g]);
    expectOneLine(
      r,
      /refs\/heads\/root: offset 0: expected files and directories inside the input, found a symbolic link to a directory outside it/,
    );
  });
  it('a tables.list linked to a file outside: the file is not opened and none of its bytes is quoted', () => {
    const secret = path.join(tmp, 'secret.txt');
    fs.writeFileSync(secret, 'root:SECRET-HASH:20228:0:99999:7:::\n');
    const dir = path.join(tmp, 'symlist', 'reftable');
    fs.mkdirSync(dir, { recursive: true });
    for (const f of fs.readdirSync(path.join(FX, 'basic-sha1/reftable')))
      if (f.endsWith('.ref')) fs.copyFileSync(path.join(FX, 'basic-sha1/reftable', f), path.join(dir, f));
    fs.symlinkSync(secret, path.join(dir, 'tables.list'));
    for (const p of [dir, path.join(dir, 'tables.list'), path.dirname(dir)]) {
      const r = run(['refs', p]);
      expectOneLine(
        r,
        /tables\.list: offset 0: expected files and directories inside the input, found a symbolic link to a regular file outside it/,
      );
      expect(r.stderr).not.toContain('SECRET');
      expect(r.stderr).not.toContain('root:');
    }
  });
  it('a link to a directory inside the input that is not a loop is walked, as git walks it', () => {
    const g = filesGitDir(path.join(tmp, 'inside'));
    fs.mkdirSync(path.join(g, 'refs/remotes/origin'), { recursive: true });
    fs.writeFileSync(path.join(g, 'refs/remotes/origin/x'), `${B}\n`);
    fs.symlinkSync('../remotes/origin', path.join(g, 'refs/heads/mirror'));
    const r = run(['refs', g]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // HEAD -> main (loose), then the refs byte-sorted, the linked directory's ref under both names.
    expect(r.stdout).toBe(
      `${A} HEAD\n${A} refs/heads/main\n${B} refs/heads/mirror/x\n${B} refs/remotes/origin/x\n${B} refs/tags/v1\n`,
    );
  });
});

const STRACE = '/usr/bin/strace';

/**
 * Every path `args` opens or lists, from the kernel's side (strace, all threads and children):
 * what a "nothing outside was read" check must look at, since an open through a link path
 * reads the link's target whatever the message says.
 */
function opened(args: string[]): { r: ReturnType<typeof run>; paths: string[] } {
  const log = path.join(tmp, `strace-${process.pid}-${Math.random().toString(36).slice(2)}.txt`);
  const sp = spawnSync(
    STRACE,
    ['-f', '-qq', '-y', '-e', 'trace=open,openat,openat2,getdents64', '-o', log, process.execPath, BIN, ...args],
    { cwd: ROOT, encoding: 'latin1', timeout: 120_000, maxBuffer: 1 << 28 },
  );
  const text = fs.readFileSync(log, 'latin1');
  fs.rmSync(log);
  const paths: string[] = [];
  for (const line of text.split('\n')) {
    // openat(AT_FDCWD</cwd>, "/the/path", …) = 3</the/real/path>; getdents64(3</the/dir>, …)
    const m = /(?:open|openat|openat2)\([^"]*"([^"]*)"/.exec(line);
    if (m && !/= -1 /.test(line)) paths.push(path.resolve(ROOT, m[1]));
    const g = /getdents64\(\d+<([^>]*)>/.exec(line);
    if (g) paths.push(g[1]);
    const real = /= \d+<([^>]*)>$/.exec(line);
    if (real) paths.push(real[1]);
  }
  return { r: { code: sp.status, stdout: sp.stdout, stderr: sp.stderr }, paths };
}

describe.skipIf(!fs.existsSync(STRACE) && `no ${STRACE}`)('links out of the input, seen by the kernel', () => {
  it('analyze, compact, share and export never open or list a path behind a link out', () => {
    run(['--version']); // the CLI bundle is (re)built outside the traced runs
    const outside = path.join(tmp, 'outside-target');
    fs.mkdirSync(path.join(outside, 'refs'), { recursive: true });
    fs.writeFileSync(path.join(outside, 'refs', 'x'), `${A}\n`);
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'root:SECRET-HASH:20228:0:99999:7:::\n');
    // a loose-ref directory linked out, and a tables.list linked out
    const g = filesGitDir(path.join(tmp, 'traced-dir'));
    fs.symlinkSync(outside, path.join(g, 'refs/heads/out'));
    const dir = path.join(tmp, 'traced-list', 'reftable');
    fs.mkdirSync(dir, { recursive: true });
    for (const f of fs.readdirSync(path.join(FX, 'basic-sha1/reftable')))
      if (f.endsWith('.ref')) fs.copyFileSync(path.join(FX, 'basic-sha1/reftable', f), path.join(dir, f));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(dir, 'tables.list'));
    const forbidden = [
      outside,
      fs.realpathSync(outside),
      path.join(g, 'refs/heads/out'),
      path.join(dir, 'tables.list'),
    ];
    for (const input of [g, dir]) {
      for (const args of [
        ['analyze', input],
        ['compact', input, '--all', '--out', path.join(tmp, 'traced-out')],
        ['share', input],
        ['export', input, '--format', 'json'],
      ]) {
        const { r, paths } = opened(args);
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBeGreaterThanOrEqual(2);
        expect(r.stderr).toMatch(/^refscope: [^\n]*\n(?:[^\n]*\n)?$/);
        expect(r.stderr).not.toContain('SECRET');
        // the traced run did open the input (so the trace is not empty by mistake)...
        expect(paths.some((p) => p.startsWith(path.dirname(input)))).toBe(true);
        // ...and nothing at or behind a link out
        const bad = paths.filter((p) => forbidden.some((f) => p === f || p.startsWith(f + '/')));
        expect(bad, args.join(' ')).toEqual([]);
      }
    }
  }, 600_000);
});

describe('non-regular files and streams', () => {
  it('a directory named tables.list: exit 3, one line (it used to be ignored with exit 0)', () => {
    const dir = path.join(tmp, 'dirlist', 'reftable');
    fs.mkdirSync(path.join(dir, 'tables.list'), { recursive: true });
    const r = run(['refs', dir]);
    expectOneLine(r, /tables\.list: offset 0: expected tables\.list to be a regular file, found a directory/);
  });
  it('a FIFO named tables.list or packed-refs: refused without opening it (opening would block)', () => {
    const dir = path.join(tmp, 'fifolist', 'reftable');
    fs.mkdirSync(dir, { recursive: true });
    execFileSync('mkfifo', [path.join(dir, 'tables.list')]);
    expectOneLine(
      run(['refs', dir]),
      /tables\.list: offset 0: expected tables\.list to be a regular file, found a named pipe \(FIFO\)/,
    );
    const g = filesGitDir(path.join(tmp, 'fifopacked'));
    fs.rmSync(path.join(g, 'packed-refs'));
    execFileSync('mkfifo', [path.join(g, 'packed-refs')]);
    expectOneLine(
      run(['analyze', g]),
      /packed-refs: offset 0: expected packed-refs to be a regular file, found a named pipe \(FIFO\)/,
    );
  });
  it("a FIFO under refs/heads is left out, as git's listing leaves it out (its type is neither file nor directory)", () => {
    const g = filesGitDir(path.join(tmp, 'fifoloose'));
    execFileSync('mkfifo', [path.join(g, 'refs/heads/pipe')]);
    const r = run(['refs', g]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${A} HEAD\n${A} refs/heads/main\n${B} refs/tags/v1\n`);
  });
  it('a FIFO or a device given as the path: exit 3, one line', () => {
    const fifo = path.join(tmp, 'a-fifo');
    execFileSync('mkfifo', [fifo]);
    expectOneLine(run(['refs', fifo]), /expected a regular file or a directory, found a named pipe \(FIFO\)/);
    expectOneLine(run(['refs', '/dev/zero']), /expected a regular file or a directory, found a character device/);
  });
  it('a 70 MiB tables.list (sparse): refused at the documented cap before it is read', () => {
    const dir = path.join(tmp, 'biglist', 'reftable');
    fs.mkdirSync(dir, { recursive: true });
    const fd = fs.openSync(path.join(dir, 'tables.list'), 'w');
    fs.ftruncateSync(fd, 70 * 1024 * 1024);
    fs.closeSync(fd);
    expectOneLine(
      run(['refs', dir]),
      /tables\.list: offset 67108864: expected a tables\.list of at most 67,108,864 bytes .*found 73,400,320 bytes/,
    );
  });
  it('simulate --stdin /dev/zero stops at the documented cap with one line (it used to grow without end)', () => {
    const r = run(['simulate', path.join(FX, 'basic-sha1/reftable'), '--stdin', '/dev/zero']);
    expectOneLine(r, /\/dev\/zero: offset 67108864: expected update-ref --stdin input of at most 67,108,864 bytes/);
  });
  it('simulate --stdin - still reads a pipe', () => {
    const r = run(['simulate', path.join(FX, 'basic-sha1/reftable'), '--stdin', '-', '--json'], {
      input: `create refs/heads/new ${'1'.repeat(40)}\n`,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).workload).toBeTruthy();
  });
});

/** `git for-each-ref --include-root-refs` as "<oid> <name>" lines. */
function gitRefs(repo: { git(a: string[]): string }): string {
  return repo.git(['for-each-ref', '--include-root-refs', '--format=%(objectname) %(refname)']);
}

describe.skipIf(gitSkipReason)('symlinked loose refs, as real git reads them', () => {
  for (const g of realGits()) {
    it(`git ${g.version}: a symlink symref, a link to a file, a dangling symref-style link, a linked directory, a FIFO`, () => {
      const repo = gitRepo(g, { format: 'files' });
      try {
        repo.git(['commit', '-q', '--allow-empty', '-m', 'one']);
        repo.git(['commit', '-q', '--allow-empty', '-m', 'two']);
        repo.git(['tag', 'v1', 'HEAD~1']);
        const heads = path.join(repo.gitDir, 'refs/heads');
        // Text "refs/heads/main" is a ref name: git reads it as a symref, without reading the
        // target; it lists it only if stat() finds a file there (refs/heads/refs/heads/main).
        fs.mkdirSync(path.join(heads, 'refs/heads'), { recursive: true });
        fs.writeFileSync(path.join(heads, 'refs/heads/main'), repo.git(['rev-parse', 'HEAD~1']));
        fs.symlinkSync('refs/heads/main', path.join(heads, 'alias'));
        // Dangling as a path: git's listing skips it.
        fs.mkdirSync(path.join(heads, 'sub'));
        fs.symlinkSync('refs/heads/main', path.join(heads, 'sub/dangling'));
        // Not a ref name: git reads the file it leads to.
        fs.symlinkSync('../../refs/tags/v1', path.join(heads, 'viafile'));
        // A directory inside the repository, not a loop: walked.
        fs.symlinkSync('../tags', path.join(heads, 'tagdir'));
        // A FIFO: git's listing skips it (its type is neither file nor directory).
        execFileSync('mkfifo', [path.join(heads, 'pipe')]);
        const want = gitRefs(repo);
        const r = run(['refs', repo.gitDir]);
        expect(r.stderr).toBe('');
        expect(r.stdout).toBe(want);
      } finally {
        repo.dispose();
      }
    });
  }
});
