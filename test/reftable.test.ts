/**
 * Reading every git- and JGit-written fixture: refs equal git's for-each-ref output, block lists
 * equal `test-tool dump-reftable -b`, counts equal hand computation from the fixtures' recipes.
 */
import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { analyzeFiles, analysisRefs, buildReport } from '../src/engine/index.ts';
import { collectInput } from '../src/cli/node-input.ts';
import { fixtureTable, parseDumpBlocks as parseBlocksTruth, REFTABLE_FIXTURES as FX } from './lib/fixtures.ts';

const fixtures = fs.readdirSync(FX);

function refsText(dir: string): string {
  const a = analyzeFiles(collectInput(dir));
  return analysisRefs(a)
    .map((r) => `${r.oid} ${r.name}\n`)
    .join('');
}

const LABEL = { ref: 'ref', index: 'idx', obj: 'obj', log: 'log' } as const;

const open = fixtureTable;

describe('git-written fixtures', () => {
  for (const fx of fixtures) {
    it(`${fx}: refs equal git for-each-ref`, () => {
      expect(refsText(path.join(FX, fx, 'reftable'))).toBe(
        fs.readFileSync(path.join(FX, fx, 'truth/refs.txt'), 'latin1'),
      );
    });
    const blocksDir = path.join(FX, fx, 'truth/blocks');
    if (!fs.existsSync(blocksDir)) continue;
    for (const f of fs.readdirSync(blocksDir)) {
      const name = f.replace(/\.txt$/, '');
      it(`${fx}/${name}: blocks equal dump-reftable -b`, () => {
        const truth = parseBlocksTruth(fs.readFileSync(path.join(blocksDir, f), 'utf8'));
        const t = open(fx, name);
        expect(t.header.blockSize).toBe(truth.blockSize);
        expect(t.blocks.map((b) => [LABEL[b.type], b.restartTableOffset, b.restartCount])).toEqual(truth.blocks);
      });
    }
    const tablesTxt = path.join(FX, fx, 'truth/tables.txt');
    if (fs.existsSync(tablesTxt)) {
      it(`${fx}: table names and sizes equal tables.txt`, () => {
        const r = buildReport(analyzeFiles(collectInput(path.join(FX, fx, 'reftable'))));
        const want = fs
          .readFileSync(tablesTxt, 'utf8')
          .trim()
          .split('\n')
          .map((l) => l.split(' '));
        expect(r.tables.map((t) => [t.name, String(t.fileSize)])).toEqual(want);
      });
    }
  }
});

describe('JGit-written fixture (jgit-levels)', () => {
  it('blocks equal the dump in truth/blocks.txt', () => {
    const truth = parseBlocksTruth(fs.readFileSync(path.join(FX, 'jgit-levels/truth/blocks.txt'), 'utf8'));
    const list = fs.readFileSync(path.join(FX, 'jgit-levels/reftable/tables.list'), 'utf8').trim();
    const t = open('jgit-levels', list);
    expect(t.blocks.map((b) => [LABEL[b.type], b.restartTableOffset, b.restartCount])).toEqual(truth.blocks);
  });
});

describe('recipes of the fixtures (hand-computed counts)', () => {
  // Recipe (fixtures/README.md): a repository with one branch and HEAD, then n refs created in one
  // transaction, then every ref deleted in one transaction. So the base holds n + 1 refs and the HEAD
  // symref; the newer table n + 1 tombstones; HEAD survives as a dangling symref (its branch is
  // deleted), which is why git's truth/refs.txt is empty.
  for (const [fx, n] of [
    ['recreate-1000', 1000],
    ['recreate-2000', 2000],
    ['recreate-4000', 4000],
    ['tombstones-50k', 50000],
  ] as const) {
    it(`${fx}: ${n} + 1 refs in the base, all hidden by the tombstone table`, () => {
      const r = buildReport(analyzeFiles(collectInput(path.join(FX, fx, 'reftable'))));
      expect(r.stack!.live).toBe(1);
      expect(r.tables.length).toBe(2);
      expect(r.tables[0].records.ref).toBe(n + 1);
      expect(r.tables[0].records.symref).toBe(1);
      expect(r.tables[1].records.tombstone).toBe(n + 1);
      expect(r.stack!.tombstonesHiding).toBe(n + 1);
      expect(r.tables[0].shadowed).toBe(n + 1);
      expect(r.tables[0].hiddenByTombstone).toBe(n + 1);
    });
  }
  it('basic-sha1: kinds from truth/symrefs.txt and peeled.txt', () => {
    const r = buildReport(analyzeFiles(collectInput(path.join(FX, 'basic-sha1/reftable'))));
    const symrefs = fs.readFileSync(path.join(FX, 'basic-sha1/truth/symrefs.txt'), 'utf8').trim().split('\n').length;
    const peeled = fs.readFileSync(path.join(FX, 'basic-sha1/truth/peeled.txt'), 'utf8').trim().split('\n').length;
    const sum = (k: 'symref' | 'peeled') => r.tables.reduce((s, t) => s + t.records[k], 0);
    expect(sum('symref')).toBe(symrefs);
    expect(sum('peeled')).toBe(peeled);
    expect(r.tables.map((t) => t.hashId)).toEqual(['sha1', 'sha1']);
    const r2 = buildReport(analyzeFiles(collectInput(path.join(FX, 'basic-sha256/reftable'))));
    expect(r2.tables.map((t) => [t.version, t.hashId])).toEqual([
      [2, 's256'],
      [2, 's256'],
    ]);
  });
});
