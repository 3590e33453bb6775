/**
 * block-writer: one block being filled, as git's `reftable/block.c` block_writer does it.
 *
 * - Keys are prefix-compressed against the previous key of the block; every
 *   `restartInterval`-th record is encoded against an empty key, which makes it a restart point
 *   (git: `block_writer_add`, `entries % restart_interval == 0`; at most 65,535 restarts a block).
 * - A record fits when it and the restart table still fit in the block
 *   (git: `block_writer_register_restart`: `2 + 3 * restarts + n > block_size - next` refuses it).
 * - The first block of a table shares the file with the header: its `block_len` and restart
 *   offsets count from byte 0 of the file (git: `block_writer_init(..., header_off)`).
 *
 * The table around the blocks (padding, index levels, obj section, footer) is `writer.ts`.
 * Pure TypeScript: no DOM, no Node APIs.
 */
import { FormatError, putU16, putU24, putVarint, varintLength } from '../basics.ts';
import { BLOCK_INDEX, BLOCK_LOG, BLOCK_OBJ, BLOCK_REF, footerSize, headerSize, type SectionName } from './constants.ts';

/** Which section a block belongs to: the index after ref blocks is 'refIndex', and so on. */
export type WrittenSection = SectionName;

/**
 * Bad input to the writer (unsorted keys, update index out of range, a record larger than a
 * block, index levels that would never shrink). A `FormatError`: every entry point reports it
 * as one line naming the file (the table being written, or the input record's file when the
 * caller knows it), what was expected and what was found.
 */
export class WriterError extends FormatError {
  /**
   * @param expected what was expected and what was found.
   * @param file the file the refused record came from, when known; else the new table.
   * @param key the name of the refused record (callers use it to name the input file holding it).
   */
  constructor(
    expected: string,
    file = 'the table being written',
    offset = -1,
    readonly key?: string,
  ) {
    super(file, offset, expected);
    this.name = 'WriterError';
  }
}

export const T_REF = BLOCK_REF;
export const T_INDEX = BLOCK_INDEX;
export const T_OBJ = BLOCK_OBJ;
export const T_LOG = BLOCK_LOG;
/** Restart offsets a block can hold (the count is a u16). */
export const MAX_RESTARTS = 65535;
export { headerSize, footerSize };

/**
 * The block being filled. `limit` is the block size; `keyBuf[0, keyLen)` holds the key of the
 * record being added, `lastBuf[0, lastLen)` the block's last key (swapped on success, no copy).
 */
export class BlockWriter {
  readonly limit: number;
  readonly interval: number;
  blk: Uint8Array;
  btype = 0;
  bsection: WrittenSection = 'ref';
  headerOff = 0;
  pos = 0;
  entries = 0;
  nRestarts = 0;
  restarts = new Uint32Array(MAX_RESTARTS);
  keyBuf: Uint8Array;
  keyLen = 0;
  lastBuf: Uint8Array;
  lastLen = 0;

  constructor(limit: number, restartInterval: number) {
    this.limit = limit;
    this.interval = restartInterval;
    this.blk = new Uint8Array(limit);
    this.keyBuf = new Uint8Array(256);
    this.lastBuf = new Uint8Array(256);
  }

  /** Room for a key of `n` bytes; a key longer than a block can never be written. */
  ensureKey(n: number): void {
    if (n <= this.keyBuf.length) return;
    if (n > this.limit)
      throw new WriterError(`a key of at most ${this.limit} bytes (the block size), found one of ${n} bytes`);
    let cap = this.keyBuf.length;
    while (cap < n) cap *= 2;
    const k = new Uint8Array(cap);
    k.set(this.keyBuf.subarray(0, this.keyLen));
    this.keyBuf = k;
    const l = new Uint8Array(cap);
    l.set(this.lastBuf.subarray(0, this.lastLen));
    this.lastBuf = l;
  }

