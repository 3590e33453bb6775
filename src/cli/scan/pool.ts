/**
 * N worker threads running the same engine on one repository each at a time. A worker is the CLI
 * itself started again in a thread (the bundle `dist/cli/refscope.mjs`, or the sources through tsx
 * in a checkout), so the packaged CLI needs no second file; `scan` sees `workerData` and serves
 * rows instead of parsing a command line.
 */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { emptyRow, scanRepository, type RowOptions, type ScanRow } from './row.ts';
import type { FoundRepository } from './discover.ts';

/** The tag of `workerData` that makes a started CLI a scan worker. */
const TAG = 'refscopeScanWorker';

/** Is this thread a scan worker? */
export function isScanWorker(): boolean {
  return !isMainThread && (workerData as Record<string, unknown> | null)?.[TAG] === 1;
}

/** The loop of a worker: one repository in, one row out, until the parent sends null. */
export function workerLoop(): Promise<number> {
  return new Promise((resolve) => {
    const port = parentPort!;
    port.on('message', (msg: { id: number; repo: FoundRepository; opts: RowOptions } | null) => {
      if (msg === null) {
        port.close();
        resolve(0);
        return;
      }
      let row: ScanRow;
      try {
        row = scanRepository(msg.repo, msg.opts);
      } catch (e) {
        row = emptyRow(msg.repo, `refscope failed on it: ${String(e)}`);
      }
      port.postMessage({ id: msg.id, row });
    });
  });
}

/** The module a worker loads and the loader it needs first (tsx for the sources). */
function workerEntry(): { main: string; tsx: string | null } {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return { main: new URL('../main.ts', here).href, tsx: import.meta.resolve('tsx/esm/api') };
  // In the bundle this module is a chunk beside the entry (scripts/build.mjs), which exports `main`.
  return { main: new URL('./refscope.mjs', here).href, tsx: null };
}

const BOOT = `
const { workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  const m = await import(workerData.main);
  await m.main(['scan', '.']);
})().catch((e) => { console.error(e); process.exit(70); });
`;

/**
 * Scan `items` on `jobs` threads (in this thread when jobs is 1), calling `onRow` as each row is
 * done (in completion order).
 */
export async function runPool(
  items: FoundRepository[],
  jobs: number,
  opts: RowOptions,
  onRow: (row: ScanRow) => void,
): Promise<void> {
  if (jobs <= 1 || items.length <= 1) {
    for (const it of items) {
      onRow(scanRepository(it, opts));
      // Let signals and stderr progress through between repositories.
      await new Promise((r) => setImmediate(r));
    }
    return;
  }
  const entry = workerEntry();
  let next = 0;
  const workers: Worker[] = [];
  await new Promise<void>((resolve, reject) => {
    let running = 0;
    const feed = (w: Worker) => {
      if (next < items.length) {
        const id = next++;
        w.postMessage({ id, repo: items[id], opts });
      } else {
        w.postMessage(null);
      }
    };
    const n = Math.min(jobs, items.length);
    for (let i = 0; i < n; i++) {
      const w = new Worker(BOOT, { eval: true, workerData: { [TAG]: 1, ...entry } });
      workers.push(w);
      running++;
      w.on('message', (m: { id: number; row: ScanRow }) => {
        try {
          onRow(m.row);
        } catch (e) {
          reject(e as Error);
          return;
        }
        feed(w);
      });
      w.on('error', (e) => reject(e));
      w.on('exit', (code) => {
        running--;
        if (code !== 0) reject(new Error(`a scan worker exited with code ${code}`));
        else if (running === 0) resolve();
      });
      feed(w);
    }
  }).finally(() => {
    for (const w of workers) void w.terminate();
  });
}
