/**
 * watch: a live reftable stack, one event per new `tables.list` state (or lock-file change).
 * Git changes a stack only by writing new tables and then renaming `tables.list.lock` over
 * `tables.list` (reftable/stack.c `reftable_addition_commit`, `stack_compact_range`), so a state
 * is one `tables.list` content; a table file never changes once written, so a parsed table is
 * kept by name and only tables new to a state are read. A compaction shows as a run of listed
 * tables replaced by one table whose update_index range covers theirs: the segment git chose
 * (reftable/stack.c `suggest_compaction_segment`, applied after every transaction unless turned
 * off). Alerts: the stack stopped being geometric (git's rule finds a segment, so an
 * auto-compaction did not run or failed, e.g. a lock), or tombstones pile up.
 * Pure engine code: the host lists the folder and hands over files.
 */
import { FormatError, type InputFile } from './basics.ts';
import { openTable, type Table } from './reftable/table.ts';
import { parseTablesList } from './reftable/stack.ts';
import { gitAutoCompaction, type Segment } from './reftable/auto-compaction.ts';

/** What the host saw in the reftable directory at one moment. */
export interface WatchSnapshot {
  /** `tables.list`'s bytes, or null when it is missing. */
  list: Uint8Array | null;
  /** File names in the directory (for lock files). */
  entries: string[];
  /** A table file by name, or null when it is gone (git removed it after a compaction). */
  table(name: string): InputFile | null;
}

/** An auto-compaction (or pack-refs) between two states. */
export interface WatchCompaction {
  /** Positions of the merged tables in the previous state's list (oldest = 0, end inclusive). */
  segment: Segment;
  /** The merged tables. */
  from: string[];
  /** The table written for them (null: every record cancelled out and none was listed). */
  into: string | null;
}

export interface WatchEvent {
  /** 1 for the first state seen, then one more per event. */
  seq: number;
  /** The listed tables, oldest first. */
  tables: string[];
  /** Tables appended at the end of the list (new transactions). */
  appended: string[];
  /** Tables that left the list. */
  removed: string[];
  compactions: WatchCompaction[];
  /** Lock files now present, and the ones that appeared and went away since the last event. */
  locks: { present: string[]; appeared: string[]; disappeared: string[] };
  /** Ref records of every table, tombstone records among them, and their ratio (0 when empty). */
  records: number;
  tombstones: number;
  tombstoneRatio: number;
  bytes: number;
  /** git's auto-compaction rule (factor 2, bytes) finds nothing to merge. */
  geometric: boolean;
  /** The segment the rule would merge now, or null. */
  segment: Segment | null;
  alerts: string[];
  /** Tables parsed for this event (the others came from the cache). */
  tablesRead: number;
}

/** Tombstones are said to pile up at this share of the records, once there are this many. */
export const TOMBSTONE_ALERT_RATIO = 0.5;
export const TOMBSTONE_ALERT_MIN = 100;

/** Watches one stack; `step` with each snapshot returns an event when something changed. */
export class StackWatcher {
  private cache = new Map<string, Table>();
  private prevList: Uint8Array | null = null;
  private started = false;
  private prevNames: string[] = [];
  private prevLocks: string[] = [];
  private seq = 0;
  /** Tables parsed since the watcher started (the cache's misses). */
  parsed = 0;

