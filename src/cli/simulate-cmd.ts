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
import fs from 'node:fs';
import type { Command } from './commands.ts';
import { parseArgs, loadPath, firstError, UsageError, intFlag } from './common.ts';
import { displayName, FormatError } from '../engine/basics.ts';
import {
  Simulator, MODEL_NAMES, SpecError, SimulationLimitError, type ModelName, type SimulationResult, type Workload,
} from '../engine/simulate/index.ts';
import { fmtGain } from '../engine/simulate/format.ts';
import { gitVersionFlag, outsideOptions, formatOutside } from './calibrate-cmd.ts';

/** Wall-clock budget of one simulation (`--budget <seconds>` changes it). */
export const DEFAULT_BUDGET_MS = 60_000;

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
    if (line && line.length + 1 + w.length > width) { out.push(line); line = w; } else line = line ? `${line} ${w}` : w;
  }
  if (line) out.push(line);
  return out;
}

/** The readable form of a simulation result. */
export function formatSimulation(r: SimulationResult): string {
  const out: string[] = [];
  out.push(`refscope simulate — ${r.input.description}`);
  out.push(`workload: ${displayName(r.workload.description)} (${n(r.workload.operations)} operation${r.workload.operations === 1 ? '' : 's'}${r.workload.kind === 'updates' ? `, ${n(r.workload.transactions)} transaction${r.workload.transactions === 1 ? '' : 's'}` : ''})`);
  out.push('');
  out.push(`${'model'.padEnd(9)} ${'git versions'.padEnd(22)} ${'estimate'.padStart(10)} ${'seeks'.padStart(10)} ${'blocks'.padStart(10)} ${'records'.padStart(10)} ${'tombstones'.padStart(11)}`);
  for (const m of r.results) {
    if (!m.applicable) { out.push(`${m.model.padEnd(9)} not applicable: ${m.reason}`); continue; }
    out.push(`${m.model.padEnd(9)} ${(m.versions.length > 22 ? m.versions.slice(0, 21) + '…' : m.versions).padEnd(22)} ${secs(m.seconds).padStart(10)} ${big(m.seeks).padStart(10)} ${big(m.blocksRead).padStart(10)} ${big(m.recordsDecoded).padStart(10)} ${big(m.tombstonesSkipped).padStart(11)}`);
  }
  const ok = r.results.filter((m) => m.applicable && m.seconds);
  if (ok.length) {
    out.push('');
    out.push('where the time goes:');
    for (const m of ok) {
      const shown = m.phases.filter((p) => p.seconds >= 0.005 * m.seconds!);
      out.push(`  ${m.model.padEnd(9)} ${shown.map((p) => `${p.phase === 'parse' ? 'parse (dwim reads)' : p.phase} ${Math.round((100 * p.seconds) / m.seconds!)} %`).join(', ')}`);
    }
  }
  out.push(...formatOutside(r));
  if (r.fixes.length) {
    out.push('');
    out.push(`what would fix it (against ${r.fixes[0].model}, ${secs(r.fixes[0].baselineSeconds)}):`);
    for (const f of r.fixes) {
      const gain = fmtGain(f.speedup);
      out.push(`  ${f.label}`);
      out.push(`      ${secs(f.seconds).padEnd(10)} ${gain.padEnd(14)} ${f.note}${f.refStoreSpeedup && f.speedup && Math.abs(f.refStoreSpeedup / f.speedup - 1) > 0.05 ? ` (the ref store alone: ${fmtGain(f.refStoreSpeedup)}; the gain is on the total)` : ''}`);
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
    for (const s of r.curve.series) out.push(`  ${s.model.padEnd(9)} ${idx.map((i) => secs(s.sameShape[i]).padStart(10)).join(' ')}`);
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

function parseModels(v: string | true | undefined): ModelName[] | undefined {
  if (v === undefined) return undefined;
  if (v === true || v === '') throw new UsageError('--model needs a name: ' + [...MODEL_NAMES, 'all'].join(', '));
  if (v === 'all') return [...MODEL_NAMES];
  const out: ModelName[] = [];
  for (const given of v.split(',')) {
    if (given === 'all') { for (const a of MODEL_NAMES) if (!out.includes(a)) out.push(a); continue; }
    const m = modelForVersion(given);
    if (!(MODEL_NAMES as string[]).includes(m)) throw new UsageError(`unknown model ${JSON.stringify(given)}: ${[...MODEL_NAMES, 'all'].join(', ')} (or any git-2.N version)`);
    if (!out.includes(m as ModelName)) out.push(m as ModelName);
  }
  return out;
}

async function run(argv: string[]): Promise<number> {
  // `-z` is a short flag; parseArgs only knows long ones.
  const z = argv.includes('-z') || argv.includes('--z');
  const args = parseArgs(argv.filter((a) => a !== '-z' && a !== '--z'), ['stdin', 'workload', 'model', 'factor', 'budget', 'git-version', 'machine-factor'],
    ['json', 'no-fixes', 'no-curve', 'no-auto-compaction', 'no-warn-ambiguous-refs', 'reflogs'], ['model']);
  const gitVersion = gitVersionFlag(args.flags);
  if (args.pos.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(args.pos[1])}`);
  const stdinPath = args.flags.get('stdin');
  const spec = args.flags.get('workload');
  if ((stdinPath === undefined) === (spec === undefined)) throw new UsageError('give exactly one of --stdin <file> and --workload <spec>');
  if (z && stdinPath === undefined) throw new UsageError('-z applies to --stdin input only');
  const models = parseModels(args.flags.get('model'));
  const factor = intFlag(args.flags, 'factor', 2, 255);
  let budgetMs = DEFAULT_BUDGET_MS;
  if (args.flags.has('budget')) {
    const b = String(args.flags.get('budget'));
    if (!/^[0-9]{1,6}$/.test(b) || Number(b) < 1) throw new UsageError('--budget takes whole seconds from 1 to 999999');
    budgetMs = Number(b) * 1000;
  }
  const a = loadPath(args.pos[0]);
  const sim = Simulator.fromAnalysis(a);
  let w: Workload;
  if (typeof spec === 'string') {
    try {
      w = sim.parseSpec(spec);
    } catch (e) {
      if (e instanceof SpecError) throw new UsageError(`--workload: ${e.message}`);
      throw e;
    }
  } else {
    if (typeof stdinPath !== 'string' || stdinPath === '') throw new UsageError('--stdin needs a file (or - for standard input)');
    const bytes = stdinPath === '-' ? new Uint8Array(fs.readFileSync(0)) : new Uint8Array(fs.readFileSync(stdinPath));
    w = sim.parseStdin(bytes, { z, file: stdinPath === '-' ? '(stdin)' : stdinPath });
  }
  let res: SimulationResult;
  try {
    res = sim.run(w, {
      models, factor, fixes: !args.flags.has('no-fixes'), curve: !args.flags.has('no-curve'),
      autoCompaction: !args.flags.has('no-auto-compaction'), warnAmbiguousRefs: !args.flags.has('no-warn-ambiguous-refs'), budgetMs,
      ...outsideOptions(args.flags, gitVersion),
    });
  } catch (e) {
    // Too big for the budget: the usual one-line error (exit 3), naming the workload.
    if (e instanceof SimulationLimitError) throw new FormatError(typeof stdinPath === 'string' ? (stdinPath === '-' ? '(stdin)' : stdinPath) : '--workload', 0, e.message);
    throw e;
  }
  process.stdout.write(args.flags.has('json') ? JSON.stringify(res, null, 2) + '\n' : formatSimulation(res));
  const err = firstError(a);
  if (err) {
    process.stderr.write(`refscope: ${displayName(err.message)}\n`);
    return 3;
  }
  return 0;
}

export const simulateCommand: Command = {
  name: 'simulate',
  usage: 'simulate <path> [options]',
  summary: `--stdin <file> | --workload <spec> [--model <name>|all] [--json]: git's work and time per version, what would fix it (docs/simulator.md)`,
  run,
};
