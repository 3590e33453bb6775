/**
 * history: every record a stack holds for one ref name, newest table first, and which one git
 * reads. A stack keeps a name's older records until a compaction drops them: git's merged
 * iterator (reftable/merged.c `merged_iter_next_entry`) takes the record of the newest table that
 * has the key and skips the same key in every older table, so the newest record wins and shadows
 * all older ones; a winning deletion (value type 0, a tombstone) makes the name absent.
 *
 * Each table is read with one point seek (reftable/seek.ts `seekRef`, as git's
 * `reftable_table_seek_ref`), never by scanning its records; the reflog entries come from the log
 * blocks whose key range can hold the name (Documentation/technical/reftable.adoc "Log block
 * format": key = refname NUL reverse_int64(update_index)), newest first. Pure engine code.
 */
import { FormatError, textToKey, toHex } from './basics.ts';
import type { Table, BlockInfo } from './reftable/table.ts';
import { seekRef, newCounters, type SeekCounters } from './reftable/seek.ts';
import { readLogs, type LogRecord } from './logs.ts';
import type { Analysis } from './analyze.ts';

export type RecordKind = 'value' | 'peeled' | 'symref' | 'tombstone';

/** One ref record of the name in one table. */
export interface HistoryRecord {
  /** Table file name. */
  table: string;
  /** Position of the table in `tables.list` (oldest = 0). */
  tableIndex: number;
  /** The record's update_index (the table's min_update_index plus its delta). */
  updateIndex: number;
  kind: RecordKind;
  /** Object id (hex) for `value` and `peeled`. */
  oid?: string;
  /** Peeled object id (hex) for `peeled`. */
  peeled?: string;
  /** Target ref name (byte string) for `symref`. */
  target?: string;
  /** The record git reads for this name (the newest). */
  wins: boolean;
  /** Table of the newer record that shadows this one; null for the winner. */
  shadowedBy: string | null;
  /** Tables of the older records this one shadows (a tombstone that wins hides them all). */
  hides: string[];
}

/** One reflog entry of the name. */
export interface HistoryLog extends LogRecord {
  /** Table file name it was read from. */
  table: string;
  tableIndex: number;
  /**
   * False when a newer table holds a log record with the same key (name and update_index): git's
   * merged log iterator reads the newest one only.
   */
  wins: boolean;
}

/** Everything the stack holds about one name. */
export interface RefHistory {
  /** The name (byte string). */
  name: string;
  /** Records, newest table first. */
  records: HistoryRecord[];
  /** Whether the name is a live ref (a winner that is not a tombstone). */
  live: boolean;
  /** Reflog entries, newest first (update_index descending, newer table first). */
  logs: HistoryLog[];
  /** Tables in the stack and tables that could be read (a broken table is skipped). */
  tables: number;
  tablesRead: number;
  /** Work done: one seek per table; blocks and records decoded by the seeks. */
  seek: SeekCounters;
  /** Log blocks inflated (only those whose first/last key range can hold the name). */
  logBlocksRead: number;
}

const KIND: RecordKind[] = ['tombstone', 'value', 'peeled', 'symref'];

/**
 * The history of `name` (Unicode text or a byte string) in a reftable analysis. Throws
 * `FormatError` for input that is not a reftable stack (packed-refs and loose refs keep one
 * record per name) or an empty name.
 */
export function refHistory(a: Analysis, name: string): RefHistory {
  if (!a.stack) {
    throw new FormatError(
      a.input.description || '(input)',
      0,
      `a reftable stack (a ref's history is its records across tables); found ${a.input.kind} input`,
    );
  }
  if (!name) throw new FormatError('(ref name)', 0, 'a ref name; found an empty string');
  return historyOfTables(a.stack.tables, textToKey(name));
}

/** `refHistory` on a stack's tables (oldest first; null = unreadable table, skipped). */
export function historyOfTables(tables: (Table | null)[], key: string): RefHistory {
  const seek = newCounters();
  const records: HistoryRecord[] = [];
  const logs: HistoryLog[] = [];
  let read = 0;
  let logBlocksRead = 0;
  const lo = key + '\0';
  const hi = key + '\0\xff\xff\xff\xff\xff\xff\xff\xff';
  // A log block can hold the name's entries when its key range meets [name NUL, name NUL ff…].
  const mayHold = (b: BlockInfo): boolean => {
    const ok = !b.firstKey || !(b.lastKey < lo || b.firstKey > hi);
    if (ok) logBlocksRead++;
    return ok;
  };
  for (let ti = tables.length - 1; ti >= 0; ti--) {
    const t = tables[ti];
    if (!t) continue;
    read++;
    const s = seekRef(t, key, seek);
    if (s.exact) records.push(recordOf(t, ti, s.index));
    for (const l of readLogs(t, Infinity, mayHold)) {
      if (l.refname === key) logs.push({ ...l, table: t.name, tableIndex: ti, wins: true });
    }
  }
  records.forEach((r, i) => {
    r.wins = i === 0;
    r.shadowedBy = i === 0 ? null : records[0].table;
    r.hides = records.slice(i + 1).map((o) => o.table);
  });
  // Newest first; for one update_index the newer table first, and only its entry counts.
  logs.sort((x, y) => y.updateIndex - x.updateIndex || y.tableIndex - x.tableIndex);
  for (let i = 1; i < logs.length; i++) if (logs[i].updateIndex === logs[i - 1].updateIndex) logs[i].wins = false;
  return {
    name: key,
    records,
    live: records.length > 0 && records[0].kind !== 'tombstone',
    logs,
    tables: tables.length,
    tablesRead: read,
    seek,
    logBlocksRead,
  };
}

function recordOf(t: Table, ti: number, i: number): HistoryRecord {
  const c = t.refs;
  const hs = t.header.hashSize;
  const kind = KIND[c.types[i]] ?? 'value';
  const r: HistoryRecord = {
    table: t.name,
    tableIndex: ti,
    updateIndex: c.updateIndex[i],
    kind,
    wins: false,
    shadowedBy: null,
    hides: [],
  };
  if (kind === 'value' || kind === 'peeled') r.oid = toHex(c.oids, i * hs, (i + 1) * hs);
  if (kind === 'peeled') r.peeled = toHex(c.peeled.get(i)!, 0, hs);
  if (kind === 'symref') r.target = c.targets.get(i)!;
  return r;
}
