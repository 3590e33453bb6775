/**
 * session: the engine facade the web worker exposes (and tests drive directly).
 *
 * Holds the current `Analysis` and answers the page's questions about it in small pieces: the
 * report, one page of the refs list (a million refs never cross to the page at once), one table's
 * block list, one block decoded for a hex view. Names leave the session as Unicode text
 * (`displayName`); inside they stay byte strings so that order and filters are git's byte order.
 * Pure engine code: no DOM, no Node APIs.
 */
import {
  type ByteSource, type InputFile, FormatError, bytesToKey, displayName, keyToBytes, memorySource, textToKey, toHex,
} from './basics.ts';
import { analyzeFiles, analysisRefs, type Analysis } from './analyze.ts';
import { classifyInput } from './input.ts';
import { buildReport, type Report, type BlockReport } from './report.ts';
import { resolveEntry } from './refs.ts';
import { sectionRanges, type SectionName, type Table, type TableFooter, type TableHeader } from './table.ts';
import { decodeBlockDetail, type BlockDetail } from './blockdetail.ts';
import {
  estimatePackAll, geometryByCount, gitAutoCompaction, jgitCompaction, replayAutoCompaction,
  type GeometryResult, type JGitResult, type ReplayStep, type Segment,
} from './compaction.ts';
import { compactAll, compactAuto, stackFilesAfter, zipStack, type CompactResult, type CompactStats } from './compact.ts';
import type { AfterCompaction, CompactionReport } from './extensions.ts';
import {
  SHARED_LABEL, ShareLinkError, buildSharePayload, decodeShare, describeShare, encodeShare, reportFromShare, shareFigures,
  shareLink, syntheticStack, type ShareDescription, type ShareErrorReason, type SharePayload, type SharedReport,
} from './share/index.ts';
import { exportJson, exportMarkdown, exportScript } from './export.ts';
import { Simulator, SpecError, SimulationLimitError, type ModelName, type SimulationResult } from './simulate/index.ts';
import './index.ts';


/** Budget of one load in the worker: 60 s and 40,000,000 records (docs/limits.md). */
export const LOAD_DEADLINE_MS = 60_000;
export const LOAD_MAX_RECORDS = 40_000_000;
/** Wall-clock budget of one simulation in the worker (the CLI's default too). */
export const SIMULATION_BUDGET_MS = 60_000;

/** Where a load is. `bytesRead` counts bytes read from the inputs, `bytesParsed` bytes parsed. */
export interface LoadProgress {
  phase: 'reading' | 'parsing' | 'merging' | 'done';
  bytesTotal: number;
  bytesRead: number;
  bytesParsed: number;
  tablesTotal: number;
  tablesDone: number;
  /** Milliseconds since the load started. */
  elapsed: number;
}

/** Per-table split of the ref records by what they are in the merged view (for the stack view). */
export interface TableSplit {
  /** Winning records that are not tombstones (live refs from this table). */
  live: number;
  /** Records a newer table's record of the same key overrides. */
  shadowed: number;
  /** Winning tombstones. */
  tombstones: number;
  /** Ref records in total (live + shadowed + tombstones). */
  refRecords: number;
  /** Bytes of the ref section, log section, and everything else (indexes, obj, header, footer). */
  refBytes: number;
  logBytes: number;
  otherBytes: number;
}

/** An input-level error (nothing usable, or an exception). */
export interface LoadError {
  file: string;
  offset: number;
  expected: string;
  message: string;
}

/** What `load` returns. */
export interface LoadResult {
  report: Report | null;
  error: LoadError | null;
  /** The input files (path and size), as given. */
  files: { path: string; size: number }[];
  kind: string;
  description: string;
  /** Per table (report order), null for a broken table. */
  splits: (TableSplit | null)[];
  /** Entries of the refs list: live refs, and with tombstones. */
  refCount: number;
  refCountWithTombstones: number;
  /** Milliseconds the analysis took in the engine. */
  elapsed: number;
}

/** A refs-list query. `filter` is Unicode text; `offset`/`limit` select rows of the filtered list. */
export interface RefsQuery {
  filter: string;
  mode: 'prefix' | 'substring';
  includeTombstones: boolean;
  offset: number;
  limit: number;
}

/** One row of the refs list. */
export interface RefRow {
  /** Position in the filtered list. */
  index: number;
  /** Ref name as Unicode text. */
  name: string;
  /** Object id (hex); for a symref the object id it resolves to, '' if it resolves to nothing. */
  oid: string;
  kind: 'ref' | 'peeled' | 'symref' | 'tombstone';
  /** Peeled object id (kind 'peeled'). */
  peeled?: string;
  /** Symref target, Unicode (kind 'symref'). */
  target?: string;
  /** Index of the source table in `report.tables`, -1 when not from a table (packed-refs, loose). */
  table: number;
  /** File the ref comes from (table file name, or e.g. 'packed-refs'). */
  source: string;
  /** Update index of the record (-1 when not from a table). */
  updateIndex: number;
  /** Block of the source table holding the record (-1 when not from a table). */
  block: number;
  /** Ordinal of the record within that block (-1 when not from a table). */
  blockRecord: number;
}

export interface RefsPage {
  /** Rows in the filtered list. */
  total: number;
  offset: number;
  rows: RefRow[];
}

/** One block as the table view lists it. */
export interface BlockSummary extends BlockReport {
  index: number;
  /** First and last key, as display text. */
  firstKey: string;
  lastKey: string;
}

