/**
 * block: the layout shared by every block (header, restart table, restart count), the seek
 * inside one block, and the one capped inflater of log blocks.
 *
 * Format: git's Documentation/technical/reftable.adoc "Block format" (a block is
 * `block_type uint24(block_len) records restart_offsets uint16(restart_count) padding`; the
 * first block of a file also holds the file header, and its offsets count from file byte 0),
 * "Log block format" (after the 4-byte header the rest of the block is a zlib stream that
 * inflates to block_len − 4 bytes). Seek: git's reftable/block.c `block_iter_seek_key` (binary
 * search over the restart points for the first key past the wanted one, then a linear scan
 * from the restart point before it).
 */
import { Inflate } from 'fflate';
import { FormatError, u16, u24, u32, toHex } from '../basics.ts';
import {
  BLOCK_HEADER_SIZE,
  BLOCK_LOG,
  LOG_DELETION,
  LOG_UPDATE,
  type BlockType,
  INFLATE_SLICE,
  RESTART_COUNT_SIZE,
  RESTART_ENTRY_SIZE,
  type SectionName,
} from './constants.ts';
import { KEY_OK, RecordReader, isLogKey, newLogValue, type LogValue } from './record.ts';
import type { BlockInfo, Table } from './table.ts';

/** Offset of the first record within a block's bytes: after the file header for the first block. */
export function firstRecordOffset(blockOffset: number, headerSize: number): number {
  return (blockOffset === 0 ? headerSize : 0) + BLOCK_HEADER_SIZE;
}

/** The restart table of a block: count and the offset where the 3-byte offsets start. */
export interface RestartLayout {
  count: number;
  /** Offset of the restart table in the block's bytes (= end of the records). */
  tableOffset: number;
}

/** Restart count and table offset from the last bytes of `blk[0, blockLen)` (no checks). */
export function restartLayout(blk: Uint8Array, blockLen: number): RestartLayout {
  const count = u16(blk, blockLen - RESTART_COUNT_SIZE);
  return { count, tableOffset: blockLen - RESTART_COUNT_SIZE - RESTART_ENTRY_SIZE * count };
}

/** Restart offset `i` of a block whose restart table starts at `rt`. */
export function restartAt(blk: Uint8Array, rt: number, i: number): number {
  return u24(blk, rt + RESTART_ENTRY_SIZE * i);
}

/**
 * The restart table of `blk[0, blockLen)`, checked: at least one restart point, the table leaves
 * room for records, offsets increase and lie in [firstRec, table). Returns [count, tableOffset].
 * Errors are `FormatError`s at file offset `base` + block offset.
 */
export function checkedRestarts(
  file: string,
  blk: Uint8Array,
  base: number,
  firstRec: number,
  blockLen: number,
): [number, number] {
  const { count: rc, tableOffset: rt } = restartLayout(blk, blockLen);
  if (rc === 0) throw new FormatError(file, base + blockLen - 2, 'restart_count ≥ 1, found 0');
  if (rt <= firstRec)
    throw new FormatError(
      file,
      base + blockLen - 2,
      `a restart table (${rc} × 3 bytes) that leaves room for records in block_len ${blockLen}`,
    );
  let prev = -1;
  for (let i = 0; i < rc; i++) {
    const r = restartAt(blk, rt, i);
    if (r < firstRec || r >= rt || r <= prev) {
      throw new FormatError(
        file,
        base + rt + 3 * i,
        `restart offset ${i} increasing and inside the records [${firstRec}, ${rt}), found ${r}`,
      );
    }
    prev = r;
  }
  return [rc, rt];
}

/** Outcome of `BlockReader.seek`. */
export interface BlockSeek {
  /** Ordinal (within the block) of the first record with key ≥ want; the record count when none. */
  ordinal: number;
  /** A record with key ≥ want exists in this block; the reader then sits at its value. */
  found: boolean;
  /** Its key equals want. */
  exact: boolean;
}

/** Work a block seek adds (the lookup counters). */
export interface BlockSeekWork {
  restartProbes: number;
  recordsDecoded: number;
}

