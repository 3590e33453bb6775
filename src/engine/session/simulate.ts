/**
 * session/simulate: the Simulator view's runs on the loaded analysis (`Simulator.run`), with the
 * same wall-clock budget as the CLI, and what this engine build can do.
 */
import { FormatError, bytesToKey, displayName, textToKey } from '../basics.ts';
import { type Analysis } from '../analyze.ts';
import { Simulator, SpecError, SimulationLimitError, type SimulationResult } from '../simulate/index.ts';
import { measureScriptFor } from '../simulate/measure-run.ts';
import { GENERATOR } from '../version.ts';
import { SIMULATION_BUDGET_MS, type Capabilities, type SimulateAnswer, type SimulateQuery } from './types.ts';

/** The simulator part of a session: one simulator per analysis (built on first use: it indexes every key). */
export class SimulateSession {
  /** Wall-clock budget of one run (ms); tests shorten it. */
  budgetMs = SIMULATION_BUDGET_MS;
  private sim: { a: Analysis; s: Simulator } | null = null;

  reset(): void {
    this.sim = null;
  }

  /**
   * Run a workload on the current analysis with the simulator (`Simulator.run`): per model the
   * counts and the estimated time, what would fix it, the plain-words paragraph and the curve.
   * A malformed spec or stdin input comes back as an error with its offset, never thrown. Throws
   * when there are no tables (nothing loaded, or a report opened from a link).
   */
  simulate(a: Analysis | null, fromLink: boolean, q: SimulateQuery): SimulateAnswer {
    const t0 = Date.now();
    if (!a) {
      throw new FormatError(
        '(session)',
        -1,
        fromLink
          ? 'tables to simulate on (a report opened from a link has none: rebuild a synthetic stack of the same shape)'
          : 'a reftable stack or files-backend repository to simulate on (nothing is loaded)',
      );
    }
    const none = { file: '', offset: -1, expected: '', line: 0, column: 0, lineText: '' };
    let sim: Simulator;
    try {
      if (this.sim?.a !== a) this.sim = { a, s: Simulator.fromAnalysis(a) };
      sim = this.sim.s;
    } catch (e) {
      return { ok: false, error: { kind: 'engine', message: (e as Error)?.message ?? String(e), ...none } };
    }
    let w;
    if (q.stdin) {
      const { bytes, z, file } = q.stdin;
      try {
        w = sim.parseStdin(bytes, { z, file });
      } catch (e) {
        if (!(e instanceof FormatError))
          return { ok: false, error: { kind: 'engine', message: (e as Error)?.message ?? String(e), ...none } };
        const term = z ? 0 : 10;
        const at = Math.max(0, Math.min(bytes.length, e.offset));
        let line = 1,
          start = 0;
        for (let i = 0; i < at; i++)
          if (bytes[i] === term) {
            line++;
            start = i + 1;
          }
        let end = bytes.indexOf(term, start);
        if (end < 0) end = bytes.length;
        const text = displayName(bytesToKey(bytes, start, Math.min(end, start + 200)));
        return {
          ok: false,
          error: {
            kind: 'stdin',
            message: displayName(e.message),
            file: displayName(e.file),
            offset: e.offset,
            expected: displayName(e.expected),
            line,
            column: at - start + 1,
            lineText: text,
          },
        };
      }
    } else {
      try {
        w = sim.parseSpec(textToKey(q.spec ?? 'recreate'));
      } catch (e) {
        const kind = e instanceof SpecError ? 'spec' : 'engine';
        return { ok: false, error: { kind, message: displayName((e as Error)?.message ?? String(e)), ...none } };
      }
    }
    let result: SimulationResult;
    try {
      // The same 60 s budget as the CLI: a run cannot be cancelled from the page, so it ends itself.
      result = sim.run(w, {
        models: q.models,
        warnAmbiguousRefs: q.warnAmbiguousRefs,
        autoCompaction: q.autoCompaction,
        factor: q.factor,
        budgetMs: this.budgetMs,
        ...q.options,
      });
    } catch (e) {
      if (e instanceof SimulationLimitError) {
        const message = `it ran past its ${e.budgetMs / 1000} s budget (${e.model} had replayed ${e.done.toLocaleString('en-US')} of ${e.total.toLocaleString('en-US')} operations). Try a smaller batch, one transaction instead of one per ref, or fewer models.`;
        return { ok: false, error: { kind: 'engine', message, ...none } };
      }
      return { ok: false, error: { kind: 'engine', message: (e as Error)?.message ?? String(e), ...none } };
    }
    // Names leave the session as display text.
    result.explanation = displayName(result.explanation);
    result.workload.description = displayName(result.workload.description);
    for (const m of result.results) m.errors = m.errors.map(displayName);
    let measure: { script: string } | { error: string } | undefined;
    if (q.measure) {
      try {
        measure = {
          script: measureScriptFor(sim, w, {
            gitVersion: q.options?.gitVersion,
            spec: q.spec ?? null,
            source: a.input.description,
            generator: GENERATOR,
            repeats: q.measure.repeats,
          }),
        };
      } catch (e) {
        measure = { error: displayName((e as Error)?.message ?? String(e)) };
      }
    }
    return { ok: true, result, elapsed: Date.now() - t0, ...(measure ? { measure } : {}) };
  }

  /** What this engine build can do. */
  capabilities(): Capabilities {
    // The files backend is part of every build: `analyzeFiles` calls it directly.
    return { filesBackend: true };
  }
}
