/**
 * state: the stack as the simulator sees it.
 *
 * - `SimStore`: built once per analysed stack. A *universe* of keys (every key of every table,
 *   plus every name a workload writes), sorted; each table as the sorted universe positions of
 *   its records (`SimTable.pos`), so that "how many records of table t lie between two keys" is
 *   two integer binary searches.
 * - `SimState`: a mutable copy for one run: the list of tables (real ones from the files, modelled
 *   ones the simulated transactions and compactions write) and, per universe position, the winning
 *   record's kind, with Fenwick trees over "present" and "live" so that "next live key at or after
 *   p" and "entries between p and q" are O(log n).
 * Seeks in real tables are costed from their decoded block structure (realseek.ts, the rules of
 * lookup.ts's reader); seeks in modelled tables from their layout (layout.ts `layoutSeek`).
 */
import { memorySource, readAll, toHex } from '../basics.ts';
import type { Table } from '../reftable/table.ts';
import type { Stack } from '../reftable/stack.ts';
import type { MergedView } from '../reftable/merged.ts';
import { RealSeek } from './realseek.ts';
import { layoutTable, layoutSeek, type Layout, type LayoutOptions, type SeekCost } from './layout.ts';

/** A record value (for validation and generators). */
export interface RecValue {
  oid: string | null;
  target: string | null;
}

/** One table of the simulated stack: real (from the files) or modelled (written by the simulation). */
export interface SimTable {
  name: string;
  synthetic: boolean;
  count: number;
  /** Universe position of each record, ascending. */
  pos: Int32Array;
  /** Ref value type of each record: 0 tombstone, 1 id, 2 id + peeled, 3 symref. */
  types: Uint8Array;
  /** Ref block ordinal of each record. */
  block: Uint32Array;
  hasIndex: boolean;
  /** Bytes of the file (real) or the modelled size. */
  fileSize: number;
  version: 1 | 2;
  /** Log records in the table (real tables; reflogs on). */
  logRecords: number;
  /** Some index key is not a record key (seek costs then depend on the key itself, not only its place). */
  looseIndexKeys: boolean;
  /** Seek cost to the first record ≥ key; `gap` = records < key, `exact` = record gap equals key. */
  seek(gap: number, exact: boolean, key: string): SeekCost;
  /** Value of record i. */
  valueAt(i: number): RecValue;
  /**
   * Where record i's value lives, for tables the simulator made: `ref[i]` is a real table and
   * `idx[i]` its record index, or `ref[i]` is the value itself and `idx[i]` is −1. Compaction copies these, so a merged table never
   * holds on to the tables it was merged from (no chain of retained tables over many commits).
   */
  orig?: { ref: (SimTable | RecValue)[]; idx: Int32Array };
  /** The parsed table (real tables), memory-backed. */
  table?: Table;
  layout?: Layout;
  /** Real tables: records < each universe position (built on first use for big tables). */
  rank?: Int32Array | null;
}

/** Records of table t with position < u (O(1) with a rank array, else a binary search). */
export function rankOf(t: SimTable, u: number, from = 0): number {
  const r = t.rank;
  if (r) return r[u];
  return lowerInt(t.pos, u, from);
}

/** Build rank arrays for real tables that hold at least 1/64 of the universe (O(universe) each). */
function buildRank(t: SimTable, n: number): void {
  if (t.synthetic || t.rank !== undefined) return;
  if (t.count * 64 < n || n > 16_000_000) {
    t.rank = null;
    return;
  }
  const r = new Int32Array(n + 1);
  let j = 0;
  for (let u = 0; u <= n; u++) {
    while (j < t.count && t.pos[j] < u) j++;
    r[u] = j;
  }
  t.rank = r;
}

/** Count of elements < x in a sorted Int32Array. */
export function lowerInt(a: Int32Array, x: number, lo = 0, hi = a.length): number {
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (a[m] < x) lo = m + 1;
    else hi = m;
  }
  return lo;
}

/** Count of strings < x in a sorted array (byte order). */
export function lowerStr(a: readonly string[], x: string, lo = 0, hi = a.length): number {
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (a[m] < x) lo = m + 1;
    else hi = m;
  }
  return lo;
}

