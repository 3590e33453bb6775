/**
 * session: the engine facade the web worker exposes (and tests drive directly). One analysis at
 * a time; `load` and `openShare` replace it. The concerns live in their own modules — loading
 * (load.ts), the refs list and drill-downs (paging.ts), compaction (compaction.ts), share links
 * and exports (share.ts), the simulator (simulate.ts) — and `EngineSession` keeps the one
 * surface the page talks to.
 *
 * The contract of every method: an answer, or the engine's one error (`FormatError`: file,
 * offset, expected, found). Whatever else a lower layer throws is turned into one here
 * (`engineError`), so the page never sees a bare exception. Pure engine code: no DOM, no Node.
 */
import { FormatError, displayName, type InputFile } from '../basics.ts';
import { nameFindings, type Analysis } from '../analyze.ts';
import { reportPrefixes, type BlockReport, type Report } from '../report.ts';
import type { BlockDetail } from '../blockdetail.ts';
import { ShareLinkError, type SharePayload } from '../share/index.ts';
import '../index.ts';
import { LoadTracker, runLoad, toLoadError } from './load.ts';
import type { Table } from '../reftable/table.ts';
import { RefsList } from './paging.ts';
import { CompactionSession } from './compaction.ts';
import { ShareSession } from './share.ts';
import { SimulateSession } from './simulate.ts';
import { makeLazy, type LazyCounters, type LazyRefColumns } from './columns.ts';
import { refHistory, type RefHistory } from '../history.ts';
import { StackWatcher, type WatchEvent, type WatchSnapshot } from '../watch.ts';
import { diffAnalyses, type StackDiff } from '../diff.ts';
import { readLogs } from '../logs.ts';
import { DEFER_DETAILS_BYTES, LAZY_VALUES_BYTES, PENDING_DETAILS, type LoadWork } from './types.ts';
import type {
  Capabilities,
  CompactionData,
  CompactionQuery,
  CompactNowResult,
  ExportAnswer,
  ExportFormat,
  LoadResult,
  OpenShareAnswer,
  ProgressFn,
  RefsPage,
  RefsQuery,
  ShareAnswer,
  SimulateAnswer,
  SimulateQuery,
  TableLayout,
} from './types.ts';

export * from './types.ts';
export { slicedSource } from './load.ts';

/**
 * `e` as the engine's error: a `FormatError` as it is; a link's error with the link as its file;
 * anything else (a defect below) with what was being done and its message.
 */
export function engineError(e: unknown, what: string): FormatError {
  if (e instanceof FormatError) return e;
  if (e instanceof ShareLinkError)
    return new FormatError('(link)', -1, `a link this refscope can rebuild (${e.message})`);
  const msg = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return new FormatError('(engine)', -1, `${what} to finish (it stopped: ${displayName(msg).slice(0, 300)})`);
}

function guard<T>(what: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw engineError(e, what);
  }
}

/** Tables with more blocks than this cross to the page without their block list (see `pageReport`). */
export const PAGE_BLOCKS_MAX = 2048;

/**
 * The report as the load sends it to the page: a table of more than `PAGE_BLOCKS_MAX` blocks
 * (a ten-million-ref table has over 150,000) gets a block list of the same length with no entry
 * in it — a sparse array, which crosses the worker boundary without a value per block, so the
 * page's thread never spends a long task taking it apart. The page reads a table's blocks with
 * `tableBlocks` when it shows them; `report()` and the exports keep every block.
 */
export function pageReport(r: Report): Report {
  if (!r.tables.some((t) => t.blocks.length > PAGE_BLOCKS_MAX)) return r;
  return {
    ...r,
    tables: r.tables.map((t) =>
      t.blocks.length > PAGE_BLOCKS_MAX ? { ...t, blocks: new Array<BlockReport>(t.blocks.length) } : t,
    ),
  };
}

