/**
 * layout: where records of a table the simulator writes (a transaction's table, a compacted
 * table, the packed table of `pack-refs`) would fall into blocks, how big the file would be, and
 * what a seek in it costs. Real tables are never modelled: their blocks come from the file.
 *
 * Model (git's writer, reftable/writer.c and block.c with default options; Documentation/technical/reftable.adoc):
 * - ref record = varint(prefix) + varint(suffix_len << 3 | type) + suffix + varint(update_index
 *   delta, 1 byte) + value (type 1: one id, 2: two ids, 3: varint + target, 0: nothing);
 * - a block restarts (prefix 0) at its first record and every `restartInterval` records;
 * - a record goes into the current block while 4-byte block header (+ the file header for the
 *   first block) + records + 3 × restarts + 2 ≤ block size; blocks padded to the block size;
 * - a ref index (one record per ref block, keyed by its last key) when there are more than 3
 *   ref blocks, more index levels while a level has more than 3 blocks;
 * - obj section (object id prefix → block) only with a ref index; estimated at 10 bytes per id.
 * The seek cost is the reader's (lookup.ts) on that layout: linear scan over the top index level
 * (or the ref blocks without an index), a binary search over restart points and a linear scan
 * inside each block on the way down.
 */
import { varintLength, commonPrefixLength } from '../basics.ts';

/** Options of a layout: git's defaults. */
export interface LayoutOptions {
  blockSize: number;
  restartInterval: number;
  /** Object id size in bytes (20 or 32). */
  hashSize: number;
  /** Header size: 24 (v1) or 28 (v2). */
  headerSize: number;
  /** Footer size: 68 (v1) or 72 (v2). */
  footerSize: number;
  /** Estimated bytes of log records written with the refs (0 when reflogs are off). */
  logBytes?: number;
}

export const DEFAULT_LAYOUT: LayoutOptions = {
  blockSize: 4096,
  restartInterval: 16,
  hashSize: 20,
  headerSize: 24,
  footerSize: 68,
};

/** A modelled table layout. */
export interface Layout {
  /** First record of each ref block, plus a final entry = record count. */
  blockStart: Int32Array;
  /** Ref block of each record. */
  recordBlock: Uint32Array;
  restartInterval: number;
  /**
   * Index levels, lowest first. Level l has entries (level 0: one per ref block; level l ≥ 1: one
   * per index block of level l-1) grouped into blocks: `levels[l][b]` is the first entry of block
   * b, plus a final entry = number of entries.
   */
  levels: Int32Array[];
  /** For each level, the last record (in key order) under each entry. */
  entryLast: Int32Array[];
  /** Estimated file size in bytes. */
  bytes: number;
}

/** Bytes of one value by ref value type (symref targets estimated at 16 bytes). */
function valueBytes(type: number, hs: number): number {
  return type === 1 ? hs : type === 2 ? 2 * hs : type === 3 ? 17 : 0;
}

/**
 * Group entries of sizes given by `sizeOf(i, restart)` into blocks; returns block starts (with
 * a final sentinel) and the bytes used (padded).
 */
function fill(
  n: number,
  sizeOf: (i: number, restart: boolean) => number,
  o: LayoutOptions,
  firstHeader: number,
): { starts: number[]; bytes: number } {
  const starts: number[] = [];
  let used = 0;
  let restarts = 0;
  let inBlock = 0;
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    let restart = inBlock % o.restartInterval === 0;
    let s = sizeOf(i, restart);
    if (inBlock > 0 && used + s + 3 * (restarts + (restart ? 1 : 0)) + 2 > o.blockSize) {
      bytes += o.blockSize;
      inBlock = 0;
      restarts = 0;
      restart = true;
      s = sizeOf(i, true);
    }
    if (inBlock === 0) {
      starts.push(i);
      used = 4 + (starts.length === 1 ? firstHeader : 0);
    }
    used += s;
    if (restart) restarts++;
    inBlock++;
  }
  if (inBlock > 0) bytes += used + 3 * restarts + 2;
  starts.push(n);
  return { starts, bytes };
}

/**
 * Lay out a table whose records have the given keys (sorted, distinct) and value types.
 * `keyOf(i)` returns record i's key as a byte string.
 */