/** Sign of k − (a + b + c) in byte order, without building the concatenation. */
export function cmpParts(k: string, a: string, b: string, c: string): number {
  const kl = k.length;
  let i = 0;
  for (let j = 0; j < a.length; j++, i++) {
    if (i >= kl) return -1;
    const d = k.charCodeAt(i) - a.charCodeAt(j);
    if (d) return d;
  }
  for (let j = 0; j < b.length; j++, i++) {
    if (i >= kl) return -1;
    const d = k.charCodeAt(i) - b.charCodeAt(j);
    if (d) return d;
  }
  for (let j = 0; j < c.length; j++, i++) {
    if (i >= kl) return -1;
    const d = k.charCodeAt(i) - c.charCodeAt(j);
    if (d) return d;
  }
  return kl > i ? 1 : 0;
}

/** `gallop` for the key a + b + c (no string is built). */
export function gallopParts(keys: readonly string[], a: string, b: string, c: string, h: number): number {
  const n = keys.length;
  if (h > n) h = n;
  let lo: number, hi: number;
  if (h < n && cmpParts(keys[h], a, b, c) < 0) {
    lo = h + 1;
    hi = n;
    let step = 1;
    for (;;) {
      const i = lo + step - 1;
      if (i >= n) break;
      if (cmpParts(keys[i], a, b, c) >= 0) {
        hi = i;
        break;
      }
      lo = i + 1;
      step *= 2;
    }
  } else {
    hi = h;
    lo = 0;
    let step = 1;
    for (;;) {
      const i = hi - step;
      if (i < 0) break;
      if (cmpParts(keys[i], a, b, c) < 0) {
        lo = i + 1;
        break;
      }
      hi = i;
      step *= 2;
    }
  }
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (cmpParts(keys[m], a, b, c) < 0) lo = m + 1;
    else hi = m;
  }
  return lo;
}

/** `lowerStr` by galloping from position `h` (cheap when the answer is near h). */
export function gallop(keys: readonly string[], key: string, h: number): number {
  const n = keys.length;
  if (h > n) h = n;
  if (h < n && keys[h] < key) {
    let lo = h + 1,
      step = 1,
      hi = n;
    for (;;) {
      const i = lo + step - 1;
      if (i >= n) break;
      if (keys[i] >= key) {
        hi = i;
        break;
      }
      lo = i + 1;
      step *= 2;
    }
    return lowerStr(keys, key, lo, hi);
  }
  let hi = h,
    step = 1,
    lo = 0;
  for (;;) {
    const i = hi - step;
    if (i < 0) break;
    if (keys[i] < key) {
      lo = i + 1;
      break;
    }
    hi = i;
    step *= 2;
  }
  return lowerStr(keys, key, lo, hi);
}

/** A real table as a `SimTable` (its bytes copied to memory once for fast block reads). */
function realTable(t: Table, pos: Int32Array): SimTable {
  // Seeks read blocks through `source`: one in-memory view instead of a file read per block.
  const mem: Table = t.fileSize <= 512 * 1024 * 1024 ? { ...t, source: memorySource(readAll(t.source)) } : t;
  const hs = t.header.hashSize;
  const rs = new RealSeek(mem);
  // Columns that keep their values in the table's bytes (session/columns.ts, a large input):
  // the block column from the block list, and an id decoded from its block when a workload asks
  // for it, instead of reading every table once more for value columns the run barely touches.
  const lazy = t.refs as Partial<{ lazy: boolean; blockColumn(): Uint32Array; oidHex(i: number): string }>;
  const inBytes = lazy.lazy === true && !!lazy.blockColumn && !!lazy.oidHex;
  return {
    name: t.name,
    synthetic: false,
    count: t.refs.count,
    pos,
    types: t.refs.types,
    block: inBytes ? lazy.blockColumn!() : t.refs.block,
    hasIndex: rs.hasIndex,
    fileSize: t.fileSize,
    version: t.header.version,
    logRecords: t.counts.log + t.counts.logDeletion,
    table: mem,
    looseIndexKeys: rs.looseIndexKeys,
    seek: (gap, exact, key) => rs.seek(gap, exact, key),
    valueAt(i) {
      const ty = t.refs.types[i];
      if (ty === 3) return { oid: null, target: t.refs.targets.get(i) ?? null };
      if (ty === 0) return { oid: null, target: null };
      if (inBytes && lazy.lazy) return { oid: lazy.oidHex!(i), target: null };
      return { oid: toHex(t.refs.oids, i * hs, (i + 1) * hs), target: null };
    },
  };
}