  /**
   * The event for `snap`, or null when neither `tables.list` nor the lock files changed. Throws
   * `FormatError` for a `tables.list` or table git would refuse; a table named but already gone
   * (git listed a newer state meanwhile) returns null, so the host takes a new snapshot.
   */
  step(snap: WatchSnapshot): WatchEvent | null {
    const list = snap.list ?? new Uint8Array(0);
    const locks = snap.entries.filter((n) => n.endsWith('.lock')).sort();
    if (this.started && sameBytes(list, this.prevList!) && locks.join('\n') === this.prevLocks.join('\n')) return null;
    const names = snap.list ? parseTablesList('tables.list', snap.list) : [];
    const tables: Table[] = [];
    let read = 0;
    for (const n of names) {
      let t = this.cache.get(n);
      if (!t) {
        const f = snap.table(n);
        if (!f) return null;
        try {
          t = openTable(f, { logs: false });
        } catch (e) {
          // A table still being copied in reads short: the next snapshot has it whole.
          if (e instanceof FormatError && f.source.size === 0) return null;
          throw e;
        }
        this.cache.set(n, t);
        read++;
        this.parsed++;
      }
      tables.push(t);
    }
    const prev = this.prevNames;
    const now = new Set(names);
    const before = new Set(prev);
    const removed = prev.filter((n) => !now.has(n));
    const added = names.filter((n) => !before.has(n));
    const compactions: WatchCompaction[] = [];
    const used = new Set<string>();
    for (const n of added) {
      const t = this.cache.get(n)!;
      const lo = t.header.minUpdateIndex,
        hi = t.header.maxUpdateIndex;
      const from = removed.filter((r) => {
        const o = this.cache.get(r);
        return o && o.header.minUpdateIndex >= lo && o.header.maxUpdateIndex <= hi;
      });
      if (!from.length) continue;
      from.forEach((r) => used.add(r));
      compactions.push({
        segment: { start: prev.indexOf(from[0]), end: prev.indexOf(from[from.length - 1]) },
        from,
        into: n,
      });
    }
    // Tables merged away with nothing listed for them (every record cancelled out).
    const orphanRemoved = removed.filter((r) => !used.has(r));
    if (orphanRemoved.length > 1 || (orphanRemoved.length && added.length === 0)) {
      compactions.push({
        segment: { start: prev.indexOf(orphanRemoved[0]), end: prev.indexOf(orphanRemoved[orphanRemoved.length - 1]) },
        from: orphanRemoved,
        into: null,
      });
    }
    const appended = added.filter((n) => !compactions.some((c) => c.into === n));
    let records = 0,
      tombstones = 0,
      bytes = 0;
    for (const t of tables) {
      const c = t.counts;
      records += c.ref + c.peeled + c.symref + c.tombstone;
      tombstones += c.tombstone;
      bytes += t.fileSize;
    }
    const segment =
      tables.length > 1
        ? gitAutoCompaction(
            tables.map((t) => t.fileSize),
            tables.map((t) => t.header.version),
          ).segment
        : null;
    const ratio = records ? tombstones / records : 0;
    const alerts: string[] = [];
    if (segment)
      alerts.push(
        `the stack is not geometric: git's auto-compaction would merge tables ${segment.start}–${segment.end} (it did not run after the last write, or could not: a lock, or auto-compaction turned off)`,
      );
    if (tombstones >= TOMBSTONE_ALERT_MIN && ratio >= TOMBSTONE_ALERT_RATIO)
      alerts.push(
        `tombstones pile up: ${tombstones} of ${records} records (${Math.round(ratio * 100)} %) are deletions every lookup steps over until git pack-refs drops them`,
      );
    const ev: WatchEvent = {
      seq: ++this.seq,
      tables: names,
      appended: this.started ? appended : [],
      removed,
      compactions,
      locks: {
        present: locks,
        appeared: locks.filter((l) => !this.prevLocks.includes(l)),
        disappeared: this.prevLocks.filter((l) => !locks.includes(l)),
      },
      records,
      tombstones,
      tombstoneRatio: Math.round(ratio * 10000) / 10000,
      bytes,
      geometric: segment === null,
      segment,
      alerts,
      tablesRead: read,
    };
    // Forget tables no longer listed: git deletes their files.
    for (const n of this.cache.keys()) if (!now.has(n)) this.cache.delete(n);
    this.prevList = list.slice();
    this.started = true;
    this.prevNames = names;
    this.prevLocks = locks;
    return ev;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
