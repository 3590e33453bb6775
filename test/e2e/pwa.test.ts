/**
 * Offline, installable PWA (issue #8): the production build in headless Chromium.
 *
 * Two builds: A (`base: './'`, as `npm start` builds it) and B (`--base /some/sub/path/`, an
 * absolute base: a different index.html, so a new version). Both are served from that sub-path
 * through a symlink, so that switching the link "deploys" B over A.
 *
 * - The manifest's fields, its icons, and that every URL the service worker precaches exists in the
 *   build (and that the build's scripts, icons and samples are all precached).
 * - Offline: load once, wait for the service worker, stop the server and switch the context
 *   offline, reload: the default sample, a dropped folder, the file input, the samples menu, deep
 *   links, and files handed over by `launchQueue` all show the engine's own numbers; a share link
 *   (`#s=…`) opened offline shows the report rebuilt from it and the sharer's simulation results.
 * - Update: with B deployed, `registration.update()` shows "Update available — reload"; the page
 *   never reloads by itself, not even when another window activates the new version; pressing the
 *   control reloads into B (which then works offline too).
 *
 * Screenshots of the notices go to test-results/pwa-*.png. Skipped when Chromium is not installed.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import type { Server } from 'node:http';
import { collectInput } from '../../src/cli/node-input.ts';
import { analyzeFiles } from '../../src/engine/index.ts';
import { decodeShare, reportFromShare, shareLink } from '../../src/engine/share/index.ts';
import { Simulator } from '../../src/engine/simulate/index.ts';
import { simulationForShare } from '../../src/engine/share/simulation.ts';
import { workloadCode } from '../../src/app/simulator/simspec.ts';
import {
  ARGS,
  CHROMIUM,
  FX,
  HANG_MS,
  OUT,
  ROOT,
  type StartModule,
  buildInto,
  cliReport,
  dropPaths,
  expected,
  filesOf,
  haveChromium,
  launchBrowser,
  loadId,
  shown,
  startModule,
  waitLoad,
} from './helpers.ts';

const TMP = path.join(ROOT, '.tmp');
const DIST_A = path.join(TMP, 'pwa-dist-a');
const DIST_B = path.join(TMP, 'pwa-dist-b');
/** What the server serves: a symlink to DIST_A, later to DIST_B. */
const LIVE = path.join(TMP, 'pwa-live');
const BASE = '/some/sub/path/';

let start: StartModule;
let browser: Browser;
let context: BrowserContext;
let server: Server | null = null;
let port = 0;
let url = '';
let origin = '';
const foreignRequests: string[] = [];
const pageErrors: string[] = [];

function fx(name: string): string {
  return path.join(FX, name, 'reftable');
}

function want(dir: string) {
  return expected(cliReport(collectInput(dir)));
}

/** Point the served symlink at a build (atomically). */
function deploy(dist: string): void {
  const tmp = `${LIVE}.${process.pid}.new`;
  fs.rmSync(tmp, { force: true });
  fs.symlinkSync(dist, tmp);
  fs.renameSync(tmp, LIVE);
}

async function serverUp(): Promise<void> {
  const s = await start.serveStatic(LIVE, { port: port || 4900 + (process.pid % 500), base: BASE, strict: !!port });
  server = s.server;
  url = s.url;
  origin = new URL(url).origin;
  port = Number(new URL(url).port);
}

async function serverDown(): Promise<void> {
  const s = server;
  server = null;
  if (!s) return;
  await new Promise<void>((resolve) => {
    s.close(() => resolve());
    s.closeAllConnections();
  });
}