/** A modelled table over universe positions (records sorted), with values from `valueAt`. */
export function syntheticTable(
  name: string,
  keys: readonly string[],
  pos: Int32Array,
  types: Uint8Array,
  valueAt: (i: number) => RecValue,
  o: LayoutOptions,
  version: 1 | 2,
  orig?: SimTable['orig'],
): SimTable {
  const L = layoutTable(
    pos.length,
    (i) => keys[pos[i]],
    (i) => types[i],
    o,
  );
  const memo = new Map<number, SeekCost>();
  return {
    name,
    synthetic: true,
    count: pos.length,
    pos,
    types,
    block: L.recordBlock,
    hasIndex: L.levels.length > 0,
    fileSize: L.bytes,
    version,
    logRecords: 0,
    layout: L,
    looseIndexKeys: false,
    seek(gap, exact) {
      const mk = gap * 2 + (exact ? 1 : 0);
      let c = memo.get(mk);
      if (!c) {
        c = layoutSeek(L, pos.length, gap, exact);
        memo.set(mk, c);
      }
      return c;
    },
    valueAt,
    orig: orig ?? {
      ref: Array.from({ length: pos.length }, (_, i) => valueAt(i)),
      idx: new Int32Array(pos.length).fill(-1),
    },
  };
}

/** Fenwick tree of 0/1 flags over n positions. */
export class Fenwick {
  readonly n: number;
  readonly t: Int32Array;
  private top: number;
  constructor(flags: Uint8Array | Int32Array) {
    const n = flags.length;
    this.n = n;
    const t = new Int32Array(n + 1);
    for (let i = 1; i <= n; i++) {
      t[i] += flags[i - 1];
      const j = i + (i & -i);
      if (j <= n) t[j] += t[i];
    }
    this.t = t;
    let top = 1;
    while (top * 2 <= n) top *= 2;
    this.top = top;
  }
  clone(): Fenwick {
    const f = Object.create(Fenwick.prototype) as Fenwick;
    (f as { n: number }).n = this.n;
    (f as { t: Int32Array }).t = this.t.slice();
    f.top = this.top;
    return f;
  }
  /** Number of flags set in [0, i). */
  prefix(i: number): number {
    let s = 0;
    for (; i > 0; i -= i & -i) s += this.t[i];
    return s;
  }
  add(i: number, d: number): void {
    for (i++; i <= this.n; i += i & -i) this.t[i] += d;
  }
  /** Smallest position p ≥ from with the flag set, or n. */
  next(from: number): number {
    const k = this.prefix(from) + 1;
    // Smallest idx with prefix(idx + 1) ≥ k.
    let pos = 0;
    let rem = k;
    for (let step = this.top; step > 0; step >>= 1) {
      const nx = pos + step;
      if (nx <= this.n && this.t[nx] < rem) {
        pos = nx;
        rem -= this.t[nx];
      }
    }
    return pos < this.n ? pos : this.n;
  }
}

/** What `SimStore` is built from. */
export interface StoreInput {
  stack: Stack;
  merged: MergedView;
}

/** The immutable part: universe and real tables. */
export class SimStore {
  /** Universe of keys, sorted. */
  keys: string[];
  tables: SimTable[];
  /** Winner kind per universe position: -1 absent, else the winning record's value type. */
  winner: Int8Array;
  layoutOptions: LayoutOptions;
  version: 1 | 2;
  hexLength: number;
  /** Reflogs appear to be on (some table has log records). */
  logsOn: boolean;
  /** Names of tables that could not be read (left out). */
  broken: string[];
  /** Universe position of every name given to the constructor. */
  readonly namePos = new Map<string, number>();