/** A table's layout for the drill-down view. */
export interface TableLayout {
  index: number;
  name: string;
  path: string;
  fileSize: number;
  header: TableHeader | null;
  footer: TableFooter | null;
  /** Byte ranges: header, each section present, footer. */
  sections: { name: SectionName | 'header' | 'footer'; start: number; end: number }[];
  blocks: BlockSummary[];
  error: { file: string; offset: number; expected: string } | null;
}

export interface Capabilities {
  /** packed-refs / files backend analysis available. */
  filesBackend: boolean;
}

/** A question for the Compaction view: the rules at `factor`, and a replay of the next `k` transactions. */
export interface CompactionQuery {
  /** Geometric factor, 2..255 (git's `reftable.geometricFactor`). */
  factor: number;
  /** Transactions to replay (0..`MAX_REPLAY`). */
  k: number;
  /** File size of each replayed transaction's table, in bytes (one ref ≈ 150). */
  txSize: number;
}

/** Most transactions `compaction` replays. */
export const MAX_REPLAY = 10_000;

/** One table as the Compaction view draws it (report order, oldest = 0). */
export interface CompactionTable {
  index: number;
  name: string;
  fileSize: number;
  version: 1 | 2;
  /** Ref + log records (what `byRecords` compares). */
  records: number;
  /** Live records: winners that are not tombstones (what `byLive` compares). */
  live: number;
  /** Could not be read (its file size still counts for git's rule). */
  broken: boolean;
}

/** What the Compaction view draws: every rule at the asked factor, and the replay. */
export interface CompactionData {
  factor: number;
  tables: CompactionTable[];
  /** Git's rule on net byte sizes (what git does). */
  bytes: GeometryResult;
  /** The same rule on record counts, and on live-record counts (display only: git never compares counts). */
  records: GeometryResult;
  live: GeometryResult;
  /** JGit's rule (equal ⌊log2(size − 91)⌋ groups). */
  jgit: JGitResult;
  /** Git's auto-compaction after each of the next `k` transactions (sizes of compacted tables are estimates). */
  replay: ReplayStep[];
  /** Estimated size of the one table `git pack-refs` would write (sum of net sizes + overhead). */
  packAllEstimate: number;
  /** The report's measured `afterAuto` / `afterPackRefs` (real compactions at the report's factor), if any. */
  measured: { factor: number; afterAuto: AfterCompaction | null; afterPackRefs: AfterCompaction | null; skipped: string | null } | null;
  /** True when the tables are here, so `compactNow` can write the compacted stack. */
  canCompact: boolean;
  /** Why `compactNow` cannot run (no files, an unreadable table), or null. */
  cannotCompact: string | null;
}

/** One table of the stack after a real compaction. */
export interface CompactedTable {
  name: string;
  bytes: number;
  records: number;
  /** The table written by the compaction (else copied unchanged; `from` is its index before). */
  isNew: boolean;
  from: number;
}

/** What `compactNow` did. `zip` is the whole new `reftable/` directory (transferred, not copied). */
export interface CompactNowResult {
  mode: 'auto' | 'all';
  factor: number;
  /** Tables merged (indexes before), or null when git's rule finds nothing to compact (`auto`). */
  segment: Segment | null;
  /** False when nothing was written (no segment, or a one-table stack for `all`). */
  changed: boolean;
  /** The merged tables held nothing (every ref cancelled): git writes no table. */
  empty: boolean;
  /** Tombstones and log deletions were dropped: only when the segment starts at the base table. */
  dropsDeletions: boolean;
  /** Deletions carried forward that the specification's rule would have allowed to drop. */
  specDroppable: { tombstones: number; logDeletions: number };
  stats: CompactStats | null;
  before: { tables: number; bytes: number; records: number };
  after: { tables: number; bytes: number; records: number };
  tables: CompactedTable[];
  /** `reftable/` with `tables.list` and every table, zipped (null when nothing changed, or not asked for: see `compactedZip`). */
  zip: Uint8Array | null;
  zipName: string;
  elapsed: number;
}

/** What `share` returns: the link (or why there is none) and exactly what it contains. */
export interface ShareAnswer {
  ok: boolean;
  link: string;
  error: string;
  chars: number;
  description: ShareDescription;
  /** The link carries names (asked for, and available: a link opened without names has none to add). */
  withNames: boolean;
  /** The report is itself from a link: the link re-encodes that payload. */
  fromLink: boolean;
}

/** What `openShare` returns. */
export type OpenShareAnswer =
  | { ok: true; result: LoadResult }
  | { ok: false; reason: ShareErrorReason; message: string };

/** Export formats of `exportAs`. */
export type ExportFormat = 'json' | 'md' | 'script';

/** A document to download. */
export interface ExportAnswer {
  text: string;
  filename: string;
  mime: string;
}

/** A question for the Simulator view (`simulate`): a workload and the options of `Simulator.run`. */
export interface SimulateQuery {
  /** A generated workload spec (`recreate`, `create:1000:refs/heads/new/`, … docs/simulator.md), Unicode text. */
  spec?: string;
  /** Or `git update-ref --stdin` input (bytes as given), `-z` or not, and a file name for messages. */
  stdin?: { bytes: Uint8Array; z: boolean; file: string };
  /** Models to run (default: all; the ones that do not apply to the input say why). */
  models?: ModelName[];
  warnAmbiguousRefs?: boolean;
  autoCompaction?: boolean;
  factor?: number;
}

