/**
 * Compaction geometry (src/engine/reftable/auto-compaction.ts). Every expected value comes from git's truth files
 * (what `git pack-refs --auto` did to the nocompact-s* stacks) or a hand computation shown in a
 * comment next to it.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  compactionOverhead,
  estimatePackAll,
  geometryByCount,
  gitAutoCompaction,
  jgitCompaction,
  replayAutoCompaction,
} from '../src/engine/reftable/auto-compaction.ts';
import { openTable } from '../src/engine/reftable/table.ts';
import { memorySource } from '../src/engine/basics.ts';

const FIX = join(__dirname, 'fixtures', 'reftable');
/** file sizes from net sizes (v1: + 91) */
const v1 = (net: number[]): number[] => net.map((n) => n + 91);
const ones = (n: number): (1 | 2)[] => new Array(n).fill(1);

function tablesTxt(fx: string, file = 'tables.txt'): { name: string; size: number }[] {
  return readFileSync(join(FIX, fx, 'truth', file), 'utf8')
    .trim()
    .split('\n')
    .map((l) => {
      const [name, size] = l.split(' ');
      return { name, size: Number(size) };
    });
}
/** Min/max update index from a table name 0x{min}-0x{max}-{rnd}.ref */
const range = (name: string): [number, number] => {
  const m = /^0x([0-9a-f]{12})-0x([0-9a-f]{12})-/.exec(name)!;
  return [parseInt(m[1], 16), parseInt(m[2], 16)];
};

