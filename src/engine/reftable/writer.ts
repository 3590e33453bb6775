/**
 * writer: a reftable writer whose output is byte-compatible with git's own writer.
 *
 * Layout rules (git's `reftable/writer.c` and `reftable/block.c`, format from
 * `Documentation/technical/reftable.adoc`, see `block-writer.ts` for the block rules):
 * - Header v1 (24 bytes) for SHA-1, v2 (28 bytes, + `u32 hash_id`) for SHA-256.
 * - The first block shares the file with the header: its `block_len` and restart offsets count
 *   from byte 0 of the file (git: `block_writer_init(..., header_off)`).
 * - A record starts a restart point when its key shares no prefix with the previous key; every
 *   `restartInterval`-th record of a block is encoded against an empty key to force one (git:
 *   `block_writer_add`, `entries % restart_interval == 0`; at most 65,535 restarts per block).
 * - A block is finished when the next record (plus the restart table) does not fit in
 *   `blockSize` (git: `block_writer_register_restart`: `2 + 3 * restarts + n > block_size - next`).
 * - Ref, index and obj blocks are padded with NULs to `blockSize`; the padding of the last block
 *   before the log section and before the footer is dropped (git's "pending padding").
 * - An index is written for a section only when it has more than 3 blocks (1 when unpadded), and
 *   index levels are added while a level has more than 3 blocks (git: `writer_finish_section`).
 * - Obj blocks (object id → ref block positions) only after a ref index, when `indexObjects`;
 *   `obj_id_len` = 1 + the longest common prefix of two adjacent distinct object ids, at least 2
 *   (git: `writer_dump_object_index`, `update_common`).
 * - Log blocks: records and restart table zlib-compressed (level 9, like git's
 *   `deflateInit(zstream, 9)`) after the 4-byte block header, `block_len` = inflated size,
 *   never padded. The deflater (reftable/deflate.ts) is fflate's, whose stream may be a byte
 *   longer than zlib's for some blocks while inflating to the same bytes.
 * - Footer: header again, index/section positions, CRC-32. Empty table = header + footer.
 *
 * Pure TypeScript: no DOM, no Node APIs. Keys and names are byte strings (one char per byte,
 * see `basics.bytesToKey`); use `basics.textToKey` to turn Unicode text into one.
 */
import { deflateLogBlock } from './deflate.ts';
import { crc32, putU16, putU24, putU32, putU64, putVarint, varintLength } from '../basics.ts';
import type { TableFooter } from './table.ts';
import {
  BlockWriter,
  WriterError,
  MAX_RESTARTS,
  T_INDEX,
  T_LOG,
  T_OBJ,
  T_REF,
  footerSize,
  headerSize,
  type WrittenSection,
} from './block-writer.ts';
import { HASH_ID_S256, HASH_ID_SHA1 } from './constants.ts';

export { WriterError, headerSize, footerSize, type WrittenSection } from './block-writer.ts';

/** Options of `writeTable`. Defaults are git's (`reftable.*` config defaults). */
export interface WriterOptions {
  /** Object id format: 'sha1' (20-byte ids, header v1) or 's256' (32-byte ids, header v2). Default 'sha1'. */
  hashId?: 'sha1' | 's256';
  /**
   * Block size in bytes, 1 ≤ blockSize < 2^24; default 4096 (git's `reftable.blockSize`).
   * 0 = an unaligned table as the specification describes it ("Block alignment"): header and
   * footer say `block_size = 0`, no padding, an index as soon as a section has more than one
   * block; blocks are then filled up to 4096 bytes. (Git never writes such files; its own
   * "unpadded" option is `unpadded` below.)
   */
  blockSize?: number;
  /** Records between forced restart points, 1..65535; default 16 (git's `reftable.restartInterval`). */
  restartInterval?: number;
  /** Write obj blocks (object id → ref blocks) after a ref index; default true (git's `reftable.indexObjects`). */
  indexObjects?: boolean;
  /**
   * Git's `unpadded` write option (used by git's tests only): no padding, index when a section has
   * more than 1 block, the header still carries `blockSize`. Default false.
   */
  unpadded?: boolean;
  /**
   * Write log messages exactly as given. Default false: like git's `reftable_writer_add_log`,
   * trailing newlines are stripped, a message with an inner newline is refused, and one `\n` is
   * appended (an absent message stays empty).
   */
  exactLogMessage?: boolean;
  /** `min_update_index` of the header; every ref's `updateIndex` must be ≥ it. */
  minUpdateIndex: number;
  /** `max_update_index` of the header; every ref's and log update's `updateIndex` must be ≤ it. */
  maxUpdateIndex: number;
}

