/**
 * diff: what changed between two snapshots of one repository's ref storage. Git has no diff of
 * ref stores; this one reads the two `tables.list` states and their tables:
 * - tables added and removed (by file name: a table's name is fixed once written, reftable.adoc
 *   "Layout": `${min_update_index}-${max_update_index}-${random}.ref`), and which removed tables
 *   each added table merged: those whose update_index range lies inside the new table's range,
 *   as a compaction writes `min(segment)…max(segment)` (reftable/stack.c `stack_compact_locked`);
 * - ref records dropped and written: records (name, update_index, value type) of the removed
 *   tables that no added table carries (shadowed records and, when the segment starts at the
 *   base, tombstones: reftable/stack.c `stack_write_compact`), and records of the added tables no
 *   removed table had (new writes);
 * - refs created, updated and deleted in the merged view git reads (newest record wins, a winning
 *   tombstone hides the name); for packed-refs / files input from the live lists;
 * - bytes and compaction debt before and after, and whether the change was a compaction (an
 *   added table merged removed ones) or a write (update indexes past the old stack's maximum);
 * - whether the two stacks look unrelated (two repositories, or the snapshots given in the wrong
 *   order): git only removes a table by compacting it into one that covers its range, numbers new
 *   transactions past the stack's maximum (reftable/stack.c `reftable_stack_next_update_index`),
 *   and a compaction copies the records that win unchanged (`stack_write_compact`). When either
 *   fails the diff claims no compaction and says why.
 * Pure engine code.
 */
import { toHex } from './basics.ts';
import { analysisRefs, type Analysis } from './analyze.ts';
import type { Table } from './reftable/table.ts';
import type { MergedView } from './reftable/merged.ts';
import { gitAutoCompaction } from './reftable/auto-compaction.ts';

/** One table as the diff names it. */
export interface DiffTable {
  name: string;
  minUpdateIndex: number;
  maxUpdateIndex: number;
  bytes: number;
  records: number;
}

/** An added table that replaced removed ones (a compaction's output). */
export interface DiffMerge {
  /** The new table. */
  table: DiffTable;
  /** The removed tables it covers (oldest first): their update_index ranges lie inside its range. */
  from: DiffTable[];
}

/** One ref record that exists on one side only. */
export interface DiffRecord {
  /** Ref name (byte string). */
  name: string;
  updateIndex: number;
  kind: 'value' | 'peeled' | 'symref' | 'tombstone';
  /** The table it is in. */
  table: string;
}

/** A ref whose value in the merged view changed. */
export interface DiffRef {
  name: string;
  /** Value before / after: an object id, `ref: <target>` for a symref; absent on the side it is missing. */
  before?: string;
  after?: string;
}

/** What one side looks like, for the before/after columns. */
export interface DiffSide {
  kind: string;
  tables: number;
  bytes: number;
  liveRefs: number;
  /** Tombstone records in every table (winning or not). */
  tombstones: number;
  /**
   * Compaction debt: the records a full `git pack-refs` would drop (records shadowed by a newer
   * record of their name, plus every tombstone), the tables beyond one, and whether git's
   * auto-compaction would merge anything now (`segment`, factor 2, reftable/stack.c
   * `suggest_compaction_segment`).
   */
  debt: { droppableRecords: number; extraTables: number; segment: { start: number; end: number } | null };
}

export interface StackDiff {
  before: DiffSide;
  after: DiffSide;
  tablesAdded: DiffTable[];
  tablesRemoved: DiffTable[];
  tablesKept: number;
  merges: DiffMerge[];
  /** An added table merged removed ones (never when the stacks look unrelated). */
  compaction: boolean;
  /** Why the two stacks do not look like two states of one stack; null when they do. */
  unrelated: string | null;
  /** The after side holds update indexes past the before side's maximum (new transactions). */
  writes: boolean;
  refsCreated: DiffRef[];
  refsUpdated: DiffRef[];
  refsDeleted: DiffRef[];
  /** Records of removed tables no added table carries. */
  recordsDropped: DiffRecord[];
  /** Records of added tables no removed table had. */
  recordsWritten: DiffRecord[];
  tombstonesAdded: number;
  tombstonesDropped: number;
  /** Log records in removed tables no added table carries, and the reverse. */
  logsDropped: number;
  logsWritten: number;
}

const KIND = ['tombstone', 'value', 'peeled', 'symref'] as const;

function tablesOf(a: Analysis): Table[] {
  return a.stack ? (a.stack.tables.filter(Boolean) as Table[]) : [];
}

function dtable(t: Table): DiffTable {
  const c = t.counts;
  return {
    name: t.name,
    minUpdateIndex: t.header.minUpdateIndex,
    maxUpdateIndex: t.header.maxUpdateIndex,
    bytes: t.fileSize,
    records: c.ref + c.peeled + c.symref + c.tombstone,
  };
}