/**
 * One block's records, read as JGit's BlockReader does: the reader owns the block's bytes and
 * a `RecordReader` positioned in them. `seek` leaves `records` at the value of the record found.
 */
export class BlockReader {
  readonly records = new RecordReader();
  /** Record ordinal of each restart point (computed on first seek: git needs none, we map to columns). */
  private ordinals: Map<number, number> | null = null;

  constructor(
    readonly bytes: Uint8Array,
    readonly type: BlockType,
    /** Offset of the first record in `bytes`. */
    readonly firstRecord: number,
    /** Offset of the restart table (= end of the records). */
    readonly restartTable: number,
    readonly restartCount: number,
    readonly hashSize: number,
  ) {}

  restart(i: number): number {
    return restartAt(this.bytes, this.restartTable, i);
  }

  /** Decode the first key of the block into `records`; false if it does not decode. */
  firstKey(): boolean {
    return this.records.reset(this.bytes, this.firstRecord, this.restartTable).parseKey(true) === 0;
  }

  /**
   * Seek to the first record with key ≥ `want[0, wantLen)` (git's `block_iter_seek_key`):
   * binary search for the first restart point whose key is > want, then a linear scan from the
   * restart point before it. Never throws; a record that does not decode ends the scan.
   */
  seek(want: ArrayLike<number>, wantLen: number, work: BlockSeekWork): BlockSeek {
    const r = this.records;
    const rt = this.restartTable;
    let lo = 0,
      hi = this.restartCount;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      work.restartProbes++;
      r.reset(this.bytes, this.restart(mid), rt);
      if (r.parseKey(true) !== 0 || r.compare(want, wantLen) > 0) hi = mid;
      else lo = mid + 1;
    }
    const start = this.restart(lo === 0 ? 0 : lo - 1);
    let ordinal = this.ordinalAt(start);
    r.reset(this.bytes, start, rt);
    while (r.more) {
      work.recordsDecoded++;
      if (r.parseKey() !== 0) break;
      const d = r.compare(want, wantLen);
      if (d >= 0) return { ordinal, found: true, exact: d === 0 };
      if (!r.skipValue(this.type, this.hashSize)) break;
      ordinal++;
    }
    return { ordinal, found: false, exact: false };
  }

  /** Ordinal of the record starting at restart offset `pos` (counted once per block). */
  private ordinalAt(pos: number): number {
    if (!this.ordinals) {
      const m = new Map<number, number>();
      const restarts = new Set<number>();
      for (let i = 0; i < this.restartCount; i++) restarts.add(this.restart(i));
      const r = new RecordReader().reset(this.bytes, this.firstRecord, this.restartTable);
      let n = 0;
      while (r.more) {
        if (restarts.has(r.pos)) m.set(r.pos, n);
        if (r.parseKey() !== 0 || !r.skipValue(this.type, this.hashSize)) break;
        n++;
      }
      this.ordinals = m;
    }
    return this.ordinals.get(pos) ?? 0;
  }
}

// ---------------------------------------------------------------------------------------------
// Log blocks: the one capped inflater.

/** A zlib stream header git's zlib writes: deflate, window ≤ 32 KiB, check bits, no dictionary. */
export function zlibHeaderOk(b0: number, b1: number): boolean {
  return (b0 & 0x0f) === 8 && b0 >> 4 <= 7 && ((b0 << 8) | b1) % 31 === 0 && !(b1 & 0x20);
}

/** Result of `inflateLogBlock`. */
export interface InflatedLog {
  /**
   * The block as git sees it after inflation: the bytes from the block's offset through its
   * 4-byte header as in the file, then the inflated records and restart table. `blockLen` bytes
   * on success; on failure what was inflated before it.
   */
  block: Uint8Array;
  /** File offset just past the zlib stream (after its Adler-32); -1 when not found. */
  streamEnd: number;
  /** The first problem (file offset, expectation), or null. */
  error: { offset: number; expected: string } | null;
}

