/**
 * record: the one decoder of record keys (prefix length, suffix length and value type, suffix)
 * and of the ref, index, obj and log record values.
 *
 * Format: git's Documentation/technical/reftable.adoc, "Ref block format" (the record layout
 * `varint(prefix_length) varint((suffix_length << 3) | value_type) suffix value`), "Index block
 * format", "Obj block format", "Log block format"; git's reftable/record.c `reftable_decode_key`.
 *
 * Two entry points:
 * - `parseKeyHead` decodes only the two key varints into the shared `keyHead` (no allocation):
 *   the table parser's column loop uses it and does its own strict checks and copying.
 * - `RecordReader` owns a buffer, a position and the current key, as JGit's BlockReader does
 *   (`parseKey`, `skipValue`, value readers): point lookups, the seek model, the log reader and
 *   the block display use it.
 */
import { cursor, getVarint, u16 } from '../basics.ts';
import { type BlockType, LOG_KEY_SUFFIX, LOG_UPDATE, REF_SYMREF, REF_VAL1, REF_VAL2 } from './constants.ts';

/** What `parseKeyHead` decoded (one shared object: the hot loop allocates nothing). */
export const keyHead = {
  /** Bytes shared with the previous key. */
  prefix: 0,
  /** Bytes of the key suffix that follow the two varints. */
  suffixLen: 0,
  /** The low 3 bits of the second varint. */
  valueType: 0,
  /** Offset of the varint that failed (when `parseKeyHead` returns < 0). */
  errorAt: 0,
};

/**
 * Decode the key header of the record at `pos`, never reading at or past `end`: the prefix
 * length varint and the (suffix length << 3 | value type) varint, into `keyHead`. Returns the
 * offset of the suffix bytes, or -1 (a varint does not end before `end`) / -2 (a varint above
 * 2^53) with `keyHead.errorAt` at that varint. Does not check the prefix against the previous
 * key nor the suffix against `end`: callers word those errors. Single-byte varints (nearly every
 * prefix and suffix field git writes) are read inline.
 */
export function parseKeyHead(b: Uint8Array, pos: number, end: number): number {
  let prefix = pos < end ? b[pos] : 0x80;
  if (prefix < 0x80) pos++;
  else {
    prefix = getVarint(b, pos, end);
    if (prefix < 0) {
      keyHead.errorAt = pos;
      return prefix;
    }
    pos = cursor.pos;
  }
  let sw = pos < end ? b[pos] : 0x80;
  if (sw < 0x80) pos++;
  else {
    sw = getVarint(b, pos, end);
    if (sw < 0) {
      keyHead.errorAt = pos;
      return sw;
    }
    pos = cursor.pos;
  }
  const vt = sw & 7;
  keyHead.prefix = prefix;
  keyHead.valueType = vt;
  keyHead.suffixLen = (sw - vt) / 8;
  return pos;
}

/** Why `RecordReader.parseKey` stopped (0 = the key decoded). */
export const KEY_OK = 0;
export const KEY_VARINT_END = -1;
export const KEY_VARINT_BIG = -2;
export const KEY_PREFIX = -3;
export const KEY_SUFFIX = -4;

/** Positions of the fields of a log update record (offsets into the reader's buffer). */
export interface LogValue {
  oldAt: number;
  newAt: number;
  nameAt: number;
  nameLen: number;
  emailAt: number;
  emailLen: number;
  time: number;
  /** tz_offset as stored: a signed 16-bit value. */
  tz: number;
  messageAt: number;
  messageLen: number;
}

/** Positions of a ref record's value (offsets into the reader's buffer; -1 when absent). */
export interface RefValue {
  updateIndexDelta: number;
  oidAt: number;
  peeledAt: number;
  targetAt: number;
  targetLen: number;
}

/**
 * A cursor over the records of one block (or of any byte range holding records). It owns its
 * buffer, its position and the key decoded last; `parseKey` extends that key by the next
 * record's suffix. Never reads at or past `end`: a record that does not decode makes `parseKey`
 * return a negative code (see `KEY_*`) with `errorAt` set and the position unchanged.
 */
export class RecordReader {
  buf: Uint8Array = new Uint8Array(0);
  /** Offset of the next thing to read. */
  pos = 0;
  end = 0;
  /** The current key: `key[0, keyLen)`. */
  key = new Uint8Array(256);
  keyLen = 0;
  valueType = 0;
  /** Prefix and suffix length of the last key parsed, and where its record started. */
  prefixLength = 0;
  suffixLength = 0;
  recordStart = 0;
  /** Offsets of the varints and the suffix of the last key (for byte-level display). */
  prefixEnd = 0;
  suffixAt = 0;
  /** Where the last failure was found. */
  errorAt = -1;

