/**
 * A table named on hundreds of lines of tables.list. git opens the file once per line
 * (reftable/stack.c reftable_stack_reload_once), so every position stays in the report, in
 * tables.list order; but the work and the size of what the worker hands the page (the report, its
 * JSON export, its structured clone, a share link and the report rebuilt from it) must grow with
 * the distinct tables' blocks, not with the lines: a repeated position says which position it is
 * a copy of (`copyOf`) and lists no blocks. Counted in block summaries and bytes, never in time.
 * The table is git's `smallblocks` fixture (block_size 256): its block count is taken from git's
 * own `dump-reftable -b` (truth/blocks).
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { EngineSession } from '../src/engine/session/index.ts';
import { groupDigits, memorySource } from '../src/engine/basics.ts';
import { blocksOf, tableOf, type Report } from '../src/engine/report.ts';
import { formatReport } from '../src/cli/format.ts';
import {
  ShareLinkError,
  buildSharePayload,
  checkPayload,
  decodeShare,
  decodeSharePayload,
  encodeSharePayload,
  encodeShare,
  reportFromShare,
  type SharePayload,
} from '../src/engine/share/index.ts';
import { exportMarkdown } from '../src/engine/export.ts';
import { schemaErrors } from './lib/schema.ts';
import { reftableDir, FIXTURES } from './lib/fixtures.ts';

const FX = 'smallblocks';
const NAME = '0x000000000001-0x000000000003-64b5d19d.ref';
const BYTES = new Uint8Array(fs.readFileSync(path.join(reftableDir(FX), NAME)));
/** Blocks of the table as git's `test-tool dump-reftable -b` lists them. */
const GIT_BLOCKS = fs
  .readFileSync(path.join(FIXTURES, 'reftable', FX, 'truth', 'blocks', `${NAME}.txt`), 'utf8')
  .split('\n')
  .filter((l) => /^ {2}- length:/.test(l)).length;

function session(lines: number): EngineSession {
  const list = new TextEncoder().encode(`${NAME}\n`.repeat(lines));
  const s = new EngineSession();
  const res = s.load([
    { path: 'reftable/tables.list', source: memorySource(list) },
    { path: `reftable/${NAME}`, source: memorySource(BYTES) },
  ]);
  expect(res.error).toBeNull();
  return s;
}

const blockSummaries = (r: Report) => r.tables.reduce((n, t) => n + t.blocks.length, 0);

