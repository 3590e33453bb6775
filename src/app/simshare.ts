/**
 * Simulation results in share links (issues #6, #7). The link's simulation field is sanitised by
 * the engine (`sanitizeSimulation`: numbers always kept, strings and object keys only when they
 * cannot be a ref name component), so the results travel as nested arrays of numbers only —
 * model, phase, fix and workload as codes, times rounded to six significant digits — and the
 * receiver rebuilds a `SimulationResult` from them (labels from the codes, the curve from its
 * fixed/linear/stepping split, the plain-words paragraph from the numbers).
 */
import type { SimulationResult, ModelResult, FixResult } from '../engine/simulate/index.ts';
import { MODELS, MODEL_NAMES, type ModelName } from '../engine/simulate/models.ts';
import { PHASES, type Counts, type Phase } from '../engine/simulate/counts.ts';
import { CURVE_N } from '../engine/simulate/curve.ts';
import { curveFromParts } from './simchart.ts';
import { workloadLabel } from './simspec.ts';
import { fmtGain, fmtSeconds } from './simformat.ts';

/** First number of the array: "refscope simulation results, layout 1" (issue 6). */
export const SIM_SHARE_MAGIC = 6001;

const FIXES: FixResult['fix'][] = ['pack-refs', 'auto-compaction', 'auto-compaction-by-records', 'newer-git', 'no-warn-ambiguous-refs'];

/** The fix labels of the engine (src/engine/simulate/index.ts), by fix. */
export const FIX_LABELS: Record<FixResult['fix'], string> = {
  'pack-refs': 'git pack-refs (refscope compact)',
  'auto-compaction': 'git pack-refs --auto (geometric rule, by bytes)',
  'auto-compaction-by-records': 'auto-compaction if it compared record counts (not what git does)',
  'newer-git': 'git 2.56 (tombstones reach the caller, which stops at its bound)',
  'no-warn-ambiguous-refs': 'git -c core.warnAmbiguousRefs=false update-ref',
};

const KINDS: SimulationResult['workload']['kind'][] = ['updates', 'lookups', 'scans', 'objects'];

/** Run options shown next to results. */
export interface SimOptions {
  warnAmbiguousRefs: boolean;
  autoCompaction: boolean;
  factor: number;
}

/** Results as the view shows them: a run of this session, or the sharer's from a link. */
export interface SimDisplay {
  source: 'live' | 'shared';
  result: SimulationResult;
  options: SimOptions;
  /** Workload code (simspec.ts `WORKLOAD_CODES`). */
  code: number;
  /** Tables of the simulated stack. */
  tables: number;
}

function sig(v: number | null): number | null {
  return v === null || !Number.isFinite(v) ? null : Number(v.toPrecision(6));
}
const b = (v: boolean): number => (v ? 1 : 0);