  constructor(input: StoreInput, extraNames: readonly string[] = []) {
    const { stack, merged } = input;
    const real = stack.tables.filter((t): t is Table => !!t);
    this.broken = stack.broken.map((b) => b.name);
    const newest = real[real.length - 1];
    const hs = newest ? newest.header.hashSize : 20;
    this.version = newest ? newest.header.version : 1;
    this.hexLength = hs * 2;
    this.layoutOptions = {
      blockSize: newest && newest.header.blockSize ? newest.header.blockSize : 4096,
      restartInterval: 16,
      hashSize: hs,
      headerSize: this.version === 2 ? 28 : 24,
      footerSize: this.version === 2 ? 72 : 68,
    };
    this.logsOn = real.some((t) => t.counts.log > 0);
    // The merged view's keys, sliced from one string per table (no per-key character copying).
    const arenas = stack.tables.map((t) => (t ? arenaString(t.refs.keyBytes, t.refs.keyStart[t.refs.count]) : ''));
    const keyOf = (ti: number, r: number): string => {
      const ks = stack.tables[ti]!.refs.keyStart;
      return arenas[ti].slice(ks[r], ks[r + 1]);
    };
    const mk: string[] = new Array(merged.count);
    for (let i = 0; i < merged.count; i++) mk[i] = keyOf(merged.table[i], merged.rec[i]);
    // Universe = merged keys ∪ extra names (sorted walk with galloping searches).
    const names = [...new Set(extraNames)].sort();
    const extra: string[] = [];
    let h = 0;
    for (const k of names) {
      h = gallop(mk, k, h);
      if (h >= mk.length || mk[h] !== k) extra.push(k);
    }
    // Universe position of each merged entry (identity unless extra names were merged in).
    const toU = new Int32Array(merged.count);
    if (extra.length) {
      const out: string[] = new Array(merged.count + extra.length);
      let i = 0,
        j = 0,
        k = 0;
      while (i < mk.length || j < extra.length) {
        if (j >= extra.length || (i < mk.length && mk[i] < extra[j])) {
          toU[i] = k;
          out[k++] = mk[i++];
        } else out[k++] = extra[j++];
      }
      this.keys = out;
    } else {
      this.keys = mk;
      for (let i = 0; i < merged.count; i++) toU[i] = i;
    }
    h = 0;
    for (const k of names) {
      h = gallop(this.keys, k, h);
      this.namePos.set(k, h);
    }
    const winnersOf = mergedByTable(merged, stack.tables.length);
    this.tables = real.map((t) => {
      const ti = stack.tables.indexOf(t);
      return realTable(
        t,
        positionsOf(t, ti, merged, toU, this.keys, (r) => keyOf(ti, r), winnersOf),
      );
    });
    this.winner = new Int8Array(this.keys.length).fill(-1);
    for (const t of this.tables) for (let i = 0; i < t.count; i++) this.winner[t.pos[i]] = t.types[i];
  }

  /** True if every name is a key of the universe (sorted walk with galloping searches). */
  hasAll(names: readonly string[]): boolean {
    const sorted = names.slice().sort();
    let h = 0;
    for (const k of sorted) {
      h = gallop(this.keys, k, h);
      if (h >= this.keys.length || this.keys[h] !== k) return false;
      this.namePos.set(k, h);
    }
    return true;
  }

  /** Universe position of `key` if present, else -1. */
  indexOf(key: string): number {
    const p = lowerStr(this.keys, key);
    return p < this.keys.length && this.keys[p] === key ? p : -1;
  }
}

/**
 * Universe positions of a table's records: winners from the merged view's (table, record)
 * columns, shadowed records (their key is a newer table's winner) by a galloping search from the
 * previous record's position. No string is made for winning records.
 */
function positionsOf(
  t: Table,
  ti: number,
  merged: MergedView,
  toU: Int32Array,
  keys: readonly string[],
  keyOf: (r: number) => string,
  winnersOf?: (Int32Array | null)[],
): Int32Array {
  const n = t.refs.count;
  const out = new Int32Array(n).fill(-1);
  const tab = merged.table,
    rec = merged.rec;
  // The winners of this table: from the merge's per-table list when given (one pass over the
  // merged view for all tables, not one per table).
  const own = winnersOf?.[ti];
  if (winnersOf) {
    if (own) for (let k = 0; k < own.length; k++) out[rec[own[k]]] = toU[own[k]];
  } else for (let i = 0; i < merged.count; i++) if (tab[i] === ti) out[rec[i]] = toU[i];
  let h = 0;
  for (let j = 0; j < n; j++) {
    if (out[j] >= 0) {
      h = out[j];
      continue;
    }
    h = gallop(keys, keyOf(j), h);
    out[j] = h;
  }
  return out;
}

/** The merged entries of each table, in one pass (4 bytes an entry; by table index, null for none). */
function mergedByTable(merged: MergedView, k: number): (Int32Array | null)[] {
  const n = new Int32Array(k);
  const tab = merged.table;
  for (let i = 0; i < merged.count; i++) n[tab[i]]++;
  const out = Array.from(n, (c) => (c ? new Int32Array(c) : null));
  const at = new Int32Array(k);
  for (let i = 0; i < merged.count; i++) {
    const t = tab[i];
    out[t]![at[t]++] = i;
  }
  return out;
}