function side(a: Analysis, live: number): DiffSide {
  const ts = tablesOf(a);
  if (!a.stack) {
    const bytes = a.files.packed?.size ?? 0;
    return {
      kind: a.input.kind,
      tables: 0,
      bytes,
      liveRefs: live,
      tombstones: 0,
      debt: { droppableRecords: 0, extraTables: 0, segment: null },
    };
  }
  // Shadowed records (any kind) plus the tombstones that win: what pack-refs leaves out.
  const droppable = a.merged.shadowed.reduce((x, y) => x + y, 0) + a.merged.tombstones;
  const tombs = ts.reduce((x, t) => x + t.counts.tombstone, 0);
  const seg =
    ts.length > 1
      ? gitAutoCompaction(
          ts.map((t) => t.fileSize),
          ts.map((t) => t.header.version),
        ).segment
      : null;
  return {
    kind: a.input.kind,
    tables: ts.length,
    bytes: ts.reduce((x, t) => x + t.fileSize, 0),
    liveRefs: live,
    tombstones: tombs,
    debt: { droppableRecords: droppable, extraTables: Math.max(0, ts.length - 1), segment: seg },
  };
}

/** The live refs of one side as sorted [name, value] pairs. */
function liveValues(a: Analysis): [string, string][] {
  if (!a.stack) return analysisRefs(a).map((r) => [r.name, r.oid]);
  const out: [string, string][] = [];
  const m: MergedView = a.merged;
  for (let i = 0; i < m.count; i++) {
    const t = a.stack.tables[m.table[i]]!;
    const r = m.rec[i];
    const type = t.refs.types[r];
    if (type === 0) continue;
    const hs = t.header.hashSize;
    out.push([m.key(i), type === 3 ? `ref: ${t.refs.targets.get(r)!}` : toHex(t.refs.oids, r * hs, (r + 1) * hs)]);
  }
  return out;
}

/** Ref records (name, update_index, type) of some tables, keyed for set comparison. */
function recordKeys(ts: Table[]): Map<string, DiffRecord> {
  const out = new Map<string, DiffRecord>();
  for (const t of ts) {
    const c = t.refs;
    for (let i = 0; i < c.count; i++) {
      const name = c.name(i);
      out.set(`${name}\0${c.updateIndex[i]}\0${c.types[i]}`, {
        name,
        updateIndex: c.updateIndex[i],
        kind: KIND[c.types[i]] ?? 'value',
        table: t.name,
      });
    }
  }
  return out;
}

/** A ref record's value as the diff compares it: kind and object id or symref target. */
function recordValue(t: Table, i: number): string {
  const c = t.refs;
  const type = c.types[i];
  if (type === 3) return `ref: ${c.targets.get(i)!}`;
  if (type === 0) return 'tombstone';
  const hs = t.header.hashSize;
  return `${type} ${toHex(c.oids, i * hs, (i + 1) * hs)}`;
}

/**
 * The first record of a merge's inputs that its output lacks: for each name, the newest record
 * of the inputs (newest table wins) must be in the output with the same update_index and value.
 * Tombstones are left out (a compaction at the base drops them). When the output also covers
 * transactions written after the inputs, a name may carry a newer record there, or none (a later
 * deletion whose tombstone the compaction dropped).
 */
function lostWinner(into: Table, from: Table[]): string | null {
  const win = new Map<string, [number, string]>();
  for (const t of from)
    for (let i = 0; i < t.refs.count; i++) {
      const n = t.refs.name(i);
      const u = t.refs.updateIndex[i];
      const w = win.get(n);
      if (!w || u >= w[0]) win.set(n, [u, recordValue(t, i)]);
    }
  const have = new Map<string, [number, string]>();
  for (let i = 0; i < into.refs.count; i++)
    have.set(into.refs.name(i), [into.refs.updateIndex[i], recordValue(into, i)]);
  const fromMax = Math.max(...from.map((t) => t.header.maxUpdateIndex));
  const later = into.header.maxUpdateIndex > fromMax;
  for (const [n, [u, v]] of win) {
    if (v === 'tombstone') continue;
    const h = have.get(n);
    if (later && (!h || h[0] > fromMax)) continue;
    if (!h || h[0] !== u || h[1] !== v) return n;
  }
  return null;
}

