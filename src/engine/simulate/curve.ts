/**
 * curve: estimated time against batch size n (1 … 10^5), per model, for a log–log chart.
 *
 * Computed analytically from one simulated run of W operations (docs/simulator.md "Curve"):
 * its estimated seconds are split into
 * - fixed: process start-up;
 * - stepping: the iteration work spent walking past entries beyond the first one per merged
 *   seek (tombstones and entries a reader cannot stop at), i.e. the part that grows with the
 *   stack: fraction f = (merged entries − merged seeks) / merged entries of the iteration
 *   records and blocks;
 * - linear: everything else (seeks, reads, writes, compaction, per-update work).
 * Two series:
 * - `sameShape`: batch and stack grow together (n refs re-created over n tombstones, the recreate
 *   case): fixed + linear·(n/W) + stepping·(n/W)·(n/T), where T is the number of tombstones the
 *   simulated stack holds (the stepping per operation is proportional to them; W when it holds
 *   none) — quadratic where stepping dominates, (n/W)² for the recreate workload itself (T = W);
 * - `fixedStack`: the stack as it is, batch scaled: fixed + (linear + stepping)·(n/W) — linear.
 */
import type { Counts } from './counts.ts';
import { CONSTANTS, constantsFor, seconds, type TimeConstants } from './constants.ts';
import type { ModelName } from './models.ts';

/** Batch sizes of the curve. */
export const CURVE_N = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000];

/** One model's curve. */
export interface CurveSeries {
  model: ModelName;
  /** Seconds at each n of `CurveData.n`, stack scaled with the batch. */
  sameShape: number[];
  /** Seconds at each n, stack unchanged. */
  fixedStack: number[];
  /** The split the curve is built from (seconds at the simulated size). */
  parts: { fixed: number; linear: number; stepping: number };
}

/**
 * The largest batch each model was checked against real git at (measured/real-gits.json: git
 * 2.47.3 and 2.55.0 re-creating 16,000 refs, the next snapshot 32,000; the files backend 4,000);
 * beyond it a curve is extrapolated, and the chart says so. test/simulate-realgit.test.ts checks
 * these against the recorded file.
 */
export const MEASURED_UP_TO: Record<ModelName, number> = {
  'git-2.49': 16000,
  'git-2.55': 16000,
  'git-2.56': 32000,
  initial: 0,
  files: 4000,
};

/** Curve data for a chart. */
export interface CurveData {
  /** Per model, the largest n measured with real git (MEASURED_UP_TO): beyond it the curve is extrapolated. */
  measuredUpTo?: Partial<Record<ModelName, number>>;
  n: number[];
  /** Operations in the simulated workload (the curve passes through it exactly). */
  simulatedN: number;
  series: CurveSeries[];
}

/** Split a run's seconds into fixed, linear and stepping parts. */
export function splitSeconds(
  total: Counts,
  k: TimeConstants = CONSTANTS,
): { fixed: number; linear: number; stepping: number } {
  const all = seconds(total, k);
  const fixed = k.startup * total.processes;
  const extra = Math.max(0, total.mergedEntries - total.mergedSeeks);
  const f = total.mergedEntries > 0 ? extra / total.mergedEntries : 0;
  const stepping = f * (k.perRecord * total.iterRecords + k.perBlock * total.iterBlocks);
  return { fixed, linear: Math.max(0, all - fixed - stepping), stepping };
}

/** Build the curve for runs of `w` operations. */
export function buildCurve(
  runs: { model: ModelName; total: Counts }[],
  w: number,
  k: TimeConstants = CONSTANTS,
  ns: number[] = CURVE_N,
  tombstones = w,
  kind: 'updates' | 'lookups' | 'scans' | 'objects' = 'updates',
): CurveData {
  const t = Math.max(1, tombstones > 0 ? tombstones : w);
  const series = runs.map(({ model, total }) => {
    const parts = splitSeconds(total, constantsFor(k, model, kind));
    const sameShape = ns.map((n) => {
      const r = n / Math.max(1, w);
      return parts.fixed + parts.linear * r + parts.stepping * r * (n / t);
    });
    const fixedStack = ns.map((n) => parts.fixed + (parts.linear + parts.stepping) * (n / Math.max(1, w)));
    return { model, sameShape, fixedStack, parts };
  });
  return {
    n: ns.slice(),
    simulatedN: w,
    series,
    measuredUpTo: Object.fromEntries(runs.map((r) => [r.model, MEASURED_UP_TO[r.model]])),
  };
}
