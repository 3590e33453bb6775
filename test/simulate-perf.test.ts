/**
 * Performance, counted (no clock: `npm test` must pass on a busy machine): n updates re-creating
 * the n refs n tombstones hide (the recreate case), every reftable model. Git's own work
 * there is quadratic (the merged iterator of git ≤ 2.55 steps over billions of tombstones); the
 * simulator must answer it with a bounded number of queries per operation (SimState.steps:
 * searches, next-entry and count lookups), i.e. its work must not grow with the tombstones git
 * steps over. A regression to a literal replay would multiply the queries by thousands.
 */
import { describe, it, expect } from 'vitest';
import { Simulator } from '../src/engine/simulate/index.ts';
import { buildRecreateStack } from '../src/engine/simulate/synthetic.ts';

function queriesPerOp(refs: number, deleted: number): { perOp: number; tombstonesPerOp: number } {
  const b = buildRecreateStack({ refs, deleted });
  const sim = new Simulator({ kind: 'reftable', stack: b.stack, merged: b.merged, description: 'perf' });
  const r = sim.run(sim.parseStdin(new TextEncoder().encode(b.recreateStdin)), {
    fixes: false,
    curve: false,
    models: ['git-2.49', 'git-2.55', 'git-2.56', 'initial'],
  });
  const ops = r.workload.operations;
  const tomb = r.results.reduce((s, m) => s + (m.tombstonesSkipped ?? 0), 0);
  return { perOp: sim.steps / ops, tombstonesPerOp: tomb / ops };
}

describe('simulator performance (counted work)', () => {
  it('20,000 updates over 20,000 tombstones, all models: a bounded number of queries per operation', () => {
    const big = queriesPerOp(20_000, 20_000);
    // Git steps over thousands of tombstones per operation here …
    expect(big.tombstonesPerOp).toBeGreaterThan(1000);
    // … the simulator answers each operation (all four models) with a few hundred queries at most.
    expect(big.perOp).toBeLessThan(400);
  }, 300_000);

  it('the queries per operation do not grow with the stack: 10× the tombstones, about the same work per operation', () => {
    const small = queriesPerOp(2_000, 2_000);
    const large = queriesPerOp(20_000, 20_000);
    expect(large.tombstonesPerOp / small.tombstonesPerOp).toBeGreaterThan(8);
    expect(large.perOp / small.perOp).toBeLessThan(1.5);
  }, 300_000);
});
