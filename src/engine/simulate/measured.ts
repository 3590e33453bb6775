/**
 * measured: the recorded real-git timings (measured/real-gits.json, written by
 * bench/realgit-timings.ts on the test machine) as simulator cases — the data the time constants
 * are fitted on (calibrate.ts `fitRealGits`) and that test/simulate-realgit.test.ts checks every
 * estimate and every fix's gain against. Pure: takes the parsed file, runs the simulator.
 */
import { memorySource } from '../basics.ts';
import { loadFilesRepo } from '../files.ts';
import type { Counts } from './counts.ts';
import type { ModelName } from './models.ts';
import type { TimeConstants } from './constants.ts';
import { measuredCaseInput } from './synthetic.ts';
import { Simulator, type SimInput, type SimulationResult } from './index.ts';

/** The file's shape (`refscope.real-gits/1`). */
export interface RealGitsFile {
  schema: 'refscope.real-gits/1';
  description: string;
  machine: { nproc: number; cpu: string; memoryGB: number; kernel: string; date: string; load: number[] };
  objects: { commits: number; objects: number; packBytes: number };
  gits: Record<
    string,
    { versionLine: string; measured: string; processStart: Record<string, { cpu: number; runs: number[] }> }
  >;
  cases: RealGitCase[];
}
export interface RealGitStep {
  cpu: number;
  user: number;
  sys: number;
  wall: number;
  runs: number[];
  before: unknown;
}
export interface RealGitCase {
  git: string;
  backend: 'reftable' | 'files';
  workload: string;
  n: number;
  repeats: number;
  steps: Record<string, RealGitStep>;
}

/** Steps the simulator models (`pack-refs` itself is not a ref update). */
export const MODELLED_STEPS = [
  'create',
  'delete',
  'recreate',
  'recreate-packed',
  'create-loose',
  'delete-packed',
  'recreate-after-packed-delete',
];

/**
 * Which model a recorded git is, by what it did (not by its version line): a git whose reftable
 * `recreate` at the largest n costs more than 5× the same creates after `pack-refs` walks
 * tombstones quadratically (≤ 2.55); of those, one whose version is ≤ 2.49 is git-2.49. A
 * reftable git that re-creates in about the time it creates carries the tombstone fix (git-2.56).
 */
export function measuredModel(data: RealGitsFile, git: string): { model: ModelName; why: string } {
  const cs = data.cases.filter(
    (c) =>
      c.git === git &&
      c.backend === 'reftable' &&
      c.workload === 'cycle' &&
      c.steps.recreate &&
      c.steps['recreate-packed'],
  );
  const line = data.gits[git]?.versionLine ?? git;
  const m = /(\d+)\.(\d+)/.exec(line.replace(/^git version /, ''));
  const minor = m ? Number(m[1]) * 1000 + Number(m[2]) : 0;
  if (!cs.length) return { model: minor <= 2049 ? 'git-2.49' : 'git-2.55', why: 'no recreate measured: by version' };
  const big = cs.reduce((a, b) => (b.n > a.n ? b : a));
  const ratio = big.steps.recreate.cpu / big.steps['recreate-packed'].cpu;
  const why = `recreate ÷ recreate after pack-refs at n = ${big.n}: ${ratio.toFixed(1)}`;
  if (ratio < 5) return { model: 'git-2.56', why: `${why} (linear: the tombstone fix)` };
  return { model: minor <= 2049 ? 'git-2.49' : 'git-2.55', why: `${why} (quadratic: tombstones walked)` };
}

/** A simulator for one recorded case's step, and the stdin workload. */
export function caseSimulator(c: RealGitCase, step: string): { sim: Simulator; stdin: string } {
  const { input, stdin } = measuredCaseInput(c.backend, c.workload, step, c.n);
  let si: SimInput;
  if (input.kind === 'files') {
    si = {
      kind: 'files',
      repo: loadFilesRepo(input.files.map((f) => ({ path: f.path, source: memorySource(f.bytes) }))),
      description: input.description,
    };
  } else si = input;
  return { sim: new Simulator(si), stdin };
}

/** One recorded step priced by its model. */
export interface MeasuredPoint {
  git: string;
  model: ModelName;
  backend: 'reftable' | 'files';
  workload: string;
  step: string;
  n: number;
  measured: number;
  estimated: number;
  counts: Counts;
  result: SimulationResult;
}

/**
 * Files-backend steps that do the same counted work (create n loose refs in a store that has
 * none of them): their runs are pooled into one median. The files backend's cost is file-system
 * time (lock, write, rename per ref), which on a shared machine varies up to 3× between identical
 * runs minutes apart; one median over the twelve runs of a case is steadier than four of three.
 */
export const FILES_POOLED = ['create', 'recreate', 'create-loose', 'recreate-after-packed-delete'];
/** Likewise the two deletions of n + 1 refs (loose, or packed: the model counts about the same work). */
export const FILES_POOLED_DELETE = ['delete', 'delete-packed'];

/** The steps pooled with `step` of a files case (itself alone for other steps). */
export function pooledSteps(c: { backend: string }, step: string): string[] {
  if (c.backend !== 'files') return [step];
  return FILES_POOLED.includes(step) ? FILES_POOLED : FILES_POOLED_DELETE.includes(step) ? FILES_POOLED_DELETE : [step];
}

function measuredOf(c: RealGitCase, step: string): number {
  const same = pooledSteps(c, step);
  if (same.length === 1) return c.steps[step].cpu;
  const all = same.flatMap((s) => c.steps[s]?.runs ?? []).sort((a, b) => a - b);
  const m = all.length >> 1;
  return all.length % 2 ? all[m] : (all[m - 1] + all[m]) / 2;
}

/** Every modelled step of the file, simulated with `constants` (default: the calibrated ones). */
export function measuredPoints(
  data: RealGitsFile,
  opts: { constants?: TimeConstants; filter?: (c: RealGitCase) => boolean; fixes?: boolean } = {},
): MeasuredPoint[] {
  const out: MeasuredPoint[] = [];
  const models = new Map<string, ModelName>();
  for (const c of data.cases) {
    if (opts.filter && !opts.filter(c)) continue;
    let model = models.get(c.git);
    if (!model) models.set(c.git, (model = measuredModel(data, c.git).model));
    const m: ModelName = c.backend === 'files' ? 'files' : model;
    for (const step of MODELLED_STEPS) {
      const s = c.steps[step];
      if (!s) continue;
      const { sim, stdin } = caseSimulator(c, step);
      const w = sim.parseStdin(stdin);
      const result = sim.run(w, {
        models: [m],
        curve: false,
        fixes: opts.fixes === true && c.backend === 'reftable',
        constants: opts.constants,
        reflogs: c.workload === 'reflog',
        baseline: m === 'files' ? undefined : m,
      });
      const r = result.results[0];
      out.push({
        git: c.git,
        model: m,
        backend: c.backend,
        workload: c.workload,
        step,
        n: c.n,
        measured: measuredOf(c, step),
        estimated: r.seconds!,
        counts: r.counts!,
        result,
      });
    }
  }
  return out;
}
