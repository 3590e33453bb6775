/**
 * lookup: point reads through a table as git's reader does them, counting the work.
 *
 * Rules (git's reftable/table.c and block.c, 2.45+):
 * - A section with an index: walk the index. The index root may span several blocks: those are
 *   scanned linearly (each block's first key is read, stopping at the first block whose first key
 *   is past the wanted key). Then follow index records level by level to the leaf block.
 * - A section without an index: scan its blocks linearly the same way from the section start.
 * - Inside a block: binary search over the restart points (decoding one key per probe), then a
 *   linear scan from the chosen restart point to the first key ≥ the wanted key.
 * Counters are the ones the simulator and benchmarks use.
 */
import { cursor, getVarint, u24 } from './basics.ts';
import type { BlockInfo, SectionName, Table } from './table.ts';

/** Work counted by lookups (add-only; reset by creating a new object). */
export interface SeekCounters {
  /** Table seeks started. */
  seeks: number;
  /** Index blocks read. */
  indexBlocks: number;
  /** Leaf blocks (ref, obj) read. */
  leafBlocks: number;
  /** Keys decoded at restart points during binary searches. */
  restartProbes: number;
  /** Records decoded in linear scans (including first keys of blocks during linear block scans). */
  recordsDecoded: number;
}

export function newCounters(): SeekCounters {
  return { seeks: 0, indexBlocks: 0, leafBlocks: 0, restartProbes: 0, recordsDecoded: 0 };
}

/** Per-table lookup acceleration: block by offset, and the first ref record index of each ref block. */
interface TableIndexCache {
  byOffset: Map<number, BlockInfo>;
  firstRec: Map<number, number>;
  sections: Map<SectionName, BlockInfo[]>;
}
const caches = new WeakMap<Table, TableIndexCache>();
function cacheOf(t: Table): TableIndexCache {
  let c = caches.get(t);
  if (c) return c;
  const byOffset = new Map<number, BlockInfo>();
  const sections = new Map<SectionName, BlockInfo[]>();
  const firstRec = new Map<number, number>();
  let rec = 0;
  for (const b of t.blocks) {
    byOffset.set(b.offset, b);
    if (!sections.has(b.section)) sections.set(b.section, []);
    sections.get(b.section)!.push(b);
    if (b.type === 'ref') {
      firstRec.set(b.offset, rec);
      rec += b.recordCount;
    }
  }
  c = { byOffset, firstRec, sections };
  caches.set(t, c);
  return c;
}

/** Blocks kept per table (most recently used): index blocks and the leaves just read. */
const BLOCK_CACHE = 64;
const blockCaches = new WeakMap<Table, Map<number, Uint8Array>>();

/**
 * Block bytes from its start (file byte 0 for the first block) to its restart count. `openTable`
 * checked them; should the source have shrunk since, the missing bytes read as zeros (the
 * decoders below then stop early instead of throwing). The last `BLOCK_CACHE` blocks read are
 * kept per table (a read from a file or a Blob is a system call; every seek reads the root).
 */
function blockBytes(t: Table, b: BlockInfo): Uint8Array {
  let cache = blockCaches.get(t);
  if (!cache) blockCaches.set(t, (cache = new Map()));
  const hit = cache.get(b.offset);
  if (hit) {
    cache.delete(b.offset);
    cache.set(b.offset, hit);
    return hit;
  }
  let blk = t.source.read(b.offset, b.blockLen);
  if (blk.length < b.blockLen) {
    const z = new Uint8Array(b.blockLen);
    z.set(blk);
    blk = z;
  }
  cache.set(b.offset, blk);
  if (cache.size > BLOCK_CACHE) cache.delete(cache.keys().next().value!);
  return blk;
}

/**
 * The key being looked up, as UTF-16 code units: a byte string's are its bytes, and comparing
 * key bytes with these code units orders exactly as `<` on the strings would (keys never hold a
 * unit above 0xff, so a Unicode `want` compares as the string comparison did).
 */
let wantUnits = new Uint16Array(256);
let wantLen = 0;
function setWant(want: string): void {
  if (want.length > wantUnits.length) wantUnits = new Uint16Array(want.length * 2);
  for (let i = 0; i < want.length; i++) wantUnits[i] = want.charCodeAt(i);
  wantLen = want.length;
}

/** Decoded key of the last `keyAt`: `keyBuf[0, keyLen)`. */
let keyBuf = new Uint8Array(4096);
let keyLen = 0;
let lastValueType = 0;

/**
 * Read the key of the record at `pos` into `keyBuf` (its first `prefix` bytes are kept from the
 * previous key there; `fresh` starts from an empty key); sets `cursor.pos` after the key and
 * `lastValueType`. Never reads at or past `end`: a record that does not decode (impossible in a
 * block `openTable` accepted) sets `cursor.pos` to `end`, so every scan loop terminates.
 */