/** The numbers-only form of a run for `shareLink(…, { simulation })`. */
export function simulationForShare(d: SimDisplay): unknown[] {
  const r = d.result;
  const models = r.results.map((m) => [
    MODEL_NAMES.indexOf(m.model), b(m.applicable), sig(m.seconds), m.seeks, m.blocksRead, m.recordsDecoded, m.tombstonesSkipped,
    m.tablesAfter, m.errorCount, m.phases.flatMap((p) => [PHASES.indexOf(p.phase), sig(p.seconds)]),
  ]);
  const fixes = r.fixes.map((f) => [FIXES.indexOf(f.fix), MODEL_NAMES.indexOf(f.model), b(f.applicable), sig(f.baselineSeconds), sig(f.seconds)]);
  const curve = r.curve ? r.curve.series.map((s) => [MODEL_NAMES.indexOf(s.model), sig(s.parts.fixed), sig(s.parts.linear), sig(s.parts.stepping)]) : null;
  return [
    SIM_SHARE_MAGIC,
    [d.code, KINDS.indexOf(r.workload.kind), r.workload.operations, r.workload.transactions],
    [b(d.options.warnAmbiguousRefs), b(d.options.autoCompaction), d.options.factor],
    [r.input.kind === 'files' ? 1 : 0, d.tables, r.input.liveRefs, r.input.tombstones],
    models, fixes, r.curve ? r.curve.simulatedN : null, curve,
  ];
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const numOrNull = (v: unknown): number | null => (isNum(v) ? v : null);
const cnt = (v: unknown): number | null => (isNum(v) && v >= 0 ? v : null);

/** The sharer's results from a link's simulation value, or null when it is not in this layout. */
export function sharedSimulation(v: unknown): SimDisplay | null {
  if (!Array.isArray(v) || v[0] !== SIM_SHARE_MAGIC || v.length < 8) return null;
  const [, wl, opt, inp, models, fixes, simN, curve] = v as unknown[];
  if (!Array.isArray(wl) || !Array.isArray(opt) || !Array.isArray(inp) || !Array.isArray(models) || !Array.isArray(fixes)) return null;
  const code = isNum(wl[0]) && wl[0] >= 0 && wl[0] <= 9 ? wl[0] : 0;
  const kind = KINDS[isNum(wl[1]) ? wl[1] : 0] ?? 'updates';
  const operations = cnt(wl[2]) ?? 0;
  const transactions = cnt(wl[3]) ?? 0;
  const model = (i: unknown): ModelName | null => (isNum(i) ? MODEL_NAMES[i] ?? null : null);
  const results: ModelResult[] = [];
  for (const m of models) {
    if (!Array.isArray(m)) return null;
    const name = model(m[0]);
    if (!name) return null;
    const p = MODELS[name];
    const applicable = m[1] === 1;
    const phases = Array.isArray(m[9]) ? m[9] : [];
    const ph: ModelResult['phases'] = [];
    for (let i = 0; i + 1 < phases.length; i += 2) {
      const phase = isNum(phases[i]) ? PHASES[phases[i] as number] : undefined;
      const s = numOrNull(phases[i + 1]);
      if (phase && s !== null) ph.push({ phase: phase as Phase, seconds: s, counts: null as unknown as Counts });
    }
    results.push({
      model: name, versions: p.versions, summary: p.summary, applicable,
      reason: applicable ? null : 'the model does not apply to the sharer’s input',
      seconds: numOrNull(m[2]), seeks: cnt(m[3]), blocksRead: cnt(m[4]), recordsDecoded: cnt(m[5]), tombstonesSkipped: cnt(m[6]),
      counts: null, phases: ph, errors: [], errorCount: cnt(m[8]) ?? 0, tablesAfter: cnt(m[7]),
    });
  }
  const fx: FixResult[] = [];
  for (const f of fixes) {
    if (!Array.isArray(f)) return null;
    const fix = isNum(f[0]) ? FIXES[f[0]] : undefined;
    const m = model(f[1]);
    if (!fix || !m) continue;
    const base = numOrNull(f[3]) ?? 0;
    const s = f[2] === 1 ? numOrNull(f[4]) : null;
    fx.push({ fix, label: FIX_LABELS[fix], model: m, applicable: s !== null, baselineSeconds: base, seconds: s, speedup: s !== null && s > 0 ? base / s : null, note: '' });
  }
  let cd: SimulationResult['curve'] = null;
  if (isNum(simN) && Array.isArray(curve)) {
    const series = [];
    for (const c of curve) {
      if (!Array.isArray(c)) continue;
      const m = model(c[0]);
      const parts = { fixed: numOrNull(c[1]) ?? 0, linear: numOrNull(c[2]) ?? 0, stepping: numOrNull(c[3]) ?? 0 };
      if (m) series.push({ model: m, ...curveFromParts(CURVE_N, simN, parts), parts });
    }
    cd = { n: CURVE_N.slice(), simulatedN: simN, series };
  }
  const isFiles = inp[0] === 1;
  const tables = cnt(inp[1]) ?? 0;
  const result: SimulationResult = {
    schema: 'refscope.simulation/1', generator: '',
    input: {
      kind: isFiles ? 'files' : 'reftable', description: 'the sharer’s stack', tables: [],
      liveRefs: cnt(inp[2]) ?? 0, tombstones: cnt(inp[3]) ?? 0, brokenTables: [],
    },
    workload: { kind, description: workloadLabel(code, operations, transactions), operations, transactions },
    constants: null as unknown as SimulationResult['constants'],
    results, fixes: fx, explanation: '', curve: cd,
  };
  const d: SimDisplay = {
    source: 'shared', result, code, tables,
    options: { warnAmbiguousRefs: opt[0] !== 0, autoCompaction: opt[1] !== 0, factor: isNum(opt[2]) ? opt[2] : 2 },
  };
  result.explanation = sharedExplanation(d);
  return d;
}

const PHASE_WORDS: Record<Phase, string> = {
  startup: 'process start-up', transaction: 'transaction overhead', parse: 'dwim reads of object ids (ambiguity check)',
  reads: 'the per-update reads', availability: 'name-availability checks', write: 'writing the updated refs',
  compaction: 'auto-compaction', lookups: 'the reads', scans: 'the scans', objects: 'the object-id lookups',
};

/** Words for a phase. */
export function phaseWords(p: Phase): string {
  return PHASE_WORDS[p];
}

function big(v: number): string {
  if (v >= 1e9) return `${(v / 1e9).toFixed(1)} billion`;
  if (v >= 1e6) return `${(v / 1e6).toFixed(1)} million`;
  return Math.round(v).toLocaleString('en-US');
}

/** The plain-words paragraph for results rebuilt from a link (the sharer's own text is not in it). */
function sharedExplanation(d: SimDisplay): string {
  const r = d.result;
  const ok = r.results.filter((m) => m.applicable && m.seconds !== null);
  if (!ok.length) return 'No model applied to the sharer’s input.';
  const n = (v: number) => Math.round(v).toLocaleString('en-US');
  const parts: string[] = [];
  const where = r.input.kind === 'files'
    ? `a files-backend repository (${n(r.input.liveRefs)} refs)`
    : `a stack of ${n(d.tables)} table${d.tables === 1 ? '' : 's'} (${n(r.input.liveRefs)} live refs, ${n(r.input.tombstones)} tombstones)`;
  const desc = r.workload.description;
  parts.push(`The sharer simulated: ${desc} on ${where}: ${ok.map((m) => `${MODELS[m.model].versions} ${fmtSeconds(m.seconds)}`).join(', ')}.`);
  const worst = ok.reduce((a, c) => (c.seconds! > a.seconds! ? c : a));
  const top = worst.phases.filter((p) => p.phase !== 'startup').sort((a, c) => c.seconds - a.seconds).slice(0, 3);
  if (top.length && worst.seconds) {
    parts.push(`With ${MODELS[worst.model].versions} the time goes to ${top.map((p) => `${PHASE_WORDS[p.phase]} (${Math.round((100 * p.seconds) / worst.seconds!)} %)`).join(', ')}.`);
  }
  if (worst.tombstonesSkipped && worst.tombstonesSkipped > 0 && r.workload.operations > 0) {
    parts.push(`${big(worst.tombstonesSkipped)} tombstones stepped over in all, about ${n(worst.tombstonesSkipped / r.workload.operations)} per operation${worst.recordsDecoded ? `, and ${big(worst.recordsDecoded)} records decoded` : ''}.`);
  }
  const gain = (f: FixResult) => (f.speedup !== null && f.speedup >= 1.05 ? ` (${fmtGain(f.speedup)})` : '');
  for (const f of r.fixes) {
    const v = MODELS[f.model].versions;
    if (f.seconds === null) {
      if (f.fix === 'auto-compaction') parts.push('Auto-compaction will not help: git’s rule, comparing byte sizes, merges nothing on this stack.');
      continue;
    }
    switch (f.fix) {
      case 'pack-refs': parts.push(`\`git pack-refs\` would make it ${fmtSeconds(f.seconds)} with ${v}${gain(f)}.`); break;
      case 'auto-compaction': parts.push(`git’s auto-compaction would make it ${fmtSeconds(f.seconds)}${gain(f)}.`); break;
      case 'auto-compaction-by-records': parts.push(`Compared by record counts instead, auto-compaction would merge tables: ${fmtSeconds(f.seconds)}${gain(f)}.`); break;
      case 'newer-git': parts.push(`git 2.56 would take ${fmtSeconds(f.seconds)}${gain(f)}.`); break;
      case 'no-warn-ambiguous-refs':
        if (f.speedup) parts.push(`\`-c core.warnAmbiguousRefs=false\` saves ${Math.round(100 * (1 - 1 / f.speedup))} % with ${v} (${fmtSeconds(f.seconds)}).`);
        break;
    }
  }
  return parts.join(' ');
}
