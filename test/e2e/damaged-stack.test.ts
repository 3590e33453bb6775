/**
 * End-to-end: a stack git cannot read (one table of a git-written fixture cut short) dropped on
 * the app. Every view says first that git refuses it, and none offers a compaction, forecast or
 * simulated time as git's: the Compaction view highlights no segment and shows no reasons,
 * measured compaction or replay; the Simulator does not run by itself; the Refs view marks its
 * list as refscope's reading; the Table view says how much of the cut table is there and opens its
 * readable blocks in the block map and hex view (checked against git's dump of the intact table).
 * That git refuses the stack is checked with each real git in test/damaged-cli.test.ts.
 * Production build in headless Chromium (/usr/bin/chromium); skipped without it.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Page } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  FX,
  OUT,
  ROOT,
  dropPaths,
  haveChromium,
  loadId,
  show,
  waitLoad,
  startApp,
  stopApp,
  type AppUnderTest,
  HANG_MS,
} from './helpers.ts';
import { realGits, run } from '../lib/realgit.ts';
import { damagedStack } from '../lib/fixtures.ts';
import { analyzeFiles, buildReport } from '../../src/engine/index.ts';
import { collectInput } from '../../src/cli/node-input.ts';

const DIST = path.join(ROOT, '.tmp/damaged-dist');
const BASE = '/refscope/';
let app: AppUnderTest | undefined;
let page: Page;
let url = '';
let tmp = '';
let stackDir = '';
let cutName = '';
const pageErrors: string[] = [];

describe.skipIf(!haveChromium)('a stack git cannot read, in every view', () => {
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-damaged-'));
    ({ dir: stackDir, cut: cutName } = damagedStack(path.join(tmp, 'damaged')));
    app = await startApp(DIST, BASE, 5400 + (process.pid % 400));
    ({ url } = app);
    const context = await app.browser.newContext({ viewport: { width: 1400, height: 900 } });
    page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${url}#/overview?sample=none`);
    await page.waitForSelector('[data-testid=main]');
    const cdp = await context.newCDPSession(page);
    const prev = await loadId(page);
    await dropPaths(cdp, [stackDir]);
    await waitLoad(page, prev);
    await cdp.detach();
  }, 300_000);

  afterAll(async () => {
    await stopApp(app);
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  // That each real git refuses this stack (for-each-ref lists nothing, update-ref fails "corrupt
  // reftable file") is test/damaged-cli.test.ts's check, on the same damagedStack().
  it('the engine says so in the report: verdict.gitReadable false, the intact tables read', () => {
    const r = buildReport(analyzeFiles(collectInput(stackDir)));
    expect(r.stack!.live).toBeGreaterThan(0);
    expect(r.verdict.gitReadable).toBe(false);
    expect(r.diagnosis).toMatch(/^Git cannot read this stack: /);
  });

  /** The verdict banner is shown and comes before everything else of the view. */
  async function verdictFirst(view: string, root: string): Promise<void> {
    await show(page, view);
    await page.waitForSelector(`${root} [data-testid=git-unreadable]`, { timeout: HANG_MS });
    const first = await page.evaluate(
      (sel) => document.querySelector(sel)?.firstElementChild?.getAttribute('data-testid') ?? null,
      root,
    );
    expect(first).toBe('git-unreadable');
    expect(await page.textContent(`${root} [data-testid=git-unreadable]`)).toMatch(
      /Git cannot read this stack: table 0x0+3-0x0+3-\w+\.ref is damaged/,
    );
  }

  it('Overview: says git cannot read it, first', async () => {
    await verdictFirst('overview', '.overview');
    expect(await page.textContent('[data-testid=diagnosis]')).toMatch(/^Git cannot read this stack/);
  });

  it("Refs: says git lists nothing, first, and marks the list as refscope's reading", async () => {
    await verdictFirst('refs', '.refs-view');
    expect(await page.textContent('.refs-view [data-testid=git-unreadable]')).toMatch(/not git's list/);
  });

  it('Compaction: says so first; no segment, reasons, measured compaction or forecast', async () => {
    await verdictFirst('compaction', '[data-testid=compaction-view]');
    await page.waitForSelector('[data-testid=compaction-view][data-ready=true]', { timeout: HANG_MS });
    expect(await page.getAttribute('[data-testid=compaction-view]', 'data-git-readable')).toBe('false');
    expect(await page.locator('[data-testid=cmp-bar][data-in-segment=true]').count()).toBe(0);
    for (const id of ['segment-summary', 'cmp-reasons', 'after-panel', 'replay']) {
      expect(await page.locator(`[data-testid=${id}]`).count(), id).toBe(0);
    }
  });

  it('Simulator: says so first, and does not run by itself', async () => {
    await verdictFirst('simulator', '[data-testid=simulator-view]');
    expect(await page.getAttribute('[data-testid=simulator-view]', 'data-git-readable')).toBe('false');
    // The auto-run of a small stack happens on the first render; give it a moment to start.
    await page.waitForTimeout(1000);
    expect(await page.getAttribute('[data-testid=simulator-view]', 'data-state')).toBe('idle');
  });

  it('Table view: the truncated table says "truncated: N of M bytes" and its readable blocks open in the block map and hex view', async () => {
    const full = path.join(FX, 'nocompact-s3', 'reftable', cutName);
    const M = fs.statSync(full).size;
    await page.evaluate(() => {
      location.hash = '#/table?t=1';
    });
    await page.waitForSelector('.table-detail [data-testid=error]', { timeout: HANG_MS });
    const err = await page.locator('.table-detail [data-testid=error]').textContent({ timeout: HANG_MS });
    // The file was cut 30 bytes short, inside its footer: the size it had is known.
    expect(err).toContain(`truncated: ${(M - 30).toLocaleString('en-US')} of ${M.toLocaleString('en-US')} bytes`);
    expect(err).toMatch(/Git cannot read this table/);
    expect(err).toMatch(/refscope's reading, not git's/);
    // git's own block dump of the intact table (recorded with the fixture): one ref block, and
    // the cut is inside the footer, so every block reads.
    const truth = fs.readFileSync(path.join(FX, 'nocompact-s3', 'truth', 'blocks', cutName + '.txt'), 'utf8');
    const gitBlocks = (truth.match(/^\s+- length:/gm) ?? []).length;
    expect(await page.locator('[data-testid=block-cell]').count()).toBe(gitBlocks);
    await page.locator('[data-testid=block-cell]').first().click();
    await page.waitForSelector('[data-testid=hex-view]', { timeout: HANG_MS });
    expect(await page.locator('[data-testid=block-refscope-reading]').count()).toBe(1);
    const keys = await page.locator('[data-testid=record-row] .key').allTextContents();
    const g247 = realGits().find((x) => x.version.startsWith('2.47'));
    if (g247) {
      // git's records of the intact table (2.47.3's dump: 2.55's crashes on a lone table)
      const dump = run(g247.testTool, ['dump-reftable', '-t', full], { cwd: tmp, env: process.env }).stdout;
      expect(keys).toEqual([...dump.matchAll(/^ref\{(.*?)\(\d+\)/gm)].map((m) => m[1]));
    } else expect(keys.length).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(OUT, 'damaged-table-view.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  });

  it('Refs view: a prefix filter shows the records, tombstones and live refs under it', async () => {
    const g247 = realGits().find((x) => x.version.startsWith('2.47'));
    await page.evaluate(() => {
      location.hash = '#/refs?q=refs%2Ftags%2F&m=prefix';
    });
    const stats = page.locator('[data-testid=refs-prefix-stats]');
    await stats.waitFor({ timeout: HANG_MS });
    await page.screenshot({ path: path.join(OUT, 'damaged-refs-prefix.png') });
    const [records, tombstones, live] = await Promise.all(
      ['data-records', 'data-tombstones', 'data-live'].map(async (a) => Number(await stats.getAttribute(a))),
    );
    expect(await page.getAttribute('[data-testid=refs-count]', 'data-value')).toBe(String(live));
    if (!g247) return;
    // git's records of every readable table (2.47.3's dump of each lone table), under refs/tags/
    let gitRecords = 0,
      gitTombstones = 0;
    for (const t of fs.readFileSync(path.join(stackDir, 'tables.list'), 'utf8').trim().split('\n')) {
      if (t === cutName) continue;
      const dump = run(g247.testTool, ['dump-reftable', '-t', path.join(stackDir, t)], { cwd: tmp, env: process.env });
      for (const l of dump.stdout.split('\n'))
        if (l.startsWith('ref{refs/tags/')) {
          gitRecords++;
          if (l.endsWith(' delete}')) gitTombstones++;
        }
    }
    expect([records, tombstones]).toEqual([gitRecords, gitTombstones]);
    expect(gitRecords).toBeGreaterThan(0);
  });

  it('Stack, Table and Share views render without a page error', async () => {
    for (const v of ['stack', 'table', 'share']) {
      await show(page, v);
      await page.waitForSelector(`[data-testid=tab-${v}][aria-selected=true]`);
    }
    expect(pageErrors).toEqual([]);
  });
});
