/**
 * End-to-end: the production build of the web app in headless Chromium (playwright-core driving
 * Debian's /usr/bin/chromium), served from a sub-path by scripts/start.mjs's static server.
 *
 * Real fixtures are dropped onto the page (folders through a real drag via the DevTools protocol,
 * single files through a synthetic DataTransfer, and through the file inputs), and the numbers
 * the page shows must equal `buildReport(analyzeFiles(collectInput(dir)))`, i.e. what
 * `refscope analyze --json` prints for the same input. Screenshots of every main view go to
 * test-results/. Skipped when Chromium is not installed.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import type { Server } from 'node:http';
import { textToKey } from '../../src/engine/index.ts';
import { collectInput } from '../../src/cli/node-input.ts';
import { writeTable, tableFileName, type RefRecordIn } from '../../src/engine/reftable/writer.ts';
import * as H from './helpers.ts';
import { FX, OUT, ROOT, buildInto, cliReport, expected, haveChromium, launchBrowser, serveBuild } from './helpers.ts';

const DIST = path.join(ROOT, '.tmp/e2e-dist');
const WORK = path.join(ROOT, '.tmp/e2e-work');
const BASE = '/some/sub/path/';

let browser: Browser;
let context: BrowserContext;
let page: Page;
let cdp: CDPSession;
let server: Server;
let url = '';
let origin = '';
const foreignRequests: string[] = [];
const pageErrors: string[] = [];

async function loadId(): Promise<number> {
  return H.loadId(page);
}

/** Wait until a load newer than `prev` has finished. */
async function waitLoad(prev: number): Promise<void> {
  await H.waitLoad(page, prev);
}

async function show(view: string): Promise<void> {
  await H.show(page, view);
}

/** The overview's figures (from data-value) and table rows. */
async function shown() {
  return H.shown(page);
}

/** A real drag and drop of files or folders from disk (DevTools protocol), as a user does it. */
async function dropPaths(paths: string[]): Promise<void> {
  await H.dropPaths(cdp, paths);
}

/** A drop built in the page: File objects with the given names and bytes in a synthetic DataTransfer. */
async function dropSynthetic(files: { name: string; bytes: Uint8Array }[]): Promise<void> {
  const payload = files.map((f) => ({ name: f.name, b64: Buffer.from(f.bytes).toString('base64') }));
  await page.evaluate((items) => {
    const dt = new DataTransfer();
    for (const it of items) {
      const bin = atob(it.b64);
      const u = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
      dt.items.add(new File([u], it.name));
    }
    const target = document.querySelector('main') ?? document.body;
    for (const type of ['dragenter', 'dragover', 'drop']) {
      target.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  }, payload);
}

async function shot(name: string): Promise<void> {
  // Two animation frames: what was rendered is painted (a state, not a fixed wait).
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null)))));
  await page.screenshot({ path: path.join(OUT, `app-${name}.png`) });
}

