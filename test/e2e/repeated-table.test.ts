/**
 * End-to-end: one table named on 300 lines of tables.list (git's `smallblocks` fixture, 953
 * blocks) dropped on the app, then opened from its share link. Every position is listed in
 * tables.list order; a repeated one says which position it is the same file as, and no view
 * fails or blanks (the report lists the file's blocks once). Production build in headless
 * Chromium; skipped without it.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import {
  FX,
  ROOT,
  buildInto,
  dropPaths,
  haveChromium,
  launchBrowser,
  loadId,
  serveBuild,
  show,
  waitLoad,
} from './helpers.ts';
import { EngineSession } from '../../src/engine/session/index.ts';
import { memorySource } from '../../src/engine/basics.ts';

const DIST = path.join(ROOT, '.tmp/e2e-repeated-dist');
const NAME = '0x000000000001-0x000000000003-64b5d19d.ref';
const LINES = 300;
let browser: Browser;
let context: BrowserContext;
let server: Server;
let url = '';
let tmp = '';
let stackDir = '';

async function viewsHold(page: Page, errors: string[]): Promise<void> {
  for (const view of ['overview', 'stack', 'table', 'compaction']) {
    await show(page, view);
    await page.waitForSelector('[data-testid=main][data-status=ready]');
    expect(await page.locator('[data-testid=view-error]').count(), view).toBe(0);
  }
  expect(await page.evaluate(() => 'answered')).toBe('answered');
  expect(errors).toEqual([]);
}

async function copyNotes(page: Page): Promise<string[]> {
  await show(page, 'overview');
  await page.waitForSelector('[data-testid=table-row]');
  return page.locator('[data-testid=copy-of]').allTextContents();
}

describe.skipIf(!haveChromium)('a table repeated on 300 lines of tables.list', () => {
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-repeated-'));
    stackDir = path.join(tmp, 'reftable');
    fs.mkdirSync(stackDir);
    fs.copyFileSync(path.join(FX, 'smallblocks', 'reftable', NAME), path.join(stackDir, NAME));
    fs.writeFileSync(path.join(stackDir, 'tables.list'), `${NAME}\n`.repeat(LINES));
    await buildInto(DIST);
    ({ server, url } = await serveBuild(DIST, '/', 5800 + (process.pid % 100)));
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    server?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('dropped: every position listed, the copies say which position they repeat, every view holds', async () => {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${url}#/overview?sample=none`);
    await page.waitForSelector('[data-testid=main]');
    const cdp = await context.newCDPSession(page);
    const prev = await loadId(page);
    await dropPaths(cdp, [stackDir]);
    await waitLoad(page, prev);
    await cdp.detach();
    expect(await page.locator('[data-testid=table-row]').count()).toBe(LINES);
    const notes = await copyNotes(page);
    expect(notes.length).toBe(LINES - 1);
    expect(notes.every((t) => t.includes('same file as position 0'))).toBe(true);
    await viewsHold(page, errors);
    await page.close();
  }, 300_000);

  it('opened from its share link: the same positions and copies, every view holds', async () => {
    const list = new TextEncoder().encode(`${NAME}\n`.repeat(LINES));
    const s = new EngineSession();
    s.load([
      { path: 'reftable/tables.list', source: memorySource(list) },
      { path: `reftable/${NAME}`, source: memorySource(new Uint8Array(fs.readFileSync(path.join(stackDir, NAME)))) },
    ]);
    const sh = s.share({ withNames: false, base: url })!;
    expect(sh.ok).toBe(true);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(sh.link);
    await page.waitForSelector('[data-testid=shared-banner]', { timeout: 90_000 });
    await page.waitForSelector('[data-testid=main][data-status=ready]', { timeout: 90_000 });
    expect(await page.locator('[data-testid=table-row]').count()).toBe(LINES);
    const notes = await copyNotes(page);
    expect(notes.length).toBe(LINES - 1);
    await viewsHold(page, errors);
    await page.close();
  }, 300_000);
});
