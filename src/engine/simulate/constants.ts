/**
 * constants: from counted work to estimated wall seconds (docs/simulator.md, "Time model").
 *
 * seconds = startup × processes + perTransaction × transactions + perUpdate × updates
 *         + perSeek × (seeks + logSeeks) + perBlock × blocks read
 *         + perRecord × (records decoded + restart probes + compaction records read)
 *         + perWrittenRecord × (records written + compaction records written)
 *         + perCompaction × compactions + perReload × reloads + perIterator × iterators
 *         + perListedRef × refs listed
 *         + files backend: perLooseWrite, perLooseRead, perPackedProbe, perPackedRecord.
 *
 * Three constants are fitted (calibrate.ts `fitConstants`) to the wall times the issue gives for
 * re-creating n refs with git 2.48.1, 2.50.1 and 2.56 on the recreate-1000/2000/4000 stacks:
 * `perRecord` (the quadratic part), `perUpdate` (the linear part) and `startup` (bounded below by
 * a measured-size git start-up, see `STARTUP_FLOOR`). The others are fixed multiples of
 * `perRecord` (a block, a seek and a written record cost a few record decodes) or small absolute
 * priors (a `stat`, a lock/rename round): the calibration data cannot separate them, and they
 * decide less than 5 % of any calibration point.
 */
import type { Counts, Phase, PhaseCounts } from './counts.ts';
import { PHASES, blocksRead } from './counts.ts';

/** Seconds per unit of work. */
export interface TimeConstants {
  /** Process start-up: exec, repository discovery, config (fitted, ≥ STARTUP_FLOOR). */
  startup: number;
  /** Per ref update in a transaction: object lookup and peel, bookkeeping, log entry (fitted). */
  perUpdate: number;
  /** Per record decoded (varint key decode, compare, priority-queue step) (fitted). */
  perRecord: number;
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

/** Build the full set from the three fitted values and the files cross-calibration. */
export function makeConstants(startup: number, perUpdate: number, perRecord: number, perLooseWrite: number): TimeConstants {
  return {
    startup, perUpdate, perRecord,
    perBlock: RATIOS.block * perRecord,
    perSeek: RATIOS.seek * perRecord,
    perWrittenRecord: RATIOS.written * perRecord,
    perLooseWrite,
    ...PRIORS,
  };
}

/**
 * The constants in use: the fit of calibrate.ts on the measurements (re-checked by
 * test/simulate-calibration.test.ts), rounded to three significant digits.
 */
export const CONSTANTS: TimeConstants = makeConstants(0.001, 2.0e-6, 52.2e-9, 83e-6);

/**
 * How `perLooseWrite` was set (docs/simulator.md "Files backend"): upstream's benchmark pair on
 * one machine (git mailing list, Feb 2025, "refs: batch refname availability checks"): creating
 * 10,000 refs over 100,000 existing ones took 31.9 ms with reftable (2.50) and 387.7 ms with
 * files. The git-2.55 model predicts 76.0 ms for the reftable run here, so that machine was
 * 0.42 × this one; the files model's other counts cost 95 ms; (387.7 / 0.42 − 95) ms / 10,000
 * loose writes = 83 µs per loose ref written.
 */
export const FILES_CROSS_CALIBRATION = { reftableMeasured: 0.0319, filesMeasured: 0.3877, existing: 100_000, created: 10_000 };

/** The fitted part as a linear form: [processes, updates, weighted record work]. */
export function fitFeatures(c: Counts): { startup: number; updates: number; recordWork: number; rest: number } {
  const recordWork = c.recordsDecoded + c.restartProbes + c.compactionRecordsRead
    + RATIOS.block * blocksRead(c) + RATIOS.seek * (c.seeks + c.logSeeks)
    + RATIOS.written * (c.recordsWritten + c.compactionRecordsWritten);
  const rest = PRIORS.perTransaction * c.transactions + PRIORS.perCompaction * c.compactions + PRIORS.perReload * c.reloads
    + PRIORS.perIterator * c.iterators + PRIORS.perListedRef * c.refsListed + PRIORS.perLooseRead * c.looseReads
    + PRIORS.perPackedProbe * c.packedProbes + PRIORS.perPackedRecord * c.packedRecords;
  return { startup: c.processes, updates: c.updates, recordWork, rest };
}

/** Estimated seconds for some counted work. */
export function seconds(c: Counts, k: TimeConstants = CONSTANTS): number {
  return k.startup * c.processes + k.perTransaction * c.transactions + k.perUpdate * c.updates
    + k.perSeek * (c.seeks + c.logSeeks) + k.perBlock * blocksRead(c)
    + k.perRecord * (c.recordsDecoded + c.restartProbes + c.compactionRecordsRead)
    + k.perWrittenRecord * (c.recordsWritten + c.compactionRecordsWritten)
    + k.perCompaction * c.compactions + k.perReload * c.reloads + k.perIterator * c.iterators
    + k.perListedRef * c.refsListed
    + k.perLooseWrite * c.looseWrites + k.perLooseRead * c.looseReads + k.perPackedProbe * c.packedProbes
    + k.perPackedRecord * c.packedRecords;
}

/** Seconds per phase. */
export function secondsByPhase(p: PhaseCounts, k: TimeConstants = CONSTANTS): Record<Phase, number> {
  const out = {} as Record<Phase, number>;
  for (const ph of PHASES) out[ph] = seconds(p[ph], k);
  return out;
}
