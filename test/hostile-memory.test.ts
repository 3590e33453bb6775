/**
 * Memory per block of a table of tiny blocks (the "tiny-blocks" attack: 64-byte blocks, restart
 * interval 1, one or two refs a block): what the parsed table and its report keep per block is
 * counted in heap bytes after a full garbage collection, not timed. It once cost about 1.6 KB a
 * block (25 times the file); the bound here is a few hundred bytes, so the memory an input can
 * take stays a small multiple of its size.
 */
import { describe, it, expect } from 'vitest';
import v8 from 'node:v8';
import vm from 'node:vm';
import { writeTable, type RefRecordIn } from '../src/engine/reftable/writer.ts';
import { openTable, memorySource, analyzeFiles, buildReport } from '../src/engine/index.ts';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

/** Bytes per block the parsed table may keep (its block list, keys and record columns). */
const TABLE_BYTES_PER_BLOCK = 320;
/** Bytes per block the report may add (its per-block rows). */
const REPORT_BYTES_PER_BLOCK = 256;

describe('memory per tiny block', () => {
  it('a table of 64-byte blocks keeps a few hundred bytes per block, its report as many', () => {
    const N = 40_000;
    const refs: RefRecordIn[] = [];
    for (let i = 0; i < N; i++) {
      const value = Uint8Array.from({ length: 20 }, (_, k) => (i * 7 + k) & 255);
      refs.push({ name: 'r' + i.toString(36).padStart(5, '0'), updateIndex: 1, type: 1, value });
    }
    refs.sort((a, b) => (a.name < b.name ? -1 : 1));
    const bytes = writeTable(refs, [], {
      minUpdateIndex: 1,
      maxUpdateIndex: 1,
      blockSize: 64,
      restartInterval: 1,
      indexObjects: false,
    });
    refs.length = 0;

    let before = heap();
    const t = openTable({ path: 'x.ref', source: memorySource(bytes) });
    const tableBytes = heap() - before;
    const blocks = t.blocks.length;
    // A 64-byte block holds at most two of these refs (6-byte names, 20-byte ids): ≥ 20,000 blocks.
    expect(blocks).toBeGreaterThan(N / 2);
    expect(t.refs.count).toBe(N);
    expect(tableBytes / blocks).toBeLessThan(TABLE_BYTES_PER_BLOCK);

    const list = new TextEncoder().encode('x.ref\n');
    const a = analyzeFiles([
      { path: 'reftable/tables.list', source: memorySource(list) },
      { path: 'reftable/x.ref', source: memorySource(bytes) },
    ]);
    before = heap();
    const r = buildReport(a);
    const reportBytes = heap() - before;
    expect(r.tables[0].blocks.length).toBe(blocks);
    expect(reportBytes / blocks).toBeLessThan(REPORT_BYTES_PER_BLOCK);
  });
});
