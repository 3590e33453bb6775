/**
 * format: how the simulator's numbers are written in words, shared by the engine's plain-words
 * explanation, the CLI and the web app (which imports this module alone, not the simulator).
 */

/**
 * A speed-up factor, as every refscope surface writes it (explanation, CLI, app):
 * "×1,900" (two significant digits from 100), "×57", "×1.8"; "×∞" for a non-finite factor.
 */
export function fmtSpeedup(x: number): string {
  if (!Number.isFinite(x)) return '×∞';
  if (x >= 100) {
    const p = 10 ** (Math.floor(Math.log10(x)) - 1);
    return `×${Math.round(Math.round(x / p) * p).toLocaleString('en-US')}`;
  }
  return x >= 10 ? `×${Math.round(x)}` : `×${x.toFixed(1)}`;
}

/** What a fix does to the time, in words: "×57 faster", "about the same", "2.0× slower", "no change" (null). */
export function fmtGain(speedup: number | null): string {
  if (speedup === null) return 'no change';
  if (speedup >= 1.05) return `${fmtSpeedup(speedup)} faster`;
  if (speedup > 0.95) return 'about the same';
  return `${(1 / speedup).toFixed(1)}× slower`;
}