/** Bytes [0, len) as one byte string (one char per byte), built in chunks. */
function arenaString(kb: Uint8Array, len: number): string {
  let s = '';
  const CH = 8192;
  for (let i = 0; i < len; i += CH)
    s += String.fromCharCode.apply(null, kb.subarray(i, Math.min(len, i + CH)) as unknown as number[]);
  return s;
}

/** A table written by a simulated transaction or compaction, before it is laid out. */
export interface NewRecords {
  pos: Int32Array;
  types: Uint8Array;
  values: RecValue[];
}

/** Prefix counts and next-present / next-live per universe position. */
type Snapshot = { pp: Int32Array; lp: Int32Array; np: Int32Array; nl: Int32Array };

/** Build the O(1) snapshot of a merged view (winner kind per position). */
function buildSnapshot(winner: Int8Array): Snapshot {
  const n = winner.length;
  const pp = new Int32Array(n + 1),
    lp = new Int32Array(n + 1),
    np = new Int32Array(n + 1),
    nl = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const w = winner[i];
    pp[i + 1] = pp[i] + (w >= 0 ? 1 : 0);
    lp[i + 1] = lp[i] + (w > 0 ? 1 : 0);
  }
  np[n] = n;
  nl[n] = n;
  for (let i = n - 1; i >= 0; i--) {
    const w = winner[i];
    np[i] = w >= 0 ? i : np[i + 1];
    nl[i] = w > 0 ? i : nl[i + 1];
  }
  return { pp, lp, np, nl };
}

/** Fenwick trees over "present" and "live" flags of a merged view. */
function buildTrees(winner: Int8Array): { present: Fenwick; live: Fenwick } {
  const n = winner.length;
  const p = new Uint8Array(n),
    l = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const w = winner[i];
    if (w >= 0) {
      p[i] = 1;
      if (w > 0) l[i] = 1;
    }
  }
  return { present: new Fenwick(p), live: new Fenwick(l) };
}

/** The store's unchanged view, shared by every state until it changes (computed once). */
const initialViews = new WeakMap<SimStore, { snap?: Snapshot; trees?: { present: Fenwick; live: Fenwick } }>();
function initialOf(store: SimStore) {
  let v = initialViews.get(store);
  if (!v) {
    v = {};
    initialViews.set(store, v);
  }
  return v;
}

/**
 * The mutable stack of one run. A fresh state shares the store's winner array, snapshot and
 * trees (copy on first write), so running several models on one store costs the view once.
 */
export class SimState {
  readonly store: SimStore;
  readonly keys: string[];
  tables: SimTable[];
  private winnerArr: Int8Array;
  private trees: { present: Fenwick; live: Fenwick } | null;
  private owned: boolean;
  private seq = 0;
  /**
   * O(1) snapshot of the merged view (prefix counts and next-present/next-live per position),
   * rebuilt on demand once enough queries have hit an unchanged state; the Fenwick trees answer
   * in between (per-ref transactions change the stack every few reads).
   */
  private snap: Snapshot | null = null;
  private queries = 0;

  constructor(store: SimStore, from?: SimState) {
    this.store = store;
    this.keys = store.keys;
    if (from) {
      this.tables = from.tables.slice();
      this.seq = from.seq;
      if (from.owned) {
        this.winnerArr = from.winnerArr.slice();
        this.trees = from.trees ? { present: from.trees.present.clone(), live: from.trees.live.clone() } : null;
        this.owned = true;
      } else {
        this.winnerArr = from.winnerArr;
        this.trees = from.trees;
        this.owned = false;
        this.snap = from.snap;
      }
    } else {
      this.tables = store.tables.slice();
      this.winnerArr = store.winner;
      this.trees = null;
      this.owned = false;
    }
  }

  clone(): SimState {
    return new SimState(this.store, this);
  }

  /** Unchanged since it was made from the store (shares the store's view). */
  get pristine(): boolean {
    return !this.owned;
  }

  /** Winner kind per position (-1 absent, 0 tombstone, else the value type). Read-only. */
  get winner(): Int8Array {
    return this.winnerArr;
  }

  private tree(): { present: Fenwick; live: Fenwick } {
    if (!this.trees) {
      if (!this.owned) {
        const init = initialOf(this.store);
        if (!init.trees) init.trees = buildTrees(this.store.winner);
        this.trees = init.trees;
      } else this.trees = buildTrees(this.winnerArr);
    }
    return this.trees;
  }