function track(page: Page): Page {
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(`console: ${m.text()}`);
  });
  page.on('dialog', (d) => {
    pageErrors.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  return page;
}

async function shot(page: Page, name: string): Promise<void> {
  // The notices fade in: wait until no animation runs (a state, not a fixed wait).
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'));
  await page.screenshot({ path: path.join(OUT, `pwa-${name}.png`) });
}

/** The URLs (relative to sw.js) the generated service worker precaches. */
function precached(dist: string): string[] {
  const sw = fs.readFileSync(path.join(dist, 'sw.js'), 'utf8');
  const m = /precacheAndRoute\((\[.*?\])\s*,/s.exec(sw);
  expect(m, 'sw.js has a precache manifest').not.toBeNull();
  return [...m![1].matchAll(/url:\s*"([^"]+)"/g)].map((x) => x[1]);
}

function walk(dir: string, rel = ''): string[] {
  return fs
    .readdirSync(path.join(dir, rel), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(dir, path.posix.join(rel, e.name)) : [path.posix.join(rel, e.name)]));
}

/** Width and height of a PNG (IHDR). */
function pngSize(file: string): [number, number] {
  const b = fs.readFileSync(file);
  expect(b.subarray(1, 4).toString('latin1')).toBe('PNG');
  return [b.readUInt32BE(16), b.readUInt32BE(20)];
}

async function waitControlled(page: Page): Promise<void> {
  await page.waitForFunction(() => !!navigator.serviceWorker.controller, undefined, { timeout: HANG_MS });
}

/** Marks the page so a reload (which would lose the mark) is noticed. */
async function mark(page: Page): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as { __mark: string }).__mark = 'never reloaded';
  });
}
async function marked(page: Page): Promise<boolean> {
  return page.evaluate(() => (window as unknown as { __mark?: string }).__mark === 'never reloaded');
}

/** The module script of the page's index.html: relative in build A, absolute in build B. */
async function shellScript(page: Page): Promise<string> {
  return (await page.getAttribute('script[type=module]', 'src')) ?? '';
}

