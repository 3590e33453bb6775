/**
 * The simulator's limits: the `--stdin` caps (at the line that crosses them), the time budget
 * (a run past it stops with SimulationLimitError, in the engine and as the CLI's one-line exit 3),
 * and memory that does not grow with the number of commits (a compacted table refers to real
 * tables or to values, never to the simulated tables it was merged from).
 */
import { describe, it, expect } from 'vitest';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { FormatError } from '../src/engine/index.ts';
import { parseUpdateRefStdin, MAX_STDIN_UPDATES, MAX_STDIN_TRANSACTIONS } from '../src/engine/simulate/workload.ts';
import { Simulator, SimulationLimitError } from '../src/engine/simulate/index.ts';
import { SimState, SimStore } from '../src/engine/simulate/state.ts';
import { FastEngine } from '../src/engine/simulate/engine.ts';
import { runReftable } from '../src/engine/simulate/run.ts';
import { MODELS } from '../src/engine/simulate/models.ts';
import { fixtureStack, REFTABLE_FIXTURES } from './lib/fixtures.ts';

const ROOT = path.join(__dirname, '..');
const FX = REFTABLE_FIXTURES;
const A = 'a'.repeat(40);

const stackOf = fixtureStack;

describe('--stdin caps', () => {
  it(`more than ${MAX_STDIN_UPDATES.toLocaleString('en-US')} updates: refused at the line that crosses the cap`, () => {
    const line = `create refs/heads/x ${A}\n`;
    const input = line.repeat(MAX_STDIN_UPDATES + 1);
    try {
      parseUpdateRefStdin(input, { file: 'in' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(FormatError);
      expect((e as FormatError).offset).toBe(MAX_STDIN_UPDATES * line.length);
      expect((e as FormatError).expected).toMatch(/^at most 200,000 updates/);
    }
    expect(parseUpdateRefStdin(line.repeat(MAX_STDIN_UPDATES), { file: 'in' })[0].updates).toHaveLength(
      MAX_STDIN_UPDATES,
    );
  });

  it(`more than ${MAX_STDIN_TRANSACTIONS.toLocaleString('en-US')} transactions: refused at the commit that crosses the cap`, () => {
    const tx = 'start\ncommit\n';
    try {
      parseUpdateRefStdin(tx.repeat(MAX_STDIN_TRANSACTIONS + 1), { file: 'in' });
      expect.unreachable();
    } catch (e) {
      expect((e as FormatError).offset).toBe(MAX_STDIN_TRANSACTIONS * tx.length + 'start\n'.length);
      expect((e as FormatError).expected).toMatch(/^at most 200,000 transactions/);
    }
  });
});

describe('time budget', () => {
  it('a run past its budget throws SimulationLimitError saying how far it got; without a budget it finishes', () => {
    const { stack, merged } = stackOf('recreate-1000');
    const sim = new Simulator({ kind: 'reftable', stack, merged, description: 'recreate-1000' });
    const w = sim.parseSpec('create:3000:refs/heads/n/:per-ref');
    let err: unknown;
    try {
      // A deadline already passed: the first check stops it.
      sim.run(w, { models: ['git-2.56'], fixes: false, curve: false, budgetMs: 1e-9 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SimulationLimitError);
    expect((err as SimulationLimitError).total).toBe(3000);
    expect((err as SimulationLimitError).done).toBeLessThan(3000);
    expect(sim.run(w, { models: ['git-2.56'], fixes: false, curve: false }).results[0].seconds).toBeGreaterThan(0);
  });

  it('the CLI: --budget 1 on a workload that needs longer exits 3 with one line', () => {
    const r = spawnSync(
      process.execPath,
      [
        path.join(ROOT, 'bin/refscope.mjs'),
        'simulate',
        path.join(FX, 'recreate-1000/reftable'),
        '--workload',
        'create:200000:refs/heads/n/:per-ref',
        '--no-auto-compaction',
        '--budget',
        '1',
      ],
      { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
    );
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(
      /^refscope: --workload: offset 0: expected a workload the simulator replays within 1 s \(git-2\.49 stopped after [0-9,]+ of 200,000 operations[^\n]*\)\n$/,
    );
  });
});

describe('memory across many commits', () => {
  it('after 2,000 per-ref commits with auto-compaction, every table refers only to real tables or values', () => {
    const { stack, merged } = stackOf('recreate-1000');
    const sim = new Simulator({ kind: 'reftable', stack, merged, description: '' });
    const w = sim.parseSpec('create:2000:refs/heads/n/:per-ref');
    const store = new SimStore(
      { stack, merged },
      w.kind === 'updates' ? w.transactions.flatMap((t) => t.updates.map((u) => u.ref)) : [],
    );
    const state = new SimState(store);
    runReftable(new FastEngine(state), MODELS['git-2.56'], w, 40, {});
    expect(state.tables.length).toBeLessThan(20); // compaction ran
    for (const t of state.tables) {
      if (!t.synthetic) continue;
      for (let i = 0; i < t.count; i++) {
        const ref = t.orig!.ref[i],
          k = t.orig!.idx[i];
        if (k >= 0) expect((ref as { synthetic: boolean }).synthetic).toBe(false);
      }
    }
  });
});