/** One ref record to write. */
export interface RefRecordIn {
  /** Ref name as a byte string (one char per byte), non-empty. */
  name: string;
  /** Update index, within [minUpdateIndex, maxUpdateIndex]; stored as a delta from the minimum. */
  updateIndex: number;
  /** Value type: 0 deletion (tombstone), 1 object id, 2 object id + peeled id, 3 symref. */
  type: 0 | 1 | 2 | 3;
  /** Object id (type 1 and 2), 20 or 32 bytes as `hashId` says. */
  value?: Uint8Array;
  /** Peeled object id (type 2). */
  peeled?: Uint8Array;
  /** Symref target as a byte string (type 3). */
  target?: string;
}

/** One log (reflog) record to write. */
export interface LogRecordIn {
  /** Ref name as a byte string, non-empty. */
  name: string;
  /** Update index of the entry (part of the key: `name NUL reverse_u64(updateIndex)`). */
  updateIndex: number;
  /** 0 = log deletion (no body), 1 = update. */
  type: 0 | 1;
  /** Old object id (type 1); absent = all zeros. */
  oldId?: Uint8Array;
  /** New object id (type 1); absent = all zeros. */
  newId?: Uint8Array;
  /** Committer name, byte string. */
  committerName?: string;
  /** Committer e-mail (without `<>`), byte string. */
  email?: string;
  /** Seconds since the epoch. */
  time?: number;
  /**
   * Time zone offset, a signed 16-bit value stored as given. The specification says minutes
   * (-480 for GMT-0800); git stores the ±hhmm number (-800), see fixture basic-sha1 (100 = +0100).
   */
  tzOffset?: number;
  /** Reflog message, byte string (see `WriterOptions.exactLogMessage`). */
  message?: string;
}

/** One block as written (the same quantities `test-tool dump-reftable -b` prints). */
export interface WrittenBlock {
  /** 'r' ref, 'i' index, 'o' obj, 'g' log. */
  type: 'r' | 'i' | 'o' | 'g';
  /** Which section: the index after ref blocks is 'refIndex', after obj 'objIndex', after log 'logIndex'. */
  section: WrittenSection;
  /** Byte offset of the block in the file (0 for the first block: it starts with the header). */
  offset: number;
  /** The `block_len` field (inflated size for log blocks), counted from `offset`. */
  blockLen: number;
  /** Offset of the restart table within the block (`block_len − 2 − 3 × restarts`); dump-reftable's `length`. */
  restartTableOffset: number;
  /** Restart count. */
  restarts: number;
  /** Records in the block. */
  records: number;
  /** Bytes the block occupies in the file, padding included (compressed size for log blocks). */
  fileBytes: number;
}

/** What `writeTableDetailed` returns: the bytes and the layout decisions. */
/**
 * A written table: its bytes, its blocks, and the footer fields as written (the reader's
 * `TableFooter` minus the CRC). As git writes them: `objIdLen` is 0 when the obj section was not
 * attempted (no ref index, or indexObjects off); `logPosition` is 0 for a log-only table (git
 * records 0 for a first block at 0); every other position is 0 for an absent section.
 */
export interface WrittenTable extends Omit<TableFooter, 'crc'> {
  /** The table file (may be a view on a slightly larger buffer; copy it to keep only the file). */
  bytes: Uint8Array;
  /** Every block in file order. */
  blocks: WrittenBlock[];
  /** Number of ref index levels (0 = no ref index). */
  refIndexLevels: number;
  /**
   * Work done, for tests that guard against blow-ups by counting instead of timing: bytes copied
   * into the output (each block once) and moved when the output buffer grew.
   */
  work?: { bytesMoved: number };
}

/** Block fill limit for unaligned (`blockSize: 0`) tables. */
const UNALIGNED_FILL = 4096;
const FORMAT_ID_SHA1 = HASH_ID_SHA1;
const FORMAT_ID_S256 = HASH_ID_S256;

/** A name as error text: quoted, and cut to 80 characters (a name may be megabytes long). */
function showName(name: string): string {
  return (
    JSON.stringify(name.length > 80 ? name.slice(0, 60) + '…' : name) +
    (name.length > 80 ? ` (${name.length.toLocaleString('en-US')} bytes)` : '')
  );
}

/** A record that does not fit an empty block: git's writer fails with "entry too large". */
function tooBig(kind: 'ref' | 'log', name: string, limit: number): WriterError {
  return new WriterError(
    `a ${kind} record that fits one ${limit.toLocaleString('en-US')}-byte block (git fails with "entry too large"), found ${kind} ${showName(name)}, which does not`,
    undefined,
    -1,
    name,
  );
}

/** The object id, checked to be `hs` bytes long; the message is only built on failure. */
function checkOid(id: Uint8Array | undefined, hs: number, kind: string, name: string, field: string): Uint8Array {
  if (!id || id.length !== hs)
    throw new WriterError(
      `a ${hs}-byte object id as the ${field} of ${kind} ${showName(name)}, found ${id ? `${id.length} bytes` : 'none'}`,
    );
  return id;
}

function byteLen(s: string, what: string): number {
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0xff)
      throw new WriterError(
        `a byte string as the ${what} (one char per byte; use textToKey), found char ${i} above 0xff`,
      );
  }
  return s.length;
}

