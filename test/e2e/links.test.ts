/**
 * End-to-end: every crafted share link of test/fixtures/hostile/share-links and share-fuzz (deflate
 * bombs, 1e308 figures, `__proto__` keys, deep nesting, thousands of tables, markup, wrong
 * versions, decoder fuzz crashers and hangs) opened in headless Chromium, each by a full navigation
 * of one page (through about:blank, so every link starts the app in a new document, as a fresh tab
 * would; one page instead of one per link saves a renderer start per link).
 *
 * Each must open to a report (the shared banner) or to the link's error message (the error
 * banner); the page is never blank and the tab keeps answering: a `page.evaluate` round trip
 * must come back (a generous hang guard, not a time measurement). A link that opens to a report
 * is also shown in every view that works without files; none may fail (no view error, no page
 * error). What is asserted is what the page shows, never how long it took.
 *
 * Links that decode to a report of more than LARGE tables are opened once: the first of them (the
 * one stored in share-links) shows that a tab holding thousands of tables still answers and
 * draws every view. The other large ones are decoder fuzz finds (their shape, not their size, is
 * what broke the decoder): test/share.test.ts decodes each of them in Node, rebuilds its report,
 * description and synthetic stack, so a regression of the decoder still fails there, and a
 * regression of the tab with many tables fails here on the one that is opened.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, haveChromium, show, startApp, stopApp, type AppUnderTest } from './helpers.ts';
import { decodeShare, DEFAULT_SHARE_BASE } from '../../src/engine/share/index.ts';

const DIST = path.join(ROOT, '.tmp/e2e-links-dist');
const HOSTILE = path.join(ROOT, 'test/fixtures/hostile');
/** Longest the test waits for one state of the page: a hang guard only (a frozen tab never gets there). */
const HANG_GUARD_MS = 90_000;

/** The `#s=…` fragment of a crafted-link file (share-fuzz files start with a line saying what broke). */
function fragmentOf(text: string): string | null {
  const i = text.indexOf('#s=');
  if (i < 0) return null;
  return text.slice(i).split(/\s/)[0];
}

const files = ['share-links', 'share-fuzz'].flatMap((dir) => {
  const d = path.join(HOSTILE, dir);
  if (!fs.existsSync(d)) return [];
  return fs
    .readdirSync(d)
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .map((f) => ({ name: `${dir}/${f}`, text: fs.readFileSync(path.join(d, f), 'utf8') }));
});
/** One case per distinct link (a fuzz crasher stored in both folders is opened once, under both names). */
const distinct = [
  ...files
    .reduce((m, f) => {
      const key = fragmentOf(f.text) ?? f.name;
      const c = m.get(key);
      if (c) c.name += ` = ${f.name}`;
      else m.set(key, { ...f });
      return m;
    }, new Map<string, { name: string; text: string }>())
    .values(),
];

/** A report of more tables than this is a large link (the stored ones have 3,000 or so). */
const LARGE = 1000;
/** How many tables a link's report has, decoded in Node; 0 when the decoder refuses it. */
function tablesOf(text: string): number {
  try {
    return decodeShare(DEFAULT_SHARE_BASE + fragmentOf(text)).tables.length;
  } catch {
    return 0;
  }
}
const large = distinct.filter((c) => tablesOf(c.text) > LARGE);
/** The large link the tab opens: the one kept in share-links (the first large one otherwise). */
const largeOpened = large.find((c) => c.name.startsWith('share-links/')) ?? large[0];
const cases = distinct.filter((c) => !large.includes(c) || c === largeOpened);

let app: AppUnderTest | undefined;
let context: BrowserContext;
let page: Page | undefined;
let url = '';
/** What the page reported (page errors, dialogs) since the current link was opened. */
let errors: string[] = [];

/**
 * The one page, at about:blank. A case that failed (a frozen tab, say) leaves its page behind and
 * the next case gets a new one, so one failure cannot stall the others.
 */
