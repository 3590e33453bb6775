/**
 * Geometry of the Simulator view's chart (pure functions, no DOM): estimated seconds against
 * batch size n on log–log axes, one line per model, and how each line grows (quadratic, linear).
 */
import type { CurveData } from '../../engine/simulate/curve.ts';
import type { ModelName } from '../../engine/simulate/models.ts';

/** Which of the two curves of `CurveData` the chart draws. */
export type CurveMode = 'sameShape' | 'fixedStack';

/** How a line grows over its last decade (the local slope on log–log axes). */
export interface Growth {
  /** d log(seconds) / d log(n) between n = 10,000 and 100,000 (or the last decade there is). */
  slope: number;
  kind: 'quadratic' | 'linear' | 'flat';
  /** "quadratic", "linear", "flat (start-up)". */
  label: string;
  /** "×4 per doubling of n". */
  perDoubling: string;
}

export function growthOf(ns: readonly number[], values: readonly number[]): Growth {
  const last = ns.length - 1;
  let j = last;
  while (j > 0 && ns[j] > ns[last] / 10) j--;
  const a = values[j],
    b = values[last];
  const slope = a > 0 && b > 0 && ns[last] > ns[j] ? Math.log(b / a) / Math.log(ns[last] / ns[j]) : 0;
  const kind = slope >= 1.5 ? 'quadratic' : slope >= 0.5 ? 'linear' : 'flat';
  const f = 2 ** slope;
  return {
    slope,
    kind,
    label: kind === 'flat' ? 'flat (start-up dominates)' : kind,
    perDoubling: `×${f >= 10 ? Math.round(f) : f.toFixed(1)} per doubling of n`,
  };
}

/** One model's line. */
export interface ChartSeries {
  model: ModelName;
  /** Seconds at each n of `CurveData.n`. */
  values: number[];
  /** Seconds at the simulated size (the line passes through it). */
  atSimulated: number;
  growth: Growth;
}

export function chartSeries(curve: CurveData, mode: CurveMode): ChartSeries[] {
  return curve.series.map((s) => {
    const values = mode === 'sameShape' ? s.sameShape : s.fixedStack;
    return {
      model: s.model,
      values,
      atSimulated: s.parts.fixed + s.parts.linear + s.parts.stepping,
      growth: growthOf(curve.n, values),
    };
  });
}

/** The curve rebuilt from a link's numbers: the engine's (the link's layout is defined there). */
export { curveFromParts } from '../../engine/share/simulation.ts';

/** A log10 axis from `lo` to `hi` (powers of ten) onto [a, b]. */
export interface LogAxis {
  lo: number;
  hi: number;
  at(v: number): number;
  /** Powers of ten from lo to hi. */
  ticks: number[];
}

/** Most decades an axis spans; with `secondsRange`'s clamp no loop over decades is long. */
const MAX_DECADES = 24;

export function logAxis(lo: number, hi: number, a: number, b: number): LogAxis {
  // A range that is not finite and positive (a crafted link's figures) is drawn as 1 ms – 1 s.
  if (!(lo > 0) || !(hi > lo) || !Number.isFinite(lo) || !Number.isFinite(hi)) {
    lo = 1e-3;
    hi = 1;
  }
  const l0 = Math.log10(lo),
    l1 = Math.min(Math.log10(hi), l0 + MAX_DECADES);
  const span = l1 - l0 || 1;
  const at = (v: number): number => {
    const t = (Math.log10(Math.max(Number.isFinite(v) ? v : hi, lo / 1e3)) - l0) / span;
    return a + (b - a) * Math.max(-1, Math.min(2, t));
  };
  const ticks: number[] = [];
  for (let p = Math.round(l0); p <= Math.round(l1); p++) ticks.push(10 ** p);
  return { lo, hi, at, ticks };
}

/** Largest seconds a chart shows (about 31,700 years): larger figures are drawn at the top. */
export const SECONDS_MAX = 1e12;

/** The y range of the chart: whole decades around every value (at least two decades). */
export function secondsRange(values: number[]): { lo: number; hi: number } {
  let min = Infinity,
    max = -Infinity;
  for (const v of values) {
    if (!(v > 0) || !Number.isFinite(v)) continue;
    const c = Math.min(v, SECONDS_MAX);
    if (c < min) min = c;
    if (c > max) max = c;
  }
  if (min === Infinity) return { lo: 1e-3, hi: 1 };
  let lo = 10 ** Math.floor(Math.log10(min));
  let hi = 10 ** Math.ceil(Math.log10(max));
  if (hi / lo < 100) hi = lo * 100;
  // Keep the chart readable: at most 12 decades (a flat line at 1 µs next to hours).
  if (hi / lo > 1e12) lo = hi / 1e12;
  return { lo, hi };
}

/** An SVG path through points (x, y). */
export function linePath(points: [number, number][]): string {
  return points.map(([x, y], i) => `${i ? 'L' : 'M'}${x.toFixed(1)},${y.toFixed(1)}`).join(' ');
}

/**
 * Vertical positions for labels at the right end of the lines: the lines' own y, pushed apart so
 * that no two labels are closer than `gap`, kept within [top, bottom].
 */
export function spreadLabels(ys: number[], gap: number, top: number, bottom: number): number[] {
  const order = ys.map((y, i) => ({ y, i })).sort((a, b) => a.y - b.y);
  const out = new Array<number>(ys.length);
  let prev = -Infinity;
  for (const o of order) {
    const y = Math.max(o.y, prev + gap, top);
    out[o.i] = y;
    prev = y;
  }
  // Pushed past the bottom: shift back up from the end.
  let next = bottom;
  for (let k = order.length - 1; k >= 0; k--) {
    const i = order[k].i;
    out[i] = Math.min(out[i], next);
    next = out[i] - gap;
  }
  return out;
}

/** Index of the n nearest to `x` (a pixel position) on a log axis. */
export function nearestIndex(ns: readonly number[], axis: LogAxis, x: number): number {
  let best = 0,
    bestD = Infinity;
  ns.forEach((n, i) => {
    const d = Math.abs(axis.at(n) - x);
    if (d < bestD) {
      best = i;
      bestD = d;
    }
  });
  return best;
}
