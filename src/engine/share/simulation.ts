/**
 * share/simulation: the simulator's results in a link, encoded and decoded alike by the CLI and
 * the app. They travel as nested arrays of numbers only — model, phase, fix and workload as
 * codes, times to six significant digits — so no name can be in them; the receiver rebuilds a
 * `SimulationResult` (labels from the codes, the curve from its fixed/linear/stepping split, the
 * plain-words paragraph from the numbers).
 *
 * Decoding trusts nothing: every list has a length bound, every number must be finite and is
 * held to a named bound (`SIM_BOUNDS`) before any loop or chart uses it, and a value that is not
 * in this layout is no simulation at all (`sharedSimulation` returns null).
 */
import type { SimulationResult, ModelResult, FixResult } from '../simulate/index.ts';
import { MODELS, MODEL_NAMES, type ModelName } from '../simulate/models.ts';
import { PHASES, type Counts, type Phase } from '../simulate/counts.ts';
import { CURVE_N } from '../simulate/curve.ts';
import { fmtGain } from '../simulate/format.ts';

/** First number of the array: "refscope simulation results, layout 1". */
export const SIM_SHARE_MAGIC = 6001;

/**
 * Bounds of the decoded numbers. A value past its bound is clamped to it (seconds, counts) or
 * the entry is dropped (codes): a chart never sees an infinite or astronomically wide range.
 */
export const SIM_BOUNDS = {
  /** Largest seconds figure (about 31,700 years). */
  seconds: 1e12,
  /** Largest count (operations, seeks, records…). */
  count: 1e15,
  /** Largest simulated batch the curve is scaled from. */
  simulatedN: 1e9,
  /** Most model results, fixes and curve series. */
  models: MODEL_NAMES.length,
  fixes: 16,
  /** Most (phase, seconds) pairs of one model. */
  phases: PHASES.length,
  /** Largest geometric factor. */
  factor: 255,
} as const;

/** The fixes the simulator proposes, by code (the order is the link's layout). */
export const FIXES: FixResult['fix'][] = [
  'pack-refs',
  'auto-compaction',
  'auto-compaction-by-records',
  'newer-git',
  'no-warn-ambiguous-refs',
];

/**
 * The fix labels, by fix: the texts `Simulator.run` gives `FixResult.label` (simulate/index.ts
 * `fixes`); a test checks they agree.
 */
export const FIX_LABELS: Record<FixResult['fix'], string> = {
  'pack-refs': 'git pack-refs (refscope compact)',
  'auto-compaction': 'git pack-refs --auto (geometric rule, by bytes)',
  'auto-compaction-by-records': 'auto-compaction if it compared record counts (not what git does)',
  'newer-git': 'git 2.56 (tombstones reach the caller, which stops at its bound)',
  'no-warn-ambiguous-refs': 'git -c core.warnAmbiguousRefs=false update-ref',
};

const KINDS: SimulationResult['workload']['kind'][] = ['updates', 'lookups', 'scans', 'objects'];

/** Workload codes a share link carries (numbers: never a name or a prefix). */
export const WORKLOAD_CODES = [
  'stdin',
  'recreate',
  'create',
  'delete-all',
  'lookup-existing',
  'lookup-missing',
  'lookup-tombstoned',
  'lookup-names',
  'scan',
  'oid',
] as const;
export type WorkloadCode = (typeof WORKLOAD_CODES)[number];

/** The code of a workload spec (`recreate`, `lookup:missing:1000`, … docs/simulator.md); 0 for stdin input. */
export function workloadCode(spec: string | null): number {
  if (spec === null || spec === 'stdin') return 0;
  const f = spec.split(':');
  const c = f[0] === 'lookup' ? (f[1] === 'oid' ? 'oid' : `lookup-${f[1]}`) : f[0];
  const i = (WORKLOAD_CODES as readonly string[]).indexOf(c);
  return i < 0 ? 0 : i;
}

function n(v: number): string {
  return Math.round(v).toLocaleString('en-US');
}

