/**
 * End-to-end: the Compaction and Share views, and opening share links (issues #5, #7, #9), in the
 * production build in headless Chromium (playwright-core driving Debian's /usr/bin/chromium),
 * served from a sub-path.
 *
 * - Compaction: on nocompact-s1 the highlighted segment is exactly the tables git's
 *   `git pack-refs --auto` merged (truth/after-pack-refs-auto.txt), and the real compaction in the
 *   worker gives git's table size and a zip of the new stack; on tombstones-50k there is no segment
 *   by bytes but one by records.
 * - Share: the dialog's link carries no ref name of the fixture (truth/refs.txt) unless asked; a
 *   link made by the CLI engine (`shareLink(analyzeFiles(collectInput(dir)), buildReport(…))`)
 *   opened in a fresh browser context shows the CLI report's live-ref, tombstone and table counts
 *   and the "shared report" banner; truncated, damaged and future-version links show the error;
 *   exports download; a stack too large for a link offers the JSON export.
 * - Every request of every context is recorded: none may go to another origin.
 * Screenshots (light and dark) go to test-results/views-*.png. Skipped without Chromium.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { analyzeFiles, buildReport, textToKey } from '../../src/engine/index.ts';
import { collectInput } from '../../src/cli/node-input.ts';
import { decodeShare, shareLink } from '../../src/engine/share/index.ts';
import { writeTable, tableFileName, type RefRecordIn } from '../../src/engine/reftable/writer.ts';
import type { CompactionReport } from '../../src/engine/extensions.ts';
import { stackSvg, xmlText } from '../../src/app/lib/svg.ts';
import {
  FX,
  OUT,
  ROOT,
  downloadBytes,
  cliReport,
  dropPaths,
  expected,
  haveChromium,
  loadId,
  show,
  shown,
  waitLoad,
  newWatch,
  startApp,
  stopApp,
  watchedContext,
  type AppUnderTest,
  HANG_MS,
} from './helpers.ts';

const DIST = path.join(ROOT, '.tmp/views-dist');
const BASE = '/refscope/app/';

let app: AppUnderTest | undefined;
let context: BrowserContext;
let page: Page;
let url = '';
let origin = '';
const watch = newWatch();

function fxDir(name: string): string {
  return path.join(FX, name, 'reftable');
}

/** A context of this file: its requests and page errors go to `watch`. */
function newContext(colorScheme: 'light' | 'dark' = 'light'): Promise<BrowserContext> {
  return watchedContext(app!.browser, origin, watch, { colorScheme, acceptDownloads: true });
}

async function shot(p: Page, name: string, fullPage = false): Promise<void> {
  await p.waitForTimeout(200);
  await p.screenshot({ path: path.join(OUT, `views-${name}.png`), fullPage });
}

/** Open the app fresh at `hash` (a full navigation, so start-up runs again). */
async function openAt(p: Page, hash: string): Promise<void> {
  await p.goto('about:blank');
  await p.goto(`${url}${hash}`);
}

async function compactionReady(p: Page, factor = 2): Promise<void> {
  await p.waitForSelector(`[data-testid=compaction-view][data-ready=true][data-factor="${factor}"]`, {
    timeout: HANG_MS,
  });
}

/** Indexes of the bars a chart highlights. */
async function highlighted(p: Page, chart: string): Promise<number[]> {
  return p
    .locator(`[data-testid=cmp-bar][data-chart=${chart}][data-in-segment=true]`)
    .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-index'))).sort((a, b) => a - b));
}

