/**
 * calibrate: the measurements the time model is fitted to, and the fit.
 *
 * Data: wall seconds, whole `git update-ref --stdin` process, re-creating the n refs
 * that the recreate-n fixtures' tombstone table deletes, on this kind of machine.
 *
 * Fit (`fitConstants`): least squares on *relative* errors (each residual divided by its
 * measurement, so 0.01 s and 8.67 s count alike) over the linear form
 *   seconds = startup × processes + perUpdate × updates + perRecord(model) × recordWork + rest,
 * where `recordWork` weighs records, blocks, seeks and written records by the fixed ratios of
 * constants.ts and `rest` holds the priors; subject to startup ≥ the floor (a real git start-up),
 * perUpdate ≥ 0 and the published figures given as bounds (the mailing-list case 2) within 2×.
 * `fitLooseWrite` fits the files backend's per-loose-ref cost to published figures.
 */
import { zeroCounts, type Counts } from './counts.ts';
import { fitFeatures, makeConstants, STARTUP_FLOOR, type TimeConstants } from './constants.ts';
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
 * Published mailing-list figures used as out-of-sample checks (different machines):
 * case 2, create n refs after n were deleted, before (git ≤ 2.55) and after (2.56) the fix.
 */
export const CASE2: { model: ModelName; n: number; seconds: number }[] = [
  { model: 'git-2.55', n: 1000, seconds: 0.306 },
  { model: 'git-2.55', n: 2000, seconds: 0.945 },
  { model: 'git-2.55', n: 4000, seconds: 3.816 },
  { model: 'git-2.55', n: 8000, seconds: 14.93 },
  { model: 'git-2.56', n: 1000, seconds: 0.02 },
  { model: 'git-2.56', n: 2000, seconds: 0.044 },
  { model: 'git-2.56', n: 4000, seconds: 0.071 },
  { model: 'git-2.56', n: 8000, seconds: 0.145 },
  { model: 'git-2.56', n: 16000, seconds: 0.258 },
  { model: 'git-2.56', n: 32000, seconds: 0.591 },
];

/** A measurement the fit minimises the relative error of: counted work and wall seconds. */
export interface FitPoint {
  model: ModelName;
  counts: Counts;
  seconds: number;
}

/** A published figure the fit must reproduce within a factor (a constraint, not a residual). */
export interface FitBound extends FitPoint {
  /** The estimate must lie in [seconds / within, seconds × within]. */
  within: number;
}

/** The fitted constants. */
export interface Fit {
  startup: number;
  perUpdate: number;
  /** Per record, git 2.50 and later (and every model without its own). */
  perRecord: number;
  /** Per record for the models of `ownRecordCost` (git-2.49 by default). */
  perRecordByModel: Partial<Record<ModelName, number>>;
  /** Constraints that hold with equality at the optimum (e.g. "startup ≥ floor", "case2 git-2.55 n=1000 ≥ ÷2"). */
  active: string[];
  /** Worst ratio max(pred/meas, meas/pred) over the points. */
  worstRatio: number;
  /** Worst ratio over the bounds (≤ their `within` when the fit is feasible). */
  worstBoundRatio: number;
}

/** Solve the small linear system A x = b (Gaussian elimination with partial pivoting). */
function solve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((r, i) => [...r, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
    [M[c], M[p]] = [M[p], M[c]];
    if (M[c][c] === 0) throw new Error('fitConstants: singular system (too few points for the parameters)');
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = M[r][c] / M[c][c];
      for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
    }
  }
  return M.map((r, i) => r[n] / r[i]);
}

/** Parameter scales (seconds) so the normal equations are well conditioned. */
const SCALE = [1e-3, 1e-6, 1e-8, 1e-8];

