/**
 * Lock files in a reftable directory (src/engine/analyze.ts lockFiles, reftable/auto-compaction.ts
 * gitAutoCompactionWithLocks): every lock is reported, and the predicted next auto-compaction is
 * what real git does with the lock present. Each case builds a stack with real git and
 * auto-compaction off (GIT_TEST_REFTABLE_AUTOCOMPACTION=false, as git's own tests do), creates
 * the lock file, asks refscope, then runs `git pack-refs --auto` (or an `update-ref` with
 * auto-compaction on) and compares the tables git left with the prediction.
 */
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeFiles, buildReport } from '../src/engine/index.ts';
import { collectInput } from '../src/cli/node-input.ts';
import type { CompactionReport } from '../src/engine/extensions.ts';
import { gitAutoCompactionWithLocks } from '../src/engine/reftable/auto-compaction.ts';
import { realGits, gitRepo, run, type GitRepo, type RealGit } from './lib/realgit.ts';

const gits = realGits();
const BIN = path.join(__dirname, '..', 'bin/refscope.mjs');

/** `tables.list` as update-index ranges (`1-1`, `2-5`): the names without their random part. */
function shape(repo: GitRepo): string[] {
  return fs
    .readFileSync(path.join(repo.gitDir, 'reftable/tables.list'), 'utf8')
    .trim()
    .split('\n')
    .map((n) => n.replace(/^0x0*(\w+?)-0x0*(\w+?)-.*$/, '$1-$2'));
}
/** The shape git should leave after merging `seg` of `before`. */
function merged(before: string[], seg: { start: number; end: number } | null): string[] {
  if (!seg) return before;
  const lo = before[seg.start].split('-')[0];
  const hi = before[seg.end].split('-')[1];
  return [...before.slice(0, seg.start), `${lo}-${hi}`, ...before.slice(seg.end + 1)];
}
/** Init (one table with HEAD) and four single-ref transactions: five tables, sizes alike. */
function fiveTables(g: RealGit): { repo: GitRepo; commit: string } {
  const repo = gitRepo(g, { env: { GIT_TEST_REFTABLE_AUTOCOMPACTION: 'false' } });
  const commit = repo.git(['commit-tree', '-m', 'x', repo.git(['write-tree']).trim()]).trim();
  for (let i = 1; i <= 4; i++) repo.git(['update-ref', `refs/heads/b${i}`, commit]);
  return { repo, commit };
}
function analysis(repo: GitRepo) {
  const a = analyzeFiles(collectInput(repo.gitDir));
  return { a, r: buildReport(a) };
}
function lockTable(repo: GitRepo, i: number): string {
  const name = fs.readFileSync(path.join(repo.gitDir, 'reftable/tables.list'), 'utf8').trim().split('\n')[i];
  fs.writeFileSync(path.join(repo.gitDir, 'reftable', name + '.lock'), '');
  return name;
}

describe('the rule with locks, by hand (reftable/stack.c stack_compact_range)', () => {
  // net sizes 35, 123, 123, 123, 123 (git's 126- and 214-byte tables): the rule merges 0–4.
  const sizes = [126, 214, 214, 214, 214];
  const v = [1, 1, 1, 1, 1] as (1 | 2)[];
  const none = [false, false, false, false, false];
  const at = (i: number) => none.map((_, k) => k === i);
  it('no lock: tables 0–4', () => {
    expect(gitAutoCompactionWithLocks(sizes, v, 2, { tablesList: false, tables: none }).segment).toEqual({
      start: 0,
      end: 4,
    });
  });
  it('table 0 locked: 1–4; table 2 locked: 3–4', () => {
    expect(gitAutoCompactionWithLocks(sizes, v, 2, { tablesList: false, tables: at(0) }).segment).toEqual({
      start: 1,
      end: 4,
    });
    expect(gitAutoCompactionWithLocks(sizes, v, 2, { tablesList: false, tables: at(2) }).segment).toEqual({
      start: 3,
      end: 4,
    });
  });
  it('table 3 or 4 locked: fewer than two tables above it, nothing merged (lock error)', () => {
    for (const i of [3, 4]) {
      const r = gitAutoCompactionWithLocks(sizes, v, 2, { tablesList: false, tables: at(i) });
      expect(r.segment).toBeNull();
      expect(r.outcome).toBe('locked');
      expect(r.rule).toEqual({ start: 0, end: 4 });
    }
  });
  it('tables.list.lock: nothing merged, whatever the rule says', () => {
    expect(gitAutoCompactionWithLocks(sizes, v, 2, { tablesList: true, tables: none }).outcome).toBe('list-locked');
  });
  it('a lock below the segment changes nothing (64, 32, 16, 8, 4, 3, 1 by net size; table 0 locked)', () => {
    const s = [64, 32, 16, 8, 4, 3, 1].map((x) => x + 91);
    const r = gitAutoCompactionWithLocks([128 + 91, ...s.slice(1)], [1, 1, 1, 1, 1, 1, 1], 2, {
      tablesList: false,
      tables: [true, false, false, false, false, false, false],
    });
    expect(r.segment).toEqual({ start: 1, end: 5 });
  });
});

