/**
 * constants: from counted work to estimated wall seconds (docs/simulator.md, "Time model").
 *
 * seconds = startup × processes + perTransaction × transactions + perUpdate × updates
 *         + perSeek × (seeks + logSeeks) + perBlock × blocks read
 *         + perRecord × (records decoded + restart probes + compaction records read)
 *         + perWrittenRecord × (records written + compaction records written)
 *         + perCompaction × compactions + perReload × reloads + perIterator × iterators
 *         + perListedRef × refs listed + perLongScanBlock × blocks of long scans
 *         + files backend: perLooseWrite, perLooseRead, perPackedProbe, perPackedRecord.
 *
 * Four constants are fitted (calibrate.ts `fitConstants`) to the wall times the issue gives for
 * re-creating n refs with git 2.48.1, 2.50.1 and 2.56 on the recreate-1000/2000/4000 stacks,
 * subject to the mailing-list case 2's published figures staying within 2×: `perRecord` (the
 * quadratic part, git ≥ 2.50), its git ≤ 2.49 counterpart in `perRecordByModel`, `perUpdate` and
 * `startup` (bounded below by a git start-up, see `STARTUP_FLOOR`). The others are fixed
 * multiples of the per-record cost (a block, a seek and a written record cost a few record
 * decodes) or small absolute priors (a `stat`, a lock/rename round): the calibration data cannot
 * separate them, and they decide less than 5 % of any calibration point. `perLooseWrite` is
 * fitted to the published files-backend figures (`fitLooseWrite`).
 */
import type { Counts, Phase, PhaseCounts } from './counts.ts';
import type { ModelName } from './models.ts';
import { PHASES, blocksRead } from './counts.ts';

/** Seconds per unit of work. */
export interface TimeConstants {
  /** Process start-up: exec, repository discovery, config (fitted, ≥ STARTUP_FLOOR). */
  startup: number;
  /** Per ref update in a transaction: object lookup and peel, bookkeeping, log entry (fitted). */
  perUpdate: number;
  /**
   * Per record decoded (varint key decode, compare, priority-queue step), git 2.50 and later
   * (fitted). Also the default for models without their own entry in `perRecordByModel`.
   */
  perRecord: number;
  /**
   * Per record decoded for models whose git versions ran an older reftable library (fitted per
   * version: git 2.48.1's merged iterator is measurably cheaper per record than 2.50.1's, see
   * docs/simulator.md "The fit"). perBlock, perSeek and perWrittenRecord follow the same ratios.
   */
  perRecordByModel: Partial<Record<ModelName, number>>;
  /**
   * Per ref update, for models whose git does measurably more per update than the counted reads
   * show (fitted: git 2.47.3's `update-ref` costs more per line than 2.55's besides its dwim reads).
   */
  perUpdateByModel?: Partial<Record<ModelName, number>>;
  /** Per block read: header, restart table, bounds (RATIOS.block × perRecord). */
  perBlock: number;
  /** Per table seek, beyond its blocks and records: iterator set-up (RATIOS.seek × perRecord). */
  perSeek: number;
  /** Per record written: key prefix compression, value, obj-index entry (RATIOS.written × perRecord). */
  perWrittenRecord: number;
  /** Per transaction: lock tables.list, new table file, rename, tables.list rewrite (prior). */
  perTransaction: number;
  /** Per auto-compaction: new table file, rename, tables.list rewrite (prior). */
  perCompaction: number;
  /** Per stack reload check (one `stat` of tables.list) (prior). */
  perReload: number;
  /** Per ref iterator created (allocation, sub-iterators) (prior). */
  perIterator: number;
  /** Per ref yielded to a scan's caller (prior). */
  perListedRef: number;
  /** Files backend: per loose ref written (lock file, write, rename, reflog) (cross-calibrated). */
  perLooseWrite: number;
  /** Files backend: per loose ref read or directory probe (lstat/open) (prior). */
  perLooseRead: number;
  /** Files backend: per packed-refs binary-search probe (prior). */
  perPackedProbe: number;
  /** Files backend: per packed-refs record parsed, listed or rewritten (prior). */
  perPackedRecord: number;
  /**
   * Per new object id checked in the object database (outside the ref store: find the object in
   * the pack index, inflate and parse it), once per distinct id per process (fitted on the
   * recorded real-git data, measured/real-gits.json).
   */
  perObjectCheck: number;
  /** Per reflog entry written (`core.logAllRefUpdates`): formatting, and for files an append (fitted). */
  perReflog: number;
  /**
   * The files backend's own per-transaction and per-reflog costs (fitted apart: a files
   * transaction locks packed-refs, a reftable one writes a table and rewrites tables.list; a files
   * reflog entry opens and appends to logs/<ref>, a reftable one is a log record).
   */
  perTransactionFiles?: number;
  /** Per update that writes a value (not a deletion): the new value's parse, queueing and record (fitted). */
  perValueWrite?: number;
  /**
   * Per block a merged seek enters beyond its first `LONG_SCAN_BLOCKS` (counts.ts), on top of the
   * block's own records and its `perBlock`: a long scan's records no longer stay in a core's
   * cache from one seek to the next (fitted on the recorded real-git runs; it matters for the
   * re-creations at 16,000 refs, where git's time grows faster than n²).
   */
  perLongScanBlock?: number;
  perReflogFiles?: number;
}

