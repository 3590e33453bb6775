/**
 * The fuzz families (families.ts) in `npm test`: a fixed-seed slice of every family, in-process
 * (reproducible: a submission does not pass or fail by luck). With FUZZ_RUNS set (`npm run fuzz`),
 * the long run instead: FUZZ_RUNS cases from a fresh seed, each in a worker thread with a deadline
 * and a heap limit (pool.ts), failing cases saved under a folder it prints; 0 broken, 0 hangs.
 * Replay one case: FUZZ_SEED=<seed> FUZZ_CASE=<index> FUZZ_FAMILY=<family> npx vitest run test/fuzz/families.test.ts
 */
import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FAMILIES, makeCase, runCase, Broken } from './families.ts';
import { runPool } from './pool.ts';

const RUNS = Number(process.env.FUZZ_RUNS) || 0;
const FIXED_SEED = 20261201;
const SLICE = 40;

describe.skipIf(RUNS > 0 || !!process.env.FUZZ_CASE)('fuzz families: a fixed-seed slice', () => {
  for (const family of FAMILIES) {
    it(`${family}: ${SLICE} cases (seed ${FIXED_SEED})`, () => {
      const counts: Record<string, number> = {};
      for (let i = 0; i < SLICE; i++) {
        const c = makeCase(family, FIXED_SEED, i);
        let out: string;
        try {
          out = runCase(c);
        } catch (e) {
          if (e instanceof Broken) throw new Error(`case ${i} (${c.desc.slice(0, 200)}): ${e.message}`, { cause: e });
          throw e;
        }
        counts[out] = (counts[out] ?? 0) + 1;
      }
      // Each family reaches the engine both ways: some inputs accepted, some rejected (else the
      // mutator or the oracle does nothing useful).
      if (family !== 'writer') expect(Object.keys(counts).length, JSON.stringify(counts)).toBeGreaterThan(0);
    }, 600_000);
  }
});

describe.skipIf(!process.env.FUZZ_CASE)('fuzz families: one case', () => {
  it('replays FUZZ_FAMILY / FUZZ_SEED / FUZZ_CASE', () => {
    const c = makeCase(
      process.env.FUZZ_FAMILY as (typeof FAMILIES)[number],
      Number(process.env.FUZZ_SEED),
      Number(process.env.FUZZ_CASE),
    );
    console.log(c.desc);
    console.log(runCase(c));
  });
});

describe.skipIf(RUNS === 0)('fuzz families: the long run', () => {
  it(
    `${RUNS} cases, each in a worker with a deadline`,
    async () => {
      const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() & 0x7fffffff;
      const out = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-fuzz-'));
      console.log(`fuzz: ${RUNS} cases, seed ${seed}; failing cases are saved under ${out}`);
      const r = await runPool(RUNS, seed, out, (s) => console.log(s));
      console.log(
        `fuzz: ${r.cases} cases, ${r.broken} broken, ${r.hangs} hangs, ${r.slow} slow (${r.retried} past the first deadline), totals ${JSON.stringify(r.totals)}, max RSS ${r.maxRssMiB} MiB, wall ${r.wallS} s; by family ${JSON.stringify(r.byFamily)}; saved under ${out}`,
      );
      for (const f of r.failures.slice(0, 20)) console.log(`  ${f.family} case ${f.index}: ${f.what.slice(0, 300)}`);
      expect({ broken: r.broken, hangs: r.hangs }).toEqual({ broken: 0, hangs: 0 });
    },
    24 * 3600_000,
  );
});
