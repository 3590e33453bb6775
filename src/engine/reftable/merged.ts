/**
 * merged: the view git sees of a stack's tables, as git's reftable/merged.c merged iterator
 * yields it: for each key the record of the newest table that has it; a winning deletion
 * (tombstone) hides every older record of that key.
 */
import type { Table } from './table.ts';

/**
 * The merged view of a stack, column-wise: entry `i` is the winning record for key `keys[i]`,
 * from table `table[i]` (index into `Stack.tables`) at record `rec[i]` of that table.
 * Includes winning tombstones (so callers can show them); `live` counts the others.
 */
export interface MergedView {
  count: number;
  /** All keys as byte strings (materialised on first access; prefer `key(i)` or `find`). */
  readonly keys: string[];
  /** Key of entry `i` as a byte string. */
  key(i: number): string;
  /** Index of the entry whose key is `name` (byte string), or -1. */
  find(name: string): number;
  /** Index of the first entry with key ≥ `name` (byte string). */
  lowerBound(name: string): number;
  table: Uint32Array;
  rec: Uint32Array;
  /** Number of live refs (winners that are not tombstones). */
  live: number;
  /** Winning tombstones. */
  tombstones: number;
  /** Winning tombstones that hide at least one older record. */
  tombstonesHiding: number;
  /** Per table: records that lose to a newer table's record of the same key. */
  shadowed: number[];
  /** Per table: records that are the winner (live or tombstone). */
  winners: number[];
  /** Per table: its records that are shadowed *by a tombstone* (hidden refs). */
  hiddenByTombstone: number[];
  /** Per table: its winning tombstones that hide at least one older record. */
  tombstonesHidingBy: number[];
  /**
   * Every tombstone record of every table, winning or not (a tombstone shadowed by a newer
   * record of its key still sits in its table and is read by every scan over it).
   */
  allTombstones?: number;
  /** Per table: its tombstone records, winning or not (= `Table.counts.tombstone`). */
  tombstonesBy?: number[];
  /** Per table: its tombstones that win (`tombstones` summed over tables). */
  winningTombstonesBy?: number[];
  /**
   * Per table: its tombstones, winning or not, with an older record of the same key in an older
   * table (what the tombstone deletes; a tombstone with none deletes nothing that is stored).
   */
  tombstonesOverOlderBy?: number[];
}

/**
 * Merge the tables (oldest first; `null` entries skipped) into the view git sees.
 * Cost: O(N log k) comparisons of byte strings for N records in k tables; a single table is a copy.
 */
export function mergeTables(tables: (Table | null)[]): MergedView {
  // A table named on several lines of tables.list is one parsed Table at several positions. git
  // merges every position (reftable/stack.c reftable_stack_reload_once opens a reader per name),
  // but the newest copy wins every key of it, so the older copies change no winner: merge the
  // distinct tables at their newest positions and account for the older copies in bulk. The work
  // stays bounded by the distinct tables' records, however often a name is repeated.
  const newest = new Map<Table, number>();
  tables.forEach((t, i) => {
    if (t) newest.set(t, i);
  });
  let repeated = false;
  tables.forEach((t, i) => {
    if (t && newest.get(t) !== i) repeated = true;
  });
  if (repeated) return withRepeatedTables(tables, newest);
  return mergeDistinct(tables);
}

/**
 * The merged view of `tables` in which some Table objects repeat: the distinct ones merged at their
 * newest position, then each older copy's figures. An older copy of table T (newest copy at q) is
 * shadowed in every record (by the copy at q at least), wins none, and is hidden by a tombstone
 * wherever T's key loses to one (a winning tombstone of T itself, or a newer table's); each copy
 * but the oldest has an older record of every key under its tombstones (the next copy). Every
 * other figure equals the literal merge of every line, but the tombstones over an older record
 * (`tombstonesOverOlderBy`) of the oldest copy, and of tables lying between two copies: those
 * are counted against the distinct tables only, so they may be fewer (exact when the copies are
 * next to each other, as a duplicated line is). Only a hand-made tables.list repeats a name.
 */
