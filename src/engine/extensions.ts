/**
 * Report sections beyond the tables: the compaction geometry (`stack.compaction`: what git's
 * auto-compaction merges, locks included, and the stack after a real compaction) and the
 * files-backend section (`packedRefs`). `buildReport` calls them explicitly; nothing registers
 * itself at import time.
 */
import type { Report } from './report.ts';
import { groupDigits } from './basics.ts';
import { stackLocks, type FilesAnalysis, type ReftableAnalysis } from './analyze.ts';
import {
  gitAutoCompaction,
  gitAutoCompactionWithLocks,
  geometryByCount,
  geometrySegmentByCount,
  jgitCompaction,
  type Copies,
  type LockedCompaction,
  type Reason,
  type Segment,
} from './reftable/auto-compaction.ts';
import { filesRepoSection, packedRefsSection, type PackedRefsJson } from './files.ts';
import { compactAll, compactSegment, type CompactResult } from './reftable/compact.ts';

/** `stack.compaction` of the report (docs/report.md). */
export interface CompactionReport {
  /** Geometric factor used (git's `reftable.geometricFactor`, default 2). */
  factor: number;
  /**
   * What git's auto-compaction (`git pack-refs --auto`) merges, lock files taken into account:
   * indexes into `tables[]`, end inclusive; null when it merges nothing.
   */
  segment: Segment | null;
  /** The geometric rule's segment over every table, before locks narrow it (equal to `segment` without locks). */
  ruleSegment: Segment | null;
  /** What the lock files make git do (`none`, `compacts`, `locked`, `list-locked`) and why. */
  locks: { outcome: LockedCompaction['outcome']; reason: string };
  /** Net sizes git compares (file size − 91 / − 99) and why each table is in or out. */
  bySize: { values: number[]; reasons: Reason[] };
  /** The same rule on ref + log record counts: what lookups really pay for. */
  byRecords: { values: number[]; segment: Segment | null; reasons: Reason[] };
  /** The same rule on live records (winners that are not tombstones). */
  byLive: { values: number[]; segment: Segment | null };
  /** JGit's rule (Gerrit): equal ⌊log2(size − 91)⌋ groups. */
  jgit: { segment: Segment | null; reasons: Reason[]; error?: string };
  /** Whether the segment git picks starts at the base table, so tombstones would be dropped. */
  dropsTombstones: boolean;
  /** The stack after a real `git pack-refs` (`compactAll`: written and measured); null when skipped (`afterSkipped`). */
  afterPackRefs: AfterCompaction | null;
  /** The stack after a real `git pack-refs --auto` of `segment`; null when there is no segment or when skipped. */
  afterAuto: AfterCompaction | null;
  /** Why `afterPackRefs` / `afterAuto` were not computed (stack too large, unreadable table, git's writer would fail). */
  afterSkipped?: string;
}

/** A stack after a real compaction (docs/report.md, `stack.compaction`). */
export interface AfterCompaction {
  /** Tables in the stack afterwards (`afterPackRefs`: 1, or 0 when everything cancelled out). */
  tables: number;
  /** Total file size of the stack afterwards. */
  bytes: number;
  /** Ref + log records in the stack afterwards. */
  records: number;
  /** The compacted table alone: its file size and records (0 when git would not list it: empty). */
  newTableBytes: number;
  newTableRecords: number;
}

/** Stacks with more records than this get no `afterPackRefs` / `afterAuto` (the write costs time). */
export const AFTER_COMPACTION_MAX_RECORDS = 250_000;

/** The stack after `res`, from the report's per-table figures and the written table. */
function afterOf(res: CompactResult, sizes: number[], recs: number[]): AfterCompaction {
  const { start, end } = res.segment;
  const keep = (v: number[]): number => v.reduce((s, x, i) => (i < start || i > end ? s + x : s), 0);
  const newBytes = res.empty ? 0 : res.bytes.length;
  const newRecs = res.empty ? 0 : res.stats.refsOut + res.stats.logsOut;
  return {
    tables: res.names.length,
    bytes: keep(sizes) + newBytes,
    records: keep(recs) + newRecs,
    newTableBytes: newBytes,
    newTableRecords: newRecs,
  };
}

function fmt(n: number): string {
  return groupDigits(n);
}

/**
 * Which positions name the same readable file as the position below them (a repeated line of
 * tables.list: `copyOf`), so that their compaction reasons fold into the run's first (`Reason`).
 */
export function copiesOf(tables: readonly { copyOf?: number; error?: unknown; broken?: boolean }[]): Copies {
  const is = new Uint8Array(tables.length);
  for (let i = 1; i < tables.length; i++) {
    const t = tables[i],
      u = tables[i - 1];
    if (t.copyOf !== undefined && (u.copyOf ?? i - 1) === t.copyOf && !t.error && !u.error && !t.broken && !u.broken)
      is[i] = 1;
  }
  return (i) => is[i] === 1;
}

