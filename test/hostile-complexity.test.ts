/**
 * Complexity attacks: inputs whose size is small but whose naive cost is not (a tables.list of
 * 100,000 distinct names, an index of 100,000 levels, a block whose keys each extend the last by
 * one byte, …). Each test counts the work an attack makes refscope do (tables opened, bytes read,
 * blocks walked), never the time, and fails on the code before the bound it checks.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  FormatError,
  crc32,
  encodeVarint,
  memorySource,
  putU32,
  putU64,
  type ByteSource,
  type InputFile,
} from '../src/engine/basics.ts';
import { loadStack } from '../src/engine/reftable/stack.ts';
import { MAX_STACK_TABLES } from '../src/engine/reftable/constants.ts';
import { analyzeFiles } from '../src/engine/analyze.ts';
import { EngineSession } from '../src/engine/session/index.ts';
import { collectInput } from '../src/cli/node-input.ts';
import { reftableDir } from './lib/fixtures.ts';

/** A source that counts the reads made of it. */
function counting(bytes: Uint8Array, count: { reads: number }): ByteSource {
  const m = memorySource(bytes);
  return {
    size: bytes.length,
    read(o, l) {
      count.reads++;
      return m.read(o, l);
    },
  };
}

/** git's table name for update indexes i..i (fixed width: 42 bytes, 43 with the newline). */
const tableName = (i: number) =>
  `0x${i.toString(16).padStart(12, '0')}-0x${i.toString(16).padStart(12, '0')}-00000000.ref`;

// A real git table (the basic-sha1 fixture's first one) stands in for every listed name: the
// bound must be hit before any of them is opened.
const FX_DIR = reftableDir('basic-sha1');
const FX_NAME = fs
  .readdirSync(FX_DIR)
  .filter((f) => f.endsWith('.ref'))
  .sort()[0];
const FX_BYTES = new Uint8Array(fs.readFileSync(path.join(FX_DIR, FX_NAME)));

describe('a tables.list naming more distinct tables than MAX_STACK_TABLES', () => {
  it('is refused at the first line past the bound, before any table is read', () => {
    const n = MAX_STACK_TABLES + 1;
    const names = Array.from({ length: n }, (_, i) => tableName(i + 1));
    const list = new TextEncoder().encode(names.map((x) => x + '\n').join(''));
    const count = { reads: 0 };
    const files: InputFile[] = names.map((x) => ({ path: `reftable/${x}`, source: counting(FX_BYTES, count) }));
    let err: unknown;
    try {
      loadStack({ path: 'reftable/tables.list', source: memorySource(list) }, files);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FormatError);
    const fe = err as FormatError;
    expect(fe.file).toBe('reftable/tables.list');
    // Line MAX_STACK_TABLES + 1 starts after MAX_STACK_TABLES lines of 42 + 1 bytes.
    expect(fe.offset).toBe(MAX_STACK_TABLES * 43);
    expect(fe.expected).toContain('MAX_STACK_TABLES');
    expect(fe.expected).toContain(`at most ${MAX_STACK_TABLES.toLocaleString('en-US')} distinct tables`);
    // Not one table file was read (the old code opened every table, 5,001 of them).
    expect(count.reads).toBe(0);
  });

  it('counts distinct tables: a name repeated on more lines than the bound is not refused by it', () => {
    const lines = MAX_STACK_TABLES + 10;
    const list = new TextEncoder().encode(`${FX_NAME}\n`.repeat(lines));
    const count = { reads: 0 };
    const st = loadStack({ path: 'reftable/tables.list', source: memorySource(list) }, [
      { path: `reftable/${FX_NAME}`, source: counting(FX_BYTES, count) },
    ]);
    expect(st.tables.length).toBe(lines);
    expect(st.broken).toEqual([]);
  });

  it('exactly MAX_STACK_TABLES distinct names is within the bound (here: all missing, each one broken)', () => {
    const names = Array.from({ length: MAX_STACK_TABLES }, (_, i) => tableName(i + 1));
    const list = new TextEncoder().encode(names.map((x) => x + '\n').join(''));
    const st = loadStack({ path: 'reftable/tables.list', source: memorySource(list) }, []);
    expect(st.broken.length).toBe(MAX_STACK_TABLES);
  });

  it('lone .ref files past the bound are refused too, none read', () => {
    const count = { reads: 0 };
    const files: InputFile[] = Array.from({ length: MAX_STACK_TABLES + 1 }, (_, i) => ({
      path: tableName(i + 1),
      source: counting(FX_BYTES, count),
    }));
    expect(() => loadStack(null, files)).toThrow(/MAX_STACK_TABLES/);
    expect(count.reads).toBe(0);
  });

  it('the worker session says so in its error, and analyzeFiles throws it, before reading a table', () => {
    const names = Array.from({ length: MAX_STACK_TABLES + 1 }, (_, i) => tableName(i + 1));
    const list = new TextEncoder().encode(names.map((x) => x + '\n').join(''));
    const count = { reads: 0 };
    const files = (): InputFile[] => [
      { path: 'reftable/tables.list', source: memorySource(list) },
      ...names.map((x) => ({ path: `reftable/${x}`, source: counting(FX_BYTES, count) })),
    ];
    expect(() => analyzeFiles(files())).toThrow(/MAX_STACK_TABLES/);
    const res = new EngineSession().load(files());
    expect(res.report).toBeNull();
    expect(res.error?.message).toMatch(/MAX_STACK_TABLES/);
    expect(count.reads).toBe(0);
  });
});