function withRepeatedTables(tables: (Table | null)[], newest: Map<Table, number>): MergedView {
  const distinct = tables.map((t, i) => (t && newest.get(t) === i ? t : null));
  const m = mergeDistinct(distinct) as Merged;
  const shadowed = m.shadowed.slice(),
    hiddenByTombstone = m.hiddenByTombstone.slice(),
    tombstonesHidingBy = m.tombstonesHidingBy.slice(),
    tombstonesOverOlderBy = m.tombstonesOverOlderBy.slice();
  const tombstonesBy = tables.map((t) => t?.counts.tombstone ?? 0);
  let tombstonesHiding = m.tombstonesHiding;
  const copies = new Map<Table, number[]>();
  tables.forEach((t, i) => {
    if (!t) return;
    const at = copies.get(t);
    if (at) at.push(i);
    else copies.set(t, [i]);
  });
  for (const [t, at] of copies) {
    if (at.length < 2) continue;
    const q = at[at.length - 1];
    const overOther = m.tombstonesOverOlderBy[q];
    for (const p of at.slice(0, -1)) {
      shadowed[p] = t.refs.count;
      hiddenByTombstone[p] = m.winningTombstonesBy[q] + m.hiddenByTombstone[q];
    }
    for (const p of at.slice(1)) tombstonesOverOlderBy[p] = t.counts.tombstone;
    tombstonesOverOlderBy[at[0]] = overOther;
    // Every winning tombstone of T hides T's older copies.
    tombstonesHiding += m.winningTombstonesBy[q] - m.tombstonesHidingBy[q];
    tombstonesHidingBy[q] = m.winningTombstonesBy[q];
  }
  return new Merged(
    tables,
    m.count,
    m.table,
    m.rec,
    m.live,
    m.tombstones,
    tombstonesHiding,
    shadowed,
    m.winners,
    hiddenByTombstone,
    tombstonesHidingBy,
    tombstonesBy.reduce((a, b) => a + b, 0),
    tombstonesBy,
    m.winningTombstonesBy,
    tombstonesOverOlderBy,
  );
}

