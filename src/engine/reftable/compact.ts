/**
 * compact: real compaction and conversion. Merges a segment of a reftable stack into one new table
 * (what `git pack-refs [--auto]` / `git refs optimize` write), converts a files-backend repository
 * (packed-refs, loose refs, reflogs) into a one-table reftable stack (what `git refs migrate
 * --ref-format=reftable` writes), and zips a stack for download.
 *
 * Sources (read, not copied): git's `reftable/stack.c` (`stack_compact_range`,
 * `stack_write_compact`, `reftable_stack_compact_all`, `reftable_stack_auto_compact`), git's
 * `refs.c` (`repo_migrate_ref_storage_format`, `migrate_one_ref`, `migrate_one_reflog_entry`) and
 * `refs/reftable-backend.c` (`write_transaction_table`), the format specification
 * (`Documentation/technical/reftable.adoc`, "Compaction").
 *
 * Pure TypeScript: no DOM, no Node APIs (the worker, the CLI and the tests share it).
 */
import { zipSync } from 'fflate';
import { FormatError, bytesToKey, fromHex } from '../basics.ts';
import { eachLogRecord } from './block.ts';
import { logKeyUpdateIndex } from './record.ts';
import { LOG_KEY_SUFFIX, LOG_UPDATE } from './constants.ts';
import type { Table } from './table.ts';
import { type Stack } from './stack.ts';
import { lowerBound, mergeTables } from './merged.ts';
import { WriterError, tableFileName, writeTable, type LogRecordIn, type RefRecordIn } from './writer.ts';
import { gitAutoCompaction, gitAutoCompactionWithLocks, type Segment, type StackLocks } from './auto-compaction.ts';
import {
  type FilesRepo,
  type PackedRefs,
  type PackedRecord,
  checkRefnameFormat,
  mergedEntries,
  packedIterationOrder,
  parseReflog,
} from '../files.ts';

/** Layout options of a written table; defaults are git's (`reftable.*` config defaults). */
export interface TableLayoutOptions {
  /** Block size, default 4096 (git's `reftable.blockSize`); git uses its config, not the input tables' block size. */
  blockSize?: number;
  /** Restart interval, default 16 (git's `reftable.restartInterval`). */
  restartInterval?: number;
  /** Write the obj index, default true (git's `reftable.indexObjects`). */
  indexObjects?: boolean;
  /** The 32-bit random part of the new table's name (git: `git_rand()`); default a random number. */
  random?: number;
}

/** Options of `compactSegment` / `compactAll` / `compactAuto`. */
export interface CompactOptions extends TableLayoutOptions {
  /**
   * Which deletions (ref tombstones and log deletions) are dropped:
   * - `'git'` (default): all of them, but only when the segment starts at the base table (git's
   *   `stack_write_compact`: `first == 0`); a segment higher up carries every one forward.
   * - `'spec'`: the specification's rule ("omitting deleted references that do not appear in
   *   remaining, lower reftables"): also drop a deletion whose key no table below the segment
   *   has. Git never does this; the result is still a valid stack with the same merged view.
   */
  dropDeletions?: 'git' | 'spec';
}

/** Counts of what a compaction read, merged away, dropped and wrote. */
export interface CompactStats {
  /** Tables merged and their total file size. */
  tablesIn: number;
  bytesIn: number;
  /** Ref / log records read from the segment. */
  refsIn: number;
  logsIn: number;
  /** Records that lost to a newer record of the same key (ref name; log name + update index). */
  shadowedRefs: number;
  shadowedLogs: number;
  /** Deletions dropped (see `CompactOptions.dropDeletions`). */
  tombstonesDropped: number;
  logDeletionsDropped: number;
  /** Deletions written (carried forward). */
  tombstonesKept: number;
  logDeletionsKept: number;
  /** Ref / log records written. */
  refsOut: number;
  logsOut: number;
}