  /** Read records from `buf[pos, end)`, starting with an empty key. */
  reset(buf: Uint8Array, pos: number, end: number): this {
    this.buf = buf;
    this.pos = pos;
    this.end = end;
    this.keyLen = 0;
    this.valueType = 0;
    this.errorAt = -1;
    return this;
  }

  /** More bytes to read before `end`. */
  get more(): boolean {
    return this.pos < this.end;
  }

  /**
   * Decode the key of the record at `pos` (its prefix taken from the current key; `fresh`
   * starts from an empty key, as at a restart point) and move to its value.
   */
  parseKey(fresh = false): number {
    const b = this.buf,
      end = this.end,
      start = this.pos;
    const at = parseKeyHead(b, start, end);
    if (at < 0) {
      this.errorAt = keyHead.errorAt;
      return at;
    }
    const prefix = keyHead.prefix,
      slen = keyHead.suffixLen;
    this.prefixLength = prefix;
    this.suffixLength = slen;
    this.recordStart = start;
    if (fresh) this.keyLen = 0;
    if (prefix > this.keyLen) {
      this.errorAt = start;
      return KEY_PREFIX;
    }
    if (at + slen > end) {
      this.errorAt = at;
      return KEY_SUFFIX;
    }
    const len = prefix + slen;
    if (len > this.key.length) {
      const bigger = new Uint8Array(Math.max(this.key.length * 2, len));
      bigger.set(this.key.subarray(0, prefix));
      this.key = bigger;
    }
    const k = this.key;
    for (let i = 0; i < slen; i++) k[prefix + i] = b[at + i];
    this.keyLen = len;
    this.valueType = keyHead.valueType;
    this.prefixEnd = start + (prefix < 0x80 ? 1 : varintBytes(b, start));
    this.suffixAt = at;
    this.pos = at + slen;
    return KEY_OK;
  }

  /** The current key against `want[0, wantLen)` (bytes or UTF-16 units of a byte string): <0, 0, >0. */
  compare(want: ArrayLike<number>, wantLen: number): number {
    const k = this.key,
      kl = this.keyLen;
    const n = kl < wantLen ? kl : wantLen;
    for (let i = 0; i < n; i++) {
      const d = k[i] - want[i];
      if (d !== 0) return d;
    }
    return kl - wantLen;
  }

  /** The current key as a byte string (one char per byte). */
  keyString(): string {
    let s = '';
    for (let i = 0; i < this.keyLen; i++) s += String.fromCharCode(this.key[i]);
    return s;
  }

  /** A copy of the current key's bytes. */
  keyBytes(): Uint8Array {
    return this.key.slice(0, this.keyLen);
  }

  /** A varint at `pos`; -1 / -2 (see `getVarint`) with `errorAt` set, the position unchanged. */
  varint(): number {
    const v = getVarint(this.buf, this.pos, this.end);
    if (v < 0) {
      this.errorAt = this.pos;
      return v;
    }
    this.pos = cursor.pos;
    return v;
  }

  /** Move past `n` raw bytes; false (position unchanged) if they do not fit before `end`. */
  skip(n: number): boolean {
    if (n < 0 || this.pos + n > this.end) {
      this.errorAt = this.pos;
      return false;
    }
    this.pos += n;
    return true;
  }

  /** Index record value: the block position. -1 / -2 if its varint does not decode. */
  readIndexValue(): number {
    return this.varint();
  }

  /**
   * Ref record value (value type from the key): update_index delta, then by type nothing
   * (deletion), an object id, an object id and its peeled id, or a varint length and a symref
   * target. Fills `out` with offsets; false if it does not fit before `end`.
   */
  readRefValue(hashSize: number, out: RefValue): boolean {
    const d = this.varint();
    if (d < 0) return false;
    out.updateIndexDelta = d;
    out.oidAt = out.peeledAt = out.targetAt = -1;
    out.targetLen = 0;
    const vt = this.valueType;
    if (vt === REF_VAL1 || vt === REF_VAL2) {
      out.oidAt = this.pos;
      if (!this.skip(hashSize)) return false;
      if (vt === REF_VAL2) {
        out.peeledAt = this.pos;
        if (!this.skip(hashSize)) return false;
      }
    } else if (vt === REF_SYMREF) {
      const l = this.varint();
      if (l < 0) return false;
      out.targetAt = this.pos;
      out.targetLen = l;
      if (!this.skip(l)) return false;
    } else if (vt !== 0) {
      this.errorAt = this.recordStart;
      return false;
    }
    return true;
  }