function mergeDistinct(tables: (Table | null)[]): MergedView {
  const k = tables.length;
  const shadowed = new Array(k).fill(0);
  const winners = new Array(k).fill(0);
  const hiddenByTombstone = new Array(k).fill(0);
  const tombstonesHidingBy = new Array(k).fill(0);
  const tombstonesBy = tables.map((t) => t?.counts.tombstone ?? 0);
  const winningTombstonesBy = new Array(k).fill(0);
  const tombstonesOverOlderBy = new Array(k).fill(0);
  const live = tables.filter((t) => t && t.refs.count > 0).length;
  let total = 0;
  for (const t of tables) if (t) total += t.refs.count;
  const tab = new Uint32Array(total);
  const rec = new Uint32Array(total);
  let n = 0,
    nLive = 0,
    nTomb = 0,
    nHiding = 0;
  if (live <= 1) {
    const ti = tables.findIndex((t) => t && t.refs.count > 0);
    if (ti >= 0) {
      const r = tables[ti]!.refs;
      const types = r.types;
      for (let i = 0; i < r.count; i++) {
        tab[i] = ti;
        rec[i] = i;
        if (types[i] === 0) nTomb++;
      }
      n = r.count;
      winners[ti] = n;
      winningTombstonesBy[ti] = nTomb;
      nLive = n - nTomb;
    }
  } else {
    // k-way merge with a tournament tree of losers over the tables with records, ordered by
    // (key, newer table first). Two things keep the byte comparisons few:
    // - The tree is shaped like a Huffman code over the tables' record counts: a big table sits
    //   near the root, so a record takes about as many matches as the entropy of the table sizes
    //   (about 2 for git's geometric stacks) instead of log2(k).
    // - Offset-value coding: every key in the tree carries a code relative to the key that beat
    //   it (its first differing byte and that byte's value), and a match compares two codes, two
    //   numbers. Only equal codes need bytes, and only from that offset on. A table's next key
    //   gets its code from its previous key (the winner it replaces). A code of -Infinity means
    //   "equal to the winner": that record is shadowed, no comparison needed to know it.
    // Keys are compared as bytes in each table's key arena, four at a time (big-endian words
    // compare like memcmp): no strings are made.
    const runs: number[] = [];
    tables.forEach((t, i) => {
      if (t && t.refs.count > 0) runs.push(i);
    });
    const K = runs.length;
    const kbs = runs.map((i) => tables[i]!.refs.keyBytes);
    const dvs = kbs.map((b) => new DataView(b.buffer, b.byteOffset, b.length));
    const kss = runs.map((i) => tables[i]!.refs.keyStart);
    const typ = runs.map((i) => tables[i]!.refs.types);
    // Where each key starts to differ from the previous one, at the earliest (0 when unknown).
    const lcps = runs.map((i) => tables[i]!.refs.lcp ?? new Uint8Array(tables[i]!.refs.count));
    const cnt = Int32Array.from(runs, (i) => tables[i]!.refs.count);
    /** Current record of each run; its key is kbs[r][curS[r], curE[r]). */
    const pos = new Int32Array(K);
    const curS = new Int32Array(K),
      curE = new Int32Array(K);
    /**
     * Each run's code relative to its base (the key that beat it, or for the winner the previous
     * winner): (value + 1) − 257 × offset, smaller for a smaller key; -Infinity: equal to the
     * base; +Infinity: the run is exhausted. `off` is the offset (first differing byte).
     */
    const code = new Float64Array(K);
    const off = new Int32Array(K);
    for (let r = 0; r < K; r++) {
      curS[r] = kss[r][0];
      curE[r] = kss[r][1];
      // Codes relative to the empty key.
      off[r] = 0;
      code[r] = curE[r] > curS[r] ? kbs[r][curS[r]] + 1 : -Infinity;
    }
    /**
     * Codes of runs a and b are equal (and finite): their keys agree up to off + 1. Compare the
     * rest; returns the winner (smaller key, or the newer table on equal keys) and recodes the
     * loser relative to it.
     */
    const tie = (a: number, b: number): number => {
      const o = off[a] + 1;
      const da = dvs[a],
        db = dvs[b];
      const pa = curS[a],
        pb = curS[b];
      const la = curE[a] - pa,
        lb = curE[b] - pb;
      const m = la < lb ? la : lb;
      let j = o;
      for (; j + 4 <= m; j += 4) if (da.getUint32(pa + j) !== db.getUint32(pb + j)) break;
      const ka = kbs[a],
        kb = kbs[b];
      while (j < m && ka[pa + j] === kb[pb + j]) j++;
      let w: number, l: number;
      if (j < m) {
        if (ka[pa + j] < kb[pb + j]) {
          w = a;
          l = b;
        } else {
          w = b;
          l = a;
        }
      } else if (la !== lb) {
        if (la < lb) {
          w = a;
          l = b;
        } else {
          w = b;
          l = a;
        }
      } else {
        // Equal keys: the newer table wins; the other is equal to it.
        if (a > b) {
          w = a;
          l = b;
        } else {
          w = b;
          l = a;
        }
        code[l] = -Infinity;
        return w;
      }
      off[l] = j;
      code[l] = kbs[l][curS[l] + j] + 1 - 257 * j;
      return w;
    };
    /** The match of runs a and b (codes relative to the same base): the winner; the loser is recoded if needed. */
    const match = (a: number, b: number): number => {
      const ca = code[a],
        cb = code[b];
      if (ca < cb) return a;
      if (cb < ca) return b;
      if (ca === Infinity) return a; // both exhausted
      if (ca === -Infinity) {
        // both equal to the base, so to each other: the newer table wins
        return a > b ? a : b;
      }
      return tie(a, b);
    };
    // The tree: leaves 0..K-1 (runs), internal nodes K..2K-2 made by Huffman's rule, the last one
    // the root. `loser[v]` is the loser of the match at internal node v; `top` the overall winner.
    const parent = new Int32Array(2 * K - 1).fill(-1);
    const loser = new Int32Array(2 * K - 1);
    let top: number;
    {
      // Huffman's construction with two queues (O(k log k)): the leaves sorted by weight, and the
      // internal nodes in the order they are made (their weights never decrease).
      const win = new Int32Array(2 * K - 1);
      const weight = new Float64Array(2 * K - 1);
      for (let r = 0; r < K; r++) {
        win[r] = r;
        weight[r] = cnt[r];
      }
      const leaves = Array.from({ length: K }, (_, r) => r).sort((x, y) => weight[x] - weight[y] || x - y);
      let h1 = 0,
        h2 = K;
      const take = (v: number): number =>
        h2 >= v || (h1 < K && weight[leaves[h1]] <= weight[h2]) ? leaves[h1++] : h2++;
      for (let v = K; v < 2 * K - 1; v++) {
        const a = take(v),
          b = take(v);
        parent[a] = v;
        parent[b] = v;
        weight[v] = weight[a] + weight[b];
        const wa = win[a],
          wb = win[b];
        const w = match(wa, wb);
        win[v] = w;
        loser[v] = w === wa ? wb : wa;
      }
      top = win[2 * K - 2];
    }
    /** Move run r (the winner) to its next record, coded against the one it leaves, and replay its path. */
    const advance = (r: number): void => {
      const p = ++pos[r];
      if (p >= cnt[r]) code[r] = Infinity;
      else {
        const ps = curS[r],
          pe = curE[r];
        const s = kss[r][p],
          e = kss[r][p + 1];
        curS[r] = s;
        curE[r] = e;
        // Keys of a table strictly increase: the new key differs from the previous one at
        // j < its length (or extends it).
        const dv = dvs[r],
          kb = kbs[r];
        const m = Math.min(pe - ps, e - s);
        let j = Math.min(lcps[r][p], m);
        for (; j + 4 <= m; j += 4) if (dv.getUint32(ps + j) !== dv.getUint32(s + j)) break;
        while (j < m && kb[ps + j] === kb[s + j]) j++;
        off[r] = j;
        code[r] = kb[s + j] + 1 - 257 * j;
      }
      let w = r;
      for (let v = parent[r]; v >= 0; v = parent[v]) {
        const l = loser[v];
        if (match(w, l) === l) {
          loser[v] = w;
          w = l;
        }
      }
      top = w;
    };
    while (code[top] !== Infinity) {
      const wr = top;
      const w = runs[wr];
      const wi = pos[wr];
      const isTomb = typ[wr][wi] === 0;
      tab[n] = w;
      rec[n] = wi;
      n++;
      winners[w]++;
      if (isTomb) {
        nTomb++;
        winningTombstonesBy[w]++;
      } else nLive++;
      let hid = false;
      advance(wr);
      // Every older table positioned on the same key comes next, newest first, coded "equal":
      // it is shadowed; the one before it (newer) has an older record under it.
      let prevT = w,
        prevTomb = isTomb;
      while (code[top] === -Infinity) {
        const ht = runs[top];
        shadowed[ht]++;
        if (isTomb) {
          hid = true;
          hiddenByTombstone[ht]++;
        }
        if (prevTomb) tombstonesOverOlderBy[prevT]++;
        prevT = ht;
        prevTomb = typ[top][pos[top]] === 0;
        advance(top);
      }
      if (hid) {
        nHiding++;
        tombstonesHidingBy[w]++;
      }
    }
  }
  const allTombstones = tombstonesBy.reduce((a, b) => a + b, 0);
  return new Merged(
    tables,
    n,
    tab.subarray(0, n),
    rec.subarray(0, n),
    nLive,
    nTomb,
    nHiding,
    shadowed,
    winners,
    hiddenByTombstone,
    tombstonesHidingBy,
    allTombstones,
    tombstonesBy,
    winningTombstonesBy,
    tombstonesOverOlderBy,
  );
}

