/**
 * The long fuzz run (`npm run fuzz`): N cases spread over the families, each run in a worker
 * thread with a deadline and a heap limit. A case that does not answer within `CASE_DEADLINE_MS`
 * runs again in a fresh worker; one that does not answer within `RETRY_DEADLINE_MS` either is a
 * hang: its worker is terminated and replaced. A worker that dies (out of memory) breaks its
 * case. Every failing case is saved (desc.txt, its files) under a folder this prints.
 */
import { Worker } from 'node:worker_threads';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FAMILIES, makeCase, saveCase, type Family } from './families.ts';

/** No answer within this: a hang (far above the 2 s a case is allowed, so a busy machine does not invent hangs). */
export const CASE_DEADLINE_MS = 20_000;
/** A case past CASE_DEADLINE_MS gets one more try in a fresh worker, with this deadline. */
export const RETRY_DEADLINE_MS = 120_000;
/** Cases slower than this are counted as slow (not failures: a busy machine stretches them). */
export const SLOW_MS = 2_000;
/** Heap of one worker (MiB): a case that needs more dies and is broken. */
export const HEAP_LIMIT_MB = 512;

export interface PoolResult {
  cases: number;
  byFamily: Record<string, Record<string, number>>;
  broken: number;
  hangs: number;
  slow: number;
  /** Cases past the first deadline that answered in their second try (counted as slow too). */
  retried: number;
  saved: string;
  failures: { family: Family; index: number; what: string }[];
  /** Highest resident set size of the whole process (all lanes), sampled every 200 ms (MiB). */
  maxRssMiB: number;
  /** Wall time of the run (s). */
  wallS: number;
  /** Outcomes summed over the families (accepted, rejected, writer-refused, …). */
  totals: Record<string, number>;
}