  /**
   * Obj record value: the count (value type 1..7, or 0 and a varint count) and the ref block
   * positions, delta-coded after the first. Appends absolute positions to `out` (when given);
   * returns the count, or -1 if it does not decode.
   */
  readObjValue(out?: number[]): number {
    let cnt = this.valueType;
    if (cnt === 0) {
      cnt = this.varint();
      if (cnt < 0) return -1;
    }
    let last = 0;
    for (let k = 0; k < cnt; k++) {
      const d = this.varint();
      if (d < 0) return -1;
      last = k === 0 ? d : last + d;
      out?.push(last);
    }
    return cnt;
  }

  /**
   * Log record value (type 1, update): old id, new id, varint-prefixed name and email, varint
   * time, 2-byte tz_offset, varint-prefixed message. Type 0 (deletion) has no value. Fills
   * `out`; false if a field does not fit before `end`.
   */
  readLogValue(hashSize: number, out: LogValue): boolean {
    if (this.valueType !== LOG_UPDATE) return this.valueType === 0;
    out.oldAt = this.pos;
    if (!this.skip(hashSize)) return false;
    out.newAt = this.pos;
    if (!this.skip(hashSize)) return false;
    let l = this.varint();
    if (l < 0) return false;
    out.nameAt = this.pos;
    out.nameLen = l;
    if (!this.skip(l)) return false;
    l = this.varint();
    if (l < 0) return false;
    out.emailAt = this.pos;
    out.emailLen = l;
    if (!this.skip(l)) return false;
    const t = this.varint();
    if (t < 0) return false;
    out.time = t;
    if (this.pos + 2 > this.end) {
      this.errorAt = this.pos;
      return false;
    }
    const tz = u16(this.buf, this.pos);
    out.tz = tz >= 0x8000 ? tz - 0x10000 : tz;
    this.pos += 2;
    l = this.varint();
    if (l < 0) return false;
    out.messageAt = this.pos;
    out.messageLen = l;
    return this.skip(l);
  }

  /** Skip the value of the record whose key was just parsed; false if it does not decode. */
  skipValue(type: BlockType, hashSize: number): boolean {
    if (type === 'index') return this.varint() >= 0;
    if (type === 'ref') return this.readRefValue(hashSize, scratchRef);
    if (type === 'obj') return this.readObjValue() >= 0;
    return this.readLogValue(hashSize, scratchLog);
  }
}

const scratchRef: RefValue = { updateIndexDelta: 0, oidAt: -1, peeledAt: -1, targetAt: -1, targetLen: 0 };
/** A log value to decode into (a caller that keeps one across records reuses it). */
export function newLogValue(): LogValue {
  return {
    oldAt: 0,
    newAt: 0,
    nameAt: 0,
    nameLen: 0,
    emailAt: 0,
    emailLen: 0,
    time: 0,
    tz: 0,
    messageAt: 0,
    messageLen: 0,
  };
}

const scratchLog: LogValue = newLogValue();

/** Bytes of the varint at `pos` (it is known to decode). */
function varintBytes(b: Uint8Array, pos: number): number {
  let n = 1;
  while (b[pos + n - 1] & 0x80) n++;
  return n;
}

/**
 * The update index of a log key (refname NUL reverse_uint64(update_index)) whose last 8 bytes
 * are `key[end - 8, end)`: 0xffffffffffffffff minus them, per 32-bit half so it stays exact.
 */
export function logKeyUpdateIndex(key: Uint8Array, end: number): number {
  const n = end - 8;
  const hi = 0xffffffff - (((key[n] << 24) >>> 0) + ((key[n + 1] << 16) | (key[n + 2] << 8) | key[n + 3]));
  const lo = 0xffffffff - (((key[n + 4] << 24) >>> 0) + ((key[n + 5] << 16) | (key[n + 6] << 8) | key[n + 7]));
  return hi * 4294967296 + lo;
}

/** A log key has the refname, a NUL and 8 bytes: true if `key[0, len)` has that shape. */
export function isLogKey(key: Uint8Array, len: number): boolean {
  return len >= LOG_KEY_SUFFIX && key[len - LOG_KEY_SUFFIX] === 0;
}