export class EngineSession {
  private analysis: Analysis | null = null;
  private rep: Report | null = null;
  private files: InputFile[] = [];
  private list = new RefsList(null);
  private readonly tracker = new LoadTracker();
  private readonly compactions = new CompactionSession();
  private readonly shares = new ShareSession();
  private readonly sims = new SimulateSession();
  private watcher = new StackWatcher();
  /** Tables of the current analysis whose values stay in their bytes (session/columns.ts). */
  private lazy: LazyRefColumns[] = [];
  /** Work of the lazy columns (tests count it). */
  readonly lazyCounters: LazyCounters = { valuesDecoded: 0, materialized: 0 };
  /** Inputs with at least this many bytes of tables keep their values in the files (tests lower it). */
  lazyValuesFrom: number = LAZY_VALUES_BYTES;
  /**
   * Inputs with at least this many bytes of tables show their counts first: the load leaves the
   * checks of the live names and the prefix rows to `details` (tests change it).
   */
  deferDetailsFrom: number = DEFER_DETAILS_BYTES;
  /** True while the current report waits for `details`. */
  private pending = false;
  /** Work of the last load (tests count it instead of timing it). */
  loadWork: LoadWork = { recordsDecoded: 0, deferred: false };
  /** The analysis kept for a comparison ("keep this, open another"); a new load leaves it. */
  private kept: Analysis | null = null;

  /** Wall-clock budget of one `simulate` (ms); tests shorten it. */
  get simulationBudgetMs(): number {
    return this.sims.budgetMs;
  }
  set simulationBudgetMs(ms: number) {
    this.sims.budgetMs = ms;
  }

  /** Count `n` bytes read from the inputs (called by byte sources while loading). */
  noteRead(n: number): void {
    this.tracker.noteRead(n);
  }

  private replace(a: Analysis | null, r: Report | null, files: InputFile[]): void {
    this.analysis = a;
    this.rep = r;
    this.files = files;
    this.lazy = [];
    this.pending = false;
    this.list = new RefsList(null);
    this.shares.reset();
    this.compactions.reset();
    this.sims.reset();
  }

  /**
   * Analyse `inputs` (replacing the current analysis). Never throws: an input-level problem comes
   * back in `error`, a damaged table in `report.tables[i].error`; when the report was built but
   * the refs cannot be listed (a damaged packed-refs), the report is kept and `error` says why the
   * list is empty.
   */
  load(inputs: InputFile[], onProgress?: ProgressFn, preopened?: Map<string, Table>): LoadResult {
    this.replace(null, null, inputs);
    const out = runLoad(
      inputs,
      this.tracker,
      onProgress ?? null,
      this.lazyValuesFrom,
      (a) => {
        if (a.stack) this.lazy = makeLazy(a.stack.tables, this.lazyCounters);
      },
      this.deferDetailsFrom,
      preopened,
    );
    if (!out.ok) {
      this.lazy = [];
      this.loadWork = { recordsDecoded: 0, deferred: false };
      return out.result;
    }
    this.analysis = out.analysis;
    this.rep = out.report;
    this.pending = out.deferred;
    this.loadWork = { recordsDecoded: out.budget.records, deferred: out.deferred };
    let error: LoadResult['error'] = null;
    try {
      this.list = new RefsList(out.analysis);
    } catch (e) {
      this.list = new RefsList(null);
      error = toLoadError(engineError(e, 'listing the refs'));
    }
    this.tracker.setPhase('done');
    this.tracker.end();
    return {
      ...out.base,
      report: pageReport(out.report),
      pending: this.pending ? [...PENDING_DETAILS] : [],
      parsedInPool: preopened?.size ?? 0,
      error,
      splits: this.list.splits,
      refCount: this.list.liveCount(),
      refCountWithTombstones: this.list.totalCount,
      elapsed: Date.now() - out.t0,
    };
  }

  /**
   * What the worker holds for the current analysis: bytes of the ref columns (keys, starts, types,
   * prefix lengths, and the value columns where held), of the merged view and of the refs list,
   * and how many tables keep their values in their bytes.
   */
  memory(): { columnBytes: number; valueBytes: number; mergedBytes: number; listBytes: number; lazyTables: number } {
    const a = this.analysis;
    let columnBytes = 0,
      valueBytes = 0,
      mergedBytes = 0;
    const seen = new Set<unknown>();
    for (const t of a?.stack?.tables ?? []) {
      if (!t || seen.has(t)) continue;
      seen.add(t);
      const r = t.refs;
      columnBytes += r.keyBytes.byteLength + r.keyStart.byteLength + r.types.byteLength + (r.lcp?.byteLength ?? 0);
      const l = this.lazy.find((x) => x === r);
      valueBytes += l
        ? l.valueBytes
        : r.oids.byteLength + r.updateIndex.byteLength + r.block.byteLength + r.peeled.size * t.header.hashSize;
    }
    if (a?.merged) mergedBytes = a.merged.table.byteLength + a.merged.rec.byteLength;
    return {
      columnBytes,
      valueBytes,
      mergedBytes,
      listBytes: this.list.heldBytes(),
      lazyTables: this.lazy.filter((l) => l.lazy).length,
    };
  }

