/**
 * The simulator's fast counts (engine.ts: prefix sums, rank arrays, structural seek costs) must
 * equal a literal step-by-step replay (literal.ts: a merged iterator with a priority queue that
 * walks records one at a time, seeks through lookup.ts's real reader) — on the recreate and
 * nocompact fixtures git wrote, on JGit's two-level index, on many-block tables, and on
 * hand-built stacks. Plus hand-computed counts for a tiny stack, straight from git's algorithm.
 */
import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import {
  openTable,
  memorySource,
  mergeTables,
  seekRef,
  newCounters,
  type Table,
  type Stack,
} from '../src/engine/index.ts';
import { writeTable, type RefRecordIn } from '../src/engine/reftable/writer.ts';
import { SimStore, SimState } from '../src/engine/simulate/state.ts';
import { FastEngine } from '../src/engine/simulate/engine.ts';
import { LiteralEngine } from '../src/engine/simulate/literal.ts';
import { runReftable } from '../src/engine/simulate/run.ts';
import { MODELS, type ModelName } from '../src/engine/simulate/models.ts';
import { LONG_SCAN_BLOCKS, zeroCounts } from '../src/engine/simulate/counts.ts';
import { RealSeek } from '../src/engine/simulate/realseek.ts';
import { Simulator } from '../src/engine/simulate/index.ts';
import type { Workload } from '../src/engine/simulate/workload.ts';
import { fixtureStack, REFTABLE_FIXTURES } from './lib/fixtures.ts';

const FX = REFTABLE_FIXTURES;
const REFTABLE_MODELS: ModelName[] = ['git-2.49', 'git-2.55', 'git-2.56', 'initial'];

const stackOf = fixtureStack;

function stackFrom(tables: Table[]) {
  return {
    stack: { listPath: '', names: tables.map((t) => t.name), tables, broken: [], findings: [] } as Stack,
    merged: mergeTables(tables),
  };
}

const oid = (i: number) => {
  const b = new Uint8Array(20);
  b[0] = 1 + (i & 0x7f);
  b[19] = i & 0xff;
  b[18] = (i >> 8) & 0xff;
  return b;
};

/** A table from (name, kind) pairs; kind 'x' = tombstone, 'r' = ref, 's' = symref. */
function table(
  name: string,
  upd: number,
  recs: [string, 'r' | 'x' | 's'][],
  opts: { blockSize?: number; restartInterval?: number } = {},
): Table {
  const refs: RefRecordIn[] = recs
    .slice()
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([n, k], i) =>
      k === 'x'
        ? { name: n, updateIndex: upd, type: 0 }
        : k === 's'
          ? { name: n, updateIndex: upd, type: 3, target: 'refs/heads/main' }
          : { name: n, updateIndex: upd, type: 1, value: oid(i) },
    );
  return openTable({
    path: name,
    source: memorySource(writeTable(refs, [], { minUpdateIndex: upd, maxUpdateIndex: upd, ...opts })),
  });
}

/** Run every reftable model on both engines and require identical counts, phase by phase. */
function sameCounts(
  input: { stack: Stack; merged: ReturnType<typeof mergeTables> },
  w: Workload,
  models = REFTABLE_MODELS,
): void {
  const names = w.kind === 'updates' ? w.transactions.flatMap((t) => t.updates.map((u) => u.ref)) : [];
  const store = new SimStore(input, names);
  for (const m of models) {
    const fast = runReftable(new FastEngine(new SimState(store)), MODELS[m], w, store.hexLength);
    const lit = runReftable(new LiteralEngine(store), MODELS[m], w, store.hexLength);
    expect(fast.phases, `${m}: ${w.description}`).toEqual(lit.phases);
    expect(fast.errors).toEqual(lit.errors);
    expect(fast.tablesAfter).toBe(lit.tablesAfter);
  }
}

