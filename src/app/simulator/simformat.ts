/**
 * Formatting of the Simulator view's numbers (pure functions): estimated seconds, speed-ups,
 * large counts. Three significant digits for times, as the CLI's text output.
 */
import { fmtInt } from '../lib/format.ts';
import { fmtSpeedup, fmtGain } from '../../engine/simulate/format.ts';

/**
 * Estimated seconds: "1,858 s", "12.3 s", "2.37 s", "446 ms", "22.0 ms", "1.23 ms", "512 µs".
 * The engine's one seconds format (also the text of shared results), `null` → "—".
 */
export { secondsText as fmtSeconds } from '../../engine/share/simulation.ts';

/** A speed-up factor: "×2,100" (two significant digits from 100), "×57", "×1.8" (the engine's rule). */
export const fmtTimes = fmtSpeedup;

export { fmtGain };

/** A count for a table cell: exact up to a million, then "43.4 M", "1.27 G". */
export function fmtCount(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  if (n < 1e6) return fmtInt(Math.round(n));
  if (n < 1e9) return `${(n / 1e6).toPrecision(3)} M`;
  return `${(n / 1e9).toPrecision(3)} G`;
}

/** A seconds tick of the chart's y axis (decades): "1 µs", "10 ms", "1 s", "1,000 s". */
export function fmtSecondsTick(s: number): string {
  if (s >= 1) return `${fmtInt(Math.round(s))} s`;
  if (s >= 1e-3) return `${Math.round(s * 1e3)} ms`;
  if (s >= 1e-6) return `${Math.round(s * 1e6)} µs`;
  return `${Math.round(s * 1e9)} ns`;
}

/** An n tick of the chart's x axis: 1, 10, 100, 1k, 10k, 100k. */
export function fmtNTick(n: number): string {
  if (n >= 1e6) return `${n / 1e6}M`;
  if (n >= 1e3) return `${n / 1e3}k`;
  return String(n);
}

/**
 * The seconds a `fmtSeconds` text stands for, and half the unit of its last digit (for comparing a
 * shown value with a computed one "within display rounding"). Null if it is not such a text.
 */
export function parseSeconds(text: string): { value: number; tolerance: number } | null {
  const m = /^\s*([0-9][0-9,]*(?:\.[0-9]+)?)\s*(ns|µs|ms|s)\s*$/.exec(text);
  if (!m) return null;
  const digits = m[1].replace(/,/g, '');
  const unit = { ns: 1e-9, µs: 1e-6, ms: 1e-3, s: 1 }[m[2] as 'ns' | 'µs' | 'ms' | 's'];
  const dot = digits.indexOf('.');
  const decimals = dot < 0 ? 0 : digits.length - dot - 1;
  return { value: Number(digits) * unit, tolerance: 0.5 * 10 ** -decimals * unit };
}
