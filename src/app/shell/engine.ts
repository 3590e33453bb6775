/**
 * The page's side of the engine worker: one worker at a time, wrapped with comlink.
 * A new load while one is running terminates the busy worker and starts a fresh one (the engine
 * is synchronous inside the worker, so that is the only way to cancel).
 */
import * as Comlink from 'comlink';
import type { EngineApi, WorkerInput } from '../../../workers/engine.worker.ts';
import type { LoadProgress, LoadResult } from '../../engine/session/index.ts';

export type { WorkerInput };

interface Conn {
  worker: Worker;
  api: Comlink.Remote<EngineApi>;
}
let conn: Conn | null = null;
/** True while a load runs in `conn`'s worker. */
let running = false;

/**
 * Longest the page waits for one answer of the worker. The worker ends its own long work (loads
 * and simulations stop at 60 s, docs/limits.md); a worker still silent past this is stuck (or
 * died): it is terminated, a fresh one takes its place, and the page says what happened.
 */
export const WORKER_BUDGET_MS = 90_000;

/** Where a shorter budget may be set (ms, read at each call): how the e2e test makes a load exceed it. */
export const BUDGET_STORAGE_KEY = 'refscope.workerBudgetMs';

/** The budget in force: `WORKER_BUDGET_MS`, or a shorter one from `BUDGET_STORAGE_KEY`. */
function budgetMs(): number {
  try {
    const v = Number(globalThis.localStorage?.getItem(BUDGET_STORAGE_KEY) ?? NaN);
    if (Number.isFinite(v) && v >= 1 && v < WORKER_BUDGET_MS) return v;
  } catch {
    // No storage (a sandboxed page): the default budget.
  }
  return WORKER_BUDGET_MS;
}

const said = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`);

let onReplaced: ((message: string) => void) | null = null;
/** Called with a sentence when the worker was terminated and replaced (the store shows it). */
export function onWorkerReplaced(f: (message: string) => void): void {
  onReplaced = f;
}

function replace(c: Conn, message: string): void {
  c.worker.terminate();
  // A worker already replaced (a newer load took its place) held nothing the page shows: a late
  // timer of one of its calls must not drop the current report.
  if (conn !== c) return;
  conn = null;
  running = false;
  onReplaced?.(message);
}

/** The remote API with every call held to `WORKER_BUDGET_MS`. */
function watched(c: Conn, raw: Comlink.Remote<EngineApi>): Comlink.Remote<EngineApi> {
  const remote = raw as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  return new Proxy({} as Comlink.Remote<EngineApi>, {
    get(_t, prop) {
      if (typeof prop !== 'string' || prop === 'then') return undefined;
      return (...args: unknown[]) =>
        new Promise((resolve, reject) => {
          const budget = budgetMs();
          const timer = setTimeout(() => {
            const msg = `The engine worker gave no answer to “${prop}” within ${said(budget)}: it was stopped and a fresh one started. Open the input again (a smaller one, or fewer tables).`;
            replace(c, msg);
            reject(new Error(msg));
          }, budget);
          remote[prop](...args).then(
            (v) => {
              clearTimeout(timer);
              resolve(v);
            },
            (e) => {
              clearTimeout(timer);
              reject(e);
            },
          );
        });
    },
  });
}

function connect(): Conn {
  if (conn) return conn;
  const worker = new Worker(new URL('../../../workers/engine.worker.ts', import.meta.url), {
    type: 'module',
    name: 'refscope-engine',
  });
  const c: Conn = { worker, api: null as unknown as Comlink.Remote<EngineApi> };
  c.api = watched(c, Comlink.wrap<EngineApi>(worker));
  // A worker that dies (out of memory, an error outside any call) is replaced at once.
  worker.addEventListener('error', (e) => {
    e.preventDefault();
    replace(
      c,
      `The engine worker stopped (${e.message || 'it ran out of memory or failed'}): a fresh one was started. Open the input again.`,
    );
  });
  conn = c;
  return c;
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
