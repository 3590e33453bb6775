/**
 * realseek: the cost of a seek in a real table, computed from its block structure instead of by
 * running the reader (lookup.ts `seekRef`) for every key. Same rules as the reader:
 * - the ref index's top level (the blocks from the footer's index position to the section end)
 *   is scanned linearly: read each block's first key, stop at the first one > want;
 * - inside a block: binary search over the restart points (one key decoded per probe), then a
 *   linear scan from the chosen restart point to the first key ≥ want;
 * - an index record leads to a lower index block or to the ref block; when every key of an index
 *   block is < want, the next block of the file, if it is a ref index block, gives the record
 *   (its first); without an index the ref blocks themselves are scanned linearly.
 * Each block's restart points are decoded once (their record ordinals), each index record once
 * (its child and its key's place among the table's records). A key is described by its place
 * among the records: `gap` = records < key and `exact` = record `gap` equals key. Index keys that
 * are not record keys (a writer may shorten them) are placed by a string comparison, exactly.
 */
import type { BlockInfo, Table } from '../reftable/table.ts';
import { RecordReader } from '../reftable/record.ts';
import { firstRecordOffset, restartAt } from '../reftable/block.ts';
import { MAX_INDEX_DEPTH } from '../reftable/constants.ts';
import type { SeekCost } from './layout.ts';

/** Compare record i's key bytes with a byte-string key (memcmp order). */
function compareKey(kb: Uint8Array, ks: Uint32Array, i: number, key: string): number {
  const s = ks[i],
    e = ks[i + 1];
  const n = Math.min(e - s, key.length);
  for (let j = 0; j < n; j++) {
    const d = kb[s + j] - key.charCodeAt(j);
    if (d) return d;
  }
  return e - s - key.length;
}

/** One decoded index block. */
interface IndexBlock {
  /** Child block index (into Table.blocks) per entry. */
  child: Int32Array;
  /** Place of each entry's key: records < key. */
  keyGap: Int32Array;
  /** Entry key equals record keyGap (else it falls strictly between records). */
  keyExact: Uint8Array;
  /** The raw keys of entries that are not record keys (for exact comparison). */
  loose: Map<number, string>;
  /** Ordinal of each restart point. */
  restarts: Int32Array;
}

/** Structural seek model of one real table. */
export class RealSeek {
  private readonly t: Table;
  /** First record of each ref block (by index into `t.blocks`; ref blocks come first). */
  private readonly firstRec: Int32Array;
  private readonly refBlocks: number[];
  private readonly rootBlocks: number[];
  private readonly byOffset = new Map<number, number>();
  private readonly restartCache = new Map<number, Int32Array>();
  private readonly indexCache = new Map<number, IndexBlock>();

  constructor(t: Table) {
    this.t = t;
    this.refBlocks = [];
    t.blocks.forEach((b, i) => {
      this.byOffset.set(b.offset, i);
      if (b.section === 'ref') this.refBlocks.push(i);
    });
    this.firstRec = new Int32Array(t.blocks.length + 1);
    let rec = 0;
    for (const i of this.refBlocks) {
      this.firstRec[i] = rec;
      rec += t.blocks[i].recordCount;
    }
    const start = t.footer.refIndexPosition;
    this.rootBlocks = start
      ? t.blocks
          .map((b, i) => ({ b, i }))
          .filter(({ b }) => b.section === 'refIndex' && b.offset >= start)
          .map(({ i }) => i)
      : [];
  }

  /** Records with a key < `key` (binary search over the key bytes). */
  private place(key: string): number {
    const { keyBytes, keyStart, count } = this.t.refs;
    let lo = 0,
      hi = count;
    while (lo < hi) {
      const m = (lo + hi) >>> 1;
      if (compareKey(keyBytes, keyStart, m, key) < 0) lo = m + 1;
      else hi = m;
    }
    return lo;
  }

  /** Some index key is not the key of a record (decodes every index block once). */
  get looseIndexKeys(): boolean {
    for (let i = 0; i < this.t.blocks.length; i++) {
      if (this.t.blocks[i].section === 'refIndex' && this.indexOf(i).loose.size) return true;
    }
    return false;
  }

  get hasIndex(): boolean {
    return this.rootBlocks.length > 0;
  }

  private bytes(b: BlockInfo): Uint8Array {
    return this.t.source.read(b.offset, b.blockLen);
  }

  /** Record ordinals of a ref block's restart points. */
  private restartsOf(bi: number): Int32Array {
    let r = this.restartCache.get(bi);
    if (r) return r;
    const b = this.t.blocks[bi];
    const blk = this.bytes(b);
    const rt = b.restartTableOffset;
    const offs = new Set<number>();
    for (let i = 0; i < b.restartCount; i++) offs.add(restartAt(blk, rt, i));
    const out: number[] = [];
    const hs = this.t.header.hashSize;
    const rec = new RecordReader().reset(blk, firstRecordOffset(b.offset, this.t.header.headerSize), rt);
    let n = 0;
    while (rec.more) {
      if (offs.has(rec.pos)) out.push(n);
      if (rec.parseKey() !== 0 || !rec.skipValue('ref', hs)) break;
      n++;
    }
    r = Int32Array.from(out);
    this.restartCache.set(bi, r);
    return r;
  }