describe("git's auto-compaction rule", () => {
  it('overhead: 91 for v1 (68 + 24 − 1), 99 for v2 (72 + 28 − 1)', () => {
    expect(compactionOverhead(1)).toBe(91);
    expect(compactionOverhead(2)).toBe(99);
  });
  it('worked examples from reftable/stack.c in git (factor 2, net sizes)', () => {
    // 64,32,16,8,4,2,1: every table ≥ 2 × the next → none
    expect(gitAutoCompaction(v1([64, 32, 16, 8, 4, 2, 1]), ones(7)).segment).toBeNull();
    // 64,32,16,8,4,3,1: 4 < 2×3 ends the segment at table 5; walking down 8 < 2×(3+4), 16 < 2×15,
    // 32 < 2×31, 64 < 2×63: start 0
    expect(gitAutoCompaction(v1([64, 32, 16, 8, 4, 3, 1]), ones(7)).segment).toEqual({ start: 0, end: 5 });
    // 128,32,16,8,4,3,1: as above, but 128 ≥ 2×63: start 1
    expect(gitAutoCompaction(v1([128, 32, 16, 8, 4, 3, 1]), ones(7)).segment).toEqual({ start: 1, end: 5 });
  });
  it('0 or 1 table: nothing; 2 equal tables: both', () => {
    expect(gitAutoCompaction([], []).segment).toBeNull();
    expect(gitAutoCompaction([500], [1]).segment).toBeNull();
    // 100 < 2 × 100
    expect(gitAutoCompaction(v1([100, 100]), ones(2)).segment).toEqual({ start: 0, end: 1 });
    // 200 < 2 × 100 is false (strict <): none
    expect(gitAutoCompaction(v1([200, 100]), ones(2)).segment).toBeNull();
    // 199 < 200: both
    expect(gitAutoCompaction(v1([199, 100]), ones(2)).segment).toEqual({ start: 0, end: 1 });
  });
  it('the walk keeps going below the first start point', () => {
    // net 10, 1000, 30, 20: i=3: 30 < 40 → end 3; j=1: 1000 < 2×(20+30)=100? no; j=0: 10 < 2×1050 → start 0
    expect(gitAutoCompaction(v1([10, 1000, 30, 20]), ones(4)).segment).toEqual({ start: 0, end: 3 });
  });
  it('factor', () => {
    // net 100, 40, 10. factor 2: 40 ≥ 20, 100 ≥ 80 → none. factor 3: 40 ≥ 30; 100 < 120 → end 1;
    // j=0: 100 < 3×40 → start 0
    expect(gitAutoCompaction(v1([100, 40, 10]), ones(3), 2).segment).toBeNull();
    expect(gitAutoCompaction(v1([100, 40, 10]), ones(3), 3).segment).toEqual({ start: 0, end: 1 });
    expect(() => gitAutoCompaction([1, 2], [1, 1], 1)).toThrow(RangeError);
    expect(() => gitAutoCompaction([1, 2], [1, 1], 256)).toThrow(RangeError);
  });
  it('v2 tables subtract 99', () => {
    // basic-sha256: 819 and 295 bytes → net 720, 196; 720 ≥ 392 → none
    const r = gitAutoCompaction([819, 295], [2, 2]);
    expect(r.netSizes).toEqual([720, 196]);
    expect(r.segment).toBeNull();
    // 399 and 299 bytes as v2: net 300, 200; 300 < 2 × 200 → both
    expect(gitAutoCompaction([399, 299], [2, 2]).segment).toEqual({ start: 0, end: 1 });
  });
  for (const fx of ['nocompact-s1', 'nocompact-s2', 'nocompact-s3']) {
    it(`${fx}: the predicted segment is what git pack-refs --auto compacted`, () => {
      const before = tablesTxt(fx);
      const after = tablesTxt(fx, 'after-pack-refs-auto.txt');
      const r = gitAutoCompaction(
        before.map((t) => t.size),
        ones(before.length),
      );
      expect(r.segment).not.toBeNull();
      const { start, end } = r.segment!;
      // git's result: tables below the segment unchanged, then one table spanning the segment's
      // update indexes, then the tables above it unchanged
      const expected = [
        ...before.slice(0, start).map((t) => t.name),
        `0x${range(before[start].name)[0].toString(16).padStart(12, '0')}-0x${range(before[end].name)[1].toString(16).padStart(12, '0')}`,
        ...before.slice(end + 1).map((t) => t.name),
      ];
      expect(after.map((t, i) => (i === start ? t.name.slice(0, 29) : t.name))).toEqual(expected);
      expect(r.reasons.length).toBe(before.length);
      expect(r.reasons[start]).toMatch(/^segment start/);
      expect(r.reasons[end]).toMatch(/^segment end/);
      for (let i = end + 1; i < before.length; i++) expect(r.reasons[i]).toMatch(/^out/);
    });
  }
  it('nocompact-s1 in numbers: segment 0..13, the two newest tables stay', () => {
    // net sizes (file − 91): ... 2181, 8254, 213, 48. From the top: 213 ≥ 2×48, 8254 ≥ 2×213,
    // 2181 < 2×8254 → end 13.
    const r = gitAutoCompaction(
      tablesTxt('nocompact-s1').map((t) => t.size),
      ones(16),
    );
    expect(r.netSizes.slice(-4)).toEqual([2181, 8254, 213, 48]);
    expect(r.segment).toEqual({ start: 0, end: 13 });
  });
  it('tombstones-50k: by bytes nothing is compacted; by record count both tables are', () => {
    const t = tablesTxt('tombstones-50k');
    // 1,762,784 and 304,001 bytes: net 1,762,693 ≥ 2 × 303,910 → geometric, nothing to do
    expect(
      gitAutoCompaction(
        t.map((x) => x.size),
        ones(2),
      ).segment,
    ).toBeNull();
    const counts = t.map((x) => {
      const tb = openTable({
        path: x.name,
        source: memorySource(new Uint8Array(readFileSync(join(FIX, 'tombstones-50k', 'reftable', x.name)))),
      });
      return tb.refs.count;
    });
    // 50,002 records (50,000 refs, main, HEAD) and 50,001 tombstones: 50,002 < 2 × 50,001
    expect(counts).toEqual([50002, 50001]);
    const byCount = geometryByCount(counts);
    expect(byCount.segment).toEqual({ start: 0, end: 1 });
    expect(byCount.netSizes).toEqual(counts);
  });
});

