/**
 * The engine worker: a thin comlink wrapper around `EngineSession` (src/engine/session.ts).
 *
 * Inputs arrive as File/Blob objects (structured clone shares their data, nothing is copied) or as
 * transferred ArrayBuffers (e.g. the built-in samples). A Blob is read in slices with
 * `FileReaderSync`, so a 2 GiB file is never copied whole.
 */
import * as Comlink from 'comlink';
import { FormatError, type ByteSource, type InputFile } from '../src/engine/basics.ts';
import { EngineSession, engineError, slicedSource, type ProgressFn } from '../src/engine/session/index.ts';
import { tableFromTransfer, type Table, type TableTransfer } from '../src/engine/reftable/table.ts';
import type { ParseMessage, ParseRequest } from './parse.worker.ts';

/** One input file as the page sends it. */
export type WorkerInput = { path: string; blob: Blob } | { path: string; buffer: ArrayBuffer };

interface FileReaderSyncLike {
  readAsArrayBuffer(b: Blob): ArrayBuffer;
}
const FRS = (globalThis as unknown as { FileReaderSync?: new () => FileReaderSyncLike }).FileReaderSync;

const session = new EngineSession();

function blobSource(blob: Blob): ByteSource {
  if (!FRS) throw new FormatError('(worker)', -1, 'FileReaderSync to read dropped files (not running in a worker?)');
  const reader = new FRS();
  return slicedSource(
    blob.size,
    (o, l) => new Uint8Array(reader.readAsArrayBuffer(blob.slice(o, o + l))),
    (n) => session.noteRead(n),
  );
}

function bufferSource(buf: ArrayBuffer): ByteSource {
  const bytes = new Uint8Array(buf);
  return {
    size: bytes.length,
    read(o: number, l: number): Uint8Array {
      const r = bytes.subarray(o, Math.min(bytes.length, o + l));
      session.noteRead(r.length);
      return r;
    },
  };
}

/**
 * A load's first progress reports are not sent: each one is a message and a render on the page's
 * main thread, and a load that ends within `PROGRESS_QUIET_MS` (the default sample, most stacks)
 * is better shown by the page's "Starting…" bar alone than by a few updates nobody can read. A
 * longer load reports from then on, as the session throttles it (about every 100 ms).
 */
const PROGRESS_QUIET_MS = 300;

function quietStart(onProgress: ProgressFn | undefined): ProgressFn | undefined {
  if (!onProgress) return undefined;
  const t0 = Date.now();
  return (p) => {
    if (Date.now() - t0 < PROGRESS_QUIET_MS) return;
    // A page that went away cannot take progress: a failed report is ignored (`Promise` from comlink).
    Promise.resolve(onProgress(p)).catch(() => {});
  };
}

/** Stacks with at least this many bytes of tables (in two or more files) are parsed by a pool. */
const POOL_FROM_BYTES = 32 * 1024 * 1024;
/**
 * Parse workers of the pool: 2, on a machine of at least `POOL_MIN_CORES` cores (the engine worker
 * waits meanwhile; the page's thread keeps a core of its own). On two cores the pool was no faster
 * (bench/results.md: the parse workers, the page and the rest of the machine share them) and the
 * page's tasks grew longer, so there the engine worker parses every table itself.
 */
const POOL_SIZE = 2;
const POOL_MIN_CORES = 4;
const CORES = (globalThis.navigator?.hardwareConcurrency ?? 1) | 0;

/**
 * The tables of a large stack, parsed by a pool of parse workers (workers/parse.worker.ts), each
 * given about half of the bytes (largest table first to the least loaded): the tables of a stack
 * are independent until the merge. Resolves to the tables that opened, by path; to none when
 * nested workers are not available or a worker fails (the engine worker then parses them itself).
 */
async function parseInPool(
  files: { path: string; blob: Blob }[],
  onProgress: ProgressFn | undefined,
  t0: number,
): Promise<Map<string, Table>> {
  const out = new Map<string, Table>();
  const total = files.reduce((s, f) => s + f.blob.size, 0);
  if (typeof Worker === 'undefined' || CORES < POOL_MIN_CORES || files.length < 2 || total < POOL_FROM_BYTES)
    return out;
  const bins = Array.from({ length: Math.min(POOL_SIZE, files.length) }, () => ({
    bytes: 0,
    files: [] as typeof files,
  }));
  for (const f of [...files].sort((a, b) => b.blob.size - a.blob.size)) {
    const bin = bins.reduce((m, b) => (b.bytes < m.bytes ? b : m));
    bin.files.push(f);
    bin.bytes += f.blob.size;
  }
  const parsed = bins.map(() => 0);
  const blobOf = new Map(files.map((f) => [f.path, f.blob]));
  const report = () =>
    onProgress?.({
      phase: 'parsing',
      bytesTotal: total,
      bytesRead: parsed.reduce((a, b) => a + b, 0),
      bytesParsed: parsed.reduce((a, b) => a + b, 0),
      tablesTotal: files.length,
      tablesDone: 0,
      elapsed: Date.now() - t0,
    });
  const runs = bins.map(
    (bin, k) =>
      new Promise<TableTransfer[] | null>((resolve) => {
        let w: Worker;
        try {
          w = new Worker(new URL('./parse.worker.ts', import.meta.url), {
            type: 'module',
            name: `refscope-parse-${k}`,
          });
        } catch {
          resolve(null);
          return;
        }
        w.onmessage = (e: MessageEvent<ParseMessage>) => {
          const m = e.data;
          if (m.kind === 'progress') {
            parsed[k] = m.bytes;
            report();
            return;
          }
          parsed[k] = bin.bytes;
          w.terminate();
          resolve(m.tables);
        };
        w.onerror = (e) => {
          e.preventDefault();
          w.terminate();
          resolve(null);
        };
        w.postMessage({ files: bin.files } satisfies ParseRequest);
      }),
  );
  const answers = await Promise.all(runs);
  if (answers.some((a) => a === null)) return out;
  for (const a of answers)
    for (const x of a!) {
      const blob = blobOf.get(x.path);
      if (blob) out.set(x.path, tableFromTransfer(x, blobSource(blob)));
    }
  return out;
}