/** A name-free description of a workload from its code and size. */
export function workloadLabel(code: number, operations: number, transactions: number): string {
  const tx =
    transactions <= 1
      ? ', one transaction'
      : transactions === operations
        ? ', one transaction per ref'
        : `, ${n(transactions)} transactions`;
  switch (WORKLOAD_CODES[code]) {
    case 'recreate':
      return `re-create the ${n(operations)} refs that tombstones hide${tx}`;
    case 'create':
      return `create ${n(operations)} new refs under one prefix${tx}`;
    case 'delete-all':
      return `delete all ${n(operations)} refs under refs/${tx}`;
    case 'lookup-existing':
      return `${n(operations)} reads of existing ref names`;
    case 'lookup-missing':
      return `${n(operations)} reads of missing ref names`;
    case 'lookup-tombstoned':
      return `${n(operations)} reads of tombstoned ref names`;
    case 'lookup-names':
      return `${n(operations)} reads of given ref names`;
    case 'scan':
      return operations === 1 ? 'a prefix scan (for-each-ref)' : `${n(operations)} prefix scans (for-each-ref)`;
    case 'oid':
      return `${n(operations)} lookups by object id`;
    default:
      return `update-ref --stdin input: ${n(operations)} updates in ${n(transactions)} transaction${transactions === 1 ? '' : 's'}`;
  }
}

/**
 * Estimated seconds in words: "1,858 s", "12.3 s", "2.37 s", "446 ms", "22.0 ms", "512 µs".
 * Three significant digits (whole seconds from 100 s); `null` or a non-finite value → "—".
 */
export function secondsText(s: number | null | undefined): string {
  if (s === null || s === undefined || !Number.isFinite(s)) return '—';
  if (s >= 99.95) return `${Math.round(s).toLocaleString('en-US')} s`;
  if (s >= 0.9995) return `${s.toPrecision(3)} s`;
  if (s >= 0.0009995) return `${(s * 1e3).toPrecision(3)} ms`;
  if (s >= 0.0000009995) return `${(s * 1e6).toPrecision(3)} µs`;
  if (s === 0) return '0 s';
  return `${(s * 1e9).toPrecision(3)} ns`;
}

/**
 * The two curves from the split of a run's seconds (`CurveSeries.parts`, docs/simulator.md
 * "Curve"), for a curve rebuilt from a link's numbers: batch and stack growing together, and the
 * stack as it is.
 */
export function curveFromParts(
  ns: readonly number[],
  w: number,
  parts: { fixed: number; linear: number; stepping: number },
): { sameShape: number[]; fixedStack: number[] } {
  const sameShape = ns.map((x) => {
    const r = x / Math.max(1, w);
    return parts.fixed + parts.linear * r + parts.stepping * r * r;
  });
  const fixedStack = ns.map((x) => parts.fixed + (parts.linear + parts.stepping) * (x / Math.max(1, w)));
  return { sameShape, fixedStack };
}

/** Run options shown next to results. */
export interface SimOptions {
  warnAmbiguousRefs: boolean;
  autoCompaction: boolean;
  factor: number;
}

/** Results as a view shows them: a run of this session, or the sharer's from a link. */
export interface SimDisplay {
  source: 'live' | 'shared';
  result: SimulationResult;
  options: SimOptions;
  /** Workload code (`WORKLOAD_CODES`). */
  code: number;
  /** Tables of the simulated stack. */
  tables: number;
}

/** The numbers-only layout a link carries (`simulationForShare`). */
export type SimShare = unknown[];

function sig(v: number | null | undefined): number | null {
  return typeof v !== 'number' || !Number.isFinite(v) ? null : Number(v.toPrecision(6));
}
const b = (v: boolean): number => (v ? 1 : 0);
const whole = (v: unknown, max: number): number =>
  typeof v === 'number' && Number.isFinite(v) ? Math.max(0, Math.min(max, Math.round(v))) : 0;

