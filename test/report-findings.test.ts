/**
 * Report fields and findings of src/engine/analyze.ts and report.ts, on stacks real git wrote:
 * tombstone counts (every record, not only winning ones), the deletion-table warning, orphan
 * tables and the bytes git's clean-up reclaims, case-only name collisions, the placeholder HEAD
 * and the loose refs a reftable repository ignores, and per-prefix tombstone ratios. Every
 * expected number comes from git's own output (`test-tool dump-reftable`, `for-each-ref`, what
 * `git pack-refs` deleted) or from counting the commands the test ran.
 */
import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { analyzeFiles, analysisRefs, buildReport } from '../src/engine/index.ts';
import { collectInput } from '../src/cli/node-input.ts';
import { RefsList } from '../src/engine/session/paging.ts';
import { realGits, gitRepo, run, type GitRepo } from './lib/realgit.ts';

const g = realGits().find((x) => x.version === '2.55.0') ?? realGits()[0];
const g2473 = realGits().find((x) => x.version === '2.47.3');

function report(repo: GitRepo) {
  const a = analyzeFiles(collectInput(repo.gitDir));
  return { a, r: buildReport(a) };
}
function tables(repo: GitRepo): string[] {
  return fs.readFileSync(path.join(repo.gitDir, 'reftable/tables.list'), 'utf8').trim().split('\n');
}
function commitOf(repo: GitRepo): string {
  return repo.git(['commit-tree', '-m', 'x', repo.git(['write-tree']).trim()]).trim();
}

