/**
 * Hand computations against the spec (git's Documentation/technical/reftable.adoc): varints,
 * CRC-32, a tiny table assembled byte by byte, a log block, a CRC failure.
 */
import { describe, it, expect } from 'vitest';
import { zlibSync } from 'fflate';
import {
  getVarint,
  encodeVarint,
  cursor,
  crc32,
  openTable,
  memorySource,
  mergeTables,
  listRefs,
  readLogs,
  FormatError,
  putU24,
  putU32,
  putU64,
} from '../src/engine/index.ts';

describe('varint (spec "Varint encoding", as pack ofs-delta)', () => {
  // Hand-decoded: 0x80 0x00 → v = 0, then ((0 + 1) << 7) | 0 = 128;
  // 0xff 0x7f → ((127 + 1) << 7) | 127 = 16511; 0x80 0x80 0x00 → 0 → 128 → (128 + 1) * 128 = 16512.
  const cases: [number[], number][] = [
    [[0x00], 0],
    [[0x7f], 127],
    [[0x80, 0x00], 128],
    [[0x80, 0x7f], 255],
    [[0x81, 0x00], 256],
    [[0xff, 0x7f], 16511],
    [[0x80, 0x80, 0x00], 16512],
  ];
  for (const [bytes, v] of cases) {
    it(`${bytes.map((b) => b.toString(16)).join(' ')} = ${v}`, () => {
      expect(getVarint(Uint8Array.from(bytes), 0, bytes.length)).toBe(v);
      expect(cursor.pos).toBe(bytes.length);
      expect(Array.from(encodeVarint(v))).toEqual(bytes);
    });
  }
  it('a varint that does not end is -1; one past 2^53 is -2', () => {
    expect(getVarint(Uint8Array.from([0x80, 0x80]), 0, 2)).toBe(-1);
    expect(getVarint(new Uint8Array(10).fill(0xff), 0, 10)).toBe(-2);
  });
  it('2^53 - 1 round-trips', () => {
    const e = encodeVarint(Number.MAX_SAFE_INTEGER);
    expect(getVarint(e, 0, e.length)).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe('crc32 (zlib polynomial)', () => {
  it('check value of "123456789" is 0xcbf43926', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
  });
});

const enc = (s: string) => Array.from(new TextEncoder().encode(s));
const fill = (b: number, n: number) => new Array(n).fill(b);

/**
 * A v1 table, block_size 256, update indexes 1..2, one ref block with 4 records and 1 restart:
 *  rec1 HEAD            prefix 0, suffix 4, type 3 → 0x00 0x23 "HEAD" delta 0, target len 15 "refs/heads/main"  (23 bytes)
 *  rec2 refs/heads/main prefix 0, suffix 15, type 1 → 0x00 0x79 ... delta 1, oid 0x11×20                       (38 bytes)
 *  rec3 refs/heads/old  prefix 11 ("refs/heads/"), suffix "old", type 0 → 0x0b 0x18 "old" delta 1             (6 bytes)
 *  rec4 refs/tags/v1    prefix 5 ("refs/"), suffix "tags/v1", type 2 → 0x05 0x3a ... delta 0, 0x22×20, 0x33×20 (50 bytes)
 * Records at 28..145 (117 bytes), restart table at 145 = [28], restart_count at 148 = 1, block_len 150,
 * NUL padding to 256, footer at 256 (68 bytes): file size 324.
 */
function tinyTable(opts: { logs?: boolean } = {}): Uint8Array {
  const header = [...enc('REFT'), 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2];
  const recs = [
    0x00,
    0x23,
    ...enc('HEAD'),
    0x00,
    0x0f,
    ...enc('refs/heads/main'),
    0x00,
    0x79,
    ...enc('refs/heads/main'),
    0x01,
    ...fill(0x11, 20),
    0x0b,
    0x18,
    ...enc('old'),
    0x01,
    0x05,
    0x3a,
    ...enc('tags/v1'),
    0x00,
    ...fill(0x22, 20),
    ...fill(0x33, 20),
  ];
  expect(recs.length).toBe(117);
  const block = [...header, 0x72, 0, 0, 150, ...recs, 0, 0, 28, 0, 1];
  expect(block.length).toBe(150);
  const body = [...block, ...fill(0, 256 - 150)];
  let logPos = 0;
  if (opts.logs) {
    // One log block right after the ref block: key "refs/heads/main\0" + reverse(2) = 0xff..fd,
    // type 1; old id 0×20, new id 0x11×20, name "A U Thor", email "a@example.com", time 1234567890,
    // tz -130 (0xff7e), message "create\n". One restart at offset 4 (after the 4-byte header).
    const key = [...enc('refs/heads/main'), 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfd];
    // (24 << 3) | 1 = 193 needs two varint bytes: 0x80 0x41.
    const rec = [
      0x00,
      0x80,
      0x41,
      ...key,
      ...fill(0, 20),
      ...fill(0x11, 20),
      8,
      ...enc('A U Thor'),
      13,
      ...enc('a@example.com'),
      ...Array.from(encodeVarint(1234567890)),
      0xff,
      0x7e,
      7,
      ...enc('create\n'),
    ];
    const inner = [...rec, 0, 0, 4, 0, 1];
    const blockLen = 4 + inner.length;
    logPos = body.length;
    body.push(
      0x67,
      (blockLen >> 16) & 0xff,
      (blockLen >> 8) & 0xff,
      blockLen & 0xff,
      ...zlibSync(Uint8Array.from(inner)),
    );
  }
  const footer = new Uint8Array(68);
  footer.set(header, 0);
  putU64(footer, 24 + 24, logPos);
  putU32(footer, 64, crc32(footer, 0, 64));
  return Uint8Array.from([...body, ...footer]);
}

describe('a tiny hand-built table', () => {
  it('parses into the records written', () => {
    const bytes = tinyTable();
    expect(bytes.length).toBe(324);
    const t = openTable({ path: 'tiny.ref', source: memorySource(bytes) });
    expect(t.header).toMatchObject({
      version: 1,
      blockSize: 256,
      minUpdateIndex: 1,
      maxUpdateIndex: 2,
      hashId: 'sha1',
    });
    expect(t.blocks).toHaveLength(1);
    expect(t.blocks[0]).toMatchObject({
      offset: 0,
      type: 'ref',
      blockLen: 150,
      restartCount: 1,
      recordCount: 4,
      padding: 106,
      fileBytes: 256,
      restartTableOffset: 145,
    });
    expect(t.counts).toMatchObject({ ref: 1, peeled: 1, symref: 1, tombstone: 1 });
    expect(t.refs.names).toEqual(['HEAD', 'refs/heads/main', 'refs/heads/old', 'refs/tags/v1']);
    expect(Array.from(t.refs.updateIndex)).toEqual([1, 2, 2, 1]);
    expect(t.refs.targets.get(0)).toBe('refs/heads/main');
    expect(Array.from(t.refs.peeled.get(3)!)).toEqual(fill(0x33, 20));
    // for-each-ref: HEAD resolves to main's id; the tombstone is not listed; the tag shows its own id.
    expect(listRefs([t], mergeTables([t]))).toEqual([
      { name: 'HEAD', oid: '11'.repeat(20) },
      { name: 'refs/heads/main', oid: '11'.repeat(20) },
      { name: 'refs/tags/v1', oid: '22'.repeat(20) },
    ]);
  });
  it('log record fields', () => {
    const t = openTable({ path: 'tiny.ref', source: memorySource(tinyTable({ logs: true })) });
    expect(t.counts.log).toBe(1);
    expect(readLogs(t)).toEqual([
      {
        refname: 'refs/heads/main',
        updateIndex: 2,
        type: 'update',
        oldId: '00'.repeat(20),
        newId: '11'.repeat(20),
        name: 'A U Thor',
        email: 'a@example.com',
        time: 1234567890,
        tzOffset: -130,
        message: 'create\n',
      },
    ]);
  });
  it('a CRC mismatch names the CRC field offset (324 - 4 = 320)', () => {
    const b = tinyTable();
    b[256 + 30] ^= 1; // inside the footer's ref_index_position
    expect(() => openTable({ path: 'tiny.ref', source: memorySource(b) })).toThrow(FormatError);
    try {
      openTable({ path: 'tiny.ref', source: memorySource(b) });
    } catch (e) {
      expect((e as FormatError).offset).toBe(320);
      expect((e as FormatError).message).toMatch(
        /^tiny\.ref: offset 320: expected footer CRC-32 0x[0-9a-f]{8}, found 0x[0-9a-f]{8}$/,
      );
    }
  });
  it('an unaligned copy (block_size 0) reads the same records', () => {
    const b = tinyTable();
    const un = Uint8Array.from([...b.subarray(0, 150), ...b.subarray(256)]);
    for (const at of [5, 150 + 5]) putU24(un, at, 0); // header and footer block_size = 0
    putU32(un, 150 + 64, crc32(un, 150, 150 + 64));
    const t = openTable({ path: 'u.ref', source: memorySource(un) });
    expect(t.blocks[0]).toMatchObject({ blockLen: 150, padding: 0, fileBytes: 150 });
    expect(t.refs.count).toBe(4);
  });
});
