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
  checkMeasured,
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
    // position 1 starts the run of copies 1–398 (shadowed alike): a copy entry; 2–398 name it
    expect(Object.keys(doc.tables[1]).sort()).toEqual(
      ['copyOf', 'hiddenByTombstone', 'shadowed', 'tombstonesHiding', 'winners'].sort(),
    );
    expect((doc.tables as unknown[]).slice(2, 399).every((x) => x === 1)).toBe(true);
    // the newest copy wins every key: its figures differ, so it is an entry of its own
    expect(Object.keys(doc.tables[399]).sort()).toEqual(Object.keys(doc.tables[1]).sort());
    // the other fields are the first position's
    expect(tableOf(doc, 5)!.name).toBe(NAME);
    expect(tableOf(doc, 5)!.fileSize).toBe(BYTES.length);
    expect(tableOf(doc, 5)!.shadowed).toBe(r400.tables[5].shadowed);
    expect(tableOf(doc, 399)!.winners).toBe(r400.tables[399].winners);
    expect(blocksOf(doc, 5).length).toBe(GIT_BLOCKS);
    const bad = structuredClone(doc);
    (bad.tables[1] as { copyOf: number }).copyOf = -1;
    expect(schemaErrors('report', bad)).not.toEqual([]);
    const extra = structuredClone(doc);
    (extra.tables[1] as { fileSize?: number }).fileSize = 1;
    expect(schemaErrors('report', extra)).not.toEqual([]);
    const negative = structuredClone(doc);
    (negative.tables as unknown[])[5] = -1;
    expect(schemaErrors('report', negative)).not.toEqual([]);
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

  it("a link's measured reasons may be folded as the report's; an index must point back at a text", () => {
    const c = r400.stack!.compaction as { bySize: { values: number[]; reasons: (string | number)[] } };
    // the report's own reasons: a sentence for the first of each run, an index for the others
    expect(c.bySize.reasons.some((x) => typeof x === 'number')).toBe(true);
    const measured = (reasons: (string | number)[]) => ({
      compaction: { bySize: { values: c.bySize.values, reasons } },
      compactionAbsent: [],
      diagnosis: null,
    });
    expect(() => checkMeasured(measured(c.bySize.reasons), 400)).not.toThrow();
    const forwards = c.bySize.reasons.slice();
    forwards[2] = 3;
    expect(() => checkMeasured(measured(forwards), 400)).toThrow(ShareLinkError);
    // entry 2 is itself an index (of the run starting at 1): 3 → 2 does not reach a text
    const atIndex = c.bySize.reasons.slice();
    expect(typeof atIndex[1]).toBe('string');
    expect(atIndex[2]).toBe(1);
    atIndex[3] = 2;
    expect(() => checkMeasured(measured(atIndex), 400)).toThrow(ShareLinkError);
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
    // a further copy of the run is the run's index (`    1,`: 7 bytes), and its net size, record
    // and live counts and three folded reasons (an index each) are one short line each (10 to
    // 13 bytes): under 96 bytes; a copy entry of its own would be 7 lines, over 120 bytes
    expect((all - one) / (LINES - 1)).toBeLessThan(96);
    expect(schemaErrors('report', JSON.parse(s.exportAs('json').text))).toEqual([]);
  });

  it('the text report and the Markdown export fold the run of copies into a line', () => {
    expect(formatReport(r).split('\n').length).toBeLessThan(40);
    expect(exportMarkdown(r).split('\n').length).toBeLessThan(100);
    expect(formatReport(r)).toContain(`positions 1–99,998 (99,998): same file as #0`);
  });

  it('holds one object per run of copies, not per line, in the report, the splits and their clone', () => {
    // position 0 (shadowed by every newer copy), the run 1–99,998 (shadowed alike), and 99,999
    // (the newest copy: it wins every key): three distinct entries for 100,000 positions
    expect(new Set(r.tables).size).toBe(3);
    expect(r.tables[1]).toBe(r.tables[99_998]);
    expect(r.tables[99_999]).not.toBe(r.tables[99_998]);
    // the structured clone to the page keeps the sharing (one object per run on the other side)
    expect(new Set(structuredClone(r).tables).size).toBe(3);
    const load = s.load([
      { path: 'reftable/tables.list', source: memorySource(new TextEncoder().encode(`${NAME}\n`.repeat(LINES))) },
      { path: `reftable/${NAME}`, source: memorySource(BYTES) },
    ]);
    expect(load.splits.length).toBe(LINES);
    // a split has no copy mark: position 0 and the run 1–99,998 have the same figures (all
    // shadowed, none live), only the newest copy differs
    expect(new Set(load.splits).size).toBe(2);
    // every line but the first breaks update-index continuity the same way (each copy's min is 1,
    // the previous copy's max + 1 is 4): one entry, through the last table
    expect(r.stack!.continuity).toEqual([
      { table: 1, expectedMin: 4, actualMin: 1, status: 'overlap', through: 99_999 },
    ]);
  });

  it("the compaction reasons make a sentence per run of copies; the geometry is git's", () => {
    const c = r.stack!.compaction as {
      segment: { start: number; end: number };
      bySize: { values: number[]; reasons: (string | number)[] };
      byRecords: { reasons: (string | number)[] };
      jgit: { reasons: (string | number)[] };
    };
    // every table the same size: the newest is not ≥ 2 × itself, so the segment ends there, and
    // each older one is < 2 × the tables above it: git merges all 100,000 positions
    expect(c.segment).toEqual({ start: 0, end: LINES - 1 });
    expect(c.bySize.values.length).toBe(LINES);
    for (const reasons of [c.bySize.reasons, c.byRecords.reasons, c.jgit.reasons]) {
      expect(reasons.length).toBe(LINES);
      expect(reasons.filter((x) => typeof x === 'string').length).toBeLessThanOrEqual(4);
    }
    // what the Compaction view gets: the same, at any factor, and the replay's segments
    const d = s.compaction({ factor: 3, k: 3, txSize: 150 })!;
    expect(new Set(d.tables).size).toBeLessThanOrEqual(3);
    for (const g of [d.bytes, d.records, d.live, d.jgit])
      expect(g.reasons.filter((x) => typeof x === 'string').length).toBeLessThanOrEqual(4);
    expect(d.bytes.segment).toEqual({ start: 0, end: LINES - 1 });
    // the first transaction adds a 150-byte table (59 net bytes): the table below it (687 − 91 =
    // 596 net bytes) is ≥ 3 × 59, so the segment ends below it and the 100,000 equal ones merge
    expect(d.replay[0].segment).toEqual({ start: 0, end: LINES - 1 });
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