async function blankPage(): Promise<Page> {
  if (!page) {
    page = await context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('dialog', (d) => {
      errors.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
  }
  // A new document for each link: leave the previous one first (a change of the fragment alone
  // would be a same-document navigation, not a fresh start of the app).
  await page.goto('about:blank');
  errors = [];
  return page;
}

/** Leave the page to close in the background (a frozen tab may never answer its close). */
function dropPage(): void {
  void page?.close().catch(() => undefined);
  page = undefined;
}

/** The page answers a round trip through its event loop, or the guard says it froze. */
async function responsive(page: Page, what: string): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('frozen'), HANG_GUARD_MS);
  });
  const answer = await Promise.race([page.evaluate(() => 'answered'), guard]);
  clearTimeout(timer);
  expect(answer, `${what}: the tab answers`).toBe('answered');
}

describe.skipIf(!haveChromium)('crafted share links in headless Chromium', () => {
  beforeAll(async () => {
    app = await startApp(DIST, '/', 4900 + (process.pid % 90));
    ({ url } = app);
    context = await app.browser.newContext({ viewport: { width: 1280, height: 800 } });
  }, 180_000);

  afterAll(async () => {
    await stopApp(app);
  });

  it('the crafted links are in the repository', () => {
    expect(files.length).toBeGreaterThanOrEqual(60);
    expect(files.every((c) => fragmentOf(c.text) !== null)).toBe(true);
    // One large link is opened in the tab; the others are decoded in Node by share.test.ts.
    expect(largeOpened?.name).toMatch(/^share-links\/fuzz-947-3000tables\.txt/);
    expect(large.length).toBeGreaterThanOrEqual(2);
  });

  for (const c of cases) {
    it(
      `${c.name}: a report or the link's error, the tab responsive`,
      async () => {
        const fragment = fragmentOf(c.text)!;
        const page = await blankPage();
        let passed = false;
        try {
          await page.goto(url + fragment, { waitUntil: 'domcontentloaded' });
          // The outcome the page settles on: the shared report, or the link's error message.
          const outcome = await page
            .waitForFunction(
              () => {
                const main = document.querySelector('[data-testid=main]');
                if (!main || main.getAttribute('data-status') === 'loading') return null;
                if (document.querySelector('[data-testid=error]')) return 'error';
                if (
                  document.querySelector('[data-testid=shared-banner]') &&
                  main.getAttribute('data-status') === 'ready'
                )
                  return 'report';
                if (document.querySelector('[data-testid=app-error]')) return 'app-error';
                return null;
              },
              undefined,
              { timeout: HANG_GUARD_MS, polling: 200 },
            )
            .then((h) => h.jsonValue());
          await responsive(page, c.name);
          // The app's error text, read without waiting (textContent would wait 30 s for a missing node).
          const appError = await page.evaluate(
            () => document.querySelector('[data-testid=app-error]')?.textContent ?? '',
          );
          expect(['report', 'error'], `${c.name}: ${appError}`).toContain(outcome);
          if (outcome === 'error') {
            // A sentence saying what is wrong with the link, not a blank banner.
            expect((await page.textContent('[data-testid=error]'))!.trim().length).toBeGreaterThan(10);
          } else {
            // Every view that works without files shows the report (none fails, none blanks).
            for (const view of ['overview', 'stack', 'compaction', 'simulator', 'share']) {
              await show(page, view);
              await page.waitForFunction(
                () => (document.querySelector('[data-testid=main]')?.textContent ?? '').trim().length > 0,
                undefined,
                { timeout: HANG_GUARD_MS },
              );
              await responsive(page, `${c.name} ${view}`);
              expect(await page.locator('[data-testid=view-error]').count(), `${c.name}: ${view} view`).toBe(0);
            }
          }
          expect(errors, c.name).toEqual([]);
          passed = true;
        } finally {
          if (!passed) dropPage();
        }
      },
      4 * HANG_GUARD_MS,
    );
  }
});