describe("JGit's rule", () => {
  it('groups by ⌊log2(size − 91)⌋ and compacts the smallest group with more than one table', () => {
    // net 64, 32, 16, 8, 4, 2, 1: logs 6,5,4,3,2,1,0 → every group alone → none
    expect(jgitCompaction(v1([64, 32, 16, 8, 4, 2, 1])).segment).toBeNull();
    // net 100, 70, 5, 6: logs 6,6,2,2 → groups [0-1] log 6, [2-3] log 2 → [2,3] (bytes 11, log 3);
    // extend: log2(11)=3 < log2(70)=6 → stop
    const r = jgitCompaction(v1([100, 70, 5, 6]));
    expect(r.segment).toEqual({ start: 2, end: 3 });
    expect(r.groups.map((g) => [g.start, g.end, g.log2])).toEqual([
      [0, 1, 6],
      [2, 3, 2],
    ]);
    // net 9, 5, 6: groups [0] log 3, [1-2] log 2 → [1,2] bytes 11 (log 3) ≥ log2(9) = 3 → extend to 0
    expect(jgitCompaction(v1([9, 5, 6])).segment).toEqual({ start: 0, end: 2 });
    // a table of 91 bytes or less: JGit's log2 throws
    expect(jgitCompaction([91, 200]).error).toBeDefined();
  });
  it('ties: the oldest of the smallest groups (Java Stream.min keeps the first)', () => {
    // net 5, 6, 100, 4, 7: logs 2,2,6,2,2 → groups [0-1] and [3-4], both log 2 → [0,1]
    expect(jgitCompaction(v1([5, 6, 100, 4, 7])).segment).toEqual({ start: 0, end: 1 });
  });
  it('nocompact stacks (hand computation from the net sizes)', () => {
    // s1 net 76,82,50,983,106,47,310,2129,175,8411,210,8289,2181,8254,213,48: logs
    // 6,6,5,9,6,5,8,11,7,13,7,13,11,13,7,5 → only [0,1] has two tables
    expect(jgitCompaction(tablesTxt('nocompact-s1').map((t) => t.size)).segment).toEqual({ start: 0, end: 1 });
    // s2: groups with two tables: [4,5] (151, 209: log 7) and [15,16] (92, 64: log 6) → [15,16],
    // bytes 156 (log 7) < log2(281) = 8 → no extension
    expect(jgitCompaction(tablesTxt('nocompact-s2').map((t) => t.size)).segment).toEqual({ start: 15, end: 16 });
    // s3: log-5 groups [3,5] (50,54,47), [8,9], [17,19] → the oldest, [3,5], bytes 151 (log 7)
    // < log2(980) = 9 → no extension
    expect(jgitCompaction(tablesTxt('nocompact-s3').map((t) => t.size)).segment).toEqual({ start: 3, end: 5 });
  });
});

describe('record-count geometry', () => {
  it('is the same rule on counts', () => {
    // 1000, 10, 10: 10 < 20 → end 2, start 1 (1000 ≥ 2 × 20)
    expect(geometryByCount([1000, 10, 10]).segment).toEqual({ start: 1, end: 2 });
    expect(geometryByCount([1000, 100, 10]).segment).toBeNull();
    expect(geometryByCount([1000, 100, 10], 11).segment).toEqual({ start: 0, end: 2 });
  });
});

describe('replay', () => {
  it('a binary-counter stack: the second one-byte table cascades into one table', () => {
    // net 64,32,16,8,4,2 + a table of net 1 → 64,...,2,1: geometric, nothing.
    // + another net 1 → 64,...,2,1,1: 1 < 2×1 ends at 7; walking down 1<2, 2<4, 4<8, 8<16, 16<32,
    // 32<64, 64<128 → everything: estimated net 128, file 128 + 91 = 219
    const steps = replayAutoCompaction(v1([64, 32, 16, 8, 4, 2]), ones(6), 2, 3, 92);
    expect(steps[0].segment).toBeNull();
    expect(steps[0].after).toEqual(v1([64, 32, 16, 8, 4, 2, 1]));
    expect(steps[1].segment).toEqual({ start: 0, end: 7 });
    expect(steps[1].after).toEqual([219]);
    expect(steps[1].estimated).toEqual([true]);
    // + net 1: 128 ≥ 2 × 1 → nothing
    expect(steps[2].after).toEqual([219, 92]);
    expect(steps[2].estimated).toEqual([true, false]);
  });
  it('tombstones-50k: one-ref transactions never merge the tombstone table by bytes', () => {
    const t = tablesTxt('tombstones-50k').map((x) => x.size);
    const steps = replayAutoCompaction(t, ones(2), 2, 10, 160);
    // each new 160-byte table (net 69) merges with the previous small ones, never reaching
    // 303,910 / 2: the tombstone table stays
    for (const s of steps) expect(s.after.slice(0, 2)).toEqual(t);
  });
  it('pack-all estimate: sum of net sizes + overhead', () => {
    // net 100 + 200 + 300 = 600, + 91
    expect(estimatePackAll(v1([100, 200, 300]), ones(3))).toBe(691);
    expect(estimatePackAll([], [])).toBe(0);
  });
});
