/**
 * bench/browser: the production build in Debian's headless Chromium (playwright-core), as the
 * e2e tests drive it (test/e2e/helpers.ts): a real drag and drop of the 1,000,000-ref stack onto
 * the page, timed until the overview shows the right number of live refs.
 *
 * Measured per drop: wall time from the drop to `data-testid="live-refs"` showing the value; the
 * times the progress bar changed (its text or its value), so the longest stretch without a
 * visible update; main-thread long tasks (PerformanceObserver 'longtask'); and the worker's memory
 * after the load (DevTools protocol on the worker target: `HeapProfiler.collectGarbage`, then
 * `Runtime.getHeapUsage`: JS heap plus the backing stores of its ArrayBuffers).
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type CDPSession } from 'playwright-core';

export interface DropResult {
  /** Drop to overview shown with the expected value (ms, wall clock of the driver). */
  ms: number;
  /** Longest time without a visible progress update, from the drop to the overview (ms). */
  maxGap: number;
  /** Progress updates seen. */
  updates: number;
  /** Main-thread long tasks during the load (ms each), the name checks after the Overview included. */
  longTasks: number[];
  /** Drop to the end of the name checks and prefix rows that follow the Overview (ms), or null. */
  detailsMs?: number | null;
  /** Worker memory after the load and a GC: JS heap used + ArrayBuffer backing stores (bytes), or null. */
  workerBytes: number | null;
  workerHeap: number | null;
  workerBuffers: number | null;
  /** Refs view: typing `filterPrefix` to its count shown (ms, the view's 120 ms debounce included), or null. */
  filterMs?: number | null;
  /** Rows the prefix filter found (the count the view shows). */
  filterCount?: number | null;
  /** Refs view: a scroll to the middle of the unfiltered list until its rows are drawn (ms), or null. */
  scrollMs?: number | null;
  /** Main-thread long tasks during the filter and the scroll (ms each). */
  viewLongTasks?: number[];
  /** Why the drop did not reach the overview (a timeout, a crashed worker), or undefined. */
  failed?: string;
}

export interface BrowserResult {
  chromium: string;
  buildMs: number;
  /** Worker memory after the default sample loaded (the baseline), bytes. */
  baselineWorkerBytes: number | null;
  drops: DropResult[];
  note: string;
}

interface HeapUsage {
  usedSize: number;
  totalSize: number;
  backingStorageSize?: number;
}

