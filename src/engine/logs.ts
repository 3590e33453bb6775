/**
 * logs: decode a table's log records with all their fields (spec "Log block format":
 * key = refname NUL reverse_uint64(update_index); log_type 0 deletion, 1 update with
 * old_id, new_id, varint name_len + name, varint email_len + email, varint time (seconds since the
 * epoch), sint16 tz_offset (±hhmm as git writes it), varint message_len + message).
 * The table must have been accepted by `openTable` (which already checked every log block).
 */
import { toHex } from './basics.ts';
import type { BlockInfo, Table } from './reftable/table.ts';
import { eachLogRecord } from './reftable/block.ts';
import { logKeyUpdateIndex } from './reftable/record.ts';
import { LOG_KEY_SUFFIX, LOG_UPDATE } from './reftable/constants.ts';

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

/**
 * Decode every log record of `t`, in file order (refname ascending, update index descending);
 * with `only`, just the log blocks it accepts (a point read inflates only the blocks whose key
 * range can hold the name).
 */
export function readLogs(t: Table, limit = Infinity, only?: (b: BlockInfo) => boolean): LogRecord[] {
  const out: LogRecord[] = [];
  if (limit <= 0) return out;
  const hs = t.header.hashSize;
  eachLogRecord(
    t,
    (rec, v, blk) => {
      const key = rec.key,
        kl = rec.keyLen;
      let refname = '';
      for (let i = 0; i < kl - LOG_KEY_SUFFIX; i++) refname += String.fromCharCode(key[i]);
      const type = rec.valueType === LOG_UPDATE ? 'update' : 'deletion';
      const entry: LogRecord = { refname, updateIndex: logKeyUpdateIndex(key, kl), type };
      if (type === 'update') {
        entry.oldId = toHex(blk, v.oldAt, v.oldAt + hs);
        entry.newId = toHex(blk, v.newAt, v.newAt + hs);
        entry.name = utf8.decode(blk.subarray(v.nameAt, v.nameAt + v.nameLen));
        entry.email = utf8.decode(blk.subarray(v.emailAt, v.emailAt + v.emailLen));
        entry.time = v.time;
        entry.tzOffset = v.tz;
        entry.message = utf8.decode(blk.subarray(v.messageAt, v.messageAt + v.messageLen));
      }
      out.push(entry);
      return out.length < limit;
    },
    only,
  );
  return out;
}
