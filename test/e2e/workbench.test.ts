/**
 * End-to-end (headless Chromium, the production build): the history panel and the Watch view on
 * stacks a real git writes during the test.
 * - History: a ref created, updated and deleted in three transactions (auto-compaction off); the
 *   deep link `#/refs?ref=<name>` lists its three records newest first with the kinds and object
 *   ids of `test-tool dump-reftable -t` of each table, the tombstone winning and hiding the two.
 * - Watch: git writes to a repository one command at a time; after each, the test copies the
 *   reftable directory's new state into an Origin Private File System folder from a page script
 *   (new tables first, then `tables.list`, then removing the tables git removed, in git's order),
 *   since automation cannot pick a folder; the Watch view watches that folder through the same
 *   directory-handle code path and must show each `tables.list` state in git's order, including
 *   an auto-compaction naming the tables that left git's list.
 * - Compare: copies (`cp -r`) of a stack before and after a real `git pack-refs --auto`, the first
 *   kept and the second opened: the view names exactly the tables git merged (the names that left
 *   tables.list), the table git wrote, and as many dropped records as git's dumps lose.
 * Skipped without Chromium or the real gits.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import { execFileSync } from 'node:child_process';
import { realGits, gitSkipReason, gitRepo, run, type GitRepo } from '../lib/realgit.ts';
import { seriousViolations } from './axe-run.ts';
import { decodeCompareShare } from '../../src/engine/share/compare-link.ts';
import { buildInto, dropPaths, haveChromium, launchBrowser, loadId, serveBuild, waitLoad } from './helpers.ts';

const BASE = '/refscope/wb/';
let browser: Browser;
let page: Page;
let server: Server;
let url = '';
let tmp = '';
const repos: GitRepo[] = [];
const pageErrors: string[] = [];

const listOf = (dir: string) => fs.readFileSync(path.join(dir, 'tables.list'), 'utf8').split('\n').filter(Boolean);

describe.skipIf(!haveChromium || !!gitSkipReason)('workbench: history and watch in the browser', () => {
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-wb-'));
    await buildInto(path.join(tmp, 'dist'));
    ({ server, url } = await serveBuild(path.join(tmp, 'dist'), BASE, 5400 + (process.pid % 400)));
    browser = await launchBrowser();
    page = await (await browser.newContext()).newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await page.goto(url + '#/overview?sample=none');
    // The shell has drawn with nothing loaded before the first drop (it draws after the load event).
    await page.waitForSelector('[data-testid=main][data-status=idle]', { timeout: 120_000 });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    server?.close();
    repos.forEach((r) => r.dispose());
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("a tombstoned ref's history lists the tombstone and the records it hides, with git's values", async () => {
    const g = realGits()[0];
    const r = gitRepo(g, { env: { GIT_TEST_REFTABLE_AUTOCOMPACTION: 'false' } });
    repos.push(r);
    r.git(['commit', '-q', '--allow-empty', '-m', 'one']);
    r.git(['commit', '-q', '--allow-empty', '-m', 'two']);
    r.git(['update-ref', 'refs/heads/topic', r.git(['rev-parse', 'HEAD~1']).trim()]);
    r.git(['update-ref', 'refs/heads/topic', r.git(['rev-parse', 'HEAD']).trim()]);
    r.git(['update-ref', '-d', 'refs/heads/topic']);
    const dir = path.join(r.gitDir, 'reftable');
    // git's records of the name, newest table first, from its own dump of each table.
    const want: [string, string][] = [];
    for (const t of listOf(dir).reverse()) {
      const out = run(g.testTool, ['dump-reftable', '-t', path.join(dir, t)], { cwd: r.dir, env: r.env }).stdout;
      const m = /^ref\{refs\/heads\/topic\(\d+\) (delete|val 1 ([0-9a-f]+))\}$/m.exec(out);
      if (m) want.push([m[1] === 'delete' ? 'tombstone' : 'value', m[2] ?? '']);
    }
    expect(want.map((w) => w[0])).toEqual(['tombstone', 'value', 'value']);
    const prev = await loadId(page);
    await dropPaths(await page.context().newCDPSession(page), [dir]);
    await waitLoad(page, prev);
    await page.evaluate(() => (location.hash = '#/refs?ref=refs/heads/topic'));
    await page.locator('[data-testid=history-record]').nth(2).waitFor({ timeout: 20_000 });
    const rows = await page.$$eval('[data-testid=history-record]', (els) =>
      els.map((e) => [e.getAttribute('data-kind'), e.getAttribute('data-wins'), e.textContent ?? '']),
    );
    expect(rows.map((x) => x[0])).toEqual(want.map((w) => w[0]));
    expect(rows.map((x) => x[1])).toEqual(['1', '0', '0']);
    rows.forEach((x, i) => want[i][1] && expect(x[2]).toContain(want[i][1]));
    expect(rows[0][2]).toContain('hides 2 older');
    expect(await page.locator('[data-testid=ref-history-state]').textContent()).toMatch(/^Deleted: the tombstone/);
  });

  it('Compare: before and after git pack-refs --auto names the tables git merged and the records it dropped', async () => {
    const g = realGits()[0];
    const r = gitRepo(g, { env: { GIT_TEST_REFTABLE_AUTOCOMPACTION: 'false' } });
    repos.push(r);
    r.git(['commit', '-q', '--allow-empty', '-m', 'one']);
    r.git(['commit', '-q', '--allow-empty', '-m', 'two']);
    const ids = [r.git(['rev-parse', 'HEAD~1']).trim(), r.git(['rev-parse', 'HEAD']).trim()];
    for (let k = 0; k < 4; k++) r.git(['update-ref', 'refs/heads/moved', ids[k % 2]]);
    r.git(['update-ref', '-d', 'refs/heads/moved']);
    const root = path.dirname(r.dir);
    const dir = path.join(r.gitDir, 'reftable');
    const before = path.join(root, 'before', 'reftable');
    const after = path.join(root, 'after', 'reftable');
    fs.mkdirSync(path.dirname(before));
    fs.mkdirSync(path.dirname(after));
    execFileSync('cp', ['-r', dir, before]);
    r.git(['pack-refs', '--auto']);
    execFileSync('cp', ['-r', dir, after]);
    const gone = listOf(before).filter((n) => !listOf(after).includes(n));
    const fresh = listOf(after).filter((n) => !listOf(before).includes(n));
    expect(gone.length).toBeGreaterThanOrEqual(2);
    const keys = (d: string, names: string[]) =>
      names.flatMap((n) =>
        run(g.testTool, ['dump-reftable', '-t', path.join(d, n)], { cwd: r.dir, env: r.env })
          .stdout.split('\n')
          .filter((l) => l.startsWith('ref{'))
          .map((l) => l.replace(/ (val 1|val 2) .*$/, ' $1')),
      );
    const afterKeys = new Set(keys(after, fresh));
    const dropped = keys(before, gone).filter((k) => !afterKeys.has(k));
    expect(dropped.length).toBeGreaterThan(0);
    const cdp = await page.context().newCDPSession(page);
    let prev = await loadId(page);
    await dropPaths(cdp, [before]);
    await waitLoad(page, prev);
    await page.evaluate(() => (location.hash = '#/compare'));
    await page.locator('[data-testid=compare-keep]').click({ timeout: 10_000 });
    await page.locator('[data-testid=compare-waiting]').waitFor({ timeout: 10_000 });
    prev = await loadId(page);
    await dropPaths(cdp, [after]);
    await waitLoad(page, prev);
    const merge = page.locator('[data-testid=compare-merge]');
    await merge.first().waitFor({ timeout: 15_000 });
    expect(await merge.count()).toBe(1);
    expect(await merge.getAttribute('data-from')).toBe(gone.join(','));
    expect(await merge.getAttribute('data-into')).toBe(fresh[0]);
    expect(await page.locator('[data-testid=compare-result]').getAttribute('data-compaction')).toBe('1');
    expect(Number(await page.locator('[data-testid=compare-records]').getAttribute('data-dropped'))).toBe(
      dropped.length,
    );
    // axe-core on the compared state, both themes.
    const bad: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      bad.push(...(await seriousViolations(page, `compare ${scheme}`)));
    }
    await page.emulateMedia({ colorScheme: 'light' });
    expect(bad).toEqual([]);

    // The comparison link: shapes only (no ref name in its data); opened in a fresh page with no
    // input, it shows git's merge by update_index ranges (git names a table after its range,
    // reftable.adoc "Layout") and the records git's dumps lose.
    const link = (await page.locator('[data-testid=compare-share-link]').getAttribute('href'))!;
    expect(link).toMatch(/#\/compare\?c=1\./);
    expect(JSON.stringify(decodeCompareShare(link))).not.toMatch(/refs\/|HEAD/);
    const rangeOf = (n: string) => {
      const m = /^0x([0-9a-f]+)-0x([0-9a-f]+)-/.exec(n)!;
      return `${parseInt(m[1], 16)}-${parseInt(m[2], 16)}`;
    };
    const other = await page.context().newPage();
    other.on('pageerror', (e) => pageErrors.push(String(e)));
    await other.goto(link);
    const sm = other.locator('[data-testid=compare-merge]');
    await sm.first().waitFor({ timeout: 20_000 });
    expect(await sm.count()).toBe(1);
    expect(await sm.getAttribute('data-from-ranges')).toBe(gone.map(rangeOf).join(','));
    expect(await sm.getAttribute('data-into-range')).toBe(rangeOf(fresh[0]));
    const res = other.locator('[data-testid=compare-result]');
    expect(await res.getAttribute('data-shared')).toBe('1');
    expect(await res.getAttribute('data-compaction')).toBe('1');
    expect(Number(await other.locator('[data-testid=compare-records]').getAttribute('data-dropped'))).toBe(
      dropped.length,
    );
    expect(await other.locator('[data-testid=compare-after-tables]').textContent()).toBe(String(listOf(after).length));
    expect(await loadId(other)).toBe(0);
    const sharedBad: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      await other.emulateMedia({ colorScheme: scheme });
      sharedBad.push(...(await seriousViolations(other, `shared compare ${scheme}`)));
    }
    expect(sharedBad).toEqual([]);
    await other.close();
    // Opting in puts the names in.
    await page.locator('[data-testid=compare-share-names]').check();
    await expect
      .poll(
        async () =>
          decodeCompareShare((await page.locator('[data-testid=compare-share-link]').getAttribute('href'))!).names,
      )
      .toEqual({ created: [], updated: [], deleted: [] });
  });

  it('the Watch view shows each tables.list state git writes, in order, including an auto-compaction', async () => {
    const g = realGits()[realGits().length - 1];
    const r = gitRepo(g);
    repos.push(r);
    r.git(['commit', '-q', '--allow-empty', '-m', 'one']);
    const oid = r.git(['rev-parse', 'HEAD']).trim();
    const dir = path.join(r.gitDir, 'reftable');
    await page.evaluate(async () => {
      const root = await navigator.storage.getDirectory();
      await root.removeEntry('live', { recursive: true }).catch(() => undefined);
      await root.getDirectoryHandle('live', { create: true });
    });
    /** Copy git's current state into OPFS `live/` in git's order: tables, tables.list, removals. */
    const copy = async () => {
      const list = listOf(dir);
      const files = list.map((n) => ({ n, b: fs.readFileSync(path.join(dir, n)).toString('base64') }));
      const listB64 = fs.readFileSync(path.join(dir, 'tables.list')).toString('base64');
      await page.evaluate(
        async ({ files, listB64, list }) => {
          const d = await (await navigator.storage.getDirectory()).getDirectoryHandle('live');
          const put = async (name: string, b64: string) => {
            const w = await (await d.getFileHandle(name, { create: true })).createWritable();
            await w.write(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
            await w.close();
          };
          const have: string[] = [];
          for await (const k of (d as unknown as { keys(): AsyncIterable<string> }).keys()) have.push(k);
          for (const f of files) if (!have.includes(f.n)) await put(f.n, f.b);
          await put('tables.list', listB64);
          for (const k of have) if (k.endsWith('.ref') && !list.includes(k)) await d.removeEntry(k);
        },
        { files, listB64, list },
      );
      return list;
    };
    const states = [await copy()];
    await page.evaluate(() => (location.hash = '#/watch'));
    await page.locator('[data-testid=watch-opfs-name]').fill('live');
    await page.locator('[data-testid=watch-opfs]').click();
    const seen = async (want: string[]) =>
      page
        .locator(`[data-testid=watch-event][data-tables="${want.join(',')}"]`)
        .first()
        .waitFor({ timeout: 15_000 });
    await seen(states[0]);
    for (let k = 0; k < 5; k++) {
      r.git(['update-ref', `refs/heads/w${k}`, oid]);
      states.push(await copy());
      await seen(states[states.length - 1]);
    }
    const shown = await page.$$eval('[data-testid=watch-event]', (els) =>
      els.map((e) => [e.getAttribute('data-tables') ?? '', e.getAttribute('data-compactions') ?? '']),
    );
    // Each step is one state, in git's order (the copy gives the page exactly git's states).
    expect(shown.map((s) => s[0])).toEqual(states.map((s) => s.join(',')));
    let compactions = 0;
    for (let k = 1; k < states.length; k++) {
      const gone = states[k - 1].filter((n) => !states[k].includes(n));
      if (!gone.length) continue;
      compactions++;
      const fresh = states[k].filter((n) => !states[k - 1].includes(n));
      expect(shown[k][1], `step ${k + 1}`).toBe(`${gone.join('+')}>${fresh[fresh.length - 1]}`);
    }
    expect(compactions, 'git auto-compacted at least once').toBeGreaterThan(0);
    expect(pageErrors).toEqual([]);
  });
});