/** Run the browser part. `dir` is the reftable directory to drop, `live` the value the overview must show. */
export async function browserBench(opts: {
  root: string;
  dir: string;
  live: number;
  drops: number;
  log: (s: string) => void;
  /** Also time the Refs view: a prefix filter and a scroll (after each drop). */
  filterPrefix?: string;
  /** Use this build instead of building one (a dist/ made by `npm run build` or `buildInto`). */
  dist?: string;
  /** Sample the page's main thread during each load and print where it spent its time. */
  profile?: boolean;
  /** Longest wait for the overview (ms). */
  timeout?: number;
}): Promise<BrowserResult | { skipped: string }> {
  const { root, dir, live, log } = opts;
  // The e2e helpers find the repository from their own folder (__dirname, a CommonJS name that
  // vitest provides); give it to them the same way.
  (globalThis as unknown as { __dirname: string }).__dirname = path.join(root, 'test/e2e');
  const H = await import('../test/e2e/helpers.ts');
  if (!H.haveChromium) return { skipped: `no Chromium at ${H.CHROMIUM}` };
  const dist = opts.dist ?? path.join(root, 'bench/out/dist');
  const t0 = performance.now();
  if (!opts.dist) {
    fs.rmSync(dist, { recursive: true, force: true });
    await H.buildInto(dist, './');
  }
  const buildMs = performance.now() - t0;
  const { server, url } = await H.serveBuild(dist, '/bench/', 4600 + (process.pid % 300));
  const browser = await chromium.launch({ executablePath: H.CHROMIUM, args: H.ARGS });
  try {
    const version = browser.version();
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, colorScheme: 'light' });
    await context.addInitScript(() => {
      const w = window as unknown as { __longTasks: number[]; __progress: number[]; __lastP?: string };
      w.__longTasks = [];
      w.__progress = [];
      try {
        new PerformanceObserver((l) => {
          for (const e of l.getEntries()) w.__longTasks.push(e.duration);
        }).observe({ type: 'longtask', buffered: true });
      } catch {
        /* not supported */
      }
      // A visible progress update: the bar's text or its value changed.
      new MutationObserver(() => {
        const p = document.querySelector('[data-testid=progress]');
        if (!p) return;
        const t = `${p.getAttribute('aria-valuetext')}|${p.getAttribute('aria-valuenow')}`;
        if (w.__lastP !== t) {
          w.__lastP = t;
          w.__progress.push(performance.now());
        }
      }).observe(document, {
        subtree: true,
        childList: true,
        attributes: true,
        attributeFilter: ['aria-valuetext', 'aria-valuenow'],
      });
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const cdp = await context.newCDPSession(page);
    await page.goto(url);
    await H.waitLoad(page, 0);
    const memory = workerMemory(cdp);
    const baseline = await memory();
    const drops: DropResult[] = [];
    for (let k = 0; k < opts.drops; k++) {
      await H.show(page, 'overview');
      await page.evaluate(() => {
        const w = window as unknown as { __longTasks: number[]; __progress: number[] };
        w.__longTasks.length = 0;
        w.__progress.length = 0;
      });
      const prev = await H.loadId(page);
      const pageT0 = await page.evaluate(() => performance.now());
      if (opts.profile) {
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
        await cdp.send('Profiler.start');
      }
      const t1 = performance.now();
      await H.dropPaths(cdp, [dir]);
      let failed: string | undefined;
      try {
        await page.waitForFunction(
          ({ p, v }) => {
            const m = document.querySelector('[data-testid=main]');
            return (
              !!m &&
              m.getAttribute('data-status') === 'ready' &&
              Number(m.getAttribute('data-load-id')) > p &&
              !!document.querySelector(`[data-testid=live-refs][data-value="${v}"]`)
            );
          },
          { p: prev, v: live },
          { timeout: opts.timeout ?? 120_000, polling: 50 },
        );
      } catch (e) {
        const shownLive = await page
          .locator('[data-testid=live-refs]')
          .getAttribute('data-value', { timeout: 1000 })
          .catch(() => null);
        const err = await page
          .locator('[data-testid=load-error], [role=alert]')
          .first()
          .textContent({ timeout: 1000 })
          .catch(() => null);
        failed = `${(e as Error).message.split('\n')[0]}; live-refs shows ${shownLive}; ${err ? `alert: ${err.slice(0, 300)}` : 'no alert'}`;
      }
      const ms = performance.now() - t1;
      // A large stack's name checks and prefix rows follow the Overview (its "still computing"
      // banner): until the banner goes.
      let detailsMs: number | null = null;
      if (!failed) {
        await page
          .waitForFunction(() => !document.querySelector('[data-testid=load-pending]'), null, {
            timeout: opts.timeout ?? 120_000,
            polling: 50,
          })
          .then(() => (detailsMs = performance.now() - t1))
          .catch(() => {});
      }
      if (opts.profile)
        log(`  main thread, most self time during the load: ${topSelf(await cdp.send('Profiler.stop'))}`);
      const seen = await page.evaluate(() => {
        const w = window as unknown as { __longTasks: number[]; __progress: number[] };
        return { now: performance.now(), longTasks: [...w.__longTasks], progress: [...w.__progress] };
      });
      const marks = [pageT0, ...seen.progress.filter((t) => t >= pageT0), seen.now];
      let maxGap = 0;
      for (let i = 1; i < marks.length; i++) maxGap = Math.max(maxGap, marks[i] - marks[i - 1]);
      const pool = await page.getAttribute('[data-testid=main]', 'data-pool-tables').catch(() => null);
      const mem = await memory();
      const d: DropResult = {
        ms,
        maxGap,
        updates: marks.length - 2,
        longTasks: seen.longTasks,
        workerBytes: mem ? mem.usedSize + (mem.backingStorageSize ?? 0) : null,
        workerHeap: mem?.usedSize ?? null,
        workerBuffers: mem?.backingStorageSize ?? null,
        detailsMs,
        failed,
      };
      if (!failed && opts.filterPrefix) {
        if (opts.profile) await cdp.send('Profiler.start');
        Object.assign(d, await refsViewTimes(page, H, opts.filterPrefix));
        if (opts.profile)
          log(`  main thread, most self time in the Refs view: ${topSelf(await cdp.send('Profiler.stop'))}`);
      }
      drops.push(d);
      const mb = (b: number | null) => (b === null ? 'n/a' : `${(b / 1e6).toFixed(1)} MB`);
      log(
        `  drop ${k + 1}: ${failed ? `FAILED after ${ms.toFixed(0)} ms (${failed})` : `overview after ${ms.toFixed(0)} ms`}${pool && pool !== '0' ? ` (${pool} tables parsed in the pool)` : ''}${d.detailsMs != null ? `, name checks done after ${d.detailsMs.toFixed(0)} ms` : ''}, ${marks.length - 2} progress updates, longest gap ${maxGap.toFixed(0)} ms, long tasks ${JSON.stringify(seen.longTasks.map(Math.round))}, worker ${mb(d.workerBytes)} (heap ${mb(d.workerHeap)}, buffers ${mb(d.workerBuffers)})` +
          (d.filterMs !== undefined
            ? `; filter ${JSON.stringify(opts.filterPrefix)}: ${d.filterMs === null ? 'n/a' : d.filterMs.toFixed(0) + ' ms'} (${d.filterCount} rows), scroll ${d.scrollMs === null ? 'n/a' : d.scrollMs!.toFixed(0) + ' ms'}, view long tasks ${JSON.stringify((d.viewLongTasks ?? []).map(Math.round))}`
            : ''),
      );
    }
    if (errors.length) log(`  page errors: ${errors.join(' | ')}`);
    return {
      chromium: version,
      buildMs,
      drops,
      baselineWorkerBytes: baseline ? baseline.usedSize + (baseline.backingStorageSize ?? 0) : null,
      note: errors.length ? `page errors: ${errors.join(' | ')}` : '',
    };
  } finally {
    await browser.close();
    server.close();
  }
}