export async function runPool(
  total: number,
  seed: number,
  outDir: string,
  log: (s: string) => void = () => {},
  lanes = Number(process.env.FUZZ_LANES) || 2,
): Promise<PoolResult> {
  const res: PoolResult = {
    cases: 0,
    byFamily: {},
    broken: 0,
    hangs: 0,
    slow: 0,
    retried: 0,
    saved: outDir,
    failures: [],
    maxRssMiB: 0,
    wallS: 0,
    totals: {},
  };
  const t0run = Date.now();
  const sampleRss = () => {
    res.maxRssMiB = Math.max(res.maxRssMiB, Math.round(process.memoryUsage.rss() / 2 ** 20));
  };
  const rssTimer = setInterval(sampleRss, 200);
  const plan: { family: Family; index: number }[] = [];
  for (let i = 0; i < total; i++) plan.push({ family: FAMILIES[i % FAMILIES.length], index: i });
  const start = (): Promise<Worker> =>
    new Promise((resolve, reject) => {
      const w = new Worker(new URL('./worker.mjs', import.meta.url), {
        resourceLimits: { maxOldGenerationSizeMb: HEAP_LIMIT_MB },
      });
      w.once('message', () => resolve(w));
      w.once('error', reject);
    });
  const fail = (family: Family, index: number, what: string) => {
    res.failures.push({ family, index, what });
    try {
      saveCase(
        path.join(outDir, `${family.replace(/\W/g, '-')}-case-${index}`),
        makeCase(family, seed, index),
        seed,
        index,
        what,
      );
    } catch (e) {
      log(`could not save case ${index}: ${(e as Error).message}`);
    }
  };
  type Reply = { outcome?: string; broken?: string; hang?: boolean; died?: string };
  const ask = (w: Worker, family: Family, index: number, deadline: number): Promise<Reply> =>
    new Promise<Reply>((resolve) => {
      const timer = setTimeout(() => resolve({ hang: true }), deadline);
      const onMsg = (m: { outcome?: string; broken?: string }) => {
        cleanup();
        resolve(m);
      };
      const onErr = (e: Error) => {
        cleanup();
        resolve({ died: e.message });
      };
      const onExit = (code: number) => {
        cleanup();
        resolve({ died: `worker exited with ${code}` });
      };
      const cleanup = () => {
        clearTimeout(timer);
        w.off('message', onMsg);
        w.off('error', onErr);
        w.off('exit', onExit);
      };
      w.on('message', onMsg);
      w.on('error', onErr);
      w.on('exit', onExit);
      w.postMessage({ family, seed, index });
    });
  const one = async (w: Worker, family: Family, index: number): Promise<Worker | null> => {
    const t0 = Date.now();
    let reply = await ask(w, family, index, CASE_DEADLINE_MS);
    if (reply.hang) {
      // The deadline is wall time: on a loaded machine (or under `nice`) a case can be starved of
      // CPU for 20 s without looping. It runs once more in a fresh worker with RETRY_DEADLINE_MS;
      // a real loop does not end then either.
      await w.terminate();
      w = await start();
      reply = await ask(w, family, index, RETRY_DEADLINE_MS);
      if (!reply.hang) res.retried++;
    }
    const ms = Date.now() - t0;
    const fam = (res.byFamily[family] ??= {});
    const tally = (k: string) => {
      fam[k] = (fam[k] ?? 0) + 1;
      if (k !== 'slow') res.totals[k] = (res.totals[k] ?? 0) + 1;
    };
    res.cases++;
    if (ms > SLOW_MS) {
      res.slow++;
      tally('slow');
    }
    let keep: Worker | null = w;
    if (reply.hang) {
      res.hangs++;
      tally('hang');
      await w.terminate();
      keep = null;
      fail(
        family,
        index,
        `HANG: no answer within ${CASE_DEADLINE_MS / 1000} s, nor in a second try of ${RETRY_DEADLINE_MS / 1000} s`,
      );
    } else if (reply.died) {
      res.broken++;
      tally('broken');
      keep = null;
      fail(family, index, `BROKEN: the worker died (${reply.died}; heap limit ${HEAP_LIMIT_MB} MiB)`);
    } else if (reply.broken) {
      res.broken++;
      tally('broken');
      fail(family, index, `BROKEN: ${reply.broken}`);
    } else {
      tally(reply.outcome ?? 'unknown');
    }
    if (res.cases % 2000 === 0) {
      log(
        `fuzz: ${res.cases}/${total} cases, ${res.broken} broken, ${res.hangs} hangs, ${JSON.stringify(res.totals)}, max RSS ${res.maxRssMiB} MiB, ${Math.round((Date.now() - t0run) / 1000)} s`,
      );
      // The counts so far, on disk (a run stopped early still says how far it got).
      fs.writeFileSync(
        path.join(outDir, 'summary.json'),
        JSON.stringify({ seed, ...res, failures: res.failures.slice(0, 100) }, null, 1),
      );
    }
    return keep;
  };
  // Lanes of workers take the cases in turn.
  let next = 0;
  const lane = async () => {
    let w: Worker | null = null;
    while (next < plan.length) {
      const { family, index } = plan[next++];
      if (!w) w = await start();
      w = await one(w, family, index);
    }
    await w?.terminate();
  };
  await Promise.all(Array.from({ length: Math.max(1, lanes) }, lane));
  clearInterval(rssTimer);
  sampleRss();
  res.wallS = Math.round((Date.now() - t0run) / 1000);
  fs.writeFileSync(
    path.join(outDir, 'summary.json'),
    JSON.stringify({ seed, ...res, failures: res.failures.slice(0, 100) }, null, 1),
  );
  return res;
}

/** `node bin/run-ts.mjs test/fuzz/pool.ts [cases] [seed]`: the long run on its own. */
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const total = Number(process.argv[2] ?? 100_000);
  const seed = Number(process.argv[3] ?? Date.now() & 0x7fffffff);
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-fuzz-'));
  console.log(`fuzz: ${total} cases, seed ${seed}; failing cases go to ${out}`);
  const r = await runPool(total, seed, out, (s) => console.log(s));
  console.log(JSON.stringify({ ...r, failures: r.failures.slice(0, 50) }, null, 1));
  process.exitCode = r.broken || r.hangs ? 1 : 0;
}