export function layoutTable(
  n: number,
  keyOf: (i: number) => string,
  typeOf: (i: number) => number,
  o: LayoutOptions = DEFAULT_LAYOUT,
): Layout {
  const hs = o.hashSize;
  const ref = fill(
    n,
    (i, restart) => {
      const k = keyOf(i);
      const p = restart || i === 0 ? 0 : commonPrefixLength(keyOf(i - 1), k);
      const t = typeOf(i);
      return varintLength(p) + varintLength(((k.length - p) << 3) | t) + (k.length - p) + 1 + valueBytes(t, hs);
    },
    o,
    o.headerSize,
  );
  const blockStart = Int32Array.from(ref.starts);
  const nb = blockStart.length - 1;
  const recordBlock = new Uint32Array(n);
  for (let b = 0; b < nb; b++) recordBlock.fill(b, blockStart[b], blockStart[b + 1]);
  let bytes = n ? ref.bytes : 0;
  if (!n) bytes = 0;
  const levels: Int32Array[] = [];
  const entryLast: Int32Array[] = [];
  let objBytes = 0;
  if (nb > 3) {
    // Index levels over the ref blocks; the key of an entry is the last key under it.
    let entries = nb;
    let last = new Int32Array(nb);
    for (let b = 0; b < nb; b++) last[b] = blockStart[b + 1] - 1;
    for (;;) {
      const lastArr = last;
      const lvl = fill(
        entries,
        (e, restart) => {
          const k = keyOf(lastArr[e]);
          const p = restart || e === 0 ? 0 : commonPrefixLength(keyOf(lastArr[e - 1]), k);
          return varintLength(p) + varintLength((k.length - p) << 3) + (k.length - p) + 4;
        },
        o,
        0,
      );
      levels.push(Int32Array.from(lvl.starts));
      entryLast.push(lastArr);
      bytes += lvl.bytes;
      const blocks = lvl.starts.length - 1;
      if (blocks <= 3) break;
      const next = new Int32Array(blocks);
      for (let b = 0; b < blocks; b++) next[b] = lastArr[lvl.starts[b + 1] - 1];
      last = next;
      entries = blocks;
    }
    let ids = 0;
    for (let i = 0; i < n; i++) {
      const t = typeOf(i);
      if (t === 1) ids++;
      else if (t === 2) ids += 2;
    }
    objBytes = ids * 10;
    if (objBytes > 3 * o.blockSize) objBytes += Math.ceil(objBytes / o.blockSize) * 16;
  }
  bytes += objBytes + (o.logBytes ?? 0) + o.footerSize;
  if (!n) bytes = o.headerSize + o.footerSize + (o.logBytes ?? 0);
  return { blockStart, recordBlock, restartInterval: o.restartInterval, levels, entryLast, bytes };
}

/** Work of one seek (the counters of lookup.ts). */
export interface SeekCost {
  indexBlocks: number;
  leafBlocks: number;
  restartProbes: number;
  /** Records decoded in linear scans (and first keys of blocks in linear block scans). */
  records: number;
  /** Ref block the seek ended in (-1: none, the seek ran off the index). */
  leaf: number;
}

/**
 * Cost of seeking a modelled table to the first record ≥ want, where `gap` = number of records
 * < want and `exact` = record `gap` equals want. Record i compares: key(i) ≥ want ⟺ i ≥ gap,
 * key(i) > want ⟺ i ≥ gap + exact.
 */
export function layoutSeek(L: Layout, n: number, gap: number, exact: boolean): SeekCost {
  const c: SeekCost = { indexBlocks: 0, leafBlocks: 0, restartProbes: 0, records: 0, leaf: -1 };
  const nb = L.blockStart.length - 1;
  if (n === 0 || nb === 0) return c;
  const thr = exact ? gap + 1 : gap;
  const RI = L.restartInterval;
  // Seek inside a block of m entries whose entry o has "last record" lastOf(o): binary search over
  // restart points (o = 0, RI, 2RI, …), then linear scan to the first entry with lastOf ≥ gap.
  const inBlock = (m: number, lastOf: (o: number) => number): number => {
    const rc = Math.ceil(m / RI);
    let lo = 0,
      hi = rc;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      c.restartProbes++;
      if (lastOf(mid * RI) >= thr) hi = mid;
      else lo = mid + 1;
    }
    const start = lo === 0 ? 0 : lo - 1;
    for (let o = start * RI; o < m; o++) {
      c.records++;
      if (lastOf(o) >= gap) return o;
    }
    return -1;
  };
  if (L.levels.length === 0) {
    // Linear scan over ref blocks: stop at the first block whose first key is > want.
    let cur = 0;
    c.leafBlocks++;
    for (let b = 1; b < nb; b++) {
      c.leafBlocks++;
      c.records++;
      if (L.blockStart[b] >= thr) break;
      cur = b;
    }
    c.leaf = cur;
    const s = L.blockStart[cur];
    inBlock(L.blockStart[cur + 1] - s, (o) => s + o);
    return c;
  }
  // Top level: linear scan over its blocks.
  let lvl = L.levels.length - 1;
  let starts = L.levels[lvl];
  let last = L.entryLast[lvl];
  let blk = 0;
  c.indexBlocks++;
  for (let b = 1; b < starts.length - 1; b++) {
    c.indexBlocks++;
    c.records++;
    if (last[starts[b]] >= thr) break;
    blk = b;
  }
  for (;;) {
    const s = starts[blk];
    const o = inBlock(starts[blk + 1] - s, (x) => last[s + x]);
    if (o < 0) return c; // past every key: the iterator is exhausted
    const child = s + o;
    if (lvl === 0) {
      c.leafBlocks++;
      c.leaf = child;
      const rs = L.blockStart[child];
      inBlock(L.blockStart[child + 1] - rs, (x) => rs + x);
      return c;
    }
    c.indexBlocks++;
    lvl--;
    starts = L.levels[lvl];
    last = L.entryLast[lvl];
    blk = child;
  }
}