/** Index entry: the last key of a block and the block's position. */
interface IndexEntry {
  key: Uint8Array;
  offset: number;
}

/**
 * The table writer proper. One instance writes one table; `writeTable`/`writeTableDetailed`
 * drive it. Mirrors git's writer state: `next` is git's `w->next` (logical end, padding included),
 * `pendingPadding` the padding of the last block not yet materialised.
 */
class TableWriter extends BlockWriter {
  readonly version: 1 | 2;
  readonly hs: number;
  readonly hdrSize: number;
  readonly headerBlockSize: number;
  readonly padded: boolean;
  readonly threshold: number;
  readonly minUI: number;
  readonly maxUI: number;
  readonly hashFormat: number;

  out: Uint8Array;
  /** Bytes copied into and within the output buffer (block copies and buffer growth): the work counter. */
  bytesMoved = 0;
  next = 0;
  pendingPadding = 0;
  blocks: WrittenBlock[] = [];
  index: IndexEntry[] = [];

  constructor(o: WriterOptions, estimate: number) {
    const bs = o.blockSize ?? 4096;
    if (!Number.isInteger(bs) || bs < 0 || bs >= 1 << 24)
      throw new WriterError(`a block size of 0..16777215 (git's reftable.blockSize), found ${bs}`);
    const ri = o.restartInterval ?? 16;
    if (!Number.isInteger(ri) || ri < 1 || ri > MAX_RESTARTS)
      throw new WriterError(`a restart interval of 1..65535 (git's reftable.restartInterval), found ${ri}`);
    super(bs === 0 ? UNALIGNED_FILL : bs, ri);
    this.version = o.hashId === 's256' ? 2 : 1;
    this.hs = this.version === 2 ? 32 : 20;
    this.hashFormat = this.version === 2 ? FORMAT_ID_S256 : FORMAT_ID_SHA1;
    this.hdrSize = headerSize(this.version);
    this.headerBlockSize = bs;
    this.padded = bs !== 0 && !o.unpadded;
    this.threshold = this.padded ? 3 : 1;
    this.minUI = o.minUpdateIndex;
    this.maxUI = o.maxUpdateIndex;
    for (const [k, v] of [
      ['minUpdateIndex', this.minUI],
      ['maxUpdateIndex', this.maxUI],
    ] as const) {
      if (!Number.isSafeInteger(v) || v < 0) throw new WriterError(`a non-negative safe integer as ${k}, found ${v}`);
    }
    if (this.minUI > this.maxUI)
      throw new WriterError(`minUpdateIndex ≤ maxUpdateIndex, found ${this.minUI} > ${this.maxUI}`);
    if (this.limit < this.hdrSize + 4 + 2 + 3 + 2)
      throw new WriterError(
        `a block size of at least ${this.hdrSize + 4 + 2 + 3 + 2} bytes (header, block header, one restart), found ${bs}`,
      );
    this.out = new Uint8Array(Math.max(1 << 12, estimate + Math.min(this.limit, 1 << 16) + 128));
  }

  ensureOut(n: number): void {
    if (n <= this.out.length) return;
    let cap = Math.ceil(this.out.length * 1.5);
    while (cap < n) cap = Math.ceil(cap * 1.5);
    const b = new Uint8Array(cap);
    b.set(this.out);
    this.bytesMoved += this.out.length;
    this.out = b;
  }

  /** git: writer_reinit_block_writer: the first block of the file starts after the header. */
  begin(type: number, section: WrittenSection): void {
    this.beginAt(type, section, this.next === 0 ? this.hdrSize : 0);
  }

  /** git: writer_flush_block / writer_flush_nonempty_block / block_writer_finish. */
  flush(): void {
    if (this.entries === 0) return;
    const b = this.blk;
    const { blockLen, restartTableOffset: rtOff } = this.finishBlock();
    const at = this.next;
    if (at === 0) this.writeHeader(b, 0);
    let raw: number;
    let padding = 0;
    if (this.btype === T_LOG) {
      const skip = this.headerOff + 4;
      const z = deflateLogBlock(b.subarray(skip, blockLen));
      raw = skip + z.length;
      this.ensureOut(at + raw + 128);
      this.out.set(b.subarray(0, skip), at);
      this.out.set(z, at + skip);
      this.bytesMoved += raw;
    } else {
      raw = blockLen;
      if (this.padded) padding = this.limit - raw;
      this.ensureOut(at + raw + padding + 128);
      this.out.set(b.subarray(0, raw), at);
      this.bytesMoved += raw;
    }
    this.blocks.push({
      type: String.fromCharCode(this.btype) as WrittenBlock['type'],
      section: this.bsection,
      offset: at,
      blockLen,
      restartTableOffset: rtOff,
      restarts: this.nRestarts,
      records: this.entries,
      fileBytes: raw + padding,
    });
    this.index.push({ key: this.lastBuf.slice(0, this.lastLen), offset: at });
    this.next = at + raw + padding;
    this.pendingPadding = padding;
    this.entries = 0;
  }

