/**
 * End-to-end: the conventions of inspectors, in the production build in headless Chromium.
 *
 * - `?` opens the help overlay with every shortcut; Escape closes it and focus goes back.
 * - Ctrl+K opens the command palette; keyboard alone jumps to a view, a table, a block and a ref
 *   (names from the fixtures' truth, written by git); Escape closes it and focus goes back.
 * - Copy buttons put the object id git lists (truth/refs.txt) on the clipboard; the selected ref
 *   is in the URL (`#/refs?ref=<name>`) and a link with it selects the ref.
 * - Editing `sample=` in the address bar loads that sample; a table selected at the end of the
 *   list is scrolled into view; the "ready to work offline" notice goes away by itself.
 * Screenshots go to test-results/conventions-*.png. Skipped without Chromium.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import type { Server } from 'node:http';
import { FX, OUT, ROOT, buildInto, haveChromium, launchBrowser, loadId, serveBuild, waitLoad } from './helpers.ts';

const DIST = path.join(ROOT, '.tmp/conventions-dist');

let browser: Browser;
let context: BrowserContext;
let page: Page;
let server: Server;
let url = '';
let origin = '';
const pageErrors: string[] = [];

/** "<oid> <name>" lines of a fixture's truth/refs.txt (git for-each-ref). */
function truthRefs(fx: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const l of fs
    .readFileSync(path.join(FX, fx, 'truth/refs.txt'), 'utf8')
    .split('\n')
    .filter(Boolean))
    m.set(l.slice(l.indexOf(' ') + 1), l.slice(0, l.indexOf(' ')));
  return m;
}
const tablesList = (fx: string) =>
  fs
    .readFileSync(path.join(FX, fx, 'reftable/tables.list'), 'utf8')
    .split('\n')
    .filter(Boolean);

async function shot(p: Page, name: string): Promise<void> {
  await p.waitForTimeout(150);
  await p.screenshot({ path: path.join(OUT, `conventions-${name}.png`) });
}

async function openAt(p: Page, hash: string): Promise<void> {
  await p.goto('about:blank');
  await p.goto(`${url}${hash}`);
  await waitLoad(p, 0);
}

const hash = (p: Page) => decodeURIComponent(new URL(p.url()).hash);
const focused = (p: Page) => p.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? '');