/** Result of a compaction. */
export interface CompactResult {
  /** Tables merged (indexes into `stack.tables`, oldest = 0, end inclusive). */
  segment: Segment;
  /** False when nothing was written: git leaves a stack of one table alone (`compactAll`). */
  changed: boolean;
  /** Name of the new table, `0x{min}-0x{max}-{random}.ref` (git's `format_name`). */
  name: string;
  /** The new table's bytes. */
  bytes: Uint8Array;
  /**
   * The merged segment held nothing (every ref cancelled by tombstones, no logs): git writes the
   * table to a temporary file, drops it and leaves it out of `tables.list` (its
   * `REFTABLE_EMPTY_TABLE_ERROR` path). `bytes` is then header + footer and not listed.
   */
  empty: boolean;
  /** `min_update_index` / `max_update_index` of the new table: the first table's min and the last one's max. */
  minUpdateIndex: number;
  maxUpdateIndex: number;
  /** The new `tables.list`, oldest first: tables before the segment, the new table, tables after it. */
  names: string[];
  /** `names` as file text (one name per line, LF-terminated). */
  tablesList: string;
  /**
   * Deletions were dropped: with git's rule exactly when the segment starts at the base table.
   * The UI should say that the specification would allow more (see `specDroppable`).
   */
  dropsDeletions: boolean;
  /**
   * Deletions carried forward (git's rule) that the specification's rule would allow to drop,
   * because no table below the segment has their key. 0 when the segment starts at the base.
   */
  specDroppable: { tombstones: number; logDeletions: number };
  stats: CompactStats;
}

/** A file to put into a `reftable/` directory or zip. */
export interface StackFile {
  name: string;
  bytes: Uint8Array;
}

// ---------------------------------------------------------------------------------------------
// reading records back as writer input
// ---------------------------------------------------------------------------------------------

/** Every ref record of `t` as writer input (ids are views on the table's columns). */
export function tableRefRecords(t: Table): RefRecordIn[] {
  const r = t.refs;
  const hs = t.header.hashSize;
  const out: RefRecordIn[] = new Array(r.count);
  for (let i = 0; i < r.count; i++) out[i] = refRecordAt(t, i, hs);
  return out;
}

function refRecordAt(t: Table, i: number, hs: number): RefRecordIn {
  const r = t.refs;
  const type = r.types[i] as 0 | 1 | 2 | 3;
  const rec: RefRecordIn = { name: r.names[i], updateIndex: r.updateIndex[i], type };
  if (type === 1 || type === 2) rec.value = r.oids.subarray(i * hs, (i + 1) * hs);
  if (type === 2) rec.peeled = r.peeled.get(i);
  if (type === 3) rec.target = r.targets.get(i);
  return rec;
}

/**
 * Every log record of `t` as writer input, in file order (name ascending, update index
 * descending). Names, committer names, e-mails and messages stay byte strings (no UTF-8
 * decoding), so a compaction copies them exactly. The table must have been accepted by
 * `openTable` (which checked every log block); a log block that does not inflate throws
 * `FormatError`.
 */
