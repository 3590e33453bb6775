/**
 * `refscope simulate <path> --stdin <file> | --workload <spec> [--model <name>|all] [--json]`:
 * replay `git update-ref --stdin` input or a generated workload on the real tables and estimate
 * the work and time per git version (docs/simulator.md), with what would fix it.
 *
 * Options: `-z` (the --stdin file is NUL-separated), `--stdin -` (read standard input),
 * `--model a,b` (several), `--factor N` (reftable.geometricFactor), `--no-fixes`, `--no-curve`,
 * `--no-auto-compaction`, `--no-warn-ambiguous-refs` (as `-c core.warnAmbiguousRefs=false`),
 * `--budget <seconds>` (wall-clock limit of the whole simulation, default 60; past it: exit 3).
 * Exit codes: 0; 2 usage (unknown model, malformed spec, both or neither of --stdin/--workload);
 * 3 invalid input (`refscope: <file>: offset <n>: expected <what>`, e.g. a bad line in the --stdin
 * file, or a damaged table — the simulation then runs on the readable tables first).
 */
import { MAX_STDIN_BYTES } from './node-input.ts';
import {
  UsageError,
  intOption,
  flag,
  str,
  writeJson,
  FACTOR_OPTION,
  type CommandSpec,
  type Context,
} from './common.ts';
import { loadPath, firstError, readStdin, STDIN_NAME } from './load.ts';
import { displayName, FormatError, oneLine } from '../engine/basics.ts';
import { gitVerdict } from '../engine/report.ts';
import {
  Simulator,
  MODEL_NAMES,
  SpecError,
  SimulationLimitError,
  type ModelName,
  type SimulationResult,
  type Workload,
} from '../engine/simulate/index.ts';
import { fmtGain } from '../engine/simulate/format.ts';
import { gitVersionFlag, outsideOptions, formatOutside } from './calibrate-cmd.ts';

const n = (v: number): string => Math.round(v).toLocaleString('en-US');

function secs(s: number | null): string {
  if (s === null) return '—';
  if (s >= 100) return `${Math.round(s)} s`;
  if (s >= 1) return `${s.toFixed(2)} s`;
  if (s >= 0.001) return `${(s * 1000).toFixed(1)} ms`;
  return `${(s * 1e6).toFixed(0)} µs`;
}

function big(v: number | null): string {
  if (v === null) return '—';
  if (v >= 1e9) return `${(v / 1e9).toFixed(2)} G`;
  if (v >= 1e6) return `${(v / 1e6).toFixed(2)} M`;
  return n(v);
}