  /**
   * Drop the value columns a view built for tables that keep their values in their bytes (the
   * next view that needs them builds them again); the refs list reads values from the blocks.
   */
  releaseValues(): void {
    for (const l of this.lazy) l.release();
  }

  /**
   * What a load that showed its counts first left for later (`LoadResult.pending`): the checks of
   * the live ref names (their findings) and the report's prefix rows. Returns the report's whole
   * findings and its prefix rows, now complete, or null when nothing was pending. Every method
   * that hands out the report (`report`, exports, share links) calls it first.
   */
  details(): { findings: Report['findings']; prefixes: Report['prefixes'] } | null {
    const a = this.analysis,
      r = this.rep;
    if (!this.pending || !a?.stack || !r) return null;
    return guard('checking the ref names', () => {
      const before = a.findings.length;
      const more = nameFindings(a);
      a.findings.push(...more);
      // Where the load would have put them: after the analysis's own findings, before the report's.
      r.findings.splice(before, 0, ...more);
      r.prefixes = reportPrefixes(a);
      this.pending = false;
      return { findings: r.findings, prefixes: r.prefixes };
    });
  }

  /** The current report (null before a successful load). */
  report(): Report | null {
    this.details();
    return this.rep;
  }

  /** The current analysis (for other engine modules running in the same worker). */
  current(): Analysis | null {
    return this.analysis;
  }

  /** Inputs of the current load. */
  inputs(): InputFile[] {
    return this.files;
  }

  /** One page of the refs list (merged view, byte order), filtered. */
  refsPage(q: RefsQuery): RefsPage {
    return guard('reading a page of refs', () => this.list.refsPage(q));
  }

  /** The layout of table `i` (report order): sections and blocks. */
  tableBlocks(i: number): TableLayout | null {
    return guard('reading a table layout', () => this.list.tableBlocks(i));
  }

  /** Block `b` of table `i` decoded for the hex view; null if out of range. */
  blockDetail(i: number, b: number): BlockDetail | null {
    return guard('decoding a block', () => this.list.blockDetail(i, b));
  }

  /** The compaction geometry at `q.factor` (see CompactionSession.data). */
  compaction(q: CompactionQuery): CompactionData | null {
    return guard('computing the compaction geometry', () => this.compactions.data(this.rep, this.analysis, q));
  }

  /** A real `git pack-refs [--auto]` on the loaded tables (see CompactionSession.compactNow). */
  compactNow(q: { mode: 'auto' | 'all'; factor: number; zip?: boolean }): CompactNowResult {
    return guard('compacting the stack', () => this.compactions.compactNow(this.analysis, this.rep, q));
  }

  /** The zipped `reftable/` directory after the last `compactNow` that wrote a table, or null. */
  compactedZip(): { zip: Uint8Array; zipName: string } | null {
    return guard('zipping the compacted stack', () => this.compactions.compactedZip(this.analysis));
  }

  /** The share link of the current report, and exactly what it contains (see ShareSession.share). */
  share(q: { withNames: boolean; base?: string; simulation?: unknown }): ShareAnswer | null {
    this.details();
    return guard('making the share link', () => this.shares.share(this.analysis, this.rep, q));
  }

  /**
   * Open a share link (a whole URL, `#s=…` or `s=…`): on success the report rebuilt from it
   * replaces the current analysis (there are no files: refs pages and blocks are empty). A link
   * that cannot be read leaves the current analysis alone and says why.
   */
  openShare(fragment: string): OpenShareAnswer {
    const { answer, payload, report } = this.shares.open(fragment);
    if (!answer.ok) return answer;
    this.replace(null, report, []);
    this.shares.shared = payload;
    return answer;
  }