const api = {
  /** Analyse the inputs; replaces the current analysis. */
  async load(inputs: WorkerInput[], onProgress?: ProgressFn) {
    const files: InputFile[] = inputs.map((i) => ({
      path: String(i.path),
      source: 'blob' in i ? blobSource(i.blob) : bufferSource(i.buffer),
    }));
    const progress = quietStart(onProgress);
    const tables = inputs.flatMap((i) =>
      'blob' in i && String(i.path).endsWith('.ref') ? [{ path: String(i.path), blob: i.blob }] : [],
    );
    const preopened = await parseInPool(tables, progress, Date.now()).catch(() => new Map<string, Table>());
    return session.load(files, progress, preopened.size ? preopened : undefined);
  },
  /** After a load whose result lists `pending` work: the report's findings and prefix rows, complete. */
  details: () => session.details(),
  report: () => session.report(),
  refsPage: (q: Parameters<EngineSession['refsPage']>[0]) => session.refsPage(q),
  tableBlocks: (tableIndex: number) => session.tableBlocks(tableIndex),
  blockDetail(tableIndex: number, blockIndex: number) {
    const d = session.blockDetail(tableIndex, blockIndex);
    if (!d) return null;
    return Comlink.transfer(d, [
      d.bytes.buffer as ArrayBuffer,
      d.roles.buffer as ArrayBuffer,
      d.recordOf.buffer as ArrayBuffer,
    ]);
  },
  capabilities: () => session.capabilities(),
  /** The compaction geometry at a factor, and the replay of the next transactions (Compaction view). */
  compaction: (q: Parameters<EngineSession['compaction']>[0]) => session.compaction(q),
  /** A real `git pack-refs [--auto]`: the new stack's tables, and its zip (transferred). */
  compactNow(q: Parameters<EngineSession['compactNow']>[0]) {
    const r = session.compactNow(q);
    return r.zip ? Comlink.transfer(r, [r.zip.buffer as ArrayBuffer]) : r;
  },
  /** The zip of the last compaction, made on demand (transferred). */
  compactedZip() {
    const r = session.compactedZip();
    return r ? Comlink.transfer(r, [r.zip.buffer as ArrayBuffer]) : null;
  },
  /** The share link of the current report and what it contains. */
  share: (q: Parameters<EngineSession['share']>[0]) => session.share(q),
  /** Open a share link (`#s=…`): the report rebuilt from it replaces the analysis, or why it cannot be read. */
  openShare: (fragment: string) => session.openShare(fragment),
  /** Analyse a synthetic stack of the shared report's shape. */
  loadSynthetic(onProgress?: ProgressFn) {
    return session.loadSynthetic(quietStart(onProgress));
  },
  /** Run a workload with the simulator (Simulator view); stdin bytes are transferred. */
  simulate: (q: Parameters<EngineSession['simulate']>[0]) => session.simulate(q),
  /** A ref's records in every table and its reflog (Refs view, history panel). */
  refHistory: (name: string) => session.refHistory(name),
  /** Compare view: keep the current input as the "before" side. */
  keepForCompare: () => session.keepForCompare(),
  dropKept: () => session.dropKept(),
  /** Compare view: the kept input against the current one. */
  compare: (limit?: number) => session.compare(limit),
  /** Watch view: forget the folder watched before. */
  watchReset: () => session.watchReset(),
  /**
   * Watch view: one look at the folder (`tables.list` bytes, the file names, the listed tables as
   * Blobs; only the ones new to the state are read).
   */
  watchStep(s: { list: ArrayBuffer | null; entries: string[]; files: { name: string; blob: Blob }[] }) {
    const byName = new Map(s.files.map((f) => [f.name, f.blob]));
    return session.watchStep({
      list: s.list ? new Uint8Array(s.list) : null,
      entries: s.entries,
      table: (name) => {
        const b = byName.get(name);
        return b ? { path: name, source: blobSource(b) } : null;
      },
    });
  },
  /** The report as JSON, Markdown or a repro script. */
  exportAs: (format: Parameters<EngineSession['exportAs']>[0]) => session.exportAs(format),
};

export type EngineApi = typeof api;

/**
 * Every method answers or throws the engine's one error (`FormatError`: file, offset, expected),
 * whatever happens below (the session already guards its own; this covers the wrapper itself).
 */
function guarded<T extends Record<string, (...args: never[]) => unknown>>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, f] of Object.entries(o)) {
    out[k] = (...args: never[]) => {
      try {
        return f(...args);
      } catch (e) {
        throw engineError(e, `the worker's ${k}`);
      }
    };
  }
  return out as T;
}

Comlink.expose(guarded(api));
