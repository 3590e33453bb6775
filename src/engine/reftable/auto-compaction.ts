/**
 * auto-compaction: the geometry of a reftable stack — which tables git's (and JGit's) auto-compaction
 * would merge, the same rule applied to record counts, and a replay of the next transactions.
 *
 * Sources: git's `reftable/stack.c` (`suggest_compaction_segment`, `stack_segments_for_compaction`,
 * `reftable_stack_auto_compact`, git 2.45+), JGit's `FileReftableStack` (`autoCompactCandidate`,
 * `segmentSizes`, `log`). Indexes are positions in the stack,
 * oldest (base) = 0, as `tables.list` lists them. Pure TypeScript, no DOM or Node APIs.
 */
import { groupDigits } from '../basics.ts';

/** A compaction segment: tables `start..end`, both inclusive (oldest = 0). */
export interface Segment {
  start: number;
  end: number;
}

/**
 * Why a table is in or out of a segment: a sentence with the numbers compared, or, at a position
 * that names the same file as the position below it (a line of `tables.list` repeated, see
 * `Copies`) and is judged by the same rule, the index `k` of the first position of that run: "the
 * rule of entry `k`, at this position's own figures" (`netSizes[i]` beside it). 100,000 lines
 * naming one file then cost a number each, not a sentence each.
 */
export type Reason = string | number;

/**
 * Per position `i`, whether it names the same file as position `i - 1` (a repeated line of
 * `tables.list`), so that its reason may be folded into that run's first entry (`Reason`).
 */
export type Copies = (i: number) => boolean;

/** Result of a geometric-rule evaluation. */
export interface GeometryResult {
  /** Tables the rule merges, or null when the sequence is already geometric (or < 2 tables). */
  segment: Segment | null;
  /** The values the rule compared (net byte sizes, or record counts), oldest first. */
  netSizes: number[];
  /** Per table, oldest first: why it is in or out of the segment, with the numbers compared. */
  reasons: Reason[];
}

/** The text of a position's reason: its own, or that of the run's first entry it refers to. */
export function reasonText(reasons: readonly Reason[], i: number): string {
  const x = reasons[i];
  return typeof x === 'number' ? String(reasons[x] ?? '') : (x ?? '');
}

/**
 * `reasons` with the sentence of each position made by `text(i)`, except where position `i`
 * repeats the file of position `i - 1` (`copies`) and has the same `kind` of reason: there the
 * index of the run's first entry (`Reason`), and no sentence is made.
 */
function foldedReasons(n: number, kind: (i: number) => number, text: (i: number) => string, copies?: Copies): Reason[] {
  // Pushed, not preallocated: a list with holes crosses to the page (structured clone) as a
  // sparse array, ten times slower.
  const reasons: Reason[] = [];
  let start = 0;
  let prevKind = -1;
  for (let i = 0; i < n; i++) {
    const k = kind(i);
    if (i > 0 && k === prevKind && copies?.(i)) reasons.push(start);
    else {
      start = i;
      reasons.push(text(i));
    }
    prevKind = k;
  }
  return reasons;
}

/**
 * Bytes git subtracts from a file size before comparing: footer size + header size − 1, i.e. 91 for
 * format v1 (68 + 24 − 1) and 99 for v2 (72 + 28 − 1). Git: `reader->size` (file size − footer) minus
 * `header_size(version) − 1` in `stack_segments_for_compaction`.
 */
export function compactionOverhead(version: 1 | 2): number {
  return version === 2 ? 99 : 91;
}

function checkFactor(factor: number): void {
  if (!Number.isInteger(factor) || factor < 2 || factor > 255) {
    throw new RangeError(`geometric factor: an integer 2..255 (git's reftable.geometricFactor), got ${factor}`);
  }
}