/**
 * Inflate the log block at file offset `off` whose 4-byte header ends at `off + hl`, capped at
 * `blockLen`: the compressed bytes are fed in slices of at most `INFLATE_SLICE` (at most 1 KiB
 * past the expected size), so a crafted stream cannot make more than one slice's worth of output
 * (~16 MiB at deflate's 1:1032 limit) before it is stopped. `read(offset, length)` gives file
 * bytes (clamped to the file); `end` is the end of the log section; `step(at)` is called before
 * each slice (a budget check may throw from it).
 *
 * Where the compressed stream ends (git's reader asks zlib how much input it consumed,
 * reftable/block.c `block_reader_init`): the stream's Adler-32 trailer, computed from the
 * inflated bytes, is looked for from the start of the slice that completed the output; the first
 * place followed by the next log block or the section end is the stream's end. When none is, the
 * deflate blocks are walked (`deflateEnd`) to say exactly where the stream ends and what is there.
 */
export function inflateLogBlock(
  read: (offset: number, length: number) => Uint8Array,
  off: number,
  hl: number,
  blockLen: number,
  end: number,
  section: SectionName,
  step?: (at: number) => void,
): InflatedLog {
  const zStart = off + hl;
  const outLen = blockLen - hl;
  const fail = (offset: number, expected: string, block: Uint8Array = read(off, hl).slice()): InflatedLog => ({
    block,
    streamEnd: -1,
    error: { offset, expected },
  });
  if (outLen < 2) return fail(off + hl - 3, `log block_len ≥ ${hl + 2}, found ${blockLen}`);
  if (zStart + 2 > end)
    return fail(zStart, `a zlib stream header (2 bytes) inside the ${section} section (ends at ${end})`);
  const zh = read(zStart, 2);
  if (!zlibHeaderOk(zh[0], zh[1])) {
    return fail(zStart, `a zlib header (deflate, window ≤ 32 KiB, check bits, no dictionary), found 0x${toHex(zh)}`);
  }
  const out = new Uint8Array(blockLen);
  out.set(read(off, hl), 0);
  let got = 0;
  let overflow = false;
  const inf = new Inflate((chunk) => {
    if (got + chunk.length > outLen) {
      overflow = true;
      throw new Error('overflow');
    }
    out.set(chunk, hl + got);
    got += chunk.length;
  });
  const dStart = zStart + 2;
  let fed = dStart;
  let lastSlice = dStart;
  const partial = () => out.subarray(0, hl + got);
  while (fed < end && got < outLen) {
    step?.(fed);
    const n = Math.min(end - fed, Math.min(INFLATE_SLICE, Math.max(1024, outLen - got)));
    const chunk = read(fed, n);
    lastSlice = fed;
    fed += n;
    try {
      inf.push(chunk, false);
    } catch (e) {
      if (overflow)
        return fail(
          lastSlice,
          `log block to inflate to exactly block_len ${blockLen} bytes (it inflates to more)`,
          partial(),
        );
      return fail(lastSlice, `a valid zlib stream (${(e as Error).message})`, partial());
    }
  }
  if (got !== outLen) {
    const ends = deflateEnd(read(dStart, Math.min(end, fed + 1024) - dStart)) >= 0;
    return fail(
      zStart,
      `log block to inflate to block_len ${blockLen} bytes, got ${got + hl}${ends ? '' : ' (the stream does not end inside the section)'}`,
      partial(),
    );
  }
  const adler = adler32(out, hl, blockLen);
  // The trailer lies after the slice start that completed the output (every symbol fully fed was
  // decoded) and at most a little after the fed bytes (an end-of-block code, an empty block).
  const from = Math.max(dStart, lastSlice - 4);
  const to = Math.min(end, fed + 1024);
  const rest = read(from, to - from);
  const a0 = adler >>> 24,
    a1 = (adler >>> 16) & 0xff,
    a2 = (adler >>> 8) & 0xff,
    a3 = adler & 0xff;
  let streamEnd = -1;
  for (let i = 0; i + 4 <= rest.length; i++) {
    if (rest[i] === a0 && rest[i + 1] === a1 && rest[i + 2] === a2 && rest[i + 3] === a3) {
      const after = from + i + 4;
      if (after === end || (i + 4 < rest.length ? rest[i + 4] : read(after, 1)[0]) === BLOCK_LOG) {
        streamEnd = after;
        break;
      }
    }
  }
  if (streamEnd < 0) {
    const e = deflateEnd(read(dStart, to - dStart));
    if (e < 0)
      return fail(zStart, `the zlib stream to end with its Adler-32 before the ${section} section end ${end}`, out);
    const at = dStart + e;
    if (at + 4 > end)
      return fail(at, `the zlib stream's Adler-32 (4 bytes) inside the ${section} section (ends at ${end})`, out);
    const found = u32(read(at, 4), 0);
    if (found !== adler)
      return fail(at, `zlib Adler-32 ${hex8(adler)} of the inflated block, found ${hex8(found)}`, out);
    streamEnd = at + 4;
  }
  return { block: out, streamEnd, error: null };
}