describe.skipIf(!haveChromium)('web app (headless Chromium)', () => {
  beforeAll(async () => {
    fs.mkdirSync(OUT, { recursive: true });
    fs.mkdirSync(WORK, { recursive: true });
    // Build once, as `npm start` does.
    await buildInto(DIST);
    ({ server, url, origin } = await serveBuild(DIST, BASE, 4400 + (process.pid % 500)));
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1400, height: 900 }, colorScheme: 'light' });
    context.on('request', (r) => {
      const u = r.url();
      if (!u.startsWith(origin + '/') && !u.startsWith('data:') && !u.startsWith('blob:')) foreignRequests.push(u);
    });
    await context.addInitScript(() => {
      const w = window as unknown as { __longTasks: number[]; __progress: number[] };
      w.__longTasks = [];
      w.__progress = [];
      try {
        new PerformanceObserver((l) => {
          for (const e of l.getEntries()) w.__longTasks.push(e.duration);
        }).observe({ type: 'longtask', buffered: true });
      } catch {
        /* not supported */
      }
      // Record when the progress text changes (a MutationObserver on the whole document).
      new MutationObserver(() => {
        const p = document.querySelector('[data-testid=progress]');
        const t = p?.getAttribute('aria-valuetext') ?? '';
        if (t && (w as unknown as { __lastP?: string }).__lastP !== t) {
          (w as unknown as { __lastP?: string }).__lastP = t;
          w.__progress.push(performance.now());
        }
      }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-valuetext'] });
    });
    page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('dialog', (d) => {
      pageErrors.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    cdp = await context.newCDPSession(page);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    server?.close();
  });

  it('opens with the default sample (the 1,000-tombstone stack), then the 50,000 one, with the CLI numbers', async () => {
    await page.goto(url);
    await waitLoad(0);
    const small = expected(cliReport(collectInput(path.join(FX, 'recreate-1000/reftable'))));
    const gitTables = (await import('node:fs'))
      .readFileSync(path.join(FX, 'recreate-1000/truth/tables.txt'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' '));
    const first = await shown();
    expect(first).toEqual(small);
    // git's own listing of the stack: its tables.list order and file sizes.
    expect(first.rows).toEqual(gitTables.map(([n]) => n));
    expect(first.totalBytes).toBe(gitTables.reduce((x, [, b]) => x + Number(b), 0));
    expect(new URL(page.url()).hash).toMatch(/^#\/overview\?sample=recreate-1000$/);
    await page.goto('about:blank');
    await page.goto(`${url}#/overview?sample=tombstones-50k`);
    await waitLoad(0);
    const want = expected(cliReport(collectInput(path.join(FX, 'tombstones-50k/reftable'))));
    expect(await shown()).toEqual(want);
    expect(await page.textContent('[data-testid=diagnosis]')).toMatch(/tombstone/);
    expect(await page.locator('[data-testid=error]').count()).toBe(0);
    await shot('overview-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot('overview-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    // The link now names the sample, so it shows the same thing elsewhere.
    expect(new URL(page.url()).hash).toMatch(/^#\/overview\?sample=tombstones-50k$/);
  });

  it('stack, table (block map, records, hex) and refs views', async () => {
    await show('stack');
    expect(await page.locator('[data-testid=stack-bar]').count()).toBe(2);
    // Oldest at the bottom.
    const names = await page
      .locator('[data-testid=stack-bar]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-name')));
    expect(names[names.length - 1]).toBe('0x000000000001-0x000000000003-e6483b4d.ref');
    await shot('stack-light');

    await page.locator('[data-testid=stack-bar]').first().click();
    await page.waitForSelector('[data-testid=block-cell]');
    expect(new URL(page.url()).hash).toMatch(/^#\/table\?t=1/);
    await page.locator('[data-testid=block-cell]').nth(2).click();
    await page.waitForSelector('[data-testid=record-row]');
    await page.locator('[data-testid=record-row]').nth(3).click();
    await page.waitForSelector('[data-testid=record-row][aria-selected=true]');
    expect(new URL(page.url()).hash).toMatch(/t=1&b=2&r=3/);
    // Keyboard: next record.
    await page.locator('.rec-scroll').focus();
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() => location.hash.includes('r=4'));
    expect(await page.locator('.hex .hb.rec-start').count()).toBeGreaterThan(5);
    expect(await page.locator('.hex .hb.restart-start').count()).toBeGreaterThan(0);
    await shot('table-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot('table-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    await show('refs');
    await page.waitForSelector('[data-testid=refs-count][data-value="1"]');
    await page.check('[data-testid=refs-tombstones]');
    await page.waitForSelector('[data-testid=refs-count][data-value="50002"]');
    await page.fill('[data-testid=refs-filter]', 'refs/tags/');
    const tags = (await import('node:fs'))
      .readFileSync(path.join(FX, 'tombstones-50k/truth/recreate.stdin'), 'latin1')
      .split('\n')
      .filter((l) => / refs\/tags\//.test(l)).length;
    await page.waitForSelector(`[data-testid=refs-count][data-value="${tags}"]`);
    await shot('refs-light');
    await page.fill('[data-testid=refs-filter]', '');
    await page.uncheck('[data-testid=refs-tombstones]');
  });

  it('deep links select view, table, block and record; the app works from a sub-path', async () => {
    expect(new URL(url).pathname).toBe(BASE);
    await page.goto('about:blank');
    await page.goto(`${url}#/table?t=0&b=5&r=3&sample=basic-sha1`);
    // basic-sha1's table 0 has 2 blocks: b=5 does not exist, the page says so by selecting none.
    await page.waitForSelector('[data-testid=block-cell]');
    expect(await page.locator('[data-testid=record-row]').count()).toBe(0);
    await page.goto('about:blank');
    await page.goto(`${url}#/table?t=0&b=1&r=2&sample=basic-sha1`);
    await page.waitForSelector('[data-testid=record-row][aria-selected=true]');
    expect(await page.textContent('.block-detail h3')).toMatch(/Block 1/);
    await page.goto('about:blank');
    await page.goto(`${url}#/refs?q=refs%2Fheads%2F&sample=basic-sha1`);
    await page.waitForSelector('[data-testid=refs-count][data-value="3"]');
    // Keyboard: 1 goes back to the overview.
    await page.locator('body').click({ position: { x: 5, y: 300 } });
    await page.keyboard.press('1');
    await page.waitForSelector('[data-testid=tab-overview][aria-selected=true]');
    expect(await shown()).toEqual(expected(cliReport(collectInput(path.join(FX, 'basic-sha1/reftable')))));
  });

  it('a folder dropped onto the window shows the same numbers as refscope analyze --json', async () => {
    for (const fx of ['basic-sha1', 'basic-sha256', 'nocompact-s2', 'smallblocks', 'jgit-levels', 'recreate-1000']) {
      const dir = path.join(FX, fx, 'reftable');
      const prev = await loadId();
      await dropPaths([dir]);
      await waitLoad(prev);
      expect(await shown(), fx).toEqual(expected(cliReport(collectInput(dir))));
      expect(await page.textContent('.source-label')).toBe('dropped folder reftable/');
    }
    // A whole repository-like folder: the reftable directory inside a .git directory.
    const repo = path.join(WORK, 'repo');
    fs.rmSync(repo, { recursive: true, force: true });
    fs.mkdirSync(path.join(repo, '.git/objects/ab'), { recursive: true });
    fs.cpSync(path.join(FX, 'nocompact-s3/reftable'), path.join(repo, '.git/reftable'), { recursive: true });
    fs.writeFileSync(path.join(repo, '.git/HEAD'), 'ref: refs/heads/.invalid\n');
    fs.writeFileSync(path.join(repo, '.git/objects/ab/cdef'), 'not a ref');
    fs.writeFileSync(path.join(repo, 'README'), 'work tree file');
    const prev = await loadId();
    await dropPaths([repo]);
    await waitLoad(prev);
    expect(await shown()).toEqual(expected(cliReport(collectInput(path.join(FX, 'nocompact-s3/reftable')))));
  });

  it('single files dropped (synthetic DataTransfer): tables with and without tables.list', async () => {
    const dir = path.join(FX, 'nocompact-s1/reftable');
    const all = collectInput(dir);
    const withList = fs.readdirSync(dir).map((n) => ({ name: n, bytes: fs.readFileSync(path.join(dir, n)) }));
    let prev = await loadId();
    await dropSynthetic(withList);
    await waitLoad(prev);
    expect(await shown()).toEqual(expected(cliReport(all)));
    // Lone .ref files (no tables.list): ordered by update index.
    const lone = withList.filter((f) => f.name.endsWith('.ref')).slice(3, 9);
    prev = await loadId();
    await dropSynthetic(lone);
    await waitLoad(prev);
    expect(await shown()).toEqual(expected(cliReport(all.filter((f) => lone.some((l) => l.name === f.path)))));
  });

  it('the file inputs (Open files, Open folder) load what they are given', async () => {
    const dir = path.join(FX, 'recreate-2000/reftable');
    let prev = await loadId();
    await page.setInputFiles(
      '[data-testid=open-files-input]',
      fs.readdirSync(dir).map((n) => path.join(dir, n)),
    );
    await waitLoad(prev);
    expect(await shown()).toEqual(expected(cliReport(collectInput(dir))));
    const dir2 = path.join(FX, 'basic-sha256/reftable');
    prev = await loadId();
    await page.setInputFiles('[data-testid=open-folder-input]', dir2);
    await waitLoad(prev);
    expect(await shown()).toEqual(expected(cliReport(collectInput(dir2))));
    expect(await page.textContent('.source-label')).toBe('opened folder reftable/');
  });

  it('a damaged table shows its error next to it; the rest of the stack is still analysed', async () => {
    const dir = path.join(WORK, 'damaged/reftable');
    fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    fs.cpSync(path.join(FX, 'nocompact-s1/reftable'), dir, { recursive: true });
    const victim = fs.readFileSync(path.join(dir, 'tables.list'), 'utf8').split('\n')[5];
    const b = fs.readFileSync(path.join(dir, victim));
    b[b.length - 1] ^= 0x55; // footer CRC-32
    fs.writeFileSync(path.join(dir, victim), b);
    const prev = await loadId();
    await dropPaths([dir]);
    await waitLoad(prev);
    const want = expected(cliReport(collectInput(dir)));
    expect(want.broken).toEqual([victim]);
    expect(await shown()).toEqual(want);
    const err = page.locator(`[data-testid=table-row][data-name="${victim}"] [data-testid=error]`);
    expect(await err.textContent()).toMatch(/CRC-32/);
    await shot('error-light');
    // The table view says it too.
    await page.locator(`[data-testid=table-row][data-name="${victim}"] a`).click();
    await page.waitForSelector('.table-detail [data-testid=error]');

    // Input with nothing usable: an error, not a blank page.
    const prev2 = await loadId();
    await dropSynthetic([{ name: 'notes.txt', bytes: new TextEncoder().encode('hello') }]);
    await waitLoad(prev2);
    await show('overview');
    expect(await page.textContent('[data-testid=error]')).toMatch(/notes\.txt/);
  });

  it('ref names are text, never markup (hostile names, right-to-left marks, long names)', async () => {
    const names = [
      'refs/heads/<img src=x onerror="window.__xss=1">',
      'refs/heads/main',
      `refs/heads/${'long/'.repeat(300)}end`,
      'refs/heads/\u202Egnp.exe',
      'refs/tags/ünïcödé',
    ]
      .map(textToKey)
      .sort();
    const oid = new Uint8Array(20).fill(0xab);
    const refs: RefRecordIn[] = names.map((name) => ({ name, updateIndex: 1, type: 1, value: oid }));
    const bytes = writeTable(refs, [], { minUpdateIndex: 1, maxUpdateIndex: 1 });
    const name = tableFileName(1, 1, 0x0badf00d);
    const prev = await loadId();
    await dropSynthetic([
      { name, bytes },
      { name: 'tables.list', bytes: new TextEncoder().encode(name + '\n') },
    ]);
    await waitLoad(prev);
    await show('refs');
    await page.fill('[data-testid=refs-filter]', ''); // the filter is kept across inputs
    await page.waitForSelector('[data-testid=refs-count][data-value="5"]');
    const rows = await page.locator('[data-testid=ref-row] .ref-name').allTextContents();
    expect(rows).toContain('refs/heads/<img src=x onerror="window.__xss=1">');
    // Direction controls are shown as visible marks, so the name cannot read as "exe.png".
    expect(rows).toContain('refs/heads/⟨U+202E⟩gnp.exe');
    expect(rows).toContain('refs/tags/ünïcödé');
    await show('table');
    await page.locator('[data-testid=block-cell]').first().click();
    await page.waitForSelector('[data-testid=record-row]');
    expect(await page.locator('[data-testid=record-row] .key').allTextContents()).toContain(
      'refs/heads/<img src=x onerror="window.__xss=1">',
    );
    expect(await page.evaluate(() => document.querySelectorAll('img').length)).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  });

  it('a 1,000,000-ref stack: the page stays responsive while parsing and the refs list scrolls smoothly', async () => {
    const dir = path.join(WORK, 'big/reftable');
    const n = 1_000_000;
    const tname = tableFileName(1, 1, 0x5eed5eed);
    const names: string[] = [];
    for (let i = 0; i < n; i++) names.push(`refs/pull/${String(i).padStart(7, '0')}/head`);
    if (!fs.existsSync(path.join(dir, tname))) {
      fs.mkdirSync(dir, { recursive: true });
      const refs: RefRecordIn[] = names.map((name, i) => {
        const v = new Uint8Array(20);
        v[0] = i & 255;
        v[1] = (i >> 8) & 255;
        v[2] = (i >> 16) & 255;
        v[19] = 1;
        return { name, updateIndex: 1, type: 1, value: v };
      });
      fs.writeFileSync(path.join(dir, tname), writeTable(refs, [], { minUpdateIndex: 1, maxUpdateIndex: 1 }));
      fs.writeFileSync(path.join(dir, 'tables.list'), tname + '\n');
    }
    await show('overview');
    await page.evaluate(() => {
      const w = window as unknown as { __longTasks: number[]; __progress: number[] };
      w.__longTasks.length = 0;
      w.__progress.length = 0;
    });
    const prev = await loadId();
    await dropPaths([dir]);
    await waitLoad(prev);
    const want = expected(cliReport(collectInput(dir)));
    expect(await shown()).toEqual(want);
    expect(want.live).toBe(n);
    const during = await page.evaluate(() => {
      const w = window as unknown as { __longTasks: number[]; __progress: number[] };
      return { longTasks: [...w.__longTasks], progress: [...w.__progress] };
    });
    const gaps = during.progress.slice(1).map((t, i) => Math.round(t - during.progress[i]));
    // For the record only (never asserted: a busy machine stretches every figure).
    console.log(
      `1M refs: ${during.progress.length} progress updates, gaps ${JSON.stringify(gaps)} ms; main-thread long tasks ${JSON.stringify(during.longTasks.map(Math.round))}`,
    );
    // The page showed progress while the worker parsed (a state the page went through).
    expect(during.progress.length).toBeGreaterThan(0);

    // Refs: scroll through a million rows.
    await show('refs');
    await page.fill('[data-testid=refs-filter]', '');
    await page.waitForSelector(`[data-testid=refs-count][data-value="${n}"]`);
    await page.evaluate(() => {
      (window as unknown as { __longTasks: number[] }).__longTasks.length = 0;
    });
    const list = page.locator('[data-testid=refs-list]');
    await list.hover();
    for (let i = 0; i < 30; i++) await page.mouse.wheel(0, 4000);
    await list.evaluate((el) => {
      el.scrollTop = el.scrollHeight / 2;
    });
    // Rows of the middle of the list are drawn (the virtual list followed the scroll).
    await page.waitForFunction(() =>
      [...document.querySelectorAll('[data-testid=ref-row]')].some((e) => Number(e.id.slice(4)) > 100_000),
    );
    await list.focus();
    await page.keyboard.press('End');
    await page.waitForFunction(
      (last) => [...document.querySelectorAll('[data-testid=ref-row] .ref-name')].some((e) => e.textContent === last),
      names[n - 1],
    );
    await page.keyboard.press('Home');
    await page.waitForFunction(
      (first) => [...document.querySelectorAll('[data-testid=ref-row] .ref-name')].some((e) => e.textContent === first),
      names[0],
    );
    await page.fill('[data-testid=refs-filter]', '99999');
    await page.waitForSelector(
      `[data-testid=refs-count][data-value="${names.filter((x) => x.startsWith('99999')).length}"]`,
    );
    await page.click('[data-testid=refs-mode-substring]');
    await page.waitForSelector(
      `[data-testid=refs-count][data-value="${names.filter((x) => x.includes('99999')).length}"]`,
    );
    await shot('refs-1m-light');
    const scrolling = await page.evaluate(() => [...(window as unknown as { __longTasks: number[] }).__longTasks]);
    console.log(`1M refs: long tasks while scrolling and filtering ${JSON.stringify(scrolling.map(Math.round))}`);
    // The tab answers (a round trip through the page's event loop), whatever the machine's load.
    expect(await page.evaluate(() => document.querySelectorAll('[data-testid=ref-row]').length)).toBeGreaterThan(0);
    await page.fill('[data-testid=refs-filter]', '');
    await page.click('[data-testid=refs-mode-prefix]');
  });

  it('made no request to any other origin and raised no page error', () => {
    expect(foreignRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