describe.skipIf(!haveChromium)('offline, installable PWA (headless Chromium)', () => {
  beforeAll(async () => {
    fs.mkdirSync(OUT, { recursive: true });
    fs.mkdirSync(TMP, { recursive: true });
    await Promise.all([buildInto(DIST_A, './'), buildInto(DIST_B, BASE)]);
    deploy(DIST_A);
    start = await startModule();
    await serverUp();
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1400, height: 900 }, colorScheme: 'light' });
    context.on('request', (r) => {
      const u = r.url();
      if (!u.startsWith(origin + '/') && !u.startsWith('data:') && !u.startsWith('blob:')) foreignRequests.push(u);
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await serverDown();
    fs.rmSync(LIVE, { force: true });
  });

  it('the manifest has what an installable app needs, and every precached URL exists in the build', async () => {
    for (const dist of [DIST_A, DIST_B]) {
      const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
      const base = dist === DIST_A ? './' : BASE;
      expect(html).toContain(`<link rel="manifest" href="${base}manifest.webmanifest">`);
      // A strict policy; no inline scripts, nothing from another origin.
      const csp = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)![1].replace(/&#39;/g, "'");
      expect(csp).toMatch(/default-src 'self'/);
      expect(csp).toMatch(/script-src 'self'(;|$)/);
      expect(csp).toMatch(/worker-src 'self' blob:/);
      expect(csp).toMatch(/manifest-src 'self'/);
      expect(csp).not.toMatch(/https?:|\*|unsafe-/);
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(html).not.toMatch(/https?:\/\//);

      const m = JSON.parse(fs.readFileSync(path.join(dist, 'manifest.webmanifest'), 'utf8'));
      expect(m.name).toMatch(/refscope/);
      expect(m.short_name).toBe('refscope');
      expect(m.description.length).toBeGreaterThan(20);
      expect(m.display).toBe('standalone');
      // Relative to the manifest: works from whatever path the build is served from.
      expect(m.start_url).toBe('./');
      expect(m.scope).toBe('./');
      expect(m.theme_color).toMatch(/^#[0-9a-f]{6}$/i);
      expect(m.background_color).toMatch(/^#[0-9a-f]{6}$/i);
      const icons = m.icons as { src: string; sizes: string; type: string; purpose?: string }[];
      for (const [sizes, purpose] of [
        ['192x192', 'any'],
        ['512x512', 'any'],
        ['512x512', 'maskable'],
      ]) {
        const icon = icons.find((i) => i.sizes === sizes && (i.purpose ?? 'any').split(' ').includes(purpose));
        expect(icon, `${purpose} icon ${sizes}`).toBeTruthy();
        expect(icon!.src).not.toMatch(/^\/|:/);
        expect(icon!.type).toBe('image/png');
        expect(pngSize(path.join(dist, icon!.src)).join('x')).toBe(sizes);
      }
      const handlers = m.file_handlers as { action: string; accept: Record<string, string[]> }[];
      const exts = handlers.flatMap((h) => Object.values(h.accept).flat());
      expect(exts).toEqual(expect.arrayContaining(['.ref', '.list']));
      for (const h of handlers)
        expect(new URL(h.action, 'https://x.test/app/').href.startsWith('https://x.test/app/')).toBe(true);
      expect(m.launch_handler?.client_mode).toBeTruthy();

      // Every precached URL is a file of the build; the build's scripts, styles, icons, manifest,
      // shell and samples are all precached.
      const urls = precached(dist);
      expect(new Set(urls).size).toBe(urls.length);
      for (const u of urls) {
        expect(u, 'precache URLs are relative to sw.js').not.toMatch(/^\/|:/);
        expect(fs.statSync(path.join(dist, decodeURIComponent(u))).isFile(), u).toBe(true);
      }
      const files = walk(dist);
      const samples = JSON.parse(fs.readFileSync(path.join(dist, 'samples/index.json'), 'utf8')).samples as {
        name: string;
        files: string[];
      }[];
      const must = [
        'index.html',
        'manifest.webmanifest',
        'samples/index.json',
        ...files.filter((f) => f.startsWith('assets/') || f.startsWith('icons/')),
        ...samples.flatMap((s) => s.files.map((f) => `samples/${s.name}/${f}`)),
      ];
      expect(must.filter((f) => f.startsWith('assets/') && /engine\.worker/.test(f))).toHaveLength(1);
      expect(urls).toEqual(expect.arrayContaining(must));
      // The service worker itself and Workbox's runtime are not in the list.
      expect(urls.filter((u) => u === 'sw.js' || /^workbox-/.test(u))).toEqual([]);
      // Offline navigations get the cached shell; updates wait for the user (no skipWaiting at install).
      const sw = fs.readFileSync(path.join(dist, 'sw.js'), 'utf8');
      expect(sw).toMatch(/NavigationRoute\(\w+\.createHandlerBoundToURL\("index\.html"\)\)/);
      expect(sw).toMatch(/"SKIP_WAITING"===\w+\.data\.type&&self\.skipWaiting\(\)/);
      expect(sw.replace(/"SKIP_WAITING"===\w+\.data\.type&&self\.skipWaiting\(\)/, '')).not.toMatch(/skipWaiting\(\)/);
    }
    // The two builds differ (B is a new version for the update test).
    expect(fs.readFileSync(path.join(DIST_A, 'sw.js'), 'utf8')).not.toBe(
      fs.readFileSync(path.join(DIST_B, 'sw.js'), 'utf8'),
    );

    // Chromium reads the manifest without errors and finds the app installable (a persistent
    // profile: Playwright's default contexts are incognito, where nothing can be installed).
    const profile = path.join(TMP, `pwa-profile-${process.pid}`);
    fs.rmSync(profile, { recursive: true, force: true });
    const persistent = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS });
    try {
      const page = track(persistent.pages()[0] ?? (await persistent.newPage()));
      const cdp = await persistent.newCDPSession(page);
      await page.goto(url);
      await waitControlled(page);
      const am = await cdp.send('Page.getAppManifest');
      expect(am.url).toBe(`${url}manifest.webmanifest`);
      expect(am.errors).toEqual([]);
      expect(am.manifest).toMatchObject({
        startUrl: url,
        scope: url,
        id: url,
        display: 'kStandalone',
        name: expect.stringMatching(/refscope/),
      });
      expect(am.manifest?.icons).toHaveLength(3);
      expect((await cdp.send('Page.getInstallabilityErrors')).installabilityErrors).toEqual([]);
    } finally {
      await persistent.close();
      fs.rmSync(profile, { recursive: true, force: true });
    }

    // The server sends the policy as a header too (with frame-ancestors).
    const r = await fetch(url);
    expect(r.headers.get('content-security-policy')).toMatch(/^default-src 'self';.*frame-ancestors 'none'$/);
    expect((await fetch(new URL('sw.js', url))).headers.get('cache-control')).toBe('no-cache');
  });

  it('after one visit it works offline: default sample, dropped folder, file input, samples, deep links, launchQueue', async () => {
    const page = track(await context.newPage());
    const cdp = await context.newCDPSession(page);
    await page.goto(url);
    await waitLoad(page, 0);
    await waitControlled(page);
    // First install: the "ready to work offline" notice.
    await page.waitForSelector('[data-testid=pwa-offline-ready]');
    expect(await page.textContent('[data-testid=pwa-offline-ready]')).toMatch(/ready to work offline/);
    await shot(page, 'offline-ready');
    expect(await page.locator('[data-testid=pwa-update]').count()).toBe(0);

    // No network: the server is gone and the browser is offline.
    await serverDown();
    await context.setOffline(true);
    try {
      await offline(page, cdp);
    } finally {
      await context.setOffline(false);
      await serverUp();
      await page.close();
    }
  });

  /** The offline part of the test above (the server is down, the context offline). */
  async function offline(page: Page, cdp: CDPSession): Promise<void> {
    await page.reload();
    await waitLoad(page, 0);
    expect(await page.evaluate(() => !!navigator.serviceWorker.controller)).toBe(true);
    expect(await shown(page)).toEqual(want(fx('recreate-1000')));
    // Once the cache has it, the notice does not come back.
    expect(await page.locator('[data-testid=pwa-offline-ready]').count()).toBe(0);

    // A folder dropped from disk.
    let prev = await loadId(page);
    await dropPaths(cdp, [fx('basic-sha256')]);
    await waitLoad(page, prev);
    expect(await shown(page)).toEqual(want(fx('basic-sha256')));
    expect(await page.textContent('.source-label')).toBe('dropped folder reftable/');

    // The file input (a new engine worker is started from the cache on each reload).
    const dir = fx('nocompact-s2');
    prev = await loadId(page);
    await page.setInputFiles(
      '[data-testid=open-files-input]',
      fs.readdirSync(dir).map((n) => path.join(dir, n)),
    );
    await waitLoad(page, prev);
    expect(await shown(page)).toEqual(want(dir));

    // A built-in sample from the menu (its tables come from the precache).
    prev = await loadId(page);
    await page.click('[data-testid=samples-menu]');
    await page.click('[data-testid=sample-nocompact-s1]');
    await waitLoad(page, prev);
    expect(await shown(page)).toEqual(want(fx('nocompact-s1')));
    await shot(page, 'offline-sample');

    // Deep links opened offline: the precached shell, and the navigation fallback for another URL.
    await page.goto('about:blank');
    await page.goto(`${url}index.html#/refs?q=refs%2Fheads%2F&sample=basic-sha1`);
    await page.waitForSelector('[data-testid=refs-count][data-value="3"]');
    await page.goto('about:blank');
    await page.goto(`${url}?opened=from-a-bookmark#/overview?sample=basic-sha1`);
    await waitLoad(page, 0);
    expect(await shown(page)).toEqual(want(fx('basic-sha1')));

    // Files the installed app is opened with (manifest file_handlers → launchQueue), offline.
    const launched = track(await context.newPage());
    await launched.addInitScript(() => {
      // Chromium has a (read-only) launchQueue of its own: shadow it.
      const w = window as unknown as { __launch?: (p: unknown) => void };
      Object.defineProperty(window, 'launchQueue', {
        configurable: true,
        value: {
          setConsumer(c: (p: unknown) => void) {
            w.__launch = c;
          },
        },
      });
    });
    await launched.goto(`${url}#/overview?sample=none`);
    await launched.waitForFunction(() => typeof (window as unknown as { __launch?: unknown }).__launch === 'function');
    const files = filesOf(fx('jgit-levels'));
    await launched.evaluate((items) => {
      const handles = items.map((it) => {
        const bin = atob(it.b64);
        const u = new Uint8Array(bin.length);
        for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
        const file = new File([u], it.name);
        return { kind: 'file', name: it.name, getFile: async () => file };
      });
      (window as unknown as { __launch: (p: unknown) => void }).__launch({ files: handles, targetURL: location.href });
    }, files);
    await waitLoad(launched, 0);
    expect(await shown(launched)).toEqual(want(fx('jgit-levels')));
    expect(await launched.textContent('.source-label')).toBe(`opened ${files.length} files`);
    await launched.close();

    // A shared link (#s=…, src/engine/share/) opened offline: the fragment never reaches a
    // server, the shell comes from the cache. (The shared report itself: the next test.)
    const dir2 = fx('nocompact-s1');
    const files2 = collectInput(dir2);
    const link = shareLink(analyzeFiles(files2), cliReport(files2), { base: url });
    expect(link.ok).toBe(true);
    const shared = track(await context.newPage());
    await shared.goto(link.ok ? link.link : url);
    await shared.waitForSelector('[data-testid=main]');
    expect(await shared.textContent('.brand')).toBe('refscope');
    expect(await shared.locator('[data-testid=app-error]').count()).toBe(0);
    await shared.close();
  }

  it('a shared link (#s=…) opened offline shows the shared report and the sharer’s simulation results', async () => {
    // The service worker is installed (the test above); make sure this page is controlled.
    const page = track(await context.newPage());
    await page.goto(url);
    await waitLoad(page, 0);
    await waitControlled(page);
    const dir = fx('nocompact-s1');
    const files = collectInput(dir);
    const a = analyzeFiles(files);
    const sim = Simulator.fromAnalysis(a);
    const spec = 'lookup:missing:100';
    const result = sim.run(sim.parseSpec(spec), { models: ['git-2.49', 'git-2.55', 'git-2.56', 'initial'] });
    const simulation = simulationForShare({
      source: 'live',
      result,
      code: workloadCode(spec),
      tables: result.input.tables.length,
      options: { warnAmbiguousRefs: true, autoCompaction: true, factor: 2 },
    });
    const link = shareLink(a, cliReport(files), { base: url, simulation });
    expect(link.ok).toBe(true);
    if (!link.ok) return;
    const want = reportFromShare(decodeShare(link.link));
    await serverDown();
    await context.setOffline(true);
    try {
      await page.goto('about:blank');
      await page.goto(link.link);
      await page.waitForSelector('[data-testid=shared-banner]');
      await waitLoad(page, 0);
      expect(await page.evaluate(() => !!navigator.serviceWorker.controller)).toBe(true);
      // The figures the engine rebuilds from the link (table names are synthetic, the same on both sides).
      expect(await shown(page)).toEqual(expected(want));
      expect(await page.textContent('[data-testid=shared-banner]')).toMatch(/shared report \(no files\)/);
      // The sharer's simulation results, in the Simulator view.
      await page.click('[data-testid=tab-simulator]');
      await page.waitForSelector('[data-testid=sim-shared-results]');
      const models = await page
        .locator('[data-testid=sim-shared-results] [data-testid=sim-row]')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-model')));
      expect(models).toEqual(['git-2.49', 'git-2.55', 'git-2.56', 'initial']);
      expect(await page.textContent('[data-testid=sim-shared-results] [data-testid=sim-workload]')).toMatch(
        /100 reads of missing ref names/,
      );
    } finally {
      await context.setOffline(false);
      await serverUp();
      await page.close();
    }
  });

  it('a new build shows "Update available — reload"; the page never reloads by itself', async () => {
    // Build A is cached and in control. Open the user's own files.
    const page = track(await context.newPage());
    const cdp = await context.newCDPSession(page);
    const navigations: string[] = [];
    page.on('framenavigated', (f) => {
      if (f === page.mainFrame()) navigations.push(f.url());
    });
    await page.goto(`${url}#/overview?sample=none`);
    await waitControlled(page);
    await page.waitForSelector('[data-testid=main][data-status=idle]'); // sample=none: nothing loaded
    const prev = await loadId(page);
    await dropPaths(cdp, [fx('recreate-1000')]);
    await waitLoad(page, prev);
    const id = await loadId(page);
    expect(await shown(page)).toEqual(want(fx('recreate-1000')));
    expect(await shellScript(page)).toMatch(/^\.\/assets\//);
    await mark(page);
    const navs = navigations.length;

    // Deploy build B and ask for an update.
    deploy(DIST_B);
    await page.evaluate(async () => {
      await (await navigator.serviceWorker.getRegistration())!.update();
    });
    // Installing B precaches every file of the build: on a busy machine that takes a while (a bound
    // against a hang, not a speed check).
    await page.waitForSelector('[data-testid=pwa-update][data-state=prompt]', { timeout: 150_000 });
    expect(await page.textContent('[data-testid=pwa-update]')).toMatch(/new version of refscope is available/);
    expect(await page.textContent('[data-testid=pwa-reload]')).toBe('Update available — reload');
    // The user's own files are loaded: the prompt says a reload closes them.
    expect(await page.textContent('[data-testid=pwa-update]')).toMatch(/closes the files you opened/);
    await shot(page, 'update-available');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, 'update-available-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // Nothing happens by itself: with the new version installed and waiting (the state in which an
    // automatic update would reload), the page is the same, with the same analysis.
    await page.waitForFunction(() => navigator.serviceWorker.getRegistration().then((r) => !!r?.waiting));
    expect(await marked(page)).toBe(true);
    expect(navigations.length).toBe(navs);
    expect(await loadId(page)).toBe(id);
    expect(await page.textContent('.source-label')).toBe('dropped folder reftable/');

    // "Later" leaves a small control.
    await page.click('[data-testid=pwa-later]');
    await page.waitForSelector('[data-testid=pwa-update][data-state=deferred]');
    expect(await page.textContent('[data-testid=pwa-update]')).toMatch(/Update available — reload/);
    await shot(page, 'update-deferred');

    // Another window of the app activates the new version: this page keeps running build A.
    const other = track(await context.newPage());
    await other.goto(url);
    await other.waitForSelector('[data-testid=pwa-reload]', { timeout: HANG_MS });
    // The reload follows the new service worker's activation, which may come after a 'load' event
    // of the page as it was: wait until the document is build B's (a bound against a hang: a page
    // that stays on build A fails here).
    await other.click('[data-testid=pwa-reload]');
    await expect
      .poll(() => shellScript(other).catch(() => ''), { timeout: 2 * HANG_MS })
      .toMatch(new RegExp(`^${BASE}assets/`));
    await waitLoad(other, 0);
    expect(await shown(other)).toEqual(want(fx('recreate-1000')));

    await page.waitForSelector('[data-testid=pwa-update][data-state=prompt]', { timeout: HANG_MS });
    expect(await page.textContent('[data-testid=pwa-update]')).toMatch(/activated in another window/);
    // The new version controls this page now (the state a wrong reload would follow): still the same page.
    await page.waitForFunction(() => !!navigator.serviceWorker.controller);
    expect(await marked(page)).toBe(true);
    expect(navigations.length).toBe(navs);
    expect(await loadId(page)).toBe(id);
    expect(await shown(page)).toEqual(want(fx('recreate-1000')));
    await shot(page, 'update-activated-elsewhere');

    // Pressing the control reloads into build B.
    await Promise.all([page.waitForEvent('load'), page.click('[data-testid=pwa-reload]')]);
    expect(await marked(page)).toBe(false);
    expect(await shellScript(page)).toMatch(new RegExp(`^${BASE}assets/`));
    await page.waitForSelector('[data-testid=main]');

    // Build B (absolute base) works offline too.
    await serverDown();
    await context.setOffline(true);
    try {
      await page.goto('about:blank');
      await page.goto(`${url}#/overview?sample=basic-sha1`);
      await waitLoad(page, 0);
      expect(await shown(page)).toEqual(want(fx('basic-sha1')));
      expect(await shellScript(page)).toMatch(new RegExp(`^${BASE}assets/`));
    } finally {
      await context.setOffline(false);
      await serverUp();
    }
    await other.close();
    await page.close();
  });

  it('made no request to any other origin and raised no page error', () => {
    expect(foreignRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