  /** Take private copies before the first change. */
  private own(): void {
    if (this.owned) return;
    const t = this.tree();
    this.winnerArr = this.winnerArr.slice();
    this.trees = { present: t.present.clone(), live: t.live.clone() };
    this.owned = true;
  }

  private snapshot(): Snapshot | null {
    if (this.snap) return this.snap;
    const n = this.winnerArr.length;
    if (!this.owned) {
      for (const t of this.tables) buildRank(t, n);
      const init = initialOf(this.store);
      if (!init.snap) init.snap = buildSnapshot(this.store.winner);
      this.snap = init.snap;
      return this.snap;
    }
    if (++this.queries < Math.max(32, n >>> 12)) return null;
    for (const t of this.tables) buildRank(t, n);
    this.snap = buildSnapshot(this.winnerArr);
    return this.snap;
  }

  /**
   * Queries answered (searches, next-entry and count lookups): the simulator's own work, which
   * the performance test bounds per operation (it must not grow with the tombstones git steps over).
   */
  steps = 0;

  /** First position ≥ p holding a live ref (n if none). */
  nextLive(p: number): number {
    this.steps++;
    const s = this.snapshot();
    return s ? s.nl[p] : this.tree().live.next(p);
  }
  /** First position ≥ p holding an entry, live or tombstone (n if none). */
  nextPresent(p: number): number {
    this.steps++;
    const s = this.snapshot();
    return s ? s.np[p] : this.tree().present.next(p);
  }
  /** Entries in [a, b). */
  countPresent(a: number, b: number): number {
    this.steps++;
    const s = this.snapshot();
    if (s) return s.pp[b] - s.pp[a];
    const t = this.tree().present;
    return t.prefix(b) - t.prefix(a);
  }
  /** Live refs in [a, b). */
  countLive(a: number, b: number): number {
    this.steps++;
    const s = this.snapshot();
    if (s) return s.lp[b] - s.lp[a];
    const t = this.tree().live;
    return t.prefix(b) - t.prefix(a);
  }

  /** First universe position with key ≥ `key`; `hint` (a nearby position) makes it a galloping search. */
  lower(key: string, hint = -1): number {
    this.steps++;
    return hint < 0 ? lowerStr(this.keys, key) : gallop(this.keys, key, hint);
  }

  /** Set the winner at position p (updating the trees). */
  private setWinner(p: number, w: number): void {
    const old = this.winnerArr[p];
    if (old === w) return;
    this.own();
    this.snap = null;
    this.queries = 0;
    const wasP = old >= 0 ? 1 : 0,
      wasL = old > 0 ? 1 : 0;
    const isP = w >= 0 ? 1 : 0,
      isL = w > 0 ? 1 : 0;
    const t = this.trees!;
    if (wasP !== isP) t.present.add(p, isP - wasP);
    if (wasL !== isL) t.live.add(p, isL - wasL);
    this.winnerArr[p] = w;
  }

  /** Value of the winning record at position p (null when absent or a tombstone). */
  valueAt(p: number): RecValue | null {
    for (let i = this.tables.length - 1; i >= 0; i--) {
      const t = this.tables[i];
      const j = lowerInt(t.pos, p);
      if (j < t.count && t.pos[j] === p) return t.types[j] === 0 ? null : t.valueAt(j);
    }
    return null;
  }

  /** Append a table (a committed transaction). Returns it. */
  append(rec: NewRecords): SimTable {
    const values = rec.values;
    const t = syntheticTable(
      `sim-${++this.seq}`,
      this.keys,
      rec.pos,
      rec.types,
      (i) => values[i],
      this.tableLayout(rec.pos.length),
      this.store.version,
      { ref: values, idx: new Int32Array(values.length).fill(-1) },
    );
    this.tables.push(t);
    this.own();
    this.snap = null;
    this.queries = 0;
    for (let i = 0; i < rec.pos.length; i++) this.setWinner(rec.pos[i], rec.types[i]);
    return t;
  }

  private tableLayout(records: number): LayoutOptions {
    const o = this.store.layoutOptions;
    return this.store.logsOn ? { ...o, logBytes: records * 60 } : o;
  }

