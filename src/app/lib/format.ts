/** Number and size formatting for display (never used for data-value attributes). */

let intl: Intl.NumberFormat | null = null;

/**
 * 50001 → "50,001" (en-US grouping). Integers are grouped by hand: creating an
 * `Intl.NumberFormat` loads the locale's data, 30–100 ms on the page's main thread at start-up.
 * Anything else (a fraction, -0, beyond 2^53) goes to `Intl`, made on first use.
 */
export function fmtInt(n: number): string {
  if (Number.isSafeInteger(n) && !Object.is(n, -0)) {
    const digits = String(Math.abs(n));
    let out = digits.slice(0, digits.length % 3 || 3);
    for (let i = out.length; i < digits.length; i += 3) out += ',' + digits.slice(i, i + 3);
    return n < 0 ? '-' + out : out;
  }
  intl ??= new Intl.NumberFormat('en-US');
  return intl.format(n);
}

/** Bytes in binary units: 1762784 → "1.68 MiB". */
export function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ${units[u]}`;
}

/** Percentage with one decimal, "—" when the whole is 0. */
export function fmtPct(part: number, whole: number): string {
  if (!whole) return '—';
  const p = (100 * part) / whole;
  if (p > 0 && p < 0.1) return '< 0.1 %';
  return `${p >= 10 || p === 0 ? p.toFixed(0) : p.toFixed(1)} %`;
}

/** Hex offset, e.g. 0x00003000. */
export function fmtHex(n: number, width = 8): string {
  return '0x' + n.toString(16).padStart(width, '0');
}

/** Milliseconds as "0.42 s" or "85 ms". */
export function fmtMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}

/** "1 table" / "3 tables". */
export function plural(n: number, one: string, many = one + 's'): string {
  return `${fmtInt(n)} ${n === 1 ? one : many}`;
}
