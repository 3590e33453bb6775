/**
 * bench/session-load: the worker's load in Node, through the same `EngineSession` code the
 * engine worker runs (workers/engine.worker.ts), over byte sources that behave like the worker's
 * (`slicedSource` over 4 MiB reads that each return a fresh buffer, as `FileReaderSync` does), so
 * that `node --cpu-prof` shows where a drop's time goes without a browser.
 *
 *   node bin/run-ts.mjs bench/session-load.ts <reftable dir> [--runs N]
 *   node --cpu-prof --cpu-prof-dir=bench/out/prof bin/run-ts.mjs bench/session-load.ts <dir>
 *
 * Prints per run: wall and CPU time of `load` (process.cpuUsage, user + system), the live count,
 * the load average, and the session's work counters.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { InputFile } from '../src/engine/basics.ts';
import { EngineSession, slicedSource } from '../src/engine/session/index.ts';

/** The files of a reftable directory as the worker gets them (a `Blob` per file, read in slices). */
export function workerLikeInputs(dir: string, session: EngineSession): InputFile[] {
  const out: InputFile[] = [];
  for (const name of fs.readdirSync(dir)) {
    if (name !== 'tables.list' && !name.endsWith('.ref')) continue;
    const full = path.join(dir, name);
    const size = fs.statSync(full).size;
    const fd = fs.openSync(full, 'r');
    out.push({
      path: `reftable/${name}`,
      source: slicedSource(
        size,
        (o, l) => {
          const b = new Uint8Array(l);
          const n = fs.readSync(fd, b, 0, l, o);
          return n === l ? b : b.subarray(0, n);
        },
        (n) => session.noteRead(n),
      ),
    });
  }
  return out;
}

if (/session-load\.(ts|mjs)$/.test(process.argv[1] ?? '')) {
  const dir = path.resolve(process.argv[2]);
  const i = process.argv.indexOf('--runs');
  const runs = i > 0 ? Number(process.argv[i + 1]) : 1;
  for (let k = 0; k < runs; k++) {
    const s = new EngineSession();
    // --lazy: values stay in the files' bytes whatever the size (as from 16 MiB of tables).
    if (process.argv.includes('--lazy')) s.lazyValuesFrom = 0;
    const files = workerLikeInputs(dir, s);
    const load0 = os.loadavg()[0];
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = s.load(files);
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    console.log(
      JSON.stringify({
        run: k + 1,
        wallMs: Math.round(ms),
        cpuMs: Math.round((c.user + c.system) / 1000),
        live: r.refCount,
        error: r.error?.message ?? null,
        load: [load0, os.loadavg()[0]].map((x) => Number(x.toFixed(2))),
        memory: s.memory(),
        rss: process.memoryUsage().rss,
      }),
    );
  }
}
