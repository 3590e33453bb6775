/**
 * Work and memory bounds of the reftable reader, counted (reads, parses, bytes), never timed:
 * repeated `tables.list` lines parse each table once (and real git reads such a stack the same
 * way), large tables are read block by block, and a prefix-compression bomb is refused at the
 * name budget computed from the file's size, at the record a hand computation names.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { realGits, gitRepo } from './lib/realgit.ts';
import {
  memorySource,
  type ByteSource,
  type InputFile,
  FormatError,
  varintLength,
  putVarint,
} from '../src/engine/basics.ts';
import { openTable } from '../src/engine/reftable/table.ts';
import { KEY_BYTES_BASE, KEY_BYTES_PER_FILE_BYTE } from '../src/engine/reftable/constants.ts';
import { WHOLE_READ_LIMIT } from '../src/engine/reftable/table.ts';
import { analyzeFiles, analysisRefs } from '../src/engine/analyze.ts';
import { collectInput } from '../src/cli/node-input.ts';

/** A source that counts its reads: how many start at offset 0 (one per parse) and the longest. */
function counting(bytes: Uint8Array): ByteSource & { atZero: number; longest: number } {
  const s = {
    size: bytes.length,
    atZero: 0,
    longest: 0,
    read(offset: number, length: number) {
      if (offset === 0) s.atZero++;
      s.longest = Math.max(s.longest, Math.min(length, bytes.length - offset));
      return bytes.subarray(offset, Math.min(bytes.length, offset + length));
    },
  };
  return s;
}

const FX = path.join(__dirname, 'fixtures', 'reftable');
const g = realGits().find((x) => x.version === '2.55.0') ?? realGits()[0];

describe('repeated tables.list lines', () => {
  it('100,000 lines naming one table: it is parsed once, one warning, the refs of the table', () => {
    const dir = path.join(FX, 'basic-sha1', 'reftable');
    const names = fs.readFileSync(path.join(dir, 'tables.list'), 'utf8').trim().split('\n');
    const one = names[names.length - 1];
    const bytes = new Uint8Array(fs.readFileSync(path.join(dir, one)));
    const src = counting(bytes);
    const list = new TextEncoder().encode(`${one}\n`.repeat(100000));
    const files: InputFile[] = [
      { path: 'reftable/tables.list', source: memorySource(list) },
      { path: `reftable/${one}`, source: src },
    ];
    const a = analyzeFiles(files);
    // One parse reads offset 0 twice (the header, then the whole table).
    expect(src.atZero).toBe(2);
    expect(a.stack!.tables.length).toBe(100000);
    expect(
      a.findings.filter((f) => f.message.includes('is listed')).map((f) => [f.offset, f.message.slice(0, 60)]),
    ).toEqual([[one.length + 1, `table ${JSON.stringify(one)} is listed 100000 times (git opens`.slice(0, 60)]]);
    const single = analyzeFiles([
      { path: 'reftable/tables.list', source: memorySource(new TextEncoder().encode(`${one}\n`)) },
      { path: `reftable/${one}`, source: memorySource(bytes) },
    ]);
    expect(analysisRefs(a)).toEqual(analysisRefs(single));
  });

  it.skipIf(!g)('real git reads a stack with a repeated line as without it, so does refscope', () => {
    const r = gitRepo(g!);
    try {
      r.git(['commit', '-q', '--allow-empty', '-m', 'x']);
      r.git(['update-ref', 'refs/tags/a', 'HEAD']);
      const listPath = path.join(r.gitDir, 'reftable', 'tables.list');
      const before = r.git(['for-each-ref', '--include-root-refs', '--format=%(objectname) %(refname)']);
      const lines = fs.readFileSync(listPath, 'utf8').trim().split('\n');
      fs.writeFileSync(listPath, [...lines, ...Array(50).fill(lines[0])].join('\n') + '\n');
      const after = r.gitResult(['for-each-ref', '--include-root-refs', '--format=%(objectname) %(refname)']);
      expect(after.status).toBe(0);
      expect(after.stdout).toBe(before);
      expect(
        analysisRefs(analyzeFiles(collectInput(r.gitDir)))
          .map((x) => `${x.oid} ${x.name}\n`)
          .join(''),
      ).toBe(before);
    } finally {
      r.dispose();
    }
  });
});

