/**
 * report: the `refscope.report/1` document (documented field by field in docs/report.md).
 * Plain data: counts and per-table/per-block summaries; no ref names except namespace prefixes.
 */
import type { Finding } from './basics.ts';
import type { Analysis } from './analyze.ts';
import type { BlockInfo, SectionName, Table } from './table.ts';
import { namespaceCounts, resolveEntry } from './refs.ts';
import type { MergedView } from './stack.ts';

export const REPORT_SCHEMA = 'refscope.report/1';

/** One block in the report: the block's summary fields from the parser, without its keys. */
export type BlockReport = Pick<BlockInfo, 'offset' | 'type' | 'section' | 'blockLen' | 'restartCount' | 'recordCount' | 'padding' | 'fileBytes'>;

/** One table in the report (`tables[]`, oldest first). */
export interface TableReport {
  name: string;
  fileSize: number;
  /** Null fields when the table could not be parsed (see `error`). */
  version: 1 | 2 | null;
  hashId: 'sha1' | 's256' | null;
  blockSize: number | null;
  minUpdateIndex: number | null;
  maxUpdateIndex: number | null;
  blocks: BlockReport[];
  records: { ref: number; peeled: number; symref: number; tombstone: number; log: number; logDeletion: number; obj: number; index: number };
  sectionBytes: Record<SectionName, number>;
  refIndexLevels: number;
  /** Records of this table that a newer table's record of the same key overrides. */
  shadowed: number;
  /** Of those, records hidden by a newer tombstone. */
  hiddenByTombstone: number;
  /** Tombstones of this table that hide at least one older record. */
  tombstonesHiding: number;
  /** Records of this table that win in the merged view (live refs plus winning tombstones). */
  winners: number;
  error: null | { file: string; offset: number; expected: string };
  /**
   * Present when an unreadable table may change this table's merge figures: `shadowed`,
   * `hiddenByTombstone` and `winners` when it is newer, `tombstonesHiding` when it is older.
   */
  incomplete?: string[];
}

/** The whole report. */
export interface Report {
  schema: typeof REPORT_SCHEMA;
  generator: string;
  input: { kind: string; description: string };
  tables: TableReport[];
  stack: {
    tables: number;
    totalBytes: number;
    live: number;
    tombstones: number;
    tombstonesHiding: number;
    /** Live symrefs whose target does not resolve (for-each-ref leaves them out). */
    danglingSymrefs: number;
    /** Sum of ref records over all tables (live, shadowed and tombstones). */
    refRecords: number;
    logRecords: number;
    namespaces: Record<string, number>;
    continuity: { table: number; expectedMin: number; actualMin: number; status: 'ok' | 'gap' | 'overlap' }[];
    /** True when some table could not be parsed: stack-wide figures leave it out. */
    incomplete: boolean;
    /**
     * The figures of `stack` that leave out the unreadable tables (empty when `incomplete` is
     * false). `tables` and `totalBytes` never do: file sizes are known.
     */
    incompleteFigures: string[];
    /** Filled by the compaction module (issue #5). */
    compaction?: unknown;
  } | null;
  packedRefs?: unknown;
  files?: unknown;
  findings: Finding[];
  diagnosis: string;
}

export const GENERATOR = 'refscope 0.1.0';

function tableReport(t: Table, i: number, a: Analysis): TableReport {
  const m = a.merged!;
  return {
    name: t.name, fileSize: t.fileSize, version: t.header.version, hashId: t.header.hashId,
    blockSize: t.header.blockSize, minUpdateIndex: t.header.minUpdateIndex, maxUpdateIndex: t.header.maxUpdateIndex,
    blocks: t.blocks.map((b) => ({
      offset: b.offset, type: b.type, section: b.section, blockLen: b.blockLen, restartCount: b.restartCount,
      recordCount: b.recordCount, padding: b.padding, fileBytes: b.fileBytes,
    })),
    records: { ...t.counts },
    sectionBytes: { ...t.sectionBytes },
    refIndexLevels: t.refIndexLevels,
    shadowed: m.shadowed[i], hiddenByTombstone: m.hiddenByTombstone[i], tombstonesHiding: m.tombstonesHidingBy[i],
    winners: m.winners[i], error: null,
  };
}

/** Extra sections contributed by other modules (compaction, files backend, diagnosis). */
export type ReportExtension = (r: Report, a: Analysis, opts: BuildOptions) => void;

