/**
 * lookup: point reads through a table as git's reader does them, counting the work.
 *
 * Rules (git's reftable/table.c and block.c, 2.45+):
 * - A section with an index: walk the index. The index root may span several blocks: those are
 *   scanned linearly (each block's first key is read, stopping at the first block whose first key
 *   is past the wanted key). Then follow index records level by level to the leaf block; when
 *   the wanted key sorts after every key of an index block, the next block of the file (if it
 *   is an index block of the same section) gives the record to follow, as git's
 *   `table_iter_next` moves on (reftable/table.c `table_iter_seek_indexed`).
 * - A section without an index: scan its blocks linearly the same way from the section start.
 * - Inside a block: binary search over the restart points (decoding one key per probe), then a
 *   linear scan from the chosen restart point to the first key ≥ the wanted key (block.ts
 *   `BlockReader.seek`, git's reftable/block.c `block_iter_seek_key`).
 * Counters are the ones the simulator and benchmarks use.
 */
import type { BlockInfo, SectionName, Table } from './table.ts';
import { BlockReader, firstRecordOffset } from './block.ts';
import { MAX_INDEX_DEPTH } from './constants.ts';
import type { RefValue } from './record.ts';

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

/** Per-table lookup acceleration: block by offset, its place in file order, the first ref record of each ref block. */
interface TableIndexCache {
  byOffset: Map<number, BlockInfo>;
  /** Index in `Table.blocks` by offset (the next block in the file is the next entry). */
  ordinal: Map<number, number>;
  firstRec: Map<number, number>;
  sections: Map<SectionName, BlockInfo[]>;
}
const caches = new WeakMap<Table, TableIndexCache>();
function cacheOf(t: Table): TableIndexCache {
  let c = caches.get(t);
  if (c) return c;
  const byOffset = new Map<number, BlockInfo>();
  const ordinal = new Map<number, number>();
  const sections = new Map<SectionName, BlockInfo[]>();
  const firstRec = new Map<number, number>();
  let rec = 0;
  t.blocks.forEach((b, i) => {
    byOffset.set(b.offset, b);
    ordinal.set(b.offset, i);
    if (!sections.has(b.section)) sections.set(b.section, []);
    sections.get(b.section)!.push(b);
    if (b.type === 'ref') {
      firstRec.set(b.offset, rec);
      rec += b.recordCount;
    }
  });
  c = { byOffset, ordinal, firstRec, sections };
  caches.set(t, c);
  return c;
}

/** Blocks kept per table (most recently used): index blocks and the leaves just read. */
const BLOCK_CACHE = 64;
const blockCaches = new WeakMap<Table, Map<number, BlockReader>>();

/**
 * A reader over a block's bytes from its start (file byte 0 for the first block) to its restart
 * count. `openTable` checked them; should the source have shrunk since, the missing bytes read
 * as zeros (the readers then stop early instead of throwing). The last `BLOCK_CACHE` blocks read
 * are kept per table (a read from a file or a Blob is a system call; every seek reads the root).
 */
