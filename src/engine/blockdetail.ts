/**
 * blockdetail: one block decoded for display, every byte accounted for.
 *
 * Where `table.ts` decodes blocks into columns for analysis, this module decodes a single block
 * into a list of records with the byte range of each field (prefix length varint, suffix
 * length/value type varint, key suffix, value fields), the restart table, the restart count and
 * the padding, so that a hex view can mark record boundaries and fields. A role per byte and the
 * record owning each byte come along, ready for display.
 *
 * Never throws for bad bytes: it decodes as far as it can and reports the first problem in
 * `error` (file offset and what was expected). Log blocks are shown inflated (their records are
 * zlib-compressed in the file): `inflated` says so and `compressedBytes` gives the size in the file.
 * Pure engine code: no DOM, no Node APIs.
 */
import { cursor, getVarint, u16, u24, toHex, displayName } from './basics.ts';
import type { BlockInfo, BlockType, SectionName, Table, TableHeader } from './reftable/table.ts';
import { inflateLogBlock, restartLayout, restartAt } from './reftable/block.ts';
import {
  RecordReader,
  KEY_PREFIX,
  KEY_SUFFIX,
  KEY_VARINT_BIG,
  isLogKey,
  logKeyUpdateIndex,
} from './reftable/record.ts';
import { BLOCK_HEADER_SIZE, MAX_BLOCK_SIZE } from './reftable/constants.ts';

/** What a byte is, for colouring a hex view. */
export const ROLE = {
  /** Not covered by anything decoded (after an error). */
  unknown: 0,
  /** The file header (first block only). */
  fileHeader: 1,
  /** Block type letter and the 3-byte block_len. */
  blockHeader: 2,
  /** Record: prefix length varint. */
  prefix: 3,
  /** Record: (suffix length << 3 | value type) varint. */
  suffixLen: 4,
  /** Record: the key suffix bytes. */
  suffix: 5,
  /** Record: the value. */
  value: 6,
  /** Restart table: 3-byte offsets. */
  restartTable: 7,
  /** The 2-byte restart count. */
  restartCount: 8,
  /** NUL padding up to the block size. */
  padding: 9,
} as const;
export type Role = (typeof ROLE)[keyof typeof ROLE];
/** Role names in `ROLE` order (for legends and class names). */
export const ROLE_NAMES = [
  'unknown',
  'fileHeader',
  'blockHeader',
  'prefix',
  'suffixLen',
  'suffix',
  'value',
  'restartTable',
  'restartCount',
  'padding',
] as const;

/** A byte range within `BlockDetail.bytes`: [start, end). */
export interface Span {
  start: number;
  end: number;
}

/** One decoded field of a record value. `text` is display text (names already Unicode). */
export interface ValueField extends Span {
  label: string;
  text: string;
}

/** What a record is. */
export type RecordKind = 'tombstone' | 'ref' | 'peeled' | 'symref' | 'index' | 'obj' | 'log' | 'log-deletion';

/** One record of the block. Positions are indexes into `BlockDetail.bytes`. */
export interface RecordDetail extends Span {
  /** Ordinal within the block. */
  index: number;
  /** True when the record sits at a restart point (its prefix length is 0 and the restart table names it). */
  restart: boolean;
  prefixLength: number;
  suffixLength: number;
  valueType: number;
  /** The prefix length varint. */
  prefix: Span;
  /** The suffix length / value type varint. */
  suffixLen: Span;
  /** The key suffix bytes. */
  suffix: Span;
  /** The whole value (may be empty, e.g. an index record's value is one varint, a log deletion none). */
  value: Span;
  /** The full key as display text: a ref name, a hex object id prefix (obj), `name @ update_index` (log). */
  key: string;
  kind: RecordKind;
  fields: ValueField[];
}

