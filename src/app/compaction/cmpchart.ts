/**
 * Geometry of the Compaction view's charts (pure functions, no DOM): the threshold each table is
 * compared with under git's geometric rule, and a logarithmic scale.
 */
import type { Segment } from '../../engine/reftable/auto-compaction.ts';

/**
 * The value each table is compared with by git's rule (`suggest_compaction_segment`), oldest first:
 * - above the segment end (and everywhere when there is no segment): `factor × the next newer table`
 *   (a table at or over it ends the search: the sequence is geometric there);
 * - below the segment end: `factor × the sum of the tables above it up to the segment end`
 *   (a table under it is merged, with everything above it up to the end).
 * The newest table is compared with nothing (null). A table is "under its line" when
 * `values[i] < threshold[i]`; the segment starts at the oldest such table below the end.
 */
export function thresholds(values: number[], factor: number, segment: Segment | null): (number | null)[] {
  const n = values.length;
  const out: (number | null)[] = new Array(n).fill(null);
  const end = segment ? segment.end : -1;
  for (let j = n - 2; j >= 0; j--) {
    if (j >= end) out[j] = factor * values[j + 1];
  }
  let sum = 0;
  for (let j = end - 1; j >= 0; j--) {
    sum += values[j + 1];
    out[j] = factor * sum;
  }
  return out;
}

/** A log scale from `lo` to `hi` onto [0, width]; values ≤ 0 map to 0. */
export interface LogScale {
  lo: number;
  hi: number;
  x(v: number): number;
  /** Tick values (1, 2, 5 × powers of ten) inside the domain. */
  ticks: number[];
}

/**
 * Largest value an axis spans (bytes or records): a value past it (a link's figure near 1e308)
 * is drawn at the end of the axis, so the decades between lo and hi stay a short, finite list.
 */
export const AXIS_MAX = 1e18;

export function logScale(values: number[], width: number): LogScale {
  let min = Infinity,
    max = -Infinity;
  for (const v of values) {
    if (!(v > 0) || !Number.isFinite(v)) continue;
    const c = Math.min(v, AXIS_MAX);
    if (c < min) min = c;
    if (c > max) max = c;
  }
  if (min === Infinity) {
    min = 1;
    max = 10;
  }
  const lo = Math.max(0.5, min / 1.6);
  const hi = Math.min(AXIS_MAX * 1.25, Math.max(lo * 10, max * 1.25));
  const span = Math.log(hi / lo) || 1;
  const x = (v: number): number =>
    !(v > 0) ? 0 : Math.max(0, Math.min(width, (width * Math.log(Math.min(v, hi) / lo)) / span));
  const decades: number[] = [];
  for (let p = Math.floor(Math.log10(lo)); p <= Math.ceil(Math.log10(hi)); p++) decades.push(10 ** p);
  let ticks = decades.filter((t) => t >= lo && t <= hi);
  if (ticks.length < 3) {
    ticks = decades.flatMap((d) => [d, 2 * d, 5 * d]).filter((t) => t >= lo && t <= hi);
  }
  return { lo, hi, x, ticks };
}

/** Short number for axis ticks: 1200 → "1.2k", 3000000 → "3M". */
export function shortNum(n: number): string {
  if (n >= 1e9) return `${trim(n / 1e9)}G`;
  if (n >= 1e6) return `${trim(n / 1e6)}M`;
  if (n >= 1e3) return `${trim(n / 1e3)}k`;
  return trim(n);
}

function trim(v: number): string {
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1).replace(/\.0$/, '') : v.toFixed(2).replace(/\.?0+$/, '');
}

/** "tables 0–13" / "table 4". */
export function segmentText(s: Segment): string {
  return s.start === s.end ? `table ${s.start}` : `tables ${s.start}–${s.end}`;
}