describe.skipIf(gits.length === 0)('locks against real git', () => {
  for (const g of gits) {
    for (const locked of [0, 1, 2, 3, 4]) {
      it(`git ${g.version}: table ${locked} of 5 locked: refscope's predicted segment is what git pack-refs --auto merged`, () => {
        const { repo } = fiveTables(g);
        try {
          const before = shape(repo);
          const name = lockTable(repo, locked);
          const { a, r } = analysis(repo);
          expect(r.stack!.locks).toEqual([{ path: `reftable/${name}.lock`, kind: 'table', table: locked }]);
          expect(a.findings.some((f) => f.file === `reftable/${name}.lock`)).toBe(true);
          const c = r.stack!.compaction as CompactionReport;
          const res = repo.gitResult(['pack-refs', '--auto']);
          expect(shape(repo)).toEqual(merged(before, c.segment));
          if (c.locks.outcome === 'locked') {
            expect(res.status).not.toBe(0);
            expect(res.stderr).toMatch(/unable to compact stack: data is locked/);
          } else {
            expect(res.status).toBe(0);
            expect(c.segment).not.toBeNull();
          }
        } finally {
          repo.dispose();
        }
      });
    }
    it(`git ${g.version}: table 3 of 5 locked, update-ref with auto-compaction on: git merges what refscope predicts on the 6-table stack`, () => {
      // Twin repositories: A adds the sixth table with auto-compaction off and asks refscope;
      // B runs the same commands with auto-compaction on for the sixth. Same bytes, same sizes.
      const A = fiveTables(g),
        B = fiveTables(g);
      try {
        lockTable(A.repo, 3);
        lockTable(B.repo, 3);
        A.repo.git(['update-ref', 'refs/heads/c', A.commit]);
        const before = shape(A.repo);
        const c = analysis(A.repo).r.stack!.compaction as CompactionReport;
        expect(c.ruleSegment).toEqual({ start: 0, end: 5 });
        expect(c.segment).toEqual({ start: 4, end: 5 });
        const res = run(g.git, ['update-ref', 'refs/heads/c', B.commit], {
          cwd: B.repo.dir,
          env: { ...B.repo.env, GIT_TEST_REFTABLE_AUTOCOMPACTION: 'true' },
        });
        expect(res.status).toBe(0);
        expect(shape(B.repo)).toEqual(merged(before, c.segment));
      } finally {
        A.repo.dispose();
        B.repo.dispose();
      }
    });
    it(`git ${g.version}: tables.list.lock: reported, nothing predicted, git refuses to write and to compact`, () => {
      const { repo, commit } = fiveTables(g);
      try {
        const before = shape(repo);
        fs.writeFileSync(path.join(repo.gitDir, 'reftable/tables.list.lock'), '');
        const { r } = analysis(repo);
        expect(r.stack!.locks).toEqual([{ path: 'reftable/tables.list.lock', kind: 'tables.list' }]);
        const c = r.stack!.compaction as CompactionReport;
        expect(c.segment).toBeNull();
        expect(c.locks.outcome).toBe('list-locked');
        expect(r.verdict.gitReadable).toBe(true);
        const upd = repo.gitResult(['update-ref', 'refs/heads/z', commit]);
        expect(upd.status).not.toBe(0);
        expect(upd.stderr).toMatch(/cannot lock references/);
        const pack = repo.gitResult(['pack-refs', '--auto']);
        expect(pack.status).not.toBe(0);
        expect(pack.stderr).toMatch(/data is locked/);
        expect(shape(repo)).toEqual(before);
        // reading still works: git for-each-ref lists the refs
        expect(repo.git(['for-each-ref', '--format=%(refname)'])).toBe(
          'refs/heads/b1\nrefs/heads/b2\nrefs/heads/b3\nrefs/heads/b4\n',
        );
      } finally {
        repo.dispose();
      }
    });
    it(`git ${g.version}: refscope compact --auto with table 2 locked writes the stack git pack-refs --auto leaves; tables.list.lock: exit 3`, () => {
      const { repo } = fiveTables(g);
      const out = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-locks-'));
      try {
        lockTable(repo, 2);
        const r = spawnSync(process.execPath, [BIN, 'compact', repo.gitDir, '--auto', '--out', path.join(out, 'a')], {
          encoding: 'utf8',
        });
        expect(r.status, r.stderr).toBe(0);
        const ours = fs
          .readFileSync(path.join(out, 'a/reftable/tables.list'), 'utf8')
          .trim()
          .split('\n')
          .map((n) => n.replace(/^0x0*(\w+?)-0x0*(\w+?)-.*$/, '$1-$2'));
        expect(repo.gitResult(['pack-refs', '--auto']).status).toBe(0);
        expect(ours).toEqual(shape(repo));
        fs.writeFileSync(path.join(repo.gitDir, 'reftable/tables.list.lock'), '');
        const l = spawnSync(process.execPath, [BIN, 'compact', repo.gitDir, '--auto', '--out', path.join(out, 'b')], {
          encoding: 'utf8',
        });
        expect(l.status).toBe(3);
        expect(l.stderr).toMatch(
          /^refscope: reftable\/tables\.list\.lock: offset 0: expected git pack-refs --auto to find tables.list unlocked; git refuses while the lock file exists \("data is locked"\)\n$/,
        );
      } finally {
        repo.dispose();
        fs.rmSync(out, { recursive: true, force: true });
      }
    });
    it(`git ${g.version}: a lock file of an unlisted name is stale: reported, prediction unchanged`, () => {
      const { repo } = fiveTables(g);
      try {
        const before = shape(repo);
        fs.writeFileSync(path.join(repo.gitDir, 'reftable/0x000000000009-0x000000000009-deadbeef.ref.lock'), '');
        const { r } = analysis(repo);
        expect(r.stack!.locks.map((l) => l.kind)).toEqual(['stale']);
        const c = r.stack!.compaction as CompactionReport;
        expect(c.segment).toEqual({ start: 0, end: 4 });
        expect(repo.gitResult(['pack-refs', '--auto']).status).toBe(0);
        expect(shape(repo)).toEqual(merged(before, c.segment));
      } finally {
        repo.dispose();
      }
    });
  }
});