/** A block decoded for display. */
export interface BlockDetail {
  tableIndex: number;
  blockIndex: number;
  tableName: string;
  type: BlockType;
  section: SectionName;
  /** File offset of `bytes[0]` (the block's offset; 0 for the first block, which starts with the file header). */
  fileOffset: number;
  /**
   * The bytes shown: the block from its offset to the end of its padding. For a log block: the
   * block header as in the file, then the inflated records and restart table.
   */
  bytes: Uint8Array;
  /** True for log blocks: `bytes` after the block header are inflated, not file bytes. */
  inflated: boolean;
  /** Bytes the block occupies in the file (compressed size for log blocks, padding included otherwise). */
  fileBytes: number;
  /** The block_len field. */
  blockLen: number;
  hashSize: number;
  fileHeader: Span | null;
  blockHeader: Span;
  records: RecordDetail[];
  /** Restart offsets (positions in `bytes`, which are the block-relative offsets the format stores). */
  restartOffsets: number[];
  restartTable: Span;
  restartCount: Span;
  padding: Span | null;
  /** One `ROLE` per byte of `bytes`. */
  roles: Uint8Array;
  /** Record index owning each byte of `bytes`, -1 for none. */
  recordOf: Int32Array;
  /** First problem found, or null. `offset` is a file offset (or a position in the inflated block for logs). */
  error: { offset: number; expected: string } | null;
  /**
   * Set when the block holds more than `MAX_DETAIL_RECORDS` records: only the first ones are
   * listed, and this is the position in `bytes` where the next record starts (the bytes from
   * there to the restart table have role `unknown`). The block's own record count is in its
   * `BlockInfo`.
   */
  recordsCutAt?: number;
  /**
   * The block's records as its table's reading counted them (`BlockInfo.recordCount`): the
   * length of `records` unless `recordsCutAt` is set.
   */
  recordCount: number;
}

/**
 * Most records one block detail lists (a 16 MiB block can hold millions: each listed record is
 * a dozen objects and strings, and the view shows a few hundred at a time). A 64 KiB block of
 * git's holds about 2,000.
 */
export const MAX_DETAIL_RECORDS = 10_000;

/** Largest block shown: a block is at most 2^24 bytes by format. */
const MAX_SHOWN = MAX_BLOCK_SIZE + 1;

function spanOf(start: number, end: number): Span {
  return { start, end };
}

/** Display text of a key depending on the section it is a key of. */
function keyText(key: Uint8Array, section: SectionName): string {
  if (section === 'obj' || section === 'objIndex') return toHex(key);
  if (section === 'log' || section === 'logIndex') {
    // refname NUL reversed 8-byte update index
    if (isLogKey(key, key.length)) return `${nameText(key, 0, key.length - 9)} @ ${logKeyUpdateIndex(key, key.length)}`;
    return nameText(key, 0, key.length);
  }
  return nameText(key, 0, key.length);
}

function nameText(b: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let i = start; i < end; i++) s += String.fromCharCode(b[i]);
  return displayName(s);
}

function tzText(v: number): string {
  const m = v >= 0x8000 ? v - 0x10000 : v;
  const sign = m < 0 ? '-' : '+';
  const a = Math.abs(m);
  return `${sign}${String(Math.floor(a / 60)).padStart(2, '0')}${String(a % 60).padStart(2, '0')}`;
}

/**
 * What a block display needs of a table: a parsed `Table`, or the readable part of a damaged one
 * (reftable/table.ts `openPartial`, its `header` parsed) whose blocks before the first bad byte
 * the block map and hex view still show.
 */
export type BlockSourceTable = Pick<Table, 'name' | 'blocks' | 'source'> & { header: TableHeader };

/**
 * Decode block `blockIndex` of table `t` for display (see module comment).
 * `tableIndex` is only copied into the result.
 */
