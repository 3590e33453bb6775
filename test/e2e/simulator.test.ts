/**
 * End-to-end: the Simulator view (issue #6) in the production build in headless Chromium
 * (playwright-core driving Debian's /usr/bin/chromium), served from a sub-path.
 *
 * - recreate-2000 opened from disk: the default workload (re-create the refs the tombstones hide)
 *   runs in the worker with a busy state; the estimated seconds shown per model equal
 *   `Simulator.fromAnalysis(analyzeFiles(collectInput(dir))).run(…)` with the same options within
 *   display rounding; the chart has one series per model (quadratic up to 2.55, linear from 2.56),
 *   the fixes and the paragraph are the engine's; the workload is in the URL.
 * - `git update-ref --stdin` input: the fixture's truth/recreate.stdin opened as a file and dropped
 *   on the box (not opened as a new input) gives the engine's numbers; malformed input shows the
 *   error with its offset.
 * - A share link made after a simulation carries its numbers (no names); opened in a fresh
 *   context it shows the sharer's results read-only; "re-run on a synthetic stack" simulates live.
 * - A deep link `#/simulator?w=…` picks and runs that workload; a packed-refs input runs the files
 *   model only.
 * - 250,000 refs: no run by itself, a busy state and a responsive page while the worker counts
 *   (the stack is over the view's auto-run bound of 200,000 records and 10,000 operations; that the
 *   simulator's work stays bounded as the stack grows is counted in test/simulate-perf.test.ts).
 * - Every request of every context is recorded: none may go to another origin.
 * Screenshots (light and dark) go to test-results/simulator-*.png. Skipped without Chromium.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { analyzeFiles, FormatError } from '../../src/engine/index.ts';
import { collectInput } from '../../src/cli/node-input.ts';
import { decodeShare } from '../../src/engine/share/index.ts';
import {
  Simulator,
  parseUpdateRefStdin,
  type ModelName,
  type SimulationResult,
} from '../../src/engine/simulate/index.ts';
import { parseSeconds } from '../../src/app/simulator/simformat.ts';
import { SIM_SHARE_MAGIC } from '../../src/engine/share/simulation.ts';
import { writeTable, tableFileName, type RefRecordIn } from '../../src/engine/reftable/writer.ts';
import {
  FX,
  OUT,
  ROOT,
  haveChromium,
  loadId,
  show,
  waitLoad,
  waitRun,
  newWatch,
  startApp,
  stopApp,
  watchedContext,
  type AppUnderTest,
} from './helpers.ts';

const DIST = path.join(ROOT, '.tmp/simulator-dist');
const BASE = '/refscope/sim/';
const REFTABLE_MODELS: ModelName[] = ['git-2.49', 'git-2.55', 'git-2.56', 'initial'];
const OPTIONS = { models: REFTABLE_MODELS, warnAmbiguousRefs: true, autoCompaction: true, factor: 2 };

let app: AppUnderTest | undefined;
let context: BrowserContext;
let page: Page;
let url = '';
let origin = '';
const watch = newWatch();

function fxDir(name: string): string {
  return path.join(FX, name, 'reftable');
}

/** A context of this file: its requests, page errors and console errors go to `watch`. */
function newContext(colorScheme: 'light' | 'dark' = 'light'): Promise<BrowserContext> {
  return watchedContext(app!.browser, origin, watch, { colorScheme, consoleErrors: true });
}

async function shot(p: Page, name: string, fullPage = true): Promise<void> {
  // The offline-ready notice of the first visit is not part of the view; nor is the focus ring.
  for (const b of await p.locator('[data-testid=pwa-offline-ok]').all()) await b.click().catch(() => undefined);
  await p.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    window.scrollTo(0, 0);
  });
  await p.waitForTimeout(250);
  await p.screenshot({ path: path.join(OUT, `simulator-${name}.png`), fullPage });
}

/** A screenshot of one element (to look at details at full size). */
async function shotOf(p: Page, selector: string, name: string): Promise<void> {
  await p
    .locator(selector)
    .first()
    .screenshot({ path: path.join(OUT, `simulator-${name}.png`) });
}