/** Where the time goes, outside and inside the ref store (the breakdown's parts). */
export type CostPart = 'refStore' | 'objects' | 'reflogs' | 'files' | 'updates' | 'startup';
export const COST_PARTS: CostPart[] = ['refStore', 'objects', 'reflogs', 'files', 'updates', 'startup'];
export const COST_PART_WORDS: Record<CostPart, string> = {
  refStore: 'ref store',
  objects: 'objects',
  reflogs: 'reflogs',
  files: 'lock/rename/fsync',
  updates: 'per-update bookkeeping',
  startup: 'process start',
};

/**
 * Seconds per part: the ref store (reads, scans, availability checks, records written, the
 * records compaction merges, dwim reads), objects (new object ids checked), reflogs, file
 * operations (per transaction and compaction: lock, table file, rename, tables.list; per loose
 * ref: lock, write, rename), per-update bookkeeping, process start. Sums to `seconds(c, k)`.
 */
export function secondsByPart(c: Counts, k: TimeConstants = CONSTANTS): Record<CostPart, number> {
  const startup = k.startup * c.processes;
  const objects = k.perObjectCheck * c.objectChecks;
  const reflogs = k.perReflog * c.reflogWrites;
  const files = k.perTransaction * c.transactions + k.perCompaction * c.compactions + k.perLooseWrite * c.looseWrites;
  const updates = k.perUpdate * c.updates + (k.perValueWrite ?? 0) * c.valueWrites;
  const refStore = seconds(c, k) - startup - objects - reflogs - files - updates;
  return { refStore: Math.max(0, refStore), objects, reflogs, files, updates, startup };
}

/** Fixed ratios to `perRecord` (docs/simulator.md explains each). */
export const RATIOS = { block: 4, seek: 6, written: 8 };

/** Lower bound for the fitted start-up (git's own start-up on a small repository, about 1 ms). */
export const STARTUP_FLOOR = 0.001;

/** Priors (absolute seconds). */
export const PRIORS = {
  perTransaction: 100e-6,
  perCompaction: 100e-6,
  perReload: 1e-6,
  perIterator: 2e-6,
  perListedRef: 1e-6,
  perLooseRead: 2e-6,
  perPackedProbe: 0.1e-6,
  perPackedRecord: 0.2e-6,
};