/** `MergedView` implementation: keys are read from the tables' key arenas on demand. */
class Merged implements MergedView {
  private cache: string[] | null = null;
  constructor(
    private readonly tables: (Table | null)[],
    readonly count: number,
    readonly table: Uint32Array,
    readonly rec: Uint32Array,
    readonly live: number,
    readonly tombstones: number,
    readonly tombstonesHiding: number,
    readonly shadowed: number[],
    readonly winners: number[],
    readonly hiddenByTombstone: number[],
    readonly tombstonesHidingBy: number[],
    readonly allTombstones: number,
    readonly tombstonesBy: number[],
    readonly winningTombstonesBy: number[],
    readonly tombstonesOverOlderBy: number[],
  ) {}
  key(i: number): string {
    return this.cache ? this.cache[i] : this.tables[this.table[i]]!.refs.name(this.rec[i]);
  }
  get keys(): string[] {
    if (!this.cache) {
      const out = new Array<string>(this.count);
      for (let i = 0; i < this.count; i++) out[i] = this.tables[this.table[i]]!.refs.name(this.rec[i]);
      this.cache = out;
    }
    return this.cache;
  }
  /** Compare entry i's key bytes with byte string `s`. */
  private cmpStr(i: number, s: string): number {
    const r = this.tables[this.table[i]]!.refs;
    const kb = r.keyBytes;
    const st = r.keyStart[this.rec[i]],
      en = r.keyStart[this.rec[i] + 1];
    const n = Math.min(en - st, s.length);
    for (let j = 0; j < n; j++) {
      const d = kb[st + j] - s.charCodeAt(j);
      if (d !== 0) return d;
    }
    return en - st - s.length;
  }
  lowerBound(name: string): number {
    let lo = 0,
      hi = this.count;
    while (lo < hi) {
      const m = (lo + hi) >>> 1;
      if (this.cmpStr(m, name) < 0) lo = m + 1;
      else hi = m;
    }
    return lo;
  }
  find(name: string): number {
    const i = this.lowerBound(name);
    return i < this.count && this.cmpStr(i, name) === 0 ? i : -1;
  }
}

/** Binary search: index of the first merged entry with key ≥ `key`. */
export function lowerBound(keys: string[], key: string, lo = 0, hi = keys.length): number {
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (keys[m] < key) lo = m + 1;
    else hi = m;
  }
  return lo;
}
