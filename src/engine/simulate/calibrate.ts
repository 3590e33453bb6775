/**
 * calibrate: the measurements the time model is fitted to, and the fit.
 *
 * Data (issue 6): wall seconds, whole `git update-ref --stdin` process, re-creating the n refs
 * that the recreate-n fixtures' tombstone table deletes, on this kind of machine.
 *
 * Fit: ordinary least squares on *relative* errors (each residual divided by its measurement, so
 * 0.01 s and 8.67 s count alike), over the linear form
 *   seconds = startup × processes + perUpdate × updates + perRecord × recordWork + rest,
 * where `recordWork` weighs records, blocks, seeks and written records by the fixed ratios of
 * constants.ts and `rest` holds the priors. If the unconstrained start-up comes out below the
 * floor (a real git start-up), it is fixed at the floor and the other two refitted.
 */
import type { Counts } from './counts.ts';
import { fitFeatures, STARTUP_FLOOR } from './constants.ts';
import type { ModelName } from './models.ts';

/** One measurement: model (git version), fixture size, wall seconds. */
export interface Measurement {
  model: ModelName;
  gitVersion: string;
  n: number;
  seconds: number;
}

/** The table: recreate-n with git 2.48.1 (git-2.49 model), 2.50.1 (git-2.55), 2.56 (git-2.56). */
export const CALIBRATION: Measurement[] = [
  { model: 'git-2.49', gitVersion: '2.48.1', n: 1000, seconds: 0.55 },
  { model: 'git-2.49', gitVersion: '2.48.1', n: 2000, seconds: 2.27 },
  { model: 'git-2.49', gitVersion: '2.48.1', n: 4000, seconds: 8.67 },
  { model: 'git-2.55', gitVersion: '2.50.1', n: 1000, seconds: 0.14 },
  { model: 'git-2.55', gitVersion: '2.50.1', n: 2000, seconds: 0.47 },
  { model: 'git-2.55', gitVersion: '2.50.1', n: 4000, seconds: 1.85 },
  { model: 'git-2.56', gitVersion: '2.56 (development)', n: 1000, seconds: 0.01 },
  { model: 'git-2.56', gitVersion: '2.56 (development)', n: 2000, seconds: 0.02 },
  { model: 'git-2.56', gitVersion: '2.56 (development)', n: 4000, seconds: 0.06 },
];

/**
 * Published figures from CONTEXT.md used as out-of-sample checks (different machines):
 * case 2, create n refs after n were deleted, before (git ≤ 2.55) and after (2.56) the fix.
 */
export const CASE2: { model: ModelName; n: number; seconds: number }[] = [
  { model: 'git-2.55', n: 1000, seconds: 0.306 }, { model: 'git-2.55', n: 2000, seconds: 0.945 },
  { model: 'git-2.55', n: 4000, seconds: 3.816 }, { model: 'git-2.55', n: 8000, seconds: 14.93 },
  { model: 'git-2.56', n: 1000, seconds: 0.020 }, { model: 'git-2.56', n: 2000, seconds: 0.044 },
  { model: 'git-2.56', n: 4000, seconds: 0.071 }, { model: 'git-2.56', n: 8000, seconds: 0.145 },
  { model: 'git-2.56', n: 16000, seconds: 0.258 }, { model: 'git-2.56', n: 32000, seconds: 0.591 },
];

/** The three fitted constants. */
export interface Fit {
  startup: number;
  perUpdate: number;
  perRecord: number;
  /** True when the start-up hit the floor. */
  startupAtFloor: boolean;
  /** Worst ratio max(pred/meas, meas/pred) over the points. */
  worstRatio: number;
}

/** Solve the small normal equations A x = b (Gaussian elimination with partial pivoting). */
function solve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((r, i) => [...r, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
    [M[c], M[p]] = [M[p], M[c]];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = M[r][c] / M[c][c];
      for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
    }
  }
  return M.map((r, i) => r[n] / r[i]);
}

/**
 * Fit startup, perUpdate and perRecord to measured runs (`counts` from the simulator, `seconds`
 * measured). `y` is relative (weights 1/seconds²).
 */
export function fitConstants(points: { counts: Counts; seconds: number }[], floor = STARTUP_FLOOR): Fit {
  const feats = points.map((p) => fitFeatures(p.counts));
  const y = points.map((p, i) => p.seconds - feats[i].rest);
  // Relative weights use the measured seconds, not y.
  const rel = (X: number[][], yy: number[]) => {
    const k = X[0].length;
    const A = Array.from({ length: k }, () => new Array(k).fill(0));
    const b = new Array(k).fill(0);
    X.forEach((row, i) => {
      const w = 1 / (points[i].seconds * points[i].seconds);
      for (let p = 0; p < k; p++) {
        b[p] += w * row[p] * yy[i];
        for (let q = 0; q < k; q++) A[p][q] += w * row[p] * row[q];
      }
    });
    return solve(A, b);
  };
  let [startup, perUpdate, perRecord] = rel(feats.map((f) => [f.startup, f.updates, f.recordWork]), y);
  let atFloor = false;
  if (startup < floor) {
    atFloor = true;
    startup = floor;
    [perUpdate, perRecord] = rel(feats.map((f) => [f.updates, f.recordWork]), y.map((v, i) => v - floor * feats[i].startup));
  }
  let worst = 1;
  points.forEach((p, i) => {
    const f = feats[i];
    const pred = startup * f.startup + perUpdate * f.updates + perRecord * f.recordWork + f.rest;
    worst = Math.max(worst, pred / p.seconds, p.seconds / pred);
  });
  return { startup, perUpdate, perRecord, startupAtFloor: atFloor, worstRatio: worst };
}
