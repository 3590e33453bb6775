/**
 * One row of `refscope scan`: a repository analysed by the same engine as `refscope analyze`
 * (the `refscope.report/1` figures) plus the simulator's estimate of one representative workload
 * per git model. Flat fields only, so that the row is a Parquet row and a SQL table's row as it
 * is (schemas/scan-row.schema.json describes every field).
 */
import { analyzeFiles, analysisRefs, FormatError, type Analysis, type InputFile } from '../../engine/index.ts';
import { buildReport, type Report } from '../../engine/report.ts';
import type { CompactionReport } from '../../engine/extensions.ts';
import type { PackedRefsJson } from '../../engine/files/json.ts';
import { Simulator, SimulationLimitError, type ModelName } from '../../engine/simulate/index.ts';
import { collectInput } from '../node-input.ts';
import type { FoundRepository } from './discover.ts';

export const SCAN_ROW_SCHEMA = 'refscope.scan-row/1';

/** The models estimated, with the column prefix of each. */
export const ROW_MODELS: { model: ModelName; key: string }[] = [
  { model: 'git-2.49', key: 'git249' },
  { model: 'git-2.55', key: 'git255' },
  { model: 'git-2.56', key: 'git256' },
  { model: 'files', key: 'files' },
];

/** The representative workload of a repository whose tombstones hide refs: re-create them all. */
export const WORKLOAD_RECREATE = 'recreate';
/** Otherwise: one push creating 100 branches in one transaction. */
export const WORKLOAD_CREATE = 'create:100:refs/heads/refscope-scan-';

/** A row. `null` figures: not known (see `error`, `gitReadable`, `estimateNote`). */
export interface ScanRow {
  root: string;
  path: string;
  bare: boolean;
  layout: string | null;
  backend: 'reftable' | 'files' | null;
  refs: number | null;
  liveRefs: number | null;
  tables: number | null;
  bytes: number | null;
  refRecords: number | null;
  tombstones: number | null;
  tombstoneRecords: number | null;
  hiddenRecords: number | null;
  tombstoneShare: number | null;
  autoSegment: string | null;
  debtTables: number | null;
  debtBytes: number | null;
  debtRecords: number | null;
  locks: number | null;
  findings: number | null;
  findingErrors: number | null;
  findingCodes: string;
  gitReadable: boolean | null;
  unreadableReason: string | null;
  workload: string | null;
  estimateNote: string | null;
  [model: `${string}Seconds` | `${string}Fix` | `${string}FixSeconds` | `${string}FixGain`]: number | string | null;
  error: string | null;
}

/** The column names of a row, in order (the Parquet schema and the table view use them). */
export const ROW_COLUMNS: string[] = [
  'root',
  'path',
  'bare',
  'layout',
  'backend',
  'refs',
  'liveRefs',
  'tables',
  'bytes',
  'refRecords',
  'tombstones',
  'tombstoneRecords',
  'hiddenRecords',
  'tombstoneShare',
  'autoSegment',
  'debtTables',
  'debtBytes',
  'debtRecords',
  'locks',
  'findings',
  'findingErrors',
  'findingCodes',
  'gitReadable',
  'unreadableReason',
  'workload',
  'estimateNote',
  ...ROW_MODELS.flatMap(({ key }) => [`${key}Seconds`, `${key}Fix`, `${key}FixSeconds`, `${key}FixGain`]),
  'error',
];

/** A finding's code: its message without the parts that differ per repository (numbers, names). */
export function findingCode(message: string): string {
  return message
    .toLowerCase()
    .replace(/"[^"]*"|'[^']*'|`[^`]*`/g, ' ')
    .replace(/[0-9a-f]{7,}|[0-9][0-9,.]*/g, ' ')
    .replace(/[^a-z]+/g, ' ')
    .trim()
    .split(' ')
    .slice(0, 6)
    .join('-');
}

/** A row with nothing known yet (and `error` set when given). */
export function emptyRow(f: FoundRepository, error: string | null = null): ScanRow {
  const row = {
    root: f.root,
    path: f.rel,
    bare: f.bare,
    layout: f.layout,
    backend: null,
    refs: null,
    liveRefs: null,
    tables: null,
    bytes: null,
    refRecords: null,
    tombstones: null,
    tombstoneRecords: null,
    hiddenRecords: null,
    tombstoneShare: null,
    autoSegment: null,
    debtTables: null,
    debtBytes: null,
    debtRecords: null,
    locks: null,
    findings: null,
    findingErrors: null,
    findingCodes: '',
    gitReadable: null,
    unreadableReason: null,
    workload: null,
    estimateNote: null,
    error,
  } as ScanRow;
  for (const { key } of ROW_MODELS) {
    row[`${key}Seconds`] = null;
    row[`${key}Fix`] = null;
    row[`${key}FixSeconds`] = null;
    row[`${key}FixGain`] = null;
  }
  return row;
}

/** Options of one repository's scan. */
export interface RowOptions {
  /** Bound of reading the repository and of the simulation, each (ms). */
  budgetMs: number;
  /** reftable.geometricFactor. */
  factor: number;
  /** Leave the simulation out (`--no-estimates`). */
  estimates: boolean;
}

function refFileBytes(files: InputFile[]): number {
  let n = 0;
  for (const f of files) if (f.path === 'packed-refs' || f.path.startsWith('refs/')) n += f.source.size;
  return n;
}