/**
 * Git's `suggest_compaction_segment` (`reftable/stack.c`) on already-net values.
 * - From the newest table down, the first i with `v[i-1] < factor × v[i]` ends the segment (at i).
 * - From there down, with `sum` = total of the tables from the end down to j+1:
 *   whenever `v[j] < factor × sum`, the segment starts at j. The walk goes on to the base, so an
 *   older table that breaks the sequence moves the start down even after a start was found.
 * Comparisons are strict `<` on integers, as git's uint64 arithmetic.
 *
 * Worked examples (factor 2, values oldest first; the ones git's comments use, checked by hand
 * and in test/compaction.test.ts):
 * - 64, 32, 16, 8, 4, 2, 1: every table is ≥ 2 × the next newer one → no segment.
 * - 64, 32, 16, 8, 4, 3, 1: 3 < 2 × 1 fails, 4 < 2 × 3 holds → the segment ends at table 5 (the
 *   "3"); then 4 < 2×3, 8 < 2×7, 16 < 2×15, 32 < 2×31, 64 < 2×63 → tables 0–5.
 * - 128, 32, 16, 8, 4, 3, 1: as above up to table 1 (32 < 2×31), but 128 < 2×63 fails → tables 1–5.
 * @param unit word used in the reasons ("bytes", "records").
 */
function suggest(
  v: number[],
  factor: number,
  unit: string,
  copies?: Copies,
): { segment: Segment | null; reasons: Reason[] } {
  const g = groupDigits;
  // "1 record", "2 records" ("bytes" and "records" lose their s for one).
  const q = (x: number) => `${g(x)} ${x === 1 ? unit.replace(/s$/, '') : unit}`;
  const n = v.length;
  if (n <= 1) return { segment: null, reasons: n === 1 ? ['out: the only table, nothing to compact'] : [] };
  const segment = suggestSegment(v, factor);
  const newer = (i: number) =>
    `out: newer than any segment; the table below it (${q(v[i - 1])}) is ≥ ${factor} × ${g(v[i])}`;
  if (!segment) {
    const text = (i: number) =>
      i === 0
        ? `out: every table is ≥ ${factor} × the next newer one, the sequence is geometric: nothing to compact`
        : newer(i);
    return { segment: null, reasons: foldedReasons(n, (i) => (i === 0 ? 0 : 1), text, copies) };
  }
  const { start, end } = segment;
  // The sums compared, kept as numbers: a reason is made only where a run of copies starts (a
  // stack of 100,000 lines makes one per run, not one per line).
  const above = new Float64Array(n);
  let sum = v[end];
  for (let j = end - 1; j >= 0; j--) {
    above[j] = sum;
    sum += v[j];
  }
  const under = (j: number) => v[j] < above[j] * factor;
  const cmpAt = (j: number) =>
    `${q(v[j])} ${under(j) ? '<' : '≥'} ${factor} × ${g(above[j])} (the tables above it up to the segment end)`;
  // The kind of each reason: its wording and its comparison (a run folds only over equal kinds).
  const kind = (j: number) =>
    j > end ? 0 : j === end ? 1 : j === start ? 2 : (j > start ? 3 : 5) + (under(j) ? 0 : 1);
  const text = (j: number) => {
    if (j > end) return newer(j);
    if (j === end) return `segment end: the table below it (${q(v[end - 1])}) is < ${factor} × ${g(v[end])}`;
    if (j === start) return `segment start: ${cmpAt(j)}`;
    if (j > start) return `in: ${cmpAt(j)}; an older table starts the segment`;
    return `out: older than the segment start; ${cmpAt(j)}`;
  };
  return { segment, reasons: foldedReasons(n, kind, text, copies) };
}

/**
 * The segment of `suggest` alone, without the reasons (what a replay of transactions and the
 * lock-file rule need): the same two walks of git's `suggest_compaction_segment`.
 */
function suggestSegment(v: number[], factor: number): Segment | null {
  const n = v.length;
  if (n <= 1) return null;
  let end = -1;
  for (let i = n - 1; i > 0; i--) {
    if (v[i - 1] < v[i] * factor) {
      end = i;
      break;
    }
  }
  if (end < 0) return null;
  let sum = v[end];
  let start = end;
  for (let j = end - 1; j >= 0; j--) {
    if (v[j] < sum * factor) start = j;
    sum += v[j];
  }
  return { start, end };
}

/**
 * Git's auto-compaction rule (git 2.45+, `suggest_compaction_segment`), which `git pack-refs --auto`
 * / `git refs optimize --auto` and every transaction's auto-compaction apply.
 * @param sizes file sizes in bytes, oldest (base) first, as `tables.list` orders them.
 * @param versions format version of each table (1 = SHA-1, 2 = SHA-256); net size = size − 91 (v1)
 *   or − 99 (v2). Missing entries count as 1.
 * @param factor git's `reftable.geometricFactor`, 2..255 (default 2); else RangeError.
 * @returns the segment git compacts (indexes into `sizes`, end inclusive) or null, the net sizes
 *   compared, and per table the reason it is in or out.
 */
