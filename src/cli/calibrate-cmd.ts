/**
 * "Measure with your git" on the command line:
 * - `refscope export <path> --format measure --workload <spec> | --stdin <file> [--git-version <line>]
 *   [--model <name>] [--repeats N]`: prints the measure script (src/engine/simulate/measure.ts) for
 *   that workload on that ref store, with refscope's prediction embedded;
 * - `refscope calibrate <file> [--json]`: reads the JSON file the script wrote and shows predicted
 *   against measured, per phase from the trace2 events, and this machine's factor (to pass as
 *   `refscope simulate … --machine-factor <f>`).
 * Exit codes as elsewhere: 2 usage, 3 a file that is not a measure file (one line naming the file,
 * the offset and what was expected).
 */
import fs from 'node:fs';
import { UsageError, intOption, flag, str, writeJson, type CommandSpec, type Context } from './common.ts';
import { loadPath, readStdin } from './load.ts';
import { MAX_STDIN_BYTES } from './node-input.ts';
import { FormatError } from '../engine/basics.ts';
import { GENERATOR } from '../engine/report.ts';
import {
  Simulator,
  SpecError,
  MODEL_NAMES,
  COST_PART_WORDS,
  parseGitVersion,
  type ModelName,
  type Workload,
} from '../engine/simulate/index.ts';
import { predictForMeasure } from '../engine/simulate/measure-run.ts';
import {
  measureScript,
  readMeasureFile,
  compareMeasure,
  MeasureFileError,
  MeasureScriptError,
  type MeasurePrediction,
  type MeasureComparison,
} from '../engine/simulate/measure.ts';

const secs = (s: number | null): string => {
  if (s === null || !Number.isFinite(s)) return '—';
  if (s >= 1) return `${s.toFixed(2)} s`;
  if (s >= 0.001) return `${(s * 1000).toFixed(1)} ms`;
  return `${(s * 1e6).toFixed(0)} µs`;
};

/** The model for `--git-version` / `--model` (one reftable model), and the parsed version line. */
export function chosenModel(
  gitVersion: string | undefined,
  model: string | undefined,
): { model: ModelName; note: string | null } {
  if (gitVersion !== undefined) {
    let info;
    try {
      info = parseGitVersion(gitVersion);
    } catch (e) {
      throw new UsageError(`--git-version: ${(e as Error).message}`);
    }
    return { model: info.model ?? 'files', note: info.note };
  }
  if (model !== undefined) {
    if (!(MODEL_NAMES as string[]).includes(model))
      throw new UsageError(`unknown model ${JSON.stringify(model)}: ${MODEL_NAMES.join(', ')}`);
    return { model: model as ModelName, note: null };
  }
  return { model: 'git-2.55', note: null };
}