/** The segment git's `pack-refs --auto` merged, from a fixture's truth: tables listed before and after. */
function truthSegment(fx: string): { start: number; end: number; newSize: number } {
  const before = fs
    .readFileSync(path.join(FX, fx, 'reftable/tables.list'), 'utf8')
    .trim()
    .split('\n');
  const after = fs
    .readFileSync(path.join(FX, fx, 'truth/after-pack-refs-auto.txt'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(' '));
  const kept = after.filter(([n]) => before.includes(n)).map(([n]) => before.indexOf(n));
  const fresh = after.filter(([n]) => !before.includes(n));
  expect(fresh.length).toBe(1);
  // The kept tables are the newest ones, unchanged; the segment is everything below them.
  const end = before.length - kept.length - 1;
  expect(kept).toEqual(before.map((_, i) => i).slice(end + 1));
  return { start: 0, end, newSize: Number(fresh[0][1]) };
}

/** Full ref names of a fixture (truth/refs.txt: "<oid> <name>"). */
function refNames(fx: string): string[] {
  return fs
    .readFileSync(path.join(FX, fx, 'truth/refs.txt'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.slice(l.indexOf(' ') + 1));
}

describe('stack picture (pure SVG)', () => {
  it('escapes names and stays well-formed', () => {
    const files = collectInput(fxDir('basic-sha1'));
    const r = buildReport(analyzeFiles(files));
    const evil = {
      ...r,
      tables: r.tables.map((t, i) => (i === 0 ? { ...t, name: '<img src=x onerror=alert(1)>&"\u0001.ref' } : t)),
    };
    const { svg, width, height } = stackSvg(
      evil,
      r.tables.map(() => null),
      { theme: 'dark', note: 'a <b>note</b>' },
    );
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).not.toContain('<img');
    expect(svg).not.toContain('<b>');
    expect(svg).toContain('&lt;img src=x onerror=alert(1)&gt;&amp;&quot;\ufffd.ref');
    expect(width).toBeGreaterThan(0);
    expect(height).toBeGreaterThan(0);
    expect(xmlText('a\ud800b')).toBe('a\ufffdb');
  });
});

describe.skipIf(!haveChromium)('compaction and share views (headless Chromium)', () => {
  beforeAll(async () => {
    fs.mkdirSync(OUT, { recursive: true });
    app = await startApp(DIST, BASE, 4900 + (process.pid % 500));
    ({ url, origin } = app);
    context = await newContext();
    page = await context.newPage();
  }, 300_000);

  afterAll(async () => {
    await stopApp(app);
  });

  it('nocompact-s1: the segment is exactly what git pack-refs --auto merged; the real compaction and its zip', async () => {
    const truth = truthSegment('nocompact-s1');
    expect(truth.end).toBe(13);
    await openAt(page, '#/compaction?sample=nocompact-s1');
    await waitLoad(page, 0);
    await compactionReady(page);
    expect(await highlighted(page, 'bytes')).toEqual(Array.from({ length: truth.end + 1 }, (_, i) => i));
    expect(await page.getAttribute('[data-testid=segment-bytes]', 'data-segment')).toBe(`${truth.start}-${truth.end}`);
    const cli = cliReport(collectInput(fxDir('nocompact-s1'))).stack!.compaction as CompactionReport;
    expect(await page.getAttribute('[data-testid=chart-records]', 'data-segment')).toBe(
      cli.byRecords.segment ? `${cli.byRecords.segment.start}-${cli.byRecords.segment.end}` : 'none',
    );
    expect(await page.locator('[data-testid=cmp-bar][data-chart=bytes]').count()).toBe(16);
    // Every table's reason is listed under the charts, and shown on focus.
    expect(await page.locator('[data-testid=cmp-reason-row]').count()).toBe(16);
    await page.locator('[data-testid=cmp-bar][data-chart=bytes][data-index="13"]').focus();
    expect(await page.textContent('[data-testid=cmp-hover]')).toMatch(/segment end/);
    await shot(page, 'compaction-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, 'compaction-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // The real compaction, in the worker.
    await page.click('[data-testid=compact-auto]');
    await page.waitForSelector('[data-testid=compact-result][data-mode=auto]');
    expect(await page.getAttribute('[data-testid=compact-result]', 'data-tables')).toBe('3');
    expect(await page.getAttribute('[data-testid=compact-result]', 'data-segment')).toBe(`0-${truth.end}`);
    const newRow = page.locator('[data-testid=after-row][data-new=true] td').nth(2);
    expect(Number((await newRow.textContent())!.replace(/,/g, ''))).toBe(truth.newSize);
    expect(await page.textContent('[data-testid=after-panel]')).toMatch(
      /only when the merged segment starts at the base table/,
    );
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=download-zip]')]);
    const zipPath = path.join(OUT, 'views-compacted.zip');
    await dl.saveAs(zipPath);
    const zip = unzipSync(new Uint8Array(fs.readFileSync(zipPath)));
    const list = new TextDecoder().decode(zip['reftable/tables.list']).trim().split('\n');
    expect(list.length).toBe(3);
    const orig = fs
      .readFileSync(path.join(fxDir('nocompact-s1'), 'tables.list'), 'utf8')
      .trim()
      .split('\n');
    expect(list.slice(1)).toEqual(orig.slice(-2));
    expect(zip[`reftable/${list[0]}`].length).toBe(truth.newSize);
    for (const n of list.slice(1))
      expect(Buffer.from(zip[`reftable/${n}`]).equals(fs.readFileSync(path.join(fxDir('nocompact-s1'), n)))).toBe(true);
    // The zipped stack reads back with the same merged view.
    const back = analyzeFiles([
      { path: 'reftable/tables.list', source: memory(zip['reftable/tables.list']) },
      ...list.map((n) => ({ path: `reftable/${n}`, source: memory(zip[`reftable/${n}`]) })),
    ]);
    expect(buildReport(back).stack!.live).toBe(cli ? cliReport(collectInput(fxDir('nocompact-s1'))).stack!.live : -1);
    await shot(page, 'compaction-after-light', true);

    // pack-refs: everything into one table.
    await page.click('[data-testid=compact-all]');
    await page.waitForSelector('[data-testid=compact-result][data-mode=all]');
    expect(await page.getAttribute('[data-testid=compact-result]', 'data-tables')).toBe('1');
    // The replay of the next transactions is there.
    expect(await page.locator('[data-testid=replay-row]').count()).toBe(10);
  });

  it('a 300,000-ref stack: pack-refs in the worker shows a busy state; the zip is made on download', async () => {
    const dir = path.join(ROOT, '.tmp/views-work/big/reftable');
    const n = 300_000;
    const base = tableFileName(1, 1, 0x5eed0001);
    const top = tableFileName(2, 2, 0x5eed0002);
    if (!fs.existsSync(path.join(dir, 'tables.list'))) {
      fs.mkdirSync(dir, { recursive: true });
      const refs: RefRecordIn[] = [];
      for (let i = 0; i < n; i++) {
        const v = new Uint8Array(20);
        v[0] = i & 255;
        v[1] = (i >> 8) & 255;
        v[2] = (i >> 16) & 255;
        v[19] = 1;
        refs.push({ name: `refs/pull/${String(i).padStart(7, '0')}/head`, updateIndex: 1, type: 1, value: v });
      }
      fs.writeFileSync(path.join(dir, base), writeTable(refs, [], { minUpdateIndex: 1, maxUpdateIndex: 1 }));
      fs.writeFileSync(
        path.join(dir, top),
        writeTable([{ name: 'refs/pull/0000000/head', updateIndex: 2, type: 0 }], [], {
          minUpdateIndex: 2,
          maxUpdateIndex: 2,
        }),
      );
      fs.writeFileSync(path.join(dir, 'tables.list'), `${base}\n${top}\n`);
    }
    await openAt(page, '#/compaction?sample=none');
    await page.waitForSelector('[data-testid=main]');
    const cdp = await context.newCDPSession(page);
    const prev = await loadId(page);
    await dropPaths(cdp, [dir]);
    await waitLoad(page, prev);
    await compactionReady(page);
    await page.click('[data-testid=compact-all]');
    await page.waitForSelector('[data-testid=compact-busy]', { timeout: HANG_MS });
    await page.waitForSelector('[data-testid=compact-result][data-mode=all]', { timeout: 60_000 });
    expect(await page.getAttribute('[data-testid=compact-result]', 'data-tables')).toBe('1');
    const rec = page.locator('[data-testid=after-row][data-new=true] td').nth(3);
    // The base's first ref is deleted by the top table's tombstone; the segment starts at the base, so it is dropped.
    expect(Number((await rec.textContent())!.replace(/,/g, ''))).toBe(n - 1);
    const [dl] = await Promise.all([
      page.waitForEvent('download', { timeout: 60_000 }),
      page.click('[data-testid=download-zip]'),
    ]);
    const zip = unzipSync(new Uint8Array(await downloadBytes(dl)));
    const list = new TextDecoder().decode(zip['reftable/tables.list']).trim().split('\n');
    expect(list.length).toBe(1);
    const back = buildReport(
      analyzeFiles([
        { path: 'reftable/tables.list', source: memory(zip['reftable/tables.list']) },
        { path: `reftable/${list[0]}`, source: memory(zip[`reftable/${list[0]}`]) },
      ]),
    );
    expect(back.stack!.live).toBe(n - 1);
    expect(back.stack!.tombstones).toBe(0);
    await cdp.detach();
  });

  it('tombstones-50k: no segment by bytes, a segment by records', async () => {
    await openAt(page, '#/compaction?sample=tombstones-50k');
    await waitLoad(page, 0);
    await compactionReady(page);
    expect(await highlighted(page, 'bytes')).toEqual([]);
    expect(await page.getAttribute('[data-testid=segment-bytes]', 'data-segment')).toBe('none');
    expect(await highlighted(page, 'records')).toEqual([0, 1]);
    expect(await page.getAttribute('[data-testid=segment-records]', 'data-segment')).toBe('0-1');
    expect(await page.locator('[data-testid=records-differ]').count()).toBe(1);
    await shot(page, 'compaction-tombstones-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, 'compaction-tombstones-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    // The factor is an input: at 255 the byte rule merges the two tables too (1,762,693 < 255 × 303,910).
    await page.fill('[data-testid=cmp-factor]', '255');
    await compactionReady(page, 255);
    expect(await highlighted(page, 'bytes')).toEqual([0, 1]);
    // JGit's rule, selectable.
    await page.selectOption('[data-testid=cmp-rule]', 'jgit');
    await page.waitForSelector('[data-testid=segment-jgit]');
    await page.fill('[data-testid=cmp-factor]', '2');
    await page.selectOption('[data-testid=cmp-rule]', 'git');
  });

  it('the share dialog: no ref names by default, exactly what the link contains, copy', async () => {
    const names = refNames('nocompact-s1');
    expect(names.length).toBeGreaterThan(700);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    await openAt(page, '#/share?sample=nocompact-s1');
    await waitLoad(page, 0);
    await page.waitForSelector('[data-testid=share-link]');
    expect(await page.isChecked('[data-testid=share-with-names]')).toBe(false);
    const link = await page.inputValue('[data-testid=share-link]');
    expect(link.startsWith(`${url}#s=1.`)).toBe(true);
    expect(Number(await page.getAttribute('[data-testid=share-length]', 'data-value'))).toBe(link.length);
    const p = decodeShare(link);
    expect(p.withNames).toBe(false);
    const text = JSON.stringify(p) + (await page.textContent('[data-testid=share-dialog]'));
    const leaked = names.filter((n) => text.includes(n));
    expect(leaked).toEqual([]);
    expect(await page.locator('[data-testid=share-contains] li').count()).toBeGreaterThan(2);
    expect(await page.textContent('[data-testid=share-omits]')).toMatch(/ref names/);
    // Copy.
    await page.click('[data-testid=share-copy]');
    await page.waitForSelector('[data-testid=share-copied]');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    await shot(page, 'share-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, 'share-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    // With names (asked for): example names from the fixture.
    await page.check('[data-testid=share-with-names]');
    await page.waitForFunction(
      (old) => (document.querySelector('[data-testid=share-link]') as HTMLTextAreaElement | null)?.value !== old,
      link,
    );
    const named = decodeShare(await page.inputValue('[data-testid=share-link]'));
    expect(named.withNames).toBe(true);
    expect(named.examples.length).toBeGreaterThan(0);
    await page.uncheck('[data-testid=share-with-names]');
  });

  it('exports download: JSON, Markdown, repro script, SVG and PNG of the stack', async () => {
    await show(page, 'share');
    const get = async (id: string): Promise<Buffer> => {
      const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`[data-testid=${id}]`)]);
      const to = path.join(OUT, `views-export-${dl.suggestedFilename()}`);
      await dl.saveAs(to);
      return fs.readFileSync(to);
    };
    const json = JSON.parse((await get('export-json')).toString('utf8'));
    const cli = cliReport(collectInput(fxDir('nocompact-s1')));
    expect(json.schema).toBe('refscope.report/1');
    expect(json.stack.live).toBe(cli.stack!.live);
    expect((await get('export-md')).toString('utf8')).toMatch(/^#/);
    expect((await get('export-script')).toString('utf8')).toMatch(/^#!\/usr\/bin\/env bash/);
    const svg = (await get('export-svg')).toString('utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.match(/<rect[^>]*height="18"[^>]*rx="3"/g)?.length).toBe(16);
    const png = await get('export-png');
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(png.readUInt32BE(16)).toBe(1920); // width: 960 × 2
    fs.writeFileSync(path.join(OUT, 'views-stack-export.png'), png);
  });

  it('a link made by the CLI engine opens in a fresh browser profile with the CLI numbers', async () => {
    for (const fx of ['nocompact-s1', 'tombstones-50k', 'basic-sha256']) {
      const files = collectInput(fxDir(fx));
      const a = analyzeFiles(files);
      const report = buildReport(a);
      // (A link with the sharer's simulation results is opened by the simulator e2e tests; links
      // carry only the simulator's own numbers-only layout, share/simulation.ts.)
      const link = shareLink(a, report, { base: url });
      expect(link.ok, fx).toBe(true);
      if (!link.ok) continue;
      const fresh = await newContext();
      const p = await fresh.newPage();
      await p.goto(link.link);
      await p.waitForSelector('[data-testid=shared-banner]');
      await waitLoad(p, 0);
      const want = expected(report);
      const got = await shown(p);
      expect(
        { live: got.live, tombstones: got.tombstones, tables: got.tables, totalBytes: got.totalBytes },
        fx,
      ).toEqual({ live: want.live, tombstones: want.tombstones, tables: want.tables, totalBytes: want.totalBytes });
      expect(got.rows.length).toBe(report.tables.length);
      expect(await p.textContent('[data-testid=shared-banner]')).toMatch(/shared report \(no files\)/);
      // Stack and compaction views show the shared report; the views that need files say so.
      await show(p, 'stack');
      expect(await p.locator('[data-testid=stack-bar]').count()).toBe(report.tables.length);
      await show(p, 'compaction');
      await compactionReady(p);
      const seg = (report.stack!.compaction as CompactionReport).segment;
      expect(await p.getAttribute('[data-testid=segment-bytes]', 'data-segment')).toBe(
        seg ? `${seg.start}-${seg.end}` : 'none',
      );
      expect(await p.locator('[data-testid=compact-auto]').isDisabled()).toBe(true);
      if (fx === 'nocompact-s1') {
        await shot(p, 'shared-compaction-light');
        await show(p, 'overview');
        await shot(p, 'shared-overview-light');
      }
      for (const v of ['table', 'refs']) {
        await show(p, v);
        await p.waitForSelector('[data-testid=needs-files]');
      }
      // The URL is still the link (with the view), so a reload shows the same report.
      expect(new URL(p.url()).hash).toMatch(/^#s=1\.[^&]+&view=refs$/);
      await p.reload();
      await p.waitForSelector('[data-testid=shared-banner]');
      await p.waitForSelector('[data-testid=tab-refs][aria-selected=true]');
      await p.waitForSelector('[data-testid=needs-files]');
      if (fx === 'tombstones-50k') {
        // Re-run on a synthetic stack of the same shape: a normal analysis, marked synthetic.
        const prev = await loadId(p);
        await p.click('[data-testid=rerun-synthetic]');
        await waitLoad(p, prev);
        await p.waitForSelector('[data-testid=synthetic-banner]');
        expect(await p.locator('[data-testid=shared-banner]').count()).toBe(0);
        const syn = await shown(p);
        expect({ live: syn.live, tombstones: syn.tombstones, tables: syn.tables }).toEqual({
          live: want.live,
          tombstones: want.tombstones,
          tables: want.tables,
        });
        expect(Math.abs(syn.totalBytes - want.totalBytes) / want.totalBytes).toBeLessThan(0.05);
        await show(p, 'refs');
        await p.waitForSelector('[data-testid=refs-count]');
        expect(await p.locator('[data-testid=needs-files]').count()).toBe(0);
        await show(p, 'overview');
        await shot(p, 'synthetic-overview-light');
      }
      await fresh.close();
    }
  });

  it('truncated, damaged and future-version links show the error, never a blank page', async () => {
    const files = collectInput(fxDir('nocompact-s2'));
    const a = analyzeFiles(files);
    const link = shareLink(a, buildReport(a), { base: url });
    if (!link.ok) throw new Error(link.error);
    const cases: [string, RegExp][] = [
      [link.link.slice(0, link.link.length - 40), /truncated/],
      [`${url}#s=1.`, /truncated/],
      [`${url}#s=7.${link.fragment.slice(5)}`, /newer refscope \(version 7\)/],
      [`${url}#s=1.${'A'.repeat(60)}`, /damaged|truncated/],
      [`${url}#s=banana`, /damaged/],
    ];
    const fresh = await newContext('dark');
    const p = await fresh.newPage();
    for (const [bad, msg] of cases) {
      await p.goto('about:blank');
      await p.goto(bad);
      await p.waitForSelector('[data-testid=error]');
      expect(await p.textContent('[data-testid=error]'), bad).toMatch(msg);
      expect(await p.textContent('.brand')).toBe('refscope');
      expect(await p.locator('[data-testid=shared-banner]').count()).toBe(0);
    }
    await shot(p, 'link-error-dark');
    // The same page then gets a good link (hashchange): the report replaces the error.
    await p.evaluate((h) => {
      location.hash = h;
    }, link.fragment);
    await p.waitForSelector('[data-testid=shared-banner]');
    expect(await p.locator('[data-testid=error]').count()).toBe(0);
    const want = expected(buildReport(a));
    const got = await shown(p);
    expect([got.live, got.tombstones, got.tables]).toEqual([want.live, want.tombstones, want.tables]);
    await show(p, 'compaction');
    await compactionReady(p);
    await shot(p, 'shared-compaction-dark');
    await fresh.close();
  });

  it('hostile ref names shared with names are text in the dialog, never markup', async () => {
    // A name git accepts (check_refname_format: no spaces), markup all the same: innerHTML would run it.
    const evil = 'refs/heads/<img/src=x/onerror=window.__xss=1>';
    const names = [evil, 'refs/heads/main', 'refs/heads/\u202Egnp.exe', 'refs/tags/<script>window.__xss=2</script>']
      .map(textToKey)
      .sort();
    const oid = new Uint8Array(20).fill(0xab);
    const refs: RefRecordIn[] = names.map((name) => ({ name, updateIndex: 1, type: 1, value: oid }));
    const name = tableFileName(1, 1, 0x0badf00d);
    await dropFiles(page, [
      { name, bytes: writeTable(refs, [], { minUpdateIndex: 1, maxUpdateIndex: 1 }) },
      { name: 'tables.list', bytes: new TextEncoder().encode(name + '\n') },
    ]);
    await show(page, 'share');
    await page.waitForSelector('[data-testid=share-link]');
    const plain = decodeShare(await page.inputValue('[data-testid=share-link]'));
    expect(JSON.stringify(plain)).not.toContain('<img');
    await page.check('[data-testid=share-with-names]');
    await page.waitForFunction(() =>
      /example ref name/.test(document.querySelector('[data-testid=share-contains]')?.textContent ?? ''),
    );
    const p = decodeShare(await page.inputValue('[data-testid=share-link]'));
    expect(p.examples.map((e) => Buffer.from(e, 'latin1').toString('utf8'))).toContain(evil);
    expect(await page.textContent('[data-testid=share-contains]')).toContain(evil);
    expect(
      await page.evaluate(
        () => document.querySelectorAll('img:not([data-testid=stack-preview]), script:not([src])').length,
      ),
    ).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    // The Markdown export writes them as inert code spans.
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-md]')]);
    const md = (await downloadBytes(dl)).toString('utf8');
    expect(md).not.toMatch(/(^|[^`])<img/);
    await page.uncheck('[data-testid=share-with-names]');
  });

  it('a stack too large for a link: the dialog says so and offers the JSON export', async () => {
    // 1,000 tables of a few refs each (varied namespaces, kinds and sizes): a few characters per
    // table make the link longer than the 8,000 a link may have.
    const N = 1000;
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const items: { name: string; bytes: Uint8Array }[] = [];
    const names: string[] = [];
    for (let i = 1; i <= N; i++) {
      const refs: RefRecordIn[] = [];
      const n = 1 + Math.floor(rnd() * 30);
      for (let j = 0; j < n; j++) {
        const v = new Uint8Array(20);
        v[0] = i & 255;
        v[1] = j;
        v[2] = Math.floor(rnd() * 256);
        const ns = ['heads', 'tags', 'notes', 'pull'][Math.floor(rnd() * 4)];
        refs.push(
          rnd() < 0.2
            ? { name: `refs/${ns}/x${i}-${j}`, updateIndex: i, type: 0 }
            : { name: `refs/${ns}/x${i}-${j}`, updateIndex: i, type: 1, value: v },
        );
      }
      refs.sort((x, y) => (x.name < y.name ? -1 : 1));
      const name = tableFileName(i, i, 0x1000 + i);
      names.push(name);
      items.push({ name, bytes: writeTable(refs, [], { minUpdateIndex: i, maxUpdateIndex: i }) });
    }
    items.push({ name: 'tables.list', bytes: new TextEncoder().encode(names.map((n) => n + '\n').join('')) });
    await openAt(page, '#/share?sample=none');
    await page.waitForSelector('[data-testid=main]');
    await dropFiles(page, items);
    await show(page, 'share');
    await page.waitForSelector('[data-testid=share-error]');
    expect(await page.textContent('[data-testid=share-error]')).toMatch(/8,000/);
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=share-error] button')]);
    expect(dl.suggestedFilename()).toBe('refscope-report.json');
    await shot(page, 'share-too-large-light');
    // The stack picture of 1,000 tables still makes a PNG (scaled to fit a canvas).
    const [pngDl] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-png]')]);
    const png = await downloadBytes(pngDl);
    expect([...png.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    // The compaction view copes with 1,000 tables.
    await show(page, 'compaction');
    await compactionReady(page);
    expect(await page.locator('[data-testid=cmp-bar][data-chart=bytes]').count()).toBe(N);
    await shot(page, 'compaction-1000-light');
  });

  it('made no request to any other origin and raised no page error', () => {
    expect(watch.foreign).toEqual([]);
    expect(watch.errors).toEqual([]);
  });
});

/** Drop files built in the page (File objects in a synthetic DataTransfer) and wait for the analysis. */
async function dropFiles(p: Page, files: { name: string; bytes: Uint8Array }[]): Promise<void> {
  const prev = await loadId(p);
  const list = files.map((f) => ({ name: f.name, b64: Buffer.from(f.bytes).toString('base64') }));
  await p.evaluate((items) => {
    const dt = new DataTransfer();
    for (const it of items) {
      const bin = atob(it.b64);
      const u = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
      dt.items.add(new File([u], it.name));
    }
    for (const type of ['dragenter', 'dragover', 'drop'])
      document.body.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, list);
  await waitLoad(p, prev);
}

function memory(b: Uint8Array) {
  return {
    size: b.length,
    read: (o: number, l: number) => b.subarray(o, Math.min(b.length, o + l)),
  };
}