export function tableLogRecords(t: Table): LogRecordIn[] {
  const out: LogRecordIn[] = [];
  const hs = t.header.hashSize;
  eachLogRecord(t, (rec, v, blk) => {
    const kl = rec.keyLen;
    const type = rec.valueType;
    const logRec: LogRecordIn = {
      name: bytesToKey(rec.key, 0, kl - LOG_KEY_SUFFIX),
      updateIndex: logKeyUpdateIndex(rec.key, kl),
      type: type === LOG_UPDATE ? 1 : 0,
    };
    if (type === LOG_UPDATE) {
      logRec.oldId = blk.slice(v.oldAt, v.oldAt + hs);
      logRec.newId = blk.slice(v.newAt, v.newAt + hs);
      logRec.committerName = bytesToKey(blk, v.nameAt, v.nameAt + v.nameLen);
      logRec.email = bytesToKey(blk, v.emailAt, v.emailAt + v.emailLen);
      logRec.time = v.time;
      logRec.tzOffset = v.tz;
      logRec.message = bytesToKey(blk, v.messageAt, v.messageAt + v.messageLen);
    }
    out.push(logRec);
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// compaction
// ---------------------------------------------------------------------------------------------

/**
 * Run the writer; a record it refuses is reported against the input file that holds it
 * (`fileOf(key)`), with what was being done, as the one error type of the engine.
 */
function writeOrSay<T>(write: () => T, fileOf: (key: string) => string, doing: string): T {
  try {
    return write();
  } catch (e) {
    if (e instanceof WriterError) {
      throw new WriterError(`${e.expected} (${doing})`, e.key !== undefined ? fileOf(e.key) : e.file, e.offset, e.key);
    }
    throw e;
  }
}

function randomSuffix(opts: TableLayoutOptions): number {
  return opts.random === undefined ? Math.floor(Math.random() * 4294967296) : opts.random >>> 0;
}

function listText(names: string[]): string {
  return names.map((n) => n + '\n').join('');
}

/** The table at `i`, or the `FormatError` that made it unreadable. */
function tableAt(stack: Stack, i: number): Table {
  const t = stack.tables[i];
  if (t) return t;
  const name = stack.names[i];
  const b = stack.broken.find((x) => x.name === name);
  throw b ? b.error : new FormatError(name ?? '(table)', -1, 'a readable table');
}

/** Log sort order: name ascending (byte order), update index descending. */
function cmpLog(a: LogRecordIn, b: LogRecordIn): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return b.updateIndex - a.updateIndex;
}

/**
 * Compact tables `segment.start..segment.end` (inclusive, oldest = 0) of `stack` into one table,
 * as git's `stack_compact_range` does:
 * - refs: the merged view of the segment, the newest table's record winning per name;
 * - logs: likewise per key (ref name, update index);
 * - ref tombstones and log deletions are dropped **only when the segment starts at the base
 *   table** (git: `first == 0`). A segment higher up carries them forward, because an older table
 *   outside the segment may still hold the records they hide. The specification allows more: it
 *   omits "deleted references that do not appear in remaining, lower reftables". `specDroppable`
 *   counts the deletions that rule would drop, and `dropDeletions: 'spec'` applies it;
 * - the new table gets `min_update_index` of the segment's first table and `max_update_index` of
 *   its last (git's `reftable_writer_set_limits` and `format_name`), the segment's hash (v1 for
 *   SHA-1, v2 for SHA-256), and git's default layout (block size 4096, restart interval 16, obj
 *   index) unless `opts` says otherwise;
 * - log messages go through the writer as git's compaction writes them (`reftable_writer_add_log`:
 *   trailing newlines stripped, one `\n` appended; a message with an inner newline makes git's
 *   compaction fail, and this one throws `WriterError`).
 * Tables outside the segment are not read. A segment of one table is rewritten (git itself never
 * compacts a single table: see `compactAll`).
 * @throws RangeError for a segment outside the stack; `FormatError` when a table of the segment
 *   could not be read; `Error` when the segment mixes hash functions; `WriterError` when git's
 *   writer would refuse a record too (an update index outside the new bounds, a multi-line log
 *   message, a record larger than a block).
 */
export function compactSegment(stack: Stack, segment: Segment, opts: CompactOptions = {}): CompactResult {
  const n = stack.tables.length;
  const { start, end } = segment;
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start || end >= n) {
    throw new RangeError(`segment ${start}..${end} outside the stack of ${n} table(s)`);
  }
  const seg: Table[] = [];
  for (let i = start; i <= end; i++) seg.push(tableAt(stack, i));
  const hashId = seg[0].header.hashId;
  const mixed = seg.find((t) => t.header.hashId !== hashId);
  if (mixed)
    throw new FormatError(
      mixed.path,
      0,
      `the hash of the other tables of the segment (${hashId}), found ${mixed.header.hashId} (git calls such a stack corrupt)`,
    );
  const hs = seg[0].header.hashSize;
  const atBase = start === 0;
  const spec = opts.dropDeletions === 'spec';
  const lower: (Table | null)[] = stack.tables.slice(0, start);

  // ---- refs: the segment's merged view ----
  const m = mergeTables(seg);
  const refs: RefRecordIn[] = [];
  let tombstonesDropped = 0,
    tombstonesKept = 0,
    specTomb = 0;
  const inLower = (key: string): boolean =>
    lower.some((t) => {
      if (!t) return true; // unreadable: it may hold the key
      const names = t.refs.names;
      const j = lowerBound(names, key);
      return j < names.length && names[j] === key;
    });
  for (let k = 0; k < m.count; k++) {
    const t = seg[m.table[k]];
    const r = m.rec[k];
    if (t.refs.types[r] === 0) {
      if (atBase) {
        tombstonesDropped++;
        continue;
      }
      if (!inLower(m.keys[k])) {
        specTomb++;
        if (spec) {
          tombstonesDropped++;
          continue;
        }
      }
      tombstonesKept++;
    }
    refs.push(refRecordAt(t, r, hs));
  }
  let refsIn = 0;
  for (const t of seg) refsIn += t.refs.count;

  // ---- logs: newest record per (name, update index) ----
  // A file named on several lines of tables.list is one parsed Table: its log records are the
  // same at every position, and the newest position wins each of their keys. So each distinct
  // Table is decoded once, tagged with its newest position; its older positions only add to the
  // counts (records in, shadowed). The work grows with the distinct tables, not the lines.
  const tagged: { rec: LogRecordIn; table: number }[] = [];
  const newest = new Map<Table, number>();
  const copies = new Map<Table, number>();
  seg.forEach((t, ti) => {
    newest.set(t, ti);
    copies.set(t, (copies.get(t) ?? 0) + 1);
  });
  let logsIn = 0,
    olderCopyLogs = 0;
  for (const [t, ti] of newest) {
    if (t.counts.log + t.counts.logDeletion === 0 && !t.blocks.some((b) => b.type === 'log')) continue;
    const recs = tableLogRecords(t);
    for (const rec of recs) tagged.push({ rec, table: ti });
    const k = copies.get(t)!;
    logsIn += k * recs.length;
    olderCopyLogs += (k - 1) * recs.length;
  }
  tagged.sort((a, b) => cmpLog(a.rec, b.rec) || b.table - a.table);
  let lowerLogKeys: Set<string> | null = null;
  const logKey = (l: LogRecordIn): string => `${l.name}\0${l.updateIndex}`;
  const inLowerLogs = (l: LogRecordIn): boolean => {
    if (lower.some((t) => !t)) return true;
    if (!lowerLogKeys) {
      lowerLogKeys = new Set();
      for (const t of new Set(lower)) for (const x of tableLogRecords(t!)) lowerLogKeys.add(logKey(x));
    }
    return lowerLogKeys.has(logKey(l));
  };
  const logs: LogRecordIn[] = [];
  let shadowedLogs = olderCopyLogs,
    logDeletionsDropped = 0,
    logDeletionsKept = 0,
    specLogDel = 0;
  for (let i = 0; i < tagged.length; i++) {
    const rec = tagged[i].rec;
    if (i > 0 && cmpLog(tagged[i - 1].rec, rec) === 0) {
      shadowedLogs++;
      continue;
    }
    if (rec.type === 0) {
      if (atBase) {
        logDeletionsDropped++;
        continue;
      }
      if (!inLowerLogs(rec)) {
        specLogDel++;
        if (spec) {
          logDeletionsDropped++;
          continue;
        }
      }
      logDeletionsKept++;
    }
    logs.push(rec);
  }

  const minUpdateIndex = seg[0].header.minUpdateIndex;
  const maxUpdateIndex = seg[seg.length - 1].header.maxUpdateIndex;
  const bytes = writeOrSay(
    () =>
      writeTable(refs, logs, {
        hashId,
        blockSize: opts.blockSize ?? 4096,
        restartInterval: opts.restartInterval ?? 16,
        indexObjects: opts.indexObjects ?? true,
        minUpdateIndex,
        maxUpdateIndex,
      }),
    (key) => {
      // the newest table of the segment holding the refused record names it
      for (let i = seg.length - 1; i >= 0; i--) {
        const names = seg[i].refs.names;
        const j = lowerBound(names, key);
        if (j < names.length && names[j] === key) return seg[i].path;
      }
      return seg[seg.length - 1].path;
    },
    `compacting tables ${start}–${end}`,
  );
  const name = tableFileName(minUpdateIndex, maxUpdateIndex, randomSuffix(opts));
  const empty = refs.length === 0 && logs.length === 0;
  const names = [...stack.names.slice(0, start), ...(empty ? [] : [name]), ...stack.names.slice(end + 1)];
  return {
    segment: { start, end },
    changed: true,
    name,
    bytes,
    empty,
    minUpdateIndex,
    maxUpdateIndex,
    names,
    tablesList: listText(names),
    dropsDeletions: atBase || (spec && tombstonesDropped + logDeletionsDropped > 0),
    specDroppable: { tombstones: atBase ? 0 : specTomb, logDeletions: atBase ? 0 : specLogDel },
    stats: {
      tablesIn: seg.length,
      bytesIn: seg.reduce((s, t) => s + t.fileSize, 0),
      refsIn,
      logsIn,
      shadowedRefs: m.shadowed.reduce((s, x) => s + x, 0),
      shadowedLogs,
      tombstonesDropped,
      logDeletionsDropped,
      tombstonesKept,
      logDeletionsKept,
      refsOut: refs.length,
      logsOut: logs.length,
    },
  };
}

/**
 * `git pack-refs` / `git refs optimize` (no `--auto`): the whole stack into one table
 * (`reftable_stack_compact_all`), dropping every tombstone and log deletion. Like git, a stack of
 * a single table is left alone (`changed: false`, `bytes` = that table's bytes, same
 * `tables.list`). Throws `RangeError` for an empty stack, and as `compactSegment`.
 */
export function compactAll(stack: Stack, opts: CompactOptions & { locks?: StackLocks } = {}): CompactResult {
  const n = stack.tables.length;
  if (n === 0) throw new RangeError('an empty stack has nothing to compact');
  if (n > 1) {
    // git's stack_compact_range without best effort: any lock on the way fails the whole run.
    const l = opts.locks;
    if (l?.tablesList) throw lockedError(stack, 'tables.list.lock', 'git pack-refs to find tables.list unlocked');
    const i = l ? l.tables.lastIndexOf(true) : -1;
    if (i >= 0)
      throw lockedError(
        stack,
        `${stack.names[i]}.lock`,
        `git pack-refs to lock every table (it fails with "unable to compact stack: data is locked": table ${i} is locked)`,
      );
    return compactSegment(stack, { start: 0, end: n - 1 }, opts);
  }
  const t = tableAt(stack, 0);
  const bytes = t.source.read(0, t.fileSize);
  const records = t.counts.ref + t.counts.peeled + t.counts.symref + t.counts.tombstone;
  const logs = t.counts.log + t.counts.logDeletion;
  return {
    segment: { start: 0, end: 0 },
    changed: false,
    name: stack.names[0],
    bytes,
    empty: false,
    minUpdateIndex: t.header.minUpdateIndex,
    maxUpdateIndex: t.header.maxUpdateIndex,
    names: stack.names.slice(),
    tablesList: listText(stack.names),
    dropsDeletions: false,
    specDroppable: { tombstones: 0, logDeletions: 0 },
    stats: {
      tablesIn: 1,
      bytesIn: t.fileSize,
      refsIn: records,
      logsIn: logs,
      shadowedRefs: 0,
      shadowedLogs: 0,
      tombstonesDropped: 0,
      logDeletionsDropped: 0,
      tombstonesKept: t.counts.tombstone,
      logDeletionsKept: t.counts.logDeletion,
      refsOut: records,
      logsOut: logs,
    },
  };
}

/** File sizes and format versions of the stack's tables (broken tables: their file size, v1). */
function stackSizes(stack: Stack): { sizes: number[]; versions: (1 | 2)[] } {
  const sizes = stack.tables.map(
    (t, i) => t?.fileSize ?? stack.broken.find((b) => b.name === stack.names[i])?.fileSize ?? 0,
  );
  const versions = stack.tables.map((t) => (t?.header.version ?? 1) as 1 | 2);
  return { sizes, versions };
}

/**
 * `git pack-refs --auto`: git's geometric rule (`gitAutoCompaction`, factor 2..255, default 2)
 * picks the segment, which `compactSegment` merges. Returns null when the rule finds nothing to
 * compact (git then leaves the stack as it is). With `locks` (see `analyze.stackLocks`) the
 * segment is narrowed as git narrows it (`gitAutoCompactionWithLocks`), and a stack git would
 * refuse to compact ("data is locked") throws `FormatError` naming the lock file.
 */
export function compactAuto(
  stack: Stack,
  opts: CompactOptions & { factor?: number; locks?: StackLocks } = {},
): CompactResult | null {
  const { sizes, versions } = stackSizes(stack);
  if (!opts.locks) {
    const seg = gitAutoCompaction(sizes, versions, opts.factor ?? 2).segment;
    return seg ? compactSegment(stack, seg, opts) : null;
  }
  const r = gitAutoCompactionWithLocks(sizes, versions, opts.factor ?? 2, opts.locks);
  if (r.outcome === 'list-locked')
    throw lockedError(stack, 'tables.list.lock', 'git pack-refs --auto to find tables.list unlocked');
  if (r.outcome === 'locked')
    throw lockedError(stack, '', `git pack-refs --auto to lock at least two tables of the segment (${r.reason})`);
  return r.segment ? compactSegment(stack, r.segment, opts) : null;
}

/** Git fails on a locked stack with "data is locked": the same refusal as the engine's one error. */
function lockedError(stack: Stack, lock: string, expected: string): FormatError {
  const dir = stack.listPath.includes('/') ? stack.listPath.slice(0, stack.listPath.lastIndexOf('/') + 1) : '';
  return new FormatError(
    lock ? dir + lock : stack.listPath,
    -1,
    `${expected}; git refuses while the lock file exists ("data is locked")`,
  );
}

/**
 * The files of the stack after `result`: `tables.list` first, then the new table (unless empty or
 * unchanged) and every table outside the segment with its bytes unchanged, in `tables.list` order.
 * @throws FormatError when a table outside the segment could not be read (its bytes are unknown
 *   to the engine; the CLI copies such a file from disk instead).
 */
export function stackFilesAfter(stack: Stack, result: CompactResult): StackFile[] {
  const out: StackFile[] = [{ name: 'tables.list', bytes: new TextEncoder().encode(result.tablesList) }];
  for (const name of result.names) {
    if (result.changed && name === result.name) {
      out.push({ name, bytes: result.bytes });
      continue;
    }
    const i = stack.names.indexOf(name);
    const t = tableAt(stack, i);
    out.push({ name, bytes: t.source.read(0, t.fileSize) });
  }
  return out;
}

/** The files of the stack as it is: `tables.list` and every listed table, unchanged. */
export function stackFiles(stack: Stack): StackFile[] {
  const out: StackFile[] = [{ name: 'tables.list', bytes: new TextEncoder().encode(listText(stack.names)) }];
  stack.names.forEach((name, i) => {
    const t = tableAt(stack, i);
    out.push({ name, bytes: t.source.read(0, t.fileSize) });
  });
  return out;
}

/**
 * A zip (fflate `zipSync`) holding a `reftable/` folder with `files` (table files and
 * `tables.list`), for the web app's download. Tables are stored with deflate level 6 (ref blocks
 * compress well, log blocks are already compressed).
 * @param opts.mtime modification time of every entry (default now); fixed for reproducible zips.
 */
export function zipStack(files: StackFile[], opts: { mtime?: Date } = {}): Uint8Array {
  const dir: Record<string, Uint8Array> = {};
  for (const f of files) {
    if (!/^[^/\\]+$/.test(f.name) || f.name === '.' || f.name === '..')
      throw new RangeError(`not a plain file name: ${JSON.stringify(f.name)}`);
    dir[f.name] = f.bytes;
  }
  return zipSync({ reftable: dir }, { level: 6, ...(opts.mtime ? { mtime: opts.mtime } : {}) });
}

// ---------------------------------------------------------------------------------------------
// conversion: files backend → reftable
// ---------------------------------------------------------------------------------------------

/** Options of `convertFilesToReftable`. */
export interface ConvertOptions extends TableLayoutOptions {
  /** Leave reflogs out (`git refs migrate --no-reflog`). Default false. */
  noReflog?: boolean;
}

/** A ref or reflog the conversion left out, and why. */
export interface ConvertSkip {
  name: string;
  reason: string;
}

/** Result of `convertFilesToReftable`. */
export interface ConvertResult {
  /** Table name: `0x000000000001-0x{max}-{random}.ref`. */
  name: string;
  bytes: Uint8Array;
  /** `tables.list` text: the one table. */
  tablesList: string;
  /** Always 1: the migration is one transaction on an empty stack. */
  minUpdateIndex: number;
  /** 1 + (reflog entries − 1): each reflog entry gets its own update index (git ≥ 2.48). */
  maxUpdateIndex: number;
  hashId: 'sha1' | 's256';
  /** Records written by type. */
  refs: { direct: number; peeled: number; symref: number };
  logs: number;
  /**
   * Refs written with one object id whose peeled value is unknown here: loose refs, and packed
   * refs the header does not vouch for (no `fully-peeled`, and for `peeled` outside
   * refs/tags/). Git peels every ref through the object database, so one pointing at an annotated
   * tag gets a peeled value (value type 2) in git's table; here only `^` lines give one.
   */
  unpeeled: number;
  /** Refs and reflogs left out (git's migration would fail on them: bad names, broken refs, duplicates). */
  skipped: ConvertSkip[];
}

function isPackedRefs(x: FilesRepo | PackedRefs): x is PackedRefs {
  return (x as PackedRefs).claimsSorted !== undefined && (x as FilesRepo).loose === undefined;
}

function oidBytes(hex: string, hs: number, what: string): Uint8Array {
  const b = fromHex(hex);
  if (!b || b.length !== hs)
    throw new FormatError(what, -1, `a ${hs}-byte object id, found ${JSON.stringify(hex.slice(0, 80))}`);
  return b;
}

/** git's `copy_reflog_msg`: leading whitespace dropped, runs of whitespace to one space, trailing trimmed. */
function normalizeReflogMessage(msg: string): string {
  let out = '';
  let wasSpace = true;
  for (let i = 0; i < msg.length; i++) {
    let c = msg[i];
    const sp = c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\v' || c === '\f';
    if (wasSpace && sp) continue;
    wasSpace = sp;
    if (sp) c = ' ';
    out += c;
  }
  return out.replace(/ +$/, '');
}

/** Compare ref paths component by component, as git's sorted directory walk yields them. */
function cmpPathComponents(a: string, b: string): number {
  const pa = a.split('/');
  const pb = b.split('/');
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    if (pa[i] !== pb[i]) return pa[i] < pb[i] ? -1 : 1;
  }
  return pa.length - pb.length;
}