  writeHeader(b: Uint8Array, o: number): void {
    b[o] = 0x52; // R
    b[o + 1] = 0x45; // E
    b[o + 2] = 0x46; // F
    b[o + 3] = 0x54; // T
    b[o + 4] = this.version;
    putU24(b, o + 5, this.headerBlockSize);
    putU64(b, o + 8, this.minUI);
    putU64(b, o + 16, this.maxUI);
    if (this.version === 2) putU32(b, o + 24, this.hashFormat);
  }

  /** Add index record (key, offset) into the current index block, flushing as needed. */
  addIndexRecord(e: IndexEntry): void {
    const kl = e.key.length;
    this.ensureKey(kl);
    this.keyBuf.set(e.key);
    this.keyLen = kl;
    const bl = varintLength(e.offset);
    let o = this.add(0, bl);
    if (o < 0) {
      this.flush();
      this.begin(T_INDEX, this.bsection);
      o = this.add(0, bl);
      if (o < 0)
        throw new WriterError(
          `an index record that fits one ${this.limit}-byte block (git: "entry too large"), found a ${kl}-byte key`,
        );
    }
    putVarint(this.blk, o, e.offset);
  }

  /**
   * git: writer_finish_section. Flush the open block, then write index levels while the current
   * level has more than `threshold` blocks. Returns the position of the top index level (0 = none)
   * and the number of levels.
   */
  finishSection(indexSection: WrittenBlock['section']): { indexStart: number; levels: number } {
    this.flush();
    let indexStart = 0;
    let levels = 0;
    while (this.index.length > this.threshold) {
      levels++;
      indexStart = this.next;
      const idx = this.index;
      this.index = [];
      this.begin(T_INDEX, indexSection);
      for (let i = 0; i < idx.length; i++) this.addIndexRecord(idx[i]);
      this.flush();
      // A level that did not shrink holds one record per block, and the next level would repeat
      // its keys exactly: git's writer_finish_section loops here for ever, writing levels until
      // the disk is full. Stop at the first such level and say why.
      if (this.index.length >= idx.length) {
        let longest = 0;
        for (const e of idx) if (e.key.length > longest) longest = e.key.length;
        throw new WriterError(
          `index levels that shrink (a ${this.limit.toLocaleString('en-US')}-byte block must hold two index records), found level ${levels} of the ${indexSection === 'refIndex' ? 'ref' : indexSection === 'objIndex' ? 'obj' : 'log'} index with ${idx.length} blocks, as many as the level below, because an index key of up to ${longest} bytes fills a block (git's writer never finishes on this input); use a larger block size or a larger restart interval`,
        );
      }
    }
    this.index = [];
    return { indexStart, levels };
  }
}

/**
 * Collected object ids (for obj blocks): `pool` holds ids back to back, `blk[i]` the number
 * (index in the block list) of the ref block holding the ref that named id i. Git's
 * `writer_index_hash` records `w->next`, the start of the block being filled; its position is
 * known once that block is flushed.
 */
class OidCollector {
  pool: Uint8Array;
  blk: Uint32Array;
  n = 0;
  constructor(
    readonly hs: number,
    capacity: number,
  ) {
    const c = Math.max(16, capacity);
    this.pool = new Uint8Array(hs * c);
    this.blk = new Uint32Array(c);
  }
  push(id: Uint8Array, blockNo: number): void {
    if (this.n === this.blk.length) {
      const p = new Uint32Array(this.n * 2);
      p.set(this.blk);
      this.blk = p;
      const q = new Uint8Array(this.pool.length * 2);
      q.set(this.pool);
      this.pool = q;
    }
    const o = this.n * this.hs;
    const pool = this.pool;
    for (let i = 0; i < this.hs; i++) pool[o + i] = id[i];
    this.blk[this.n++] = blockNo;
  }