function hex8(n: number): string {
  return '0x' + n.toString(16).padStart(8, '0');
}

/** Adler-32 of b[start, end) (the zlib trailer, RFC 1950). */
export function adler32(b: Uint8Array, start: number, end: number): number {
  let a = 1,
    s = 0;
  for (let i = start; i < end;) {
    const stop = Math.min(end, i + 3800);
    for (; i < stop; i++) {
      a += b[i];
      s += a;
    }
    a %= 65521;
    s %= 65521;
  }
  return ((s << 16) | a) >>> 0;
}

/**
 * Where a raw deflate stream (RFC 1951) in `d` ends: the byte offset after its final block
 * (rounded up to a byte), or -1 if it does not end inside `d` or is invalid. Walks the blocks
 * and decodes the Huffman codes without producing output (only the error path of
 * `inflateLogBlock` uses it: it decodes bit by bit, in the canonical-code manner of RFC 1951
 * section 3.2.2).
 */
export function deflateEnd(d: Uint8Array): number {
  let bitPos = 0;
  const total = d.length * 8;
  const bits = (n: number): number => {
    if (bitPos + n > total) throw RangeError('end');
    let v = 0;
    for (let i = 0; i < n; i++, bitPos++) v |= ((d[bitPos >> 3] >> (bitPos & 7)) & 1) << i;
    return v;
  };
  interface Code {
    count: Uint16Array;
    symbol: Uint16Array;
  }
  const build = (lengths: ArrayLike<number>, n: number): Code => {
    const count = new Uint16Array(16);
    for (let i = 0; i < n; i++) count[lengths[i]]++;
    const start = new Uint16Array(16);
    for (let l = 2; l < 16; l++) start[l] = start[l - 1] + count[l - 1];
    const symbol = new Uint16Array(n);
    for (let i = 0; i < n; i++) if (lengths[i]) symbol[start[lengths[i]]++] = i;
    count[0] = 0;
    return { count, symbol };
  };
  const decode = (c: Code): number => {
    let code = 0,
      first = 0,
      index = 0;
    for (let len = 1; len < 16; len++) {
      code |= bits(1);
      const cnt = c.count[len];
      if (code - cnt < first) return c.symbol[index + (code - first)];
      index += cnt;
      first = (first + cnt) << 1;
      code <<= 1;
    }
    throw RangeError('bad code');
  };
  const LBASE_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
  const DEXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
  let fixed: [Code, Code] | null = null;
  try {
    for (;;) {
      const last = bits(1);
      const type = bits(2);
      if (type === 0) {
        bitPos = (bitPos + 7) & ~7;
        const len = bits(16),
          nlen = bits(16);
        if ((len ^ 0xffff) !== nlen) return -1;
        bitPos += len * 8;
        if (bitPos > total) return -1;
      } else if (type === 1 || type === 2) {
        let lit: Code, dist: Code;
        if (type === 1) {
          if (!fixed) {
            const l = new Uint8Array(288);
            l.fill(8, 0, 144);
            l.fill(9, 144, 256);
            l.fill(7, 256, 280);
            l.fill(8, 280, 288);
            fixed = [build(l, 288), build(new Uint8Array(30).fill(5), 30)];
          }
          [lit, dist] = fixed;
        } else {
          const nlen = bits(5) + 257,
            ndist = bits(5) + 1,
            ncode = bits(4) + 4;
          const ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
          const cl = new Uint8Array(19);
          for (let i = 0; i < ncode; i++) cl[ORDER[i]] = bits(3);
          const lencode = build(cl, 19);
          const lengths = new Uint8Array(nlen + ndist);
          for (let i = 0; i < nlen + ndist;) {
            const sym = decode(lencode);
            if (sym < 16) lengths[i++] = sym;
            else {
              let rep = 0,
                val = 0;
              if (sym === 16) {
                if (i === 0) return -1;
                val = lengths[i - 1];
                rep = 3 + bits(2);
              } else if (sym === 17) rep = 3 + bits(3);
              else rep = 11 + bits(7);
              if (i + rep > nlen + ndist) return -1;
              while (rep--) lengths[i++] = val;
            }
          }
          lit = build(lengths.subarray(0, nlen), nlen);
          dist = build(lengths.subarray(nlen), ndist);
        }
        for (;;) {
          const sym = decode(lit);
          if (sym === 256) break;
          if (sym > 256) {
            const li = sym - 257;
            if (li > 28) return -1;
            bits(LBASE_EXTRA[li]);
            const ds = decode(dist);
            if (ds > 29) return -1;
            bits(DEXTRA[ds]);
          }
        }
      } else return -1;
      if (last) return (bitPos + 7) >> 3;
    }
  } catch {
    return -1;
  }
}

