/**
 * The field cases of reading real repositories, each built with every real git and checked
 * against what that git does on the same files:
 *
 * - a table of 10,000 refs in 1024-byte blocks (several sibling index blocks at the top level):
 *   every existing ref is found by point lookups (`simulate --json` results[].found), none of the
 *   missing ones, and `refs` equals for-each-ref;
 * - a stack mixing a SHA-256 table into a SHA-1 repository: git cannot read it, refscope refuses;
 * - a truncated table: git cannot read the stack; `refs`, `compact` and `simulate` refuse too;
 * - lock files: `<table>.lock` on each table in turn and `tables.list.lock`, the segment refscope
 *   predicts for `git pack-refs --auto` is what git merged with the lock present;
 * - a `packed-refs` whose header claims `sorted` while its lines are not: `refs` equals
 *   for-each-ref (git's order and git's answer for a duplicate).
 */
import { it, expect, afterAll } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { openTable, memorySource, seekRef, newCounters } from '../src/engine/index.ts';
import {
  realGits,
  describeRealGit,
  gitRepo,
  run,
  behaviour,
  mergedSegment,
  FOR_EACH_REF,
  type GitRepo,
  type RealGit,
} from './lib/realgit.ts';
import { refscope } from './lib/cli.ts';

const repos: GitRepo[] = [];
afterAll(() => {
  for (const r of repos) r.dispose();
});
function repo(g: RealGit, opts: Parameters<typeof gitRepo>[1] = {}): GitRepo {
  const r = gitRepo(g, opts);
  repos.push(r);
  return r;
}
const tablesList = (gitDir: string): string[] =>
  fs
    .readFileSync(path.join(gitDir, 'reftable', 'tables.list'), 'utf8')
    .split('\n')
    .filter(Boolean);

/**
 * Whether git can read a repository's refs: for-each-ref succeeds and, when it prints nothing,
 * an empty transaction prepares (git's for-each-ref exits 0 with no output on a stack it cannot
 * open; a transaction then fails with "corrupt reftable file").
 */
function gitReads(g: RealGit, r: GitRepo, gitDir = r.gitDir): { reads: boolean; stdout: string } {
  const fe = run(g.git, [`--git-dir=${gitDir}`, ...FOR_EACH_REF], { cwd: r.dir, env: r.env, allowFail: true });
  if (fe.status !== 0) return { reads: false, stdout: '' };
  if (fe.stdout !== '') return { reads: true, stdout: fe.stdout };
  const tx = run(g.git, [`--git-dir=${gitDir}`, 'update-ref', '--stdin'], {
    cwd: r.dir,
    env: r.env,
    input: 'start\nprepare\nabort\n',
    allowFail: true,
  });
  return { reads: tx.status === 0, stdout: '' };
}

interface SimJson {
  results: { model: string; applicable: boolean; found?: number }[];
}