/** The functions with the most self time in a DevTools CPU profile, as one line. */
function topSelf(r: {
  profile: {
    nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
    samples?: number[];
    timeDeltas?: number[];
  };
}): string {
  const p = r.profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  (p.samples ?? []).forEach((id, i) => {
    const f = byId.get(id)!.callFrame;
    const k = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber}`;
    self.set(k, (self.get(k) ?? 0) + (p.timeDeltas?.[i] ?? 0) / 1000);
  });
  return [...self]
    .filter(([k]) => !k.startsWith('(idle)') && !k.startsWith('(program)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .map(([k, ms]) => `${k} ${ms.toFixed(0)} ms`)
    .join('; ');
}

/**
 * The Refs view after a load: type `prefix` into the filter and wait for its count (the view
 * debounces typing by 120 ms: included, the user waits for it too); clear it, then scroll the
 * list to its middle and wait until a row from there is drawn.
 */
async function refsViewTimes(
  page: import('playwright-core').Page,
  H: { show: (p: import('playwright-core').Page, v: string) => Promise<void> },
  prefix: string,
): Promise<Pick<DropResult, 'filterMs' | 'filterCount' | 'scrollMs' | 'viewLongTasks'>> {
  const out: Pick<DropResult, 'filterMs' | 'filterCount' | 'scrollMs' | 'viewLongTasks'> = {
    filterMs: null,
    filterCount: null,
    scrollMs: null,
  };
  await H.show(page, 'refs');
  await page.waitForFunction(
    () => !!document.querySelector('[data-testid=refs-count]')?.getAttribute('data-value'),
    null,
    {
      timeout: 60_000,
    },
  );
  const all = Number(await page.getAttribute('[data-testid=refs-count]', 'data-value'));
  await page.evaluate(() => {
    (window as unknown as { __longTasks: number[] }).__longTasks.length = 0;
  });
  const t0 = performance.now();
  await page.fill('[data-testid=refs-filter]', prefix);
  try {
    await page.waitForFunction(
      (a) => {
        const v = document.querySelector('[data-testid=refs-count]')?.getAttribute('data-value');
        return !!v && Number(v) !== a;
      },
      all,
      { timeout: 60_000, polling: 'raf' },
    );
    out.filterMs = performance.now() - t0;
    out.filterCount = Number(await page.getAttribute('[data-testid=refs-count]', 'data-value'));
  } catch {
    /* left null */
  }
  await page.fill('[data-testid=refs-filter]', '');
  await page.waitForFunction(
    (a) => document.querySelector('[data-testid=refs-count]')?.getAttribute('data-value') === String(a),
    all,
    { timeout: 60_000 },
  );
  const t1 = performance.now();
  const target = Math.floor(all / 2);
  await page.evaluate((row) => {
    const l = document.querySelector('[data-testid=refs-list]') as HTMLElement;
    // Halfway down the scroll range: the rows around the middle (the range is scaled past 8 M px).
    void row;
    l.scrollTop = (l.scrollHeight - l.clientHeight) / 2;
  }, target);
  try {
    await page.waitForFunction(
      (row) =>
        [...document.querySelectorAll('[data-testid=ref-row]')].some((e) => {
          const i = Number(e.id.slice(4));
          return Math.abs(i - row) < 200 + row / 50 && (e.textContent ?? '').includes('refs/');
        }),
      target,
      { timeout: 60_000, polling: 'raf' },
    );
    out.scrollMs = performance.now() - t1;
  } catch {
    /* left null */
  }
  out.viewLongTasks = await page.evaluate(() => [...(window as unknown as { __longTasks: number[] }).__longTasks]);
  await H.show(page, 'overview');
  return out;
}

/**
 * The engine worker's memory through the DevTools protocol: the page session attaches to the
 * worker target (non-flattened: messages go through Target.sendMessageToTarget, which
 * playwright's page session can send), collects garbage, reads `Runtime.getHeapUsage`.
 */
function workerMemory(cdp: CDPSession): () => Promise<HeapUsage | null> {
  let id = 0;
  const pending = new Map<number, (v: unknown) => void>();
  const send = cdp.send.bind(cdp) as (m: string, p?: unknown) => Promise<unknown>;
  const on = cdp.on.bind(cdp) as (e: string, f: (e: { sessionId: string; message: string }) => void) => void;
  on('Target.receivedMessageFromTarget', (e) => {
    const m = JSON.parse(e.message) as { id?: number; result?: unknown; error?: unknown };
    if (m.id !== undefined && pending.has(m.id)) {
      pending.get(m.id)!(m.error ? null : m.result);
      pending.delete(m.id);
    }
  });
  const attached = new Map<string, string>();
  return async () => {
    try {
      const { targetInfos } = (await send('Target.getTargets')) as {
        targetInfos: { targetId: string; type: string; url: string }[];
      };
      const w = targetInfos.find((t) => t.type === 'worker' && /engine\.worker/.test(t.url));
      if (!w) return null;
      let sessionId = attached.get(w.targetId);
      if (!sessionId) {
        ({ sessionId } = (await send('Target.attachToTarget', { targetId: w.targetId, flatten: false })) as {
          sessionId: string;
        });
        attached.set(w.targetId, sessionId);
      }
      const call = (method: string) =>
        new Promise<unknown>((resolve) => {
          const mid = ++id;
          pending.set(mid, resolve);
          void send('Target.sendMessageToTarget', {
            sessionId,
            message: JSON.stringify({ id: mid, method, params: {} }),
          });
          setTimeout(() => {
            if (pending.delete(mid)) resolve(null);
          }, 10_000);
        });
      await call('HeapProfiler.collectGarbage');
      return (await call('Runtime.getHeapUsage')) as HeapUsage | null;
    } catch {
      return null;
    }
  };
}

/**
 * Run directly: `node bin/run-ts.mjs bench/browser.ts --dir <reftable dir> --live <n> [--drops 2]
 * [--filter refs/pull/1] [--dist dist]` prints the figures of each drop and the machine load.
 */
if (process.argv[1]?.endsWith('browser.ts')) {
  const arg = (k: string) => {
    const i = process.argv.indexOf(k);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const os = await import('node:os');
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
  const dir = path.resolve(arg('--dir')!);
  const input = fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.ref'))
    .reduce((s, n) => s + fs.statSync(path.join(dir, n)).size, 0);
  console.log(
    `load before ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}; input ${(input / 1e6).toFixed(1)} MB in ${dir}`,
  );
  const r = await browserBench({
    root,
    dir,
    live: Number(arg('--live')),
    drops: Number(arg('--drops') ?? 2),
    log: console.log,
    filterPrefix: arg('--filter'),
    dist: arg('--dist') ? path.resolve(arg('--dist')!) : undefined,
    timeout: Number(arg('--timeout') ?? 120_000),
    profile: process.argv.includes('--profile'),
  });
  if ('skipped' in r) console.log(`skipped: ${r.skipped}`);
  else
    for (const d of r.drops)
      if (d.workerBytes !== null && r.baselineWorkerBytes !== null)
        console.log(
          `  worker memory over the baseline: ${((d.workerBytes - r.baselineWorkerBytes) / 1e6).toFixed(1)} MB = ${((d.workerBytes - r.baselineWorkerBytes) / input).toFixed(2)}× the input; total ${(d.workerBytes / input).toFixed(2)}×`,
        );
  console.log(
    `load after ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
}
