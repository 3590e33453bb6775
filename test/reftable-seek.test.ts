/**
 * Point lookups through an index whose top level spans several index blocks, on a table written
 * by real git: `reftable.blockSize=1024` and 10,000 refs make git write three sibling top-level
 * ref index blocks. A key that sorts after every key of the chosen index block must go on to the
 * next block (git's reftable/table.c `table_iter_seek_indexed` reads on with `table_iter_next`).
 * The refs and their ids come from `git for-each-ref`; absent names are checked with
 * `git rev-parse --verify`.
 */
import { describe, expect, it, afterAll } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { realGits, gitRepo, type GitRepo } from './lib/realgit.ts';
import { memorySource } from '../src/engine/basics.ts';
import { openTable, oidHex, type Table } from '../src/engine/reftable/table.ts';
import { seekRef, newCounters } from '../src/engine/reftable/seek.ts';
import { RealSeek } from '../src/engine/simulate/realseek.ts';
import { simulate } from '../src/engine/simulate/index.ts';
import { analyzeFiles } from '../src/engine/analyze.ts';

const g = realGits().find((x) => x.version === '2.55.0') ?? realGits()[0];
const skip = g ? null : 'no real git built (npm run setup:git)';

describe.skipIf(skip)('lookups across sibling top-level index blocks (git 2.55, blockSize 1024, 10,000 refs)', () => {
  let repo: GitRepo;
  let t: Table;
  let refs: [string, string][];
  const setup = () => {
    if (t) return;
    repo = gitRepo(g!, { config: { 'reftable.blockSize': '1024' } });
    repo.git(['commit', '-q', '--allow-empty', '-m', 'one']);
    const c1 = repo.git(['rev-parse', 'HEAD']).trim();
    repo.git(['commit', '-q', '--allow-empty', '-m', 'two']);
    const c2 = repo.git(['rev-parse', 'HEAD']).trim();
    let input = '';
    for (let i = 0; i < 10000; i++) {
      // Names of varying shape so that index keys are not all alike.
      const name =
        i % 3 === 0
          ? `refs/heads/feature/${String(i).padStart(5, '0')}`
          : i % 3 === 1
            ? `refs/tags/v${i}`
            : `refs/remotes/origin/topic-${(i * 7919) % 100003}`;
      input += `create ${name} ${i % 2 ? c1 : c2}\n`;
    }
    repo.git(['update-ref', '--stdin'], input);
    repo.git(['pack-refs', '--all']);
    const dir = join(repo.gitDir, 'reftable');
    const names = readFileSync(join(dir, 'tables.list'), 'utf8').trim().split('\n');
    expect(names.length).toBe(1);
    const bytes = readFileSync(join(dir, names[0]));
    t = openTable({ path: names[0], source: memorySource(new Uint8Array(bytes)) });
    refs = repo
      .git(['for-each-ref', '--format=%(refname) %(objectname)'])
      .trim()
      .split('\n')
      .map((l) => l.split(' ') as [string, string]);
  };
  afterAll(() => repo?.dispose());

  it('git wrote a top index level of several blocks', () => {
    setup();
    const top = t.blocks.filter((b) => b.section === 'refIndex' && b.offset >= t.footer.refIndexPosition);
    expect(top.length).toBeGreaterThanOrEqual(2);
    expect(refs.length).toBe(10000 + 1); // + refs/heads/main
  });

  it('seekRef finds every ref for-each-ref lists, with the id git prints', () => {
    setup();
    const c = newCounters();
    const missed: string[] = [];
    for (const [name, oid] of refs) {
      const r = seekRef(t, name, c);
      if (!r.found || !r.exact || oidHex(t.refs, r.index, t.header.hashSize) !== oid) missed.push(name);
    }
    expect(missed).toEqual([]);
  });

  it('the seek model (simulate/realseek.ts) ends every existing ref in the ref block that holds it', () => {
    setup();
    const rs = new RealSeek(t);
    const bad: string[] = [];
    for (const [name] of refs) {
      const r = seekRef(t, name, newCounters());
      const cost = rs.seek(r.index, true, name);
      if (cost.leaf !== t.refs.block[r.index]) bad.push(name);
    }
    expect(bad).toEqual([]);
  });

  it('absent names are not found (git rev-parse --verify fails on them) and land on the next key', () => {
    setup();
    // The table also holds HEAD (a symref git writes into the reftable; for-each-ref leaves it out).
    expect(repo.git(['symbolic-ref', 'HEAD']).trim()).toBe('refs/heads/main');
    const sorted = ['HEAD', ...refs.map((r) => r[0])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    // Names just after each top-level index block's last key, and a few others.
    const absent = [
      'refs/heads/feature/00000a',
      'refs/heads/zzz',
      'refs/a',
      'refs/tags/v9999x',
      'refs/remotes/origin/topic-0',
    ];
    for (const b of t.blocks) if (b.section === 'refIndex') absent.push(b.lastKey + '-');
    for (const name of absent) {
      expect(repo.gitResult(['rev-parse', '--verify', '-q', name]).status).not.toBe(0);
      const r = seekRef(t, name, newCounters());
      expect(r.exact).toBe(false);
      expect(r.found).toBe(false);
      let lo = 0;
      while (lo < sorted.length && sorted[lo] < name) lo++;
      expect(r.index).toBe(lo);
    }
  });

  it('simulate: a lookup workload of existing names says every one was found', () => {
    setup();
    const dir = join(repo.gitDir, 'reftable');
    const files = readdirSync(dir).map((f) => ({
      path: `reftable/${f}`,
      source: memorySource(new Uint8Array(readFileSync(join(dir, f)))),
    }));
    const a = analyzeFiles(files);
    const res = simulate(a, 'lookup:existing:500');
    const applicable = res.results.filter((m) => m.applicable && m.found !== null && m.found !== undefined);
    expect(applicable.length).toBeGreaterThan(0);
    for (const m of applicable) expect([m.found, m.notFound]).toEqual([500, 0]);
    const miss = simulate(a, 'lookup:missing:50');
    for (const m of miss.results.filter((x) => x.applicable && x.found != null))
      expect([m.found, m.notFound]).toEqual([0, 50]);
  });
});