/** Why `simulate` ran nothing: a malformed spec, a bad line of the stdin input, or an engine failure. */
export interface SimulateError {
  kind: 'spec' | 'stdin' | 'engine';
  /** One line, display text. */
  message: string;
  /** For `stdin`: the file name, the byte offset, what was expected there, and where that is. */
  file: string;
  offset: number;
  expected: string;
  /** 1-based line (text input) or NUL-terminated field (`-z`) holding `offset`, and the byte column in it; 0 when not known. */
  line: number;
  column: number;
  /** That line or field (display text, at most 200 characters). */
  lineText: string;
}

/** What `simulate` returns. Names in `result` (explanation, errors, workload) are display text. */
export type SimulateAnswer =
  | { ok: true; result: SimulationResult; elapsed: number }
  | { ok: false; error: SimulateError };

/** Called by the session with progress; throttled to about every `PROGRESS_MS`. */
export type ProgressFn = (p: LoadProgress) => void;

/** Progress is reported at most this often (and at every phase change). */
export const PROGRESS_MS = 100;

/** Size of the slices large reads are split into (each slice reports progress). */
export const READ_SLICE = 4 * 1024 * 1024;

function keyDisplay(t: Table | null, k: string, section: SectionName): string {
  if (section === 'obj' || section === 'objIndex') {
    let s = '';
    for (let i = 0; i < k.length; i++) s += k.charCodeAt(i).toString(16).padStart(2, '0');
    return s;
  }
  if (section === 'log' || section === 'logIndex') {
    const j = k.length - 9;
    if (j >= 0 && k.charCodeAt(j) === 0) return displayName(k.slice(0, j));
  }
  void t;
  return displayName(k);
}

/** Index of the first position p in [lo, hi) of `idx` with keyOf(idx[p]) ≥ key. */
function lowerBoundIdx(keyOf: (i: number) => string, idx: Int32Array | null, key: string, lo: number, hi: number): number {
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    const k = keyOf(idx ? idx[m] : m);
    if (k < key) lo = m + 1; else hi = m;
  }
  return lo;
}

/** Smallest byte string greater than every string starting with `p` (or null when there is none). */
function prefixEnd(p: string): string | null {
  let i = p.length - 1;
  while (i >= 0 && p.charCodeAt(i) === 0xff) i--;
  if (i < 0) return null;
  return p.slice(0, i) + String.fromCharCode(p.charCodeAt(i) + 1);
}

/** A filtered list: either a contiguous range of the base list, or explicit positions. */
type Selection = { base: Int32Array | null; from: number; to: number } | { list: Int32Array };

/**
 * The facade. One analysis at a time; `load` replaces it.
 */
export class EngineSession {
  /** Wall-clock budget of one `simulate` (ms); tests shorten it. */
  simulationBudgetMs = SIMULATION_BUDGET_MS;
  private analysis: Analysis | null = null;
  private rep: Report | null = null;
  private files: InputFile[] = [];
  /** Keys of the refs list (byte strings, sorted): the merged view's keys, or listed refs for the files backend. */
  private keys: string[] = [];
  /** Positions (into `keys`) of live entries; null = every entry is live. */
  private liveIdx: Int32Array | null = null;
  private listed: { name: string; oid: string }[] | null = null;
  private cache = new Map<string, Selection>();
  private progress: LoadProgress | null = null;
  private onProgress: ProgressFn | null = null;
  private lastEmit = 0;
  private started = 0;
  private tableStarted = new Set<string>();
  private tableNames = new Set<string>();
  /** The payload of the report shown when it was opened from a link (no files), else null. */
  private shared: SharePayload | null = null;
  /** The payload a synthetic stack was built from (`loadSynthetic`), else null. */
  private syntheticOf: SharePayload | null = null;
  /** The last `compactNow` result that wrote a table, for `compactedZip`. */
  private lastCompact: { res: CompactResult; zipName: string } | null = null;
  /** The simulator of the current analysis (built on first use: it indexes every key). */
  private sim: { a: Analysis; s: Simulator } | null = null;

  /** Count `n` bytes read from the inputs (called by byte sources while loading). */
  noteRead(n: number): void {
    if (!this.progress) return;
    this.progress.bytesRead = Math.min(this.progress.bytesTotal, this.progress.bytesRead + n);
    this.emit(false);
  }

  private emit(force: boolean): void {
    if (!this.progress || !this.onProgress) return;
    const now = Date.now();
    if (!force && now - this.lastEmit < PROGRESS_MS) return;
    this.lastEmit = now;
    this.progress.elapsed = now - this.started;
    this.onProgress({ ...this.progress });
  }

  private setPhase(phase: LoadProgress['phase']): void {
    if (!this.progress) return;
    this.progress.phase = phase;
    this.emit(true);
  }