  /**
   * Build a synthetic stack of the shared report's shape (same tables, record kinds and counts,
   * shadowing and tombstones, synthetic names) and analyse it like files.
   */
  loadSynthetic(onProgress?: ProgressFn): LoadResult {
    const p: SharePayload = guard('rebuilding the shared stack', () => this.shares.syntheticSource());
    const files = guard('rebuilding the shared stack', () => this.shares.syntheticFiles(p));
    const res = this.load(files, onProgress);
    this.shares.syntheticOf = p;
    return { ...res, description: 'synthetic stack rebuilt from a shared link (synthetic names and ids)' };
  }

  /** True when the current report was opened from a link (no files). */
  isShared(): boolean {
    return !!this.shares.shared;
  }

  /** The current report as a document (see ShareSession.exportAs). */
  exportAs(format: ExportFormat): ExportAnswer {
    this.details();
    return guard('exporting the report', () => this.shares.exportAs(this.analysis, this.rep, format));
  }

  /** Run a workload on the current analysis with the simulator (see SimulateSession.simulate). */
  simulate(q: SimulateQuery): SimulateAnswer {
    return guard('running the simulation', () => this.sims.simulate(this.analysis, this.isShared(), q));
  }

  /**
   * Every record of ref `name` (Unicode text) in every table, newest first, and its reflog
   * (src/engine/history.ts); names and symref targets as display text. Null when no reftable
   * stack is loaded (a share link, packed-refs).
   */
  refHistory(name: string): RefHistory | null {
    const a = this.analysis;
    if (!a?.stack) return null;
    return guard("reading the ref's history", () => {
      const h = refHistory(a, name);
      for (const r of h.records) if (r.target !== undefined) r.target = displayName(r.target);
      for (const l of h.logs) l.refname = displayName(l.refname);
      return { ...h, name: displayName(h.name) };
    });
  }

  /** Start watching a new folder (the Watch view): the cached tables of the last one go. */
  watchReset(): void {
    this.watcher = new StackWatcher();
  }

  /**
   * One look at the watched folder (src/engine/watch.ts): the event of a new `tables.list` state
   * or lock-file change, or null. Only tables new to the state are read from `snap`.
   */
  watchStep(snap: WatchSnapshot): WatchEvent | null {
    return guard('reading the watched stack', () => this.watcher.step(snap));
  }

  /** Keep the current analysis as the "before" of a comparison; false when there is none. */
  keepForCompare(): boolean {
    this.kept = this.analysis;
    return !!this.kept;
  }

  /** Forget the kept analysis. */
  dropKept(): void {
    this.kept = null;
  }

  /**
   * The kept analysis (before) against the current one (after), src/engine/diff.ts; each list cut
   * to its first `limit` entries (the counts are whole), names as display text. Null without both.
   */
  compare(limit = 200): (StackDiff & { cut: number; counts: Record<string, number> }) | null {
    const a = this.kept,
      b = this.analysis;
    if (!a || !b) return null;
    return guard('comparing the two inputs', () => {
      const d = diffAnalyses(a, b, (t) => readLogs(t).map((l) => `${l.refname}\0${l.updateIndex}`));
      const refs = <T extends { name: string }>(xs: T[]) =>
        xs.slice(0, limit).map((x) => ({ ...x, name: displayName(x.name) }));
      return {
        ...d,
        refsCreated: refs(d.refsCreated),
        refsUpdated: refs(d.refsUpdated),
        refsDeleted: refs(d.refsDeleted),
        recordsDropped: refs(d.recordsDropped),
        recordsWritten: refs(d.recordsWritten),
        counts: {
          refsCreated: d.refsCreated.length,
          refsUpdated: d.refsUpdated.length,
          refsDeleted: d.refsDeleted.length,
          recordsDropped: d.recordsDropped.length,
          recordsWritten: d.recordsWritten.length,
        },
        cut: limit,
      };
    });
  }

  /** What this engine build can do. */
  capabilities(): Capabilities {
    return guard('listing the capabilities', () => this.sims.capabilities());
  }
}
