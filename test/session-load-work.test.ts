/**
 * The worker's load, counted: every record of every table is decoded once (no table is read a
 * second time to build value columns during a load), and a large stack shows its counts before
 * the checks of its live names and its prefix rows (`LoadResult.pending`), which `details` adds
 * afterwards: the report is then the one an eager load builds, finding for finding. The counts of
 * a deferred load are checked against git's own listing (truth/: `git for-each-ref`).
 */
import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { EngineSession, PENDING_DETAILS } from '../src/engine/session/index.ts';
import { writeTable, tableFileName } from '../src/engine/reftable/writer.ts';
import { openTable, tableFromTransfer, tableToTransfer, type Table } from '../src/engine/reftable/table.ts';
import type { ByteSource, InputFile } from '../src/engine/basics.ts';
import { collectInput } from '../src/cli/node-input.ts';
import { REFTABLE_FIXTURES, reftableDir, reftableFixtures, truth } from './lib/fixtures.ts';

function memSource(b: Uint8Array): ByteSource {
  return { size: b.length, read: (o, l) => b.subarray(o, Math.min(b.length, o + l)) };
}

const lines = (s: string) => s.split('\n').filter((l) => l.length > 0);

/** Records of every kind in the distinct tables of the last load (what a load must decode once). */
function recordsOf(s: EngineSession): number {
  const seen = new Set<unknown>();
  let n = 0;
  for (const t of s.current()?.stack?.tables ?? []) {
    if (!t || seen.has(t)) continue;
    seen.add(t);
    const c = t.counts;
    n += c.ref + c.peeled + c.symref + c.tombstone + c.log + c.logDeletion + c.obj + c.index;
  }
  return n;
}

function load(files: InputFile[], deferFrom: number, lazyFrom = Infinity): EngineSession {
  const s = new EngineSession();
  s.deferDetailsFrom = deferFrom;
  s.lazyValuesFrom = lazyFrom;
  const r = s.load(files);
  expect(r.error).toBeNull();
  return s;
}

describe('a load decodes each record once', () => {
  for (const fx of reftableFixtures()) {
    // 50,000 tombstones: its eager report simulates for the diagnosis (seconds); covered below.
    if (fx === 'tombstones-50k') continue;
    it(`${fx}: records decoded = the tables' records; value columns at most once a table`, () => {
      const s = load(collectInput(reftableDir(fx)), 0, 0);
      expect(s.loadWork.deferred).toBe(true);
      expect(s.loadWork.recordsDecoded).toBeGreaterThan(0);
      expect(s.loadWork.recordsDecoded).toBe(recordsOf(s));
      // A small stack's report compacts it for real (extensions.ts `compactAll`), which reads each
      // table once more with its values: at most once per table, never per record.
      expect(s.lazyCounters.materialized).toBeLessThanOrEqual(new Set(s.current()!.stack!.tables).size);
    });
  }
});