export function gitAutoCompaction(sizes: number[], versions: (1 | 2)[], factor = 2, copies?: Copies): GeometryResult {
  checkFactor(factor);
  const netSizes = sizes.map((s, i) => s - compactionOverhead(versions[i] ?? 1));
  const { segment, reasons } = suggest(netSizes, factor, 'net bytes', copies);
  return { segment, netSizes, reasons };
}

/** The segment of `gitAutoCompaction` alone (no reasons are made). */
export function gitAutoCompactionSegment(sizes: number[], versions: (1 | 2)[], factor = 2): Segment | null {
  checkFactor(factor);
  return suggestSegment(
    sizes.map((s, i) => s - compactionOverhead(versions[i] ?? 1)),
    factor,
  );
}

/**
 * The same rule applied to record counts (or live-record counts) instead of bytes: what the lookup
 * cost follows. A 50,000-tombstone table is small in bytes but as heavy as a 50,000-ref base; by
 * counts the rule merges it. For display only: git never compares counts.
 * @param counts records per table, oldest first.
 * @param factor 2..255.
 */
export function geometryByCount(counts: number[], factor = 2, copies?: Copies): GeometryResult {
  checkFactor(factor);
  const { segment, reasons } = suggest(counts.slice(), factor, 'records', copies);
  return { segment, netSizes: counts.slice(), reasons };
}

/** The segment of `geometryByCount` alone (no reasons are made). */
export function geometrySegmentByCount(counts: number[], factor = 2): Segment | null {
  checkFactor(factor);
  return suggestSegment(counts, factor);
}

/** One group of JGit's rule: adjacent tables with the same ⌊log2(net size)⌋. */
export interface JGitGroup {
  start: number;
  /** Inclusive. */
  end: number;
  log2: number;
  bytes: number;
}

/** Result of `jgitCompaction`. */
export interface JGitResult extends GeometryResult {
  /** Adjacent tables grouped by ⌊log2(size − 91)⌋, oldest first. */
  groups: JGitGroup[];
  /** Set when JGit would throw (a net size ≤ 0: its `log` rejects it); segment is then null. */
  error?: string;
}

/** JGit's `FileReftableStack.log`: ⌊log2(sz)⌋ for sz > 0. */
function jlog(sz: number): number {
  let l = 0;
  while (sz > 0) {
    l++;
    sz = Math.floor(sz / 2);
  }
  return l - 1;
}

/**
 * JGit's auto-compaction rule (`FileReftableStack.autoCompactCandidate`, run after every table
 * JGit adds): net size = file size − 91 (JGit writes v1 only); group adjacent tables with equal
 * ⌊log2(net)⌋; among groups with more than one table take the one with the smallest log (the
 * oldest on a tie: Java's `Stream.min` keeps the first); then extend it downwards while
 * ⌊log2(group bytes)⌋ ≥ ⌊log2(next older table)⌋, adding that table's bytes each time.
 * @param sizes file sizes in bytes, oldest first.
 * @param copies which positions repeat the file below them (their reasons fold, see `Reason`).
 */