/** The engine's result for a fixture, as the test computes it (the CLI's code path). */
function engineRun(dir: string, workload: string | { stdin: Uint8Array }): SimulationResult {
  const sim = Simulator.fromAnalysis(analyzeFiles(collectInput(dir)));
  const w = typeof workload === 'string' ? sim.parseSpec(workload) : sim.parseStdin(workload.stdin, { z: false });
  return sim.run(w, OPTIONS);
}

/**
 * A recreate-shaped stack on disk (synthetic.ts's shape: a base table of HEAD, main and `refs`
 * refs, then a table of tombstones for main and `deleted` of them), cached under .tmp.
 */
function bigRecreateStack(refs: number, deleted: number): string {
  const dir = path.join(ROOT, `.tmp/simulator-work/recreate-${refs}-${deleted}/reftable`);
  if (fs.existsSync(path.join(dir, 'tables.list'))) return dir;
  fs.mkdirSync(dir, { recursive: true });
  const oid = (i: number) => {
    const v = new Uint8Array(20);
    v[0] = i & 255;
    v[1] = (i >> 8) & 255;
    v[2] = (i >> 16) & 255;
    v[3] = 0x5e;
    v[19] = 1;
    return v;
  };
  const names: string[] = [];
  for (let i = 0; i < refs; i++) names.push(`refs/heads/ref-${i}`);
  const order = names.map((n, i) => ({ n, i })).sort((a, b) => (a.n < b.n ? -1 : a.n > b.n ? 1 : 0));
  const base: RefRecordIn[] = [{ name: 'HEAD', updateIndex: 1, type: 3, target: 'refs/heads/main' }];
  const body: RefRecordIn[] = order.map(({ n, i }) => ({ name: n, updateIndex: 3, type: 1 as const, value: oid(i) }));
  body.push({ name: 'refs/heads/main', updateIndex: 2, type: 1, value: oid(refs + 1) });
  body.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const all = base.concat(body);
  const tomb: RefRecordIn[] = [{ name: 'refs/heads/main', updateIndex: 4, type: 0 }];
  for (let k = 0; k < deleted; k++)
    tomb.push({ name: names[Math.floor(((k + 0.5) * refs) / deleted)], updateIndex: 4, type: 0 });
  tomb.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const t0 = tableFileName(1, 3, 0x5eed0101),
    t1 = tableFileName(4, 4, 0x5eed0102);
  fs.writeFileSync(path.join(dir, t0), writeTable(all, [], { minUpdateIndex: 1, maxUpdateIndex: 3 }));
  fs.writeFileSync(path.join(dir, t1), writeTable(tomb, [], { minUpdateIndex: 4, maxUpdateIndex: 4 }));
  fs.writeFileSync(path.join(dir, 'tables.list'), `${t0}\n${t1}\n`);
  return dir;
}

/** The estimated seconds shown per model (text) in a results block. */
async function shownSeconds(p: Page, scope: string): Promise<{ model: string; text: string }[]> {
  return p.locator(`${scope} [data-testid=sim-row]`).evaluateAll((rows) =>
    rows.map((r) => ({
      model: r.getAttribute('data-model') ?? '',
      text: r.querySelector('[data-testid=sim-seconds]')?.textContent ?? '',
    })),
  );
}

/** Every model's shown seconds equal the engine's within display rounding. */
function expectSeconds(shown: { model: string; text: string }[], want: SimulationResult): void {
  const ok = want.results.filter((m) => m.applicable);
  expect(shown.map((s) => s.model)).toEqual(ok.map((m) => m.model));
  for (const s of shown) {
    const m = ok.find((x) => x.model === s.model)!;
    const parsed = parseSeconds(s.text);
    expect(parsed, `${s.model}: "${s.text}"`).not.toBeNull();
    expect(
      Math.abs(parsed!.value - m.seconds!),
      `${s.model}: shown ${s.text}, engine ${m.seconds}`,
    ).toBeLessThanOrEqual(parsed!.tolerance * (1 + 1e-9));
  }
}

function capital(t: string): string {
  return t ? t[0].toUpperCase() + t.slice(1) : t;
}