/**
 * Fit startup, perUpdate and the per-record costs (one for git ≥ 2.50, one per model of
 * `ownRecordCost`) to measured runs, by least squares on relative errors (weights 1/seconds²),
 * subject to: startup ≥ `floor`, perUpdate ≥ 0, and every bound reproduced within its factor
 * (times 0.99, so rounding the result to three digits keeps it). Inequality-constrained least
 * squares by a primal active set: solve with the active constraints as equalities (KKT system),
 * add the most violated constraint, drop one whose multiplier has the wrong sign, repeat.
 * The model is linear in these parameters once the ratios and priors of constants.ts are fixed.
 * Throws Error when the constraints cannot be met together.
 */
export function fitConstants(
  points: FitPoint[],
  bounds: FitBound[] = [],
  opts: { floor?: number; ownRecordCost?: ModelName[] } = {},
): Fit {
  const floor = opts.floor ?? STARTUP_FLOOR;
  const own = new Set<ModelName>(opts.ownRecordCost ?? ['git-2.49']);
  const ownModel = [...own][0];
  const row = (p: FitPoint): { x: number[]; rest: number } => {
    const f = fitFeatures(p.counts);
    const x = [f.startup, f.updates, own.has(p.model) ? 0 : f.recordWork, own.has(p.model) ? f.recordWork : 0];
    return { x: x.map((v, i) => v * SCALE[i]), rest: f.rest };
  };
  const P = points.map(row);
  const k = 4;
  const H = Array.from({ length: k }, () => new Array(k).fill(0));
  const c = new Array(k).fill(0);
  P.forEach(({ x, rest }, i) => {
    const w = 1 / (points[i].seconds * points[i].seconds);
    const y = points[i].seconds - rest;
    for (let a = 0; a < k; a++) {
      c[a] += w * x[a] * y;
      for (let b = 0; b < k; b++) H[a][b] += w * x[a] * x[b];
    }
  });
  // Unused per-record columns (no point of that kind) are pinned to the other one.
  const hasOwn = points.some((p) => own.has(p.model));
  const hasShared = points.some((p) => !own.has(p.model));
  // Constraints G θ ≥ h, each with a name and a normaliser for "most violated".
  const cons: { name: string; g: number[]; h: number; eq?: boolean }[] = [
    { name: 'startup ≥ floor', g: [SCALE[0], 0, 0, 0], h: floor },
    { name: 'perUpdate ≥ 0', g: [0, SCALE[1], 0, 0], h: 0 },
  ];
  if (!hasOwn) cons.push({ name: `perRecord(${ownModel}) = perRecord`, g: [0, 0, -1, 1], h: 0, eq: true });
  if (!hasShared) cons.push({ name: `perRecord = perRecord(${ownModel})`, g: [0, 0, 1, -1], h: 0, eq: true });
  for (const bd of bounds) {
    const { x, rest } = row(bd);
    const m = bd.within * 0.99;
    const tag = `${bd.model} ${bd.seconds} s`;
    cons.push({ name: `${tag} ≥ ÷${bd.within}`, g: x, h: bd.seconds / m - rest });
    cons.push({ name: `${tag} ≤ ×${bd.within}`, g: x.map((v) => -v), h: -(bd.seconds * m - rest) });
  }
  const active = new Set<number>(cons.map((q, i) => (q.eq ? i : -1)).filter((i) => i >= 0));
  let theta = new Array(k).fill(0);
  for (let iter = 0; iter < 100; iter++) {
    const A = [...active].map((i) => cons[i]);
    const n = k + A.length;
    const M = Array.from({ length: n }, () => new Array(n).fill(0));
    const rhs = new Array(n).fill(0);
    for (let a = 0; a < k; a++) {
      for (let b = 0; b < k; b++) M[a][b] = H[a][b];
      rhs[a] = c[a];
    }
    A.forEach((q, j) => {
      for (let a = 0; a < k; a++) {
        M[a][k + j] = q.g[a];
        M[k + j][a] = q.g[a];
      }
      rhs[k + j] = q.h;
    });
    let sol: number[];
    try {
      sol = solve(M, rhs);
    } catch (e) {
      // Parallel active constraints that cannot hold together (two bounds on one point).
      if (!A.some((q) => / [≥≤] [÷×]/.test(q.name))) throw e;
      throw new Error(`fitConstants: no constants reproduce these together: ${A.map((q) => q.name).join('; ')}`, {
        cause: e,
      });
    }
    theta = sol.slice(0, k);
    // Multipliers: H θ − c + Gᵀν = 0 with ν = −λ; an inequality needs λ ≥ 0, i.e. ν ≤ 0.
    let drop = -1;
    let worstNu = 1e-12;
    A.forEach((q, j) => {
      if (!q.eq && sol[k + j] > worstNu) {
        worstNu = sol[k + j];
        drop = [...active][j];
      }
    });
    let add = -1;
    let worstViol = 1e-12;
    cons.forEach((q, i) => {
      if (active.has(i)) return;
      const v = q.h - q.g.reduce((s2, g, a) => s2 + g * theta[a], 0);
      const norm = Math.abs(q.h) || 1e-3;
      if (v / norm > worstViol) {
        worstViol = v / norm;
        add = i;
      }
    });
    if (add >= 0) {
      active.add(add);
      continue;
    }
    if (drop >= 0) {
      active.delete(drop);
      continue;
    }
    break;
  }
  const [startup, perUpdate, perRecord, perOwn] = theta.map((t, i) => t * SCALE[i]);
  const price = (p: FitPoint) => {
    const { x, rest } = row(p);
    return x.reduce((s2, v, a) => s2 + v * theta[a], 0) + rest;
  };
  let worst = 1;
  points.forEach((p) => {
    const e = price(p);
    worst = Math.max(worst, e / p.seconds, p.seconds / e);
  });
  let worstB = 1;
  bounds.forEach((p) => {
    const e = price(p);
    worstB = Math.max(worstB, e / p.seconds, p.seconds / e);
  });
  for (const bd of bounds) {
    const e = price(bd);
    if (!(e <= bd.seconds * bd.within && e >= bd.seconds / bd.within)) {
      throw new Error(
        `fitConstants: no constants reproduce ${bd.model} ${bd.seconds} s within ${bd.within}× (best ${e.toPrecision(3)} s)`,
      );
    }
  }
  const perRecordByModel: Partial<Record<ModelName, number>> = {};
  for (const m of own) perRecordByModel[m] = perOwn;
  return {
    startup,
    perUpdate,
    perRecord,
    perRecordByModel,
    active: [...active].map((i) => cons[i].name),
    worstRatio: worst,
    worstBoundRatio: worstB,
  };
}

