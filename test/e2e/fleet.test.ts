/**
 * The fleet view in headless Chromium: a scan result made here by `refscope scan` (Parquet, over
 * a small tree of repositories laid out from the git-written fixtures) is dropped on the built app;
 * the view's totals, its chart bins and its filter must match counts made here from the file
 * itself (read with hyparquet, counted by hand below), and a damaged scan file gets a one-line
 * error naming it. Skipped when Chromium is not installed.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { seriousViolations } from './axe-run.ts';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import { FX, HANG_MS, ROOT, buildInto, haveChromium, launchBrowser, serveBuild } from './helpers.ts';
import { readScanFile, type FleetRow } from '../../src/app/fleet/scanfile.ts';

let tmp: string;
let browser: Browser;
let server: Server;
let url: string;
let scanFile: string;
let rows: FleetRow[];

/** A bare-repository shell around a fixture's ref storage (HEAD, refs/, objects/ as git lays them out). */
function repoFrom(dir: string, src: string, kind: 'reftable' | 'files'): void {
  fs.mkdirSync(path.join(dir, 'objects'), { recursive: true });
  if (kind === 'reftable') {
    fs.cpSync(src, path.join(dir, 'reftable'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'refs'));
    fs.writeFileSync(path.join(dir, 'refs', 'heads'), 'this repository uses the reftable format\n');
    fs.writeFileSync(path.join(dir, 'HEAD'), 'ref: refs/heads/.invalid\n');
    fs.writeFileSync(
      path.join(dir, 'config'),
      '[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefstorage = reftable\n',
    );
  } else {
    for (const f of ['HEAD', 'packed-refs', 'refs'])
      fs.cpSync(path.join(src, f), path.join(dir, f), { recursive: true });
  }
}

/**
 * The shell has drawn with nothing loaded: a drop or click right after `goto` could reach the page
 * before the app listens (the shell draws in a task after the load event).
 */
async function appIdle(page: Page): Promise<void> {
  await page.waitForSelector('[data-testid=main][data-status=idle]', { timeout: HANG_MS });
}

async function drop(page: Page, name: string, bytes: Uint8Array): Promise<void> {
  await page.evaluate(
    ({ name, b64 }) => {
      const bin = atob(b64);
      const u = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
      const dt = new DataTransfer();
      dt.items.add(new File([u], name));
      for (const type of ['dragenter', 'dragover', 'drop'])
        document.body.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    },
    { name, b64: Buffer.from(bytes).toString('base64') },
  );
}

const value = async (page: Page, id: string): Promise<number> =>
  Number(await page.getByTestId(id).getAttribute('data-value', { timeout: 10_000 }));

