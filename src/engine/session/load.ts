/**
 * session/load: one load of dropped files — classify, analyse under the worker's budget, build
 * the report — with throttled progress. Never throws: whatever goes wrong comes back as the
 * result's `error` (the engine's error fields: file, offset, expected), and a report that could
 * be built is kept even when a later step (listing the refs) fails.
 */
import { type ByteSource, type InputFile, Budget, FormatError } from '../basics.ts';
import { analyzeFiles, type Analysis } from '../analyze.ts';
import { classifyInput } from '../input.ts';
import { buildReport, type Report } from '../report.ts';
import type { Table } from '../reftable/table.ts';
import {
  LAZY_VALUES_BYTES,
  LOAD_DEADLINE_MS,
  LOAD_MAX_RECORDS,
  LOAD_MIN_BYTES_PER_MS,
  PROGRESS_MS,
  READ_SLICE,
  type LoadError,
  type LoadProgress,
  type LoadResult,
  type ProgressFn,
} from './types.ts';

/** Progress of the load in flight, reported at most every `PROGRESS_MS` (and at every phase change). */
export class LoadTracker {
  private progress: LoadProgress | null = null;
  private onProgress: ProgressFn | null = null;
  private lastEmit = 0;
  private started = 0;
  /** Table files whose first read was seen (tables are counted as they are opened). */
  private tableStarted = new Set<string>();

  start(onProgress: ProgressFn | null, t0: number): void {
    this.onProgress = onProgress;
    this.started = t0;
    this.lastEmit = 0;
    this.tableStarted.clear();
    this.progress = null;
  }

  begin(bytesTotal: number, tablesTotal: number): void {
    this.progress = {
      phase: 'reading',
      bytesTotal,
      bytesRead: 0,
      bytesParsed: 0,
      tablesTotal,
      tablesDone: 0,
      elapsed: 0,
    };
    this.emit(true);
  }

  /** Count `n` bytes read from the inputs (called by byte sources while loading). */
  noteRead(n: number): void {
    if (!this.progress) return;
    this.progress.bytesRead = Math.min(this.progress.bytesTotal, this.progress.bytesRead + n);
    this.emit(false);
  }

  noteTableRead(name: string): void {
    if (this.tableStarted.has(name)) return;
    this.tableStarted.add(name);
    if (this.progress) {
      this.progress.tablesDone = Math.max(0, this.tableStarted.size - 1);
      this.progress.phase = 'parsing';
    }
    this.emit(false);
  }

  noteParsed(bytes: number): void {
    if (!this.progress) return;
    this.progress.bytesParsed = bytes;
    this.progress.phase = 'parsing';
    this.emit(false);
  }

  allRead(): void {
    if (!this.progress) return;
    this.progress.tablesDone = this.progress.tablesTotal;
    this.progress.bytesParsed = this.progress.bytesTotal;
    this.progress.bytesRead = this.progress.bytesTotal;
  }

  setPhase(phase: LoadProgress['phase']): void {
    if (!this.progress) return;
    this.progress.phase = phase;
    this.emit(true);
  }

  end(): void {
    this.progress = null;
    this.onProgress = null;
  }

  private emit(force: boolean): void {
    if (!this.progress || !this.onProgress) return;
    const now = Date.now();
    if (!force && now - this.lastEmit < PROGRESS_MS) return;
    this.lastEmit = now;
    this.progress.elapsed = now - this.started;
    try {
      this.onProgress({ ...this.progress });
    } catch {
      // A page that went away cannot take progress: the load goes on.
    }
  }
}

/** What `runLoad` produced: the analysis and report, or the result to return as it is. */
export type LoadOutcome =
  | { ok: true; analysis: Analysis; report: Report; base: LoadResult; t0: number; deferred: boolean; budget: Budget }
  | { ok: false; result: LoadResult };