function wrap(text: string, width = 96): string[] {
  const out: string[] = [];
  let line = '';
  for (const w of text.split(' ')) {
    if (line && line.length + 1 + w.length > width) {
      out.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) out.push(line);
  return out;
}

/** The readable form of a simulation result. */
export function formatSimulation(r: SimulationResult): string {
  const out: string[] = [];
  out.push(`refscope simulate — ${r.input.description}`);
  out.push(
    `workload: ${displayName(r.workload.description)} (${n(r.workload.operations)} operation${r.workload.operations === 1 ? '' : 's'}${r.workload.kind === 'updates' ? `, ${n(r.workload.transactions)} transaction${r.workload.transactions === 1 ? '' : 's'}` : ''})`,
  );
  out.push('');
  out.push(
    `${'model'.padEnd(9)} ${'git versions'.padEnd(22)} ${'estimate'.padStart(10)} ${'seeks'.padStart(10)} ${'blocks'.padStart(10)} ${'records'.padStart(10)} ${'tombstones'.padStart(11)}`,
  );
  for (const m of r.results) {
    if (!m.applicable) {
      out.push(`${m.model.padEnd(9)} not applicable: ${m.reason}`);
      continue;
    }
    out.push(
      `${m.model.padEnd(9)} ${(m.versions.length > 22 ? m.versions.slice(0, 21) + '…' : m.versions).padEnd(22)} ${secs(m.seconds).padStart(10)} ${big(m.seeks).padStart(10)} ${big(m.blocksRead).padStart(10)} ${big(m.recordsDecoded).padStart(10)} ${big(m.tombstonesSkipped).padStart(11)}`,
    );
  }
  const ok = r.results.filter((m) => m.applicable && m.seconds);
  if (ok.length) {
    out.push('');
    out.push('where the time goes:');
    for (const m of ok) {
      const shown = m.phases.filter((p) => p.seconds >= 0.005 * m.seconds!);
      out.push(
        `  ${m.model.padEnd(9)} ${shown.map((p) => `${p.phase === 'parse' ? 'parse (dwim reads)' : p.phase} ${Math.round((100 * p.seconds) / m.seconds!)} %`).join(', ')}`,
      );
    }
  }
  out.push(...formatOutside(r));
  if (r.fixes.length) {
    out.push('');
    out.push(`what would fix it (against ${r.fixes[0].model}, ${secs(r.fixes[0].baselineSeconds)}):`);
    for (const f of r.fixes) {
      const gain = fmtGain(f.speedup);
      out.push(`  ${f.label}`);
      out.push(
        `      ${secs(f.seconds).padEnd(10)} ${gain.padEnd(14)} ${f.note}${f.refStoreSpeedup && f.speedup && Math.abs(f.refStoreSpeedup / f.speedup - 1) > 0.05 ? ` (the ref store alone: ${fmtGain(f.refStoreSpeedup)}; the gain is on the total)` : ''}`,
      );
    }
  }
  const errs = r.results.find((m) => m.errorCount);
  if (errs) {
    out.push('');
    out.push(`git would refuse ${n(errs.errorCount)} update(s), e.g.: ${displayName(errs.errors[0])}`);
  }
  out.push('');
  out.push(...wrap(displayName(r.explanation)));
  if (r.curve) {
    const show = [1, 10, 100, 1000, 10000, 100000];
    const idx = show.map((v) => r.curve!.n.indexOf(v));
    out.push('');
    out.push(`estimated time against batch size n, stack scaled with n (simulated n = ${n(r.curve.simulatedN)}):`);
    out.push(`  ${'model'.padEnd(9)} ${show.map((v) => `n=${v >= 1000 ? `${v / 1000}k` : v}`.padStart(10)).join(' ')}`);
    for (const s of r.curve.series)
      out.push(`  ${s.model.padEnd(9)} ${idx.map((i) => secs(s.sameShape[i]).padStart(10)).join(' ')}`);
  }
  return out.join('\n') + '\n';
}

/**
 * A git version named as `git-2.N` (or `2.N`, `git-2.N.M`) maps to the model that stands for it:
 * ≤ 2.49 → git-2.49, 2.50–2.55 → git-2.55, 2.56 and later → git-2.56. Other names pass through.
 */
export function modelForVersion(name: string): string {
  const m = /^(?:git-?)?2\.(\d+)(?:\.\d+)?$/.exec(name);
  if (!m) return name;
  const minor = Number(m[1]);
  return minor <= 49 ? 'git-2.49' : minor <= 55 ? 'git-2.55' : 'git-2.56';
}

function parseModels(v: string | undefined): ModelName[] | undefined {
  if (v === undefined) return undefined;
  if (v === '') throw new UsageError('--model needs a name: ' + [...MODEL_NAMES, 'all'].join(', '));
  if (v === 'all') return [...MODEL_NAMES];
  const out: ModelName[] = [];
  for (const given of v.split(',')) {
    if (given === 'all') {
      for (const a of MODEL_NAMES) if (!out.includes(a)) out.push(a);
      continue;
    }
    const m = modelForVersion(given);
    if (!(MODEL_NAMES as string[]).includes(m))
      throw new UsageError(
        `unknown model ${JSON.stringify(given)}: ${[...MODEL_NAMES, 'all'].join(', ')} (or any git-2.N version)`,
      );
    if (!out.includes(m as ModelName)) out.push(m as ModelName);
  }
  return out;
}

async function run(ctx: Context): Promise<number> {
  const stdinPath = str(ctx, 'stdin');
  const spec = str(ctx, 'workload');
  const z = flag(ctx, 'z');
  const gitVersion = gitVersionFlag(ctx);
  if ((stdinPath === undefined) === (spec === undefined))
    throw new UsageError('give exactly one of --stdin <file> and --workload <spec>');
  if (z && stdinPath === undefined) throw new UsageError('-z applies to --stdin input only');
  const m = ctx.values.model;
  const models = parseModels(Array.isArray(m) ? m.join(',') : undefined);
  const factor = intOption(ctx, 'factor', 2, 255);
  const p = ctx.positionals[0];
  if (p === '-' && stdinPath === '-')
    throw new UsageError('standard input is read once: <path> and --stdin cannot both be -');
  const a = loadPath(p, ctx);
  const sim = Simulator.fromAnalysis(a);
  let w: Workload;
  if (spec !== undefined) {
    try {
      w = sim.parseSpec(spec);
    } catch (e) {
      if (e instanceof SpecError) throw new UsageError(`--workload: ${e.message}`);
      throw e;
    }
  } else {
    if (!stdinPath) throw new UsageError('--stdin needs a file (or - for standard input)');
    const bytes = readStdin('--stdin', stdinPath, MAX_STDIN_BYTES, 'update-ref --stdin input');
    w = sim.parseStdin(bytes, { z, file: stdinPath === '-' ? STDIN_NAME : stdinPath });
  }
  let res: SimulationResult;
  // The simulation gets the whole budget of its own, as in the web app's worker (a load, then a run).
  const budgetMs = ctx.budgetMs;
  ctx.progress.step();
  try {
    res = sim.run(w, {
      models,
      factor,
      fixes: !flag(ctx, 'no-fixes'),
      curve: !flag(ctx, 'no-curve'),
      autoCompaction: !flag(ctx, 'no-auto-compaction'),
      warnAmbiguousRefs: !flag(ctx, 'no-warn-ambiguous-refs'),
      budgetMs,
      onProgress: ctx.progress.enabled
        ? (model, done, total) => ctx.progress.update(() => `simulating ${model}: ${n(done)} of ${n(total)} operations`)
        : undefined,
      ...outsideOptions(ctx, gitVersion),
    });
  } catch (e) {
    // Too big for the budget: the usual one-line error (exit 3), naming the workload.
    if (e instanceof SimulationLimitError)
      throw new FormatError(
        stdinPath !== undefined ? (stdinPath === '-' ? STDIN_NAME : stdinPath) : '--workload',
        0,
        e.message,
      );
    throw e;
  } finally {
    ctx.progress.done();
  }
  // Said first: on a stack git cannot read, the counts and times are refscope's replay on the
  // intact tables, not what git would do (git fails before doing any of it).
  const verdict = gitVerdict(a);
  if (ctx.json) {
    writeJson(verdict.gitReadable ? res : { verdict, ...res });
  } else {
    if (!verdict.gitReadable)
      process.stdout.write(
        `GIT CANNOT READ THIS ${a.stack ? 'STACK' : 'REPOSITORY'}: ${oneLine(verdict.reason ?? '')}. Git would fail on every operation below; the counts and times are refscope's replay on the intact tables, not git's.\n`,
      );
    process.stdout.write(formatSimulation(res));
  }
  const err = firstError(a);
  if (err) {
    process.stderr.write(`refscope: ${displayName(err.message)}\n`);
    return 3;
  }
  return 0;
}

export const simulateCommand: CommandSpec = {
  name: 'simulate',
  usage: '<path> (--stdin <file> | --workload <spec>) [options]',
  summary:
    "Replay git update-ref --stdin input or a generated workload on the real tables and estimate git's work and time per version, with what would fix it (docs/simulator.md).",
  args: { min: 1, max: 1 },
  options: {
    stdin: {
      type: 'string',
      value: '<file>',
      help: 'the batch as git update-ref --stdin reads it; - for standard input',
    },
    z: { type: 'boolean', short: 'z', help: 'the --stdin input is NUL-separated (git update-ref --stdin -z)' },
    workload: {
      type: 'string',
      value: '<spec>',
      help: 'a generated workload: recreate, create:N:<prefix>, delete:N, lookup:N, … (docs/simulator.md)',
    },
    model: {
      type: 'string',
      multiple: true,
      value: '<name>',
      help: `models to run: ${MODEL_NAMES.join(', ')}, all, or any git-2.N version; a comma list (default all)`,
    },
    factor: FACTOR_OPTION,
    'no-fixes': { type: 'boolean', help: 'leave out "what would fix it" (faster)' },
    'no-curve': { type: 'boolean', help: 'leave out the cost curve against batch size (faster)' },
    'no-auto-compaction': { type: 'boolean', help: "replay without git's auto-compaction after each transaction" },
    'no-warn-ambiguous-refs': { type: 'boolean', help: 'as git -c core.warnAmbiguousRefs=false' },
    'git-version': {
      type: 'string',
      value: '<line>',
      help: 'what your git --version prints, e.g. "git version 2.55.0": picks the model and compares the fixes against your git',
    },
    'machine-factor': {
      type: 'string',
      value: '<f>',
      help: "this machine's factor from refscope calibrate: estimates in your machine's seconds",
    },
    reflogs: {
      type: 'boolean',
      help: 'count a reflog entry per ref written (core.logAllRefUpdates, on in non-bare repositories)',
    },
  },
  schema: 'refscope.simulation/1',
  details: 'As in the web app, reading the tables and the simulation each get the --budget time; past it: exit 3.',
  run,
};