describe('a table repeated on every line of tables.list', () => {
  const s1 = session(1);
  const s400 = session(400);
  const r1 = s1.report()!;
  const r400 = s400.report()!;

  it('the table has hundreds of blocks (git counts them), so repeating them would show', () => {
    expect(GIT_BLOCKS).toBeGreaterThan(900);
    expect(r1.tables[0].blocks.length).toBe(GIT_BLOCKS);
  });

  it('every position is listed in order; the copies point at the first and list no blocks', () => {
    expect(r400.tables.length).toBe(400);
    expect(r400.stack!.tables).toBe(400);
    expect(r400.tables[0].copyOf).toBeUndefined();
    expect(r400.tables.slice(1).every((t) => t.copyOf === 0 && t.blocks.length === 0)).toBe(true);
    expect(r400.tables.every((t) => t.name === NAME && t.fileSize === BYTES.length)).toBe(true);
    expect(blockSummaries(r400)).toBe(GIT_BLOCKS);
    // a reader asking for any position's blocks gets the file's
    expect(blocksOf(r400, 399)).toBe(r400.tables[0].blocks);
    // the newest copy wins every key, the older copies are shadowed (git merges them all)
    expect(r400.tables[399].winners).toBe(r1.tables[0].winners);
    expect(r400.tables[0].winners).toBe(0);
    expect(r400.tables[0].shadowed).toBe(r1.tables[0].winners);
  });

  it('the JSON document validates against schemas/report.schema.json; a copy holds its own figures only', () => {
    const doc = JSON.parse(s400.exportAs('json').text) as Report;
    expect(schemaErrors('report', doc)).toEqual([]);
    expect(Object.keys(doc.tables[5]).sort()).toEqual(
      ['copyOf', 'hiddenByTombstone', 'shadowed', 'tombstonesHiding', 'winners'].sort(),
    );
    // the other fields are the first position's
    expect(tableOf(doc, 5)!.name).toBe(NAME);
    expect(tableOf(doc, 5)!.fileSize).toBe(BYTES.length);
    expect(tableOf(doc, 399)!.winners).toBe(r400.tables[399].winners);
    const bad = structuredClone(doc);
    (bad.tables[5] as { copyOf: number }).copyOf = -1;
    expect(schemaErrors('report', bad)).not.toEqual([]);
    const extra = structuredClone(doc);
    (extra.tables[5] as { fileSize?: number }).fileSize = 1;
    expect(schemaErrors('report', extra)).not.toEqual([]);
  });

  it('the JSON export and the structured clone grow by a small constant per line, not by the blocks', () => {
    const json1 = s1.exportAs('json').text.length;
    const json400 = s400.exportAs('json').text.length;
    const blocksJson = JSON.stringify(r1.tables[0].blocks).length;
    const perLine = (json400 - json1) / 399;
    // one line's entry (name, sizes, counts, its compaction reasons) is far below its blocks
    expect(perLine).toBeLessThan(blocksJson / 20);
    const cloned = structuredClone(r400);
    expect(blockSummaries(cloned)).toBe(GIT_BLOCKS);
  });

  it('the Markdown export says which positions repeat which, a run of copies in one row', () => {
    const md = exportMarkdown(r400);
    // positions 1–398 are shadowed alike (the newest copy, 399, wins every key): one row
    expect(md).toContain('| 1–398 | 398 positions: same file as #0 |');
    expect(md).toContain(`| 399 | \`${NAME}\` (same file as #0) |`);
    expect(
      md.split('\n').filter((l) => l.includes('(same file as #0)') && l.endsWith(` | ${GIT_BLOCKS} |`)).length,
    ).toBe(1);
    const text = formatReport(r400);
    expect(text).toContain('positions 1–398 (398): same file as #0');
    expect(text).toContain('update-index overlap before tables 1–399');
  });

  it('a share link marks the copies; the report it opens to lists the blocks once', () => {
    for (const withNames of [false, true]) {
      const sh = s400.share({ withNames, base: 'http://127.0.0.1:4173/' })!;
      expect(sh.ok).toBe(true);
      const p = decodeShare(sh.link);
      expect(p.tables.length).toBe(400);
      expect(p.tables.slice(1).every((t) => t.copyOf === 0)).toBe(true);
      const opened = new EngineSession().openShare(sh.link);
      expect(opened.ok).toBe(true);
      const rep = opened.ok ? opened.result.report! : null;
      expect(rep!.tables.length).toBe(400);
      expect(rep!.tables.slice(1).every((t) => t.copyOf === 0 && t.blocks.length === 0)).toBe(true);
      expect(blockSummaries(rep!)).toBe(rep!.tables[0].blocks.length);
      expect(rep!.tables[0].blocks.length).toBe(GIT_BLOCKS);
      // the same figures at every position as the sharer's report
      expect(rep!.tables.map((t) => t.winners)).toEqual(r400.tables.map((t) => t.winners));
      expect(rep!.stack!.live).toBe(r400.stack!.live);
    }
  });

  it('a link whose copy has other figures than its first table, or points forwards, is damaged', () => {
    const p = buildSharePayload(s400.current()!, r400);
    checkPayload(p);
    const bad = (f: (q: SharePayload) => void) => {
      const q = structuredClone(p);
      f(q);
      return q;
    };
    const other = bad((q) => (q.tables[5] = { ...q.tables[5], fileSize: q.tables[5].fileSize - 1 }));
    expect(() => checkPayload(other)).toThrow(ShareLinkError);
    const forwards = bad((q) => (q.tables[5] = { ...q.tables[5], copyOf: 7 }));
    expect(() => checkPayload(forwards)).toThrow(/not an earlier first copy/);
    const chained = bad((q) => (q.tables[5] = { ...q.tables[5], copyOf: 3 }));
    expect(() => checkPayload(chained)).toThrow(/not an earlier first copy/);
    // through the encoder and decoder, the marks survive and a rebuilt report has them
    const enc = encodeShare(p);
    expect(enc.ok).toBe(true);
    const back = decodeShare(enc.ok ? enc.link : '');
    expect(back.tables.map((t) => t.copyOf)).toEqual(p.tables.map((t) => t.copyOf));
    expect(reportFromShare(back).tables[399].copyOf).toBe(0);
    // the payload bytes alone (no link around them) decode to the same marks
    const body = encodeSharePayload(p);
    expect(decodeSharePayload(body).tables[1].copyOf).toBe(0);
  });
});

describe('a small table named on 100,000 lines of tables.list (generated here, not stored)', () => {
  const LINES = 100_000;
  const s = session(LINES);
  const r = s.report()!;

  it('keeps every position, in order, each copy pointing at the first', () => {
    expect(r.tables.length).toBe(LINES);
    expect(r.tables[0].copyOf).toBeUndefined();
    expect(r.tables.slice(1).every((t) => t.copyOf === 0)).toBe(true);
    // one table's blocks in all (git's count), whatever the number of lines
    expect(blockSummaries(r)).toBe(GIT_BLOCKS);
  });

  it('a copy costs a constant in the JSON document, not a table', () => {
    const one = session(1).exportAs('json').text.length;
    const all = s.exportAs('json').text.length;
    // a copy entry (copyOf and four figures, 7 indented lines), its net size and record count,
    // three folded reasons (an index each): under 256 bytes
    expect((all - one) / (LINES - 1)).toBeLessThan(256);
    expect(schemaErrors('report', JSON.parse(s.exportAs('json').text))).toEqual([]);
  });

  it('the text report and the Markdown export fold the run of copies into a line', () => {
    expect(formatReport(r).split('\n').length).toBeLessThan(40);
    expect(exportMarkdown(r).split('\n').length).toBeLessThan(100);
    expect(formatReport(r)).toContain(`positions 1–99,998 (99,998): same file as #0`);
  });

  it('a share link is refused by the count of lines, with the one error type', () => {
    expect(() => s.share({ withNames: false, base: 'http://127.0.0.1:4173/' })).toThrow(
      /100,000 tables, at most 5,000/,
    );
  });
});

describe('groupDigits (the per-table reasons format numbers without Intl)', () => {
  it("equals toLocaleString('en-US')", () => {
    for (const n of [
      0,
      7,
      -7,
      999,
      1000,
      -1000,
      12345,
      123456,
      1234567,
      -9876543,
      2 ** 53 - 1,
      1.5,
      1e21,
      NaN,
      Infinity,
    ])
      expect(groupDigits(n)).toBe(n.toLocaleString('en-US'));
  });
});