/** The numbers-only form of a run, for `shareLink(…, { simulation })`. */
export function simulationForShare(d: SimDisplay): SimShare {
  const r = d.result;
  const models = r.results
    .slice(0, SIM_BOUNDS.models)
    .map((m) => [
      MODEL_NAMES.indexOf(m.model),
      b(m.applicable),
      sig(m.seconds),
      m.seeks,
      m.blocksRead,
      m.recordsDecoded,
      m.tombstonesSkipped,
      m.tablesAfter,
      m.errorCount,
      m.phases.slice(0, SIM_BOUNDS.phases).flatMap((p) => [PHASES.indexOf(p.phase), sig(p.seconds)]),
    ]);
  const fixes = r.fixes
    .slice(0, SIM_BOUNDS.fixes)
    .map((f) => [
      FIXES.indexOf(f.fix),
      MODEL_NAMES.indexOf(f.model),
      b(f.applicable),
      sig(f.baselineSeconds),
      sig(f.seconds),
    ]);
  const curve = r.curve
    ? r.curve.series
        .slice(0, SIM_BOUNDS.models)
        .map((s) => [MODEL_NAMES.indexOf(s.model), sig(s.parts.fixed), sig(s.parts.linear), sig(s.parts.stepping)])
    : null;
  return [
    SIM_SHARE_MAGIC,
    [
      whole(d.code, WORKLOAD_CODES.length - 1),
      KINDS.indexOf(r.workload.kind),
      r.workload.operations,
      r.workload.transactions,
    ],
    [b(d.options.warnAmbiguousRefs), b(d.options.autoCompaction), d.options.factor],
    [r.input.kind === 'files' ? 1 : 0, d.tables, r.input.liveRefs, r.input.tombstones],
    models,
    fixes,
    r.curve ? r.curve.simulatedN : null,
    curve,
  ];
}

/**
 * A `refscope.simulation/1` document (what `refscope simulate --json` prints) as the link's
 * layout, for the CLI's `share --simulation <file>`. Null when the value is not such a document
 * (the CLI then says so): arbitrary JSON never reaches a link.
 */