/** Analyse one repository into its row. Never throws for what the repository holds. */
export function scanRepository(f: FoundRepository, opts: RowOptions): ScanRow {
  const row = emptyRow(f);
  let files: InputFile[];
  let a: Analysis;
  let report: Report;
  try {
    files = collectInput(f.gitDir);
    a = analyzeFiles(files, { deadline: Date.now() + opts.budgetMs });
    report = buildReport(a, { factor: opts.factor });
  } catch (e) {
    row.error = e instanceof FormatError ? e.message : `${(e as Error).name}: ${(e as Error).message}`;
    return row;
  }
  row.backend = a.stack ? 'reftable' : 'files';
  row.gitReadable = report.verdict.gitReadable;
  row.unreadableReason = report.verdict.reason;
  row.findings = report.findings.length;
  row.findingErrors = report.findings.filter((x) => x.severity === 'error').length;
  row.findingCodes = [...new Set(report.findings.map((x) => findingCode(x.message)))].sort().join(',');
  let listed: number | null = null;
  try {
    const all = analysisRefs(a);
    listed = all.length;
    row.refs = all.filter((r) => r.name.startsWith('refs/')).length;
  } catch {
    row.refs = null; // git dies on this files-backend repository: no listing
  }
  if (a.stack && report.stack) {
    const s = report.stack;
    row.liveRefs = s.live;
    row.tables = s.tables;
    row.bytes = s.totalBytes;
    row.refRecords = s.refRecords;
    row.tombstones = s.tombstones;
    row.tombstoneRecords = s.tombstoneRecords;
    row.hiddenRecords = report.tables.reduce((n, t) => n + t.hiddenByTombstone, 0);
    row.tombstoneShare = s.refRecords > 0 ? (s.tombstoneRecords + row.hiddenRecords) / s.refRecords : 0;
    row.locks = s.locks.length;
    const c = s.compaction as CompactionReport | { incomplete: true } | undefined;
    if (c && !('incomplete' in c)) {
      const seg = c.segment;
      row.autoSegment = seg ? `${seg.start}-${seg.end}` : null;
      const after = seg ? s.tables - (seg.end - seg.start) : s.tables;
      const outside = report.tables.filter((_, i) => !seg || i < seg.start || i > seg.end);
      const recs = (t: (typeof report.tables)[number]) =>
        t.records.ref +
        t.records.peeled +
        t.records.symref +
        t.records.tombstone +
        t.records.log +
        t.records.logDeletion;
      row.debtTables = after > 1 ? outside.length : 0;
      row.debtBytes = after > 1 ? outside.reduce((n, t) => n + t.fileSize, 0) : 0;
      row.debtRecords = after > 1 ? outside.reduce((n, t) => n + recs(t), 0) : 0;
    }
  } else if (a.files) {
    const p = report.packedRefs as PackedRefsJson | undefined;
    row.tables = 0;
    row.bytes = refFileBytes(files);
    row.tombstones = 0;
    row.tombstoneRecords = 0;
    row.hiddenRecords = 0;
    row.tombstoneShare = 0;
    const loose = p?.loose?.looseRefs ?? a.files.loose.length;
    row.liveRefs = listed;
    row.refRecords = (p?.records ?? 0) + loose;
    row.locks = (a.files.packedRefsLocked ? 1 : 0) + a.files.ignored.filter((x) => x.path.endsWith('.lock')).length;
    const auto = p?.packRefsAuto;
    if (auto) {
      row.debtTables = null;
      row.debtBytes = null;
      row.debtRecords = Math.max(0, loose - (auto.wouldPack && !auto.locked ? auto.candidatesTags : 0));
    }
  }
  if (!opts.estimates) row.estimateNote = 'left out (--no-estimates)';
  else if (!row.gitReadable) row.estimateNote = 'git cannot read this repository: no estimate';
  else estimate(row, a, opts);
  return row;
}

function estimate(row: ScanRow, a: Analysis, opts: RowOptions): void {
  try {
    const sim = Simulator.fromAnalysis(a);
    const spec = a.stack && a.merged.tombstonesHiding > 0 ? WORKLOAD_RECREATE : WORKLOAD_CREATE;
    const w = sim.parseSpec(spec);
    row.workload = spec;
    for (const { model, key } of ROW_MODELS) {
      if ((model === 'files') !== !a.stack) continue;
      const res = sim.run(w, {
        models: [model],
        baseline: model,
        curve: false,
        budgetMs: opts.budgetMs,
        factor: opts.factor,
      });
      const m = res.results[0];
      row[`${key}Seconds`] = m?.applicable ? m.seconds : null;
      let best: (typeof res.fixes)[number] | null = null;
      for (const fx of res.fixes)
        if (fx.applicable && fx.speedup !== null && fx.speedup > 1 && (!best || fx.speedup > best.speedup!)) best = fx;
      if (best) {
        row[`${key}Fix`] = best.fix;
        row[`${key}FixSeconds`] = best.seconds;
        row[`${key}FixGain`] = best.speedup;
      }
    }
  } catch (e) {
    row.estimateNote =
      e instanceof SimulationLimitError
        ? `the simulation passed its budget: ${e.message}`
        : `no estimate: ${(e as Error).message}`;
  }
}