describe('fast counts = literal replay', () => {
  it("recreate-1000: the issue's recreate input, one transaction, every model", () => {
    const input = stackOf('recreate-1000');
    const sim = new Simulator({ kind: 'reftable', ...input, description: '' });
    sameCounts(input, sim.parseStdin(fs.readFileSync(path.join(FX, 'recreate-1000/truth/recreate.stdin'))));
  });

  it('recreate-1000: one transaction per ref (the stack grows and auto-compacts between reads)', () => {
    const input = stackOf('recreate-1000');
    const sim = new Simulator({ kind: 'reftable', ...input, description: '' });
    const w = sim.parseSpec('recreate:per-ref');
    // Every 4th transaction is enough to exercise growth and compaction and keep the literal replay short.
    const short: Workload =
      w.kind === 'updates' ? { ...w, transactions: w.transactions.filter((_, i) => i % 4 === 0) } : w;
    sameCounts(input, short);
  });

  for (const fx of ['nocompact-s1', 'nocompact-s2', 'nocompact-s3']) {
    it(`${fx}: many tables — creates, deletes, lookups, scans, per-ref transactions`, () => {
      const input = stackOf(fx);
      const sim = new Simulator({ kind: 'reftable', ...input, description: '' });
      for (const spec of [
        'create:300:refs/heads/sim/',
        'delete-all',
        'delete-all:per-ref',
        'create:40:refs/tags/t:per-ref',
        'lookup:existing:200',
        'lookup:missing:200',
        'scan:refs/',
        'scan:refs/heads/',
        'scan:',
        'recreate',
      ]) {
        let w: Workload;
        try {
          w = sim.parseSpec(spec);
        } catch {
          continue;
        } // e.g. no tombstones to re-create
        sameCounts(input, w);
      }
      if (input.merged.tombstones) sameCounts(input, sim.parseSpec('lookup:tombstoned:100'));
    });
  }

  for (const fx of ['smallblocks', 'jgit-levels', 'basic-sha1', 'basic-sha256']) {
    it(`${fx}: lookups and creates over multi-level indexes and small blocks`, () => {
      const input = stackOf(fx);
      const sim = new Simulator({ kind: 'reftable', ...input, description: '' });
      for (const spec of [
        'lookup:existing:500',
        'lookup:missing:500',
        'create:200:refs/heads/zz/',
        'create:50:refs/heads/:per-ref',
        'scan:refs/tags/',
      ]) {
        sameCounts(input, sim.parseSpec(spec));
      }
    });
  }

  it('hand-built: tombstones interleaved with live refs, shadowing across three tables, symrefs, conflicts', () => {
    const names = Array.from({ length: 400 }, (_, i) => `refs/heads/b${String(i).padStart(3, '0')}`);
    const t0 = table('t0', 1, [['HEAD', 's'], ...names.map((n) => [n, 'r'] as [string, 'r'])], {
      blockSize: 512,
      restartInterval: 4,
    });
    const t1 = table(
      't1',
      2,
      names.filter((_, i) => i % 3 === 0).map((n) => [n, 'x'] as [string, 'x']),
      { blockSize: 256 },
    );
    const t2 = table('t2', 3, [
      ...names.filter((_, i) => i % 7 === 0).map((n) => [n, 'r'] as [string, 'r']),
      ['refs/heads/b100/x', 'r'],
      ['refs/tags/v1', 'r'],
    ]);
    const input = stackFrom([t0, t1, t2]);
    const sim = new Simulator({ kind: 'reftable', ...input, description: '' });
    const stdin =
      [
        'start',
        ...names.filter((_, i) => i % 3 === 0).map((n) => `create ${n} ${'1'.repeat(40)}`),
        'commit',
        'start',
        'create refs/heads/b100 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
        'create refs/heads/c/d main',
        'commit',
        'start',
        'update refs/heads/b001 bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
        'delete refs/heads/b002',
        'verify refs/heads/b004',
        'prepare',
        'abort',
        'start',
        'update HEAD cccccccccccccccccccccccccccccccccccccccc',
        'symref-create refs/heads/sym refs/heads/b005',
        'commit',
      ].join('\n') + '\n';
    sameCounts(input, sim.parseStdin(stdin));
    for (const spec of [
      'lookup:tombstoned:150',
      'lookup:missing:150',
      'scan:refs/heads/',
      'delete-all:per-ref',
      'recreate:per-ref',
    ])
      sameCounts(input, sim.parseSpec(spec));
  });
});