/** Build the full set from the fitted values and the files cross-calibration. */
export function makeConstants(
  startup: number,
  perUpdate: number,
  perRecord: number,
  perLooseWrite: number,
  perRecordByModel: Partial<Record<ModelName, number>> = {},
  outside: {
    perObjectCheck?: number;
    perReflog?: number;
    perTransaction?: number;
    perUpdateByModel?: Partial<Record<ModelName, number>>;
    perTransactionFiles?: number;
    perReflogFiles?: number;
    perValueWrite?: number;
    perLongScanBlock?: number;
  } = {},
): TimeConstants {
  return {
    startup,
    perUpdate,
    perRecord,
    perRecordByModel,
    perUpdateByModel: outside.perUpdateByModel ?? {},
    perBlock: RATIOS.block * perRecord,
    perSeek: RATIOS.seek * perRecord,
    perWrittenRecord: RATIOS.written * perRecord,
    perLooseWrite,
    ...PRIORS,
    perTransaction: outside.perTransaction ?? PRIORS.perTransaction,
    perCompaction: outside.perTransaction ?? PRIORS.perCompaction,
    perObjectCheck: outside.perObjectCheck ?? 0,
    perReflog: outside.perReflog ?? 0,
    ...(outside.perTransactionFiles !== undefined ? { perTransactionFiles: outside.perTransactionFiles } : {}),
    ...(outside.perReflogFiles !== undefined ? { perReflogFiles: outside.perReflogFiles } : {}),
    ...(outside.perValueWrite !== undefined ? { perValueWrite: outside.perValueWrite } : {}),
    ...(outside.perLongScanBlock !== undefined ? { perLongScanBlock: outside.perLongScanBlock } : {}),
  };
}

/**
 * The constants a model's counts are priced with: `k`, with the model's own per-record cost (and
 * the block, seek and written-record costs derived from it) when `k.perRecordByModel` has one —
 * for ref updates only (`workload` 'updates'): that cost was fitted on `update-ref --stdin` runs,
 * so reads, scans and object lookups, which every version does alike, are priced alike.
 */
export function constantsFor(
  k: TimeConstants,
  model: ModelName,
  workload: 'updates' | 'lookups' | 'scans' | 'objects' = 'updates',
): TimeConstants {
  if (model === 'files' && (k.perTransactionFiles !== undefined || k.perReflogFiles !== undefined)) {
    return {
      ...k,
      perTransaction: k.perTransactionFiles ?? k.perTransaction,
      perReflog: k.perReflogFiles ?? k.perReflog,
    };
  }
  if (workload !== 'updates') return k;
  const pr = k.perRecordByModel?.[model];
  const pu = k.perUpdateByModel?.[model];
  let out = k;
  if (pr !== undefined && pr !== k.perRecord)
    out = {
      ...out,
      perRecord: pr,
      perBlock: RATIOS.block * pr,
      perSeek: RATIOS.seek * pr,
      perWrittenRecord: RATIOS.written * pr,
    };
  if (pu !== undefined && pu !== k.perUpdate) out = { ...out, perUpdate: pu };
  return out;
}

/**
 * The constants in use: calibrate.ts `fitRealGits` on the recorded real-git CPU times
 * (measured/real-gits.json, `npm run calibrate:real` on the test machine; `npm run calibrate:fit
 * -- --constants` prints this line), rounded to three significant digits. Re-checked by
 * test/simulate-realgit.test.ts. Seconds are CPU seconds (user + sys) of the git process.
 */
export const CONSTANTS: TimeConstants = makeConstants(
  0.00188,
  0,
  6.59e-8,
  0.00049,
  { 'git-2.49': 8.21e-8, 'git-2.56': 7.18e-8 },
  {
    perObjectCheck: 0.00000989,
    perReflog: 0.00000308,
    perTransaction: 0.000855,
    perUpdateByModel: { 'git-2.49': 0.00000654 },
    perTransactionFiles: 0.000615,
    perReflogFiles: 0.00181,
    perValueWrite: 0.0000029,
    perLongScanBlock: 0.0000193,
  },
);

/**
 * The previous constants: a constrained fit on published wall-clock figures of other
 * machines (calibrate.ts CALIBRATION and CASE2, `fitConstants`), kept for the hand-made fit tests
 * and for comparison; nothing prices with them.
 */
export const PUBLISHED_FIT_CONSTANTS: TimeConstants = makeConstants(0.001, 0, 70.4e-9, 69.9e-6, {
  'git-2.49': 48.7e-9,
});