describeRealGit('real-git field cases', () => {
  for (const g of realGits()) {
    // On this table (git 2.55: 22 index blocks) a key after every key of the index block a seek
    // chose is in the next block: git's reftable/table.c goes on to it, and so must seekRef.
    // The two tests of this case read the same repository (neither writes to it): git builds it
    // once per git.
    let tenK: { r: GitRepo; oid: string; names: string[] } | undefined;
    const tenThousand = () => {
      if (tenK) return tenK;
      const r = repo(g, { config: { 'reftable.blockSize': '1024' } });
      r.git(['commit', '-q', '--allow-empty', '-m', 'c0']);
      const oid = r.git(['rev-parse', 'HEAD']).trim();
      const names = Array.from({ length: 10_000 }, (_, i) => `refs/heads/branch-${String(i).padStart(5, '0')}`);
      r.git(['update-ref', '--stdin'], names.map((n) => `create ${n} ${oid}\n`).join(''));
      r.git(['pack-refs']);
      return (tenK = { r, oid, names });
    };
    it(`git ${g.version}: 10,000 refs in 1024-byte blocks: seekRef finds every ref at its position`, () => {
      const { r } = tenThousand();
      const list = tablesList(r.gitDir);
      const t = openTable({
        path: list[0],
        source: memorySource(fs.readFileSync(path.join(r.gitDir, 'reftable', list[0]))),
      });
      // git's own listing is the set of names that must be found.
      const gitNames = r.git(['for-each-ref', '--format=%(refname)']).split('\n').filter(Boolean);
      const c = newCounters();
      const notFound = gitNames.filter((n) => !seekRef(t, n, c).exact);
      expect(notFound).toEqual([]);
    }, 600_000);

    // `simulate --json` says how many lookups found their ref (results[].found).
    it(`git ${g.version}: 10,000 refs in 1024-byte blocks: every existing ref is found, no missing one`, async () => {
      const { r, oid, names } = tenThousand();
      const list = tablesList(r.gitDir);
      expect(list.length).toBe(1);
      // The shape of the case: git wrote several index blocks (dump-reftable lists them under idx:).
      const dump = r.testTool(['dump-reftable', '-b', path.join(r.gitDir, 'reftable', list[0])]);
      // (2.47's dump tool lists no index blocks: behaviour().dumpShowsIndex.)
      if (behaviour(g).dumpShowsIndex) expect((dump.match(/^idx:$/gm) ?? []).length).toBeGreaterThan(0);
      const refs = await refscope(['refs', r.gitDir]);
      expect(refs.stdout).toBe(r.git(FOR_EACH_REF));
      // Every existing name looked up: git finds each one (rev-parse --verify on a sample confirms git's view).
      for (const n of [names[0], names[4999], names[9999]])
        expect(r.git(['rev-parse', '--verify', n]).trim()).toBe(oid);
      const found = await refscope([
        'simulate',
        r.gitDir,
        '--workload',
        `lookup:names:${names.join(':')}`,
        '--model',
        'all',
        '--json',
      ]);
      expect(found.code, found.stderr).toBe(0);
      const sim = JSON.parse(found.stdout) as SimJson;
      for (const res of sim.results.filter((x) => x.applicable && x.model !== 'files'))
        expect(res.found, `${res.model}: lookups found`).toBe(names.length);
      const missing = names.filter((_, i) => i % 100 === 0).map((n) => `${n}-x`);
      expect(
        run(g.git, ['rev-parse', '--verify', '-q', missing[0]], { cwd: r.dir, env: r.env, allowFail: true }).status,
      ).not.toBe(0);
      const miss = JSON.parse(
        (
          await refscope([
            'simulate',
            r.gitDir,
            '--workload',
            `lookup:names:${missing.join(':')}`,
            '--model',
            'all',
            '--json',
          ])
        ).stdout,
      ) as SimJson;
      for (const res of miss.results.filter((x) => x.applicable && x.model !== 'files'))
        expect(res.found, `${res.model}: missing names found`).toBe(0);
    }, 600_000);

    // git cannot read the mixed stack (for-each-ref prints nothing, a transaction fails "corrupt
    // reftable file"): refscope must refuse it too, not print the SHA-256 table's refs.
    it(`git ${g.version}: a SHA-256 table in a SHA-1 stack: git cannot read it, refscope refuses`, async () => {
      const a = repo(g, { env: { GIT_TEST_REFTABLE_AUTOCOMPACTION: 'false' } });
      a.git(['commit', '-q', '--allow-empty', '-m', 'c0']);
      const b = repo(g, { hash: 'sha256', env: { GIT_TEST_REFTABLE_AUTOCOMPACTION: 'false' } });
      b.git(['commit', '-q', '--allow-empty', '-m', 'c0']);
      const bt = tablesList(b.gitDir).pop()!;
      const name = '0x000000000010-0x000000000010-00000000.ref';
      fs.copyFileSync(path.join(b.gitDir, 'reftable', bt), path.join(a.gitDir, 'reftable', name));
      fs.appendFileSync(path.join(a.gitDir, 'reftable', 'tables.list'), `${name}\n`);
      expect(gitReads(g, a).reads).toBe(false);
      const r = await refscope(['refs', a.gitDir]);
      expect(r.code, r.stdout).toBe(3);
      expect(r.stdout).toBe('');
    });

    it(`git ${g.version}: a truncated table: git cannot read the stack; refs, compact and simulate refuse`, async () => {
      const a = repo(g, { env: { GIT_TEST_REFTABLE_AUTOCOMPACTION: 'false' } });
      a.git(['commit', '-q', '--allow-empty', '-m', 'c0']);
      const oid = a.git(['rev-parse', 'HEAD']).trim();
      a.git(
        ['update-ref', '--stdin'],
        Array.from({ length: 200 }, (_, i) => `create refs/heads/b${i} ${oid}\n`).join(''),
      );
      a.git(['update-ref', 'refs/heads/last', oid]);
      const list = tablesList(a.gitDir);
      const victim = path.join(a.gitDir, 'reftable', list[list.length - 2]);
      const size = fs.statSync(victim).size;
      fs.truncateSync(victim, Math.floor(size / 2));
      expect(gitReads(g, a).reads).toBe(false);
      const refs = await refscope(['refs', a.gitDir]);
      expect(refs.code, refs.stdout.slice(0, 200)).toBe(3);
      expect(refs.stdout).toBe('');
      const out = path.join(a.dir, '..', 'compact-out');
      expect((await refscope(['compact', a.gitDir, '--out', out, '--auto'])).code).toBe(3);
      expect(
        (await refscope(['simulate', a.gitDir, '--workload', 'lookup:existing:10', '--model', 'git-2.55', '--json']))
          .code,
      ).toBe(3);
    });

    // With <table>.lock on table k git's pack-refs --auto merges only the tables above k (nothing
    // when k is one of the top two), and with tables.list.lock nothing.
    it(`git ${g.version}: <table>.lock on each table and tables.list.lock: the predicted segment is what pack-refs --auto merged`, async () => {
      const base = repo(g, { env: { GIT_TEST_REFTABLE_AUTOCOMPACTION: 'false' } });
      base.git(['commit', '-q', '--allow-empty', '-m', 'c0']);
      const oid = base.git(['rev-parse', 'HEAD']).trim();
      // Tables of falling sizes, then a run of small ones: git's geometric rule merges the top run.
      for (const [step, n] of [120, 40, 1, 1, 1, 1].entries()) {
        base.git(
          ['update-ref', '--stdin'],
          Array.from({ length: n }, (_, i) => `update refs/heads/s${step}-${i} ${oid}\n`).join(''),
        );
      }
      // 7 tables (2.47 writes one more at the first commit)
      expect(tablesList(base.gitDir).length).toBeGreaterThanOrEqual(7);
      const list = tablesList(base.gitDir);
      const cases: { lock: string; dir: string }[] = [...list.map((t) => `${t}.lock`), 'tables.list.lock'].map(
        (lock, i) => ({ lock, dir: `${base.dir}-lock${i}` }),
      );
      const env = { ...base.env };
      delete env.GIT_TEST_REFTABLE_AUTOCOMPACTION;
      const bad: string[] = [];
      for (const c of [{ lock: '', dir: `${base.dir}-nolock` }, ...cases]) {
        fs.cpSync(base.dir, c.dir, { recursive: true });
        const gitDir = path.join(c.dir, '.git');
        if (c.lock) fs.writeFileSync(path.join(gitDir, 'reftable', c.lock), '');
        const an = await refscope(['analyze', gitDir, '--json']);
        expect(an.code, an.stderr).toBe(0);
        const predicted = (
          JSON.parse(an.stdout) as { stack: { compaction: { segment: { start: number; end: number } | null } } }
        ).stack.compaction.segment;
        const before = tablesList(gitDir);
        run(g.git, ['pack-refs', '--auto'], { cwd: c.dir, env, allowFail: true });
        const merged = mergedSegment(before, tablesList(gitDir));
        if (JSON.stringify(predicted) !== JSON.stringify(merged))
          bad.push(
            `${c.lock || 'no lock'}: refscope predicts ${JSON.stringify(predicted)}, git merged ${JSON.stringify(merged)}`,
          );
        fs.rmSync(c.dir, { recursive: true, force: true });
      }
      expect(bad).toEqual([]);
    });

    // A build that lists such a file in its own order (behaviour().packedSortedFileOrder: 2.55 and
    // next) prints what refscope prints; 2.47 prints byte order, so there the same lines are
    // compared in byte order (refscope follows the newer gits' order).
    it(`git ${g.version}: packed-refs claiming sorted but out of order: refs equals for-each-ref`, async () => {
      const f = repo(g, { format: 'files' });
      f.git(['commit', '-q', '--allow-empty', '-m', 'c0']);
      f.git(['commit', '-q', '--allow-empty', '-m', 'c1']);
      const [c0, c1] = f.git(['rev-parse', 'HEAD~1', 'HEAD']).trim().split('\n');
      expect(c0).not.toBe(c1);
      for (const n of ['a', 'b', 'c', 'd']) f.git(['update-ref', `refs/heads/${n}`, c0]);
      f.git(['pack-refs', '--all']);
      const packed = path.join(f.gitDir, 'packed-refs');
      const lines = fs.readFileSync(packed, 'utf8').split('\n').filter(Boolean);
      const header = lines[0];
      expect(header).toMatch(/ sorted/);
      // Out of order (d before a), and a duplicate of b with another value after it.
      const body = lines.slice(1).filter((l) => !l.startsWith('^'));
      const byName = new Map(body.map((l) => [l.split(' ')[1], l]));
      const shuffled = [
        byName.get('refs/heads/d')!,
        byName.get('refs/heads/a')!,
        byName.get('refs/heads/b')!,
        `${c1} refs/heads/b`,
        byName.get('refs/heads/c')!,
        byName.get('refs/heads/main')!,
      ];
      fs.writeFileSync(packed, [header, ...shuffled].join('\n') + '\n');
      const want = run(g.git, FOR_EACH_REF, { cwd: f.dir, env: f.env, allowFail: true });
      const r = await refscope(['refs', f.gitDir]);
      if (want.status !== 0) expect(r.code).toBe(3);
      else if (behaviour(g).packedSortedFileOrder) expect(r.stdout).toBe(want.stdout);
      else expect(byteSortedLines(r.stdout)).toBe(want.stdout);
    });
  }
});

/** Lines sorted by refname in byte order, stably (duplicates keep their order), as git 2.47 lists them. */
function byteSortedLines(out: string): string {
  const lines = out.split('\n').filter(Boolean);
  const name = (l: string) => l.slice(l.indexOf(' ') + 1);
  return lines
    .map((l, i) => [l, i] as const)
    .sort((a, b) => (name(a[0]) < name(b[0]) ? -1 : name(a[0]) > name(b[0]) ? 1 : a[1] - b[1]))
    .map(([l]) => l + '\n')
    .join('');
}
