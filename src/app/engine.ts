/**
 * The page's side of the engine worker: one worker at a time, wrapped with comlink.
 * A new load while one is running terminates the busy worker and starts a fresh one (the engine
 * is synchronous inside the worker, so that is the only way to cancel).
 */
import * as Comlink from 'comlink';
import type { EngineApi, WorkerInput } from '../../workers/engine.worker.ts';
import type { LoadProgress, LoadResult } from '../engine/session.ts';

export type { WorkerInput };

interface Conn {
  worker: Worker;
  api: Comlink.Remote<EngineApi>;
}
let conn: Conn | null = null;
/** True while a load runs in `conn`'s worker. */
let running = false;

function connect(): Conn {
  if (conn) return conn;
  const worker = new Worker(new URL('../../workers/engine.worker.ts', import.meta.url), { type: 'module', name: 'refscope-engine' });
  conn = { worker, api: Comlink.wrap<EngineApi>(worker) };
  return conn;
}

/** The engine API (report, refsPage, tableBlocks, blockDetail, capabilities). */
export function engine(): Comlink.Remote<EngineApi> {
  return connect().api;
}

/**
 * Analyse inputs in the worker. ArrayBuffers are transferred (not copied); Files/Blobs are
 * structured-cloned, which shares their data. `onProgress` is called about every 100 ms.
 */
export async function loadInWorker(inputs: WorkerInput[], onProgress: (p: LoadProgress) => void): Promise<LoadResult> {
  if (running && conn) {
    conn.worker.terminate();
    conn = null;
  }
  const c = connect();
  const buffers = inputs.flatMap((i) => ('buffer' in i ? [i.buffer] : []));
  running = true;
  try {
    return await c.api.load(Comlink.transfer(inputs, buffers), Comlink.proxy(onProgress));
  } finally {
    if (conn === c) running = false;
  }
}