/** The explanation as the page renders it (backtick spans become code elements, "≤ 2.49" does not break). */
function plainExplanation(s: string): string {
  return s.replace(/`([^`]+)`/g, '$1').replace(/≤ /g, '≤\u00a0');
}

describe.skipIf(!haveChromium)('simulator view (headless Chromium)', () => {
  beforeAll(async () => {
    fs.mkdirSync(OUT, { recursive: true });
    app = await startApp(DIST, BASE, 5400 + (process.pid % 400));
    ({ url, origin } = app);
    context = await newContext();
    page = await context.newPage();
  }, 300_000);

  afterAll(async () => {
    await stopApp(app);
  });

  const DIR = fxDir('recreate-2000');
  let want: SimulationResult;

  it('recreate-2000: the default workload in the worker; seconds per model equal the engine’s; one series per model', async () => {
    want = engineRun(DIR, 'recreate');
    expect(want.workload.operations).toBe(2001);
    await page.goto(`${url}#/overview?sample=none`);
    await page.waitForSelector('[data-testid=main][data-status=idle]');
    const prev = await loadId(page);
    await page.setInputFiles(
      '[data-testid=open-files-input]',
      fs.readdirSync(DIR).map((n) => path.join(DIR, n)),
    );
    await waitLoad(page, prev);
    await show(page, 'simulator');
    // A small stack: the default workload (re-create what the tombstones hide) runs by itself.
    expect(await page.isChecked('[data-testid=sim-gen-recreate]')).toBe(true);
    const run = await waitRun(page);
    expectSeconds(await shownSeconds(page, '[data-testid=sim-out]'), want);

    // Run it again with the button: a busy state while the worker counts. The page stays
    // responsive because the simulation is the worker's: every comlink call the page posts is
    // recorded (Worker.prototype.postMessage is looked up at each call, so the existing worker is
    // covered), and the run must be one "simulate" call posted to the worker. Counting frames
    // instead raced the worker on a busy machine: a fast run ends before the first frame.
    await page.evaluate(() => {
      const w = window as unknown as { __sawBusy?: boolean; __posted?: string[] };
      w.__sawBusy = false;
      w.__posted = [];
      new MutationObserver(() => {
        if (document.querySelector('[data-testid=sim-busy]')) w.__sawBusy = true;
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
      const post = Worker.prototype.postMessage;
      Worker.prototype.postMessage = function (this: Worker, msg: unknown, ...rest: never[]) {
        const m = msg as { path?: unknown[] } | null;
        if (m && Array.isArray(m.path)) w.__posted!.push(m.path.join('.'));
        return (post as (...a: unknown[]) => void).call(this, msg, ...rest);
      } as typeof Worker.prototype.postMessage;
    });
    await page.click('[data-testid=sim-run]');
    await waitRun(page, run);
    expect(await page.evaluate(() => (window as unknown as { __sawBusy?: boolean }).__sawBusy)).toBe(true);
    expect(await page.evaluate(() => (window as unknown as { __posted?: string[] }).__posted)).toContain('simulate');
    const shown = await shownSeconds(page, '[data-testid=sim-out]');
    expectSeconds(shown, want);
    // The quadratic growth per version, as the issue measured: 2.49 ≫ 2.55 ≫ 2.56.
    const secs = Object.fromEntries(want.results.filter((m) => m.applicable).map((m) => [m.model, m.seconds!]));
    expect(secs['git-2.49'] / secs['git-2.56']).toBeGreaterThan(50);

    // Counts are formatted, with the exact value kept in the cell's data.
    const cell = page.locator('[data-testid=sim-row][data-model="git-2.49"] td').nth(4);
    expect(Number(await cell.getAttribute('data-value'))).toBe(want.results[0].recordsDecoded);
    expect(await cell.textContent()).toMatch(/^\d+(\.\d+)? M$/);

    // The per-phase breakdown on expand.
    await page.click('[data-testid=sim-row][data-model="git-2.49"] .sim-expand');
    const phases = await page
      .locator('[data-testid=sim-phases] tr[data-phase]')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-phase')));
    expect(phases).toEqual(want.results[0].phases.map((p) => p.phase));

    // The chart: one series per model, labelled quadratic (≤ 2.55) and linear (2.56+).
    const series = await page.locator('[data-testid=sim-out] [data-testid=sim-series]').evaluateAll((gs) =>
      gs.map((g) => ({
        model: g.getAttribute('data-model'),
        growth: g.getAttribute('data-growth'),
        d: g.querySelector('path.sim-line')?.getAttribute('d') ?? '',
      })),
    );
    expect(series.map((s) => s.model)).toEqual(REFTABLE_MODELS);
    expect(series.every((s) => s.d.split('L').length === want.curve!.n.length)).toBe(true);
    expect(Object.fromEntries(series.map((s) => [s.model, s.growth]))).toMatchObject({
      'git-2.49': 'quadratic',
      'git-2.55': 'quadratic',
      'git-2.56': 'linear',
    });
    expect(await page.locator('[data-testid=sim-chart] svg title').textContent()).toMatch(/log–log/);
    expect(await page.locator('[data-testid=sim-chart] svg desc').textContent()).toMatch(/quadratic/);
    // Keyboard: focus the chart, → reads the values at n = 1.
    await page.focus('[data-testid=sim-chart] svg');
    await page.keyboard.press('ArrowRight');
    expect(await page.textContent('[data-testid=sim-readout]')).toMatch(/^n = 1\b/);
    await page.keyboard.press('End');
    expect(await page.textContent('[data-testid=sim-readout]')).toMatch(/^n = 100,000/);
    // The data table fallback has a row per n.
    expect(await page.locator('[data-testid=sim-chart-table] tbody tr').count()).toBe(want.curve!.n.length);

    // What would fix it: the engine's fixes and paragraph.
    const fixes = await page
      .locator('[data-testid=sim-fix]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-fix')));
    expect(fixes).toEqual(want.fixes.map((f) => f.fix));
    const pack = want.fixes.find((f) => f.fix === 'pack-refs')!;
    expect(pack.speedup!).toBeGreaterThan(10);
    expect(await page.textContent('[data-testid=sim-fix][data-fix=pack-refs] .sim-fix-figures')).toMatch(/→/);
    expect(await page.textContent('[data-testid=sim-explanation]')).toBe(plainExplanation(want.explanation));

    // The workload is in the address.
    expect(new URL(page.url()).hash).toBe('#/simulator?w=recreate');
    await page.keyboard.press('Home');
    await shot(page, 'light');
    await shotOf(page, '[data-testid=sim-chart]', 'chart-light');
    await shotOf(page, '.sim-setup', 'setup-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, 'dark');
    await shotOf(page, '[data-testid=sim-chart]', 'chart-dark');
    await shotOf(page, '[data-testid=sim-out] section:last-child', 'fixes-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('update-ref --stdin input: a file opened and a file dropped give the engine’s numbers; a malformed line shows its offset', async () => {
    const stdinPath = path.join(FX, 'recreate-2000/truth/recreate.stdin');
    const bytes = new Uint8Array(fs.readFileSync(stdinPath));
    const wantStdin = engineRun(DIR, { stdin: bytes });
    expect(wantStdin.workload.operations).toBe(2000);
    await page.click('[data-testid=sim-gen-stdin]');
    const id = await loadId(page);
    let run = Number(await page.getAttribute('[data-testid=simulator-view]', 'data-run-id'));
    await page.setInputFiles('[data-testid=sim-stdin-input]', stdinPath);
    await page.waitForFunction(
      () =>
        ((document.querySelector('[data-testid=sim-stdin]') as HTMLTextAreaElement | null)?.value.length ?? 0) > 1000,
    );
    await page.click('[data-testid=sim-run]');
    run = await waitRun(page, run);
    expect(await page.textContent('[data-testid=sim-workload] strong')).toBe(capital(wantStdin.workload.description));
    expect(wantStdin.workload.description).toMatch(/^update-ref --stdin: 2,?000 updates in 1 transaction/);
    expectSeconds(await shownSeconds(page, '[data-testid=sim-out]'), wantStdin);
    expect(new URL(page.url()).hash).toBe('#/simulator?w=stdin');

    // Malformed input: the error names the offset (as the engine's parser finds it).
    const bad = `create refs/heads/a ${'1'.repeat(40)}\nbogus line\n`;
    let offset = -1;
    try {
      parseUpdateRefStdin(bad, { file: '(pasted input)' });
    } catch (e) {
      if (e instanceof FormatError) offset = e.offset;
    }
    expect(offset).toBe(61);
    await page.fill('[data-testid=sim-stdin]', bad);
    await page.click('[data-testid=sim-run]');
    const err = page.locator('[data-testid=simulator-view] [data-testid=error]');
    await err.waitFor();
    expect(await err.getAttribute('data-offset')).toBe(String(offset));
    expect(await err.textContent()).toContain(`byte offset ${offset}`);
    expect(await err.textContent()).toMatch(/line 2, column 1/);
    expect(await err.textContent()).toMatch(/unknown command/);
    expect(await err.locator('pre').textContent()).toContain('bogus line');
    // "Show in the input" selects the line in the box.
    await err.locator('button').click();
    expect(
      await page.evaluate(() => {
        const t = document.querySelector('[data-testid=sim-stdin]') as HTMLTextAreaElement;
        return t.value.slice(t.selectionStart, t.selectionEnd);
      }),
    ).toBe('bogus line');
    await shot(page, 'stdin-error', false);
    // Markup in the input is text.
    await page.fill('[data-testid=sim-stdin]', 'create refs/heads/<img src=x onerror=alert(1)> 1234\n');
    await page.click('[data-testid=sim-run]');
    await page.waitForFunction(() =>
      /extra input/.test(document.querySelector('[data-testid=simulator-view] [data-testid=error]')?.textContent ?? ''),
    );
    expect(await err.locator('pre').textContent()).toContain('<img src=x onerror=alert(1)>');
    expect(await page.locator('[data-testid=simulator-view] img').count()).toBe(0);

    // A file dropped on the box fills it (and is not opened as a new input).
    const box = await page.locator('.sim-stdin').boundingBox();
    const cdp = await context.newCDPSession(page);
    const data = { items: [], files: [stdinPath], dragOperationsMask: 1 };
    for (const type of ['dragEnter', 'dragOver', 'drop'] as const) {
      await cdp.send('Input.dispatchDragEvent', { type, x: box!.x + box!.width / 2, y: box!.y + 40, data });
    }
    await page.waitForFunction(
      () =>
        ((document.querySelector('[data-testid=sim-stdin]') as HTMLTextAreaElement | null)?.value.length ?? 0) > 1000,
    );
    await page.click('[data-testid=sim-run]');
    await waitRun(page, run);
    expectSeconds(await shownSeconds(page, '[data-testid=sim-out]'), wantStdin);
    expect(await loadId(page)).toBe(id);
    expect(await page.locator('.drop-overlay').count()).toBe(0);
    await cdp.detach();
  });

  it('a share link made after a simulation carries its numbers; opened in a fresh context it shows them', async () => {
    // Back to the default workload.
    await page.click('[data-testid=sim-gen-recreate]');
    const run = Number(await page.getAttribute('[data-testid=simulator-view]', 'data-run-id'));
    await page.click('[data-testid=sim-run]');
    await waitRun(page, run);
    await show(page, 'share');
    expect(await page.isChecked('[data-testid=share-with-simulation]')).toBe(true);
    await page.waitForFunction(() =>
      /Simulation results: \d+ numbers/.test(document.querySelector('[data-testid=share-contains]')?.textContent ?? ''),
    );
    const link = await page.inputValue('[data-testid=share-link]');
    expect(link.length).toBeLessThan(8000);
    const payload = decodeShare(link);
    expect(Array.isArray(payload.simulation) && (payload.simulation as unknown[])[0]).toBe(SIM_SHARE_MAGIC);
    // No ref name, no object id in the link.
    const json = JSON.stringify(payload);
    const refs = fs.readFileSync(path.join(FX, 'recreate-2000/truth/refs.txt'), 'utf8').split('\n').filter(Boolean);
    for (const l of refs.slice(0, 50)) {
      const [oid, name] = l.split(' ');
      expect(json).not.toContain(name);
      expect(json).not.toContain(oid);
    }
    // Unticked: the link has no simulation.
    await page.click('[data-testid=share-with-simulation]');
    await page.waitForFunction(() =>
      /Simulation results: none/.test(document.querySelector('[data-testid=share-contains]')?.textContent ?? ''),
    );
    expect(decodeShare(await page.inputValue('[data-testid=share-link]')).simulation).toBeNull();
    await page.click('[data-testid=share-with-simulation]');

    const fresh = await newContext();
    const p = await fresh.newPage();
    await p.goto(link);
    await p.waitForSelector('[data-testid=shared-banner]');
    await waitLoad(p, 0);
    await show(p, 'simulator');
    await p.waitForSelector('[data-testid=sim-shared-results]');
    expectSeconds(await shownSeconds(p, '[data-testid=sim-shared-results]'), want);
    expect(await p.locator('[data-testid=sim-shared-results] [data-testid=sim-series]').count()).toBe(
      REFTABLE_MODELS.length,
    );
    const fixes = await p
      .locator('[data-testid=sim-shared-results] [data-testid=sim-fix]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-fix')));
    expect(fixes).toEqual(want.fixes.map((f) => f.fix));
    expect(await p.textContent('[data-testid=sim-shared-results] [data-testid=sim-explanation]')).toMatch(
      /^The sharer simulated: re-create the 2,001 refs that tombstones hide/,
    );
    expect(await p.textContent('[data-testid=sim-shared-results] [data-testid=sim-workload]')).toMatch(
      /2,001 operations in 1 transaction/,
    );
    // Read-only: nothing to run.
    expect(await p.locator('[data-testid=sim-run]').count()).toBe(0);
    await shot(p, 'shared-light');
    await p.emulateMedia({ colorScheme: 'dark' });
    await shot(p, 'shared-dark', false);
    await p.emulateMedia({ colorScheme: 'light' });
    // The Share view points to them.
    await show(p, 'share');
    await p.waitForSelector('[data-testid=open-shared-simulation]');

    // Re-run on a synthetic stack: a live simulator again, with the sharer's results alongside.
    await show(p, 'simulator');
    const prev = await loadId(p);
    await p.click('[data-testid=sim-rerun-synthetic]');
    await waitLoad(p, prev);
    await p.waitForSelector('[data-testid=synthetic-banner]');
    await waitRun(p);
    const syn = await shownSeconds(p, '[data-testid=sim-out]');
    expect(syn.map((s) => s.model)).toEqual(REFTABLE_MODELS);
    // The same shape costs about the same (names and ids differ).
    const s49 = parseSeconds(syn[0].text)!.value;
    expect(s49 / want.results[0].seconds!).toBeGreaterThan(0.7);
    expect(s49 / want.results[0].seconds!).toBeLessThan(1.4);
    await p.waitForSelector('[data-testid=sim-sharer]');
    await fresh.close();
  });

  it('a deep link picks and runs its workload', async () => {
    const p = await context.newPage();
    await p.goto(`${url}#/simulator?w=${encodeURIComponent('lookup:missing:500')}&sample=basic-sha1`);
    await waitLoad(p, 0);
    await waitRun(p);
    expect(await p.isChecked('[data-testid=sim-gen-lookup]')).toBe(true);
    expect(await p.inputValue('[data-testid=sim-lookup-which]')).toBe('missing');
    expect(await p.inputValue('[data-testid=sim-lookup-n]')).toBe('500');
    const wantDeep = (() => {
      const files = collectInput(fxDir('basic-sha1'));
      const sim = Simulator.fromAnalysis(analyzeFiles(files));
      return sim.run(sim.parseSpec('lookup:missing:500'), OPTIONS);
    })();
    expectSeconds(await shownSeconds(p, '[data-testid=sim-out]'), wantDeep);
    expect(await p.textContent('[data-testid=sim-workload] strong')).toBe(capital(wantDeep.workload.description));
    expect(wantDeep.workload.description).toMatch(/^500 reads of missing ref names/);
    // A malformed spec in the link: the error says why.
    await p.goto('about:blank');
    await p.goto(`${url}#/simulator?w=${encodeURIComponent('create:many:refs/heads/x/')}&sample=basic-sha1`);
    await waitLoad(p, 0);
    await p.waitForSelector('[data-testid=simulator-view] [data-testid=sim-problem]');
    expect(await p.textContent('[data-testid=sim-problem]')).toMatch(/whole number/);

    // A files-backend input (packed-refs): only the files model applies; the default is creating refs.
    await p.goto('about:blank');
    await p.goto(`${url}#/simulator?sample=gitgit-packed-refs`);
    await waitLoad(p, 0);
    await waitRun(p);
    expect(await p.isChecked('[data-testid=sim-gen-create]')).toBe(true);
    expect(await p.isDisabled('[data-testid="sim-model-git-2.49"]')).toBe(true);
    const rows = await shownSeconds(p, '[data-testid=sim-out]');
    expect(rows.map((r) => r.model)).toEqual(['files']);
    const pf = collectInput(path.join(ROOT, 'public/samples/gitgit-packed-refs'));
    const fsim = Simulator.fromAnalysis(analyzeFiles(pf));
    const wantFiles = fsim.run(fsim.parseSpec('create:1000:refs/heads/sim/'), { ...OPTIONS, models: ['files'] });
    expectSeconds(rows, wantFiles);
    expect(await p.locator('[data-testid=sim-out] [data-testid=sim-series]').count()).toBe(1);
    await shot(p, 'files-light');
    await p.close();
  });

  it('250,000 refs and 12,500 tombstones: no run by itself; Run shows a busy state, the page stays responsive, the engine’s numbers', async () => {
    const dir = bigRecreateStack(250_000, 12_500);
    const p = await context.newPage();
    await p.goto(`${url}#/overview?sample=none`);
    await p.waitForSelector('[data-testid=main][data-status=idle]');
    await p.setInputFiles(
      '[data-testid=open-files-input]',
      fs.readdirSync(dir).map((n) => path.join(dir, n)),
    );
    await waitLoad(p, 0);
    await show(p, 'simulator');
    await p.waitForSelector('[data-testid=simulator-view][data-state=idle]');
    await p.waitForTimeout(300);
    expect(await p.getAttribute('[data-testid=simulator-view]', 'data-state')).toBe('idle');
    expect(await p.isChecked('[data-testid=sim-gen-recreate]')).toBe(true);
    await p.click('[data-testid=sim-run]');
    await p.waitForSelector('[data-testid=sim-busy]', { timeout: 60_000 });
    // While the worker counts, the main thread draws frames and answers clicks.
    // While the worker counts, the main thread draws frames and answers clicks: three frames
    // drawn while the view still says busy (counted, no clock).
    const frames = await p.evaluate(
      () =>
        new Promise<number>((resolve) => {
          let n = 0;
          const f = () => {
            n++;
            if (n >= 3) resolve(n);
            else requestAnimationFrame(f);
          };
          requestAnimationFrame(f);
        }),
    );
    expect(frames).toBe(3);
    expect(await p.getAttribute('[data-testid=simulator-view]', 'data-state')).toBe('busy');
    await p.click('[data-testid=sim-gen-create]');
    expect(await p.isChecked('[data-testid=sim-gen-create]')).toBe(true);
    await p.click('[data-testid=sim-gen-recreate]');
    await waitRun(p);
    const big = engineRun(dir, 'recreate');
    expect(big.workload.operations).toBe(12_501); // the 12,500 and main
    expectSeconds(await shownSeconds(p, '[data-testid=sim-out]'), big);
    console.log(`simulator, 250,000 refs: ${await p.textContent('.sim-run-bar')}`);
    await p.click('[data-testid=sim-mode-fixed]');
    const growth = await p
      .locator('[data-testid=sim-out] [data-testid=sim-series]')
      .evaluateAll((gs) => gs.map((g) => g.getAttribute('data-growth')));
    expect(growth.every((g) => g === 'linear')).toBe(true);
    await shotOf(p, '[data-testid=sim-chart]', 'chart-fixed-stack-light');
    await p.close();
  });

  it('made no request to any other origin and raised no page error', () => {
    expect(watch.requests.length).toBeGreaterThan(0);
    expect(watch.foreign).toEqual([]);
    expect(watch.errors).toEqual([]);
  });
});
