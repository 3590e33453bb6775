/**
 * Hand-made damaged tables, one per structural check of issue #9, each with the exact message.
 *
 * Tables are assembled byte by byte here (the helpers below only concatenate fields and compute
 * lengths); every expected offset is worked out by hand in the comments from the layouts drawn
 * next to each baseline. CRC-32 and Adler-32 values in messages come from node:zlib's crc32 and
 * the 4-line Adler-32 below, independent of the engine's own.
 */
import { describe, it, expect } from 'vitest';
import zlib from 'node:zlib';
import {
  openTable,
  memorySource,
  analyzeFiles,
  buildReport,
  analysisRefs,
  FormatError,
  BudgetError,
  seekRef,
  newCounters,
  refsForObject,
  type InputFile,
} from '../src/engine/index.ts';

// ---------------------------------------------------------------------------------------------
// Byte helpers (big-endian, reftable varint)

const str = (s: string): number[] => [...s].map((c) => c.charCodeAt(0));
const u16 = (v: number): number[] => [(v >>> 8) & 255, v & 255];
const u24 = (v: number): number[] => [(v >>> 16) & 255, (v >>> 8) & 255, v & 255];
const u32 = (v: number): number[] => [(v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];
const u64 = (v: number): number[] => [...u32(Math.floor(v / 2 ** 32)), ...u32(v >>> 0)];
/** Reftable varint (pack ofs-delta): 92 → [0x5c]; 136 → [0x80, 0x08] since (0 + 1) · 128 + 8 = 136. */
function varint(v: number): number[] {
  const out = [v & 0x7f];
  v = Math.floor(v / 128);
  while (v > 0) {
    v -= 1;
    out.unshift(0x80 | (v & 0x7f));
    v = Math.floor(v / 128);
  }
  return out;
}
const fill = (n: number, b: number): number[] => new Array(n).fill(b);
function adler32(b: number[]): number {
  let a = 1,
    s = 0;
  for (const x of b) {
    a = (a + x) % 65521;
    s = (s + a) % 65521;
  }
  return ((s << 16) | a) >>> 0;
}
const hex8 = (n: number) => '0x' + (n >>> 0).toString(16).padStart(8, '0');

/** Header: 'REFT', version, u24 block_size, u64 min, u64 max (+ u32 hash id for v2). */
function header(
  o: { version?: number; blockSize?: number; min?: number; max?: number; hashId?: string } = {},
): number[] {
  const v = o.version ?? 1;
  return [
    ...str('REFT'),
    v,
    ...u24(o.blockSize ?? 256),
    ...u64(o.min ?? 1),
    ...u64(o.max ?? 2),
    ...(v === 2 ? str(o.hashId ?? 'sha1') : []),
  ];
}
interface Positions {
  refIndex?: number;
  obj?: number;
  objIdLen?: number;
  objIndex?: number;
  log?: number;
  logIndex?: number;
}
/** Footer: header copy, five u64 fields, CRC-32 of everything before it. */
function footer(hdr: number[], p: Positions = {}): number[] {
  const body = [
    ...hdr,
    ...u64(p.refIndex ?? 0),
    ...u64((p.obj ?? 0) * 32 + (p.objIdLen ?? 0)),
    ...u64(p.objIndex ?? 0),
    ...u64(p.log ?? 0),
    ...u64(p.logIndex ?? 0),
  ];
  return [...body, ...u32(zlib.crc32(Uint8Array.from(body)))];
}
/** A record: varint prefix, varint (suffix_len << 3 | type), suffix, body. */
const rec = (prefix: number, suffix: string, type: number, ...body: number[][]): number[] => [
  ...varint(prefix),
  ...varint(suffix.length * 8 + type),
  ...str(suffix),
  ...body.flat(),
];
/**
 * A ref/index/obj block: type, u24 block_len, records, u24 restart offsets, u16 restart count.
 * `hoff` is the file header before it (24 for the first block, 0 otherwise): block_len and
 * restart offsets count from the block start, which for the first block is file byte 0.
 * `restarts` are record indexes; `restartAt` overrides the offsets written.
 */
function block(type: string, recs: number[][], hoff = 0, restarts = [0], restartAt?: number[]): number[] {
  const at: number[] = [];
  let p = hoff + 4;
  for (const r of recs) {
    at.push(p);
    p += r.length;
  }
  const offs = restartAt ?? restarts.map((i) => at[i]);
  const len = p + 3 * offs.length + 2;
  return [type.charCodeAt(0), ...u24(len), ...recs.flat(), ...offs.flatMap(u24), ...u16(offs.length)];
}
/** A log block holding `inflated` (records + restart table) as one stored deflate block. */
function logBlock(inflated: number[], hoff = 0, blockLenDelta = 0): number[] {
  const len = hoff + 4 + inflated.length + blockLenDelta;
  const n = inflated.length;
  // zlib header 78 01 (check: 0x7801 = 30721 = 31 · 991), stored final block: 01, LEN, ~LEN (LE).
  return [
    0x67,
    ...u24(len),
    0x78,
    0x01,
    0x01,
    n & 255,
    n >> 8,
    ~n & 255,
    (~n >> 8) & 255,
    ...inflated,
    ...u32(adler32(inflated)),
  ];
}
const bytes = (...parts: number[][]): Uint8Array => Uint8Array.from(parts.flat());
/** Overwrite bytes at `at`; `crc` recomputes the footer CRC (v1: footer = last 68 bytes). */
function patch(b: Uint8Array, at: number, v: number[], crc = false): Uint8Array {
  const c = Uint8Array.from(b);
  c.set(v, at);
  if (crc) {
    const fs = c[4] === 2 ? 72 : 68;
    const base = c.length - fs;
    c.set(u32(zlib.crc32(c.subarray(base, c.length - 4))), c.length - 4);
  }
  return c;
}
const open = (b: Uint8Array, opts = {}) => openTable({ path: 't.ref', source: memorySource(b) }, opts);
/** The FormatError message for opening `b` (fails the test if it opens or throws something else). */
function err(b: Uint8Array, opts = {}): string {
  try {
    open(b, opts);
  } catch (e) {
    expect(e).toBeInstanceOf(FormatError);
    return (e as FormatError).message;
  }
  throw new Error('the table was accepted');
}

// ---------------------------------------------------------------------------------------------
// Baseline T0: v1, block_size 256, update indexes 1..2, one ref block, no other section.
//
//   0..23    header: 'REFT' 01 | 00 01 00 | u64 1 | u64 2
//   24..27   'r' u24 block_len = 92
//   28..62   A: 00 | 61 (12 << 3 | 1) | "refs/heads/a" | 00 (delta 0) | 11 × 20      35 bytes
//   63..86   B: 0b (prefix 11) | 09 (1 << 3 | 1) | "b" | 01 (delta 1) | 22 × 20      24 bytes
//   87..89   restart offset 28
//   90..91   restart_count 1                           → block_len = 92
//   92..159  footer: header copy 92..115, ref_index 116, obj 124, obj_index 132, log 140,
//            log_index 148, CRC-32 156..159            → file size 160
const H0 = header();
const A = rec(0, 'refs/heads/a', 1, [0], fill(20, 0x11));
const B = rec(11, 'b', 1, [1], fill(20, 0x22));
const T0 = bytes(H0, block('r', [A, B], 24), footer(H0));
// T0r2: B encoded without prefix (B0: 00 61 "refs/heads/b" 01 22×20 at 63..97) and a restart at
// each record: restart table 98..103 (entry 1 at 101), count 104..105, block_len 106.
const B0 = rec(0, 'refs/heads/b', 1, [1], fill(20, 0x22));
const T0r2 = bytes(H0, block('r', [A, B0], 24, [0, 1]), footer(H0));
// B as a tombstone: 0b 08 "b" 01 at 63..66; restart table 67..69, count 70..71, block_len 72.
const Bt = rec(11, 'b', 0, [1]);
const T0t = bytes(H0, block('r', [A, Bt], 24), footer(H0));
// B as a symref to "refs/": 0b 0b "b" 01 05 "refs/" at 63..72; restart table 73, block_len 78.
const Bs = rec(11, 'b', 3, [1], [5], str('refs/'));
const T0s = bytes(H0, block('r', [A, Bs], 24), footer(H0));

describe('baselines', () => {
  it('the hand-made tables open', () => {
    expect(T0.length).toBe(160);
    const t = open(T0);
    expect(t.blocks.map((b) => [b.offset, b.blockLen, b.restartTableOffset])).toEqual([[0, 92, 87]]);
    expect(t.refs.names).toEqual(['refs/heads/a', 'refs/heads/b']);
    expect(Array.from(t.refs.updateIndex)).toEqual([1, 2]);
    expect(open(T0r2).blocks[0].restartCount).toBe(2);
    expect(open(T0t).counts.tombstone).toBe(1);
    expect(open(T0s).refs.targets.get(1)).toBe('refs/');
  });
});

describe('header and file size', () => {
  it('file shorter than a header', () => {
    expect(err(T0.subarray(0, 20))).toBe('t.ref: offset 20: expected a reftable header of 24 bytes (file too short)');
  });
  it('magic', () => {
    expect(err(patch(T0, 0, [0x58]))).toBe("t.ref: offset 0: expected magic 'REFT'");
  });
  it('version', () => {
    expect(err(patch(T0, 4, [3]))).toBe('t.ref: offset 4: expected version 1 or 2, found 3');
  });
  it('hash id (v2 header, bytes 24..27)', () => {
    const h = header({ version: 2, hashId: 'md5!' });
    expect(err(bytes(h, fill(100, 0)))).toBe("t.ref: offset 24: expected hash id 'sha1' or 's256'");
  });
  it('min_update_index ≤ max_update_index', () => {
    const h = header({ min: 3, max: 2 });
    expect(err(bytes(h, fill(100, 0)))).toBe('t.ref: offset 8: expected min_update_index (3) ≤ max_update_index (2)');
  });
  it('update indexes below 2^53 (min_update_index high word 0x00200000 = 2^53 / 2^32)', () => {
    expect(err(patch(T0, 8, [0x00, 0x20, 0x00, 0x00]))).toBe('t.ref: offset 8: expected min_update_index below 2^53');
  });
  it('file at least header + footer (24 + 68 = 92 bytes)', () => {
    expect(err(T0.subarray(0, 80))).toBe('t.ref: offset 80: expected at least 92 bytes (header + footer), found 80');
  });
});

describe('footer', () => {
  it('CRC-32 (footer 92..159, CRC at 156; a changed byte 147 without a new CRC)', () => {
    const d = patch(T0, 147, [0x30]);
    const want = zlib.crc32(d.subarray(92, 156));
    const found = zlib.crc32(T0.subarray(92, 156));
    expect(err(d)).toBe(`t.ref: offset 156: expected footer CRC-32 ${hex8(want)}, found ${hex8(found)}`);
  });
  it('header and footer agree (footer copy of max_update_index low byte: 92 + 23 = 115)', () => {
    expect(err(patch(T0, 115, [3], true))).toBe(
      't.ref: offset 115: expected footer to repeat the header byte for byte',
    );
  });
  it('log_position inside the blocks (field at 92 + 24 + 24 = 140)', () => {
    expect(err(patch(T0, 140, u64(500), true))).toBe(
      't.ref: offset 140: expected log_position 0 or inside the blocks [24, 92), found 500',
    );
  });
  it('ref_index_position inside the blocks (field at 92 + 24 = 116)', () => {
    expect(err(patch(T0, 116, u64(10), true))).toBe(
      't.ref: offset 116: expected ref_index_position 0 or inside the blocks [24, 92), found 10',
    );
  });
  it('positions below 2^53 (obj field at 92 + 24 + 8 = 124)', () => {
    expect(err(patch(T0, 124, [0, 0x20, 0, 0, 0, 0, 0, 0], true))).toBe(
      't.ref: offset 124: expected obj position below 2^53',
    );
  });
  it('obj_id_len 2..20 (obj word (60 << 5) | 1)', () => {
    expect(err(patch(T0, 124, u64(60 * 32 + 1), true))).toBe(
      't.ref: offset 124: expected obj_id_len between 2 and 20, found 1',
    );
  });
});

describe('sections', () => {
  it('sections in file order (ref index at 80 after obj at 60)', () => {
    const d = patch(patch(T0, 116, u64(80)), 124, u64(60 * 32 + 2), true);
    expect(err(d)).toBe(
      't.ref: offset 116: expected sections in the order ref, ref index, obj, obj index, log, log index (ref_index_position 80 is after obj_position 60)',
    );
  });
  it('an index only with its section (obj_index_position at 92 + 24 + 16 = 132, no obj)', () => {
    expect(err(patch(T0, 132, u64(80), true))).toBe(
      't.ref: offset 132: expected obj_index_position 0 when the table has no obj section',
    );
  });
  it("first block type 'r' or 'g' (byte 24)", () => {
    expect(err(patch(T0, 24, [0x78]))).toBe(
      "t.ref: offset 24: expected block type 'r' or 'g' after the header, found 0x78",
    );
  });
  it('first section right after the header (no ref block, log_position 50)', () => {
    const d = patch(patch(T0, 24, [0x78]), 140, u64(50), true);
    expect(err(d)).toBe(
      't.ref: offset 140: expected the first section (log_position) to start right after the header at 24, found 50',
    );
  });
});

describe('blocks', () => {
  it('block_len ≤ block size (field at 25)', () => {
    expect(err(patch(T0, 25, u24(300)))).toBe('t.ref: offset 25: expected block_len ≤ block size 256, found 300');
  });
  it('block_len at least header + block header + restart count (24 + 4 + 2 = 30)', () => {
    expect(err(patch(T0, 25, u24(5)))).toBe('t.ref: offset 25: expected block_len ≥ 30, found 5');
  });
  it('block_len within the section and the file (ref section ends at the footer, 92)', () => {
    expect(err(patch(T0, 25, u24(200)))).toBe(
      't.ref: offset 25: expected block_len within the ref section (ends at 92), found 200',
    );
  });
  it('restart_count ≥ 1 (count at 90)', () => {
    expect(err(patch(T0, 90, u16(0)))).toBe('t.ref: offset 90: expected restart_count ≥ 1, found 0');
  });
  it('restart table inside the block (30 restarts: 92 − 2 − 90 = 0 < first record 28)', () => {
    expect(err(patch(T0, 90, u16(30)))).toBe(
      't.ref: offset 90: expected a restart table (30 × 3 bytes) that leaves room for records in block_len 92',
    );
  });
  it('restart offsets inside the records (entry 0 at 87)', () => {
    expect(err(patch(T0, 87, u24(100)))).toBe(
      't.ref: offset 87: expected restart offset 0 increasing and inside the records [28, 87), found 100',
    );
  });
  it('restart offsets increasing (T0r2: entry 1 at 98 + 3 = 101)', () => {
    expect(err(patch(T0r2, 101, u24(28)))).toBe(
      't.ref: offset 101: expected restart offset 1 increasing and inside the records [28, 98), found 28',
    );
  });
  it('restart offsets at record boundaries (T0r2: 70 is inside B0, 63..97)', () => {
    expect(err(patch(T0r2, 101, u24(70)))).toBe(
      't.ref: offset 101: expected restart offset 1 at a record boundary, found 70',
    );
  });
  it('the first record at a restart point (restart offset 63: expected A at 28 is not)', () => {
    expect(err(patch(T0, 87, u24(63)))).toBe(
      't.ref: offset 28: expected the first record of a block at a restart point',
    );
  });
  it('prefix length 0 at a restart point (T0 with a restart at B, 63, which has prefix 11)', () => {
    // Restart table 87..92 (28, 63), count 93..94, block_len 95.
    expect(err(bytes(H0, block('r', [A, B], 24, [0, 1]), footer(H0)))).toBe(
      't.ref: offset 63: expected prefix length 0 at a restart point, found 11',
    );
  });
  it('keys increasing across blocks (unaligned; block 2 at 92, its first record at 96)', () => {
    // Block 2: 'r' u24 44 | 00 61 "refs/heads/a" 00 33×20 (96..130) | restart 4 | count 1.
    const h = header({ blockSize: 0 });
    const b2 = block('r', [rec(0, 'refs/heads/a', 1, [0], fill(20, 0x33))]);
    expect(err(bytes(h, block('r', [A, B], 24), b2, footer(h)))).toBe(
      "t.ref: offset 96: expected keys increasing across blocks (this block's first key after the previous block's last key)",
    );
  });
});

describe('records', () => {
  it('varints below 2^53 (A at 28: eight 0xff bytes reach 128^8 = 2^56)', () => {
    expect(err(patch(T0, 28, fill(8, 0xff)))).toBe('t.ref: offset 28: expected a varint below 2^53');
  });
  it('varints that end (T0t: the delta at 66 is 0x80 and the records end at 67)', () => {
    expect(err(patch(T0t, 66, [0x80]))).toBe('t.ref: offset 66: expected a varint that ends inside the block');
  });
  it('prefix length ≤ previous key length (B at 63: prefix 13 > 12)', () => {
    expect(err(patch(T0, 63, [13]))).toBe(
      't.ref: offset 63: expected prefix length ≤ previous key length 12, found 13',
    );
  });
  it('keys strictly increasing (B\'s suffix at 65 = "a": B = A)', () => {
    expect(err(patch(T0, 65, str('a')))).toBe(
      't.ref: offset 63: expected keys strictly increasing (this key after the previous one)',
    );
  });
  it("value types 0..3 (A's type byte at 29: 12 << 3 | 5 = 0x65)", () => {
    expect(err(patch(T0, 29, [0x65]))).toBe('t.ref: offset 28: expected ref value type 0..3, found 5');
  });
  it("update_index within the table's range (B's delta at 63 + 3 = 66: 1 + 5 = 6 > 2)", () => {
    expect(err(patch(T0, 66, [5]))).toBe(
      "t.ref: offset 66: expected update_index within the table's range 1..2, found 6",
    );
  });
  it('key suffix inside the records (T0t: B declares 4 bytes at 65, records end at 67)', () => {
    expect(err(patch(T0t, 64, [4 * 8 + 1]))).toBe(
      't.ref: offset 65: expected key suffix of 4 bytes inside the records (2 left)',
    );
  });
  it('object id inside the records (T0t: B made type 1, its id would start at 67 = end)', () => {
    expect(err(patch(T0t, 64, [1 * 8 + 1]))).toBe(
      't.ref: offset 67: expected object id of 20 bytes inside the records (0 left)',
    );
  });
  it('symref target inside the records (T0s: length at 67 says 9, 68 + 9 > 73)', () => {
    expect(err(patch(T0s, 67, [9]))).toBe(
      't.ref: offset 68: expected symref target of 9 bytes inside the records (5 left)',
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Baseline TI: block_size 0 (unaligned), two ref blocks and a one-block ref index.
//
//   0..91    block 1 = T0's ref block (A, B)
//   92..135  block 2: 'r' u24 44 | C: 00 61 "refs/heads/c" 01 33×20 (96..130) | restart 4 | count 1
//   136..163 index: 'i' u24 28 | I1: 00 60 "refs/heads/b" 00 (140..154; value at 154)
//                              | I2: 0b 08 "c" 5c (155..158; value 92 at 158) | restart 4 | count 1
//   164..231 footer, ref_index_position 136
const HI = header({ blockSize: 0 });
const C = rec(0, 'refs/heads/c', 1, [1], fill(20, 0x33));
const refBlocks = [...block('r', [A, B], 24), ...block('r', [C])];
const I1 = rec(0, 'refs/heads/b', 0, [0]);
const I2 = (pos: number) => rec(11, 'c', 0, varint(pos));
const TI = bytes(HI, refBlocks, block('i', [I1, I2(92)]), footer(HI, { refIndex: 136 }));

describe('indexes', () => {
  it('baseline TI opens, one index level, lookups go through it', () => {
    const t = open(TI);
    expect(t.blocks.map((b) => [b.offset, b.type])).toEqual([
      [0, 'ref'],
      [92, 'ref'],
      [136, 'index'],
    ]);
    expect(t.refIndexLevels).toBe(1);
    expect(t.findings).toEqual([]);
    expect(seekRef(t, 'refs/heads/c', newCounters())).toEqual({ index: 2, exact: true, found: true });
  });
  it('index positions at a block (I2 at 158 points at 100)', () => {
    expect(err(patch(TI, 158, [100], true))).toBe(
      't.ref: offset 158: expected index position at the start of a ref block or a lower index block, found 100',
    );
  });
  it('index positions not at the index block itself (I2 → 136 = 80 08, at 158)', () => {
    // I2 grows by one byte: index block 136..164, footer at 165.
    const d = bytes(HI, refBlocks, block('i', [I1, I2(136)]), footer(HI, { refIndex: 136 }));
    expect(err(d)).toBe('t.ref: offset 158: expected index position pointing at another block, not itself (136)');
  });
  it('index positions point backwards: no cycles', () => {
    // Root X at 136: 'i' u24 25 | 00 60 "refs/heads/c" + varint(161) = 80 21 (value at 154) | restart | count
    // (4 + 16 + 3 + 2 = 25 bytes, 136..160); lower block Y at 161 = TI's index block. X → Y is forwards.
    const x = block('i', [rec(0, 'refs/heads/c', 0, varint(161))]);
    const d = bytes(HI, refBlocks, x, block('i', [I1, I2(92)]), footer(HI, { refIndex: 136 }));
    expect(err(d)).toBe(
      't.ref: offset 154: expected index position pointing back to a ref block or a lower index block (no cycles), found 161 (this block is at 136)',
    );
  });
  it('index positions at blocks of the right type (a ref index pointing at a log block)', () => {
    // Index with I2 → 165 (80 25): 136..164; log block (see T1) at 165; footer after it.
    const lg = logBlock(LOGREC);
    const d = bytes(HI, refBlocks, block('i', [I1, I2(165)]), lg, footer(HI, { refIndex: 136, log: 165 }));
    expect(err(d)).toBe(
      't.ref: offset 158: expected index position at the start of a ref block or a lower index block, found 165 (a log block)',
    );
  });
  it('index depth ≤ 64 levels (a chain of 65 index blocks)', () => {
    // Level k (k = 0..64) is one block with one record 00 60 "refs/heads/b" varint(previous) at
    // offset p_k: level 0 points at ref block 0, level k at level k − 1. Level k has height k + 1,
    // so level 64 is the first over 64: error at its value, p_64 + 4 + 1 + 1 + 12 = p_64 + 18.
    const parts: number[][] = [];
    let prev = 0,
      p = 136,
      last = 0;
    for (let k = 0; k <= 64; k++) {
      const b = block('i', [rec(0, 'refs/heads/b', 0, varint(prev))]);
      parts.push(b);
      prev = p;
      last = p;
      p += b.length;
    }
    const d = bytes(HI, refBlocks, ...parts, footer(HI, { refIndex: 136 }));
    expect(err(d)).toBe(`t.ref: offset ${last + 18}: expected index depth ≤ 64 levels`);
  });
  it('obj positions at ref blocks (obj block at 164: record 00 11 33 33 + position at 172)', () => {
    // obj block: 'o' u24 14 | 00 (2 << 3 | 1 = 0x11) 33 33 varint(pos) at 168..172 | restart 4 | count 1:
    // object ids starting 33 33 (C's) are in the ref block at 92.
    const ob = (pos: number) => block('o', [rec(0, '\x33\x33', 1, varint(pos))]);
    const ok = bytes(
      HI,
      refBlocks,
      block('i', [I1, I2(92)]),
      ob(92),
      footer(HI, { refIndex: 136, obj: 164, objIdLen: 2 }),
    );
    const t = open(ok);
    expect(t.counts.obj).toBe(1);
    expect(refsForObject(t, '33'.repeat(20), newCounters()).map((i) => t.refs.names[i])).toEqual(['refs/heads/c']);
    const d = bytes(
      HI,
      refBlocks,
      block('i', [I1, I2(92)]),
      ob(50),
      footer(HI, { refIndex: 136, obj: 164, objIdLen: 2 }),
    );
    expect(err(d)).toBe('t.ref: offset 172: expected obj position at the start of a ref block, found 50');
  });
  it('an index key that is not its block\'s last key is a warning (I1 says "refs/heads/a")', () => {
    const d = bytes(HI, refBlocks, block('i', [rec(0, 'refs/heads/a', 0, [0]), I2(92)]), footer(HI, { refIndex: 136 }));
    expect(open(d).findings).toEqual([
      {
        severity: 'warning',
        file: 't.ref',
        offset: 154,
        message:
          "index key equal to the last key of the block it points at (0); git's lookups through this refIndex can miss records",
      },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// Baseline T1: T0's ref block, then one log block at 92, footer log_position 92.
//
//   inflated log block (33 bytes, offsets within the block):
//     0..3    'g' u24 33 (the block header; block_len counts it)
//     4..27   L: 00 | 80 28 (21 << 3 | 0 = 168) | "refs/heads/a" 00 ff ff ff ff ff ff ff fd
//             (reversed update index 2): a log deletion, 24 bytes
//     28..30  restart offset 4; 31..32 restart_count 1
//   in the file: 92 'g' | 93..95 u24 33 | 96..97 zlib 78 01 | 98 stored final block
//   | 99..102 LEN 29, NLEN | 103..131 the 29 inflated bytes after the header | 132..135 Adler-32
//   136..203 footer                                                       → file size 204
const LOGKEY = [...str('refs/heads/a'), 0, ...fill(7, 0xff), 0xfd];
// prefix 0, varint 168 = 80 28 (suffix of 21 bytes, type 0), the key, restart table, count.
const logRec = (restart: number) => [0x00, 0x80, 0x28, ...LOGKEY, ...u24(restart), ...u16(1)];
const LOGREC = logRec(4);
const T1 = bytes(H0, block('r', [A, B], 24), logBlock(LOGREC), footer(H0, { log: 92 }));

describe('log blocks', () => {
  it('baseline T1 opens: one log deletion', () => {
    expect(T1.length).toBe(204);
    const t = open(T1);
    expect(t.blocks.map((b) => [b.offset, b.type, b.blockLen, b.fileBytes])).toEqual([
      [0, 'ref', 92, 92],
      [92, 'log', 33, 44],
    ]);
    expect(t.counts.logDeletion).toBe(1);
  });
  it("block type 'g' in the log section (byte 92)", () => {
    expect(err(patch(T1, 92, [0x72]))).toBe(
      "t.ref: offset 92: expected block type 'g' (log) in the log section, found 0x72",
    );
  });
  it('inflating to block_len (block_len 34: the stream ends after 33)', () => {
    expect(err(patch(T1, 93, u24(34)))).toBe(
      't.ref: offset 96: expected log block to inflate to block_len 34 bytes, got 33',
    );
  });
  it('inflation capped at block_len (block_len 32: the first slice, at 98, gives more)', () => {
    expect(err(patch(T1, 93, u24(32)))).toBe(
      't.ref: offset 98: expected log block to inflate to exactly block_len 32 bytes (it inflates to more)',
    );
  });
  it('a zlib header (78 02: 0x7802 = 30722 is not a multiple of 31)', () => {
    expect(err(patch(T1, 97, [0x02]))).toBe(
      't.ref: offset 96: expected a zlib header (deflate, window ≤ 32 KiB, check bits, no dictionary), found 0x7802',
    );
  });
  it('a valid deflate stream (block type 11 at 98)', () => {
    expect(err(patch(T1, 98, [0x07]))).toBe('t.ref: offset 98: expected a valid zlib stream (invalid block type)');
  });
  it('the Adler-32 trailer (at 98 + 5 + 29 = 132)', () => {
    const a = adler32(LOGREC);
    expect(err(patch(T1, 135, [(a & 255) ^ 1]))).toBe(
      `t.ref: offset 132: expected zlib Adler-32 ${hex8(a)} of the inflated block, found ${hex8(a ^ 1)}`,
    );
  });
  it('log keys: refname NUL reversed index (the NUL, LOGREC[3 + 12] = inflated byte 19, made "x")', () => {
    const bad = [...LOGREC];
    bad[15] = 0x78;
    const d = bytes(H0, block('r', [A, B], 24), logBlock(bad), footer(H0, { log: 92 }));
    expect(err(d)).toBe(
      't.ref: offset 92: expected log key: refname, NUL, 8-byte reversed update index (at byte 4 of the inflated log block)',
    );
  });
  it('log value types 0..1 (80 2a = 21 << 3 | 2)', () => {
    const bad = [...LOGREC];
    bad[2] = 0x2a;
    const d = bytes(H0, block('r', [A, B], 24), logBlock(bad), footer(H0, { log: 92 }));
    expect(err(d)).toBe(
      't.ref: offset 92: expected log value type 0 or 1, found 2 (at byte 4 of the inflated log block)',
    );
  });
  it('no zip bomb: 64 MiB of zeros (~64 KiB of deflate) in a block_len 1000 block stops at once', () => {
    const bomb = zlib.deflateSync(Buffer.alloc(64 << 20), { level: 9 });
    const lg = [0x67, ...u24(1000), ...bomb];
    const d = bytes(H0, block('r', [A, B], 24), lg, footer(H0, { log: 92 }));
    expect(err(d)).toBe(
      't.ref: offset 98: expected log block to inflate to exactly block_len 1000 bytes (it inflates to more)',
    );
    // Work, counted: read block by block, the log block costs its 4-byte header (read by the
    // block walk, then again by the inflater, which copies it into the inflated block), the
    // 2-byte zlib header and one slice of max(1024, 996 expected bytes) = 1024 compressed bytes.
    let logBytes = 0;
    const src = {
      size: d.length,
      read: (o: number, n: number) => {
        if (o >= 92 && o < d.length - 68) logBytes += Math.min(n, d.length - o);
        return d.subarray(o, o + n);
      },
    };
    expect(() => openTable({ path: 't.ref', source: src }, { wholeReadLimit: 0 })).toThrow(FormatError);
    expect(logBytes).toBe(4 + 4 + 2 + 1024);
  });
  it('a log-only table: first block a log block at 0, log_position 0 (as git writes it)', () => {
    // 0..23 header | 24 'g' u24 (24 + 33 = 57) | zlib stream of the 29 bytes after the block
    // header; the restart offset counts from file byte 0: the record is at 28.
    const d = bytes(H0, logBlock(logRec(28), 24), footer(H0));
    const t = open(d);
    expect(t.blocks.map((b) => [b.offset, b.type, b.section, b.blockLen])).toEqual([[0, 'log', 'log', 57]]);
    expect(t.counts.logDeletion).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------
// Stacks: tables.list, missing tables, warnings, and one broken table not hiding the others.

const mem = (path: string, b: Uint8Array | string): InputFile => ({
  path,
  source: memorySource(typeof b === 'string' ? new TextEncoder().encode(b) : b),
});
function stackErr(list: string): string {
  try {
    analyzeFiles([mem('reftable/tables.list', list), mem('reftable/t.ref', T0)]);
  } catch (e) {
    expect(e).toBeInstanceOf(FormatError);
    return (e as FormatError).message;
  }
  throw new Error('accepted');
}
// Table U: update indexes 3..3, one ref "refs/heads/u".
const HU = header({ min: 3, max: 3 });
const TU = bytes(HU, block('r', [rec(0, 'refs/heads/u', 1, [0], fill(20, 0x44))], 24), footer(HU));

describe('tables.list and the stack', () => {
  it("safe names: no '/'", () => {
    expect(stackErr('t.ref\n../x.ref\n')).toBe(
      "reftable/tables.list: offset 6: expected a plain file name (no '/', no '..'), found \"../x.ref\"",
    );
  });
  it("safe names: not '..'", () => {
    expect(stackErr('..\n')).toBe(
      "reftable/tables.list: offset 0: expected a plain file name (no '/', no '..'), found \"..\"",
    );
  });
  it('empty lines are skipped as git skips them (line 2 starts at 6)', () => {
    const a = analyzeFiles([mem('reftable/tables.list', 't.ref\n\n'), mem('reftable/t.ref', T0)]);
    expect(a.stack!.names).toEqual(['t.ref']);
    expect(a.findings.map((f) => `${f.file}: ${f.offset}: ${f.message}`)).toContain(
      'reftable/tables.list: 6: 1 empty line (git skips them)',
    );
  });
  it('a final newline', () => {
    expect(stackErr('t.ref')).toBe('reftable/tables.list: offset 0: expected a newline at the end of the last line');
  });
  it('listed files exist (u.ref on the line at 6); the other table is still read', () => {
    const a = analyzeFiles([mem('reftable/tables.list', 't.ref\nu.ref\n'), mem('reftable/t.ref', T0)]);
    expect(a.stack!.broken.map((b) => b.error.message)).toEqual([
      'reftable/tables.list: offset 6: expected table file "u.ref" named in tables.list to exist',
    ]);
    expect(analysisRefs(a).map((r) => r.name)).toEqual(['refs/heads/a', 'refs/heads/b']);
    const r = buildReport(a);
    expect(r.stack!.incomplete).toBe(true);
    expect(r.stack!.incompleteFigures).toContain('live');
    expect(r.tables[0].incomplete).toEqual(['shadowed', 'hiddenByTombstone', 'winners']);
    expect(r.tables[1].error).toEqual({
      file: 'reftable/tables.list',
      offset: 6,
      expected: 'table file "u.ref" named in tables.list to exist',
    });
  });
  it('one damaged table does not hide the others', () => {
    const a = analyzeFiles([
      mem('reftable/tables.list', 't.ref\nu.ref\n'),
      mem('reftable/t.ref', patch(T0, 90, u16(0))),
      mem('reftable/u.ref', TU),
    ]);
    expect(a.stack!.broken.map((b) => b.error.message)).toEqual([
      'reftable/t.ref: offset 90: expected restart_count ≥ 1, found 0',
    ]);
    expect(analysisRefs(a).map((r) => r.name)).toEqual(['refs/heads/u']);
    const r = buildReport(a);
    expect(r.tables[1].incomplete).toEqual(['tombstonesHiding']);
    expect(r.findings).toContainEqual({
      severity: 'error',
      file: 'reftable/t.ref',
      offset: 90,
      message: 'restart_count ≥ 1, found 0',
    });
  });
  it('warnings: unlisted table, listed twice, overlapping update-index ranges, a tombstone table with nothing under it', () => {
    // V: update indexes 2..4 (overlaps T0's 1..2), one tombstone for a ref nobody has.
    const HV = header({ min: 2, max: 4 });
    const TV = bytes(HV, block('r', [rec(0, 'refs/heads/zz', 0, [0])], 24), footer(HV));
    const a = analyzeFiles([
      mem('reftable/tables.list', 't.ref\nt.ref\nv.ref\n'),
      mem('reftable/t.ref', T0),
      mem('reftable/v.ref', TV),
      mem('reftable/u.ref', TU),
    ]);
    expect(a.findings.map((f) => `${f.file}: ${f.offset}: ${f.message}`)).toEqual([
      'reftable/tables.list: 6: table "t.ref" is listed 2 times (git opens it once per line and merges the copies: the refs do not change, every read pays for each copy)',
      'reftable/u.ref: -1: table file not listed in tables.list (garbage git would delete on the next compaction)',
      'reftable/v.ref: 8: update-index range 2..4 overlaps the older table t.ref (1..2)',
      'reftable/v.ref: -1: all 1 records are tombstones and none hides an older record (a deletion table with nothing under it)',
      // u.ref: header 24 + block (4 + record 1+1+12+1+20 + restarts 3+2) + footer 68 = 136 bytes;
      // its max_update_index 3 ≤ the stack's 4, so git's clean-up deletes it.
      "reftable/tables.list: -1: 1 table file is not listed in tables.list (orphans); git's next `git pack-refs` deletes 1 of them, reclaiming 136 bytes",
    ]);
  });
});

describe('budgets', () => {
  it('maxRecords: T0 has 2 records, 1 allowed (checked when the block is done, at its offset 0)', () => {
    expect(() => open(T0, { maxRecords: 1 })).toThrow(BudgetError);
    expect(err(T0, { maxRecords: 1 })).toBe(
      't.ref: offset 0: expected at most 1 records in this analysis (maxRecords budget); stopped here',
    );
    expect(open(T0, { maxRecords: 2 }).refs.count).toBe(2);
  });
  it('deadline: already past before the first block', () => {
    expect(err(T0, { deadline: Date.now() - 1 })).toBe(
      't.ref: offset 0: expected the analysis to finish before its deadline (time budget exceeded); stopped here after 0 records',
    );
  });
  it('a budget stop ends the whole stack analysis (it is not one broken table)', () => {
    const files = [mem('reftable/tables.list', 't.ref\nu.ref\n'), mem('reftable/t.ref', T0), mem('reftable/u.ref', TU)];
    expect(() => analyzeFiles(files, { maxRecords: 2 })).toThrow(
      'reftable/u.ref: offset 0: expected at most 2 records in this analysis (maxRecords budget); stopped here',
    );
    expect(analyzeFiles(files, { maxRecords: 3 }).stack!.broken).toEqual([]);
  });
});

describe('large inputs are read in slices', () => {
  it('a 3 GiB table (virtual source): header and footer read, blocks read one at a time, error past 2^31', () => {
    // A virtual 3 GiB file: T0's ref block at 0, NUL padding to 256, then a block with type 0x00
    // at 256; footer at the end with log_position = 2^31 + 12 so the ref section spans 2^31 bytes.
    const size = 3 * 2 ** 30;
    const hdr = header();
    const foot = Uint8Array.from(footer(hdr, { log: 2 ** 31 + 12 }));
    const head = Uint8Array.from([...hdr, ...block('r', [A, B], 24)]);
    let maxRead = 0;
    const src = {
      size,
      read(off: number, len: number): Uint8Array {
        const n = Math.max(0, Math.min(len, size - off));
        maxRead = Math.max(maxRead, n);
        const out = new Uint8Array(n);
        for (let i = 0; i < n; i++) {
          const o = off + i;
          out[i] = o < head.length ? head[o] : o >= size - foot.length ? foot[o - (size - foot.length)] : 0;
        }
        return out;
      },
    };
    let e: unknown;
    try {
      openTable({ path: 'big.ref', source: src });
    } catch (x) {
      e = x;
    }
    // The padding after the 92-byte block is read up to block_size (256): the next block at 256.
    expect((e as FormatError).message).toBe(
      "big.ref: offset 256: expected block type 'r' (ref) in the ref section, found 0x0",
    );
    expect(maxRead).toBeLessThanOrEqual(256);
    // The footer is checked before any block: a bad CRC there is reported at size − 4.
    const bad = {
      size,
      read: (off: number, len: number) => {
        const b = src.read(off, len);
        if (off + b.length === size) b[b.length - 1] ^= 1;
        return b;
      },
    };
    expect(() => openTable({ path: 'big.ref', source: bad })).toThrow(
      `big.ref: offset ${size - 4}: expected footer CRC-32`,
    );
  });
});
