/**
 * The stack view as a standalone SVG document (for the Share view's "stack picture" export, and
 * the PNG drawn from it). A pure function: no DOM, so it runs anywhere and is easy to test.
 *
 * Everything from the input (table names, the input description) is XML-escaped text: names are
 * data, never markup. Colours are explicit attributes (no CSS, no fonts fetched), so the file looks
 * the same wherever it is opened.
 */
import type { Report } from '../../engine/report.ts';
import type { TableSplit } from '../../engine/session/index.ts';
import { fmtBytes, fmtInt } from './format.ts';

/** Colours of one theme (the app's light and dark palettes, styles.css). */
interface Palette {
  bg: string;
  text: string;
  muted: string;
  border: string;
  track: string;
  live: string;
  shadowed: string;
  tomb: string;
  log: string;
  other: string;
  error: string;
}

const PALETTES: Record<'light' | 'dark', Palette> = {
  light: {
    bg: '#ffffff',
    text: '#1b1f24',
    muted: '#5d6876',
    border: '#dfe3e8',
    track: '#f1f3f6',
    live: '#2e9d63',
    shadowed: '#c49a22',
    tomb: '#d1493f',
    log: '#8a63d2',
    other: '#8d99aa',
    error: '#c4312b',
  },
  dark: {
    bg: '#181b20',
    text: '#e4e7eb',
    muted: '#98a2b0',
    border: '#2b3038',
    track: '#20242b',
    live: '#3fbf7f',
    shadowed: '#d6ac3a',
    tomb: '#f0645a',
    log: '#a585ec',
    other: '#6d7888',
    error: '#ff7b72',
  },
};

/** The record kinds a table bar is split into (the Stack view and the SVG export share them). */
export const STACK_KINDS = [
  { key: 'live', label: 'Live refs', cls: 'k-live' },
  { key: 'shadowed', label: 'Shadowed', cls: 'k-shadowed' },
  { key: 'tomb', label: 'Tombstones', cls: 'k-tomb' },
  { key: 'log', label: 'Logs', cls: 'k-log' },
  { key: 'other', label: 'Index, obj, header, footer', cls: 'k-other' },
] as const;
const KINDS = STACK_KINDS;
export type StackKind = (typeof STACK_KINDS)[number]['key'];
type Kind = StackKind;