describe('large tables are read block by block', () => {
  it('over the whole-read limit no read is longer than a block or an inflater slice', () => {
    expect(WHOLE_READ_LIMIT).toBeLessThanOrEqual(64 * 1048576);
    for (const [fx, bs] of [
      ['smallblocks', 256],
      ['tombstones-50k', 4096],
    ] as const) {
      const dir = path.join(FX, fx, 'reftable');
      for (const n of fs.readdirSync(dir).filter((f) => f.endsWith('.ref'))) {
        const src = counting(new Uint8Array(fs.readFileSync(path.join(dir, n))));
        openTable({ path: n, source: src }, { wholeReadLimit: 0 });
        // A block (its block size), or a log slice of 16 KiB plus the Adler-32 search window.
        expect(src.longest, `${fx}/${n}`).toBeLessThanOrEqual(Math.max(bs, 16384 + 1024 + 4096 + 4));
      }
    }
  });
});

describe('a prefix-compression bomb', () => {
  // One unaligned ref block: record 0 a key of L bytes (restart point), then records that each
  // keep the whole previous key and add one byte, tombstones (value: update_index delta 0).
  // Record 0 takes 1 + varint(L << 3) + L + 1 bytes, every later one varint(prefix) + 1 + 1 + 1.
  const L = 60000;
  const N = 160000;
  function bomb(): Uint8Array {
    const recs: number[] = [];
    const tmp = new Uint8Array(16);
    const v = (x: number) => {
      const e = putVarint(tmp, 0, x);
      for (let i = 0; i < e; i++) recs.push(tmp[i]);
    };
    v(0);
    v(L << 3);
    const key = 'refs/heads/' + 'a'.repeat(L - 11);
    for (let i = 0; i < L; i++) recs.push(key.charCodeAt(i));
    v(0);
    for (let i = 1; i < N; i++) {
      v(L + i - 1);
      v(1 << 3);
      recs.push(0x62);
      v(0);
    }
    const header = [0x52, 0x45, 0x46, 0x54, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
    const blockLen = 24 + 4 + recs.length + 3 + 2;
    const block = [0x72, blockLen >> 16, (blockLen >> 8) & 255, blockLen & 255];
    const foot = [...header, ...Array(40).fill(0)];
    const crc = zlib.crc32(Uint8Array.from(foot));
    const out = Uint8Array.from([
      ...header,
      ...block,
      ...recs,
      0,
      0,
      28,
      0,
      1,
      ...foot,
      crc >>> 24,
      (crc >>> 16) & 255,
      (crc >>> 8) & 255,
      crc & 255,
    ]);
    return out;
  }

  it('is refused at the record where the names pass 16 MiB + 8 bytes per file byte', () => {
    const b = bomb();
    const budget = KEY_BYTES_BASE + KEY_BYTES_PER_FILE_BYTE * b.length;
    expect(budget).toBe(16 * 1048576 + 8 * b.length);
    // Names so far after record k: sum over i ≤ k of (L + i) = (k + 1) L + k (k + 1) / 2.
    let k = 0;
    while ((k + 1) * L + (k * (k + 1)) / 2 <= budget) k++;
    const rec0 = 1 + varintLength(L << 3) + L + 1;
    let at = 28 + rec0;
    for (let i = 1; i < k; i++) at += varintLength(L + i - 1) + 3;
    let e: unknown;
    try {
      openTable({ path: 'bomb.ref', source: memorySource(b) });
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(FormatError);
    expect((e as FormatError).offset).toBe(at);
    expect((e as FormatError).expected).toContain(`ref names of at most ${budget.toLocaleString('en-US')} bytes`);
    // The names that would have been spelled out: gigabytes, from about a megabyte of file.
    expect(N * L).toBeGreaterThan(9e9);
    expect(b.length).toBeLessThan(1.1e6);
  });
});
