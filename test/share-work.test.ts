/**
 * A share link of a stack whose tables.list names one table many times: the work is bounded by
 * the input (the distinct table's records, the merged view, one row per listed table), not by
 * listed tables × records. Counted with `shareWork` (records and blocks visited), never timed.
 *
 * The table is smallblocks' (written by git: 5,002 refs in small blocks, see its truth/); the
 * stack lists it 1 and 280 times. Listed 280 times, every position but the newest is shadowed
 * record for record by the newest one.
 */
import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { analyzeFiles, buildReport, memorySource, type InputFile } from '../src/engine/index.ts';
import { buildSharePayload, shareLink, shareWork } from '../src/engine/share/build.ts';
import { linkWork } from '../src/engine/share/link.ts';
import { MAX_LINK_CHARS } from '../src/engine/share/limits.ts';

const DIR = path.join(__dirname, 'fixtures/reftable/smallblocks/reftable');
const NAME = '0x000000000001-0x000000000003-64b5d19d.ref';
const bytes = new Uint8Array(fs.readFileSync(path.join(DIR, NAME)));

function stackOf(copies: number): InputFile[] {
  const list = new TextEncoder().encode(`${NAME}\n`.repeat(copies));
  return [
    { path: 'reftable/tables.list', source: memorySource(list) },
    { path: `reftable/${NAME}`, source: memorySource(bytes) },
  ];
}

function shared(copies: number) {
  const a = analyzeFiles(stackOf(copies));
  const r = buildReport(a);
  const before = shareWork.records;
  const p = buildSharePayload(a, r, { withNames: true });
  return {
    work: shareWork.records - before,
    p,
    refs: a.stack!.tables[0]!.refs.count,
    blocks: r.tables[0].blocks.length,
  };
}

describe('share payload of a repeated table', () => {
  it('280 positions cost one row each beyond the one table, not 280 × its records', () => {
    const one = shared(1);
    const many = shared(280);
    // smallblocks' truth: 5,002 refs (for-each-ref lists 5,001 plus HEAD).
    expect(one.refs).toBe(5002);
    expect(many.p.tables).toHaveLength(280);
    // Beyond the single table: 2 visits per block row of each further position (section counts,
    // restart interval lookup), nothing per record.
    expect(many.work - one.work).toBeLessThanOrEqual(279 * 2 * one.blocks);
    // …and far below one pass over every position's records.
    expect(many.work).toBeLessThan(280 * one.refs);
    // What the link says is still every position: 279 older copies, each shadowed by the newest
    // (table 279) in all 5,002 records.
    const shadowed = new Map<number, number>();
    for (const o of many.p.overlaps) {
      expect(o.newer).toBe(279);
      shadowed.set(o.older, (shadowed.get(o.older) ?? 0) + o.count);
    }
    expect(shadowed.size).toBe(279);
    expect([...shadowed.values()].every((n) => n === 5002)).toBe(true);
    const records = new Map<number, number>();
    for (const e of many.p.nsRecords) records.set(e.table, (records.get(e.table) ?? 0) + e.records);
    expect(records.size).toBe(280);
    expect([...records.values()].every((n) => n === 5002)).toBe(true);
  });

  it('a link too long even at its smallest is refused after one encoding, not one per retry', () => {
    // 4,000 positions of smallblocks' table: far more than a link holds (the decoder's limit is
    // MAX_LINK_CHARS), whatever example names or measured figures are dropped.
    const a = analyzeFiles(stackOf(4000));
    const r = buildReport(a);
    const before = shareWork.encodes;
    const measuredBefore = shareWork.measures;
    const link = shareLink(a, r, { withNames: true });
    expect(link.ok).toBe(false);
    expect(shareWork.encodes - before).toBe(1);
    // nor measured: the measured figures (a report rebuilt from the payload) could only lengthen it
    expect(shareWork.measures - measuredBefore).toBe(0);
    expect(link.chars).toBeGreaterThan(MAX_LINK_CHARS);
    expect(link.ok ? '' : link.error).toMatch(/^the link would be over [\d,]+ characters, more than the 8,000/);
    // nor compressed whole: the compressor stops once its output is past twice a link's bytes
    const deflated = linkWork.deflatedBytes,
      payload = linkWork.payloadBytes;
    shareLink(a, r, { withNames: false });
    const fed = linkWork.deflatedBytes - deflated,
      encoded = linkWork.payloadBytes - payload;
    expect(encoded).toBeGreaterThan(100_000);
    // (the payload's columns of copies compress well; what stops it is the records after them)
    expect(fed).toBeLessThan(encoded);
    // A link that fits is made at the first try that fits, as before.
    const small = analyzeFiles(stackOf(1));
    const at = shareWork.encodes;
    const measuredAt = shareWork.measures;
    expect(shareLink(small, buildReport(small), { withNames: true }).ok).toBe(true);
    expect(shareWork.encodes - at).toBeLessThanOrEqual(2);
    expect(shareWork.measures - measuredAt).toBe(1);
  });
});

describe('a link of a table whose deflated log blocks hold more records than the file has bytes', () => {
  it('is made and opens, with every reflog record counted', async () => {
    const { writeTable } = await import('../src/engine/reftable/writer.ts');
    const { decodeShare } = await import('../src/engine/share/link.ts');
    // 200,000 reflog records of one ref, no message, in 16 MiB log blocks: deflate packs them
    // into fewer bytes than records (the count is the number written).
    const n = 200_000;
    const logs = Array.from({ length: n }, (_, i) => ({
      name: 'refs/heads/a',
      updateIndex: n - i,
      type: 1 as const,
      committerName: '',
      email: '',
      time: 0,
      tzOffset: 0,
      message: '',
    }));
    const bytes = writeTable([], logs, { minUpdateIndex: 1, maxUpdateIndex: n, blockSize: 0xffffff });
    expect(bytes.length).toBeLessThan(n);
    const name = `0x000000000001-${'0x' + n.toString(16).padStart(12, '0')}-00000000.ref`;
    const files: InputFile[] = [
      { path: 'reftable/tables.list', source: memorySource(new TextEncoder().encode(name + '\n')) },
      { path: `reftable/${name}`, source: memorySource(bytes) },
    ];
    const a = analyzeFiles(files);
    const link = shareLink(a, buildReport(a), { withNames: false });
    if (!link.ok) throw new Error(link.error);
    const p = decodeShare(link.fragment);
    expect(p.tables[0].logs + p.tables[0].logDeletions).toBe(n);
  });
});
