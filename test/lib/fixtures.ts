/**
 * Opening the fixtures under test/fixtures/ (stacks and files written by real git and JGit, with
 * what git printed about them in `truth/`; see test/fixtures/README.md). One place for what the
 * test files used to repeat: where a fixture lives, its tables in `tables.list` order, a stack
 * and merged view over them, the whole analysis, its truth files, and the reading of
 * `test-tool dump-reftable -b` output.
 *
 *   import { fixtureTables, fixtureStack, fixtureAnalysis, truth } from './lib/fixtures.ts';
 *   const { stack, merged } = fixtureStack('recreate-1000');   // a reftable fixture by name
 *   const a = fixtureAnalysis('packed-refs/gitgit');           // any fixture folder or file
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  analyzeFiles,
  mergeTables,
  memorySource,
  openTable,
  type Analysis,
  type MergedView,
  type Stack,
  type Table,
} from '../../src/engine/index.ts';
import { collectInput } from '../../src/cli/node-input.ts';

/** test/fixtures/ */
export const FIXTURES = fileURLToPath(new URL('../fixtures', import.meta.url));
/** test/fixtures/reftable/: one folder per reftable fixture (`<name>/reftable/`, `<name>/truth/`). */
export const REFTABLE_FIXTURES = path.join(FIXTURES, 'reftable');

/** A path inside test/fixtures/ (`fixturePath('packed-refs/gitgit/packed-refs')`). */
export function fixturePath(...parts: string[]): string {
  return path.join(FIXTURES, ...parts);
}

/** The reftable fixtures' names (folders with `reftable/tables.list`), sorted. */
export function reftableFixtures(): string[] {
  return fs
    .readdirSync(REFTABLE_FIXTURES)
    .filter((f) => fs.existsSync(path.join(REFTABLE_FIXTURES, f, 'reftable/tables.list')))
    .sort();
}

/**
 * A stack git cannot read: a copy of nocompact-s3 (written by git) in `<into>/reftable` with its
 * second table cut 30 bytes short. Returns the folder and the cut table's name.
 */
export function damagedStack(into: string): { dir: string; cut: string } {
  const dir = path.join(into, 'reftable');
  fs.cpSync(reftableDir('nocompact-s3'), dir, { recursive: true });
  const cut = fs.readFileSync(path.join(dir, 'tables.list'), 'utf8').trim().split('\n')[1];
  const p = path.join(dir, cut);
  fs.truncateSync(p, fs.statSync(p).size - 30);
  return { dir, cut };
}

/** A reftable fixture's `reftable/` folder. */
export function reftableDir(fx: string): string {
  return path.join(REFTABLE_FIXTURES, fx, 'reftable');
}

/** One table of a reftable fixture, parsed from its bytes. */
export function fixtureTable(fx: string, name: string): Table {
  return openTable({ path: name, source: memorySource(fs.readFileSync(path.join(reftableDir(fx), name))) });
}

/** A reftable fixture's tables, in `tables.list` order (oldest first). */
export function fixtureTables(fx: string): Table[] {
  const list = fs
    .readFileSync(path.join(reftableDir(fx), 'tables.list'), 'utf8')
    .trim()
    .split('\n');
  return list.map((n) => fixtureTable(fx, n));
}

/** A reftable fixture as a stack (every table intact) and its merged view. */
export function fixtureStack(fx: string): { stack: Stack; merged: MergedView } {
  const tables = fixtureTables(fx);
  return {
    stack: { listPath: '', names: tables.map((t) => t.name), tables, broken: [], findings: [] },
    merged: mergeTables(tables),
  };
}

/**
 * The analysis refscope makes of a fixture, as the CLI reads it from disk: a reftable fixture by
 * name (`basic-sha1`), or any path under test/fixtures/ (`packed-refs/gitgit`, `files/basic`).
 */
export function fixtureAnalysis(fx: string): Analysis {
  const dir = fs.existsSync(reftableDir(fx)) && !fx.includes('/') ? reftableDir(fx) : fixturePath(fx);
  return analyzeFiles(collectInput(dir));
}

/** A truth file of a fixture (`truth('basic-sha1', 'refs.txt')`), as bytes in a latin1 string. */
export function truth(fx: string, file: string): string {
  const dir = !fx.includes('/') ? path.join(REFTABLE_FIXTURES, fx) : fixturePath(fx);
  return fs.readFileSync(path.join(dir, 'truth', file), 'latin1');
}

/** One block as `test-tool dump-reftable -b` shows it: section label, restart-table offset, restarts. */
export type DumpBlock = [label: string, length: number, restarts: number];

/**
 * Parse `test-tool dump-reftable -b` output (git's t/helper/test-reftable.c, which prints the
 * table's header block size, then per block its `length` and `restarts`, under a label each time
 * the block type changes). `length` is the offset of the restart table within the block
 * (block_len − 2 − 3 × restarts; for the first block counted from byte 0 of the file).
 */
export function parseDumpBlocks(text: string): { blockSize: number; blocks: DumpBlock[] } {
  let label = '';
  const blocks: DumpBlock[] = [];
  let blockSize = -1;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const bs = /^\s+block_size: (\d+)/.exec(l);
    if (bs) blockSize = +bs[1];
    const lab = /^(ref|idx|obj|log):$/.exec(l);
    if (lab) label = lab[1];
    const len = /^\s+- length: (\d+)/.exec(l);
    if (len) {
      const rs = /^\s+restarts: (\d+)/.exec(lines[i + 1] ?? '');
      if (!rs)
        throw new Error(
          `dump-reftable output: line ${i + 2}: expected "restarts: N" after "length", found ${JSON.stringify(lines[i + 1])}`,
        );
      blocks.push([label, +len[1], +rs[1]]);
    }
  }
  return { blockSize, blocks };
}