describe.skipIf(!g)('report fields against real git', () => {
  it.skipIf(!g2473)(
    'churn stack (one branch created and deleted 6 times, auto-compaction off): 6 tombstones, no false deletion-table warning',
    () => {
      const repo = gitRepo(g!, { env: { GIT_TEST_REFTABLE_AUTOCOMPACTION: 'false' } });
      try {
        const c = commitOf(repo);
        for (let i = 0; i < 6; i++) {
          repo.git(['update-ref', 'refs/heads/churn', c]);
          repo.git(['update-ref', '-d', 'refs/heads/churn']);
        }
        const names = tables(repo);
        // git's own count of ref deletion records, table by table
        let gitTomb = 0;
        for (const n of names) {
          // 2.47.3's test-tool: 2.55.0's `dump-reftable -t` crashes printing a table's object ids
          const dump = run(g2473!.testTool, ['dump-reftable', '-t', path.join(repo.gitDir, 'reftable', n)], {
            cwd: repo.dir,
            env: repo.env,
          }).stdout;
          gitTomb += dump.split('\n').filter((l) => /^ref\{.* delete\}$/.test(l)).length;
        }
        expect(names.length).toBe(13);
        expect(gitTomb).toBe(6);
        const { a, r } = report(repo);
        expect(r.stack!.tombstoneRecords).toBe(gitTomb);
        expect(r.stack!.tombstones).toBe(1); // the winning one: the newest deletion
        expect(a.findings.filter((f) => /deletion table with nothing under it/.test(f.message))).toEqual([]);
        expect(r.diagnosis).toMatch(/6 in 6 tables of the stack/);
        expect(r.diagnosis).not.toMatch(/1 in the whole stack/);
      } finally {
        repo.dispose();
      }
    },
  );

  it('orphan tables: reclaimable bytes are exactly what git pack-refs deletes', () => {
    const repo = gitRepo(g!, { env: { GIT_TEST_REFTABLE_AUTOCOMPACTION: 'false' } });
    const newer = gitRepo(g!, { env: { GIT_TEST_REFTABLE_AUTOCOMPACTION: 'false' } });
    try {
      const c = commitOf(repo);
      repo.git(['update-ref', 'refs/heads/a', c]);
      repo.git(['update-ref', 'refs/heads/b', c]);
      const dir = path.join(repo.gitDir, 'reftable');
      // an old table copied under an unlisted name (max_update_index 2 ≤ the stack's 3): git deletes it
      const oldName = '0x000000000002-0x000000000002-0badf00d.ref';
      fs.copyFileSync(path.join(dir, tables(repo)[1]), path.join(dir, oldName));
      // a table newer than the stack (max_update_index 6 > 3): git keeps it
      const c2 = commitOf(newer);
      for (let i = 0; i < 5; i++) newer.git(['update-ref', `refs/heads/n${i}`, c2]);
      const newName = '0x000000000006-0x000000000006-0badcafe.ref';
      fs.copyFileSync(path.join(newer.gitDir, 'reftable', tables(newer).at(-1)!), path.join(dir, newName));
      const oldBytes = fs.statSync(path.join(dir, oldName)).size;
      const newBytes = fs.statSync(path.join(dir, newName)).size;
      const { a, r } = report(repo);
      expect(r.stack!.orphans.tables).toBe(2);
      expect(r.stack!.orphans.bytes).toBe(oldBytes + newBytes);
      expect(r.stack!.orphans.reclaimableBytes).toBe(oldBytes);
      expect(a.findings.some((f) => f.message.includes(`reclaiming ${oldBytes.toLocaleString('en-US')} bytes`))).toBe(
        true,
      );
      repo.git(['pack-refs']);
      expect(fs.existsSync(path.join(dir, oldName))).toBe(false);
      expect(fs.existsSync(path.join(dir, newName))).toBe(true);
    } finally {
      repo.dispose();
      newer.dispose();
    }
  });

  it('case-only collisions: git lists both refs; refscope lists both and reports the pair', () => {
    const repo = gitRepo(g!);
    try {
      const c = commitOf(repo);
      repo.git(['update-ref', 'refs/heads/Foo', c]);
      repo.git(['update-ref', 'refs/heads/foo', c]);
      expect(repo.git(['for-each-ref', '--format=%(refname)'])).toBe('refs/heads/Foo\nrefs/heads/foo\n');
      const { a } = report(repo);
      expect(analysisRefs(a).map((x) => x.name)).toEqual(['refs/heads/Foo', 'refs/heads/foo']);
      const f = a.findings.filter((x) => /differ only in case/.test(x.message));
      expect(f).toHaveLength(1);
      expect(f[0].message).toMatch(
        /^1 group of ref names differ only in case \("refs\/heads\/Foo" vs "refs\/heads\/foo"\)/,
      );
    } finally {
      repo.dispose();
    }
  });

  it('case-only collisions: groups of three, groups without an all-lower-case name, deleted names left out', () => {
    const repo = gitRepo(g!);
    try {
      const c = commitOf(repo);
      for (const n of ['FOO', 'Foo', 'foo', 'X/a', 'x/A', 'BAR', 'bar', 'Solo'])
        repo.git(['update-ref', `refs/heads/${n}`, c]);
      repo.git(['update-ref', '-d', 'refs/heads/bar']);
      expect(repo.git(['for-each-ref', '--format=%(refname)'])).toBe(
        ['BAR', 'FOO', 'Foo', 'Solo', 'X/a', 'foo', 'x/A'].map((n) => `refs/heads/${n}\n`).join(''),
      );
      const { a } = report(repo);
      const f = a.findings.filter((x) => /differ only in case/.test(x.message));
      expect(f).toHaveLength(1);
      // Groups in the order of their first name, names in byte order; BAR's lower-case twin is deleted.
      expect(f[0].message).toMatch(
        /^2 groups of ref names differ only in case \("refs\/heads\/FOO" vs "refs\/heads\/Foo" vs "refs\/heads\/foo"; "refs\/heads\/X\/a" vs "refs\/heads\/x\/A"\)/,
      );
    } finally {
      repo.dispose();
    }
  });

  it('placeholder HEAD and loose refs / packed-refs that git ignores in a reftable repository', () => {
    const repo = gitRepo(g!);
    try {
      const c = commitOf(repo);
      repo.git(['update-ref', 'refs/heads/main', c]);
      expect(fs.readFileSync(path.join(repo.gitDir, 'HEAD'), 'utf8')).toBe('ref: refs/heads/.invalid\n');
      fs.mkdirSync(path.join(repo.gitDir, 'refs/tags'), { recursive: true });
      fs.writeFileSync(path.join(repo.gitDir, 'refs/tags/loose'), c + '\n');
      fs.writeFileSync(
        path.join(repo.gitDir, 'packed-refs'),
        `# pack-refs with: peeled fully-peeled sorted \n${c} refs/tags/packed\n`,
      );
      // git ignores both files: neither tag is listed
      expect(repo.git(['for-each-ref', '--format=%(refname)'])).toBe('refs/heads/main\n');
      const { a } = report(repo);
      expect(analysisRefs(a).map((x) => x.name)).toEqual(['HEAD', 'refs/heads/main']);
      const head = a.findings.filter((x) => x.file.endsWith('HEAD'));
      expect(head).toHaveLength(1);
      expect(head[0].severity).toBe('info');
      expect(head[0].message).toMatch(/placeholder/);
      const ignored = a.findings.filter((x) =>
        /git ignores them, refs come from the reftable stack only/.test(x.message),
      );
      expect(ignored).toHaveLength(1);
      expect(ignored[0].message).toMatch(/^2 loose ref or packed-refs files/);
    } finally {
      repo.dispose();
    }
  });

  it('per-prefix tombstone ratio: refs/tags/t holds 9 records, 4 tombstones, 1 live ref', () => {
    const repo = gitRepo(g!, { env: { GIT_TEST_REFTABLE_AUTOCOMPACTION: 'false' } });
    try {
      const c = commitOf(repo);
      repo.git(['update-ref', '--stdin'], [1, 2, 3, 4, 5].map((i) => `create refs/tags/t${i} ${c}\n`).join(''));
      repo.git(['update-ref', '--stdin'], [1, 2, 3, 4].map((i) => `delete refs/tags/t${i}\n`).join(''));
      repo.git(['update-ref', 'refs/heads/main', c]);
      expect(repo.git(['for-each-ref', '--format=%(refname)', 'refs/tags/']).trim().split('\n')).toEqual([
        'refs/tags/t5',
      ]);
      const { a, r } = report(repo);
      // 5 creates + 4 deletes under refs/tags/t (two transactions, one table each)
      expect(r.prefixes.find((p) => p.prefix === 'refs/tags/t')).toEqual({
        prefix: 'refs/tags/t',
        records: 9,
        tombstones: 4,
        live: 1,
      });
      // The Refs view's figures for the same prefix typed into its filter (live: git's count).
      const gitLive = repo.git(['for-each-ref', '--format=%(refname)', 'refs/tags/t*']).trim().split('\n').length;
      const page = new RefsList(a).refsPage({
        filter: 'refs/tags/t',
        mode: 'prefix',
        includeTombstones: false,
        offset: 0,
        limit: 10,
      });
      expect(page.prefixStats).toEqual({ prefix: 'refs/tags/t', records: 9, tombstones: 4, live: gitLive });
      expect(r.prefixes.find((p) => p.prefix === 'refs/heads/m')).toEqual({
        prefix: 'refs/heads/m',
        records: 1,
        tombstones: 0,
        live: 1,
      });
    } finally {
      repo.dispose();
    }
  });
});
