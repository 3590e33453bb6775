/**
 * End-to-end: "measure with your git" and "which git is mine" in the Simulator view (the production
 * build in headless Chromium, playwright-core driving Debian's /usr/bin/chromium), with a real git.
 *
 * - A reftable repository written by the newest built git (refs at distinct commits, most of them
 *   deleted in one transaction: tombstones) is opened in the page. The page's "Save the measure
 *   script" button downloads the script; the test runs it with that git against the repository
 *   and reads the measure file it wrote.
 * - That file, opened with the file input and dropped (a real drag and drop through the DevTools
 *   protocol) on the drop zone, shows predicted against measured: every measured figure equals the
 *   one the test computes from the file's own runs (CPU seconds user + sys, trace2 phases from the
 *   events' times, region times summed from `region_leave`), every predicted one equals the
 *   engine's estimate for the same workload and git, and the machine's factor is measured ÷
 *   predicted (geometric mean of before and after pack-refs). "Use it" makes the next estimates
 *   the engine's scaled ones, and it is remembered across a reload.
 * - The git-version field: `git version 2.55.0` → git-2.55, and the fix panel compares against it;
 *   `git version 2.55.GIT` → the development-build explanation; the line survives a reload.
 * - The parts breakdown ("ref store 45 %, objects 40 %, …") shows the engine's shares for the same
 *   workload, and every fix's gain is the one on the whole run (baseline total ÷ total with the fix).
 * Skipped without Chromium or without the built gits (one line saying why).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeFiles } from '../../src/engine/index.ts';
import { collectInput } from '../../src/cli/node-input.ts';
import { Simulator, type SimulationResult } from '../../src/engine/simulate/index.ts';
import { parseSeconds } from '../../src/app/simulator/simformat.ts';
import { MEASURED_UP_TO } from '../../src/engine/simulate/curve.ts';
import { realGits, gitSkipReason, gitRepo, type GitRepo } from '../lib/realgit.ts';
import {
  CHROMIUM,
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
  HANG_MS,
} from './helpers.ts';

const DIST = path.join(ROOT, '.tmp/simulator-measure-dist');
const BASE = '/refscope/measure/';
const skip = !haveChromium ? `no Chromium at ${CHROMIUM}` : gitSkipReason;

let app: AppUnderTest | undefined;
let context: BrowserContext;
let page: Page;
let url = '';
let origin = '';
const watch = newWatch();

const median = (xs: number[]): number => {
  const a = [...xs].sort((x, y) => x - y);
  const k = a.length >> 1;
  return a.length % 2 ? a[k] : (a[k - 1] + a[k]) / 2;
};
/** An RFC 3339 trace2 time (microseconds) as seconds, by hand. */
const secondsOf = (s: string): number => {
  const m = /^(\d{4}-\d\d-\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{6})Z$/.exec(s)!;
  return Date.parse(`${m[1]}T00:00:00Z`) / 1000 + +m[2] * 3600 + +m[3] * 60 + +m[4] + +m[5] / 1e6;
};

interface TraceEvent {
  event: string;
  sid?: string;
  time?: string;
  t_abs?: number;
  t_rel?: number;
  category?: string;
  label?: string;
}
interface Run {
  phase: string;
  user: number;
  sys: number;
  exitCode: number;
  trace: TraceEvent[];
}

/** What the comparison must show for one phase, from the file's runs (not from refscope's code). */
function expectedRows(runs: Run[]): Map<string, number> {
  const out = new Map<string, number>();
  out.set('total (CPU)', median(runs.map((r) => r.user + r.sys)));
  out.set('of which user (CPU)', median(runs.map((r) => r.user)));
  out.set('of which sys (CPU: kernel, file system)', median(runs.map((r) => r.sys)));
  const top = (r: Run) => {
    const root = r.trace.find((e) => e.event === 'start')!.sid;
    return r.trace.filter((e) => e.sid === root);
  };
  const ev = (r: Run, name: string) => top(r).find((e) => e.event === name)!;
  out.set(
    'process start (trace: start to cmd_name)',
    median(
      runs.map((r) => ev(r, 'start').t_abs! + secondsOf(ev(r, 'cmd_name').time!) - secondsOf(ev(r, 'start').time!)),
    ),
  );
  out.set(
    'command (trace: cmd_name to exit)',
    median(runs.map((r) => secondsOf(ev(r, 'exit').time!) - secondsOf(ev(r, 'cmd_name').time!))),
  );
  out.set('total (trace: exit t_abs)', median(runs.map((r) => ev(r, 'exit').t_abs!)));
  const regions = new Set(
    runs.flatMap((r) => r.trace.filter((e) => e.event === 'region_leave').map((e) => `${e.category}/${e.label}`)),
  );
  for (const k of regions)
    out.set(
      `region ${k}`,
      median(
        runs.map((r) =>
          r.trace
            .filter((e) => e.event === 'region_leave' && `${e.category}/${e.label}` === k)
            .reduce((s, e) => s + e.t_rel!, 0),
        ),
      ),
    );
  return out;
}

