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
import { FormatError, memorySource, type ByteSource, type InputFile } from '../src/engine/basics.ts';
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