/** Split `Name <email>` as git's `split_ident_line` does (name trimmed, email between `<` and `>`). */
function splitIdent(ident: string): { name: string; email: string } {
  const lt = ident.indexOf('<');
  const gt = ident.lastIndexOf('>');
  if (lt < 0 || gt < lt) return { name: ident.trim(), email: '' };
  return {
    name: ident
      .slice(0, lt)
      .replace(/[ \t]+$/, '')
      .replace(/^[ \t]+/, ''),
    email: ident.slice(lt + 1, gt),
  };
}

/**
 * Convert a files-backend repository (a `FilesRepo` from `loadFilesRepo`) or a lone packed-refs
 * file (`PackedRefs`) into a one-table reftable stack, as `git refs migrate --ref-format=reftable`
 * writes it (git 2.51+; git's `repo_migrate_ref_storage_format` runs one initial transaction on
 * an empty stack):
 * - every ref git iterates (root refs such as HEAD included; loose refs over packed ones) with
 *   update index 1: symrefs as symrefs (their target, even when dangling), others with their
 *   object id and, when packed-refs has a `^` line, its peeled value (value type 2);
 * - every reflog (`logs/`, sorted as git's directory walk lists them), its entries oldest first,
 *   each with its own update index 1, 2, 3, … (one counter for all reflogs), the old and new ids,
 *   committer name and e-mail, time, time zone (±hhmm) and the message normalised as git does
 *   (whitespace runs collapsed, trimmed, cut to blockSize / 2, one trailing `\n`);
 * - the table's update-index range is 1..max(1, number of reflog entries).
 * Left out (listed in `skipped`; git's migration would stop on them): refs with invalid names,
 * broken loose refs (unreadable or null object id), symrefs with an invalid target, duplicate
 * packed names after the first, reflog lines that do not parse. Peeled values git would find in
 * the object database are not known here (`unpeeled`).
 * The table layout follows git's defaults (block size 4096, restart interval 16, obj index) or
 * `opts`; SHA-256 repositories get a v2 table.
 */