  /**
   * Analyse `inputs` (replacing the current analysis). Never throws for bad input: an input-level
   * problem comes back in `error`, a damaged table in `report.tables[i].error`.
   */
  load(inputs: InputFile[], onProgress?: ProgressFn): LoadResult {
    const t0 = Date.now();
    this.analysis = null;
    this.rep = null;
    this.keys = [];
    this.liveIdx = null;
    this.listed = null;
    this.cache.clear();
    this.files = inputs;
    this.shared = null;
    this.syntheticOf = null;
    this.lastCompact = null;
    this.sim = null;
    this.started = t0;
    this.lastEmit = 0;
    this.onProgress = onProgress ?? null;
    this.tableStarted.clear();
    this.tableNames.clear();
    const filesInfo = inputs.map((f) => ({ path: f.path, size: f.source.size }));
    const base: LoadResult = {
      report: null, error: null, files: filesInfo, kind: 'empty', description: '', splits: [],
      refCount: 0, refCountWithTombstones: 0, elapsed: 0,
    };
    let cls;
    try {
      cls = classifyInput(inputs);
    } catch (e) {
      return { ...base, error: toLoadError(e), elapsed: Date.now() - t0 };
    }
    const relevant = cls.kind === 'reftable' ? [...cls.tableFiles, ...(cls.tablesList ? [cls.tablesList] : [])] : cls.gitFiles;
    for (const f of cls.tableFiles) this.tableNames.add(f.path.split('/').pop()!);
    this.progress = {
      phase: 'reading', bytesTotal: relevant.reduce((s, f) => s + f.source.size, 0), bytesRead: 0, bytesParsed: 0,
      tablesTotal: cls.tableFiles.length, tablesDone: 0, elapsed: 0,
    };
    this.emit(true);
    // Watch the first read of each table file to count tables as they are opened.
    const watched = inputs.map((f): InputFile => {
      const name = f.path.split('/').pop()!;
      if (!f.path.endsWith('.ref')) return f;
      const src = f.source;
      return {
        path: f.path,
        source: {
          size: src.size,
          read: (o, l) => {
            if (!this.tableStarted.has(name)) {
              this.tableStarted.add(name);
              if (this.progress) {
                this.progress.tablesDone = Math.max(0, this.tableStarted.size - 1);
                this.progress.phase = 'parsing';
              }
              this.emit(false);
            }
            return src.read(o, l);
          },
        },
      };
    });
    let a: Analysis;
    try {
      a = analyzeFiles(watched, {
        // A crafted input must not freeze the tab: stop with a message instead (docs/limits.md).
        deadline: Date.now() + LOAD_DEADLINE_MS,
        maxRecords: LOAD_MAX_RECORDS,
        onProgress: (b) => {
          if (!this.progress) return;
          this.progress.bytesParsed = b;
          this.progress.phase = 'parsing';
          this.emit(false);
        },
      });
    } catch (e) {
      this.progress = null;
      return { ...base, kind: cls.kind, description: cls.description, error: toLoadError(e), elapsed: Date.now() - t0 };
    }
    if (this.progress) {
      this.progress.tablesDone = this.progress.tablesTotal;
      this.progress.bytesParsed = this.progress.bytesTotal;
      this.progress.bytesRead = this.progress.bytesTotal;
    }
    this.setPhase('merging');
    let report: Report;
    try {
      report = buildReport(a);
    } catch (e) {
      this.progress = null;
      return { ...base, kind: cls.kind, description: cls.description, error: toLoadError(e), elapsed: Date.now() - t0 };
    }
    this.analysis = a;
    this.rep = report;
    const splits: (TableSplit | null)[] = [];
    if (a.stack && a.merged) {
      const m = a.merged;
      this.keys = []; // the merged view's keys are read in place (see keyOf)
      const tables = a.stack.tables;
      const tombWin = new Array(tables.length).fill(0);
      const live = new Int32Array(m.live);
      let j = 0;
      for (let i = 0; i < m.count; i++) {
        const t = tables[m.table[i]]!;
        if (t.refs.types[m.rec[i]] === 0) tombWin[m.table[i]]++;
        else live[j++] = i;
      }
      this.liveIdx = live.subarray(0, j);
      tables.forEach((t, i) => {
        if (!t) { splits.push(null); return; }
        const sb = t.sectionBytes;
        const refBytes = sb.ref;
        const logBytes = sb.log;
        splits.push({
          live: m.winners[i] - tombWin[i], shadowed: m.shadowed[i], tombstones: tombWin[i], refRecords: t.refs.count,
          refBytes, logBytes, otherBytes: Math.max(0, t.fileSize - refBytes - logBytes),
        });
      });
    } else {
      const refs = analysisRefs(a);
      this.listed = refs;
      this.keys = refs.map((r) => r.name);
      this.liveIdx = null;
    }
    const refCount = this.liveIdx ? this.liveIdx.length : this.keyCount();
    this.setPhase('done');
    this.progress = null;
    this.onProgress = null;
    return {
      ...base, report, kind: a.input.kind, description: a.input.description, splits,
      refCount, refCountWithTombstones: this.keyCount(), elapsed: Date.now() - t0,
    };
  }