describe("the CLI's walk of a directory of many tables", () => {
  it('stats no table file before the engine asks for it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-complexity-'));
    try {
      const rt = path.join(dir, 'reftable');
      fs.mkdirSync(rt);
      const names = Array.from({ length: 50 }, (_, i) => tableName(i + 1));
      for (const n of names) fs.writeFileSync(path.join(rt, n), FX_BYTES);
      fs.writeFileSync(path.join(rt, 'tables.list'), names.map((x) => x + '\n').join(''));
      const statted: string[] = [];
      const orig = fs.statSync;
      const spy = (p: fs.PathLike, o?: fs.StatSyncOptions) => {
        statted.push(String(p));
        return orig(p, o as fs.StatSyncOptions);
      };
      (fs as { statSync: unknown }).statSync = spy;
      let files: InputFile[];
      try {
        files = collectInput(rt);
      } finally {
        (fs as { statSync: unknown }).statSync = orig;
      }
      expect(files.map((f) => f.path).sort()).toEqual([...names, 'tables.list'].sort());
      expect(statted.filter((p) => p.endsWith('.ref'))).toEqual([]);
      // The size, when asked, is the file's.
      expect(files.find((f) => f.path === names[0])!.source.size).toBe(FX_BYTES.length);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A v1 table header (24 bytes) of block size `bs`, update indexes 1..1. */
function header(bs: number): Uint8Array {
  const h = new Uint8Array(24);
  h.set([0x52, 0x45, 0x46, 0x54, 1, (bs >> 16) & 255, (bs >> 8) & 255, bs & 255]);
  putU64(h, 8, 1);
  putU64(h, 16, 1);
  return h;
}
/** The footer of a v1 table (spec "Footer": the header again, five positions, CRC-32). */
function footer(h: Uint8Array, refIndex: number): Uint8Array {
  const b = new Uint8Array(24 + 44);
  b.set(h, 0);
  putU64(b, 24, refIndex);
  putU32(b, 64, crc32(b, 0, 64));
  return b;
}
const cat = (...parts: ArrayLike<number>[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let k = 0;
  for (const p of parts) {
    out.set(p, k);
    k += p.length;
  }
  return out;
};
const varint = (v: number) => [...encodeVarint(v)];
/** A block: type letter, 24-bit block_len, records, one restart point at `restartAt`. */
function block(letter: number, lenBase: number, recs: number[], restartAt: number): number[] {
  const len = lenBase + 4 + recs.length + 3 + 2;
  return [letter, (len >> 16) & 255, (len >> 8) & 255, len & 255, ...recs, 0, 0, restartAt, 0, 1];
}

describe('an index chain of 100,000 one-record levels', () => {
  // One ref block, then `levels` index blocks each pointing at the block before it; the footer's
  // ref_index_position names the last. git's reader would follow the chain from the top; the
  // spec and refscope allow 64 levels (MAX_INDEX_DEPTH), so level 65 is the first bad one.
  function chain(levels: number): Uint8Array {
    const h = header(0);
    const key = [...'refs/heads/a'].map((c) => c.charCodeAt(0));
    const oid = new Array(20).fill(1);
    const ref = block(0x72, 24, [...varint(0), ...varint((key.length << 3) | 1), ...key, ...varint(0), ...oid], 28);
    const parts: number[][] = [ref];
    let at = 24 + ref.length;
    let prev = 0;
    for (let l = 0; l < levels; l++) {
      const idx = block(0x69, 0, [...varint(0), ...varint(key.length << 3), ...key, ...varint(prev)], 4);
      parts.push(idx);
      prev = at;
      at += idx.length;
    }
    return cat(h, ...parts, footer(h, prev));
  }
  it('is refused at level 65 having decoded 65 index records, not 100,000', async () => {
    const { Budget } = await import('../src/engine/basics.ts');
    const bytes = chain(100_000);
    const budget = new Budget();
    const st = loadStack(null, [{ path: 'chain.ref', source: memorySource(bytes) }], { budget });
    expect(st.broken.length).toBe(1);
    const e = st.broken[0].error;
    expect(e.expected).toBe('index depth ≤ 64 levels');
    // The ref block ends at 68 (file header 24, block header 4, a 35-byte record: prefix,
    // suffix length and type, 12 name bytes, update index, 20-byte id; restart table 5). An
    // index block is 4 + 15 + 5 bytes while the position it holds is below 128 (a one-byte
    // varint: the first four, pointing at 0, 68, 92, 116), 25 bytes after that. The 65th
    // level's position varint is 4 + 1 + 1 + 12 bytes into its block.
    expect(e.offset).toBe(68 + 4 * 24 + 60 * 25 + 18);
    // The table's walk counts 1 ref record and 64 complete index blocks (the 65th stops
    // mid-block), the partial read the same 65 again: 130. The old walk decoded all 100,001
    // records before checking the depth, and the partial read walked them all again.
    expect(budget.records).toBe(130);
    // What parses before the first bad byte: the ref block and 64 index blocks.
    expect(st.broken[0].partial!.blocks.length).toBe(65);
    expect(st.broken[0].partial!.stop).toBe(e);
  });
});

describe('a ref block whose keys each extend the previous one by a byte (a prefix bomb)', () => {
  // One ref block of `n` tombstone records: record i shares all i bytes of the previous key and
  // adds one, so the names grow as n²/2 from 4n bytes of records.
  function bomb(n: number): Uint8Array {
    const h = header(0xffffff);
    const recs: number[] = [];
    for (let i = 0; i < n; i++) recs.push(...varint(i), ...varint(1 << 3), 0x61 + (i % 20), 0);
    return cat(h, block(0x72, 24, recs, 28), footer(h, 0));
  }
  it('is refused at the name budget, and the block is decoded once (not again for the partial view)', () => {
    const bytes = bomb(60_000);
    const count = { reads: 0, bytes: 0 };
    const src = memorySource(bytes);
    const source: ByteSource = {
      size: bytes.length,
      read(o, l) {
        count.reads++;
        const r = src.read(o, l);
        count.bytes += r.length;
        return r;
      },
    };
    // Read block by block (no whole-file read), as the CLI reads a large table.
    const st = loadStack(null, [{ path: 'bomb.ref', source }], { wholeReadLimit: 0 });
    const e = st.broken[0].error;
    // 16 MiB + 8 bytes per file byte of names: the budget of KEY_BYTES_BASE, KEY_BYTES_PER_FILE_BYTE.
    const budget = 16 * 1048576 + 8 * bytes.length;
    expect(e.expected).toContain(`ref names of at most ${budget.toLocaleString('en-US')} bytes`);
    // The block (all but header and footer) is read once by the table's walk; the partial read
    // stops at the block that holds the error without reading it again (the old code read and
    // decoded it twice).
    expect(count.bytes).toBeLessThan(bytes.length + 200);
    expect(st.broken[0].partial!.blocks).toEqual([]);
    expect(st.broken[0].partial!.stop).toBe(e);
  });
});

describe('a block of 30,000 records (block size 16 MiB − 1, restart interval 1)', () => {
  it('lists MAX_DETAIL_RECORDS records in its block detail, not one object per record', async () => {
    const { writeTable } = await import('../src/engine/reftable/writer.ts');
    const { openTable } = await import('../src/engine/reftable/table.ts');
    const { decodeBlockDetail, MAX_DETAIL_RECORDS } = await import('../src/engine/blockdetail.ts');
    const n = 30_000;
    const refs = Array.from({ length: n }, (_, i) => ({
      name: 'refs/heads/' + String(i).padStart(7, '0'),
      updateIndex: 1,
      type: 1 as const,
      value: new Uint8Array(20).fill(i & 255),
    }));
    const bytes = writeTable(refs, [], {
      minUpdateIndex: 1,
      maxUpdateIndex: 1,
      blockSize: 0xffffff,
      restartInterval: 1,
    });
    const t = openTable({ path: 'big.ref', source: memorySource(bytes) });
    const b = t.blocks.findIndex((x) => x.type === 'ref');
    expect(t.blocks[b].recordCount).toBe(n);
    const d = decodeBlockDetail(t, b);
    expect(d.records.length).toBe(MAX_DETAIL_RECORDS);
    // The cut is where record MAX_DETAIL_RECORDS starts: right after the last one listed.
    expect(d.recordsCutAt).toBe(d.records[MAX_DETAIL_RECORDS - 1].end);
    expect(d.error).toBeNull();
    // A block within the bound is listed whole, with no cut.
    const small = openTable({
      path: 'small.ref',
      source: memorySource(writeTable(refs.slice(0, 100), [], { minUpdateIndex: 1, maxUpdateIndex: 1 })),
    });
    const ds = decodeBlockDetail(small, 0);
    expect(ds.records.length).toBe(100);
    expect(ds.recordsCutAt).toBeUndefined();
  });
});

describe('a packed-refs naming one ref on 5,000 lines', () => {
  it('makes one duplicate finding listing ten lines, not one per line each listing all 5,000', async () => {
    const { parsePackedRefs } = await import('../src/engine/files/packed.ts');
    const name = 'refs/heads/' + 'n'.repeat(189);
    const line = `${'a'.repeat(40)} ${name}\n`;
    const hdr = '# pack-refs with: peeled fully-peeled sorted \n';
    const p = parsePackedRefs('packed-refs', new TextEncoder().encode(hdr + line.repeat(5000)));
    expect(p.recordCount).toBe(5000);
    expect(p.duplicates).toEqual([name]);
    const dups = p.findings.filter((f) => f.code === 'packedRefDuplicate');
    expect(dups.length).toBe(1);
    // At the second line (line 3 of the file: the header is line 1), offset header + one line.
    expect(dups[0]).toMatchObject({ line: 3, offset: hdr.length + line.length });
    expect(dups[0].message).toContain('(lines 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 4,990 more)');
  });
});