/** The rows the page shows for one phase: what, measured, predicted (exact values from data-*). */
async function shownRows(p: Page, phase: 'before' | 'after') {
  return p.locator(`[data-testid=sim-measure-${phase}] tbody tr`).evaluateAll((rows) =>
    rows.map((r) => ({
      what: r.getAttribute('data-what') ?? '',
      measured: r.getAttribute('data-measured') ?? '',
      predicted: r.getAttribute('data-predicted') ?? '',
      text: r.textContent ?? '',
    })),
  );
}

async function shownSeconds(p: Page): Promise<Map<string, string>> {
  const rows = await p
    .locator('[data-testid=sim-out] [data-testid=sim-row]')
    .evaluateAll((rs) =>
      rs.map((r) => [
        r.getAttribute('data-model') ?? '',
        r.querySelector('[data-testid=sim-seconds]')?.textContent ?? '',
      ]),
    );
  return new Map(rows as [string, string][]);
}

/** The shown seconds of every model equal the engine's within display rounding. */
function expectSeconds(shown: Map<string, string>, want: SimulationResult): void {
  const ok = want.results.filter((m) => m.applicable);
  expect([...shown.keys()]).toEqual(ok.map((m) => m.model));
  for (const m of ok) {
    const parsed = parseSeconds(shown.get(m.model)!);
    expect(parsed, `${m.model}: "${shown.get(m.model)}"`).not.toBeNull();
    expect(
      Math.abs(parsed!.value - m.seconds!),
      `${m.model}: ${shown.get(m.model)} vs ${m.seconds}`,
    ).toBeLessThanOrEqual(parsed!.tolerance * (1 + 1e-9));
  }
}

/** A real drag and drop of one file onto the element (DevTools protocol, at the element's centre). */
async function dropOn(p: Page, selector: string, file: string): Promise<void> {
  const box = (await p.locator(selector).boundingBox())!;
  const cdp = await context.newCDPSession(p);
  const data = { items: [], files: [file], dragOperationsMask: 1 };
  const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  for (const type of ['dragEnter', 'dragOver', 'drop'] as const)
    await cdp.send('Input.dispatchDragEvent', { type, ...at, data });
  await cdp.detach();
}