export function jgitCompaction(sizes: number[], copies?: Copies): JGitResult {
  const net = sizes.map((s) => s - 91);
  const n = net.length;
  const groups: JGitGroup[] = [];
  const bad = net.findIndex((v) => v <= 0);
  if (bad >= 0) {
    const error = `table ${bad}: size ${sizes[bad]} − 91 ≤ 0, JGit's log2 throws IllegalArgumentException`;
    return {
      segment: null,
      netSizes: net,
      reasons: foldedReasons(
        n,
        () => 0,
        () => error,
        copies,
      ),
      groups,
      error,
    };
  }
  for (let i = 0; i < net.length; i++) {
    const l = jlog(net[i]);
    const g = groups[groups.length - 1];
    if (g && g.log2 === l) {
      g.end = i;
      g.bytes += net[i];
    } else groups.push({ start: i, end: i, log2: l, bytes: net[i] });
  }
  let best: JGitGroup | null = null;
  for (const g of groups) if (g.end > g.start && (best === null || g.log2 < best.log2)) best = g;
  if (best === null) {
    const text = (i: number) =>
      `out: alone in its size class ⌊log2(${net[i]})⌋ = ${jlog(net[i])}; no class has two adjacent tables`;
    return { segment: null, netSizes: net, reasons: foldedReasons(n, () => 0, text, copies), groups };
  }
  let start = best.start;
  let bytes = best.bytes;
  const ext: string[] = [];
  while (start > 0) {
    const prev = start - 1;
    if (jlog(bytes) < jlog(net[prev])) {
      ext[prev] =
        `out: ⌊log2(${net[prev]})⌋ = ${jlog(net[prev])} > ⌊log2(${bytes})⌋ = ${jlog(bytes)} of the tables above, extension stops`;
      break;
    }
    ext[prev] =
      `in: extends the segment, ⌊log2(${net[prev]})⌋ = ${jlog(net[prev])} ≤ ⌊log2(${bytes})⌋ = ${jlog(bytes)} of the tables above`;
    start = prev;
    bytes += net[prev];
  }
  const b = best;
  const kind = (i: number) =>
    i >= b.start && i <= b.end ? 0 : ext[i] ? (ext[i].startsWith('in') ? 1 : 4) : i > b.end ? 2 : 3;
  const text = (i: number) =>
    i >= b.start && i <= b.end
      ? `in: smallest size class with ≥ 2 adjacent tables, ⌊log2⌋ = ${b.log2}`
      : ext[i]
        ? ext[i]
        : i > b.end
          ? `out: above the compacted class (⌊log2(${net[i]})⌋ = ${jlog(net[i])})`
          : `out: below the segment`;
  return { segment: { start, end: best.end }, netSizes: net, reasons: foldedReasons(n, kind, text, copies), groups };
}

/** One step of `replayAutoCompaction`. */
export interface ReplayStep {
  /** 1-based transaction number. */
  transaction: number;
  /** Stack sizes (bytes) right after the transaction's table was added, before compaction. */
  before: number[];
  /** What git's auto-compaction merged after it (indexes into `before`), or null. */
  segment: Segment | null;
  /** Stack sizes after the compaction, oldest first. */
  after: number[];
  /** Per table of `after`: true when its size is an estimate (a compacted table). */
  estimated: boolean[];
}

/**
 * What the stack looks like after each of the next `k` transactions, each appending one table of
 * `txSize` bytes and then running git's auto-compaction once (as every git transaction does).
 * A compacted table's size is an ESTIMATE: sum of the merged tables' net sizes + the overhead
 * (91 / 99). The real table is smaller when newer records shadow older ones or tombstones are
 * dropped, and block padding can shift it either way.
 * @param sizes current file sizes, oldest first.
 * @param versions format version per table; new tables get the newest table's version (1 if none).
 * @param factor 2..255.
 * @param k number of transactions (≥ 0).
 * @param txSize file size of each new table in bytes (a one-ref SHA-1 transaction is about 140–170).
 */
export function replayAutoCompaction(
  sizes: number[],
  versions: (1 | 2)[],
  factor: number,
  k: number,
  txSize: number,
): ReplayStep[] {
  checkFactor(factor);
  const version: 1 | 2 = versions.length ? (versions[versions.length - 1] ?? 1) : 1;
  const ov = compactionOverhead(version);
  let cur = sizes.slice();
  let vers: (1 | 2)[] = sizes.map((_, i) => versions[i] ?? 1);
  let est: boolean[] = sizes.map(() => false);
  const steps: ReplayStep[] = [];
  for (let t = 1; t <= k; t++) {
    cur.push(txSize);
    vers.push(version);
    est.push(false);
    const before = cur.slice();
    const segment = gitAutoCompactionSegment(cur, vers, factor);
    if (segment) {
      let net = 0;
      for (let i = segment.start; i <= segment.end; i++) net += cur[i] - compactionOverhead(vers[i]);
      cur = [...cur.slice(0, segment.start), net + ov, ...cur.slice(segment.end + 1)];
      vers = [...vers.slice(0, segment.start), version, ...vers.slice(segment.end + 1)];
      est = [...est.slice(0, segment.start), true, ...est.slice(segment.end + 1)];
    }
    steps.push({ transaction: t, before, segment, after: cur.slice(), estimated: est.slice() });
  }
  return steps;
}

