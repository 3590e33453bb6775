/**
 * `refscope diff` (src/engine/diff.ts) on snapshots real git wrote, copied with `cp -r` between
 * the steps: before and after `git pack-refs --auto` the diff names exactly the tables git merged
 * (the names that left tables.list) and the table it wrote, and exactly the ref records git dropped
 * (the `test-tool dump-reftable -t` lines of the merged tables that the new table's dump lacks);
 * after a full `git pack-refs` the tombstones dropped are the ones git's dumps lose; across new
 * transactions the refs created, updated and deleted are `git for-each-ref`'s differences.
 */
import { describe, it, expect, afterAll } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { realGits, gitSkipReason, gitRepo, run, type GitRepo, type RealGit } from './lib/realgit.ts';
import { refscope } from './lib/cli.ts';
import { analyzeFiles } from '../src/engine/index.ts';
import { diffAnalyses } from '../src/engine/diff.ts';
import { collectInput } from '../src/cli/node-input.ts';
import { schemaErrors } from './lib/schema.ts';

/** The dumping test-tool: 2.47.3's (the newer helpers' `-t` crashes on some tables). */
function dumper(): RealGit {
  return realGits().find((g) => g.version === '2.47.3') ?? realGits()[0];
}

/** `name(update_index) kind` of every ref line of a table's dump (t/helper/test-reftable.c). */
function dumpKeys(r: GitRepo, file: string): string[] {
  const out = run(dumper().testTool, ['dump-reftable', '-t', file], { cwd: r.dir, env: r.env }).stdout;
  const keys: string[] = [];
  for (const line of out.split('\n')) {
    const m = /^ref\{(.+)\((\d+)\) (delete|val 1|val 2|=>)/.exec(line);
    if (m) keys.push(`${m[1]}(${m[2]}) ${m[3]}`);
  }
  return keys;
}
const KIND_DUMP = { tombstone: 'delete', value: 'val 1', peeled: 'val 2', symref: '=>' } as const;

function listOf(dir: string): string[] {
  return fs.readFileSync(path.join(dir, 'tables.list'), 'utf8').trim().split('\n').filter(Boolean);
}

describe.skipIf(gitSkipReason)('refscope diff: snapshots real git wrote', () => {
  const repos: GitRepo[] = [];
  afterAll(() => repos.forEach((r) => r.dispose()));

  for (const g of realGits()) {
    it(`git ${g.version}: pack-refs --auto merges and drops what the diff names`, async () => {
      const r = gitRepo(g, { env: { GIT_TEST_REFTABLE_AUTOCOMPACTION: 'false' } });
      repos.push(r);
      const root = path.dirname(r.dir);
      const snap = (n: string) => {
        const to = path.join(root, n);
        execFileSync('cp', ['-r', path.join(r.gitDir, 'reftable'), to]);
        return to;
      };
      const refsNow = () =>
        new Map(
          r
            .git(['for-each-ref', '--format=%(refname) %(objectname)'])
            .trim()
            .split('\n')
            .map((l) => l.split(' ') as [string, string]),
        );
      r.git(['commit', '-q', '--allow-empty', '-m', 'one']);
      r.git(['commit', '-q', '--allow-empty', '-m', 'two']);
      const c1 = r.git(['rev-parse', 'HEAD~1']).trim();
      const c2 = r.git(['rev-parse', 'HEAD']).trim();
      r.git(
        ['update-ref', '--stdin'],
        Array.from({ length: 40 }, (_, i) => `create refs/heads/b${i} ${c1}\n`).join(''),
      );
      const s0 = snap('s0');
      const refs0 = refsNow();
      r.git(['update-ref', 'refs/heads/b1', c2]);
      r.git(['update-ref', 'refs/heads/b1', c1]);
      r.git(['update-ref', '-d', 'refs/heads/b2']);
      r.git(['update-ref', 'refs/heads/new', c2]);
      r.git(['update-ref', '-d', 'refs/heads/new']);
      r.git(['update-ref', 'refs/heads/other', c2]);
      const s1 = snap('s1');
      const refs1 = refsNow();
      r.git(['pack-refs', '--auto']);
      const s2 = snap('s2');
      r.git(['pack-refs']);
      const s3 = snap('s3');
      const A = (d: string) => analyzeFiles(collectInput(d));

      // New transactions: refs created, updated, deleted as git for-each-ref differs.
      const w = diffAnalyses(A(s0), A(s1));
      expect(w.compaction).toBe(false);
      expect(w.unrelated).toBeNull();
      expect(w.writes).toBe(true);
      expect(w.refsCreated.map((x) => [x.name, x.after])).toEqual([...refs1].filter(([n]) => !refs0.has(n)).sort());
      expect(w.refsDeleted.map((x) => [x.name, x.before])).toEqual([...refs0].filter(([n]) => !refs1.has(n)).sort());
      expect(w.refsUpdated.map((x) => [x.name, x.before, x.after])).toEqual(
        [...refs1].filter(([n, o]) => refs0.has(n) && refs0.get(n) !== o).map(([n, o]) => [n, refs0.get(n), o]),
      );
      expect(w.tablesRemoved).toEqual([]);
      expect(w.tablesAdded.map((t) => t.name)).toEqual(listOf(s1).filter((n) => !listOf(s0).includes(n)));

      // pack-refs --auto: git's merged tables and its new table.
      const gone = listOf(s1).filter((n) => !listOf(s2).includes(n));
      const fresh = listOf(s2).filter((n) => !listOf(s1).includes(n));
      expect(gone.length, 'git merged at least two tables').toBeGreaterThanOrEqual(2);
      const d = diffAnalyses(A(s1), A(s2));
      expect(d.compaction).toBe(true);
      expect(d.unrelated).toBeNull();
      expect(d.writes).toBe(false);
      expect(d.tablesRemoved.map((t) => t.name)).toEqual(gone);
      expect(d.tablesAdded.map((t) => t.name)).toEqual(fresh);
      expect(d.merges.map((m) => [m.table.name, m.from.map((t) => t.name)])).toEqual([[fresh[0], gone]]);
      expect(d.refsCreated.length + d.refsUpdated.length + d.refsDeleted.length).toBe(0);
      const before = gone.flatMap((n) => dumpKeys(r, path.join(s1, n)));
      const after = new Set(fresh.flatMap((n) => dumpKeys(r, path.join(s2, n))));
      const droppedByGit = before.filter((k) => !after.has(k)).sort();
      expect(droppedByGit.length, 'git dropped records').toBeGreaterThan(0);
      expect(d.recordsDropped.map((x) => `${x.name}(${x.updateIndex}) ${KIND_DUMP[x.kind]}`).sort()).toEqual(
        droppedByGit,
      );
      expect(d.recordsWritten).toEqual([]);

      // Full pack-refs from s1: every tombstone git's dumps held is gone, and the diff says so.
      const tombsBefore = listOf(s1).flatMap((n) => dumpKeys(r, path.join(s1, n)).filter((k) => k.endsWith(' delete')));
      const tombsAfter = listOf(s3).flatMap((n) => dumpKeys(r, path.join(s3, n)).filter((k) => k.endsWith(' delete')));
      const p = diffAnalyses(A(s1), A(s3));
      expect(tombsBefore.length).toBeGreaterThan(0);
      expect(p.unrelated).toBeNull();
      expect(p.compaction).toBe(true);
      expect(p.tombstonesDropped).toBe(tombsBefore.length - tombsAfter.length);
      expect(p.after.tables).toBe(listOf(s3).length);
      expect(p.after.debt.droppableRecords).toBe(0);

      // The CLI's document validates against schemas/diff.schema.json and names the same tables.
      const cli = await refscope(['diff', '--json', s1, s2]);
      expect(cli.stderr).toBe('');
      expect(cli.code).toBe(0);
      const doc = JSON.parse(cli.stdout);
      expect(schemaErrors('diff', doc)).toEqual([]);
      expect(doc.tablesRemoved.map((t: { name: string }) => t.name)).toEqual(gone);
      const text = await refscope(['diff', s1, s2]);
      expect(text.stdout).toMatch(/^change: a compaction$/m);
    });
  }

  for (const g of realGits()) {
    it(`git ${g.version}: two stacks of separate repositories are not a compaction`, async () => {
      // Two repositories with the same transactions on different commits: the stacks share no
      // table and their records disagree, so neither a merge nor a compaction may be claimed.
      const make = (msg: string) => {
        const r = gitRepo(g, { env: { GIT_TEST_REFTABLE_AUTOCOMPACTION: 'false' } });
        repos.push(r);
        r.git(['commit', '-q', '--allow-empty', '-m', msg]);
        for (const b of ['x', 'y', 'z']) r.git(['update-ref', `refs/heads/${b}`, 'HEAD']);
        return r;
      };
      const a = make('first repository');
      const b = make('second repository');
      const c = make('third repository');
      b.git(['pack-refs']);
      // c: its tables left as written, and one more transaction than a.
      c.git(['update-ref', '-d', 'refs/heads/z']);
      const dirA = path.join(a.gitDir, 'reftable');
      const dirB = path.join(b.gitDir, 'reftable');
      const dirC = path.join(c.gitDir, 'reftable');
      expect(listOf(dirA).filter((n) => listOf(dirB).includes(n) || listOf(dirC).includes(n))).toEqual([]);
      expect(listOf(dirB).length, 'git packed b into one table').toBe(1);
      const A = (d: string) => analyzeFiles(collectInput(d));
      for (const [x, y] of [
        [dirA, dirB],
        [dirA, dirC],
        [dirC, dirA],
      ]) {
        const d = diffAnalyses(A(x), A(y));
        expect(d.compaction, `${x} -> ${y}`).toBe(false);
        expect(d.merges).toEqual([]);
        expect(d.unrelated, `${x} -> ${y}`).toMatch(/./);
      }
      const cli = await refscope(['diff', dirA, dirB]);
      expect(cli.code).toBe(0);
      expect(cli.stdout).toMatch(/^change: the stacks look unrelated /m);
      expect(cli.stdout).not.toMatch(/compaction$/m);
      expect(cli.stderr).toMatch(/^refscope: warning: .* look unrelated: /);
      const json = await refscope(['diff', '--json', dirA, dirC]);
      const doc = JSON.parse(json.stdout);
      expect(schemaErrors('diff', doc)).toEqual([]);
      expect(doc.compaction).toBe(false);
      expect(typeof doc.unrelated).toBe('string');
    });
  }
});