export function simulationFromDocument(doc: unknown, spec: string | null = null): SimShare | null {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return null;
  const r = doc as Partial<SimulationResult>;
  if (
    r.schema !== 'refscope.simulation/1' ||
    !r.input ||
    !r.workload ||
    !Array.isArray(r.results) ||
    !Array.isArray(r.fixes)
  )
    return null;
  if (
    !r.results.every(
      (m) =>
        m && typeof m === 'object' && (MODEL_NAMES as readonly string[]).includes(m.model) && Array.isArray(m.phases),
    )
  )
    return null;
  if (
    !r.fixes.every(
      (f) =>
        f && typeof f === 'object' && FIXES.includes(f.fix) && (MODEL_NAMES as readonly string[]).includes(f.model),
    )
  )
    return null;
  const curve =
    r.curve &&
    typeof r.curve === 'object' &&
    Array.isArray(r.curve.series) &&
    r.curve.series.every((s) => s && s.parts && typeof s.parts === 'object')
      ? r.curve
      : null;
  try {
    const share = simulationForShare({
      source: 'live',
      code: workloadCode(spec),
      tables: Array.isArray(r.input.tables) ? r.input.tables.length : 0,
      options: { warnAmbiguousRefs: true, autoCompaction: true, factor: 2 },
      result: { ...(r as SimulationResult), curve },
    });
    return sharedSimulation(share) ? share : null;
  } catch {
    return null;
  }
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
/** A seconds figure held to [0, SIM_BOUNDS.seconds], or null. */
const secs = (v: unknown): number | null => (isNum(v) ? Math.max(0, Math.min(SIM_BOUNDS.seconds, v)) : null);
/** A count held to [0, SIM_BOUNDS.count], or null. */
const cnt = (v: unknown): number | null => (isNum(v) && v >= 0 ? Math.min(SIM_BOUNDS.count, Math.round(v)) : null);
/** An index into `list`, or undefined. */
const code = <T>(list: readonly T[], v: unknown): T | undefined =>
  isNum(v) && Number.isInteger(v) && v >= 0 && v < list.length ? list[v] : undefined;

/** The sharer's results from a link's simulation value, or null when it is not in this layout. */
export function sharedSimulation(v: unknown): SimDisplay | null {
  if (!Array.isArray(v) || v[0] !== SIM_SHARE_MAGIC || v.length < 8 || v.length > 16) return null;
  const [, wl, opt, inp, models, fixes, simN, curve] = v as unknown[];
  if (
    !Array.isArray(wl) ||
    !Array.isArray(opt) ||
    !Array.isArray(inp) ||
    !Array.isArray(models) ||
    !Array.isArray(fixes)
  )
    return null;
  if (models.length > SIM_BOUNDS.models || fixes.length > SIM_BOUNDS.fixes) return null;
  const wcode = code(WORKLOAD_CODES, wl[0]) ? (wl[0] as number) : 0;
  const kind = code(KINDS, wl[1]) ?? 'updates';
  const operations = cnt(wl[2]) ?? 0;
  const transactions = cnt(wl[3]) ?? 0;
  const model = (i: unknown): ModelName | null => code(MODEL_NAMES, i) ?? null;
  const results: ModelResult[] = [];
  for (const m of models) {
    if (!Array.isArray(m)) return null;
    const name = model(m[0]);
    if (!name) return null;
    const p = MODELS[name];
    const applicable = m[1] === 1;
    const phases = Array.isArray(m[9]) ? m[9].slice(0, 2 * SIM_BOUNDS.phases) : [];
    const ph: ModelResult['phases'] = [];
    for (let i = 0; i + 1 < phases.length; i += 2) {
      const phase = code(PHASES, phases[i]);
      const s = secs(phases[i + 1]);
      if (phase && s !== null) ph.push({ phase: phase as Phase, seconds: s, counts: null as unknown as Counts });
    }
    results.push({
      model: name,
      versions: p.versions,
      summary: p.summary,
      applicable,
      reason: applicable ? null : 'the model does not apply to the sharer’s input',
      seconds: secs(m[2]),
      seeks: cnt(m[3]),
      blocksRead: cnt(m[4]),
      recordsDecoded: cnt(m[5]),
      tombstonesSkipped: cnt(m[6]),
      counts: null,
      phases: ph,
      errors: [],
      errorCount: cnt(m[8]) ?? 0,
      tablesAfter: cnt(m[7]),
    });
  }
  const fx: FixResult[] = [];
  for (const f of fixes) {
    if (!Array.isArray(f)) return null;
    const fix = code(FIXES, f[0]);
    const m = model(f[1]);
    if (!fix || !m) continue;
    const base = secs(f[3]) ?? 0;
    const s = f[2] === 1 ? secs(f[4]) : null;
    fx.push({
      fix,
      label: FIX_LABELS[fix],
      model: m,
      applicable: s !== null,
      baselineSeconds: base,
      seconds: s,
      speedup: s !== null && s > 0 ? base / s : null,
      note: '',
    });
  }
  let cd: SimulationResult['curve'] = null;
  if (isNum(simN) && simN >= 1 && Array.isArray(curve) && curve.length <= SIM_BOUNDS.models) {
    const w = Math.min(SIM_BOUNDS.simulatedN, Math.round(simN));
    const series = [];
    for (const c of curve) {
      if (!Array.isArray(c)) continue;
      const m = model(c[0]);
      const parts = { fixed: secs(c[1]) ?? 0, linear: secs(c[2]) ?? 0, stepping: secs(c[3]) ?? 0 };
      if (!m) continue;
      // Held to the seconds bound too: the chart's axis spans the values it is given.
      const { sameShape, fixedStack } = curveFromParts(CURVE_N, w, parts);
      const hold = (xs: number[]) => xs.map((x) => Math.min(SIM_BOUNDS.seconds, x));
      series.push({ model: m, sameShape: hold(sameShape), fixedStack: hold(fixedStack), parts });
    }
    cd = { n: CURVE_N.slice(), simulatedN: w, series };
  }
  const isFiles = inp[0] === 1;
  const tables = cnt(inp[1]) ?? 0;
  const result: SimulationResult = {
    schema: 'refscope.simulation/1',
    generator: '',
    input: {
      kind: isFiles ? 'files' : 'reftable',
      description: 'the sharer’s stack',
      tables: [],
      liveRefs: cnt(inp[2]) ?? 0,
      tombstones: cnt(inp[3]) ?? 0,
      brokenTables: [],
    },
    workload: { kind, description: workloadLabel(wcode, operations, transactions), operations, transactions },
    constants: null as unknown as SimulationResult['constants'],
    results,
    fixes: fx,
    explanation: '',
    curve: cd,
  };
  const factor = isNum(opt[2]) ? Math.max(2, Math.min(SIM_BOUNDS.factor, Math.round(opt[2]))) : 2;
  const d: SimDisplay = {
    source: 'shared',
    result,
    code: wcode,
    tables,
    options: { warnAmbiguousRefs: opt[0] !== 0, autoCompaction: opt[1] !== 0, factor },
  };
  result.explanation = sharedExplanation(d);
  return d;
}

const PHASE_WORDS: Record<Phase, string> = {
  startup: 'process start-up',
  transaction: 'transaction overhead',
  parse: 'dwim reads of object ids (ambiguity check)',
  reads: 'the per-update reads',
  availability: 'name-availability checks',
  write: 'writing the updated refs',
  compaction: 'auto-compaction',
  lookups: 'the reads',
  scans: 'the scans',
  objects: 'the object-id lookups',
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
  const parts: string[] = [];
  const where =
    r.input.kind === 'files'
      ? `a files-backend repository (${n(r.input.liveRefs)} ${r.input.liveRefs === 1 ? 'ref' : 'refs'})`
      : `a stack of ${n(d.tables)} table${d.tables === 1 ? '' : 's'} (${n(r.input.liveRefs)} live ${r.input.liveRefs === 1 ? 'ref' : 'refs'}, ${n(r.input.tombstones)} ${r.input.tombstones === 1 ? 'tombstone' : 'tombstones'})`;
  const desc = r.workload.description;
  parts.push(
    `The sharer simulated: ${desc} on ${where}: ${ok.map((m) => `${MODELS[m.model].versions} ${secondsText(m.seconds)}`).join(', ')}.`,
  );
  const worst = ok.reduce((a, c) => (c.seconds! > a.seconds! ? c : a));
  const top = worst.phases
    .filter((p) => p.phase !== 'startup')
    .sort((a, c) => c.seconds - a.seconds)
    .slice(0, 3);
  if (top.length && worst.seconds) {
    parts.push(
      `With ${MODELS[worst.model].versions} the time goes to ${top.map((p) => `${PHASE_WORDS[p.phase]} (${Math.round((100 * p.seconds) / worst.seconds!)} %)`).join(', ')}.`,
    );
  }
  if (worst.tombstonesSkipped && worst.tombstonesSkipped > 0 && r.workload.operations > 0) {
    parts.push(
      `${big(worst.tombstonesSkipped)} tombstones stepped over in all, about ${n(worst.tombstonesSkipped / r.workload.operations)} per operation${worst.recordsDecoded ? `, and ${big(worst.recordsDecoded)} records decoded` : ''}.`,
    );
  }
  const gain = (f: FixResult) => (f.speedup !== null && f.speedup >= 1.05 ? ` (${fmtGain(f.speedup)})` : '');
  for (const f of r.fixes) {
    const v = MODELS[f.model].versions;
    if (f.seconds === null) {
      if (f.fix === 'auto-compaction')
        parts.push('Auto-compaction will not help: git’s rule, comparing byte sizes, merges nothing on this stack.');
      continue;
    }
    switch (f.fix) {
      case 'pack-refs':
        parts.push(`\`git pack-refs\` would make it ${secondsText(f.seconds)} with ${v}${gain(f)}.`);
        break;
      case 'auto-compaction':
        parts.push(`git’s auto-compaction would make it ${secondsText(f.seconds)}${gain(f)}.`);
        break;
      case 'auto-compaction-by-records':
        parts.push(
          `Compared by record counts instead, auto-compaction would merge tables: ${secondsText(f.seconds)}${gain(f)}.`,
        );
        break;
      case 'newer-git':
        parts.push(`git 2.56 would take ${secondsText(f.seconds)}${gain(f)}.`);
        break;
      case 'no-warn-ambiguous-refs':
        if (f.speedup)
          parts.push(
            `\`-c core.warnAmbiguousRefs=false\` saves ${Math.round(100 * (1 - 1 / f.speedup))} % with ${v} (${secondsText(f.seconds)}).`,
          );
        break;
    }
  }
  return parts.join(' ');
}