/**
 * `git pack-refs` / `git refs optimize` without `--auto`: the whole stack into one table.
 * Returns the estimated size of that table (sum of net sizes + overhead; an upper bound when
 * records are shadowed or tombstones dropped, up to block padding).
 */
export function estimatePackAll(sizes: number[], versions: (1 | 2)[]): number {
  if (sizes.length === 0) return 0;
  const v = versions[versions.length - 1] ?? 1;
  let net = 0;
  for (let i = 0; i < sizes.length; i++) net += sizes[i] - compactionOverhead(versions[i] ?? 1);
  return net + compactionOverhead(v);
}

/** Lock files present in a stack's directory, as the auto-compaction sees them. */
export interface StackLocks {
  /** `tables.list.lock` exists: another process (or a crashed one) holds the stack. */
  tablesList: boolean;
  /** Per table, oldest first: `<table>.lock` exists. */
  tables: boolean[];
}

/** What `git pack-refs --auto` does on a stack, locks included. */
export interface LockedCompaction {
  /** The geometric rule's segment over every table; locks do not change the rule. */
  rule: Segment | null;
  /** The tables git actually merges (end inclusive), or null when it merges nothing. */
  segment: Segment | null;
  /**
   * - `none`: the rule finds nothing to merge;
   * - `compacts`: git merges `segment` (all of `rule`, or the part above a locked table);
   * - `locked`: git merges nothing and `git pack-refs --auto` fails with "unable to compact
   *   stack: data is locked" (a transaction's own auto-compaction ignores that error);
   * - `list-locked`: `tables.list.lock` exists: git can neither write nor compact.
   */
  outcome: 'none' | 'compacts' | 'locked' | 'list-locked';
  /** One sentence saying why, with the tables named by index. */
  reason: string;
}

/**
 * Git's auto-compaction with lock files present (`reftable/stack.c`, `reftable_stack_auto_compact`
 * → `stack_compact_range` with `STACK_COMPACT_RANGE_BEST_EFFORT`):
 * 1. the rule (`suggest_compaction_segment`) runs on every table's size first; locks play no part;
 *    with no segment nothing is locked or merged;
 * 2. `tables.list.lock` is taken (with `reftable.lockTimeout`); when another file holds it the
 *    compaction fails with a lock error (and so does every write, see `reftable_stack_new_addition`);
 * 3. the segment's tables are locked from the newest down; at the first one whose `<table>.lock`
 *    exists, git compacts only the tables it has locked (those above the locked one) if there
 *    are at least two of them, else it fails with a lock error and merges nothing.
 * Checked against git 2.47.3 and 2.55.0 in test/locks.test.ts.
 */
export function gitAutoCompactionWithLocks(
  sizes: number[],
  versions: (1 | 2)[],
  factor: number,
  locks: StackLocks,
): LockedCompaction {
  const rule = gitAutoCompactionSegment(sizes, versions, factor);
  if (locks.tablesList) {
    return {
      rule,
      segment: null,
      outcome: 'list-locked',
      reason:
        'tables.list.lock exists: git refuses to write ("cannot lock references") and to compact ("data is locked") until it is removed',
    };
  }
  if (!rule) return { rule, segment: null, outcome: 'none', reason: 'the stack is geometric: nothing to merge' };
  for (let i = rule.end; i >= rule.start; i--) {
    if (!locks.tables[i]) continue;
    const above = rule.end - i;
    if (above >= 2) {
      return {
        rule,
        segment: { start: i + 1, end: rule.end },
        outcome: 'compacts',
        reason: `table ${i} is locked: git merges only the ${above} tables above it (${i + 1}–${rule.end}) of the segment ${rule.start}–${rule.end}`,
      };
    }
    return {
      rule,
      segment: null,
      outcome: 'locked',
      reason: `table ${i} is locked and ${above === 0 ? 'it is the newest table of the segment' : 'only 1 table of the segment is above it'}: git merges nothing (git pack-refs --auto: "unable to compact stack: data is locked")`,
    };
  }
  return { rule, segment: rule, outcome: 'compacts', reason: `git merges tables ${rule.start}–${rule.end}` };
}