/** Options of `buildReport`. */
export interface BuildOptions {
  /** Geometric factor for the compaction geometry (2..255, git's default 2). */
  factor?: number;
}
const extensions: ReportExtension[] = [];
/** Register a report extension; run in registration order by `buildReport`. */
export function registerReportExtension(e: ReportExtension): void {
  extensions.push(e);
}

/** Sets `incomplete` on readable tables that an unreadable newer or older table may affect. */
function markIncomplete(tables: TableReport[]): void {
  const firstBroken = tables.findIndex((t) => t.error);
  if (firstBroken < 0) return;
  let lastBroken = firstBroken;
  tables.forEach((t, i) => { if (t.error) lastBroken = i; });
  tables.forEach((t, i) => {
    if (t.error) return;
    const figs: string[] = [];
    if (i < lastBroken) figs.push('shadowed', 'hiddenByTombstone', 'winners');
    if (i > firstBroken) figs.push('tombstonesHiding');
    if (figs.length) t.incomplete = figs;
  });
}

/** Live symrefs (winning type-3 records) that do not resolve to an object id. */
function countDangling(tables: (Table | null)[], m: MergedView): number {
  let n = 0;
  for (let i = 0; i < m.count; i++) {
    const t = tables[m.table[i]]!;
    if (t.refs.types[m.rec[i]] === 3 && t.refs.targets && resolveEntry(tables, m, i) === null) n++;
  }
  return n;
}

/** Build the `refscope.report/1` document for an analysis. */
export function buildReport(a: Analysis, opts: BuildOptions = {}): Report {
  const r: Report = {
    schema: REPORT_SCHEMA, generator: GENERATOR,
    input: { kind: a.input.kind, description: a.input.description },
    tables: [], stack: null, findings: [...a.findings], diagnosis: '',
  };
  if (a.stack && a.merged) {
    const s = a.stack;
    const m = a.merged;
    const broken = new Map(s.broken.map((b) => [b.name, b]));
    r.tables = s.names.map((name, i) => {
      const t = s.tables[i];
      if (t) return tableReport(t, i, a);
      const b = broken.get(name)!;
      r.findings.push({ severity: 'error', file: b.error.file, offset: b.error.offset, message: b.error.expected });
      return {
        name, fileSize: b.fileSize, version: null, hashId: null, blockSize: null, minUpdateIndex: null, maxUpdateIndex: null,
        blocks: [], records: { ref: 0, peeled: 0, symref: 0, tombstone: 0, log: 0, logDeletion: 0, obj: 0, index: 0 },
        sectionBytes: { ref: 0, refIndex: 0, obj: 0, objIndex: 0, log: 0, logIndex: 0 }, refIndexLevels: 0,
        shadowed: 0, hiddenByTombstone: 0, tombstonesHiding: 0, winners: 0,
        error: { file: b.error.file, offset: b.error.offset, expected: b.error.expected },
      };
    });
    const namespaces = namespaceCounts(s.tables, m);
    const continuity: NonNullable<Report['stack']>['continuity'] = [];
    let prev: Table | null = null;
    s.tables.forEach((t, i) => {
      if (!t) return;
      if (prev) {
        const expectedMin = prev.header.maxUpdateIndex + 1;
        const actualMin = t.header.minUpdateIndex;
        continuity.push({ table: i, expectedMin, actualMin, status: actualMin === expectedMin ? 'ok' : actualMin < expectedMin ? 'overlap' : 'gap' });
      }
      prev = t;
    });
    let refRecords = 0, logRecords = 0;
    for (const t of s.tables) if (t) { refRecords += t.refs.count; logRecords += t.counts.log + t.counts.logDeletion; }
    r.stack = {
      tables: s.names.length,
      totalBytes: r.tables.reduce((x, t) => x + t.fileSize, 0),
      live: m.live, tombstones: m.tombstones, tombstonesHiding: m.tombstonesHiding,
      danglingSymrefs: countDangling(s.tables, m),
      refRecords, logRecords, namespaces, continuity, incomplete: s.broken.length > 0,
      incompleteFigures: s.broken.length ? ['live', 'tombstones', 'tombstonesHiding', 'refRecords', 'logRecords', 'namespaces', 'continuity'] : [],
    };
    markIncomplete(r.tables);
  }
  for (const e of extensions) e(r, a, opts);
  return r;
}