/**
 * A files-backend figure for `fitLooseWrite`: the files model's counted loose writes for the
 * reported run, the seconds its other counts cost, and the reported seconds.
 */
export interface LooseWritePoint {
  what: string;
  looseWrites: number;
  otherSeconds: number;
  seconds: number;
}

/**
 * Fit `perLooseWrite` (seconds per loose ref written: lock file, write, rename) to published
 * files-backend figures by least squares on log ratios: minimises Σ ln²(estimate / reported) over
 * a single positive constant (golden-section search on its logarithm; the sum is unimodal there).
 * Loose writes are file-system bound and the figures come from different machines and file
 * systems, so the log scale weighs a 2× miss the same either way.
 * Throws Error when no point has loose writes.
 */
export function fitLooseWrite(points: LooseWritePoint[]): number {
  if (!points.some((p) => p.looseWrites > 0)) throw new Error('fitLooseWrite: no point writes loose refs');
  const f = (lb: number) => {
    const b = Math.exp(lb);
    return points.reduce((s, p) => s + Math.log((b * p.looseWrites + p.otherSeconds) / p.seconds) ** 2, 0);
  };
  let lo = Math.log(1e-8);
  let hi = Math.log(1e-1);
  const g = (Math.sqrt(5) - 1) / 2;
  let x1 = hi - g * (hi - lo);
  let x2 = lo + g * (hi - lo);
  let f1 = f(x1);
  let f2 = f(x2);
  for (let i = 0; i < 200 && hi - lo > 1e-9; i++) {
    if (f1 <= f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - g * (hi - lo);
      f1 = f(x1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + g * (hi - lo);
      f2 = f(x2);
    }
  }
  return Math.exp((lo + hi) / 2);
}

/** The parameters `fitRealGits` fits, in its column order. */
export const REAL_FIT_PARAMS = [
  'startup',
  'perUpdate',
  'perUpdate(git-2.49)',
  'perObjectCheck',
  'perReflog',
  'perTransaction',
  'perLooseWrite',
  'perTransaction(files)',
  'perReflog(files)',
  'perValueWrite',
  'perRecord(git-2.49)',
  'perRecord(git-2.55)',
  'perRecord(git-2.56)',
  'perLongScanBlock',
] as const;
export type RealFitParam = (typeof REAL_FIT_PARAMS)[number];

/** One recorded real-git run for `fitRealGits`: the model's counts of the same work and the CPU seconds measured. */
export interface RealFitPoint {
  model: ModelName;
  counts: Counts;
  seconds: number;
  /** What it was, for messages. */
  what?: string;
}

/** The result of `fitRealGits`. */
export interface RealFit {
  values: Record<RealFitParam, number>;
  /** Worst max(est/meas, meas/est) over the points. */
  worstRatio: number;
  /** Parameters held at zero by the non-negativity constraint. */
  atZero: RealFitParam[];
}

/** The features of `fitRealGits` for a point (seconds per unit × these = the fitted part). */
export function realFitRow(p: { model: ModelName; counts: Counts }): { x: number[]; rest: number } {
  const c = p.counts;
  const f = fitFeatures(c);
  const files = p.model === 'files';
  const rec = (m: ModelName) =>
    p.model === m || (m === 'git-2.55' && p.model !== 'git-2.49' && p.model !== 'git-2.56') ? f.recordWork : 0;
  return {
    x: [
      c.processes,
      p.model === 'git-2.49' ? 0 : c.updates,
      p.model === 'git-2.49' ? c.updates : 0,
      c.objectChecks,
      files ? 0 : c.reflogWrites,
      files ? 0 : c.transactions + c.compactions,
      c.looseWrites,
      files ? c.transactions + c.compactions : 0,
      files ? c.reflogWrites : 0,
      c.valueWrites,
      rec('git-2.49'),
      rec('git-2.55'),
      rec('git-2.56'),
      files ? 0 : c.longScanBlocks,
    ],
    // fitFeatures' rest prices transactions and compactions with the priors; here they are fitted.
    rest: f.rest - 100e-6 * (c.transactions + c.compactions),
  };
}

/**
 * Fit every constant the recorded real-git runs resolve (REAL_FIT_PARAMS) by non-negative least
 * squares on relative errors: minimise Σ ((estimate − measured) / measured)² subject to every
 * constant ≥ 0 (Lawson–Hanson active set on the column-normalised system). The records, blocks,
 * seeks and written records of the ref store keep their fixed ratios (constants.ts RATIOS), one
 * per-record cost per model (each model's git ran its own reftable library). Columns no point
 * exercises come out 0.
 */
export function fitRealGits(points: RealFitPoint[]): RealFit {
  const k = REAL_FIT_PARAMS.length;
  const rows = points.map((p) => {
    const { x, rest } = realFitRow(p);
    const w = 1 / p.seconds;
    return { a: x.map((v) => v * w), b: (p.seconds - rest) * w };
  });
  const norm = Array.from({ length: k }, (_, j) => Math.sqrt(rows.reduce((s, r) => s + r.a[j] * r.a[j], 0)) || 1);
  const A = rows.map((r) => r.a.map((v, j) => v / norm[j]));
  const b = rows.map((r) => r.b);
  const x = nnls(A, b);
  const values = {} as Record<RealFitParam, number>;
  REAL_FIT_PARAMS.forEach((name, j) => {
    values[name] = x[j] / norm[j];
  });
  let worst = 1;
  for (const p of points) {
    const { x: f, rest } = realFitRow(p);
    const e = f.reduce((s, v, j) => s + v * values[REAL_FIT_PARAMS[j]], 0) + rest;
    worst = Math.max(worst, e / p.seconds, p.seconds / e);
  }
  return { values, worstRatio: worst, atZero: REAL_FIT_PARAMS.filter((n) => values[n] === 0) };
}

/** Lawson–Hanson non-negative least squares: min ‖A x − b‖ subject to x ≥ 0. */
export function nnls(A: number[][], b: number[]): number[] {
  const m = A.length;
  const n = A[0]?.length ?? 0;
  const x = new Array(n).fill(0);
  const passive = new Set<number>();
  const grad = () => {
    const r = b.map((bi, i) => bi - A[i].reduce((s, a, j) => s + a * x[j], 0));
    return Array.from({ length: n }, (_, j) => A.reduce((s, row, i) => s + row[j] * r[i], 0));
  };
  const lsq = (P: number[]): number[] => {
    const H = P.map((a) => P.map((c) => A.reduce((s, row) => s + row[a] * row[c], 0)));
    const g = P.map((a) => A.reduce((s, row, i) => s + row[a] * b[i], 0));
    return solve(H, g);
  };
  for (let outer = 0; outer < 3 * n + 10; outer++) {
    const w = grad();
    let j = -1;
    let best = 1e-12;
    for (let t = 0; t < n; t++)
      if (!passive.has(t) && w[t] > best) {
        best = w[t];
        j = t;
      }
    if (j < 0) break;
    passive.add(j);
    for (let inner = 0; inner < 3 * n + 10; inner++) {
      const P = [...passive].sort((p, q) => p - q);
      const z = lsq(P);
      if (z.every((v) => v > 0)) {
        P.forEach((p, i) => {
          x[p] = z[i];
        });
        break;
      }
      // Step back to the boundary and drop the variables that hit zero.
      let alpha = 1;
      P.forEach((p, i) => {
        if (z[i] <= 0) alpha = Math.min(alpha, x[p] / (x[p] - z[i]));
      });
      P.forEach((p, i) => {
        x[p] += alpha * (z[i] - x[p]);
        if (x[p] <= 1e-15) {
          x[p] = 0;
          passive.delete(p);
        }
      });
    }
  }
  void m;
  return x;
}

/** The constants from a `fitRealGits` result (ratios and the small priors as in constants.ts). */
export function constantsFromRealFit(f: RealFit): TimeConstants {
  const v = f.values;
  return makeConstants(
    Math.max(v.startup, 0),
    v.perUpdate,
    v['perRecord(git-2.55)'],
    v.perLooseWrite,
    { 'git-2.49': v['perRecord(git-2.49)'], 'git-2.56': v['perRecord(git-2.56)'] },
    {
      perObjectCheck: v.perObjectCheck,
      perReflog: v.perReflog,
      perTransaction: v.perTransaction,
      perUpdateByModel: { 'git-2.49': v['perUpdate(git-2.49)'] },
      perTransactionFiles: v['perTransaction(files)'],
      perReflogFiles: v['perReflog(files)'],
      perValueWrite: v.perValueWrite,
      perLongScanBlock: v.perLongScanBlock,
    },
  );
}

/**
 * The fit's data from the recorded file: every modelled step (priced by `measuredPoints`) and,
 * per git, one empty `update-ref --stdin` (process start: the `startup` constant's own data).
 */
export function realFitPoints(
  data: { gits: Record<string, { processStart: Record<string, { cpu: number }> }> },
  points: {
    model: ModelName;
    counts: Counts;
    measured: number;
    git: string;
    workload: string;
    step: string;
    n: number;
    backend: string;
  }[],
): RealFitPoint[] {
  const out: RealFitPoint[] = points.map((p) => ({
    model: p.model,
    counts: p.counts,
    seconds: p.measured,
    what: `${p.git} ${p.backend} ${p.workload} ${p.step} ${p.n}`,
  }));
  for (const [git, g] of Object.entries(data.gits)) {
    const s = g.processStart['update-ref-empty (reftable)'];
    if (!s) continue;
    out.push({
      model: 'git-2.55',
      counts: { ...zeroCounts(), processes: 1 },
      seconds: s.cpu,
      what: `${git} process start`,
    });
  }
  return out;
}