  /** git: block_writer_init. `headerOff` is the header size for the first block of a file, else 0. */
  beginAt(type: number, section: WrittenSection, headerOff: number): void {
    this.btype = type;
    this.bsection = section;
    this.headerOff = headerOff;
    this.blk[headerOff] = type;
    this.pos = headerOff + 4;
    this.entries = 0;
    this.nRestarts = 0;
    this.lastLen = 0;
  }

  /**
   * Try to add the key in keyBuf[0, keyLen) with value type `vt` and a body of `bodyLen` bytes
   * (git: block_writer_add). On success writes the key part, registers the restart, makes the
   * key the block's last key and returns where the body goes; returns -1 if it does not fit.
   */
  add(vt: number, bodyLen: number): number {
    const key = this.keyBuf;
    const kl = this.keyLen;
    let p = 0;
    if (this.entries % this.interval !== 0) {
      const last = this.lastBuf;
      const m = kl < this.lastLen ? kl : this.lastLen;
      while (p < m && last[p] === key[p]) p++;
    }
    const sfx = kl - p;
    const restart = p === 0 && this.nRestarts < MAX_RESTARTS;
    const n = varintLength(p) + varintLength(sfx * 8 + vt) + sfx + bodyLen;
    if (2 + 3 * (this.nRestarts + (restart ? 1 : 0)) + n > this.limit - this.pos) return -1;
    if (restart) this.restarts[this.nRestarts++] = this.pos;
    const b = this.blk;
    let o = putVarint(b, this.pos, p);
    o = putVarint(b, o, sfx * 8 + vt);
    for (let i = p; i < kl; i++) b[o++] = key[i];
    this.pos += n;
    this.entries++;
    // the key becomes the last key: swap buffers (no copy)
    this.keyBuf = this.lastBuf;
    this.lastBuf = key;
    this.lastLen = kl;
    return o;
  }

  /**
   * `add` for a key given as a byte string (ref names): same rules, but compares and copies the
   * key straight from the string, storing only the new suffix into the last-key buffer.
   */
  addName(name: string, vt: number, bodyLen: number): number {
    const kl = name.length;
    const last = this.lastBuf;
    let p = 0;
    if (this.entries % this.interval !== 0) {
      const m = kl < this.lastLen ? kl : this.lastLen;
      while (p < m && last[p] === name.charCodeAt(p)) p++;
    }
    const sfx = kl - p;
    const restart = p === 0 && this.nRestarts < MAX_RESTARTS;
    const n = (p < 128 ? 1 : varintLength(p)) + varintLength(sfx * 8 + vt) + sfx + bodyLen;
    if (2 + 3 * (this.nRestarts + (restart ? 1 : 0)) + n > this.limit - this.pos) return -1;
    if (restart) this.restarts[this.nRestarts++] = this.pos;
    const b = this.blk;
    let o = putVarint(b, this.pos, p);
    o = putVarint(b, o, sfx * 8 + vt);
    let acc = 0;
    for (let i = p; i < kl; i++) {
      const c = name.charCodeAt(i);
      acc |= c;
      b[o++] = c;
      last[i] = c;
    }
    if (acc > 0xff)
      throw new WriterError(
        `a byte string as the ref name (one char per byte; use textToKey), found a char above 0xff in ${JSON.stringify(name.slice(0, 80))}`,
      );
    this.lastLen = kl;
    this.pos += n;
    this.entries++;
    return o;
  }

  /**
   * git: block_writer_finish (before compression): append the restart table and its count, set
   * `block_len`. Returns `block_len` and the offset of the restart table.
   */
  finishBlock(): { blockLen: number; restartTableOffset: number } {
    const b = this.blk;
    let o = this.pos;
    const restartTableOffset = o;
    for (let i = 0; i < this.nRestarts; i++, o += 3) putU24(b, o, this.restarts[i]);
    putU16(b, o, this.nRestarts);
    o += 2;
    putU24(b, this.headerOff + 1, o);
    return { blockLen: o, restartTableOffset };
  }
}
