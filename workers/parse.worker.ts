/**
 * A parse worker: opens the tables it is given (the same `openTable` the engine worker runs, with
 * the options of a large load) and sends them back as plain data, their columns transferred, so
 * that the tables of a stack, independent until the merge, are parsed on two cores at once. A
 * table that does not open is left out of the answer: the engine worker opens it again itself and
 * reports its error as for any load. Progress: bytes parsed, about every 100 ms.
 */
import { FormatError, type ByteSource } from '../src/engine/basics.ts';
import { openTable, tableToTransfer, type TableTransfer } from '../src/engine/reftable/table.ts';
import { slicedSource } from '../src/engine/session/load.ts';
import { LOAD_DEADLINE_MS, LOAD_MAX_RECORDS, LOAD_MIN_BYTES_PER_MS, READ_SLICE } from '../src/engine/session/types.ts';

/** What the engine worker asks: the tables (path and file) to open. */
export interface ParseRequest {
  files: { path: string; blob: Blob }[];
}

/** What a parse worker answers: progress, then the tables that opened. */
export type ParseMessage = { kind: 'progress'; bytes: number } | { kind: 'done'; tables: TableTransfer[] };

interface FileReaderSyncLike {
  readAsArrayBuffer(b: Blob): ArrayBuffer;
}
const FRS = (globalThis as unknown as { FileReaderSync?: new () => FileReaderSyncLike }).FileReaderSync;

function blobSource(blob: Blob): ByteSource {
  if (!FRS) throw new FormatError('(worker)', -1, 'FileReaderSync to read dropped files (not running in a worker?)');
  const reader = new FRS();
  return slicedSource(
    blob.size,
    (o, l) => new Uint8Array(reader.readAsArrayBuffer(blob.slice(o, o + l))),
    () => {},
  );
}

const scope = globalThis as unknown as {
  onmessage: ((e: MessageEvent<ParseRequest>) => void) | null;
  postMessage(m: ParseMessage, transfer?: Transferable[]): void;
};

scope.onmessage = (e) => {
  const { files } = e.data;
  const bytes = files.reduce((s, f) => s + f.blob.size, 0);
  const deadline = Date.now() + LOAD_DEADLINE_MS + Math.ceil(bytes / LOAD_MIN_BYTES_PER_MS);
  const out: TableTransfer[] = [];
  const buffers: ArrayBuffer[] = [];
  let done = 0,
    last = 0;
  for (const f of files) {
    try {
      const t = openTable(
        { path: f.path, source: blobSource(f.blob) },
        {
          ids: false,
          readAhead: READ_SLICE,
          deadline,
          maxRecords: LOAD_MAX_RECORDS,
          onProgress: (b) => {
            const now = Date.now();
            if (now - last < 100) return;
            last = now;
            scope.postMessage({ kind: 'progress', bytes: done + b });
          },
        },
      );
      const x = tableToTransfer(t);
      out.push(x.table);
      buffers.push(...x.buffers);
    } catch {
      // Opened again by the engine worker, which reports the error with the load.
    }
    done += f.blob.size;
  }
  scope.postMessage({ kind: 'done', tables: out }, buffers);
};