/** `export --format measure`: the script on standard output. */
export function measureExport(ctx: Context): number {
  const spec = str(ctx, 'workload');
  const stdinPath = str(ctx, 'stdin');
  if ((spec === undefined) === (stdinPath === undefined))
    throw new UsageError('--format measure: give exactly one of --workload <spec> and --stdin <file>');
  const repeats = intOption(ctx, 'repeats', 1, 20) ?? 3;
  const gv = str(ctx, 'git-version');
  const { model, note } = chosenModel(gv, str(ctx, 'model'));
  const a = loadPath(ctx.positionals[0], ctx);
  const sim = Simulator.fromAnalysis(a);
  let w: Workload;
  let ownObjects = false;
  if (typeof spec === 'string') {
    try {
      w = sim.parseSpec(spec);
    } catch (e) {
      if (e instanceof SpecError) throw new UsageError(`--workload: ${e.message}`);
      throw e;
    }
    ownObjects = /^create:/.test(spec);
  } else {
    if (typeof stdinPath !== 'string' || stdinPath === '') throw new UsageError('--stdin needs a file');
    w = sim.parseStdin(readStdin('--stdin', stdinPath, MAX_STDIN_BYTES, 'update-ref --stdin input'), {
      file: stdinPath,
    });
  }
  let prediction: MeasurePrediction;
  try {
    prediction = predictForMeasure(sim, w, model, typeof gv === 'string' ? gv : null);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  let script: string;
  try {
    script = measureScript({
      workload: w,
      prediction,
      source: a.input.description,
      generator: GENERATOR,
      repeats,
      ownObjects,
    });
  } catch (e) {
    if (e instanceof MeasureScriptError) throw new UsageError(e.message);
    throw e;
  }
  if (note) process.stderr.write(`refscope: ${note}\n`);
  process.stdout.write(script);
  return 0;
}

/** The readable comparison. */
export function formatComparison(c: MeasureComparison): string {
  const out: string[] = [];
  out.push(`refscope calibrate — ${c.git}, model ${c.model}`);
  out.push(`workload: ${c.workload} (${c.runs} run${c.runs === 1 ? '' : 's'} before and after pack-refs)`);
  for (const [label, rows] of [
    ['before pack-refs', c.before],
    ['after pack-refs', c.after],
  ] as const) {
    out.push('');
    out.push(`${label}:`);
    out.push(`  ${'phase'.padEnd(44)} ${'predicted'.padStart(10)} ${'measured'.padStart(10)}`);
    for (const r of rows) {
      const meas = r.unit === 'count' ? (r.measured === null ? '—' : String(r.measured)) : secs(r.measured);
      out.push(
        `  ${r.what.padEnd(44)} ${secs(r.predicted).padStart(10)} ${meas.padStart(10)}${r.unit === 'wall' ? ' wall' : r.unit === 'cpu' && r.measured !== null ? ' CPU' : ''}`,
      );
    }
  }
  out.push('');
  const g = (x: number | null) => (x === null ? '—' : `×${x.toFixed(2)}`);
  out.push(`pack-refs gain: measured ${g(c.gain.measured)}, predicted ${g(c.gain.predicted)}`);
  if (c.factor !== null) {
    out.push(
      `this machine's factor (measured CPU ÷ predicted): ${c.factor.toPrecision(3)} (before ${c.factorBefore?.toPrecision(3) ?? '—'}, after ${c.factorAfter?.toPrecision(3) ?? '—'})`,
    );
    out.push(
      `  estimates in this machine's seconds: refscope simulate <path> … --machine-factor ${c.factor.toPrecision(3)}`,
    );
  }
  for (const f of c.failures) out.push(`failed: ${f}`);
  return out.join('\n') + '\n';
}

export const CALIBRATION_SCHEMA = 'refscope.calibration/1';

export const calibrateCommand: CommandSpec = {
  name: 'calibrate',
  usage: '<measure.json> [--json]',
  summary:
    "Predicted against measured from the file a measure script wrote (refscope export --format measure), per phase from git's trace2 events, and this machine's factor for simulate --machine-factor.",
  args: { min: 1, max: 1 },
  options: {},
  schema: CALIBRATION_SCHEMA,
  run(ctx: Context): number {
    const file = ctx.positionals[0]!;
    if (file !== '-' && !fs.existsSync(file)) throw new UsageError(`no such file: ${file}`);
    let c: MeasureComparison;
    try {
      c = compareMeasure(
        readMeasureFile(
          new TextDecoder().decode(readStdin('<measure.json>', file, 64 * 1048576, 'a measure file')),
          file,
        ),
      );
    } catch (e) {
      if (e instanceof MeasureFileError) throw new FormatError(e.file, e.offset, e.expected);
      throw e;
    }
    if (ctx.json) writeJson({ schema: CALIBRATION_SCHEMA, generator: GENERATOR, ...c });
    else process.stdout.write(formatComparison(c));
    return c.failures.length ? 3 : 0;
  },
};

/** `--git-version "<git --version line>"` for `simulate`: checked here (usage error when it holds no version). */
export function gitVersionFlag(ctx: Context): string | undefined {
  const v = str(ctx, 'git-version');
  if (v === undefined) return undefined;
  if (v.trim() === '')
    throw new UsageError('--git-version needs the line git --version prints, e.g. "git version 2.55.0"');
  try {
    parseGitVersion(v);
  } catch (e) {
    throw new UsageError(`--git-version: ${(e as Error).message}`);
  }
  return v;
}

/** `simulate`'s options for the costs outside the ref store: the user's git, this machine's factor, reflogs. */
export function outsideOptions(
  ctx: Context,
  gitVersion: string | undefined,
): { gitVersion?: string; machineFactor?: number; reflogs?: boolean } {
  const out: { gitVersion?: string; machineFactor?: number; reflogs?: boolean } = {};
  if (gitVersion !== undefined) out.gitVersion = gitVersion;
  const raw = str(ctx, 'machine-factor');
  if (raw !== undefined) {
    const f = /^[0-9]{1,4}(\.[0-9]{1,6})?$/.test(raw) ? Number(raw) : NaN;
    if (!(f > 0 && f <= 1000))
      throw new UsageError(
        '--machine-factor takes a positive decimal number (the factor refscope calibrate printed), e.g. 1.7',
      );
    out.machineFactor = f;
  }
  if (flag(ctx, 'reflogs')) out.reflogs = true;
  return out;
}

/** The simulate text's lines about the user's git and the parts outside the ref store. */
export function formatOutside(r: import('../engine/simulate/index.ts').SimulationResult): string[] {
  const out: string[] = [];
  if (r.gitVersion) {
    out.push('');
    out.push(
      `your git: ${r.gitVersion.input} → ${r.gitVersion.model ?? 'files only'}${r.gitVersion.alternative ? ` (or ${r.gitVersion.alternative})` : ''}`,
    );
    out.push(`  ${r.gitVersion.note}`);
  }
  const ok = r.results.filter((m) => m.applicable && m.seconds && m.parts?.length);
  if (ok.length) {
    out.push('');
    out.push('ref store and outside it:');
    for (const m of ok) {
      out.push(
        `  ${m.model.padEnd(9)} ${m
          .parts!.filter((p) => p.share >= 0.005)
          .map((p) => `${COST_PART_WORDS[p.part]} ${Math.round(100 * p.share)} %${p.estimate ? '*' : ''}`)
          .join(', ')}`,
      );
    }
    out.push(
      '  * estimate: refscope reads no objects (see outsideNote in --json); refscope export --format measure times it with your git',
    );
  }
  return out;
}