describe('structural seek costs = lookup.ts seekRef', () => {
  for (const fx of ['smallblocks', 'jgit-levels', 'recreate-4000', 'tombstones-50k', 'basic-sha256']) {
    it(`${fx}: every counter, for record keys and keys between them`, () => {
      const { stack } = stackOf(fx);
      for (const t of stack.tables as Table[]) {
        const rs = new RealSeek(t);
        const names = t.refs.names;
        const step = Math.max(1, Math.floor(names.length / 1500));
        for (let i = 0; i < names.length; i += step) {
          for (const key of [names[i], names[i] + '\x00', names[i].slice(0, -1)]) {
            // Place of the key among the records, by a plain linear count.
            let g = 0;
            while (g < names.length && names[g] < key) g++;
            const k = newCounters();
            seekRef(t, key, k);
            const c = rs.seek(g, g < names.length && names[g] === key, key);
            expect(
              { i: k.indexBlocks, l: k.leafBlocks, p: k.restartProbes, r: k.recordsDecoded },
              `${t.name} ${JSON.stringify(key)}`,
            ).toEqual({ i: c.indexBlocks, l: c.leafBlocks, p: c.restartProbes, r: c.records });
          }
        }
      }
    });
  }
});

describe('hand-computed counts (git reftable/merged.c, step by step)', () => {
  // Base table: refs a…e live; newer table: tombstones for b, c, d. Keys under refs/heads/.
  const K = (s: string) => `refs/heads/${s}`;
  const base = table(
    'base',
    1,
    ['a', 'b', 'c', 'd', 'e'].map((s) => [K(s), 'r'] as [string, 'r']),
  );
  const tomb = table(
    'tomb',
    2,
    ['b', 'c', 'd'].map((s) => [K(s), 'x'] as [string, 'x']),
  );
  const input = stackFrom([base, tomb]);

  it('a point read of a tombstoned name: ≤ 2.55 steps over b, c, d and stops at e; 2.56 stops at b', () => {
    const store = new SimStore(input);
    for (const Engine of [FastEngine, LiteralEngine]) {
      const e = Engine === FastEngine ? new FastEngine(new SimState(store)) : new LiteralEngine(store);
      const c = zeroCounts();
      const r = e.pointRead(K('b'), c, 'suppress');
      expect(r.exists).toBe(false);
      // Entries produced: b, c, d (tombstones) and e (live).
      expect(c.mergedEntries).toBe(4);
      expect(c.tombstonesSkipped).toBe(3);
      // Records pulled: b, b (initial pull of both tables), then after popping b: c, c; after c: d, d;
      // after d: e (base; tomb exhausted); after e: none (base exhausted) = 7.
      expect(c.iterRecords).toBe(7);
      expect(c.seeks).toBe(2);
      const c2 = zeroCounts();
      e.pointRead(K('b'), c2, 'pass');
      expect(c2.mergedEntries).toBe(1);
      expect(c2.tombstonesSkipped).toBe(1);
      // b, b pulled first; popping b pulls c from both tables = 4.
      expect(c2.iterRecords).toBe(4);
    }
  });

  it('a conflict check of <ref>/ for a missing name: ≤ 2.55 walks to the next live ref', () => {
    const store = new SimStore(input);
    const e = new FastEngine(new SimState(store));
    const c = zeroCounts();
    // "refs/heads/b/" lands on c (tombstone), then d (tombstone), then e (live, outside the prefix).
    const s = e.scan(K('b/'), c, 'suppress', 'conflict');
    expect(s.found).toBe(0);
    expect(c.mergedEntries).toBe(3);
    expect(c.tombstonesSkipped).toBe(2);
    const c2 = zeroCounts();
    e.scan(K('b/'), c2, 'pass', 'conflict');
    // 2.56: the first entry c is already past the prefix's bound: one entry.
    expect(c2.mergedEntries).toBe(1);
  });

  it('git ≤ 2.49 re-creating b: dwim 6 reads, HEAD, the ref, 2 directories and <ref>/', () => {
    const store = new SimStore(input, [K('b')]);
    const w: Workload = {
      kind: 'updates',
      description: '',
      transactions: [
        {
          end: 'commit',
          prepared: true,
          updates: [
            {
              op: 'create',
              ref: K('b'),
              newValue: { kind: 'oid', oid: 'a'.repeat(40) },
              oldValue: { kind: 'zero' },
              noDeref: false,
              oidArgs: ['a'.repeat(40)],
            },
          ],
        },
      ],
    };
    const r = runReftable(new FastEngine(new SimState(store)), MODELS['git-2.49'], w, 40);
    // Merged seeks: 6 dwim + HEAD + refs/heads/b + refs + refs/heads + refs/heads/b/ = 11.
    expect(r.total.mergedSeeks).toBe(11);
    expect(r.phases.parse.mergedSeeks).toBe(6);
    expect(r.phases.availability.mergedSeeks).toBe(3);
    // Stack reloads: 6 dwim reads + 2 directory reads + 1 new iterator (each through the refs API,
    // backend_for(..., reload=1)) + 1 in prepare_transaction_update = 10.
    expect(r.total.reloads).toBe(10);
    const r2 = runReftable(new FastEngine(new SimState(store)), MODELS['git-2.55'], w, 40);
    // 2.50+: no dwim; HEAD, the ref, the iterator on "", 2 directories, refs/heads/b/ = 6.
    expect(r2.total.mergedSeeks).toBe(6);
  });
});