  /**
   * The records sorted by (id bytes, insertion order): equal ids end up adjacent with ascending
   * block numbers, as git's per-id offset lists are. Each record gets a numeric key = the id's
   * leading bits × 2^b + its index (b = bits needed for an index, key < 2^53), sorted natively;
   * runs of equal leading bits are then ordered by whole ids. Returns gathered copies.
   */
  sorted(): { ids: Uint8Array; blk: Uint32Array } {
    const n = this.n;
    const hs = this.hs;
    const pool = this.pool;
    let idxBits = 1;
    while (2 ** idxBits < n) idxBits++;
    const pb = 53 - idxBits; // leading id bits in the key, 27..52
    const scale = 2 ** idxBits;
    const keys = new Float64Array(n);
    for (let i = 0, o = 0; i < n; i++, o += hs) {
      const hi = ((pool[o] << 24) | (pool[o + 1] << 16) | (pool[o + 2] << 8) | pool[o + 3]) >>> 0;
      let prefix: number;
      if (pb >= 32) {
        const lo = (pool[o + 4] << 16) | (pool[o + 5] << 8) | pool[o + 6];
        prefix = hi * 2 ** (pb - 32) + (lo >>> (24 - (pb - 32)));
      } else prefix = hi >>> (32 - pb);
      keys[i] = prefix * scale + i;
    }
    keys.sort();
    // split each key back into its leading bits (kept in `keys`) and the index
    const order = new Uint32Array(n);
    const inv = 1 / scale; // exact: scale is a power of two
    for (let i = 0; i < n; i++) {
      const k = keys[i];
      const pre = Math.floor(k * inv);
      order[i] = k - pre * scale;
      keys[i] = pre;
    }
    // runs with equal leading bits: order by whole id, then index
    const cmp = (a: number, b: number): number => {
      const oa = a * hs;
      const ob = b * hs;
      for (let k = 0; k < hs; k++) {
        const d = pool[oa + k] - pool[ob + k];
        if (d !== 0) return d;
      }
      return a - b;
    };
    for (let s = 0; s < n;) {
      const pre = keys[s];
      let e = s + 1;
      while (e < n && keys[e] === pre) e++;
      if (e - s > 1) {
        let allSame = true;
        for (let r = s + 1; r < e && allSame; r++) {
          const a = order[s] * hs;
          const b = order[r] * hs;
          for (let k = 0; k < hs; k++) {
            if (pool[a + k] !== pool[b + k]) {
              allSame = false;
              break;
            }
          }
        }
        // equal ids are already in index order (the index is in the key)
        if (!allSame) order.subarray(s, e).sort(cmp);
      }
      s = e;
    }
    // gather, copying 32-bit words (hs is 20 or 32)
    const ids = new Uint8Array(n * hs);
    const blk = new Uint32Array(n);
    const w = hs >> 2;
    const src = new Uint32Array(pool.buffer, pool.byteOffset, pool.length >> 2);
    const dst = new Uint32Array(ids.buffer, 0, n * w);
    for (let i = 0, to = 0; i < n; i++, to += w) {
      const r = order[i];
      const from = r * w;
      for (let k = 0; k < w; k++) dst[to + k] = src[from + k];
      blk[i] = this.blk[r];
    }
    return { ids, blk };
  }
}

/**
 * Write the obj section (git: writer_dump_object_index + write_object_record): one record per
 * distinct object id, key = its first `objIdLen` bytes, value = positions of the ref blocks
 * naming it (first absolute, then deltas). A record that does not fit even a fresh block is
 * written without positions (cnt 0: "scan all ref blocks").
 */
function writeObjSection(
  w: TableWriter,
  oids: OidCollector,
): { objIdLen: number; objPosition: number; objIndexPosition: number } {
  const hs = w.hs;
  const n = oids.n;
  const { ids, blk: blkNo } = oids.sorted();
  // git's obj_id_len: 1 + longest common prefix of adjacent distinct ids, at least 2
  let maxCp = 1;
  for (let r = 1; r < n; r++) {
    const a = (r - 1) * hs;
    const b = r * hs;
    let k = 0;
    while (k < hs && ids[a + k] === ids[b + k]) k++;
    if (k < hs && k > maxCp) maxCp = k;
  }
  const idLen = maxCp + 1;
  const blocks = w.blocks;
  w.begin(T_OBJ, 'obj');
  const firstObjBlock = blocks.length;
  w.ensureKey(idLen);
  let s = 0;
  while (s < n) {
    // the run [s, e) of equal ids
    let e = s + 1;
    while (e < n) {
      const a = s * hs;
      const b = e * hs;
      let k = 0;
      while (k < hs && ids[a + k] === ids[b + k]) k++;
      if (k < hs) break;
      e++;
    }
    // distinct block positions (ascending) and the body size
    let cnt = 0;
    let bodyLen = 0;
    let prevNo = -1;
    let prev = 0;
    for (let r = s; r < e; r++) {
      if (blkNo[r] === prevNo) continue;
      prevNo = blkNo[r];
      const p = blocks[prevNo].offset;
      bodyLen += varintLength(cnt === 0 ? p : p - prev);
      prev = p;
      cnt++;
    }
    if (cnt >= 8) bodyLen += varintLength(cnt);
    const kb = w.keyBuf;
    const os = s * hs;
    for (let k = 0; k < idLen; k++) kb[k] = ids[os + k];
    w.keyLen = idLen;
    const vt = cnt < 8 ? cnt : 0;
    let o = w.add(vt, bodyLen);
    if (o < 0) {
      w.flush();
      w.begin(T_OBJ, 'obj');
      o = w.add(vt, bodyLen);
      if (o < 0) {
        o = w.add(0, 1);
        if (o < 0)
          throw new WriterError(
            `an obj record that fits one ${w.limit}-byte block, found a ${idLen}-byte key that does not`,
          );
        w.blk[o] = 0; // cnt_large = 0: no positions
        s = e;
        continue;
      }
    }
    const b = w.blk;
    if (cnt >= 8) o = putVarint(b, o, cnt);
    prevNo = -1;
    let first = true;
    for (let r = s; r < e; r++) {
      if (blkNo[r] === prevNo) continue;
      prevNo = blkNo[r];
      const p = blocks[prevNo].offset;
      o = putVarint(b, o, first ? p : p - prev);
      prev = p;
      first = false;
    }
    s = e;
  }
  const { indexStart } = w.finishSection('objIndex');
  const objPosition = blocks.length > firstObjBlock ? blocks[firstObjBlock].offset : 0;
  return { objIdLen: idLen, objPosition, objIndexPosition: indexStart };
}