describe('counts first, name checks and prefix rows after (details)', () => {
  for (const fx of reftableFixtures()) {
    if (!fs.existsSync(path.join(REFTABLE_FIXTURES, fx, 'truth/refs.txt'))) continue;
    if (fx === 'tombstones-50k') continue;
    it(`${fx}: the deferred load's counts are git's; after details the report is the eager one`, () => {
      const files = collectInput(reftableDir(fx));
      const eager = load(files, Infinity);
      const lazy = new EngineSession();
      lazy.deferDetailsFrom = 0;
      const r = lazy.load(collectInput(reftableDir(fx)));
      expect(r.error).toBeNull();
      expect(r.pending).toEqual(PENDING_DETAILS);
      // git for-each-ref lists every live ref but a symref that resolves to nothing.
      const st = r.report!.stack!;
      expect(st.live - st.danglingSymrefs).toBe(lines(truth(fx, 'refs.txt')).length);
      expect(r.report!.prefixes).toEqual([]);
      const d = lazy.details();
      expect(d).not.toBeNull();
      expect(lazy.details()).toBeNull(); // once
      const a = eager.report()!,
        b = lazy.report()!;
      expect(b.findings).toEqual(a.findings);
      expect(b.prefixes).toEqual(a.prefixes);
      expect(b.prefixes.length).toBeGreaterThan(0);
      expect(b).toEqual(a);
    });
  }

  it('the findings of invalid and case-colliding names come with details, where an eager load puts them', () => {
    // git's check_refname_format refuses "a..b" (two dots) and "x.lock" (a component ending in
    // ".lock"); refs/heads/Main and refs/heads/main differ only in case (git-check-ref-format(1)).
    const names = ['HEAD', 'refs/heads/Main', 'refs/heads/a..b', 'refs/heads/main', 'refs/tags/x.lock'];
    const refs = names.map((name, i) =>
      name === 'HEAD'
        ? { name, type: 3 as const, target: 'refs/heads/main', updateIndex: 1 }
        : { name, type: 1 as const, value: new Uint8Array(20).fill(i + 1), updateIndex: 1 },
    );
    const bytes = writeTable(refs, [], { minUpdateIndex: 1, maxUpdateIndex: 1 });
    const name = tableFileName(1, 1, 7);
    const files = (): InputFile[] => [
      { path: `reftable/${name}`, source: memSource(bytes) },
      { path: 'reftable/tables.list', source: memSource(new TextEncoder().encode(name + '\n')) },
    ];
    const eager = load(files(), Infinity);
    const lazy = new EngineSession();
    lazy.deferDetailsFrom = 0;
    const r = lazy.load(files());
    const mentions = (fs: { message: string }[], s: string) => fs.filter((f) => f.message.includes(s)).length;
    const all = eager.report()!.findings;
    expect(mentions(all, 'refs/heads/a..b')).toBe(1);
    expect(mentions(all, 'refs/tags/x.lock')).toBe(1);
    expect(mentions(all, 'refs/heads/Main')).toBeGreaterThan(0);
    // The load's own report has none of them, and says what is pending.
    expect(mentions(r.report!.findings, 'a..b') + mentions(r.report!.findings, 'x.lock')).toBe(0);
    expect(r.report!.stack!.live).toBe(5);
    expect(r.pending!.length).toBeGreaterThan(0);
    expect(lazy.details()!.findings).toEqual(all);
    expect(lazy.report()!.findings).toEqual(all);
    expect(lazy.loadWork.recordsDecoded).toBe(recordsOf(lazy));
  });

  it('a small input is not deferred (the default threshold)', () => {
    const s = new EngineSession();
    const r = s.load(collectInput(reftableDir('basic-sha1')));
    expect(r.pending).toEqual([]);
    expect(s.loadWork.deferred).toBe(false);
    expect(s.details()).toBeNull();
  });
});

describe('the simulator on a stack whose values stay in its bytes', () => {
  it('recreate: the same result as from value columns, and no table read again for them', () => {
    const eager = load(collectInput(reftableDir('recreate-1000')), Infinity, Infinity);
    const lazy = load(collectInput(reftableDir('recreate-1000')), Infinity, 0);
    // The report of a small stack compacts it for real, which builds the value columns: drop them.
    lazy.releaseValues();
    const before = lazy.lazyCounters.materialized;
    const q = { spec: 'recreate', models: ['git-2.55' as const] };
    const a = eager.simulate(q),
      b = lazy.simulate(q);
    expect(a.ok && b.ok).toBe(true);
    if (!a.ok || !b.ok) return;
    // recreate-1000: git deleted 1,000 refs in one transaction; the workload re-creates them.
    expect(b.result.workload).toEqual(a.result.workload);
    expect(b.result.results).toEqual(a.result.results);
    expect(lazy.lazyCounters.materialized).toBe(before);
    expect(lazy.memory().valueBytes).toBe(0);
  });
});

describe('tables parsed elsewhere (the parse workers of a large stack)', () => {
  it('moved as plain data with their columns transferred, they load to the same report, counted once', () => {
    const fx = 'recreate-1000';
    const files = collectInput(reftableDir(fx));
    const plain = load(files, Infinity);
    // What a parse worker does: open each table, send it (structured clone, buffers moved).
    const preopened = new Map<string, Table>();
    for (const f of collectInput(reftableDir(fx))) {
      if (!f.path.endsWith('.ref')) continue;
      const { table, buffers } = tableToTransfer(openTable(f, { ids: false }));
      const moved = structuredClone(table, { transfer: buffers });
      preopened.set(f.path, tableFromTransfer(moved, f.source));
    }
    expect(preopened.size).toBeGreaterThan(1);
    const s = new EngineSession();
    s.deferDetailsFrom = Infinity;
    const r = s.load(collectInput(reftableDir(fx)), undefined, preopened);
    expect(r.error).toBeNull();
    expect(r.parsedInPool).toBe(preopened.size);
    // As many live refs as git for-each-ref lists (a dangling symref has no line).
    const st = r.report!.stack!;
    expect(st.live - st.danglingSymrefs).toBe(lines(truth(fx, 'refs.txt')).length);
    expect(s.report()).toEqual(plain.report());
    // The tables' records count once in the load's budget, as when it parses them itself.
    expect(s.loadWork.recordsDecoded).toBe(plain.loadWork.recordsDecoded);
    expect(s.loadWork.recordsDecoded).toBe(recordsOf(s));
  });
});