describe('long scans: blocks a merged seek enters beyond LONG_SCAN_BLOCKS', () => {
  it('one read before every key walks both tables to the end: (ref blocks − 1) per table, past the first 64', () => {
    const names = Array.from({ length: 3000 }, (_, i) => `refs/heads/b${String(i).padStart(4, '0')}`);
    const t0 = table(
      't0',
      1,
      names.map((n) => [n, 'r'] as [string, 'r']),
      { blockSize: 256 },
    );
    const t1 = table(
      't1',
      2,
      names.map((n) => [n, 'x'] as [string, 'x']),
      { blockSize: 256 },
    );
    // The reader's own block list: the iteration starts in each table's first ref block and enters
    // every other one (no index: the seek of a key before all records ends in block 0).
    const refBlocks = (t: Table) => t.blocks.filter((b) => b.section === 'ref').length;
    const entered = refBlocks(t0) - 1 + refBlocks(t1) - 1;
    expect(entered).toBeGreaterThan(LONG_SCAN_BLOCKS);
    const store = new SimStore(stackFrom([t0, t1]), []);
    for (const engine of [new FastEngine(new SimState(store)), new LiteralEngine(store)]) {
      const c = zeroCounts();
      engine.pointRead('refs/heads/a', c, 'suppress');
      expect({ iter: c.iterBlocks, long: c.longScanBlocks }, engine.constructor.name).toEqual({
        iter: entered,
        long: entered - LONG_SCAN_BLOCKS,
      });
      // A read at the last key enters no further block: nothing is long.
      const d = zeroCounts();
      engine.pointRead(names[names.length - 1], d, 'suppress');
      expect(d.longScanBlocks).toBe(0);
    }
  });
});
