/**
 * literal: the same primitives as engine.ts, done the slow, obvious way — a merged iterator over
 * per-table cursors and a priority queue, walking records one at a time exactly as git's
 * reftable/merged.c does (pop the smallest key, newest table first; advance that table; pop and
 * advance every older table positioned on the same key). Seeks in real tables call lookup.ts's
 * `seekRef` every time (no memo) and start the cursor where it says.
 *
 * Quadratic on purpose: for tests on small stacks only (the fast engine must give identical counts).
 */
import { LONG_SCAN_BLOCKS, type Counts } from './counts.ts';
import type { SimEngine, Semantics, ReadResult, ScanResult, WriteRecord } from './engine.ts';
import { prefixEnd } from './engine.ts';
import { syntheticTable, lowerStr, type SimStore, type SimTable, type RecValue } from './state.ts';
import { seekRef, newCounters } from '../reftable/seek.ts';
import { layoutSeek } from './layout.ts';

/** One table's cursor during a merged iteration. */
interface Cursor {
  t: SimTable;
  /** Index in the stack (higher = newer). */
  order: number;
  /** Next record to decode. */
  next: number;
  /** Block the reader is in. */
  block: number;
  /** Record currently in the queue (-1: exhausted). */
  head: number;
  /** The merged seek this cursor belongs to: blocks its cursors entered so far. */
  scan: { entered: number };
}

export class LiteralEngine implements SimEngine {
  private list: SimTable[];
  private seq = 0;

  constructor(readonly store: SimStore) {
    this.list = store.tables.slice();
  }

  tables(): readonly SimTable[] {
    return this.list;
  }

  /** Seek every table to `key`; returns cursors with their first record pulled. */
  private open(key: string, c: Counts): Cursor[] {
    const keys = this.store.keys;
    c.mergedSeeks++;
    const out: Cursor[] = [];
    const scan = { entered: 0 };
    this.list.forEach((t, order) => {
      let start: number;
      let leaf: number;
      c.seeks++;
      if (t.table) {
        const k = newCounters();
        const r = seekRef(t.table, key, k);
        c.indexBlocks += k.indexBlocks;
        c.leafBlocks += k.leafBlocks;
        c.restartProbes += k.restartProbes;
        c.recordsDecoded += k.recordsDecoded;
        start = r.index;
        leaf = literalLeaf(t, start, r.exact);
      } else {
        // Modelled table: find the first record ≥ key by walking, then the layout's seek cost.
        start = 0;
        while (start < t.count && keys[t.pos[start]] < key) start++;
        const exact = start < t.count && keys[t.pos[start]] === key;
        const sc = layoutSeek(t.layout!, t.count, start, exact);
        c.indexBlocks += sc.indexBlocks;
        c.leafBlocks += sc.leafBlocks;
        c.restartProbes += sc.restartProbes;
        c.recordsDecoded += sc.records;
        leaf = sc.leaf;
      }
      const cur: Cursor = { t, order, next: start, block: leaf, head: -1, scan };
      pull(cur, c);
      out.push(cur);
    });
    return out;
  }

  /** The next merged entry: [position, type], or null at the end. Counts the entry. */
  private step(curs: Cursor[], c: Counts): [number, number] | null {
    let best: Cursor | null = null;
    for (const k of curs) {
      if (k.head < 0) continue;
      const p = k.t.pos[k.head];
      if (!best || p < best.t.pos[best.head] || (p === best.t.pos[best.head] && k.order > best.order)) best = k;
    }
    if (!best) return null;
    const p = best.t.pos[best.head];
    const type = best.t.types[best.head];
    pull(best, c);
    for (const k of curs) if (k !== best && k.head >= 0 && k.t.pos[k.head] === p) pull(k, c);
    c.mergedEntries++;
    if (type === 0) c.tombstonesSkipped++;
    return [p, type];
  }

  /** Next entry as the caller sees it: tombstones dropped inside (suppress) or passed through. */
  private nextFor(curs: Cursor[], c: Counts, sem: Semantics): [number, number] | null {
    for (;;) {
      const e = this.step(curs, c);
      if (!e) return null;
      if (sem === 'suppress' && e[1] === 0) continue;
      return e;
    }
  }