/** Reflog message as git's `reftable_writer_add_log` stores it (unless exactLogMessage). */
function cleanMessage(msg: string | undefined, exact: boolean, name: string): string {
  if (exact || msg === undefined) return msg ?? '';
  let end = msg.length;
  while (end > 0 && msg.charCodeAt(end - 1) === 10) end--;
  const m = msg.slice(0, end);
  if (m.indexOf('\n') >= 0)
    throw new WriterError(
      `a one-line log message for ${showName(name)} (git's reftable_writer_add_log refuses inner newlines), found ${m.split('\n').length} lines`,
      undefined,
      -1,
      name,
    );
  return m + '\n';
}

/** Rough size of the table (to allocate the output once): records plus restart tables, padding, obj records. */
function estimateSize(
  refs: readonly RefRecordIn[],
  logs: readonly LogRecordIn[],
  hs: number,
  indexObjects: boolean,
): { bytes: number; ids: number } {
  let n = 0;
  let ids = 0;
  for (let i = 0; i < refs.length; i++) {
    const r = refs[i];
    n += (r.name.length >> 1) + 6; // names share prefixes
    if (r.type === 1) {
      n += hs;
      ids++;
    } else if (r.type === 2) {
      n += 2 * hs;
      ids += 2;
    } else if (r.type === 3) n += (r.target?.length ?? 0) + 3;
  }
  if (indexObjects) n += ids * 10;
  for (let i = 0; i < logs.length; i++) {
    const l = logs[i];
    n +=
      l.name.length +
      14 +
      (l.type === 1
        ? 2 * hs + 16 + (l.committerName?.length ?? 0) + (l.email?.length ?? 0) + (l.message?.length ?? 0)
        : 0);
  }
  return { bytes: n, ids };
}

/**
 * Write one reftable and describe its layout.
 *
 * @param refs ref records sorted by name in byte order, names unique (else `WriterError`).
 * @param logs log records sorted by (name byte order, updateIndex descending), keys unique.
 * @param opts format, block size, restart interval, obj index, update-index bounds.
 * @returns the table bytes, every block written and the footer fields.
 * @throws WriterError on unsorted or duplicate keys, an update index outside the header's
 *   bounds (refs: [min, max]; log updates: ≤ max, as git checks), a missing or wrong-length
 *   object id, a non-byte-string name, a multi-line log message (unless exactLogMessage), or a
 *   record that does not fit an empty block.
 */