/**
 * Every log record of a table `openTable` accepted, in file order (refname ascending, update index
 * descending): each log block inflated once by `inflateLogBlock`, its records read by one
 * `RecordReader`. `visit` gets the reader just past the record (its `key`, `keyLen`, `valueType`),
 * the value decoded into `v` (offsets into `blk`, the inflated block) and may return false to
 * stop. A record that does not decode throws `FormatError` (the file changed after the check).
 */
export function eachLogRecord(
  t: Table,
  visit: (rec: RecordReader, v: LogValue, blk: Uint8Array) => boolean | void,
  only?: (b: BlockInfo) => boolean,
): void {
  const hs = t.header.hashSize;
  const rec = new RecordReader();
  const v = newLogValue();
  const logEnd = t.fileSize - t.header.footerSize;
  for (const b of t.blocks) {
    if (b.type !== 'log' || (only && !only(b))) continue;
    const hl = firstRecordOffset(b.offset, t.header.headerSize);
    // The stream ends where openTable found it (fileBytes); reading to it suffices.
    const r = inflateLogBlock(
      (o, n) => t.source.read(o, n),
      b.offset,
      hl,
      b.blockLen,
      Math.min(logEnd, b.offset + b.fileBytes),
      b.section,
    );
    if (r.error) throw new FormatError(t.path, r.error.offset, r.error.expected);
    const blk = r.block;
    const bad = (at: number): FormatError =>
      new FormatError(
        t.path,
        b.offset,
        `a well-formed log record at byte ${at} of the inflated log block (this block was accepted before: the file changed?)`,
      );
    rec.reset(blk, hl, b.restartTableOffset);
    while (rec.more) {
      const at = rec.pos;
      if (rec.parseKey() !== KEY_OK || !isLogKey(rec.key, rec.keyLen)) throw bad(at);
      const type = rec.valueType;
      if (type !== LOG_UPDATE && type !== LOG_DELETION)
        throw new FormatError(t.path, b.offset, `log type 0 or 1, found ${type}`);
      if (!rec.readLogValue(hs, v)) throw bad(at);
      if (visit(rec, v, blk) === false) return;
    }
  }
}