  /**
   * Merge tables [start, end] into one (newest record per key wins; tombstones dropped when
   * start = 0). Returns the records read and written.
   */
  compact(start: number, end: number): { read: number; written: number; dropped: number } {
    const seg = this.tables.slice(start, end + 1);
    let read = 0;
    for (const t of seg) read += t.count;
    // k-way merge by position, newest table first on ties.
    const heads = seg.map(() => 0);
    const outPos: number[] = [];
    const outType: number[] = [];
    // Each output record's origin: a real table + index, or the value itself (index −1).
    const outRef: (SimTable | RecValue)[] = [];
    const outIdx: number[] = [];
    const keep = (src: SimTable, si: number) => {
      const o = src.orig;
      if (o) {
        outRef.push(o.ref[si]);
        outIdx.push(o.idx[si]);
      } else {
        outRef.push(src);
        outIdx.push(si);
      }
    };
    const dropBase = start === 0;
    let dropped = 0;
    const droppedPos: number[] = [];
    if (seg.length === 2) {
      // Fast path for the common two-table case.
      const [a, b] = seg;
      let i = 0,
        j = 0;
      while (i < a.count || j < b.count) {
        let p: number, ty: number, src: SimTable, si: number;
        if (j >= b.count || (i < a.count && a.pos[i] < b.pos[j])) {
          p = a.pos[i];
          ty = a.types[i];
          src = a;
          si = i;
          i++;
        } else {
          p = b.pos[j];
          ty = b.types[j];
          src = b;
          si = j;
          if (i < a.count && a.pos[i] === p) i++;
          j++;
        }
        if (ty === 0 && dropBase) {
          dropped++;
          droppedPos.push(p);
          continue;
        }
        outPos.push(p);
        outType.push(ty);
        keep(src, si);
      }
    } else {
      for (;;) {
        let best = -1,
          bp = 0;
        for (let k = seg.length - 1; k >= 0; k--) {
          const h = heads[k];
          if (h >= seg[k].count) continue;
          const p = seg[k].pos[h];
          if (best < 0 || p < bp) {
            best = k;
            bp = p;
          }
        }
        if (best < 0) break;
        const t = seg[best];
        const ty = t.types[heads[best]];
        const si = heads[best];
        for (let k = 0; k < seg.length; k++) if (heads[k] < seg[k].count && seg[k].pos[heads[k]] === bp) heads[k]++;
        if (ty === 0 && dropBase) {
          dropped++;
          droppedPos.push(bp);
          continue;
        }
        outPos.push(bp);
        outType.push(ty);
        keep(t, si);
      }
    }
    const pos = Int32Array.from(outPos);
    const types = Uint8Array.from(outType);
    const idx = Int32Array.from(outIdx);
    const valueOf = (i: number): RecValue =>
      idx[i] < 0 ? (outRef[i] as RecValue) : (outRef[i] as SimTable).valueAt(idx[i]);
    const merged = syntheticTable(
      `sim-${++this.seq}`,
      this.keys,
      pos,
      types,
      valueOf,
      this.tableLayout(pos.length),
      this.store.version,
      { ref: outRef, idx },
    );
    this.tables.splice(start, end - start + 1, merged);
    this.own();
    this.snap = null;
    this.queries = 0;
    // A dropped tombstone was the winner unless a newer table holds the key.
    const newer = this.tables.slice(start + 1);
    for (const p of droppedPos) {
      let shadowed = false;
      for (const t of newer) {
        const j = lowerInt(t.pos, p);
        if (j < t.count && t.pos[j] === p) {
          shadowed = true;
          break;
        }
      }
      if (!shadowed) this.setWinner(p, -1);
    }
    return { read, written: pos.length, dropped };
  }

  /** Replace the whole stack by one table of its live records (`git pack-refs`). */
  packAll(): { read: number; written: number; dropped: number } {
    if (this.tables.length === 0) return { read: 0, written: 0, dropped: 0 };
    if (this.tables.length === 1) {
      // One table: compaction still drops its tombstones.
      const t = this.tables[0];
      if (!Array.from(t.types).includes(0)) return { read: t.count, written: t.count, dropped: 0 };
      this.tables.push(
        syntheticTable(
          'empty',
          this.keys,
          new Int32Array(0),
          new Uint8Array(0),
          () => ({ oid: null, target: null }),
          this.store.layoutOptions,
          this.store.version,
        ),
      );
    }
    return this.compact(0, this.tables.length - 1);
  }

  sizes(): number[] {
    return this.tables.map((t) => t.fileSize);
  }
  versions(): (1 | 2)[] {
    return this.tables.map((t) => t.version);
  }
}