function keyAt(blk: Uint8Array, pos: number, end: number, fresh: boolean): void {
  const prefix = getVarint(blk, pos, end);
  const sw = prefix < 0 ? -1 : getVarint(blk, cursor.pos, end);
  if (sw < 0) { cursor.pos = end; lastValueType = 0; if (fresh) keyLen = 0; return; }
  const p = cursor.pos;
  const slen = Math.min((sw - (sw & 7)) / 8, end - p);
  const keep = fresh ? 0 : Math.min(prefix, keyLen);
  if (keep + slen > keyBuf.length) {
    const bigger = new Uint8Array(Math.max(keyBuf.length * 2, keep + slen));
    bigger.set(keyBuf.subarray(0, keep));
    keyBuf = bigger;
  }
  for (let i = 0; i < slen; i++) keyBuf[keep + i] = blk[p + i];
  keyLen = keep + slen;
  cursor.pos = p + slen;
  lastValueType = sw & 7;
}

/** The decoded key against the wanted one: <0, 0, >0. */
function cmpWant(): number {
  const n = keyLen < wantLen ? keyLen : wantLen;
  for (let i = 0; i < n; i++) {
    const d = keyBuf[i] - wantUnits[i];
    if (d !== 0) return d;
  }
  return keyLen - wantLen;
}

/** Skip a record's key (for counting records): sets `cursor.pos` after it and `lastValueType`. */
function skipKey(blk: Uint8Array, pos: number, end: number): void {
  const prefix = getVarint(blk, pos, end);
  const sw = prefix < 0 ? -1 : getVarint(blk, cursor.pos, end);
  if (sw < 0) { cursor.pos = end; lastValueType = 0; return; }
  cursor.pos = Math.min(end, cursor.pos + (sw - (sw & 7)) / 8);
  lastValueType = sw & 7;
}

/** `getVarint` that yields 0 and moves to `end` instead of failing (see `keyAt`). */
function varintOr(blk: Uint8Array, pos: number, end: number): number {
  const v = getVarint(blk, pos, end);
  if (v < 0) { cursor.pos = end; return 0; }
  return v;
}

/** Skip the value of a record whose key was just read (type-specific body); never past `end`. */
function skipValue(t: Table, type: 'ref' | 'index' | 'obj', blk: Uint8Array, pos: number, end: number): number {
  const vt = lastValueType;
  if (type === 'index') { varintOr(blk, pos, end); return cursor.pos; }
  if (type === 'ref') {
    varintOr(blk, pos, end); pos = cursor.pos;
    const hs = t.header.hashSize;
    if (vt === 1) return Math.min(end, pos + hs);
    if (vt === 2) return Math.min(end, pos + 2 * hs);
    if (vt === 3) { const l = varintOr(blk, pos, end); return Math.min(end, cursor.pos + l); }
    return pos;
  }
  let cnt = vt;
  if (cnt === 0) { cnt = varintOr(blk, pos, end); pos = cursor.pos; }
  for (let i = 0; i < cnt && pos < end; i++) { varintOr(blk, pos, end); pos = cursor.pos; }
  return pos;
}

/** Result of seeking inside one block: position (record ordinal) of the first key ≥ want. */
interface BlockSeek {
  /** Ordinal of that record within the block; = recordCount when every key is < want. */
  ordinal: number;
  /** A record with key ≥ want was found (its key is in `keyBuf`). */
  found: boolean;
  /** Its key equals want. */
  exact: boolean;
  /** Byte offset (within the block bytes) of that record's value, for index records. */
  valuePos: number;
  blk: Uint8Array;
}

/**
 * Seek inside one block as git's `block_iter_seek_key`: binary search on restart points, then
 * linear scan. The restart ordinals are found by counting records, so the returned ordinal is
 * exact. Keys are decoded into a byte buffer and compared with the wanted key's code units
 * (`setWant`): no string per key.
 */
