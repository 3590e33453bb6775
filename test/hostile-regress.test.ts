/**
 * Regressions from the hostile tester's findings (table parser): long keys in log blocks must not
 * make parsing quadratic, and prefix compression must not expand a small table into gigabytes of
 * names. Tables built with refscope's writer (byte-identical to git's on every fixture).
 */
import { describe, it, expect } from 'vitest';
import { writeTable, type LogRecordIn, type RefRecordIn } from '../src/engine/writer.ts';
import { openTable, memorySource, FormatError, crc32, encodeVarint, putU32, putU64 } from '../src/engine/index.ts';
import { zlibSync } from 'fflate';

/**
 * A log-only table (v1, block_size 0) whose one log block holds `n` deletion records, each key
 * the previous key (prefix = its whole length) plus 10 bytes ("a", NUL, 8-byte reversed update
 * index): key i is 10 × (i + 1) bytes long, so rebuilding keys as strings costs O(n²).
 */
function growingLogKeys(n: number): Uint8Array {
  const recs: number[] = [];
  let prevLen = 0;
  for (let i = 0; i < n; i++) {
    recs.push(...encodeVarint(prevLen), ...encodeVarint((10 << 3) | 0), 0x61, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe);
    prevLen += 10;
  }
  const inner = Uint8Array.from([...recs, 0, 0, 4, 0, 1]);
  const blockLen = 4 + inner.length;
  const header = [0x52, 0x45, 0x46, 0x54, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1];
  const z = zlibSync(inner);
  const body = [...header, 0x67, (blockLen >> 16) & 0xff, (blockLen >> 8) & 0xff, blockLen & 0xff, ...z];
  const footer = new Uint8Array(68);
  footer.set(header, 0);
  putU64(footer, 24 + 24, 24); // log_position: right after the header
  putU32(footer, 64, crc32(footer, 0, 64));
  return Uint8Array.from([...body, ...footer]);
}

describe('hostile shapes', () => {
  it('a log block whose keys keep growing (60,000 records, keys up to 600 KB) parses in well under 2 s', () => {
    const bytes = growingLogKeys(60000);
    const t0 = Date.now();
    const t = openTable({ path: 'grow.ref', source: memorySource(bytes) });
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(t.counts.logDeletion).toBe(60000);
  });
  it('2,000 log records with 8 KiB names sharing a prefix parse in well under 2 s', () => {
    const base = 'refs/heads/' + 'x'.repeat(8192);
    const logs: LogRecordIn[] = [];
    for (let i = 0; i < 2000; i++) {
      logs.push({ name: base + String(i).padStart(5, '0'), updateIndex: 1, type: 1, oldId: new Uint8Array(20), newId: new Uint8Array(20).fill(1), committerName: 'a', email: 'b', time: 1, tzOffset: 0, message: 'm' });
    }
    const bytes = writeTable([], logs, { minUpdateIndex: 1, maxUpdateIndex: 1, blockSize: 1 << 20 });
    const t0 = Date.now();
    const t = openTable({ path: 'logs.ref', source: memorySource(bytes) });
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(t.counts.log).toBe(2000);
  });
  it('a table whose names expand beyond the key budget is refused with a FormatError, not an allocation failure', async () => {
    const mod = await import('../src/engine/table.ts');
    // Budget = 256 MiB + 32 bytes per file byte. 40,000 names of 8 KiB sharing all but 6 bytes
    // spell 328 MB of names from a table of a few hundred KB: over the budget.
    const base = 'refs/heads/' + 'y'.repeat(8192);
    const refs: RefRecordIn[] = [];
    for (let i = 0; i < 40000; i++) refs.push({ name: base + String(i).padStart(6, '0'), updateIndex: 1, type: 0 });
    const bytes = writeTable(refs, [], { minUpdateIndex: 1, maxUpdateIndex: 1, blockSize: (1 << 24) - 1, restartInterval: 65535, indexObjects: false });
    const budget = mod.KEY_BYTES_BASE + mod.KEY_BYTES_PER_FILE_BYTE * bytes.length;
    expect(40000 * (base.length + 6)).toBeGreaterThan(budget);
    expect(() => openTable({ path: 'keys.ref', source: memorySource(bytes) })).toThrow(FormatError);
    expect(() => openTable({ path: 'keys.ref', source: memorySource(bytes) })).toThrow(/expected ref names of at most/);
  });
});
