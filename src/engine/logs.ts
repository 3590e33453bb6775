/**
 * logs: decode a table's log records with all their fields (spec "Log block format":
 * key = refname NUL reverse_uint64(update_index); log_type 0 deletion, 1 update with
 * old_id, new_id, varint name_len + name, varint email_len + email, varint time (seconds since the
 * epoch), sint16 tz_offset (±hhmm as git writes it), varint message_len + message).
 * The table must have been accepted by `openTable` (which already checked every log block).
 */
import { unzlibSync } from 'fflate';
import { cursor, getVarint, u16, toHex, FormatError } from './basics.ts';
import type { Table } from './table.ts';

/** One decoded log record. Strings are Unicode (UTF-8 decoded); `refname` is a byte string. */
export interface LogRecord {
  refname: string;
  updateIndex: number;
  type: 'update' | 'deletion';
  oldId?: string;
  newId?: string;
  name?: string;
  email?: string;
  /** Seconds since the epoch. */
  time?: number;
  /**
   * Time zone as git stores it: the ±hhmm value as a signed integer (100 for +0100, -230 for
   * -0230). The spec text calls it minutes; git 2.56's tables hold hhmm (fixture basic-sha1).
   */
  tzOffset?: number;
  message?: string;
}

const utf8 = new TextDecoder();

/** Decode every log record of `t`, in file order (refname ascending, update index descending). */
export function readLogs(t: Table, limit = Infinity): LogRecord[] {
  const out: LogRecord[] = [];
  const hs = t.header.hashSize;
  for (const b of t.blocks) {
    if (b.type !== 'log') continue;
    const hl = b.offset === 0 ? t.header.headerSize + 4 : 4;
    const raw = t.source.read(b.offset, b.fileBytes);
    let body: Uint8Array;
    try {
      body = unzlibSync(raw.subarray(hl), { out: new Uint8Array(b.blockLen - hl) });
    } catch (e) {
      throw new FormatError(t.path, b.offset + hl, `a valid zlib stream (${(e as Error).message})`);
    }
    const blk = new Uint8Array(b.blockLen);
    blk.set(raw.subarray(0, hl), 0);
    blk.set(body, hl);
    const rt = b.restartTableOffset;
    let pos = hl;
    let key = '';
    while (pos < rt && out.length < limit) {
      const prefix = getVarint(blk, pos, rt);
      const sw = getVarint(blk, cursor.pos, rt);
      pos = cursor.pos;
      const slen = sw >>> 3;
      let suffix = '';
      for (let i = 0; i < slen; i++) suffix += String.fromCharCode(blk[pos + i]);
      pos += slen;
      key = key.substring(0, prefix) + suffix;
      const nameEnd = key.length - 9;
      const refname = key.slice(0, nameEnd);
      // update_index = 0xffffffffffffffff - reversed; computed per 32-bit half to stay exact.
      let hi = 0, lo = 0;
      for (let i = nameEnd + 1; i < nameEnd + 5; i++) hi = hi * 256 + key.charCodeAt(i);
      for (let i = nameEnd + 5; i < key.length; i++) lo = lo * 256 + key.charCodeAt(i);
      const updateIndex = (0xffffffff - hi) * 4294967296 + (0xffffffff - lo);
      const rec: LogRecord = { refname, updateIndex, type: (sw & 7) === 1 ? 'update' : 'deletion' };
      if ((sw & 7) === 1) {
        rec.oldId = toHex(blk, pos, pos + hs); pos += hs;
        rec.newId = toHex(blk, pos, pos + hs); pos += hs;
        let l = getVarint(blk, pos, rt); pos = cursor.pos;
        rec.name = utf8.decode(blk.subarray(pos, pos + l)); pos += l;
        l = getVarint(blk, pos, rt); pos = cursor.pos;
        rec.email = utf8.decode(blk.subarray(pos, pos + l)); pos += l;
        rec.time = getVarint(blk, pos, rt); pos = cursor.pos;
        const tz = u16(blk, pos); pos += 2;
        rec.tzOffset = tz >= 0x8000 ? tz - 0x10000 : tz;
        l = getVarint(blk, pos, rt); pos = cursor.pos;
        rec.message = utf8.decode(blk.subarray(pos, pos + l)); pos += l;
      }
      out.push(rec);
    }
  }
  return out;
}
