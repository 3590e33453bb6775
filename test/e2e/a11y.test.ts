/**
 * End-to-end: accessibility. axe-core (the rules of WCAG 2.x A/AA and axe's best practices) on
 * every view — Overview, Stack, Tables, a block's detail, Refs, Compaction, Simulator, Share,
 * Compare (before a side is kept), Watch — and on the error page, in the light and the dark
 * theme (its colour rules), with three samples (a small stack, the
 * 50,000-tombstone stack, git.git's packed-refs). No critical and no serious violation may be
 * found; the landmark and heading rules (moderate) are held to zero too. Compare with two sides
 * and the fleet view are checked by workbench.test.ts and fleet.test.ts.
 * The production build in headless Chromium; skipped without Chromium.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import type { Server } from 'node:http';
import { OUT, ROOT, buildInto, haveChromium, launchBrowser, serveBuild, waitLoad } from './helpers.ts';
import { axeViolations } from './axe-run.ts';

const DIST = path.join(ROOT, '.tmp/a11y-dist');

const SAMPLES = ['basic-sha1', 'tombstones-50k', 'gitgit-packed-refs'];
const VIEWS: { name: string; hash: string; ready: string }[] = [
  { name: 'overview', hash: '#/overview', ready: '[data-testid=live-refs]' },
  { name: 'stack', hash: '#/stack', ready: '[data-testid=tab-stack][aria-selected=true]' },
  { name: 'table', hash: '#/table', ready: '[data-testid=tab-table][aria-selected=true]' },
  { name: 'block', hash: '#/table?t=0&b=0', ready: '[data-testid=tab-table][aria-selected=true]' },
  { name: 'refs', hash: '#/refs', ready: '[data-testid=ref-row]' },
  { name: 'compaction', hash: '#/compaction', ready: '[data-testid=tab-compaction][aria-selected=true]' },
  { name: 'simulator', hash: '#/simulator', ready: '[data-testid=tab-simulator][aria-selected=true]' },
  { name: 'share', hash: '#/share', ready: '[data-testid=tab-share][aria-selected=true]' },
  { name: 'compare', hash: '#/compare', ready: '[data-testid=compare-keep]' },
  { name: 'watch', hash: '#/watch', ready: '[data-testid=tab-watch][aria-selected=true]' },
];
/** Moderate rules held to zero as well: a main landmark, one h1, all content inside landmarks. */
const ALSO = new Set(['landmark-one-main', 'page-has-heading-one', 'region']);
/** axe's rules that read colours: what the dark theme can change. */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

/** What a view shows while a part of it waits for its chunk or the worker (src/app's placeholders). */
const PENDING = ['Loading the view…', 'Loading table…', 'Decoding block', 'Computing…', 'Making the link…'];

/** In the page: nothing in the main area is still waiting (no placeholder text, skeleton or busy mark). */
function viewSettled(pending: string[]): boolean {
  const main = document.querySelector('[data-testid=main]');
  if (!main || main.getAttribute('data-status') === 'loading') return false;
  if (main.querySelector('.skeleton, [aria-busy=true], [data-ready=false]')) return false;
  const text = main.textContent ?? '';
  return !pending.some((p) => text.includes(p));
}

interface Found {
  where: string;
  id: string;
  impact: string;
  help: string;
  nodes: string[];
}

let browser: Browser;
let server: Server;
let url = '';

/** axe's rules on the page (`only`: just those rules); axe is injected once per document. */
async function axe(page: Page, where: string, only?: string[]): Promise<Found[]> {
  return (await axeViolations(page, only)).map((x) => ({
    where,
    id: x.id,
    impact: x.impact,
    help: x.help,
    nodes: x.nodes.map((n) => `${n.target}: ${n.summary.replace(/\s+/g, ' ')}`),
  }));
}

describe.skipIf(!haveChromium)('axe-core on every view (headless Chromium)', () => {
  beforeAll(async () => {
    fs.mkdirSync(OUT, { recursive: true });
    await buildInto(DIST);
    ({ server, url } = await serveBuild(DIST, '/', 5800 + (process.pid % 400)));
    browser = await launchBrowser();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    server?.close();
  });

  // The dark theme changes colours only (custom properties under prefers-color-scheme: dark), so
  // on each view the light theme gets every rule and the dark theme, switched on the same page,
  // the rules that read colours.
  it('no critical or serious violation, light theme (all rules) and dark theme (colour rules)', async () => {
    // axe is injected as a script: the app's Content Security Policy would refuse it.
    // Reduced motion: a notice that appears while axe runs (the offline-ready toast, whenever the
    // service worker finishes installing) is read at full opacity, not half-way through its fade.
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      colorScheme: 'light',
      reducedMotion: 'reduce',
      bypassCSP: true,
    });
    const page = await context.newPage();
    const found: Found[] = [];
    let checked = 0;
    const both = async (where: string) => {
      found.push(...(await axe(page, `${where} light`)));
      await page.emulateMedia({ colorScheme: 'dark' });
      expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), where).toBe(true);
      found.push(...(await axe(page, `${where} dark`, COLOUR_RULES)));
      await page.emulateMedia({ colorScheme: 'light' });
      checked++;
    };
    try {
      for (const sample of SAMPLES) {
        await page.goto('about:blank');
        await page.goto(`${url}#/overview?sample=${sample}`);
        await waitLoad(page, 0);
        for (const v of VIEWS) {
          await page.evaluate(
            (h) => (location.hash = h),
            `${v.hash}${v.hash.includes('?') ? '&' : '?'}sample=${sample}`,
          );
          await page
            .waitForSelector(v.ready, { timeout: 15_000 })
            .catch(() => page.waitForSelector('[data-testid=main][data-status=ready]', { timeout: 5000 }));
          // The view's lazy parts (its chunk, the worker's answers) have drawn: no placeholder is left.
          await page.waitForFunction(viewSettled, PENDING, { timeout: 60_000 });
          await both(`${sample} ${v.name}`);
        }
      }
      // the error page: a sample that does not exist
      await page.goto('about:blank');
      await page.goto(`${url}#/overview?sample=no-such-sample`);
      await page.waitForSelector('[data-testid=app-error]', { timeout: 15_000 });
      await both('error page');
      await page.screenshot({ path: path.join(OUT, 'a11y-error-light.png') });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.screenshot({ path: path.join(OUT, 'a11y-error-dark.png') });
    } finally {
      await context.close();
    }
    expect(checked).toBe(SAMPLES.length * VIEWS.length + 1);
    const bad = found.filter((f) => f.impact === 'critical' || f.impact === 'serious' || ALSO.has(f.id));
    if (bad.length) console.log(JSON.stringify(bad, null, 1));
    const other = found.filter((f) => !bad.includes(f));
    if (other.length) console.log('other:', JSON.stringify(other.map((f) => `${f.where}: ${f.id} (${f.impact})`)));
    expect(bad.map((f) => `${f.where}: ${f.id} (${f.impact})`)).toEqual([]);
  }, 600_000);
});