export function decodeBlockDetail(t: BlockSourceTable, blockIndex: number, tableIndex = 0): BlockDetail {
  const b: BlockInfo | undefined = t.blocks[blockIndex];
  if (!b) throw new RangeError(`block ${blockIndex} out of range (table has ${t.blocks.length})`);
  const h = t.header;
  const hs = h.hashSize;
  const first = b.offset === 0;
  const hdrAt = first ? h.headerSize : 0; // block header position within the block
  let error: BlockDetail['error'] = null;
  const fail = (pos: number, expected: string, base: number) => {
    if (!error) error = { offset: base + pos, expected };
  };

  let bytes: Uint8Array;
  let inflated = false;
  if (b.type === 'log') {
    inflated = true;
    const hl = hdrAt + BLOCK_HEADER_SIZE;
    const r = inflateLogBlock(
      (o, len) => t.source.read(o, len),
      b.offset,
      hl,
      Math.min(b.blockLen, MAX_SHOWN),
      b.offset + b.fileBytes,
      b.section,
    );
    bytes = r.block.slice();
    if (r.error) error = { offset: r.error.offset, expected: r.error.expected };
  } else {
    // Copy: the result is transferred to another thread, the table's buffer must stay.
    bytes = t.source.read(b.offset, Math.min(b.fileBytes, MAX_SHOWN)).slice();
  }
  const n = bytes.length;
  const roles = new Uint8Array(n);
  const recordOf = new Int32Array(n).fill(-1);
  const mark = (s: number, e: number, role: Role, rec = -1) => {
    const a = Math.max(0, s),
      z = Math.min(n, e);
    for (let i = a; i < z; i++) {
      roles[i] = role;
      if (rec >= 0) recordOf[i] = rec;
    }
  };

  const fileHeader = first ? spanOf(0, Math.min(n, h.headerSize)) : null;
  if (fileHeader) mark(fileHeader.start, fileHeader.end, ROLE.fileHeader);
  const blockHeader = spanOf(hdrAt, Math.min(n, hdrAt + 4));
  mark(blockHeader.start, blockHeader.end, ROLE.blockHeader);
  const blockLen = n >= hdrAt + 4 ? u24(bytes, hdrAt + 1) : 0;
  const end = Math.min(blockLen, n); // end of block proper (restart count included)
  const base = b.offset; // file offset of bytes[0] (only meaningful for non-inflated parts)

  // Restart table.
  const restartOffsets: number[] = [];
  let rt = end;
  let restartCount = spanOf(end, end);
  let restartTable = spanOf(end, end);
  if (end >= hdrAt + 6) {
    const layout = restartLayout(bytes, end);
    const rc = layout.count;
    restartCount = spanOf(end - 2, end);
    mark(end - 2, end, ROLE.restartCount);
    rt = layout.tableOffset;
    if (rc === 0) fail(end - 2, 'restart_count ≥ 1, found 0', base);
    if (rt < hdrAt + 4) {
      fail(end - 2, `restart table (${rc} × 3 bytes) inside the block`, base);
      rt = end - 2;
    } else {
      restartTable = spanOf(rt, end - 2);
      mark(rt, end - 2, ROLE.restartTable);
      for (let i = 0; i < rc; i++) restartOffsets.push(restartAt(bytes, rt, i));
    }
  } else fail(hdrAt, `a block of at least ${hdrAt + 6} bytes`, base);

  // Padding (aligned tables): bytes after block_len that belong to this block in the file.
  let padding: Span | null = null;
  if (!inflated && n > end) {
    padding = spanOf(end, n);
    mark(end, n, ROLE.padding);
  }

  // Records.
  const records: RecordDetail[] = [];
  const restartSet = new Set(restartOffsets);
  let pos = hdrAt + BLOCK_HEADER_SIZE;
  let key: Uint8Array = new Uint8Array(0);
  const section = b.section;
  const type = b.type;
  const rec = new RecordReader().reset(bytes, pos, rt);
  let recordsCutAt: number | undefined;
  while (pos < rt && !error) {
    const recStart = pos;
    if (records.length === MAX_DETAIL_RECORDS) {
      recordsCutAt = recStart;
      break;
    }
    rec.pos = pos;
    const code = rec.parseKey();
    const prefixLength = rec.prefixLength;
    const suffixLength = rec.suffixLength;
    if (code === KEY_PREFIX) {
      fail(recStart, `prefix length ≤ previous key length ${key.length}, found ${prefixLength}`, base);
      break;
    }
    if (code === KEY_SUFFIX) {
      fail(rec.errorAt, `key suffix of ${suffixLength} bytes inside the records`, base);
      break;
    }
    if (code < 0) {
      fail(
        rec.errorAt,
        code === KEY_VARINT_BIG ? 'a varint below 2^53' : 'a varint that ends inside the records',
        base,
      );
      break;
    }
    const prefixEnd = rec.prefixEnd;
    const swEnd = rec.suffixAt;
    const valueType = rec.valueType;
    key = rec.keyBytes();
    pos = rec.pos;
    const valueStart = pos;
    const fields: ValueField[] = [];
    let kind: RecordKind = 'ref';
    const varintField = (label: string): number => {
      const v = getVarint(bytes, pos, rt);
      if (v < 0) {
        fail(pos, `${label}: a varint that ends inside the records`, base);
        return -1;
      }
      fields.push({ label, start: pos, end: cursor.pos, text: String(v) });
      pos = cursor.pos;
      return v;
    };
    const rawField = (label: string, len: number, text: (s: number, e: number) => string): boolean => {
      if (len < 0 || pos + len > rt) {
        fail(pos, `${label} of ${len} bytes inside the records`, base);
        return false;
      }
      fields.push({ label, start: pos, end: pos + len, text: text(pos, pos + len) });
      pos += len;
      return true;
    };
    const hex = (s: number, e: number) => toHex(bytes, s, e);
    const text = (s: number, e: number) => nameText(bytes, s, e);
    if (type === 'ref') {
      const delta = varintField('update_index delta');
      if (delta >= 0) {
        fields[fields.length - 1].text = `${delta} (update_index ${h.minUpdateIndex + delta})`;
        if (valueType === 0) kind = 'tombstone';
        else if (valueType === 1) {
          kind = 'ref';
          rawField('object id', hs, hex);
        } else if (valueType === 2) {
          kind = 'peeled';
          if (rawField('object id', hs, hex)) rawField('peeled id', hs, hex);
        } else if (valueType === 3) {
          kind = 'symref';
          const tl = varintField('target length');
          if (tl >= 0) rawField('target', tl, text);
        } else fail(recStart, `ref value type 0..3, found ${valueType}`, base);
      }
    } else if (type === 'index') {
      kind = 'index';
      if (valueType !== 0) fail(recStart, `index record value type 0, found ${valueType}`, base);
      else varintField('block position');
    } else if (type === 'obj') {
      kind = 'obj';
      let cnt = valueType;
      if (cnt === 0) cnt = varintField('position count');
      let last = 0;
      for (let k = 0; k < cnt && !error; k++) {
        const d = varintField(k === 0 ? 'first block position' : 'position delta');
        if (d < 0) break;
        last = k === 0 ? d : last + d;
        if (k > 0) fields[fields.length - 1].text = `+${d} → ${last}`;
      }
    } else {
      // log
      if (valueType === 0) kind = 'log-deletion';
      else if (valueType === 1) {
        kind = 'log';
        if (rawField('old id', hs, hex) && rawField('new id', hs, hex)) {
          const nl = varintField('name length');
          if (nl >= 0 && rawField('name', nl, text)) {
            const el = varintField('email length');
            if (el >= 0 && rawField('email', el, text)) {
              const tm = varintField('time');
              if (tm >= 0) {
                fields[fields.length - 1].text = `${tm} (${new Date(tm * 1000).toISOString().replace('.000Z', 'Z')})`;
                if (rawField('tz offset', 2, (s) => tzText(u16(bytes, s)))) {
                  const ml = varintField('message length');
                  if (ml >= 0) rawField('message', ml, text);
                }
              }
            }
          }
        }
      } else fail(recStart, `log value type 0 or 1, found ${valueType}`, base);
    }
    const idx = records.length;
    const restart = restartSet.has(recStart);
    records.push({
      index: idx,
      start: recStart,
      end: pos,
      restart,
      prefixLength,
      suffixLength,
      valueType,
      prefix: spanOf(recStart, prefixEnd),
      suffixLen: spanOf(prefixEnd, swEnd),
      suffix: spanOf(swEnd, swEnd + suffixLength),
      value: spanOf(valueStart, pos),
      key: keyText(key, section),
      kind,
      fields,
    });
    mark(recStart, prefixEnd, ROLE.prefix, idx);
    mark(prefixEnd, swEnd, ROLE.suffixLen, idx);
    mark(swEnd, swEnd + suffixLength, ROLE.suffix, idx);
    mark(valueStart, pos, ROLE.value, idx);
    if (restart && prefixLength !== 0) fail(recStart, 'prefix length 0 at a restart point', base);
    if (idx === 0 && !restart && restartOffsets.length)
      fail(recStart, 'the first record of a block at a restart point', base);
  }
  if (!error && recordsCutAt === undefined) {
    const starts = new Set(records.map((r) => r.start));
    for (let i = 0; i < restartOffsets.length; i++) {
      if (!starts.has(restartOffsets[i])) {
        fail(rt + 3 * i, `restart offset ${i} (${restartOffsets[i]}) at a record boundary`, base);
        break;
      }
    }
  }
  return {
    tableIndex,
    blockIndex,
    tableName: t.name,
    type,
    section,
    fileOffset: b.offset,
    bytes,
    inflated,
    fileBytes: b.fileBytes,
    blockLen,
    hashSize: hs,
    fileHeader,
    blockHeader,
    records,
    restartOffsets,
    restartTable,
    restartCount,
    padding,
    roles,
    recordOf,
    error,
    ...(recordsCutAt !== undefined ? { recordsCutAt } : {}),
    recordCount: recordsCutAt !== undefined ? Math.max(b.recordCount, records.length) : records.length,
  };
}
