/**
 * Wires the optional modules into `report`: the compaction geometry (`stack.compaction`) and the
 * one-paragraph diagnosis. Kept apart so each module stays independent of the report's shape.
 */
import { registerReportExtension, type Report } from './report.ts';
import type { Analysis } from './analyze.ts';
import { gitAutoCompaction, geometryByCount, jgitCompaction, type Segment } from './compaction.ts';

/** `stack.compaction` of the report (docs/report.md). */
export interface CompactionReport {
  /** Geometric factor used (git's `reftable.geometricFactor`, default 2). */
  factor: number;
  /** What git's auto-compaction (`git pack-refs --auto`) merges: indexes into `tables[]`, end inclusive. */
  segment: Segment | null;
  /** Net sizes git compares (file size − 91 / − 99) and why each table is in or out. */
  bySize: { values: number[]; reasons: string[] };
  /** The same rule on ref + log record counts: what lookups really pay for. */
  byRecords: { values: number[]; segment: Segment | null; reasons: string[] };
  /** The same rule on live records (winners that are not tombstones). */
  byLive: { values: number[]; segment: Segment | null };
  /** JGit's rule (Gerrit): equal ⌊log2(size − 91)⌋ groups. */
  jgit: { segment: Segment | null; reasons: string[]; error?: string };
  /** Whether the segment git picks starts at the base table, so tombstones would be dropped. */
  dropsTombstones: boolean;
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}
function plural(n: number, one: string, many = one + 's'): string {
  return `${fmt(n)} ${n === 1 ? one : many}`;
}
function kb(n: number): string {
  return n < 10_000 ? `${fmt(n)} bytes` : n < 1_000_000 ? `${(n / 1000).toFixed(0)} KB` : `${(n / 1e6).toFixed(1)} MB`;
}

/** Options for the extension (passed through `buildReport`). */
export interface ReportOptions {
  factor?: number;
}

function compactionReport(r: Report, a: Analysis, factor: number): CompactionReport | null {
  if (!a.stack || !a.merged) return null;
  const ok = r.tables;
  const sizes = ok.map((t) => t.fileSize);
  const versions = ok.map((t) => (t.version ?? 1) as 1 | 2);
  const git = gitAutoCompaction(sizes, versions, factor);
  const recs = ok.map((t) => t.records.ref + t.records.peeled + t.records.symref + t.records.tombstone + t.records.log + t.records.logDeletion);
  const byRec = geometryByCount(recs, factor);
  const live = liveWinners(a, ok.length);
  const byLive = geometryByCount(live, factor);
  const jg = jgitCompaction(sizes);
  return {
    factor, segment: git.segment,
    bySize: { values: git.netSizes, reasons: git.reasons },
    byRecords: { values: recs, segment: byRec.segment, reasons: byRec.reasons },
    byLive: { values: live, segment: byLive.segment },
    jgit: { segment: jg.segment, reasons: jg.reasons, ...(jg.error ? { error: jg.error } : {}) },
    dropsTombstones: git.segment?.start === 0,
  };
}

/** Per table: its records that are live in the merged view (winners that are not tombstones). */
function liveWinners(a: Analysis, n: number): number[] {
  const m = a.merged!;
  const tables = a.stack!.tables;
  const out = new Array(n).fill(0);
  for (let k = 0; k < m.count; k++) {
    const t = tables[m.table[k]]!;
    if (t.refs.types[m.rec[k]] !== 0) out[m.table[k]]++;
  }
  return out;
}

/** The one-paragraph diagnosis for a reftable stack, with the numbers. */
function diagnoseStack(r: Report, c: CompactionReport | null): string {
  const st = r.stack!;
  const parts: string[] = [];
  const n = r.tables.length;
  const refRecs = st.refRecords;
  parts.push(`${plural(n, 'table')}, ${kb(st.totalBytes)}: ${plural(st.live, 'live ref')} out of ${plural(refRecs, 'ref record')}.`);
  if (st.incomplete) {
    const bad = r.tables.filter((t) => t.error).map((t) => t.name);
    parts.push(`${plural(bad.length, 'table')} could not be read (${bad.join(', ')}); every figure below leaves ${bad.length === 1 ? 'it' : 'them'} out.`);
  }
  // Where the tombstones are and what they hide.
  const tombTables = r.tables.map((t, i) => ({ t, i })).filter(({ t }) => t.records.tombstone > 0);
  if (tombTables.length) {
    const heavy = tombTables.sort((x, y) => y.t.records.tombstone - x.t.records.tombstone)[0];
    const hidden = r.tables.reduce((s, t) => s + t.hiddenByTombstone, 0);
    const where = heavy.i === n - 1 ? 'the newest table' : `table ${heavy.i}`;
    parts.push(`${where[0].toUpperCase() + where.slice(1)} holds ${plural(heavy.t.records.tombstone, 'tombstone')}${tombTables.length > 1 ? ` (${fmt(st.tombstones)} winning tombstones in all)` : ''}; tombstones hide ${plural(hidden, 'older record')}, which every lookup and scan still has to step over.`);
  }
  const shadowed = r.tables.reduce((s, t) => s + t.shadowed, 0);
  if (shadowed && refRecs) {
    parts.push(`${fmt(shadowed)} of the ${fmt(refRecs)} ref records (${((100 * shadowed) / refRecs).toFixed(0)} %) are shadowed by newer tables.`);
  }
  if (c && n > 1) {
    if (c.segment) {
      const { start, end } = c.segment;
      parts.push(`git's next auto-compaction (factor ${c.factor}) merges tables ${start}–${end}${c.dropsTombstones ? ', starting at the base, so their tombstones are dropped' : ', not the base, so tombstones are carried forward'}.`);
    } else {
      const last = c.bySize.values.length - 1;
      parts.push(`Auto-compaction will not merge anything: git compares byte sizes, and every table is at least ${c.factor} × the next newer one (e.g. ${fmt(c.bySize.values[last - 1])} ≥ ${c.factor} × ${fmt(c.bySize.values[last])} net bytes for the two newest), so the sequence looks geometric.`);
      if (c.byRecords.segment) {
        const { start, end } = c.byRecords.segment;
        parts.push(`By record count it is not: tables ${start}–${end} hold ${c.byRecords.values.slice(start, end + 1).map(fmt).join(' and ')} records, a geometry the byte rule cannot see because tombstones carry no object id.`);
      }
    }
    const tomb = st.tombstones;
    parts.push(`\`git pack-refs\` would merge everything into one table of ${plural(st.live, 'ref record')}${tomb ? `, dropping ${plural(tomb, 'tombstone')} and the ${fmt(r.tables.reduce((s, t) => s + t.hiddenByTombstone, 0))} records they hide` : ''}.`);
  } else if (n === 1) {
    parts.push('A single table: nothing to compact.');
  }
  return parts.join(' ');
}

registerReportExtension((r, a, opts) => {
  if (!r.stack) return;
  const factor = opts?.factor ?? 2;
  const c = compactionReport(r, a, factor);
  if (c) r.stack.compaction = c;
  r.diagnosis = diagnoseStack(r, c);
});
