/**
 * measure-run: the measure script for a workload on a simulator, with refscope's prediction for
 * the chosen model embedded (used by the CLI's `export --format measure` and the web app's
 * "Measure with your git" button, through the worker). Kept apart from measure.ts so that the
 * script writer and the file reader do not depend on the simulator.
 */
import { CONSTANTS, constantsFor, secondsByPart } from './constants.ts';
import { parseGitVersion } from './gitversion.ts';
import type { ModelName } from './models.ts';
import type { Workload } from './workload.ts';
import type { Simulator } from './index.ts';
import { measureScript, type MeasurePrediction } from './measure.ts';

/** refscope's prediction for the script: the model's estimate, its parts, and after pack-refs. */
export function predictForMeasure(
  sim: Simulator,
  w: Workload,
  model: ModelName,
  gitVersion: string | null,
): MeasurePrediction {
  const r = sim.run(w, {
    models: [model],
    fixes: model !== 'files',
    curve: false,
    baseline: model === 'files' ? undefined : model,
  });
  const m = r.results[0];
  if (!m.applicable || m.seconds === null) throw new Error(`model ${model} does not apply to this input: ${m.reason}`);
  const k = constantsFor(CONSTANTS, model, w.kind);
  const pack = r.fixes.find((f) => f.fix === 'pack-refs');
  return {
    model,
    gitVersion,
    before: { seconds: m.seconds, parts: secondsByPart(m.counts!, k) },
    after: pack && pack.seconds !== null ? { seconds: pack.seconds, parts: {} } : null,
    startup: k.startup,
  };
}

/** The model a measure script predicts for: the user's git when given, else the newest model that applies. */
export function measureModel(sim: Simulator, gitVersion: string | null | undefined): ModelName {
  if (sim.input.kind === 'files') return 'files';
  if (gitVersion) {
    const v = parseGitVersion(gitVersion);
    if (v.model) return v.model;
  }
  return 'git-2.55';
}

/** The whole script for a workload (throws MeasureScriptError for workloads a script cannot carry). */
export function measureScriptFor(
  sim: Simulator,
  w: Workload,
  o: { gitVersion?: string | null; spec?: string | null; source: string; generator: string; repeats?: number },
): string {
  const model = measureModel(sim, o.gitVersion);
  const prediction = predictForMeasure(sim, w, model, o.gitVersion ?? null);
  return measureScript({
    workload: w,
    prediction,
    source: o.source,
    generator: o.generator,
    repeats: o.repeats,
    ownObjects: !!o.spec && /^create:/.test(o.spec),
  });
}