export function convertFilesToReftable(input: FilesRepo | PackedRefs, opts: ConvertOptions = {}): ConvertResult {
  const hash = input.hash;
  const hashId: 'sha1' | 's256' = hash === 'sha256' ? 's256' : 'sha1';
  const hs = hash === 'sha256' ? 32 : 20;
  const skipped: ConvertSkip[] = [];
  const refs: RefRecordIn[] = [];
  let unpeeled = 0;
  const looseNames = new Set<string>();
  const packed = isPackedRefs(input) ? input : input.packed;
  const peelTrait = packed?.peeledTrait ?? 'none';
  const packedRecord = (p: PackedRecord): RefRecordIn | null => {
    if (p.brokenName) {
      skipped.push({ name: p.name, reason: 'invalid ref name (git refuses to migrate it)' });
      return null;
    }
    if (/^0+$/.test(p.oid)) {
      skipped.push({ name: p.name, reason: 'null object id' });
      return null;
    }
    const value = oidBytes(p.oid, hs, 'packed-refs');
    if (p.peeled)
      return { name: p.name, updateIndex: 1, type: 2, value, peeled: oidBytes(p.peeled, hs, 'packed-refs') };
    const vouched = peelTrait === 'fully-peeled' || (peelTrait === 'peeled' && p.name.startsWith('refs/tags/'));
    if (!vouched) unpeeled++;
    return { name: p.name, updateIndex: 1, type: 1, value };
  };
  if (isPackedRefs(input)) {
    for (const p of packedIterationOrder(input)) {
      const r = packedRecord(p);
      if (r) refs.push(r);
    }
  } else {
    for (const e of mergedEntries(input, true)) {
      if (e.packed) {
        const r = packedRecord(e.packed);
        if (r) refs.push(r);
        continue;
      }
      const l = e.loose!;
      if (l.badName) {
        skipped.push({ name: l.name, reason: 'invalid ref name (git refuses to migrate it)' });
      } else if (l.content.kind === 'symref') {
        if (!checkRefnameFormat(l.content.target)) skipped.push({ name: l.name, reason: 'symref to an invalid name' });
        else {
          refs.push({ name: l.name, updateIndex: 1, type: 3, target: l.content.target });
          looseNames.add(l.name);
        }
      } else if (l.content.kind === 'oid') {
        if (/^0+$/.test(l.content.oid)) {
          skipped.push({ name: l.name, reason: 'null object id' });
        } else {
          unpeeled++;
          refs.push({ name: l.name, updateIndex: 1, type: 1, value: oidBytes(l.content.oid, hs, l.name) });
          looseNames.add(l.name);
        }
      } else {
        skipped.push({ name: l.name, reason: `broken: ${l.content.reason}` });
      }
    }
  }
  refs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // Duplicate names (a packed-refs file listing a name twice): keep the first.
  const unique: RefRecordIn[] = [];
  for (const r of refs) {
    if (unique.length && unique[unique.length - 1].name === r.name)
      skipped.push({ name: r.name, reason: 'listed twice in packed-refs; the first record is kept' });
    else unique.push(r);
  }

  // Reflogs: one update index per entry, counting across all reflogs (git's migration_data.index).
  const logs: LogRecordIn[] = [];
  const blockSize = opts.blockSize ?? 4096;
  const maxMsg = Math.floor((blockSize || 4096) / 2);
  if (!isPackedRefs(input) && !opts.noReflog) {
    const hexsz = hs * 2;
    const names = input.reflogs.map((r) => r.name).sort(cmpPathComponents);
    let index = 0;
    for (const name of names) {
      if (!checkRefnameFormat(name)) {
        skipped.push({ name, reason: 'reflog of an invalid ref name' });
        continue;
      }
      const f = input._files.get('logs/' + name);
      if (!f) continue;
      const parsed = parseReflog(f.source.read(0, f.source.size), hexsz);
      if (parsed.malformed) skipped.push({ name, reason: `${parsed.malformed} malformed reflog line(s) left out` });
      for (const e of parsed.entries) {
        const who = splitIdent(e.ident);
        const tz = /^[+-]\d+$/.test(e.tz) ? parseInt(e.tz, 10) : 0;
        logs.push({
          name,
          updateIndex: 1 + index++,
          type: 1,
          oldId: oidBytes(e.old, hs, 'logs/' + name),
          newId: oidBytes(e.new, hs, 'logs/' + name),
          committerName: who.name,
          email: who.email,
          time: e.timestamp,
          tzOffset: tz,
          message: normalizeReflogMessage(e.message).slice(0, maxMsg),
        });
      }
    }
  }
  logs.sort(cmpLog);
  const maxUpdateIndex = Math.max(1, logs.length);
  const bytes = writeOrSay(
    () =>
      writeTable(unique, logs, {
        hashId,
        blockSize,
        restartInterval: opts.restartInterval ?? 16,
        indexObjects: opts.indexObjects ?? true,
        minUpdateIndex: 1,
        maxUpdateIndex,
      }),
    (key) => (looseNames.has(key) ? key : packed ? 'packed-refs' : key),
    'converting to a reftable',
  );
  const name = tableFileName(1, maxUpdateIndex, randomSuffix(opts));
  const counts = { direct: 0, peeled: 0, symref: 0 };
  for (const r of unique) {
    if (r.type === 1) counts.direct++;
    else if (r.type === 2) counts.peeled++;
    else if (r.type === 3) counts.symref++;
  }
  return {
    name,
    bytes,
    tablesList: name + '\n',
    minUpdateIndex: 1,
    maxUpdateIndex,
    hashId,
    refs: counts,
    logs: logs.length,
    unpeeled,
    skipped,
  };
}