describe.skipIf(!!skip)(
  `measure with your git in the app (headless Chromium)${skip ? `: skipped, ${skip}` : ''}`,
  () => {
    const gits = skip ? [] : realGits();
    const g = gits[gits.length - 1];
    let repo: GitRepo;
    let tmp: string;
    let rtDir: string;
    let measureFile = '';
    let measure: {
      runs: Run[];
      git: string;
      prediction: { model: string; before: { seconds: number }; after: { seconds: number } };
    };
    /** The engine on the same stack, with the options the page uses. */
    const engine = (extra: { gitVersion?: string; machineFactor?: number }): SimulationResult => {
      const sim = Simulator.fromAnalysis(analyzeFiles(collectInput(rtDir)));
      return sim.run(sim.parseSpec('recreate'), {
        models: ['git-2.49', 'git-2.55', 'git-2.56', 'initial'],
        warnAmbiguousRefs: true,
        autoCompaction: true,
        factor: 2,
        ...extra,
      });
    };

    beforeAll(async () => {
      fs.mkdirSync(OUT, { recursive: true });
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-e2e-measure-'));
      repo = gitRepo(g, { format: 'reftable' });
      // 60 commits, 50 refs at distinct ones, 40 of them deleted in one transaction.
      const tree = repo.git(['mktree'], '').trim();
      const ids: string[] = [];
      let parent = '';
      for (let i = 0; i < 60; i++) {
        parent = repo.git(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', `c${i}`]).trim();
        ids.push(parent);
      }
      repo.git(['update-ref', 'refs/heads/main', parent]);
      const lines = (verb: string, k: number) =>
        ids
          .slice(0, k)
          .map((id, i) => `${verb} refs/heads/topic-${i} ${id}\n`)
          .join('');
      repo.git(['update-ref', '--stdin'], lines('create', 50));
      repo.git(['update-ref', '--stdin'], lines('delete', 40));
      rtDir = path.join(repo.gitDir, 'reftable');

      app = await startApp(DIST, BASE, 5800 + (process.pid % 200));
      ({ url, origin } = app);
      context = await watchedContext(app.browser, origin, watch, {
        viewport: { width: 1400, height: 1000 },
        acceptDownloads: true,
      });
      page = await context.newPage();
    }, 300_000);

    afterAll(async () => {
      await stopApp(app);
      repo?.dispose();
      if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    });

    async function openRepo(): Promise<void> {
      // A new page load each time (a goto that changes only the fragment would not reload).
      await page.goto(`${url}#/overview?sample=none`);
      await page.reload();
      await page.waitForSelector('[data-testid=main][data-status=idle]', { timeout: HANG_MS });
      const prev = await loadId(page);
      await page.setInputFiles(
        '[data-testid=open-files-input]',
        fs.readdirSync(rtDir).map((n) => path.join(rtDir, n)),
      );
      await waitLoad(page, prev);
      await show(page, 'simulator');
    }

    it('the git-version field: 2.55.0 → git-2.55 and the fixes compare against it; 2.55.GIT explained; remembered', async () => {
      await openRepo();
      const run = await waitRun(page);
      const field = page.locator('[data-testid=sim-git-version]');
      const model = page.locator('[data-testid=sim-git-version-model]');
      await field.fill('git version 2.55.0');
      await page
        .locator('[data-testid=sim-git-version-model]', { hasText: /^git-2\.55: / })
        .waitFor({ timeout: HANG_MS });
      await page.click('[data-testid=sim-run]');
      await waitRun(page, run);
      // The fix panel's baseline is the user's git, not git ≤ 2.49.
      const want = engine({ gitVersion: 'git version 2.55.0' });
      expect(new Set(want.fixes.map((f) => f.model))).toEqual(new Set(['git-2.55']));
      expect(await page.locator('.sim-fix-base').textContent({ timeout: HANG_MS })).toMatch(/\(git-2\.55, /);
      expect(await page.locator('[data-testid=sim-git-version-note]').textContent({ timeout: HANG_MS })).toMatch(
        /git version 2\.55\.0 → git-2\.55\./,
      );
      await field.fill('git version 2.55.GIT');
      await model.filter({ hasText: /^git-2\.55 \(or git-2\.56\): / }).waitFor({ timeout: HANG_MS });
      expect(await model.textContent()).toMatch(
        /if your build contains the July 2026 fix 'reftable: fix quadratic behavior in the presence of tombstones', choose git-2\.56/,
      );
      await field.fill('hub version 2.14');
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      expect(await model.textContent()).toMatch(/expected a line like "git version 2\.55\.0"/);
      // Remembered in this browser across a reload.
      await field.fill('git version 2.55.GIT');
      await openRepo();
      await waitRun(page);
      expect(await page.locator('[data-testid=sim-git-version]').inputValue()).toBe('git version 2.55.GIT');
      expect(await model.textContent({ timeout: HANG_MS })).toMatch(/choose git-2\.56/);
    });

    it('the parts breakdown is the engine’s for the same workload; every fix’s gain is on the total', async () => {
      const field = page.locator('[data-testid=sim-git-version]');
      await field.fill('git version 2.55.0');
      const prev = Number(await page.getAttribute('[data-testid=simulator-view]', 'data-run-id'));
      await page.click('[data-testid=sim-run]');
      await waitRun(page, prev);
      const want = engine({ gitVersion: 'git version 2.55.0' });
      expectSeconds(await shownSeconds(page), want);
      const rows = await page.locator('[data-testid=sim-parts-row]').evaluateAll((rs) =>
        rs.map((r) => ({
          model: r.getAttribute('data-model') ?? '',
          parts: [...r.querySelectorAll('[data-part]')].map((s) => ({
            part: s.getAttribute('data-part') ?? '',
            share: Number(s.getAttribute('data-share')),
            text: s.textContent ?? '',
          })),
        })),
      );
      const ok = want.results.filter((m) => m.applicable && m.parts?.length);
      expect(rows.map((r) => r.model)).toEqual(ok.map((m) => m.model));
      for (const m of ok) {
        const row = rows.find((r) => r.model === m.model)!;
        // The shares are the parts' seconds over the model's total, by hand from the engine's seconds.
        const sum = m.parts!.reduce((s, p) => s + p.seconds, 0);
        expect(sum).toBeCloseTo(m.seconds!, 9);
        const shown = m.parts!.filter((p) => p.seconds / m.seconds! >= 0.005);
        expect(row.parts.map((p) => p.part)).toEqual(shown.map((p) => p.part));
        for (const p of shown) {
          const r = row.parts.find((x) => x.part === p.part)!;
          expect(r.share).toBeCloseTo(p.seconds / m.seconds!, 9);
          expect(r.text).toMatch(new RegExp(`\\b${Math.round((100 * p.seconds) / m.seconds!)} %`));
        }
        expect(m.parts!.some((p) => p.part === 'refStore')).toBe(true);
        expect(m.parts!.some((p) => p.part !== 'refStore')).toBe(true);
      }
      expect(await page.locator('[data-testid=sim-outside-note]').textContent({ timeout: HANG_MS })).toMatch(
        /estimate/,
      );
      // Fix gains: on the whole run (baseline total ÷ total with the fix), the baseline being the
      // total of the user's model; a ref-store-only gain is never the one shown.
      const base = want.results.find((m) => m.model === 'git-2.55')!;
      const fixes = await page
        .locator('[data-testid=sim-fix]')
        .evaluateAll((els) =>
          els.map((e) => ({ fix: e.getAttribute('data-fix'), speedup: e.getAttribute('data-speedup') })),
        );
      expect(fixes.map((f) => f.fix)).toEqual(want.fixes.map((f) => f.fix));
      for (const f of want.fixes) {
        const shown = fixes.find((x) => x.fix === f.fix)!;
        if (f.seconds === null) {
          expect(shown.speedup).toBe('');
          continue;
        }
        expect(f.baselineSeconds).toBeCloseTo(base.seconds!, 12);
        expect(Number(shown.speedup)).toBeCloseTo(base.seconds! / f.seconds, 9);
      }
      // The chart says where the recorded real-git runs end (test/simulate-realgit.test.ts ties
      // MEASURED_UP_TO to the recorded file) and shades what lies beyond as extrapolated.
      const note = await page.locator('[data-testid=sim-extrapolated]').textContent({ timeout: HANG_MS });
      for (const m of ['git-2.49', 'git-2.55', 'git-2.56'] as const)
        expect(note).toContain(`n = ${MEASURED_UP_TO[m].toLocaleString('en-US')} for ${m}`);
      expect(note).toMatch(/extrapolation of the model, not a measurement/);
      expect(await page.locator('[data-testid=sim-chart] .sim-extrapolated').count()).toBe(1);
      const pack = want.fixes.find((f) => f.fix === 'pack-refs')!;
      expect(pack.refStoreSpeedup!).toBeGreaterThan(pack.speedup!);
      await page.locator('[data-testid=sim-parts]').screenshot({ path: path.join(OUT, 'simulator-parts.png') });
    });

    it("the page's measure script, run with the real git, writes a file; dropped and opened it shows the trace's figures", async () => {
      const field = page.locator('[data-testid=sim-git-version]');
      await field.fill(g.versionLine);
      const [download] = await Promise.all([
        page.waitForEvent('download', { timeout: HANG_MS }),
        page.click('[data-testid=sim-measure-script]'),
      ]);
      expect(download.suggestedFilename()).toBe('refscope-measure.sh');
      const script = path.join(tmp, 'refscope-measure.sh');
      await download.saveAs(script);
      expect(fs.readFileSync(script, 'utf8').split('\n').slice(0, 20).join('\n')).toMatch(/Nothing is uploaded/);
      measureFile = path.join(tmp, 'refscope-measure.json');
      const r = spawnSync('bash', [script, repo.dir, measureFile], {
        cwd: tmp,
        env: { ...repo.env, GIT: g.git },
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(r.status, r.stderr).toBe(0);
      measure = JSON.parse(fs.readFileSync(measureFile, 'utf8'));
      expect(measure.git).toBe(g.versionLine);
      expect(measure.runs.every((x) => x.exitCode === 0)).toBe(true);
      // The prediction the page put in the script is the engine's for this workload and git.
      const want = engine({ gitVersion: g.versionLine });
      const mine = want.results.find((m) => m.model === measure.prediction.model)!;
      expect(measure.prediction.model).toBe(want.gitVersion!.model);
      expect(measure.prediction.before.seconds).toBeCloseTo(mine.seconds!, 12);

      const check = async () => {
        await page.waitForSelector('[data-testid=sim-measure-result]', { timeout: HANG_MS });
        for (const phase of ['before', 'after'] as const) {
          const runs = measure.runs.filter((x) => x.phase === phase);
          const exp = expectedRows(runs);
          const rows = await shownRows(page, phase);
          for (const [what, v] of exp) {
            const row = rows.find((x) => x.what === what);
            expect(row, `${phase}: ${what} shown`).toBeDefined();
            expect(Number(row!.measured), `${phase}: ${what}`).toBeCloseTo(v, 5);
          }
          const total = rows.find((x) => x.what === 'total (CPU)')!;
          const p = phase === 'before' ? measure.prediction.before : measure.prediction.after;
          expect(Number(total.predicted)).toBeCloseTo(p.seconds, 12);
          expect(total.text).toMatch(/CPU/);
        }
        const cpu = (ph: string) => median(measure.runs.filter((x) => x.phase === ph).map((x) => x.user + x.sys));
        const after = measure.prediction.after.seconds;
        const factor = Math.sqrt((cpu('before') / measure.prediction.before.seconds) * (cpu('after') / after));
        expect(await page.locator('[data-testid=sim-measure-factor]').textContent({ timeout: HANG_MS })).toBe(
          `×${factor.toPrecision(3)}`,
        );
        return factor;
      };
      // Opened with the file input.
      await page.setInputFiles('[data-testid=sim-measure-file]', measureFile);
      const factor = await check();
      // Dropped on the zone: read as a measure file, not opened as a new input.
      const loads = await loadId(page);
      // A broken file first: its error replaces the result, so the good drop must bring it back.
      const broken = path.join(tmp, 'broken.json');
      fs.writeFileSync(broken, '{"schema": ');
      await dropOn(page, '[data-testid=sim-measure-drop]', broken);
      await page
        .locator('[data-testid=sim-measure-file-error]', { hasText: /broken\.json: offset \d+: expected/ })
        .waitFor({ timeout: HANG_MS });
      expect(await page.locator('[data-testid=sim-measure-result]').count()).toBe(0);
      const dropped = path.join(tmp, 'dropped-measure.json');
      fs.copyFileSync(measureFile, dropped);
      await dropOn(page, '[data-testid=sim-measure-drop]', dropped);
      await check();
      expect(await loadId(page)).toBe(loads);
      expect(await page.locator('[data-testid=simulator-view]').count()).toBe(1);

      // "Use it": the next estimates are the engine's with that factor, about factor × the unscaled.
      const prev = Number(await page.getAttribute('[data-testid=simulator-view]', 'data-run-id'));
      await page.click('[data-testid=sim-measure-use]');
      const used = Number(factor.toPrecision(3));
      expect(await page.locator('[data-testid=sim-machine-factor]').textContent({ timeout: HANG_MS })).toMatch(
        new RegExp(`×${used.toPrecision(3).replace('.', '\\.')}`),
      );
      await page.click('[data-testid=sim-run]');
      await waitRun(page, prev);
      const scaled = engine({ gitVersion: g.versionLine, machineFactor: used });
      const unscaled = engine({ gitVersion: g.versionLine });
      const after = await shownSeconds(page);
      expectSeconds(after, scaled);
      for (const m of unscaled.results.filter((x) => x.applicable)) {
        const s = scaled.results.find((x) => x.model === m.model)!;
        expect(s.seconds! / m.seconds!).toBeCloseTo(used, 6);
      }
      await page.locator('[data-testid=sim-measure]').screenshot({ path: path.join(OUT, 'simulator-measure.png') });
      // Remembered across a reload.
      await openRepo();
      await waitRun(page);
      expect(await page.locator('[data-testid=sim-machine-factor]').textContent({ timeout: HANG_MS })).toMatch(
        new RegExp(`×${used.toPrecision(3).replace('.', '\\.')}`),
      );
      expectSeconds(await shownSeconds(page), scaled);
    });

    it('no request left the origin and no page error', () => {
      expect(watch.foreign).toEqual([]);
      expect(watch.errors).toEqual([]);
    });
  },
);