/** Text safe inside an XML element or attribute: markup characters escaped, invalid XML characters replaced. */
export function xmlText(s: string): string {
  return (
    s
      // Characters XML 1.0 forbids, and lone surrogates, become U+FFFD: the C0 controls but tab,
      // newline and return (\p{Cc} less those and DEL/C1, which XML allows), lone surrogates
      // (\p{Cs} in a /u pattern matches only unpaired ones), U+FFFE and U+FFFF.
      .replace(/(?![\t\n\r\x7f-\x9f])[\p{Cc}\p{Cs}\ufffe\uffff]/gu, '\ufffd')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

/** At most `max` characters (by code point), with "…" when cut. */
function clip(s: string, max: number): string {
  const cps = Array.from(s);
  return cps.length <= max ? s : cps.slice(0, max - 1).join('') + '…';
}

const int = fmtInt;
const bytes = fmtBytes;

/** Byte widths per kind: the ref section split by record counts, then logs and the rest. */
export function kindWidths(s: TableSplit): Record<Kind, number> {
  const n = s.refRecords || 1;
  return {
    live: (s.refBytes * s.live) / n,
    shadowed: (s.refBytes * s.shadowed) / n,
    tomb: (s.refBytes * s.tombstones) / n,
    log: s.logBytes,
    other: s.otherBytes + (s.refRecords ? 0 : s.refBytes),
  };
}

/** Result of `stackSvg`. */
export interface StackPicture {
  svg: string;
  width: number;
  height: number;
}

/**
 * The stack as the Stack view draws it: one bar per table, newest on top and the base at the
 * bottom, bar width proportional to file size, split into live refs, shadowed records,
 * tombstones, logs and the rest.
 * @param splits per table (report order), as `LoadResult.splits`; null for an unreadable table.
 * @param opts.theme 'light' (default) or 'dark'; `opts.note` one more line under the title (e.g.
 *   "shared report (no files)").
 */
export function stackSvg(
  report: Report,
  splits: (TableSplit | null)[],
  opts: { theme?: 'light' | 'dark'; note?: string } = {},
): StackPicture {
  const c = PALETTES[opts.theme ?? 'light'];
  const W = 960;
  const pad = 20;
  const labelW = 300;
  const tables = report.tables;
  // Past 40 tables, one line per table (no captions), so a big stack stays a reasonable picture.
  const compact = tables.length > 40;
  const rowH = compact ? 18 : 44;
  const barH = compact ? 12 : 18;
  const trackX = pad + labelW;
  const trackW = W - trackX - pad;
  const st = report.stack;
  const headH = opts.note ? 88 : 72;
  const legendH = 40;
  const H = headH + Math.max(1, tables.length) * rowH + legendH + pad;
  const max = Math.max(1, ...tables.map((t) => t.fileSize));
  const o: string[] = [];
  const font = `font-family="system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif"`;
  const mono = `font-family="ui-monospace, Menlo, Consolas, 'DejaVu Sans Mono', monospace"`;
  o.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" ${font}>`);
  o.push(`<title>refscope: reftable stack</title>`);
  o.push(`<rect width="${W}" height="${H}" fill="${c.bg}"/>`);
  o.push(
    `<text x="${pad}" y="${pad + 14}" font-size="17" font-weight="700" fill="${c.text}">refscope · reftable stack</text>`,
  );
  const sub = st
    ? `${int(st.tables)} ${st.tables === 1 ? 'table' : 'tables'} · ${bytes(st.totalBytes)} · ${int(st.live)} live ${st.live === 1 ? 'ref' : 'refs'} · ${int(st.tombstones)} ${st.tombstones === 1 ? 'tombstone' : 'tombstones'} · newest on top · bar width = file size`
    : `${int(tables.length)} ${tables.length === 1 ? 'table' : 'tables'}`;
  o.push(`<text x="${pad}" y="${pad + 34}" font-size="12" fill="${c.muted}">${xmlText(sub)}</text>`);
  if (opts.note)
    o.push(
      `<text x="${pad}" y="${pad + 50}" font-size="12" font-weight="600" fill="${c.muted}">${xmlText(clip(opts.note, 140))}</text>`,
    );
  o.push(`<line x1="${pad}" x2="${W - pad}" y1="${headH - 6}" y2="${headH - 6}" stroke="${c.border}"/>`);
  const order = tables.map((_, i) => i).reverse();
  order.forEach((i, row) => {
    const t = tables[i];
    const s = splits[i] ?? null;
    const y = headH + row * rowH;
    const tag = i === tables.length - 1 && tables.length > 1 ? 'newest · ' : i === 0 ? 'base · ' : '';
    const upd =
      t.minUpdateIndex === null
        ? '—'
        : t.minUpdateIndex === t.maxUpdateIndex
          ? `${t.minUpdateIndex}`
          : `${t.minUpdateIndex}–${t.maxUpdateIndex}`;
    const fs = compact ? 10 : 11;
    o.push(`<text x="${pad}" y="${y + 13}" font-size="${fs}" font-weight="700" fill="${c.muted}">#${i}</text>`);
    o.push(
      `<text x="${pad + 40}" y="${y + 13}" font-size="${fs}" ${mono} fill="${c.text}">${xmlText(clip(t.name, compact ? 28 : 36))}</text>`,
    );
    if (compact)
      o.push(
        `<text x="${trackX - 8}" y="${y + 13}" font-size="${fs}" text-anchor="end" fill="${c.muted}">${xmlText(bytes(t.fileSize))}</text>`,
      );
    else
      o.push(
        `<text x="${pad + 40}" y="${y + 29}" font-size="11" fill="${c.muted}">${xmlText(`${tag}update index ${upd} · ${bytes(t.fileSize)}`)}</text>`,
      );
    const w = Math.max(3, (trackW * t.fileSize) / max);
    o.push(`<rect x="${trackX}" y="${y + 3}" width="${w.toFixed(1)}" height="${barH}" rx="3" fill="${c.track}"/>`);
    if (s) {
      const ws = kindWidths(s);
      const total = KINDS.reduce((a, k) => a + ws[k.key], 0) || 1;
      let x = trackX;
      for (const k of KINDS) {
        const kw = (w * ws[k.key]) / total;
        if (kw <= 0) continue;
        o.push(
          `<rect x="${x.toFixed(2)}" y="${y + 3}" width="${Math.max(0.5, kw).toFixed(2)}" height="${barH}" fill="${c[k.key]}"/>`,
        );
        x += kw;
      }
      const cap = `${int(s.live)} live, ${int(s.shadowed)} shadowed, ${int(s.tombstones)} tombstones, ${int(t.records.log + t.records.logDeletion)} log records`;
      if (!compact) o.push(`<text x="${trackX}" y="${y + 35}" font-size="11" fill="${c.muted}">${xmlText(cap)}</text>`);
    } else {
      o.push(
        `<rect x="${trackX}" y="${y + 3}" width="${w.toFixed(1)}" height="${barH}" rx="3" fill="none" stroke="${c.error}" stroke-dasharray="4 3"/>`,
      );
      const msg = xmlText(clip(`could not be read${t.error ? `: expected ${t.error.expected}` : ''}`, 110));
      if (compact) o.push(`<text x="${trackX + w + 6}" y="${y + 13}" font-size="10" fill="${c.error}">${msg}</text>`);
      else o.push(`<text x="${trackX}" y="${y + 35}" font-size="11" fill="${c.error}">${msg}</text>`);
    }
  });
  const ly = headH + Math.max(1, tables.length) * rowH + 14;
  let lx = pad;
  for (const k of KINDS) {
    o.push(`<rect x="${lx}" y="${ly}" width="10" height="10" rx="2" fill="${c[k.key]}"/>`);
    o.push(`<text x="${lx + 15}" y="${ly + 9}" font-size="11" fill="${c.text}">${k.label}</text>`);
    lx += 34 + k.label.length * 7;
  }
  o.push(
    `<text x="${W - pad}" y="${ly + 9}" font-size="10" text-anchor="end" fill="${c.muted}">${xmlText(report.generator)}</text>`,
  );
  o.push('</svg>');
  return { svg: o.join('\n') + '\n', width: W, height: H };
}