function seekInBlock(t: Table, b: BlockInfo, c: SeekCounters): BlockSeek {
  const blk = blockBytes(t, b);
  const rt = b.restartTableOffset;
  const rc = b.restartCount;
  // Binary search for the first restart point whose key is > want; start from the one before.
  let lo = 0, hi = rc;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    c.restartProbes++;
    keyAt(blk, u24(blk, rt + 3 * mid), rt, true);
    if (cmpWant() > 0) hi = mid; else lo = mid + 1;
  }
  const startRestart = lo === 0 ? 0 : lo - 1;
  let pos = u24(blk, rt + 3 * startRestart);
  // Ordinal of the record at that restart point: count records from the block start up to it.
  // (git does not need ordinals; we do, to map to decoded columns. Not counted as work.)
  let ordinal = ordinalAt(t, b, blk, pos);
  let fresh = true;
  while (pos < rt && ordinal < b.recordCount) {
    c.recordsDecoded++;
    keyAt(blk, pos, rt, fresh);
    fresh = false;
    const vpos = cursor.pos;
    const d = cmpWant();
    if (d >= 0) return { ordinal, found: true, exact: d === 0, valuePos: vpos, blk };
    pos = skipValue(t, b.type as 'ref' | 'index' | 'obj', blk, vpos, rt);
    ordinal++;
  }
  return { ordinal, found: false, exact: false, valuePos: -1, blk };
}

const ordinalCache = new WeakMap<BlockInfo, Map<number, number>>();
/** Ordinal of the record starting at byte `pos` of block `b` (restart points only, cached). */
function ordinalAt(t: Table, b: BlockInfo, blk: Uint8Array, pos: number): number {
  let m = ordinalCache.get(b);
  if (!m) {
    m = new Map();
    const rt = b.restartTableOffset;
    const restarts = new Set<number>();
    for (let i = 0; i < b.restartCount; i++) restarts.add(u24(blk, rt + 3 * i));
    let p = b.offset === 0 ? t.header.headerSize + 4 : 4;
    let n = 0;
    while (p < rt) {
      if (restarts.has(p)) m.set(p, n);
      skipKey(blk, p, rt);
      p = skipValue(t, b.type as 'ref' | 'index' | 'obj', blk, cursor.pos, rt);
      n++;
    }
    ordinalCache.set(b, m);
  }
  return m.get(pos) ?? 0;
}

/** First key of a block (decoded, counted as one record) against want: <0, 0, >0. */
function firstKeyVsWant(t: Table, b: BlockInfo, c: SeekCounters): number {
  const blk = blockBytes(t, b);
  c.recordsDecoded++;
  keyAt(blk, b.offset === 0 ? t.header.headerSize + 4 : 4, b.restartTableOffset, true);
  return cmpWant();
}

/**
 * Linear block scan over `blocks` (git's `table_iter_seek_linear`): read blocks from the first
 * while the next block's first key is ≤ want; returns the block to seek in.
 */
function linearBlock(t: Table, blocks: BlockInfo[], c: SeekCounters, isIndex: boolean): BlockInfo {
  let cur = blocks[0];
  if (isIndex) c.indexBlocks++; else c.leafBlocks++;
  for (let i = 1; i < blocks.length; i++) {
    if (isIndex) c.indexBlocks++; else c.leafBlocks++;
    if (firstKeyVsWant(t, blocks[i], c) > 0) break;
    cur = blocks[i];
  }
  return cur;
}

/** Outcome of a point read in one table. */
export interface SeekResult {
  /** Index (into `table.refs` columns) of the first ref record with key ≥ want; `refs.count` if none. */
  index: number;
  /** True if that record's key equals want. */
  exact: boolean;
}

/**
 * Seek the ref section of `t` to the first record with key ≥ `want` (byte string), as git does
 * (see module comment), adding the work to `c`. Never throws for a table `openTable` accepted.
 */
export function seekRef(t: Table, want: string, c: SeekCounters): SeekResult {
  c.seeks++;
  const cache = cacheOf(t);
  const leaves = cache.sections.get('ref');
  if (!leaves || !leaves.length) return { index: 0, exact: false };
  setWant(want);
  let leaf: BlockInfo | null = null;
  const roots = rootIndexBlocks(t, cache, 'refIndex');
  if (roots.length) {
    let blk = linearBlock(t, roots, c, true);
    // openTable checked that index positions point back at lower index blocks or ref blocks, at
    // most 64 levels: the bound here is a second guard.
    for (let depth = 0; depth < 64; depth++) {
      const s = seekInBlock(t, blk, c);
      if (!s.found) return { index: t.refs.count, exact: false };
      const pos = getVarint(s.blk, s.valuePos, blk.restartTableOffset);
      const next = cache.byOffset.get(pos);
      if (!next) return { index: t.refs.count, exact: false };
      if (next.type === 'index' && next.section === 'refIndex') { c.indexBlocks++; blk = next; continue; }
      c.leafBlocks++;
      leaf = next;
      break;
    }
  } else {
    leaf = linearBlock(t, leaves, c, false);
  }
  if (!leaf || leaf.type !== 'ref') return { index: t.refs.count, exact: false };
  const s = seekInBlock(t, leaf, c);
  const base = cache.firstRec.get(leaf.offset) ?? 0;
  if (!s.found) {
    // Past the end of this block: the answer is the next block's first record.
    return { index: base + leaf.recordCount, exact: false };
  }
  return { index: base + s.ordinal, exact: s.exact };
}

