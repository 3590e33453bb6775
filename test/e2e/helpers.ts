/**
 * Shared helpers of the browser tests (the production build in Debian's headless Chromium, driven
 * by playwright-core): building, comparing the page's figures with the engine's, dropping files.
 * The same steps as test/e2e/app.test.ts, with the page passed in.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type CDPSession,
  type Download,
  type Page,
} from 'playwright-core';
import { inject } from 'vitest';
import { analyzeFiles, buildReport, type InputFile, type Report } from '../../src/engine/index.ts';

export const ROOT = path.resolve(__dirname, '../..');
export const FX = path.join(ROOT, 'test/fixtures/reftable');
export const OUT = path.join(ROOT, 'test-results');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const haveChromium = fs.existsSync(CHROMIUM);
/**
 * How long a browser test waits for something the page must come to show: a bound against a
 * hang, never a speed check (`npm test` runs on machines busy with other work, where a step that
 * takes a second alone can take a minute).
 */
export const HANG_MS = 120_000;

/**
 * The run's shared Chromium (test/e2e/browser-setup.ts), connected to; or, when the run started
 * none (a file run on its own with a filter the setup did not recognise), a browser of its own.
 * `close()` on a connected browser closes this file's contexts and disconnects.
 */
export async function launchBrowser(): Promise<Browser> {
  const ws = inject('chromiumWs');
  if (ws) return chromium.connect(ws);
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/** What the pages of watched contexts did that a test forbids or counts (see `watchedContext`). */
export interface Watch {
  /** Every request, in order. */
  requests: string[];
  /** Requests to another origin than the app's (data: and blob: URLs are the page's own). */
  foreign: string[];
  /** Page errors, dialogs (dismissed) and, when asked for, console errors. */
  errors: string[];
}

export function newWatch(): Watch {
  return { requests: [], foreign: [], errors: [] };
}

/**
 * A browser context whose requests and pages are recorded in `watch`: `origin` is the app's
 * (requests elsewhere are foreign); each page's errors and dialogs are recorded (dialogs
 * dismissed), and its console errors too with `consoleErrors`.
 */
export async function watchedContext(
  browser: Browser,
  origin: string,
  watch: Watch,
  options: BrowserContextOptions & { consoleErrors?: boolean } = {},
): Promise<BrowserContext> {
  const { consoleErrors = false, ...contextOptions } = options;
  const c = await browser.newContext({ viewport: { width: 1400, height: 900 }, ...contextOptions });
  c.on('request', (r) => {
    const u = r.url();
    watch.requests.push(u);
    if (!u.startsWith(origin + '/') && !u.startsWith('data:') && !u.startsWith('blob:')) watch.foreign.push(u);
  });
  c.on('page', (p) => {
    p.on('pageerror', (e) => watch.errors.push(e.message));
    if (consoleErrors)
      p.on('console', (m) => {
        if (m.type() === 'error') watch.errors.push(`console: ${m.text()}`);
      });
    p.on('dialog', (d) => {
      watch.errors.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
  });
  return c;
}

/** The app of a browser test file: the build copied to `dist`, served under `base`, the browser. */
export interface AppUnderTest {
  server: Server;
  /** The app's URL (`origin` + `base`). */
  url: string;
  origin: string;
  browser: Browser;
}

/**
 * What every browser test file's `beforeAll` does first: the build (made once per run, see
 * `buildInto`) copied into `dist`, served under `base` on `port` or the next free one, and the
 * run's shared browser. `close` it in `afterAll`.
 */
export async function startApp(dist: string, base: string, port: number): Promise<AppUnderTest> {
  await buildInto(dist);
  const { server, url, origin } = await serveBuild(dist, base, port);
  return { server, url, origin, browser: await launchBrowser() };
}

/** Close what `startApp` opened (the browser connection: this file's contexts; the server). */
export async function stopApp(app: AppUnderTest | undefined): Promise<void> {
  await app?.browser.close();
  app?.server.close();
}

/** What a build of the app is made from: every file whose change can change the build. */
const BUILD_INPUTS = ['src/app', 'src/engine', 'workers', 'public', 'index.html', 'vite.config.ts', 'package.json'];

/** A digest of the build inputs' paths and contents (the cache key of the e2e builds). */
function buildInputsDigest(base: string): string {
  const h = createHash('sha256').update(base);
  const walk = (rel: string): void => {
    const abs = path.join(ROOT, rel);
    if (!fs.existsSync(abs)) return;
    if (fs.statSync(abs).isDirectory()) {
      for (const n of fs.readdirSync(abs).sort()) walk(path.join(rel, n));
    } else h.update(`${rel}\0`).update(fs.readFileSync(abs));
  };
  for (const r of [...BUILD_INPUTS, 'scripts/start.mjs']) walk(r);
  return h.digest('hex').slice(0, 16);
}

/**
 * Build the app into `outDir` as `npm start` does, with `base` ('./' or an absolute path). A child
 * process: vitest's NODE_ENV=test must not reach the build. The browser test files all test the
 * same build, so it is made once per state of the sources and base (under `.tmp/e2e-builds/`, a
 * lock directory keeping two test workers from building it twice) and copied into `outDir`.
 */
export async function buildInto(outDir: string, base = './'): Promise<void> {
  const cacheRoot = path.join(ROOT, '.tmp/e2e-builds');
  const built = path.join(cacheRoot, buildInputsDigest(base));
  const lock = `${built}.lock`;
  fs.mkdirSync(cacheRoot, { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      // Another worker is building it; a lock left by a killed run goes after 10 minutes.
      const st = fs.statSync(lock, { throwIfNoEntry: false });
      if (st && Date.now() - st.mtimeMs > 600_000) fs.rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    if (!fs.existsSync(path.join(built, 'index.html'))) {
      const tmp = `${built}.tmp`;
      fs.rmSync(tmp, { recursive: true, force: true });
      const code = `import('./scripts/start.mjs').then((m) => m.buildApp({ outDir: ${JSON.stringify(tmp)}, base: ${JSON.stringify(base)} }))`;
      await promisify(execFile)(process.execPath, ['--input-type=module', '-e', code], {
        cwd: ROOT,
        env: { ...process.env, NODE_ENV: 'production' },
        maxBuffer: 16 << 20,
      });
      fs.renameSync(tmp, built);
    }
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.cpSync(built, outDir, { recursive: true });
}

/** A download's bytes, read through the browser connection (a shared browser gives no local path). */
export async function downloadBytes(dl: Download): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of await dl.createReadStream()) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** scripts/start.mjs's static server, as the tests use it. */
export interface StartModule {
  serveStatic(
    dir: string,
    opts: { port?: number; base?: string; strict?: boolean },
  ): Promise<{ server: Server; url: string }>;
}

/** Load scripts/start.mjs (the server `npm start` runs). */
export async function startModule(): Promise<StartModule> {
  return (await import(pathToFileURL(path.join(ROOT, 'scripts/start.mjs')).href)) as StartModule;
}

/** Serve the build in `dir` under `base` on `port` (or the next free one): server, URL and origin. */
export async function serveBuild(
  dir: string,
  base: string,
  port: number,
): Promise<{ server: Server; url: string; origin: string }> {
  const { server, url } = await (await startModule()).serveStatic(dir, { port, base });
  return { server, url, origin: new URL(url).origin };
}

export function cliReport(files: InputFile[]): Report {
  return buildReport(analyzeFiles(files));
}

/** What the overview must show for a report. */
export function expected(r: Report) {
  return {
    live: r.stack!.live,
    tombstones: r.stack!.tombstones,
    tables: r.stack!.tables,
    totalBytes: r.stack!.totalBytes,
    rows: r.tables.map((t) => t.name),
    broken: r.tables.filter((t) => t.error).map((t) => t.name),
  };
}

export async function loadId(page: Page): Promise<number> {
  return Number(await page.getAttribute('[data-testid=main]', 'data-load-id'));
}

/** Wait until a load newer than `prev` has finished. */
export async function waitLoad(page: Page, prev: number): Promise<void> {
  await page.waitForFunction(
    (p) => {
      const m = document.querySelector('[data-testid=main]');
      return !!m && m.getAttribute('data-status') === 'ready' && Number(m.getAttribute('data-load-id')) > p;
    },
    prev,
    { timeout: HANG_MS },
  );
}

export async function show(page: Page, view: string): Promise<void> {
  await page.click(`[data-testid=tab-${view}]`);
  await page.waitForSelector(`[data-testid=tab-${view}][aria-selected=true]`);
}

/** Wait for a finished run newer than `prevRun` in the live simulator; its run id. */
export async function waitRun(p: Page, prevRun = 0): Promise<number> {
  await p.waitForFunction(
    (prev) => {
      const v = document.querySelector('[data-testid=simulator-view]');
      return !!v && v.getAttribute('data-state') === 'done' && Number(v.getAttribute('data-run-id')) > prev;
    },
    prevRun,
    { timeout: HANG_MS },
  );
  return Number(await p.getAttribute('[data-testid=simulator-view]', 'data-run-id'));
}

/** The overview's figures (from data-value) and table rows. */
export async function shown(page: Page) {
  await show(page, 'overview');
  await page.waitForSelector('[data-testid=live-refs]');
  return page.evaluate(() => {
    const v = (id: string) => Number(document.querySelector(`[data-testid=${id}]`)?.getAttribute('data-value'));
    const rows = [...document.querySelectorAll('[data-testid=table-row]')];
    return {
      live: v('live-refs'),
      tombstones: v('tombstones'),
      tables: v('table-count'),
      totalBytes: v('total-bytes'),
      rows: rows.map((e) => e.getAttribute('data-name')),
      broken: rows.filter((e) => e.querySelector('[data-testid=error]')).map((e) => e.getAttribute('data-name')),
    };
  });
}

/** A real drag and drop of files or folders from disk (DevTools protocol), as a user does it. */
export async function dropPaths(cdp: CDPSession, paths: string[]): Promise<void> {
  const data = { items: [], files: paths, dragOperationsMask: 1 };
  for (const type of ['dragEnter', 'dragOver', 'drop'] as const) {
    await cdp.send('Input.dispatchDragEvent', { type, x: 400, y: 400, data });
  }
}

/** Files of a directory as { name, base64 } for building File objects in the page. */
export function filesOf(dir: string): { name: string; b64: string }[] {
  return fs
    .readdirSync(dir)
    .sort()
    .map((n) => ({ name: n, b64: fs.readFileSync(path.join(dir, n)).toString('base64') }));
}