function blockReader(t: Table, b: BlockInfo): BlockReader {
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
  const r = new BlockReader(
    blk,
    b.type,
    firstRecordOffset(b.offset, t.header.headerSize),
    b.restartTableOffset,
    b.restartCount,
    t.header.hashSize,
  );
  cache.set(b.offset, r);
  if (cache.size > BLOCK_CACHE) cache.delete(cache.keys().next().value!);
  return r;
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

/** Counters as the block seek's work record. */
function work(c: SeekCounters): { restartProbes: number; recordsDecoded: number } {
  return c;
}

/** First key of a block (decoded, counted as one record) against want: <0, 0, >0. */
function firstKeyVsWant(t: Table, b: BlockInfo, c: SeekCounters): number {
  const r = blockReader(t, b);
  c.recordsDecoded++;
  if (!r.firstKey()) return 1;
  return r.records.compare(wantUnits, wantLen);
}

/**
 * Linear block scan over `blocks` (git's `table_iter_seek_linear`): read blocks from the first
 * while the next block's first key is ≤ want; returns the block to seek in.
 */
function linearBlock(t: Table, blocks: BlockInfo[], c: SeekCounters, isIndex: boolean): BlockInfo {
  let cur = blocks[0];
  if (isIndex) c.indexBlocks++;
  else c.leafBlocks++;
  for (let i = 1; i < blocks.length; i++) {
    if (isIndex) c.indexBlocks++;
    else c.leafBlocks++;
    if (firstKeyVsWant(t, blocks[i], c) > 0) break;
    cur = blocks[i];
  }
  return cur;
}

/**
 * Walk an index from block `start` down to a leaf of type `leaf`, as git's
 * `table_iter_seek_indexed` does: seek the wanted key in the index block, take the record found
 * (when every key of the block is smaller, git's `table_iter_next` goes on to the next block of
 * the file, if it is an index block of the same section, and takes its first record), then seek
 * in the block it points at; repeat while that is an index block. Returns the leaf block, or
 * null when the index says the key is past every key.
 */
function descend(
  t: Table,
  cache: TableIndexCache,
  start: BlockInfo,
  section: SectionName,
  leaf: 'ref' | 'obj',
  c: SeekCounters,
): BlockInfo | null {
  let blk = start;
  for (let depth = 0; depth < MAX_INDEX_DEPTH; depth++) {
    const r = blockReader(t, blk);
    const s = r.seek(wantUnits, wantLen, work(c));
    let pos: number;
    if (s.found) pos = r.records.readIndexValue();
    else {
      const next = t.blocks[(cache.ordinal.get(blk.offset) ?? t.blocks.length) + 1];
      if (!next || next.type !== 'index' || next.section !== section) return null;
      c.indexBlocks++;
      c.recordsDecoded++;
      const nr = blockReader(t, next);
      if (!nr.firstKey()) return null;
      pos = nr.records.readIndexValue();
    }
    const child = cache.byOffset.get(pos);
    if (!child) return null;
    if (child.type === 'index' && child.section === section) {
      c.indexBlocks++;
      blk = child;
      continue;
    }
    c.leafBlocks++;
    return child.type === leaf ? child : null;
  }
  return null;
}

/** Outcome of a point read in one table. */
export interface SeekResult {
  /** Index (into `table.refs` columns) of the first ref record with key ≥ want; `refs.count` if none. */
  index: number;
  /** True if that record's key equals want. */
  exact: boolean;
  /**
   * A record with key `want` exists in this table (= `exact`; it may be a tombstone: whether the
   * ref is live is the merged view's answer).
   */
  found: boolean;
}

/**
 * Seek the ref section of `t` to the first record with key ≥ `want` (byte string), as git does
 * (see module comment), adding the work to `c`. Never throws for a table `openTable` accepted.
 */
export function seekRef(t: Table, want: string, c: SeekCounters): SeekResult {
  const cache = cacheOf(t);
  const at = seekRefBlock(t, cache, want, c);
  if (at === null) return { index: 0, exact: false, found: false };
  if (at === 'past') return { index: t.refs.count, exact: false, found: false };
  const { leaf, s } = at;
  const base = cache.firstRec.get(leaf.offset) ?? 0;
  if (!s.found) {
    // Past the end of this block: the answer is the next block's first record.
    return { index: base + leaf.recordCount, exact: false, found: false };
  }
  return { index: base + s.ordinal, exact: s.exact, found: s.exact };
}

/**
 * The seek of `seekRef` up to the record: the leaf block and the block seek's outcome (its reader
 * just past the key of the record found); null when the table has no ref block, 'past' when the
 * index says every key is smaller.
 */
function seekRefBlock(
  t: Table,
  cache: TableIndexCache,
  want: string,
  c: SeekCounters,
): { leaf: BlockInfo; br: BlockReader; s: ReturnType<BlockReader['seek']> } | null | 'past' {
  c.seeks++;
  const leaves = cache.sections.get('ref');
  if (!leaves || !leaves.length) return null;
  setWant(want);
  let leaf: BlockInfo | null;
  const roots = rootIndexBlocks(t, cache, 'refIndex');
  if (roots.length) leaf = descend(t, cache, linearBlock(t, roots, c, true), 'refIndex', 'ref', c);
  else leaf = linearBlock(t, leaves, c, false);
  if (!leaf || leaf.type !== 'ref') return 'past';
  const br = blockReader(t, leaf);
  return { leaf, br, s: br.seek(wantUnits, wantLen, work(c)) };
}

/**
 * The ref record of `want` in `t` read from its block (the ref columns are not used: this works
 * on a table opened with `refColumns: false`): its value type and `RecordReader.readRefValue`'s
 * offsets into `bytes`, the block's bytes; null when the table has no record of that key.
 */
export function readRefRecord(
  t: Table,
  want: string,
  c: SeekCounters = newCounters(),
): { type: number; bytes: Uint8Array; value: RefValue } | null {
  const at = seekRefBlock(t, cacheOf(t), want, c);
  if (at === null || at === 'past' || !at.s.exact) return null;
  const rec = at.br.records;
  const value: RefValue = { updateIndexDelta: 0, oidAt: -1, peeledAt: -1, targetAt: -1, targetLen: 0 };
  const type = rec.valueType;
  if (!rec.readRefValue(t.header.hashSize, value)) return null;
  return { type, bytes: rec.buf, value };
}

/**
 * The root level of an index section: the blocks the footer's position starts, up to the end of
 * the section (lower levels, written before the root, are not part of it).
 */
function rootIndexBlocks(t: Table, cache: TableIndexCache, section: SectionName): BlockInfo[] {
  const all = cache.sections.get(section);
  if (!all) return [];
  const start =
    section === 'refIndex'
      ? t.footer.refIndexPosition
      : section === 'objIndex'
        ? t.footer.objIndexPosition
        : t.footer.logIndexPosition;
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
  const oids = t.refs.oids,
    types = t.refs.types;
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
  let leaf: BlockInfo | null;
  const roots = rootIndexBlocks(t, cache, 'objIndex');
  if (roots.length) leaf = descend(t, cache, linearBlock(t, roots, c, true), 'objIndex', 'obj', c);
  else leaf = linearBlock(t, objLeaves, c, false);
  if (!leaf) return out;
  const br = blockReader(t, leaf);
  const s = br.seek(wantUnits, wantLen, work(c));
  if (!s.exact) return out;
  // The obj record's ref block positions (count 0: the id is in too many blocks, scan them all).
  const positions: number[] = [];
  const cnt = br.records.readObjValue(positions);
  if (cnt === 0) {
    for (const b of cache.sections.get('ref') ?? []) matchBlock(b);
    return out;
  }
  for (const p of positions) {
    const b = cache.byOffset.get(p);
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