/**
 * The root level of an index section: the blocks the footer's position starts, up to the end of
 * the section (lower levels, written before the root, are not part of it).
 */
function rootIndexBlocks(t: Table, cache: TableIndexCache, section: SectionName): BlockInfo[] {
  const all = cache.sections.get(section);
  if (!all) return [];
  const start = section === 'refIndex' ? t.footer.refIndexPosition : section === 'objIndex' ? t.footer.objIndexPosition : t.footer.logIndexPosition;
  return all.filter((b) => b.offset >= start);
}

/**
 * Refs pointing at object id `oid` (hex) through the obj index, as git's `refs_for` does: seek the
 * obj section for the id's prefix, then read the listed ref blocks and keep records whose value or
 * peeled value equals the id. Without obj blocks, every ref block is scanned.
 * Returns indexes into `t.refs`.
 */
export function refsForObject(t: Table, oid: string, c: SeekCounters): number[] {
  c.seeks++;
  const cache = cacheOf(t);
  const hs = t.header.hashSize;
  const out: number[] = [];
  // Compared as bytes (no string per record). Only records with a value (types 1 and 2) match,
  // as in git's filtering iterator: tombstones and symrefs have no object id.
  const id = oid.length === 2 * hs && /^[0-9a-fA-F]*$/.test(oid) ? hexToBytes(oid) : null;
  const oids = t.refs.oids, types = t.refs.types;
  const sameId = (b: Uint8Array, at: number): boolean => {
    for (let k = 0; k < hs; k++) if (b[at + k] !== id![k]) return false;
    return true;
  };
  const matchBlock = (b: BlockInfo) => {
    const first = cache.firstRec.get(b.offset);
    if (first === undefined) return; // not a ref block (openTable allows only ref block positions)
    c.leafBlocks++;
    for (let i = first; i < first + b.recordCount; i++) {
      c.recordsDecoded++;
      if (!id || (types[i] !== 1 && types[i] !== 2)) continue;
      if (sameId(oids, i * hs) || (types[i] === 2 && sameId(t.refs.peeled.get(i)!, 0))) out.push(i);
    }
  };
  const objLeaves = cache.sections.get('obj');
  if (!objLeaves || !t.footer.objIdLen) {
    for (const b of cache.sections.get('ref') ?? []) matchBlock(b);
    return out;
  }
  const prefix = oid.slice(0, 2 * t.footer.objIdLen);
  setWant(String.fromCharCode(...Array.from(hexToBytes(prefix))));
  let leaf: BlockInfo;
  const roots = rootIndexBlocks(t, cache, 'objIndex');
  if (roots.length) {
    let blk = linearBlock(t, roots, c, true);
    let found: BlockInfo | null = null;
    for (let depth = 0; depth < 64; depth++) {
      const s = seekInBlock(t, blk, c);
      if (!s.found) return out;
      const next = cache.byOffset.get(getVarint(s.blk, s.valuePos, blk.restartTableOffset));
      if (!next) return out;
      if (next.type === 'index' && next.section === 'objIndex') { c.indexBlocks++; blk = next; continue; }
      c.leafBlocks++;
      found = next;
      break;
    }
    if (!found || found.type !== 'obj') return out;
    leaf = found;
  } else leaf = linearBlock(t, objLeaves, c, false);
  const s = seekInBlock(t, leaf, c);
  if (!s.exact) return out;
  // Decode the obj record's positions.
  const blk = s.blk;
  const end = leaf.restartTableOffset;
  let pos = s.valuePos;
  let cnt = lastValueType;
  if (cnt === 0) { cnt = varintOr(blk, pos, end); pos = cursor.pos; }
  if (cnt === 0) {
    for (const b of cache.sections.get('ref') ?? []) matchBlock(b);
    return out;
  }
  let last = 0;
  for (let i = 0; i < cnt && pos < end; i++) {
    const d = varintOr(blk, pos, end); pos = cursor.pos;
    last = i === 0 ? d : last + d;
    const b = cache.byOffset.get(last);
    if (b) matchBlock(b);
  }
  return out;
}

function hexToBytes(h: string): Uint8Array {
  const out = new Uint8Array(h.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(h.substr(2 * i, 2), 16);
  return out;
}

/** Convenience: exact point read of `name` (Unicode or byte string) in one table. */
export function lookupRef(t: Table, name: string, c: SeekCounters = newCounters()): number {
  const r = seekRef(t, name, c);
  return r.exact ? r.index : -1;
}