describe.skipIf(!haveChromium)('conventions of inspectors (headless Chromium)', () => {
  beforeAll(async () => {
    fs.mkdirSync(OUT, { recursive: true });
    await buildInto(DIST);
    ({ server, url, origin } = await serveBuild(DIST, '/', 5400 + (process.pid % 400)));
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    server?.close();
    expect(pageErrors).toEqual([]);
  });

  it('no view chunk is fetched before the first analysis shows; then all are, and all are precached', async () => {
    // Every view but the Overview is its own chunk (App.tsx), fetched once the first analysis is
    // on screen so that the first paint is not delayed by code of views not shown; after that
    // they are all fetched without a tab being opened, so a tab opened later draws at once.
    // Times are read in the page: the moment `main` first says "ready" (a MutationObserver, at
    // the DOM change) against each chunk's fetch start (Resource Timing). The test's own request
    // events arrive later than the page makes them and would race the idle-time fetch.
    const views = ['Stack', 'Table', 'Refs', 'Watch', 'Compare', 'Share', 'Fleet', 'Compaction', 'Simulator'];
    const chunkRe = `/assets/(${views.join('|')})View-[^/]*\\.js$`;
    const fresh = await context.browser()!.newContext({ viewport: { width: 1280, height: 800 } });
    const p = await fresh.newPage();
    await p.addInitScript(() => {
      const w = window as unknown as { __readyAt?: number };
      new MutationObserver(() => {
        if (w.__readyAt === undefined && document.querySelector('[data-testid=main][data-status=ready]'))
          w.__readyAt = performance.now();
      }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
    });
    await p.goto(`${url}#/overview?sample=basic-sha1`);
    await waitLoad(p, 0);
    const chunks = () =>
      p.evaluate(
        (re) =>
          performance
            .getEntriesByType('resource')
            .filter((e) => new RegExp(re).test(new URL(e.name).pathname))
            .map((e) => ({ name: new URL(e.name).pathname, start: e.startTime })),
        chunkRe,
      );
    // All nine come without a click (Resource Timing lists a fetch once it has finished).
    await p.waitForFunction(
      ({ re, n }) =>
        new Set(
          performance
            .getEntriesByType('resource')
            .map((e) => new URL(e.name).pathname.match(new RegExp(re))?.[1])
            .filter(Boolean),
        ).size === n,
      { re: chunkRe, n: views.length },
      { timeout: 15_000 },
    );
    const readyAt = await p.evaluate(() => (window as unknown as { __readyAt?: number }).__readyAt);
    expect(readyAt).toBeGreaterThan(0);
    const got = await chunks();
    expect(new Set(got.map((c) => c.name.match(/\/assets\/(\w+)View-/)![1]))).toEqual(new Set(views));
    for (const c of got) expect(c.start, c.name).toBeGreaterThan(readyAt!);
    // A view opened now draws from the chunk already in.
    await p.click('[data-testid=tab-compaction]');
    await p.waitForSelector('[data-testid=compaction-view]', { timeout: 15_000 });
    await fresh.close();
    // The service worker's precache list names every view chunk (offline, they come from the cache).
    const sw = fs.readFileSync(path.join(DIST, 'sw.js'), 'utf8');
    const files = fs
      .readdirSync(path.join(DIST, 'assets'))
      .filter((f) => new RegExp(`^(${views.join('|')})View-.*\\.js$`).test(f));
    expect(files.length).toBe(views.length);
    for (const f of files) expect(sw, f).toContain(`assets/${f}`);
  });

  it('the offline notice goes away by itself', async () => {
    await openAt(page, '#/overview?sample=basic-sha1');
    const note = page.locator('[data-testid=pwa-offline-ready]');
    await note.waitFor({ timeout: 30_000 });
    // It stays long enough to be read, then leaves without a click.
    await page.waitForTimeout(2000);
    expect(await note.count()).toBe(1);
    await note.waitFor({ state: 'detached', timeout: 20_000 });
  });

  it('? lists every shortcut; Escape closes it and focus returns', async () => {
    await openAt(page, '#/overview?sample=basic-sha1');
    await page.focus('[data-testid=tab-overview]');
    await page.keyboard.press('?');
    const help = page.locator('[data-testid=help-overlay]');
    await help.waitFor({ timeout: 5000 });
    const text = (await help.textContent()) ?? '';
    for (const want of ['this help', 'command palette', 'open files', 'open a folder', 'PgDn', 'Enter'])
      expect(text, want).toContain(want);
    // each view's key
    expect(text).toContain('Overview, Stack, Tables, Refs, Compaction, Simulator, Share');
    expect(await page.locator('[data-testid=shortcut]').count()).toBeGreaterThanOrEqual(14);
    await shot(page, 'help');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached', timeout: 5000 });
    expect(await focused(page)).toBe('tab-overview');
    // Typing a ? in a field is a ?, not the overlay.
    await page.click('[data-testid=tab-refs]');
    await page.fill('[data-testid=refs-filter]', '');
    await page.focus('[data-testid=refs-filter]');
    await page.keyboard.press('?');
    expect(await help.count()).toBe(0);
    expect(await page.inputValue('[data-testid=refs-filter]')).toBe('?');
  });

  it('Ctrl+K jumps to a view, a table, a block and a ref, by keyboard alone', async () => {
    await openAt(page, '#/overview?sample=basic-sha1');
    await page.focus('[data-testid=tab-overview]');
    const palette = page.locator('[data-testid=palette]');
    const input = page.locator('[data-testid=palette-input]');
    const open = async (q: string) => {
      await page.keyboard.press('Control+K');
      await palette.waitFor({ timeout: 5000 });
      expect(await focused(page)).toBe('palette-input');
      await input.pressSequentially(q);
    };
    const activeLabel = () => page.locator('.palette-item.active .palette-label').textContent({ timeout: 5000 });

    // a view, fuzzily: "cmpct"
    await open('cmpct');
    expect(await activeLabel()).toBe('Compaction');
    await shot(page, 'palette');
    await page.keyboard.press('Enter');
    await palette.waitFor({ state: 'detached', timeout: 5000 });
    await page.waitForSelector('[data-testid=tab-compaction][aria-selected=true]');
    expect(await focused(page)).toBe('tab-overview');

    // a table: git's newest table of the fixture, by its hash suffix
    const names = tablesList('basic-sha1');
    const newest = names[names.length - 1];
    const suffix = /-([0-9a-f]{8})\.ref$/.exec(newest)![1];
    await open(suffix);
    expect(await activeLabel()).toContain(`#${names.length - 1}`);
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-testid=tab-table][aria-selected=true]');
    expect(hash(page)).toContain(`t=${names.length - 1}`);

    // a block: table 0, block 0
    await open('table #0 block 0');
    expect(await activeLabel()).toMatch(/^Table #0 block 0 /);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /t=0&b=0/.test(location.hash));

    // a ref: typed in part, chosen with the arrows
    const refs = truthRefs('basic-sha1');
    await open('release');
    await page.locator('.palette-item[data-group=Ref]').first().waitFor({ timeout: 10_000 });
    for (let i = 0; i < 60 && (await activeLabel()) !== 'refs/heads/release'; i++)
      await page.keyboard.press('ArrowDown');
    expect(await activeLabel()).toBe('refs/heads/release');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-testid=tab-refs][aria-selected=true]');
    expect(hash(page)).toContain('ref=refs/heads/release');
    const detail = page.locator('.ref-detail:not(.history)');
    await detail.waitFor({ timeout: 10_000 });
    expect(await detail.textContent()).toContain(refs.get('refs/heads/release'));

    // Escape closes without going anywhere
    const before = page.url();
    await open('stack');
    await page.keyboard.press('Escape');
    await palette.waitFor({ state: 'detached', timeout: 5000 });
    expect(page.url()).toBe(before);
  });

  it('copy buttons copy what git lists; the selected ref is in the URL and a link selects it', async () => {
    const refs = truthRefs('basic-sha1');
    await openAt(page, '#/refs?sample=basic-sha1');
    const row = page.locator('[data-testid=ref-row]', { hasText: 'refs/heads/master' }).first();
    await row.click({ timeout: 10_000 });
    await page.waitForFunction(() => location.hash.includes('ref=refs%2Fheads%2Fmaster'));
    await page.click('[aria-label="Copy object id"]');
    await page.waitForSelector('.ref-detail :text("Copied")', { timeout: 5000 });
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(refs.get('refs/heads/master'));
    await page.click('[aria-label="Copy ref name"]');
    await page.waitForFunction(async () => (await navigator.clipboard.readText()) === 'refs/heads/master');
    await shot(page, 'refs-copy');

    // The link alone selects the ref.
    await openAt(page, '#/refs?q=refs%2Fheads%2Frelease&ref=refs%2Fheads%2Frelease&sample=basic-sha1');
    await page.locator('div.ref-detail-name', { hasText: 'refs/heads/release' }).waitFor({ timeout: 10_000 });
    expect(await page.locator('[data-testid=ref-row][aria-selected=true]').textContent()).toContain(
      'refs/heads/release',
    );

    // The diagnosis and the command line
    await openAt(page, '#/overview?sample=basic-sha1');
    await page.click('[aria-label="Copy diagnosis"]');
    const diag = (await page.locator('[data-testid=diagnosis]').textContent()) ?? '';
    expect(diag.length).toBeGreaterThan(40);
    await page.waitForFunction(async (d) => (await navigator.clipboard.readText()) === d, diag);
    await page.click('[aria-label="Copy command line"]');
    await page.waitForFunction(async () => (await navigator.clipboard.readText()) === 'refscope analyze reftable/');
  });

  it('editing sample= in the address bar loads that sample', async () => {
    await openAt(page, '#/overview?sample=basic-sha1');
    const prev = await loadId(page);
    await page.evaluate(() => (location.hash = '#/overview?sample=nocompact-s1'));
    await waitLoad(page, prev);
    await page.waitForSelector('[data-testid=table-count]');
    expect(Number(await page.getAttribute('[data-testid=table-count]', 'data-value'))).toBe(
      tablesList('nocompact-s1').length,
    );
  });

  it('a table selected at the end of the list is scrolled into view', async () => {
    await page.setViewportSize({ width: 1280, height: 420 });
    try {
      await openAt(page, '#/table?t=0&sample=nocompact-s1');
      const item = page.locator('[data-table-index="0"]');
      await item.waitFor({ timeout: 10_000 });
      await page.waitForTimeout(300);
      const inView = await item.evaluate((el) => {
        const r = el.getBoundingClientRect();
        const list = el.closest('.table-list')!.getBoundingClientRect();
        return r.top >= list.top - 1 && r.bottom <= list.bottom + 1 && r.bottom <= window.innerHeight + 1;
      });
      await shot(page, 'table-end');
      expect(inView).toBe(true);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });
});