function compactionReport(r: Report, a: ReftableAnalysis, factor: number): CompactionReport {
  const ok = r.tables;
  const copies = copiesOf(ok);
  const sizes = ok.map((t) => t.fileSize);
  const versions = ok.map((t) => (t.version ?? 1) as 1 | 2);
  const locked = gitAutoCompactionWithLocks(sizes, versions, factor, stackLocks(a));
  const git = { ...gitAutoCompaction(sizes, versions, factor, copies), segment: locked.segment };
  const recs = ok.map(
    (t) =>
      t.records.ref + t.records.peeled + t.records.symref + t.records.tombstone + t.records.log + t.records.logDeletion,
  );
  const byRec = geometryByCount(recs, factor, copies);
  const live = liveWinners(a, ok.length);
  const byLiveSegment = geometrySegmentByCount(live, factor);
  const jg = jgitCompaction(sizes, copies);
  let afterPackRefs: AfterCompaction | null = null;
  let afterAuto: AfterCompaction | null = null;
  let afterSkipped: string | undefined;
  const total = recs.reduce((s, x) => s + x, 0);
  if (a.stack.tables.some((t) => !t)) afterSkipped = 'a table could not be read';
  else if (total > AFTER_COMPACTION_MAX_RECORDS)
    afterSkipped = `more than ${fmt(AFTER_COMPACTION_MAX_RECORDS)} records`;
  else if (ok.length > 0) {
    try {
      const all = compactAll(a.stack, { random: 0 });
      afterPackRefs = afterOf(all, sizes, recs);
      // A segment spanning the whole stack is the same compaction: measured once.
      const whole = git.segment && git.segment.start === 0 && git.segment.end === ok.length - 1;
      if (git.segment)
        afterAuto = whole ? afterPackRefs : afterOf(compactSegment(a.stack, git.segment, { random: 0 }), sizes, recs);
    } catch (e) {
      afterPackRefs = afterAuto = null;
      afterSkipped = `git's compaction would fail: ${(e as Error).message}`;
    }
  }
  return {
    factor,
    segment: git.segment,
    ruleSegment: locked.rule,
    locks: { outcome: locked.outcome, reason: locked.reason },
    bySize: { values: git.netSizes, reasons: git.reasons },
    byRecords: { values: recs, segment: byRec.segment, reasons: byRec.reasons },
    byLive: { values: live, segment: byLiveSegment },
    jgit: { segment: jg.segment, reasons: jg.reasons, ...(jg.error ? { error: jg.error } : {}) },
    dropsTombstones: git.segment?.start === 0,
    afterPackRefs,
    afterAuto,
    ...(afterSkipped ? { afterSkipped } : {}),
  };
}

/** Per table: its records that are live in the merged view (winners that are not tombstones). */
function liveWinners(a: ReftableAnalysis, n: number): number[] {
  const m = a.merged;
  const tables = a.stack.tables;
  // Pushed, not `new Array(n)`: a list with holes is cloned to the page as a sparse array, ten
  // times slower.
  const out: number[] = [];
  // From the merge's own per-table figures when it kept them: no second pass over the entries.
  const wt = m.winningTombstonesBy;
  if (wt && wt.length === n && m.winners.length === n) {
    for (let i = 0; i < n; i++) out.push(m.winners[i] - wt[i]);
    return out;
  }
  for (let i = 0; i < n; i++) out.push(0);
  for (let k = 0; k < m.count; k++) {
    const t = tables[m.table[k]]!;
    if (t.refs.types[m.rec[k]] !== 0) out[m.table[k]]++;
  }
  return out;
}

/** `stack.compaction` when a table could not be read: git fails on such a stack, nothing is predicted. */
export interface CompactionUnknown {
  factor: number;
  segment: null;
  incomplete: true;
  reason: string;
}

/**
 * Fill `r.stack.compaction` for a reftable analysis. With an unreadable table git's own
 * compaction fails, so no segment is predicted from sizes that include a table nobody can read.
 */
export function addCompactionSection(r: Report, a: ReftableAnalysis, factor = 2): CompactionReport | null {
  if (!r.stack) return null;
  // A worktree's tables are two stacks (its own and the main repository's) that compact apart.
  const c = r.stack.incomplete || a.input.worktree ? null : compactionReport(r, a, factor);
  r.stack.compaction =
    c ??
    ({
      factor,
      segment: null,
      incomplete: true,
      reason: a.input.worktree
        ? "a worktree: its own stack and the main repository's compact separately; analyze each reftable/ directory for its compaction"
        : 'a table could not be read: git would fail to read or compact this stack',
    } satisfies CompactionUnknown);
  return c;
}

/** Fill `r.packedRefs` for a files-backend analysis; returns the section. */
export function addFilesSection(r: Report, a: FilesAnalysis): PackedRefsJson {
  const p = filesSection(a);
  r.packedRefs = p;
  return p;
}

/** The `packedRefs` section of a files-backend analysis. */
export function filesSection(a: FilesAnalysis): PackedRefsJson {
  const repo = a.files;
  return repo.kind === 'packed-refs' && repo.packed ? packedRefsSection(repo.packed) : filesRepoSection(repo);
}