/** Why the after stack cannot have come from the before stack by git's writes and compactions. */
function unrelatedReason(ta: Table[], tb: Table[], removed: Table[], added: Table[], merges: Table[][]): string | null {
  if (!ta.length || !tb.length) return null;
  const maxA = Math.max(...ta.map((t) => t.header.maxUpdateIndex));
  const minA = Math.min(...ta.map((t) => t.header.minUpdateIndex));
  const minB = Math.min(...tb.map((t) => t.header.minUpdateIndex));
  const common = ta.length - removed.length;
  if (!common && minA !== minB)
    return `no table in common, and the after stack starts at update_index ${minB} where the before stack starts at ${minA}`;
  const covered = new Set(merges.flatMap((m) => m.slice(1)));
  const orphan = removed.find((t) => !covered.has(t));
  if (orphan)
    return `table ${orphan.name} (update_index ${orphan.header.minUpdateIndex}–${orphan.header.maxUpdateIndex}) left the stack, but no new table covers its range`;
  const early = added.find((t) => !merges.some((m) => m[0] === t) && t.header.minUpdateIndex <= maxA);
  if (early)
    return `new table ${early.name} starts at update_index ${early.header.minUpdateIndex}, not past the before stack's maximum ${maxA}`;
  for (const [into, ...from] of merges) {
    const n = lostWinner(into, from);
    if (n !== null)
      return `table ${into.name} would have merged ${from.map((t) => t.name).join(', ')}, but it does not hold their record of ${n}`;
  }
  return null;
}

/** Log record counts of tables not carried over, by key (name, update_index). */
function logKeys(ts: Table[], readLogKeys: (t: Table) => string[]): Set<string> {
  const s = new Set<string>();
  for (const t of ts) for (const k of readLogKeys(t)) s.add(k);
  return s;
}

/**
 * Compare two analyses (`a` before, `b` after). `readLogKeys` lists a table's log record keys
 * (pass one to count log records dropped and written; by default they are not read).
 */
export function diffAnalyses(a: Analysis, b: Analysis, readLogKeys?: (t: Table) => string[]): StackDiff {
  const la = liveValues(a);
  const lb = liveValues(b);
  const created: DiffRef[] = [];
  const updated: DiffRef[] = [];
  const deleted: DiffRef[] = [];
  let i = 0,
    j = 0;
  while (i < la.length || j < lb.length) {
    if (j >= lb.length || (i < la.length && la[i][0] < lb[j][0])) {
      deleted.push({ name: la[i][0], before: la[i][1] });
      i++;
    } else if (i >= la.length || lb[j][0] < la[i][0]) {
      created.push({ name: lb[j][0], after: lb[j][1] });
      j++;
    } else {
      if (la[i][1] !== lb[j][1]) updated.push({ name: la[i][0], before: la[i][1], after: lb[j][1] });
      i++;
      j++;
    }
  }
  const ta = tablesOf(a);
  const tb = tablesOf(b);
  const namesA = new Set(ta.map((t) => t.name));
  const namesB = new Set(tb.map((t) => t.name));
  const removed = ta.filter((t) => !namesB.has(t.name));
  const added = tb.filter((t) => !namesA.has(t.name));
  const found: Table[][] = [];
  for (const t of added) {
    const lo = t.header.minUpdateIndex,
      hi = t.header.maxUpdateIndex;
    const from = removed.filter((r) => r.header.minUpdateIndex >= lo && r.header.maxUpdateIndex <= hi);
    if (from.length) found.push([t, ...from]);
  }
  const unrelated = unrelatedReason(ta, tb, removed, added, found);
  const merges: DiffMerge[] = unrelated
    ? []
    : found.map(([t, ...from]) => ({ table: dtable(t), from: from.map(dtable) }));
  const ra = recordKeys(removed);
  const rb = recordKeys(added);
  const dropped: DiffRecord[] = [];
  const written: DiffRecord[] = [];
  for (const [k, r] of ra) if (!rb.has(k)) dropped.push(r);
  for (const [k, r] of rb) if (!ra.has(k)) written.push(r);
  let logsDropped = 0,
    logsWritten = 0;
  if (readLogKeys) {
    const lka = logKeys(removed, readLogKeys);
    const lkb = logKeys(added, readLogKeys);
    for (const k of lka) if (!lkb.has(k)) logsDropped++;
    for (const k of lkb) if (!lka.has(k)) logsWritten++;
  }
  const maxA = Math.max(0, ...ta.map((t) => t.header.maxUpdateIndex));
  const maxB = Math.max(0, ...tb.map((t) => t.header.maxUpdateIndex));
  return {
    before: side(a, la.length),
    after: side(b, lb.length),
    tablesAdded: added.map(dtable),
    tablesRemoved: removed.map(dtable),
    tablesKept: tb.length - added.length,
    merges,
    compaction: merges.length > 0,
    unrelated,
    writes: a.stack && b.stack ? maxB > maxA : created.length + updated.length + deleted.length > 0,
    refsCreated: created,
    refsUpdated: updated,
    refsDeleted: deleted,
    recordsDropped: dropped,
    recordsWritten: written,
    tombstonesAdded: written.filter((r) => r.kind === 'tombstone').length,
    tombstonesDropped: dropped.filter((r) => r.kind === 'tombstone').length,
    logsDropped,
    logsWritten,
  };
}
