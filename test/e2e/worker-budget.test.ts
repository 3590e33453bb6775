/**
 * End-to-end: a worker over its budget is terminated and replaced, and the page says so. The
 * budget (90 s in use) is lowered through the page's own setting (`refscope.workerBudgetMs` in
 * localStorage, src/app/engine.ts) to 1 ms, so loading the 50,000-tombstone stack (1.7 MB, some
 * 50,000 records to decode) cannot answer within it; the page must then say what happened, show
 * no report, keep answering, and — with the budget back — load the same stack in a fresh worker
 * with the figures the CLI computes. What is asserted is what the page shows, never a duration.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import path from 'node:path';
import {
  FX,
  ROOT,
  cliReport,
  dropPaths,
  expected,
  haveChromium,
  loadId,
  shown,
  waitLoad,
  startApp,
  stopApp,
  type AppUnderTest,
} from './helpers.ts';
import { collectInput } from '../../src/cli/node-input.ts';

const DIST = path.join(ROOT, '.tmp/e2e-budget-dist');
const STACK = path.join(FX, 'tombstones-50k/reftable');

let app: AppUnderTest | undefined;
let context: BrowserContext;
let page: Page;
let cdp: CDPSession;
let url = '';
const pageErrors: string[] = [];

describe.skipIf(!haveChromium)('a worker over its budget', () => {
  beforeAll(async () => {
    app = await startApp(DIST, '/', 4990 + (process.pid % 9));
    ({ url } = app);
    context = await app.browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    cdp = await context.newCDPSession(page);
  }, 240_000);

  afterAll(async () => {
    await stopApp(app);
  });

  it('is terminated and replaced, the page says so, and the next load works', async () => {
    // Start with no sample, so the only load is the one that exceeds the budget.
    await page.goto(`${url}#/overview?sample=none`);
    await page.waitForSelector('[data-testid=main]');
    const want = expected(cliReport(collectInput(STACK)));

    await page.evaluate(() => localStorage.setItem('refscope.workerBudgetMs', '1'));
    await dropPaths(cdp, [STACK]);
    const banner = page.locator('[data-testid=app-error]');
    await banner.waitFor({ timeout: 60_000 });
    expect(await banner.textContent()).toMatch(
      /^The engine worker gave no answer to “load” within 1 ms: it was stopped and a fresh one started\./,
    );
    // No report from the worker that was stopped, and the tab still answers.
    expect(await page.getAttribute('[data-testid=main]', 'data-status')).toBe('idle');
    expect(await page.locator('[data-testid=live-refs]').count()).toBe(0);
    expect(await page.evaluate(() => 'answered')).toBe('answered');

    // The budget back: the same stack loads in a fresh worker, with the CLI's figures.
    await page.evaluate(() => localStorage.removeItem('refscope.workerBudgetMs'));
    const prev = await loadId(page);
    await dropPaths(cdp, [STACK]);
    await waitLoad(page, prev);
    expect(await shown(page)).toEqual(want);
    expect(await banner.count()).toBe(0);
    expect(pageErrors).toEqual([]);
  }, 180_000);
});