describe.skipIf(!haveChromium)('fleet view', () => {
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-fleet-e2e-'));
    const tree = path.join(tmp, 'storage');
    const fixtures = ['basic-sha1', 'recreate-1000', 'nocompact-s3', 'smallblocks', 'jgit-levels'];
    fixtures.forEach((f, i) => repoFrom(path.join(tree, `group/p${i}.git`), path.join(FX, f, 'reftable'), 'reftable'));
    repoFrom(path.join(tree, 'group/files.git'), path.join(ROOT, 'test/fixtures/files/basic'), 'files');
    // A damaged one: the newest table of a copy of nocompact-s3 cut in half.
    repoFrom(path.join(tree, 'broken.git'), path.join(FX, 'nocompact-s3', 'reftable'), 'reftable');
    const list = fs.readFileSync(path.join(tree, 'broken.git/reftable/tables.list'), 'utf8').trim().split('\n');
    const last = path.join(tree, 'broken.git/reftable', list[list.length - 1]);
    fs.truncateSync(last, Math.floor(fs.statSync(last).size / 2));
    scanFile = path.join(tmp, 'fleet.parquet');
    const r = spawnSync(
      process.execPath,
      [path.join(ROOT, 'bin/refscope.mjs'), 'scan', tree, '--jobs', '1', '--out', scanFile],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    if (r.status !== 0) throw new Error(`refscope scan failed: ${r.stderr}`);
    rows = await readScanFile(scanFile, new Uint8Array(fs.readFileSync(scanFile)));
    const dist = path.join(tmp, 'dist');
    await buildInto(dist);
    ({ server, url } = await serveBuild(dist, '/', 4600 + (process.pid % 300)));
    browser = await launchBrowser();
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    server?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('shows the numbers of the dropped Parquet file', async () => {
    expect(rows.length).toBe(7);
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(url + '#/overview?sample=none');
    await appIdle(page);
    await drop(page, 'fleet.parquet', new Uint8Array(fs.readFileSync(scanFile)));
    await page.getByTestId('fleet-table').waitFor({ timeout: 30_000 });
    // Counted here from the file's rows, one plain loop per figure.
    let reftable = 0,
      files = 0,
      unreadable = 0,
      refs = 0,
      tomb = 0;
    for (const r of rows) {
      if (r.backend === 'reftable') reftable++;
      if (r.backend === 'files') files++;
      if (r.gitReadable === false) unreadable++;
      refs += typeof r.refs === 'number' ? r.refs : 0;
      tomb += typeof r.tombstoneRecords === 'number' ? r.tombstoneRecords : 0;
    }
    expect([reftable, files, unreadable]).toEqual([6, 1, 1]);
    expect(await value(page, 'fleet-total-repositories')).toBe(7);
    expect(await value(page, 'fleet-total-reftable')).toBe(reftable);
    expect(await value(page, 'fleet-total-files-backend')).toBe(files);
    expect(await value(page, 'fleet-total-git-cannot-read')).toBe(unreadable);
    expect(await value(page, 'fleet-total-refs')).toBe(refs);
    expect(await value(page, 'fleet-total-tombstone-records')).toBe(tomb);
    expect(await page.locator('[data-testid=fleet-table] tbody tr').count()).toBe(7);
    // The tables chart: one bar per bin, its count the rows with that many tables.
    const bars = page.locator('[data-testid=fleet-chart-tables] g');
    const byLabel: Record<string, number> = {};
    for (let i = 0; i < (await bars.count()); i++)
      byLabel[(await bars.nth(i).getAttribute('data-label'))!] = Number(await bars.nth(i).getAttribute('data-count'));
    expect(byLabel['0']).toBe(rows.filter((r) => r.tables === 0).length);
    expect(byLabel['1']).toBe(rows.filter((r) => r.tables === 1).length);
    expect(byLabel['3']).toBe(rows.filter((r) => r.tables === 3).length);
    // Filter: only what git cannot read.
    await page.getByTestId('fleet-unreadable').check();
    expect(await value(page, 'fleet-count')).toBe(unreadable);
    await expect.poll(() => page.locator('[data-testid=fleet-table] tbody tr').count()).toBe(1);
    expect(await page.locator('[data-testid=fleet-table] tbody tr td').first().textContent()).toBe('broken.git');
    await page.getByTestId('fleet-unreadable').uncheck();
    // Sorting by refs, most first: the first row is the file's largest.
    await page.getByTestId('fleet-sort-refs').click();
    const most = rows.reduce((a, b) => (Number(b.refs ?? -1) > Number(a.refs ?? -1) ? b : a));
    expect(await page.locator('[data-testid=fleet-table] tbody tr td').first().textContent()).toBe(most.path);
    // axe-core on the fleet view, both themes.
    const bad: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      bad.push(...(await seriousViolations(page, `fleet ${scheme}`)));
    }
    expect(bad).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('every row of a large scan file can be reached: the table draws the rows in view', async () => {
    // 2,000 rows: four times the 500 the table once stopped at.
    const n = 2000;
    const paths = Array.from({ length: n }, (_, i) => `group/r${String(i).padStart(4, '0')}.git`);
    const text = paths
      .map((p, i) => JSON.stringify({ root: '/srv/git', path: p, backend: 'reftable', tables: 1 + (i % 5), refs: i }))
      .join('\n');
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(url + '#/overview?sample=none');
    await appIdle(page);
    await drop(page, 'big.jsonl', new TextEncoder().encode(text + '\n'));
    await page.getByTestId('fleet-table').waitFor({ timeout: 30_000 });
    expect(await value(page, 'fleet-count')).toBe(n);
    await page.getByTestId('fleet-sort-path').click();
    const drawn = await page.locator('[data-testid=fleet-table] tbody tr:not(.fleet-spacer)').count();
    expect(drawn).toBeGreaterThan(0);
    expect(drawn).toBeLessThan(200);
    await page.getByTestId('fleet-scroll').evaluate((el) => (el.scrollTop = el.scrollHeight));
    const lastPath = [...paths].sort()[n - 1];
    await expect
      .poll(async () => page.locator('[data-testid=fleet-table] tbody tr:not(.fleet-spacer) td').last().count())
      .toBe(1);
    await expect
      .poll(() =>
        page
          .locator('[data-testid=fleet-table] tbody tr:not(.fleet-spacer)')
          .last()
          .locator('td')
          .first()
          .textContent(),
      )
      .toBe(lastPath);
    await page.close();
  });

  it('a damaged scan file gets one line naming it', async () => {
    const page = await browser.newPage();
    await page.goto(url + '#/overview?sample=none');
    await appIdle(page);
    const bytes = new Uint8Array(fs.readFileSync(scanFile));
    await drop(page, 'cut.parquet', bytes.subarray(0, bytes.length - 20));
    const err = page.getByTestId('fleet-error');
    await err.waitFor({ timeout: 30_000 });
    expect(await err.textContent()).toMatch(/^cut\.parquet: offset \d+: expected /);
    await page.close();
  });
});