  private indexOf(bi: number): IndexBlock {
    let ib = this.indexCache.get(bi);
    if (ib) return ib;
    const b = this.t.blocks[bi];
    const blk = this.bytes(b);
    const rt = b.restartTableOffset;
    const offs = new Set<number>();
    for (let i = 0; i < b.restartCount; i++) offs.add(restartAt(blk, rt, i));
    const child: number[] = [],
      gap: number[] = [],
      exact: number[] = [],
      restarts: number[] = [];
    const loose = new Map<number, string>();
    const rec = new RecordReader().reset(blk, firstRecordOffset(b.offset, this.t.header.headerSize), rt);
    let n = 0;
    while (rec.more) {
      if (offs.has(rec.pos)) restarts.push(n);
      if (rec.parseKey() !== 0) break;
      const key = rec.keyString();
      const pos = rec.readIndexValue();
      if (pos < 0) break;
      child.push(this.byOffset.get(pos) ?? -1);
      const g = this.place(key);
      const e = g < this.t.refs.count && compareKey(this.t.refs.keyBytes, this.t.refs.keyStart, g, key) === 0;
      gap.push(g);
      exact.push(e ? 1 : 0);
      if (!e) loose.set(n, key);
      n++;
    }
    ib = {
      child: Int32Array.from(child),
      keyGap: Int32Array.from(gap),
      keyExact: Uint8Array.from(exact),
      loose,
      restarts: Int32Array.from(restarts),
    };
    this.indexCache.set(bi, ib);
    return ib;
  }

  private c: SeekCost = { indexBlocks: 0, leafBlocks: 0, restartProbes: 0, records: 0, leaf: -1 };
  private gap = 0;
  private thr = 0;
  private want = '';

  /** Index key e of block ib > want. */
  private gtIdx(ib: IndexBlock, e: number): boolean {
    return ib.keyExact[e] ? ib.keyGap[e] >= this.thr : ib.loose.get(e)! > this.want;
  }
  /** Index key e of block ib ≥ want. */
  private geIdx(ib: IndexBlock, e: number): boolean {
    return ib.keyExact[e] ? ib.keyGap[e] >= this.gap : ib.loose.get(e)! >= this.want;
  }

  /** Seek inside ref block bi: binary search over restarts, then the linear scan. */
  private inLeaf(bi: number): void {
    const c = this.c;
    const r = this.restartsOf(bi);
    const first = this.firstRec[bi];
    let lo = 0,
      hi = r.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      c.restartProbes++;
      if (first + r[mid] >= this.thr) hi = mid;
      else lo = mid + 1;
    }
    const start = lo === 0 ? 0 : r[lo - 1];
    const m = this.t.blocks[bi].recordCount;
    const target = this.gap - first; // ordinal of the first record ≥ want
    c.records += target < m ? target - start + 1 : m - start;
  }

  /**
   * Seek cost to the first record ≥ want (`gap`, `exact` as above; `want` the key itself, used
   * only against index keys that are not record keys). The returned object is reused by the
   * next call.
   */
  seek(gap: number, exact: boolean, want: string): SeekCost {
    const c = this.c;
    c.indexBlocks = 0;
    c.leafBlocks = 0;
    c.restartProbes = 0;
    c.records = 0;
    c.leaf = -1;
    if (this.refBlocks.length === 0) return c;
    this.gap = gap;
    this.thr = exact ? gap + 1 : gap;
    this.want = want;
    if (!this.rootBlocks.length) {
      // Linear scan over the ref blocks.
      let cur = this.refBlocks[0];
      c.leafBlocks++;
      for (let k = 1; k < this.refBlocks.length; k++) {
        const bi = this.refBlocks[k];
        c.leafBlocks++;
        c.records++;
        if (this.firstRec[bi] >= this.thr) break;
        cur = bi;
      }
      c.leaf = cur;
      this.inLeaf(cur);
      return c;
    }
    // Top index level: linear scan.
    let cur = this.rootBlocks[0];
    c.indexBlocks++;
    for (let k = 1; k < this.rootBlocks.length; k++) {
      const bi = this.rootBlocks[k];
      c.indexBlocks++;
      c.records++;
      if (this.gtIdx(this.indexOf(bi), 0)) break;
      cur = bi;
    }
    for (let depth = 0; depth < MAX_INDEX_DEPTH; depth++) {
      const ib = this.indexOf(cur);
      const m = ib.child.length;
      let lo = 0,
        hi = ib.restarts.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        c.restartProbes++;
        if (this.gtIdx(ib, ib.restarts[mid])) hi = mid;
        else lo = mid + 1;
      }
      let e = lo === 0 ? 0 : ib.restarts[lo - 1];
      for (; e < m; e++) {
        c.records++;
        if (this.geIdx(ib, e)) break;
      }
      let next: number;
      if (e < m) next = ib.child[e];
      else {
        // Every key of this index block is < want: git's `table_iter_next` goes on to the next
        // block of the file and takes its first record when that is an index block of the same
        // section (reftable/table.c `table_iter_seek_indexed`); otherwise the key is absent.
        const nb = cur + 1;
        const b = this.t.blocks[nb];
        if (!b || b.type !== 'index' || b.section !== 'refIndex') return c;
        c.indexBlocks++;
        c.records++;
        const nib = this.indexOf(nb);
        if (!nib.child.length) return c;
        next = nib.child[0];
      }
      if (next < 0) return c;
      if (this.t.blocks[next].type === 'index') {
        c.indexBlocks++;
        cur = next;
        continue;
      }
      c.leafBlocks++;
      c.leaf = next;
      this.inLeaf(next);
      return c;
    }
    return c;
  }
}
