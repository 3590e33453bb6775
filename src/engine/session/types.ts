/**
 * session/types: what the engine session answers (the worker's comlink surface): loads and their
 * progress, refs pages, table layouts, compaction data, share and export answers, simulations.
 */
import type { BlockReport, Report } from '../report.ts';
import type { SectionName, TableFooter, TableHeader } from '../reftable/table.ts';
import type { GeometryResult, JGitResult, ReplayStep, Segment } from '../reftable/auto-compaction.ts';
import type { CompactStats } from '../reftable/compact.ts';
import type { AfterCompaction } from '../extensions.ts';
import type { ShareDescription, ShareErrorReason } from '../share/index.ts';
import type { ModelName, SimulationResult } from '../simulate/index.ts';

/** Budget of one load in the worker: 60 s and 40,000,000 records (docs/limits.md). */
export const LOAD_DEADLINE_MS = 60_000;
export const LOAD_MAX_RECORDS = 40_000_000;
/** Beyond 60 s, a load may take one more millisecond per this many bytes of tables (4 MB/s). */
export const LOAD_MIN_BYTES_PER_MS = 4_000;
/**
 * Tables of this many bytes in all (and more: git writes a million refs in 26 MB) keep their object ids, peeled ids, update indexes
 * and blocks in the files' bytes, decoded on demand (session/columns.ts), not in columns.
 */
export const LAZY_VALUES_BYTES = 16 * 1024 * 1024;
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
  /**
   * What the report still lacks, to come from `details` (a large stack shows its counts first):
   * `PENDING_DETAILS`, or empty when the report is complete.
   */
  pending?: string[];
  /** Tables a pool of parse workers opened for this load (workers/parse.worker.ts); 0 when none. */
  parsedInPool?: number;
}

/** Inputs with at least this many bytes of tables show their counts before the name checks. */
export const DEFER_DETAILS_BYTES = 16 * 1024 * 1024;

/** What a load that shows its counts first leaves for `details`, in words for the page. */
export const PENDING_DETAILS = ['the checks of the ref names', 'the prefix rows'];

/** Work of one load, counted (tests compare it with the records of the tables). */
export interface LoadWork {
  /** Records decoded (ref, index, obj and log records of every table): each once. */
  recordsDecoded: number;
  /** Whether the name checks and prefix rows were left for `details`. */
  deferred: boolean;
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
  /**
   * For a prefix filter on a reftable stack: the ref records of every table whose name starts
   * with the prefix (shadowed ones and tombstones included), how many are tombstones, and the
   * live refs. A scan bounded to the prefix steps over all `records` to list `live` refs.
   */
  prefixStats?: { prefix: string; records: number; tombstones: number; live: number };
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
  /** Byte ranges: header, each section present, footer (`unread`: a damaged table's bytes after its readable blocks). */
  sections: { name: SectionName | 'header' | 'footer' | 'unread'; start: number; end: number }[];
  blocks: BlockSummary[];
  error: { file: string; offset: number; expected: string } | null;
  /**
   * For a table git cannot open (`error` set) whose header parses: what refscope still reads of it
   * (not git: git refuses the whole table), the blocks from the start up to `upTo` (file offset),
   * and where and why the block walk stopped (null when it stopped only at the footer's place).
   */
  readable?: { upTo: number; stop: { offset: number; expected: string } | null };
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
  /** The position in tables.list; a run of copies with the same figures is one object, of its first position. */
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
  /** The same file as table `copyOf` (its name repeated in tables.list; the report's `copyOf`). */
  copyOf?: number;
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
  measured: {
    factor: number;
    afterAuto: AfterCompaction | null;
    afterPackRefs: AfterCompaction | null;
    skipped: string | null;
  } | null;
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
  { ok: true; result: LoadResult } | { ok: false; reason: ShareErrorReason; message: string };

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
  /** The user's `git --version` line, this machine's factor, reflogs (simulate/index.ts SimulateOptions). */
  options?: { gitVersion?: string; machineFactor?: number; reflogs?: boolean };
  /** Also write the measure script for this workload (simulate/measure-run.ts); answered in `measure`. */
  measure?: { repeats?: number };
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
  | { ok: true; result: SimulationResult; elapsed: number; measure?: { script: string } | { error: string } }
  | { ok: false; error: SimulateError };

/** Called by the session with progress; throttled to about every `PROGRESS_MS`. */
export type ProgressFn = (p: LoadProgress) => void;

/** Progress is reported at most this often (and at every phase change). */
export const PROGRESS_MS = 100;

/** Size of the slices large reads are split into (each slice reports progress). */
export const READ_SLICE = 4 * 1024 * 1024;
