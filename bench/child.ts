/**
 * bench/child: the measurements that need a fresh Node process, run by bench.ts.
 *
 *   node bin/run-ts.mjs bench/child.ts cold <table file>   first openTable + mergeTables + listRefsBytes
 *   node bin/run-ts.mjs bench/child.ts mem <reftable dir>  memory the worker's session holds
 *
 * Prints one line of JSON. Each mode imports only what it runs.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { collectInput } from '../src/cli/node-input.ts';

const [mode, target] = process.argv.slice(2);

if (mode === 'cold') {
  // What a command-line run does once: nothing is warm (no JIT-compiled code yet).
  const { openTable } = await import('../src/engine/reftable/table.ts');
  const { mergeTables } = await import('../src/engine/reftable/merged.ts');
  const { listRefsBytes } = await import('../src/engine/refs.ts');
  const input = collectInput(target)[0];
  const t0 = performance.now();
  const table = openTable(input);
  const t1 = performance.now();
  const m = mergeTables([table]);
  const t2 = performance.now();
  const out = listRefsBytes([table], m);
  const t3 = performance.now();
  console.log(JSON.stringify({ open: t1 - t0, merge: t2 - t1, list: t3 - t2, bytes: out.length, live: m.live }));
} else if (mode === 'mem') {
  // The worker's part: EngineSession.load over sources that keep nothing (like the worker's
  // FileReaderSync slices of a dropped File), then everything it retains while holding the analysis.
  const { EngineSession } = await import('../src/engine/session/index.ts');
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const files = collectInput(target);
  const inputBytes = files.reduce((s, f) => s + f.source.size, 0);
  gc();
  gc();
  const m0 = process.memoryUsage();
  let peakRss = m0.rss;
  const session = new EngineSession();
  const times: number[] = [];
  const t0 = performance.now();
  const r = session.load(files, () => {
    times.push(performance.now() - t0);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  });
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  const ms = performance.now() - t0;
  gc();
  gc();
  const m1 = process.memoryUsage();
  const heap = m1.heapUsed - m0.heapUsed;
  const arrayBuffers = m1.arrayBuffers - m0.arrayBuffers;
  const gaps = times.map((t, i) => t - (i ? times[i - 1] : 0)).concat([ms - (times[times.length - 1] ?? 0)]);
  console.log(
    JSON.stringify({
      inputBytes,
      heap,
      arrayBuffers,
      retained: heap + arrayBuffers,
      peakRssGrowth: peakRss - m0.rss,
      ms,
      live: r.report?.stack?.live ?? null,
      refCount: r.refCount,
      maxProgressGap: Math.max(...gaps),
      held: session.report() ? 1 : 0, // the session is alive until here
    }),
  );
} else {
  console.error('usage: child.ts cold <table> | mem <dir>');
  process.exit(2);
}