/**
 * How `perLooseWrite` was set (docs/simulator.md "Files backend"): `fitLooseWrite` over the three
 * published files-backend figures, each priced with the files model's other counts:
 * - upstream's benchmark pair on one machine (git mailing list, Feb 2025, "refs: batch refname
 *   availability checks"): creating 10,000 refs over 100,000 packed ones took 31.9 ms with
 *   reftable (2.50) and 387.7 ms with files; the git-2.55 model's estimate of the reftable run
 *   scales the files figure to this machine;
 * - the mailing-list case 1, brian's run: 50,000 loose refs created, 5.5 s;
 * - the mailing-list case 1, the second reporter's run: the ~5,250 refs of a 332 KB linux.git table
 *   re-created, 223 ms.
 * test/simulate-calibration.test.ts refits it and checks each figure within 2×.
 */
export const FILES_CROSS_CALIBRATION = {
  reftableMeasured: 0.0319,
  filesMeasured: 0.3877,
  existing: 100_000,
  created: 10_000,
};

/** The fitted part as a linear form: [processes, updates, weighted record work]. */
export function fitFeatures(c: Counts): { startup: number; updates: number; recordWork: number; rest: number } {
  const recordWork =
    c.recordsDecoded +
    c.restartProbes +
    c.compactionRecordsRead +
    RATIOS.block * blocksRead(c) +
    RATIOS.seek * (c.seeks + c.logSeeks) +
    RATIOS.written * (c.recordsWritten + c.compactionRecordsWritten);
  const rest =
    PRIORS.perTransaction * c.transactions +
    PRIORS.perCompaction * c.compactions +
    PRIORS.perReload * c.reloads +
    PRIORS.perIterator * c.iterators +
    PRIORS.perListedRef * c.refsListed +
    PRIORS.perLooseRead * c.looseReads +
    PRIORS.perPackedProbe * c.packedProbes +
    PRIORS.perPackedRecord * c.packedRecords;
  return { startup: c.processes, updates: c.updates, recordWork, rest };
}

/** Estimated seconds for some counted work. */
export function seconds(c: Counts, k: TimeConstants = CONSTANTS): number {
  return (
    k.startup * c.processes +
    k.perTransaction * c.transactions +
    k.perUpdate * c.updates +
    k.perSeek * (c.seeks + c.logSeeks) +
    k.perBlock * blocksRead(c) +
    k.perRecord * (c.recordsDecoded + c.restartProbes + c.compactionRecordsRead) +
    k.perWrittenRecord * (c.recordsWritten + c.compactionRecordsWritten) +
    k.perCompaction * c.compactions +
    k.perReload * c.reloads +
    k.perIterator * c.iterators +
    k.perListedRef * c.refsListed +
    k.perLooseWrite * c.looseWrites +
    k.perLooseRead * c.looseReads +
    k.perPackedProbe * c.packedProbes +
    k.perPackedRecord * c.packedRecords +
    (k.perObjectCheck ?? 0) * c.objectChecks +
    (k.perReflog ?? 0) * c.reflogWrites +
    (k.perValueWrite ?? 0) * c.valueWrites +
    (k.perLongScanBlock ?? 0) * c.longScanBlocks
  );
}

/** Seconds per phase. */
export function secondsByPhase(p: PhaseCounts, k: TimeConstants = CONSTANTS): Record<Phase, number> {
  const out = {} as Record<Phase, number>;
  for (const ph of PHASES) out[ph] = seconds(p[ph], k);
  return out;
}

/** Every constant times \`f\` (a machine's factor: measured ÷ predicted). */
export function scaleConstants(k: TimeConstants, f: number): TimeConstants {
  const out = { ...k, perRecordByModel: { ...k.perRecordByModel } } as TimeConstants;
  for (const key of Object.keys(out) as (keyof TimeConstants)[]) {
    const v = out[key];
    if (typeof v === 'number') (out as unknown as Record<string, number>)[key] = v * f;
  }
  for (const m of Object.keys(out.perRecordByModel) as ModelName[])
    out.perRecordByModel[m] = out.perRecordByModel[m]! * f;
  out.perUpdateByModel = { ...(k.perUpdateByModel ?? {}) };
  for (const m of Object.keys(out.perUpdateByModel) as ModelName[])
    out.perUpdateByModel[m] = out.perUpdateByModel[m]! * f;
  return out;
}