  pointRead(key: string, c: Counts, sem: Semantics): ReadResult {
    const pos = lowerStr(this.store.keys, key);
    const curs = this.open(key, c);
    const e = this.nextFor(curs, c, sem);
    if (!e) return { exists: false, type: 0, pos };
    const exists = this.store.keys[e[0]] === key && e[1] !== 0;
    return { exists, type: exists ? e[1] : 0, pos };
  }

  locate(keys: readonly string[]): Int32Array {
    return Int32Array.from(keys.map((k) => lowerStr(this.store.keys, k)));
  }

  scan(prefix: string, c: Counts, sem: Semantics, mode: 'conflict' | 'list'): ScanResult {
    const keys = this.store.keys;
    const curs = this.open(prefix, c);
    const end = prefixEnd(prefix);
    let found = 0;
    let first: string | null = null;
    for (;;) {
      const e = this.nextFor(curs, c, sem);
      if (!e) break;
      const k = keys[e[0]];
      if (end !== null && k >= end) break;
      if (!k.startsWith(prefix)) break;
      if (e[1] === 0) continue; // a tombstone the caller skips (2.56)
      found++;
      if (!first) first = k;
      if (mode === 'conflict') break;
      c.refsListed++;
    }
    return { found, first };
  }

  seekOnly(key: string, c: Counts): void {
    this.open(key, c);
  }

  valueOf(key: string): RecValue | null {
    const keys = this.store.keys;
    for (let i = this.list.length - 1; i >= 0; i--) {
      const t = this.list[i];
      for (let j = 0; j < t.count; j++) {
        if (keys[t.pos[j]] === key) return t.types[j] === 0 ? null : t.valueAt(j);
        if (keys[t.pos[j]] > key) break;
      }
    }
    return null;
  }

  append(records: WriteRecord[]): void {
    const keys = this.store.keys;
    const pos = Int32Array.from(records.map((r) => lowerStr(keys, r.key)));
    const types = Uint8Array.from(records.map((r) => r.type));
    const values = records.map((r) => r.value);
    const o = this.store.logsOn
      ? { ...this.store.layoutOptions, logBytes: records.length * 60 }
      : this.store.layoutOptions;
    this.list.push(syntheticTable(`lit-${++this.seq}`, keys, pos, types, (i) => values[i], o, this.store.version));
  }

  compact(start: number, end: number): { read: number; written: number } {
    const seg = this.list.slice(start, end + 1);
    let read = 0;
    const byPos = new Map<number, { type: number; value: RecValue }>();
    // Oldest first, so newer records overwrite older ones.
    for (const t of seg) {
      read += t.count;
      for (let i = 0; i < t.count; i++) byPos.set(t.pos[i], { type: t.types[i], value: t.valueAt(i) });
    }
    const entries = [...byPos.entries()].filter(([, r]) => !(start === 0 && r.type === 0)).sort((a, b) => a[0] - b[0]);
    const pos = Int32Array.from(entries.map((e) => e[0]));
    const types = Uint8Array.from(entries.map((e) => e[1].type));
    const values = entries.map((e) => e[1].value);
    const o = this.store.logsOn ? { ...this.store.layoutOptions, logBytes: pos.length * 60 } : this.store.layoutOptions;
    this.list.splice(
      start,
      seg.length,
      syntheticTable(`lit-${++this.seq}`, this.store.keys, pos, types, (i) => values[i], o, this.store.version),
    );
    return { read, written: pos.length };
  }
}

/** Decode the next record of a cursor into its head (or mark it exhausted). */
function pull(k: Cursor, c: Counts): void {
  if (k.next >= k.t.count) {
    k.head = -1;
    return;
  }
  const i = k.next++;
  c.recordsDecoded++;
  c.iterRecords++;
  const b = k.t.block[i];
  if (b !== k.block) {
    c.iterBlocks++;
    if (++k.scan.entered > LONG_SCAN_BLOCKS) c.longScanBlocks++;
    k.block = b;
  }
  k.head = i;
}

/** The ref block a real table's seek ends in (lookup.ts: index → the block holding the record; no index → linear block scan). */
function literalLeaf(t: SimTable, start: number, exact: boolean): number {
  const n = t.count;
  if (n === 0) return -1;
  if (t.hasIndex) return start < n ? t.block[start] : -1;
  if (start >= n) return t.block[n - 1];
  const b = t.block[start];
  const first = start === 0 || t.block[start - 1] !== b;
  return first && !exact && b > 0 ? b - 1 : b;
}