export function writeTableDetailed(
  refs: readonly RefRecordIn[],
  logs: readonly LogRecordIn[],
  opts: WriterOptions,
): WrittenTable {
  const indexObjects = opts.indexObjects ?? true;
  const est = estimateSize(refs, logs, opts.hashId === 's256' ? 32 : 20, indexObjects);
  const w = new TableWriter(opts, est.bytes);
  const hs = w.hs;
  const oids = new OidCollector(hs, indexObjects ? est.ids : 0);
  let refIndexPosition = 0;
  let refIndexLevels = 0;
  let objIdLen = 0;
  let objPosition = 0;
  let objIndexPosition = 0;
  let logPosition = 0;
  let logIndexPosition = 0;

  // ---- ref section ----
  w.begin(T_REF, 'ref');
  let prev = '';
  for (let r = 0; r < refs.length; r++) {
    const rec = refs[r];
    const name = rec.name;
    if (name.length === 0) throw new WriterError(`a non-empty name for ref record ${r}, found an empty one`);
    if (r > 0 && !(prev < name))
      throw new WriterError(
        `ref names sorted and unique, found ${showName(name)} (record ${r}) not after ${showName(prev)}`,
        undefined,
        -1,
        name,
      );
    prev = name;
    const ui = rec.updateIndex;
    if (!(ui >= w.minUI && ui <= w.maxUI))
      throw new WriterError(
        `an update index in [${w.minUI}, ${w.maxUI}] for ref ${showName(name)}, found ${ui}`,
        undefined,
        -1,
        name,
      );
    const delta = ui - w.minUI;
    // A name longer than a block can never be written (git: REFTABLE_ENTRY_TOO_BIG_ERROR).
    if (name.length > w.limit) throw tooBig('ref', name, w.limit);
    w.ensureKey(name.length);
    const t = rec.type;
    let bodyLen = varintLength(delta);
    let value: Uint8Array | undefined;
    let peeled: Uint8Array | undefined;
    let target = '';
    if (t === 1) {
      value = checkOid(rec.value, hs, 'ref', name, 'value');
      bodyLen += hs;
    } else if (t === 2) {
      value = checkOid(rec.value, hs, 'ref', name, 'value');
      peeled = checkOid(rec.peeled, hs, 'ref', name, 'peeled');
      bodyLen += 2 * hs;
    } else if (t === 3) {
      if (rec.target === undefined)
        throw new WriterError(`a target for symref ${showName(name)}, found none`, undefined, -1, name);
      target = rec.target;
      const tl = byteLen(target, 'symref target');
      bodyLen += varintLength(tl) + tl;
    } else if (t !== 0) {
      throw new WriterError(`a value type 0..3 for ref ${showName(name)}, found ${t as number}`, undefined, -1, name);
    }
    let o = w.addName(name, t, bodyLen);
    if (o < 0) {
      w.flush();
      w.begin(T_REF, 'ref');
      o = w.addName(name, t, bodyLen);
      if (o < 0) throw tooBig('ref', name, w.limit);
    }
    const b = w.blk;
    o = putVarint(b, o, delta);
    if (value) {
      for (let i = 0; i < hs; i++) b[o + i] = value[i];
      o += hs;
      if (peeled) for (let i = 0; i < hs; i++) b[o + i] = peeled[i];
      if (indexObjects) {
        oids.push(value, w.blocks.length);
        if (peeled) oids.push(peeled, w.blocks.length);
      }
    } else if (t === 3) {
      o = putVarint(b, o, target.length);
      for (let i = 0; i < target.length; i++) b[o++] = target.charCodeAt(i);
    }
  }

  // git: writer_finish_public_section for the ref section: ref index, then obj blocks and obj
  // index when the ref section got an index (`ref_stats.index_blocks > 0`)
  const finishRefs = (): void => {
    const { indexStart, levels } = w.finishSection('refIndex');
    refIndexPosition = indexStart;
    refIndexLevels = levels;
    if (indexObjects && levels > 0) {
      const r = writeObjSection(w, oids);
      objIdLen = r.objIdLen;
      objPosition = r.objPosition;
      objIndexPosition = r.objIndexPosition;
    }
  };

  /** The padding of the last block is dropped (git: `pending_padding`). */
  const dropPendingPadding = (): void => {
    if (w.pendingPadding > 0) {
      w.blocks[w.blocks.length - 1].fileBytes -= w.pendingPadding;
      w.next -= w.pendingPadding;
      w.pendingPadding = 0;
    }
  };

  if (logs.length > 0) {
    finishRefs();
    // git: reftable_writer_add_log_verbatim drops the pending padding before the log section
    dropPendingPadding();
    w.begin(T_LOG, 'log');
    const firstLogBlock = w.blocks.length;
    const exact = opts.exactLogMessage ?? false;
    const zero = new Uint8Array(hs);
    let prevName = '';
    let prevUI = 0;
    for (let r = 0; r < logs.length; r++) {
      const rec = logs[r];
      const name = rec.name;
      const ui = rec.updateIndex;
      if (name.length === 0) throw new WriterError(`a non-empty name for log record ${r}, found an empty one`);
      if (!Number.isSafeInteger(ui) || ui < 0)
        throw new WriterError(
          `a non-negative safe integer as the update index of log ${showName(name)}, found ${ui}`,
          undefined,
          -1,
          name,
        );
      if (r > 0 && !(prevName < name || (prevName === name && ui < prevUI))) {
        throw new WriterError(
          `log records sorted by name, then update index descending, found (${showName(name)}, ${ui}) (record ${r}) not after (${showName(prevName)}, ${prevUI})`,
          undefined,
          -1,
          name,
        );
      }
      prevName = name;
      prevUI = ui;
      const kl = name.length + 9;
      if (kl > w.limit) throw tooBig('log', name, w.limit);
      w.ensureKey(kl);
      const kb = w.keyBuf;
      for (let i = 0; i < name.length; i++) {
        const c = name.charCodeAt(i);
        if (c > 0xff)
          throw new WriterError(
            `a byte string as the name of log record ${r} (one char per byte; use textToKey), found a char above 0xff`,
          );
        kb[i] = c;
      }
      kb[name.length] = 0;
      // reverse_int64(update_index) = 0xffffffffffffffff - update_index
      const hi = Math.floor(ui / 4294967296);
      const lo = ui >>> 0;
      putU32(kb, name.length + 1, 0xffffffff - hi);
      putU32(kb, name.length + 5, 0xffffffff - lo);
      w.keyLen = kl;
      let bodyLen = 0;
      let who = '';
      let email = '';
      let msg = '';
      const t = rec.type;
      if (t === 1) {
        if (ui > w.maxUI)
          throw new WriterError(
            `an update index ≤ ${w.maxUI} (maxUpdateIndex) for log ${showName(name)}, found ${ui}`,
            undefined,
            -1,
            name,
          );
        if (rec.oldId) checkOid(rec.oldId, hs, 'log', name, 'old id');
        if (rec.newId) checkOid(rec.newId, hs, 'log', name, 'new id');
        who = rec.committerName ?? '';
        email = rec.email ?? '';
        msg = cleanMessage(rec.message, exact, name);
        const time = rec.time ?? 0;
        if (!Number.isSafeInteger(time) || time < 0)
          throw new WriterError(
            `a non-negative safe integer as the time of log ${showName(name)}, found ${time}`,
            undefined,
            -1,
            name,
          );
        const wl = byteLen(who, 'log committer name');
        const el = byteLen(email, 'log email');
        const ml = byteLen(msg, 'log message');
        bodyLen =
          2 * hs + varintLength(wl) + wl + varintLength(el) + el + varintLength(time) + 2 + varintLength(ml) + ml;
      } else if (t !== 0) {
        throw new WriterError(`log type 0 or 1 for log ${showName(name)}, found ${t as number}`, undefined, -1, name);
      }
      let o = w.add(t, bodyLen);
      if (o < 0) {
        w.flush();
        w.begin(T_LOG, 'log');
        o = w.add(t, bodyLen);
        if (o < 0) throw tooBig('log', name, w.limit);
      }
      if (t === 1) {
        const b = w.blk;
        b.set(rec.oldId ?? zero, o);
        o += hs;
        b.set(rec.newId ?? zero, o);
        o += hs;
        o = putVarint(b, o, who.length);
        for (let i = 0; i < who.length; i++) b[o++] = who.charCodeAt(i);
        o = putVarint(b, o, email.length);
        for (let i = 0; i < email.length; i++) b[o++] = email.charCodeAt(i);
        o = putVarint(b, o, rec.time ?? 0);
        putU16(b, o, (rec.tzOffset ?? 0) & 0xffff);
        o += 2;
        o = putVarint(b, o, msg.length);
        for (let i = 0; i < msg.length; i++) b[o++] = msg.charCodeAt(i);
      }
    }
    const { indexStart } = w.finishSection('logIndex');
    logIndexPosition = indexStart;
    // git: log_stats.offset is only recorded when the first log block is not at position 0
    if (w.blocks.length > firstLogBlock) logPosition = w.blocks[firstLogBlock].offset;
  } else {
    finishRefs();
  }

  // ---- close (git: reftable_writer_close) ----
  dropPendingPadding();
  const fsz = footerSize(w.version);
  let end = w.next;
  if (w.blocks.length === 0) {
    // empty table: header, then footer
    w.ensureOut(w.hdrSize + fsz);
    w.writeHeader(w.out, 0);
    end = w.hdrSize;
  }
  w.ensureOut(end + fsz);
  const out = w.out;
  w.writeHeader(out, end);
  let p = end + w.hdrSize;
  putU64(out, p, refIndexPosition);
  putU64(out, p + 8, objPosition * 32 + objIdLen);
  putU64(out, p + 16, objIndexPosition);
  putU64(out, p + 24, logPosition);
  putU64(out, p + 32, logIndexPosition);
  p += 40;
  putU32(out, p, crc32(out, end, p));
  p += 4;
  return {
    // a view when the buffer is nearly full, else a tight copy
    bytes: p >= out.length * 0.7 ? out.subarray(0, p) : out.slice(0, p),
    blocks: w.blocks,
    refIndexPosition,
    objPosition,
    objIdLen,
    objIndexPosition,
    logPosition,
    logIndexPosition,
    refIndexLevels,
    work: { bytesMoved: w.bytesMoved },
  };
}

/**
 * Write one reftable (see `writeTableDetailed` for the rules, inputs and errors).
 * @returns the file bytes: header, blocks, footer.
 */
export function writeTable(
  refs: readonly RefRecordIn[],
  logs: readonly LogRecordIn[],
  opts: WriterOptions,
): Uint8Array {
  return writeTableDetailed(refs, logs, opts).bytes;
}

/**
 * Table file name as git's stack names it (`reftable/stack.c`, `format_name`):
 * `0x{min:012x}-0x{max:012x}-{random:08x}.ref`.
 * @param random a 32-bit number; default a random one (git uses `git_rand()`).
 */
export function tableFileName(minUpdateIndex: number, maxUpdateIndex: number, random?: number): string {
  const r = random === undefined ? Math.floor(Math.random() * 4294967296) : random >>> 0;
  const hex = (v: number, w: number): string => v.toString(16).padStart(w, '0');
  return `0x${hex(minUpdateIndex, 12)}-0x${hex(maxUpdateIndex, 12)}-${hex(r, 8)}.ref`;
}