  /** The current report (null before a successful load). */
  report(): Report | null {
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

  /**
   * The merged view behind the refs list, when it is one. Its keys stay in the tables' key
   * arenas: the session makes no string per ref (a million names would take ~50 MB and ~250 ms).
   */
  private mergedList(): NonNullable<Analysis['merged']> | null {
    return this.listed ? null : this.analysis?.merged ?? null;
  }

  /** Entries of the refs list (tombstones included). */
  private keyCount(): number {
    const m = this.mergedList();
    return m ? m.count : this.keys.length;
  }

  /** Key of entry `i` of the refs list (byte string). */
  private keyOf = (i: number): string => {
    const m = this.mergedList();
    return m ? m.key(i) : this.keys[i];
  };

  /** A test "entry i's key contains `needle`" (non-empty byte string), on the key bytes in place. */
  private keyIncludes(needle: string): (i: number) => boolean {
    const m = this.mergedList();
    const tables = this.analysis?.stack?.tables;
    if (!m || !tables) return (i) => this.keys[i].includes(needle);
    const nb = keyToBytes(needle);
    const nl = nb.length, first = nb[0];
    return (i) => {
      const r = tables[m.table[i]]!.refs;
      const rec = m.rec[i];
      const kb = r.keyBytes;
      const last = r.keyStart[rec + 1] - nl;
      outer: for (let p = r.keyStart[rec]; p <= last; p++) {
        if (kb[p] !== first) continue;
        for (let j = 1; j < nl; j++) if (kb[p + j] !== nb[j]) continue outer;
        return true;
      }
      return false;
    };
  }

  private select(filter: string, mode: 'prefix' | 'substring', includeTombstones: boolean): Selection {
    const cacheKey = `${mode}\u0000${includeTombstones ? 1 : 0}\u0000${filter}`;
    const hit = this.cache.get(cacheKey);
    if (hit) {
      // Keep recently used selections last (a tiny LRU).
      this.cache.delete(cacheKey);
      this.cache.set(cacheKey, hit);
      return hit;
    }
    const base = includeTombstones ? null : this.liveIdx;
    const n = base ? base.length : this.keyCount();
    const key = textToKey(filter);
    let sel: Selection;
    if (!key) sel = { base, from: 0, to: n };
    else if (mode === 'prefix') {
      const from = lowerBoundIdx(this.keyOf, base, key, 0, n);
      const endKey = prefixEnd(key);
      const to = endKey === null ? n : lowerBoundIdx(this.keyOf, base, endKey, from, n);
      sel = { base, from, to };
    } else {
      const out = new Int32Array(Math.min(n, 1 << 16));
      let list = out;
      let c = 0;
      const has = this.keyIncludes(key);
      for (let p = 0; p < n; p++) {
        const i = base ? base[p] : p;
        if (has(i)) {
          if (c === list.length) {
            const bigger = new Int32Array(Math.min(n, list.length * 2));
            bigger.set(list);
            list = bigger;
          }
          list[c++] = i;
        }
      }
      sel = { list: list.subarray(0, c) };
    }
    this.cache.set(cacheKey, sel);
    while (this.cache.size > 8) this.cache.delete(this.cache.keys().next().value!);
    return sel;
  }

  /** One page of the refs list (merged view, byte order), filtered. */
  refsPage(q: RefsQuery): RefsPage {
    const sel = this.select(q.filter, q.mode, q.includeTombstones);
    const total = 'list' in sel ? sel.list.length : sel.to - sel.from;
    const offset = Math.max(0, Math.min(q.offset | 0, total));
    const limit = Math.max(0, Math.min(q.limit | 0, 5000, total - offset));
    const rows: RefRow[] = [];
    for (let r = offset; r < offset + limit; r++) {
      const i = 'list' in sel ? sel.list[r] : sel.base ? sel.base[sel.from + r] : sel.from + r;
      rows.push(this.row(i, r));
    }
    return { total, offset, rows };
  }

  private row(i: number, index: number): RefRow {
    const a = this.analysis!;
    if (this.listed) {
      const r = this.listed[i];
      return { index, name: displayName(r.name), oid: r.oid, kind: 'ref', table: -1, source: a.input.kind === 'packed-refs' ? 'packed-refs' : 'files backend', updateIndex: -1, block: -1, blockRecord: -1 };
    }
    const m = a.merged!;
    const tables = a.stack!.tables;
    const ti = m.table[i];
    const t = tables[ti]!;
    const rec = m.rec[i];
    const type = t.refs.types[rec];
    const hs = t.header.hashSize;
    const row: RefRow = {
      index, name: displayName(m.key(i)), oid: '', kind: 'ref', table: ti, source: t.name,
      updateIndex: t.refs.updateIndex[rec], block: t.refs.block[rec], blockRecord: rec - firstOfBlock(t.refs.block, rec),
    };
    if (type === 0) row.kind = 'tombstone';
    else if (type === 3) {
      row.kind = 'symref';
      row.target = displayName(t.refs.targets.get(rec) ?? '');
      row.oid = resolveEntry(tables, m, i) ?? '';
    } else {
      row.oid = toHex(t.refs.oids, rec * hs, (rec + 1) * hs);
      if (type === 2) {
        row.kind = 'peeled';
        const p = t.refs.peeled.get(rec);
        if (p) row.peeled = toHex(p);
      }
    }
    return row;
  }

  private table(i: number): Table | null {
    return this.analysis?.stack?.tables[i] ?? null;
  }

  /** The layout of table `i` (report order): sections and blocks. */
  tableBlocks(i: number): TableLayout | null {
    const a = this.analysis;
    const s = a?.stack;
    if (!s || i < 0 || i >= s.names.length) return null;
    const t = s.tables[i];
    if (!t) {
      const b = s.broken.find((x) => x.name === s.names[i]);
      return {
        index: i, name: s.names[i], path: b?.path ?? s.names[i], fileSize: b?.fileSize ?? 0, header: null, footer: null,
        sections: [], blocks: [], error: b ? { file: b.error.file, offset: b.error.offset, expected: b.error.expected } : null,
      };
    }
    const h = t.header;
    const firstType = t.source.read(h.headerSize, 1)[0] ?? 0;
    const sections: TableLayout['sections'] = [{ name: 'header', start: 0, end: h.headerSize }];
    for (const r of sectionRanges(h, t.footer, t.fileSize, firstType)) {
      sections.push({ name: r.name, start: r.start === 0 ? h.headerSize : r.start, end: r.end });
    }
    sections.push({ name: 'footer', start: t.fileSize - h.footerSize, end: t.fileSize });
    return {
      index: i, name: t.name, path: t.path, fileSize: t.fileSize, header: { ...h }, footer: { ...t.footer }, sections,
      blocks: t.blocks.map((b, k) => ({
        index: k, offset: b.offset, type: b.type, section: b.section, blockLen: b.blockLen, restartCount: b.restartCount,
        recordCount: b.recordCount, padding: b.padding, fileBytes: b.fileBytes,
        firstKey: keyDisplay(t, b.firstKey, b.section), lastKey: keyDisplay(t, b.lastKey, b.section),
      })),
      error: null,
    };
  }

  /** Block `b` of table `i` decoded for the hex view; null if out of range. */
  blockDetail(i: number, b: number): BlockDetail | null {
    const t = this.table(i);
    if (!t || b < 0 || b >= t.blocks.length) return null;
    return decodeBlockDetail(t, b, i);
  }

  // -------------------------------------------------------------------------------------------
  // Compaction (issue #5)

  /**
   * The compaction geometry at `q.factor` for the current report (files or a shared link): git's
   * rule by bytes, the same rule by records and by live records, JGit's rule, and git's
   * auto-compaction replayed over the next `q.k` transactions of `q.txSize` bytes. Null when the
   * input is not a reftable stack. Throws RangeError for a factor outside 2..255.
   */
  compaction(q: CompactionQuery): CompactionData | null {
    const r = this.rep;
    if (!r?.stack) return null;
    const c = (r.stack.compaction ?? null) as CompactionReport | null;
    const factor = q.factor;
    const tables: CompactionTable[] = r.tables.map((t, i) => ({
      index: i, name: t.name, fileSize: t.fileSize, version: (t.version ?? 1) as 1 | 2,
      records: t.records.ref + t.records.peeled + t.records.symref + t.records.tombstone + t.records.log + t.records.logDeletion,
      live: c?.byLive?.values[i] ?? Math.max(0, t.winners),
      broken: !!t.error,
    }));
    const sizes = tables.map((t) => t.fileSize);
    const versions = tables.map((t) => t.version);
    const k = Math.max(0, Math.min(MAX_REPLAY, Math.floor(q.k) || 0));
    const txSize = Math.max(92, Math.min(1 << 30, Math.floor(q.txSize) || 150));
    const cannot = !this.analysis?.stack
      ? 'this report was opened from a link: the tables themselves are not here (re-run on a synthetic stack to compact one of the same shape)'
      : this.analysis.stack.tables.some((t) => !t) ? 'a table could not be read, so it cannot be merged or copied' : null;
    return {
      factor,
      tables,
      bytes: gitAutoCompaction(sizes, versions, factor),
      records: geometryByCount(tables.map((t) => t.records), factor),
      live: geometryByCount(tables.map((t) => t.live), factor),
      jgit: jgitCompaction(sizes),
      replay: replayAutoCompaction(sizes, versions, factor, k, txSize),
      packAllEstimate: estimatePackAll(sizes, versions),
      measured: c ? { factor: c.factor, afterAuto: c.afterAuto ?? null, afterPackRefs: c.afterPackRefs ?? null, skipped: c.afterSkipped ?? null } : null,
      canCompact: !cannot,
      cannotCompact: cannot,
    };
  }

  /**
   * Compact the current stack for real: `auto` = `git pack-refs --auto` (git's rule at `factor`
   * picks the segment), `all` = `git pack-refs` (everything into one table). Returns the new
   * stack's tables and, unless `q.zip` is false, the zipped `reftable/` directory (zipping a
   * 40 MB table takes about 2 s: a page can ask for it later with `compactedZip`). Throws when the
   * tables are not here.
   */
  compactNow(q: { mode: 'auto' | 'all'; factor: number; zip?: boolean }): CompactNowResult {
    const t0 = Date.now();
    const a = this.analysis;
    const r = this.rep;
    if (!a?.stack || !r) throw new Error('nothing to compact: the tables are not loaded (a shared report has no files)');
    const stack = a.stack;
    const recsOf = (i: number): number => {
      const t = r.tables[i];
      return t.records.ref + t.records.peeled + t.records.symref + t.records.tombstone + t.records.log + t.records.logDeletion;
    };
    const before = {
      tables: stack.names.length,
      bytes: r.tables.reduce((s, t) => s + t.fileSize, 0),
      records: r.tables.reduce((s, _t, i) => s + recsOf(i), 0),
    };
    this.lastCompact = null;
    const res = q.mode === 'all' ? compactAll(stack) : compactAuto(stack, { factor: q.factor });
    const unchanged = (): CompactedTable[] => stack.names.map((name, i) => ({ name, bytes: r.tables[i].fileSize, records: recsOf(i), isNew: false, from: i }));
    if (!res) {
      return {
        mode: q.mode, factor: q.factor, segment: null, changed: false, empty: false, dropsDeletions: false,
        specDroppable: { tombstones: 0, logDeletions: 0 }, stats: null, before, after: before, tables: unchanged(),
        zip: null, zipName: '', elapsed: Date.now() - t0,
      };
    }
    const tables: CompactedTable[] = res.names.map((name) => {
      if (res.changed && name === res.name) {
        return { name, bytes: res.bytes.length, records: res.stats.refsOut + res.stats.logsOut, isNew: true, from: res.segment.start };
      }
      const i = stack.names.indexOf(name);
      return { name, bytes: r.tables[i].fileSize, records: recsOf(i), isNew: false, from: i };
    });
    const zipName = `reftable-${q.mode === 'all' ? 'pack-refs' : `pack-refs-auto-f${q.factor}`}.zip`;
    if (res.changed) this.lastCompact = { res, zipName };
    const zip = res.changed && q.zip !== false ? zipStack(stackFilesAfter(stack, res)) : null;
    return {
      mode: q.mode, factor: q.factor, segment: res.segment, changed: res.changed, empty: res.empty,
      dropsDeletions: res.dropsDeletions, specDroppable: res.specDroppable, stats: res.stats, before,
      after: { tables: tables.length, bytes: tables.reduce((s, t) => s + t.bytes, 0), records: tables.reduce((s, t) => s + t.records, 0) },
      tables, zip, zipName, elapsed: Date.now() - t0,
    };
  }

  /**
   * The zipped `reftable/` directory after the last `compactNow` that wrote a table (for a
   * download asked for later), or null when there is none (or another input was loaded since).
   */
  compactedZip(): { zip: Uint8Array; zipName: string } | null {
    const c = this.lastCompact;
    const stack = this.analysis?.stack;
    if (!c || !stack) return null;
    return { zip: zipStack(stackFilesAfter(stack, c.res)), zipName: c.zipName };
  }

  // -------------------------------------------------------------------------------------------
  // Share links and exports (issue #7)

  /**
   * The share link of the current report, and exactly what it contains. No ref names or object
   * ids unless `withNames`. For a report that was itself opened from a link, its payload is
   * re-encoded (names can only be in it if the sharer put them there). `simulation`: the sharer's
   * simulation results to carry (any JSON-able value; sanitised by `shareLink`), or none.
   * @param base the app's URL the link starts with (the page passes its own, without fragment).
   */
  share(q: { withNames: boolean; base?: string; simulation?: unknown }): ShareAnswer | null {
    const r = this.rep;
    if (!r) return null;
    let res;
    if (this.shared) res = encodeShare(this.shared, q.base);
    else if (this.analysis) res = shareLink(this.analysis, r, { withNames: q.withNames, base: q.base, simulation: q.simulation });
    else return null;
    return {
      ok: res.ok, link: res.ok ? res.link : '', error: res.ok ? '' : res.error, chars: res.chars,
      description: describeShare(res.payload), withNames: res.payload.withNames, fromLink: !!this.shared,
    };
  }

  /**
   * Open a share link (a whole URL, `#s=…` or `s=…`): on success the report rebuilt from it
   * replaces the current analysis (there are no files: refs pages and blocks are empty). A link
   * that cannot be read leaves the current analysis alone and says why (`ShareLinkError`'s text).
   */
  openShare(fragment: string): OpenShareAnswer {
    const t0 = Date.now();
    let p: SharePayload;
    let rep: SharedReport;
    try {
      p = decodeShare(fragment);
      rep = reportFromShare(p);
    } catch (e) {
      if (e instanceof ShareLinkError) return { ok: false, reason: e.reason, message: e.message };
      return { ok: false, reason: 'damaged', message: `link is damaged: ${(e as Error)?.message ?? String(e)}` };
    }
    const f = shareFigures(p);
    this.analysis = null;
    this.rep = rep;
    this.files = [];
    this.keys = [];
    this.liveIdx = null;
    this.listed = null;
    this.cache.clear();
    this.shared = p;
    this.syntheticOf = null;
    this.lastCompact = null;
    this.sim = null;
    const splits: (TableSplit | null)[] = p.kind !== 'reftable' ? [] : p.tables.map((t, i) => {
      if (t.unreadable) return null;
      const ft = f.tables[i];
      const refBytes = t.sectionBytes.ref;
      const logBytes = t.sectionBytes.log;
      return {
        live: ft.liveWinners, shadowed: ft.shadowed, tombstones: ft.tombstoneWinners, refRecords: ft.refRecords,
        refBytes, logBytes, otherBytes: Math.max(0, t.fileSize - refBytes - logBytes),
      };
    });
    return {
      ok: true,
      result: {
        report: rep, error: null, files: [], kind: p.kind, description: SHARED_LABEL, splits,
        refCount: f.live, refCountWithTombstones: f.live + f.tombstones, elapsed: Date.now() - t0,
      },
    };
  }

  /**
   * Build a synthetic stack of the shared report's shape (`syntheticStack`: same tables, record
   * kinds and counts, shadowing and tombstones, synthetic names) and analyse it like files.
   * Throws when no shared report is open (or was the source of the current synthetic stack).
   */
  loadSynthetic(onProgress?: ProgressFn): LoadResult {
    const p = this.shared ?? this.syntheticOf;
    if (!p) throw new Error('no shared report is open: open a share link first');
    const s = syntheticStack(p);
    const res = this.load(s.files, onProgress);
    this.syntheticOf = p;
    return { ...res, description: 'synthetic stack rebuilt from a shared link (synthetic names and ids)' };
  }

  /** True when the current report was opened from a link (no files). */
  isShared(): boolean {
    return !!this.shared;
  }

  /**
   * The current report as a document: `json` (`refscope.report/1`), `md` (Markdown for an issue
   * or a mailing-list post) or `script` (a bash script rebuilding a stack of the same shape with
   * synthetic names; reftable stacks only).
   */
  exportAs(format: ExportFormat): ExportAnswer {
    const r = this.rep;
    if (!r) throw new Error('nothing to export: no report');
    if (format === 'json') return { text: exportJson(r), filename: 'refscope-report.json', mime: 'application/json' };
    if (format === 'md') return { text: exportMarkdown(r), filename: 'refscope-report.md', mime: 'text/markdown' };
    const p = this.shared ?? this.syntheticOf ?? (this.analysis ? buildSharePayload(this.analysis, r) : null);
    if (!p) throw new Error('nothing to export: no analysis');
    const source = r.stack ? `a ${r.input.kind} stack of ${r.stack.tables} tables` : r.input.kind;
    return { text: exportScript(p, { source }), filename: 'refscope-repro.sh', mime: 'text/x-shellscript' };
  }

  // -------------------------------------------------------------------------------------------
  // Simulator (issue #6)

  /**
   * Run a workload on the current analysis with the simulator (`Simulator.run`): per model the
   * counts and the estimated time, what would fix it, the plain-words paragraph and the curve.
   * A malformed spec or stdin input comes back as an error with its offset, never thrown. Throws
   * when there are no tables (nothing loaded, or a report opened from a link).
   */
  simulate(q: SimulateQuery): SimulateAnswer {
    const t0 = Date.now();
    const a = this.analysis;
    if (!a || (!a.stack && !a.files && a.input.kind !== 'files' && a.input.kind !== 'packed-refs')) {
      throw new Error(this.shared
        ? 'this report was opened from a link: the tables themselves are not here (re-run on a synthetic stack to simulate on one of the same shape)'
        : 'nothing to simulate: no reftable stack or files-backend repository is loaded');
    }
    const none = { file: '', offset: -1, expected: '', line: 0, column: 0, lineText: '' };
    let sim: Simulator;
    try {
      if (this.sim?.a !== a) this.sim = { a, s: Simulator.fromAnalysis(a) };
      sim = this.sim.s;
    } catch (e) {
      return { ok: false, error: { kind: 'engine', message: (e as Error)?.message ?? String(e), ...none } };
    }
    let w;
    if (q.stdin) {
      const { bytes, z, file } = q.stdin;
      try {
        w = sim.parseStdin(bytes, { z, file });
      } catch (e) {
        if (!(e instanceof FormatError)) return { ok: false, error: { kind: 'engine', message: (e as Error)?.message ?? String(e), ...none } };
        const term = z ? 0 : 10;
        const at = Math.max(0, Math.min(bytes.length, e.offset));
        let line = 1, start = 0;
        for (let i = 0; i < at; i++) if (bytes[i] === term) { line++; start = i + 1; }
        let end = bytes.indexOf(term, start);
        if (end < 0) end = bytes.length;
        const text = displayName(bytesToKey(bytes, start, Math.min(end, start + 200)));
        return {
          ok: false,
          error: {
            kind: 'stdin', message: displayName(e.message), file: displayName(e.file), offset: e.offset, expected: displayName(e.expected),
            line, column: at - start + 1, lineText: text,
          },
        };
      }
    } else {
      try {
        w = sim.parseSpec(textToKey(q.spec ?? 'recreate'));
      } catch (e) {
        const kind = e instanceof SpecError ? 'spec' : 'engine';
        return { ok: false, error: { kind, message: displayName((e as Error)?.message ?? String(e)), ...none } };
      }
    }
    let result: SimulationResult;
    try {
      // The same 60 s budget as the CLI: a run cannot be cancelled from the page, so it ends itself.
      result = sim.run(w, { models: q.models, warnAmbiguousRefs: q.warnAmbiguousRefs, autoCompaction: q.autoCompaction, factor: q.factor, budgetMs: this.simulationBudgetMs });
    } catch (e) {
      if (e instanceof SimulationLimitError) {
        const message = `it ran past its ${e.budgetMs / 1000} s budget (${e.model} had replayed ${e.done.toLocaleString('en-US')} of ${e.total.toLocaleString('en-US')} operations). Try a smaller batch, one transaction instead of one per ref, or fewer models.`;
        return { ok: false, error: { kind: 'engine', message, ...none } };
      }
      return { ok: false, error: { kind: 'engine', message: (e as Error)?.message ?? String(e), ...none } };
    }
    // Names leave the session as display text.
    result.explanation = displayName(result.explanation);
    result.workload.description = displayName(result.workload.description);
    for (const m of result.results) m.errors = m.errors.map(displayName);
    return { ok: true, result, elapsed: Date.now() - t0 };
  }

  /** What this engine build can do. */
  capabilities(): Capabilities {
    let filesBackend = true;
    try {
      analyzeFiles([{ path: 'packed-refs', source: memorySource(new TextEncoder().encode('# pack-refs with: peeled fully-peeled sorted \n')) }]);
    } catch (e) {
      if (!(e instanceof FormatError) && /files backend not registered/.test(String((e as Error)?.message))) filesBackend = false;
    }
    return { filesBackend };
  }
}

/** First record index holding the same block as record `rec` (`blocks` is non-decreasing). */
function firstOfBlock(blocks: Uint32Array, rec: number): number {
  const want = blocks[rec];
  let lo = 0, hi = rec;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (blocks[m] < want) lo = m + 1; else hi = m;
  }
  return lo;
}

function toLoadError(e: unknown): LoadError {
  if (e instanceof FormatError) return { file: e.file, offset: e.offset, expected: e.expected, message: e.message };
  const msg = e instanceof Error ? e.message : String(e);
  return { file: '', offset: -1, expected: '', message: msg };
}

/**
 * A `ByteSource` that splits reads larger than `slice` bytes into slices, reporting each to
 * `onBytes` (so a long read of one big file still shows progress). `readSlice` does the reading.
 */
export function slicedSource(size: number, readSlice: (offset: number, length: number) => Uint8Array, onBytes: (n: number) => void, slice = READ_SLICE): ByteSource {
  return {
    size,
    read(offset: number, length: number): Uint8Array {
      const start = Math.max(0, Math.min(offset, size));
      const n = Math.max(0, Math.min(length, size - start));
      if (n <= slice) {
        const r = readSlice(start, n);
        onBytes(r.length);
        return r;
      }
      const out = new Uint8Array(n);
      let got = 0;
      while (got < n) {
        const part = readSlice(start + got, Math.min(slice, n - got));
        if (!part.length) break;
        out.set(part, got);
        got += part.length;
        onBytes(part.length);
      }
      return got === n ? out : out.subarray(0, got);
    },
  };
}