/** Classify, analyse and report `inputs` (see the module comment). */
export function runLoad(
  inputs: InputFile[],
  tracker: LoadTracker,
  onProgress: ProgressFn | null,
  lazyValuesFrom = LAZY_VALUES_BYTES,
  prepare?: (a: Analysis) => void,
  deferFrom = Infinity,
  preopened?: Map<string, Table>,
): LoadOutcome {
  const t0 = Date.now();
  tracker.start(onProgress, t0);
  const base: LoadResult = {
    report: null,
    error: null,
    files: [],
    kind: 'empty',
    description: '',
    splits: [],
    refCount: 0,
    refCountWithTombstones: 0,
    elapsed: 0,
  };
  let kind = 'empty',
    description = '';
  let budget: Budget;
  try {
    base.files = inputs.map((f) => ({ path: String(f.path), size: f.source.size }));
    const cls = classifyInput(inputs);
    kind = cls.kind;
    description = cls.description;
    const relevant =
      cls.kind === 'reftable' ? [...cls.tableFiles, ...(cls.tablesList ? [cls.tablesList] : [])] : cls.gitFiles;
    tracker.begin(
      relevant.reduce((s, f) => s + f.source.size, 0),
      cls.tableFiles.length,
    );
    // Watch the first read of each table file to count tables as they are opened.
    const watched = inputs.map((f): InputFile => {
      if (!f.path.endsWith('.ref')) return f;
      const name = f.path.split('/').pop()!;
      const src = f.source;
      return {
        path: f.path,
        source: {
          size: src.size,
          read: (o, l) => {
            tracker.noteTableRead(name);
            return src.read(o, l);
          },
        },
      };
    });
    const tableBytes = cls.tableFiles.reduce((s, f) => s + f.source.size, 0);
    // A large stack shows its counts first: the name checks and the prefix rows come after
    // (`EngineSession.details`), so the Overview does not wait for two more passes over the names.
    const deferred = cls.kind === 'reftable' && tableBytes >= deferFrom;
    // A crafted input must not freeze the tab: stop with a message instead (docs/limits.md).
    // A large input gets more time, at a pace no honest table falls below.
    budget = new Budget(
      Date.now() + LOAD_DEADLINE_MS + Math.ceil(tableBytes / LOAD_MIN_BYTES_PER_MS),
      LOAD_MAX_RECORDS,
    );
    const a = analyzeFiles(watched, {
      budget,
      preopened,
      deferNameChecks: deferred,
      // A large stack keeps its values in the files' bytes, not in columns (session/columns.ts).
      ids: tableBytes < lazyValuesFrom,
      // A table read in slices is read a window at a time: a read from a dropped file costs a
      // round trip to the browser's file thread, one per 4 KiB block is minutes for 400 MB.
      readAhead: READ_SLICE,
      onProgress: (b) => tracker.noteParsed(b),
    });
    tracker.allRead();
    tracker.setPhase('merging');
    // Before the report: whatever reads values for it reads them through what `prepare` set up.
    prepare?.(a);
    const report = buildReport(a, { deferPrefixes: deferred && !!a.stack });
    return {
      ok: true,
      analysis: a,
      report,
      base: { ...base, kind: a.input.kind, description: a.input.description },
      t0,
      deferred: deferred && !!a.stack,
      budget,
    };
  } catch (e) {
    tracker.end();
    return { ok: false, result: { ...base, kind, description, error: toLoadError(e), elapsed: Date.now() - t0 } };
  }
}

/** The engine's error fields of anything thrown (a non-engine error keeps its message only). */
export function toLoadError(e: unknown): LoadError {
  if (e instanceof FormatError) return { file: e.file, offset: e.offset, expected: e.expected, message: e.message };
  const msg = e instanceof Error ? e.message : String(e);
  return { file: '', offset: -1, expected: '', message: msg };
}

/**
 * A `ByteSource` that splits reads larger than `slice` bytes into slices, reporting each to
 * `onBytes` (so a long read of one big file still shows progress). `readSlice` does the reading.
 */
export function slicedSource(
  size: number,
  readSlice: (offset: number, length: number) => Uint8Array,
  onBytes: (n: number) => void,
  slice = READ_SLICE,
): ByteSource {
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
