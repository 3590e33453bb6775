/**
 * simulate: replay a batch of ref updates or lookups on the real tables, per git version, and say
 * what would fix it. Public API for the CLI (`refscope simulate`) and the UI (through
 * the worker): build a `Simulator` once per analysed input, then `run` workloads on it.
 *
 *   const sim = Simulator.fromAnalysis(analysis);
 *   const w = sim.parseSpec('recreate');            // or sim.parseStdin(bytes, { z: false })
 *   const result = sim.run(w, { models: ['git-2.49', 'git-2.56'] });   // refscope.simulation/1
 *
 * The result is plain data (docs/simulation.md); nothing in it refers back to the tables.
 */
import type { Analysis } from '../analyze.ts';
import type { Stack } from '../reftable/stack.ts';
import type { MergedView } from '../reftable/merged.ts';
import { GENERATOR } from '../version.ts';
import { type FilesRepo } from '../files.ts';
import { gitAutoCompaction, geometryByCount } from '../reftable/auto-compaction.ts';
import { displayName } from '../basics.ts';
import { blocksRead, PHASES, type Counts, type Phase } from './counts.ts';
import {
  CONSTANTS,
  COST_PARTS,
  constantsFor,
  scaleConstants,
  seconds,
  secondsByPart,
  secondsByPhase,
  type CostPart,
  type TimeConstants,
} from './constants.ts';
import { parseGitVersion, type GitVersionInfo } from './gitversion.ts';
import { FastEngine } from './engine.ts';
import { fmtSpeedup } from './format.ts';
import { runReftable, type RunResult } from './run.ts';
import { runFiles, filesStoreFrom, type FilesStore } from './files-model.ts';
import { MODELS, MODEL_NAMES, type ModelName } from './models.ts';
import { SimStore, SimState, type RecValue } from './state.ts';
import { buildCurve, CURVE_N, type CurveData } from './curve.ts';
import {
  parseUpdateRefStdin,
  parseWorkloadSpec,
  generateWorkload,
  workloadSize,
  bytesToLatin1,
  type Workload,
  type StackFacts,
} from './workload.ts';

export { fmtSpeedup } from './format.ts';
export { SimulationLimitError } from './run.ts';
export { MODELS, MODEL_NAMES, type ModelName, type ModelProfile } from './models.ts';
export {
  CONSTANTS,
  type TimeConstants,
  seconds,
  constantsFor,
  secondsByPart,
  scaleConstants,
  COST_PARTS,
  COST_PART_WORDS,
  type CostPart,
} from './constants.ts';
export { parseGitVersion, modelForRelease, TOMBSTONE_FIX, type GitVersionInfo } from './gitversion.ts';
export { CALIBRATION, CASE2, fitConstants, fitLooseWrite } from './calibrate.ts';
export {
  parseUpdateRefStdin,
  parseWorkloadSpec,
  SpecError,
  type Workload,
  type Transaction,
  type RefUpdate,
} from './workload.ts';
export { type Counts, type Phase } from './counts.ts';
export { type CurveData, type CurveSeries, CURVE_N } from './curve.ts';

export const SIMULATION_SCHEMA = 'refscope.simulation/1';

/** What the simulator runs on. */
export type SimInput =
  | { kind: 'reftable'; stack: Stack; merged: MergedView; description: string }
  | { kind: 'files'; repo: FilesRepo; description: string };

/** Options of `Simulator.run`. */
export interface SimulateOptions {
  /** Models to run (default: all five; the ones that do not apply to the input report why). */
  models?: ModelName[];
  /** `core.warnAmbiguousRefs` (default true; false is also offered as a fix). */
  warnAmbiguousRefs?: boolean;
  /** Run git's auto-compaction after each commit (default true). */
  autoCompaction?: boolean;
  /** `reftable.geometricFactor` (default 2). */
  factor?: number;
  /** Compute "what would fix it" (default true). */
  fixes?: boolean;
  /** Compute the curve (default true). */
  curve?: boolean;
  /** Time constants (default: the calibrated ones). */
  constants?: TimeConstants;
  /** `core.logAllRefUpdates`: each ref written also gets a reflog entry (default false, as in a bare repository). */
  reflogs?: boolean;
  /**
   * The model the fixes are computed against: the user's git (from `--git-version`, gitversion.ts).
   * Default: the oldest reftable model requested.
   */
  baseline?: ModelName;
  /**
   * The user's \`git --version\` line: picks the baseline model (gitversion.ts) and is reported
   * back in \`gitVersion\`. Throws Error when it holds no version.
   */
  gitVersion?: string;
  /** This machine's factor (measured ÷ predicted, from a measure file): every constant scaled by it. */
  machineFactor?: number;
  /**
   * Wall-clock budget of one `run` in ms (every model, fixes and curve), default unlimited; past
   * it the run throws `SimulationLimitError`. The CLI and the web app's worker set 60,000.
   */
  budgetMs?: number;
  /** Called with the operations replayed so far by the model running (every 64 operations). */
  onProgress?: (model: string, done: number, total: number) => void;
}

/** Seconds of one phase. */
export interface PhaseResult {
  phase: Phase;
  seconds: number;
  counts: Counts;
}

/** Seconds of one part of the cost (ref store, objects, reflogs, files, …): the breakdown. */
export interface PartResult {
  part: CostPart;
  seconds: number;
  /** Share of the model's total, 0–1. */
  share: number;
  /** The part is priced from constants measured elsewhere, not from the input (objects: refscope reads no objects). */
  estimate: boolean;
}

/** One model's result (`results[]`). Counters are null when the model does not apply. */
export interface ModelResult {
  model: ModelName;
  versions: string;
  summary: string;
  applicable: boolean;
  /** Why the model does not apply (null when it does). */
  reason: string | null;
  seconds: number | null;
  seeks: number | null;
  blocksRead: number | null;
  recordsDecoded: number | null;
  tombstonesSkipped: number | null;
  /** Every counter (counts.ts), null when not applicable. */
  counts: Counts | null;
  /** Non-zero phases, in order. */
  phases: PhaseResult[];
  /** Where the time goes outside and inside the ref store (non-zero parts, in COST_PARTS order). */
  parts?: PartResult[];
  /** What git would refuse (first 20) and how many. */
  errors: string[];
  errorCount: number;
  /** Tables in the stack after the workload (reftable). */
  tablesAfter: number | null;
  /** Lookup workloads (reftable models): point reads that found a live ref; null otherwise. */
  found?: number | null;
  /** Lookup workloads (reftable models): point reads that found no ref; null otherwise. */
  notFound?: number | null;
}

/** One "what would fix it" entry. */
export interface FixResult {
  fix: 'pack-refs' | 'auto-compaction' | 'auto-compaction-by-records' | 'newer-git' | 'no-warn-ambiguous-refs';
  label: string;
  /** The model the fix is applied to (its seconds are `baselineSeconds`). */
  model: ModelName;
  applicable: boolean;
  baselineSeconds: number;
  seconds: number | null;
  /** baselineSeconds / seconds: the gain on the total (ref store and everything outside it). */
  speedup: number | null;
  /** The gain on the ref store's part alone (what the fix changes; the total moves less). */
  refStoreSpeedup?: number | null;
  note: string;
}

/** The `refscope.simulation/1` document. */
export interface SimulationResult {
  schema: typeof SIMULATION_SCHEMA;
  generator: string;
  input: {
    kind: 'reftable' | 'files';
    description: string;
    /** Tables (reftable) oldest first: name, bytes, records, tombstones. */
    tables: { name: string; bytes: number; records: number; tombstones: number }[];
    liveRefs: number;
    tombstones: number;
    /** Tables that could not be read (left out of the simulation). */
    brokenTables: string[];
  };
  workload: { kind: Workload['kind']; description: string; operations: number; transactions: number };
  constants: TimeConstants;
  /** The user's git (\`gitVersion\` option), mapped to a model; null when not given. */
  gitVersion?: GitVersionInfo | null;
  /** How the parts outside the ref store are priced, in words (objects are never read: an estimate). */
  outsideNote?: string;
  results: ModelResult[];
  fixes: FixResult[];
  explanation: string;
  curve: CurveData | null;
}

/** Build the input from an analysis: its reftable stack, or its files-backend repository. */
export function simInputFromAnalysis(a: Analysis): SimInput {
  if (a.stack) return { kind: 'reftable', stack: a.stack, merged: a.merged, description: a.input.description };
  return { kind: 'files', repo: a.files, description: a.input.description };
}

type LiveRef = { name: string; oid: string | null; target: string | null };

/** The simulator for one input. */
export class Simulator {
  readonly input: SimInput;
  private base: SimStore | null = null;
  private files: FilesStore | null = null;
  private stores = new WeakMap<Workload, SimStore>();
  /** Queries the simulator answered in all runs so far (SimState.steps): its own work, counted. */
  steps = 0;
  /** Deadline of the `run` in progress (ms since the epoch), from `SimulateOptions.budgetMs`. */
  private deadline: number | undefined;

  constructor(input: SimInput) {
    this.input = input;
    if (input.kind === 'reftable') this.base = new SimStore({ stack: input.stack, merged: input.merged });
    else this.files = filesStoreFrom(input.repo);
  }

  static fromAnalysis(a: Analysis): Simulator {
    return new Simulator(simInputFromAnalysis(a));
  }

  /** Hex digits of an object id in this repository. */
  get hexLength(): number {
    return this.base ? this.base.hexLength : this.files!.hexLength;
  }

  /** The stack facts generators need. */
  facts(): StackFacts {
    if (this.base) return storeFacts(this.base);
    return filesFacts(this.input.kind === 'files' ? this.input.repo : null, this.files!);
  }

  /** Parse `git update-ref --stdin` input (bytes or a byte string). */
  parseStdin(input: Uint8Array | string, opts: { z?: boolean; file?: string } = {}): Workload {
    const text = typeof input === 'string' ? input : bytesToLatin1(input);
    const txs = parseUpdateRefStdin(text, { ...opts, hexLength: this.hexLength });
    const n = txs.reduce((s, t) => s + t.updates.length, 0);
    return {
      kind: 'updates',
      description: `update-ref --stdin${opts.z ? ' -z' : ''}: ${fmt(n)} update${n === 1 ? '' : 's'} in ${fmt(txs.length)} transaction${txs.length === 1 ? '' : 's'}`,
      transactions: txs,
    };
  }

  /** A generated workload from a spec (`recreate`, `create:1000:refs/heads/x/`, …). Throws SpecError. */
  parseSpec(spec: string): Workload {
    return generateWorkload(parseWorkloadSpec(spec), this.facts());
  }

  /** The store for a workload (the universe must hold every name it writes). */
  private storeFor(w: Workload): SimStore {
    const base = this.base!;
    if (w.kind !== 'updates') return base;
    let s = this.stores.get(w);
    if (s) return s;
    const names: string[] = [];
    for (const t of w.transactions) for (const u of t.updates) names.push(u.ref);
    const input = this.input as Extract<SimInput, { kind: 'reftable' }>;
    s = base.hasAll(names) ? base : new SimStore({ stack: input.stack, merged: input.merged }, names);
    this.stores.set(w, s);
    return s;
  }

  /** Run one model on a state (reftable) or the files store. */
  private runModel(model: ModelName, w: Workload, opts: SimulateOptions, state?: SimState): RunResult {
    const o = {
      warnAmbiguousRefs: opts.warnAmbiguousRefs,
      autoCompaction: opts.autoCompaction,
      factor: opts.factor,
      deadline: this.deadline,
      budgetMs: opts.budgetMs,
      reflogs: opts.reflogs,
      onProgress: opts.onProgress,
    };
    if (model === 'files') return runFiles(this.files!, w, o);
    const st = state ?? new SimState(this.storeFor(w));
    const before = st.steps;
    const r = runReftable(new FastEngine(st), MODELS[model], w, this.hexLength, o);
    this.steps += st.steps - before;
    return r;
  }

  /** Simulate a workload: results per model, fixes, explanation, curve. */
  run(w: Workload, opts: SimulateOptions = {}): SimulationResult {
    this.deadline = opts.budgetMs !== undefined && opts.budgetMs > 0 ? Date.now() + opts.budgetMs : undefined;
    const gv = opts.gitVersion !== undefined ? parseGitVersion(opts.gitVersion) : null;
    if (gv && opts.baseline === undefined && gv.model) opts = { ...opts, baseline: gv.model };
    const k =
      opts.machineFactor !== undefined
        ? scaleConstants(opts.constants ?? CONSTANTS, opts.machineFactor)
        : (opts.constants ?? CONSTANTS);
    const models = opts.models ?? MODEL_NAMES;
    const isReftable = this.input.kind === 'reftable';
    const runs = new Map<ModelName, RunResult>();
    const results: ModelResult[] = [];
    for (const m of MODEL_NAMES) {
      if (!models.includes(m)) continue;
      const p = MODELS[m];
      const applies = isReftable ? p.backend === 'reftable' : p.backend === 'files';
      if (!applies) {
        results.push(
          notApplicable(
            m,
            isReftable
              ? 'the files model needs a packed-refs file or a files-backend .git directory; the input is a reftable stack'
              : 'reftable models need a reftable stack; the input is a files-backend repository',
          ),
        );
        continue;
      }
      const r = this.runModel(m, w, opts);
      runs.set(m, r);
      results.push(modelResult(m, r, k, w.kind));
    }
    const fixes = opts.fixes === false || !isReftable ? [] : this.fixes(w, opts, runs, k);
    const ops = workloadSize(w);
    const curve =
      opts.curve === false || ops === 0
        ? null
        : buildCurve(
            [...runs].map(([model, r]) => ({ model, total: r.total })),
            ops,
            k,
            CURVE_N,
            this.input.kind === 'reftable' ? this.input.merged.tombstones : 0,
            w.kind,
          );
    const input = this.describe();
    const res: SimulationResult = {
      schema: SIMULATION_SCHEMA,
      generator: GENERATOR,
      input,
      workload: {
        kind: w.kind,
        description: w.description,
        operations: ops,
        transactions: w.kind === 'updates' ? w.transactions.length : 0,
      },
      constants: k,
      gitVersion: gv,
      outsideNote: outsideNote(k, opts),
      results,
      fixes,
      explanation: '',
      curve,
    };
    res.explanation = explain(res, w);
    return res;
  }

  private describe(): SimulationResult['input'] {
    if (this.input.kind === 'reftable') {
      const { stack, merged, description } = this.input;
      const tables = stack.tables
        .filter((t) => t)
        .map((t) => ({ name: t!.name, bytes: t!.fileSize, records: t!.refs.count, tombstones: t!.counts.tombstone }));
      return {
        kind: 'reftable',
        description,
        tables,
        liveRefs: merged.live,
        tombstones: merged.tombstones,
        brokenTables: stack.broken.map((b) => b.name),
      };
    }
    const f = this.files!;
    return {
      kind: 'files',
      description: this.input.description,
      tables: [],
      liveRefs: new Set([...f.packed, ...f.loose]).size,
      tombstones: 0,
      brokenTables: [],
    };
  }

  /** What would fix it, for the oldest reftable model run (the baseline). */
  private fixes(w: Workload, opts: SimulateOptions, runs: Map<ModelName, RunResult>, k: TimeConstants): FixResult[] {
    const order: ModelName[] = ['git-2.49', 'git-2.55', 'git-2.56'];
    const baseModel = opts.baseline && order.includes(opts.baseline) ? opts.baseline : order.find((m) => runs.has(m));
    if (!baseModel) return [];
    const kb = constantsFor(k, baseModel, w.kind);
    if (!runs.has(baseModel)) runs = new Map([...runs, [baseModel, this.runModel(baseModel, w, opts)]]);
    const base = seconds(runs.get(baseModel)!.total, kb);
    const baseStore = secondsByPart(runs.get(baseModel)!.total, kb).refStore;
    const out: FixResult[] = [];
    // Each fix's seconds come with its ref-store part (the second value of \`time\`).
    let lastStore: number | null = null;
    const time = (r: RunResult, kk: TimeConstants): number => {
      lastStore = secondsByPart(r.total, kk).refStore;
      return seconds(r.total, kk);
    };
    const mk = (fix: FixResult['fix'], label: string, s: number | null, note: string): FixResult => {
      const st = s === null ? null : lastStore;
      lastStore = null;
      return {
        fix,
        label,
        model: baseModel,
        applicable: s !== null,
        baselineSeconds: base,
        seconds: s,
        speedup: s !== null && s > 0 ? base / s : null,
        refStoreSpeedup: st !== null && st > 0 ? baseStore / st : null,
        note,
      };
    };
    const store = this.storeFor(w);
    // pack-refs: everything into one table, tombstones and shadowed records dropped.
    {
      const st = new SimState(store);
      const before = st.tables.length;
      const r = st.packAll();
      const s = time(this.runModel(baseModel, w, opts, st), kb);
      out.push(
        mk(
          'pack-refs',
          'git pack-refs (refscope compact)',
          s,
          `${before} table${before === 1 ? '' : 's'} merged into one of ${fmt(r.written)} record${r.written === 1 ? '' : 's'}; ${fmt(r.dropped)} tombstone${r.dropped === 1 ? '' : 's'} dropped`,
        ),
      );
    }
    // git's auto-compaction (geometric rule on byte sizes).
    const sizes = store.tables.map((t) => t.fileSize);
    const versions = store.tables.map((t) => t.version);
    const g = sizes.length >= 2 ? gitAutoCompaction(sizes, versions, opts.factor ?? 2) : null;
    if (g?.segment) {
      const st = new SimState(store);
      const r = st.compact(g.segment.start, g.segment.end);
      const s = time(this.runModel(baseModel, w, opts, st), kb);
      out.push(
        mk(
          'auto-compaction',
          'git pack-refs --auto (geometric rule, by bytes)',
          s,
          `merges tables ${g.segment.start}–${g.segment.end}${g.segment.start === 0 ? ', from the base: ' + fmt(r.dropped) + ' tombstones dropped' : ', not from the base: tombstones carried forward'}`,
        ),
      );
    } else {
      const why =
        sizes.length < 2
          ? 'a single table: nothing to compact'
          : `git compares byte sizes and finds the sequence geometric (${g!.netSizes.map(fmt).join(', ')} net bytes, each ≥ ${opts.factor ?? 2}× the next newer one): nothing is compacted`;
      out.push(mk('auto-compaction', 'git pack-refs --auto (geometric rule, by bytes)', null, why));
      // The same rule on record counts (proposed on the list, not what git does).
      const counts = store.tables.map((t) => t.count + t.logRecords);
      const gc = counts.length >= 2 ? geometryByCount(counts, opts.factor ?? 2) : null;
      if (gc?.segment) {
        const st = new SimState(store);
        st.compact(gc.segment.start, gc.segment.end);
        const s = time(this.runModel(baseModel, w, opts, st), kb);
        out.push(
          mk(
            'auto-compaction-by-records',
            'auto-compaction if it compared record counts (not what git does)',
            s,
            `by record counts (${counts.map(fmt).join(', ')}) the rule would merge tables ${gc.segment.start}–${gc.segment.end}`,
          ),
        );
      }
    }
    // A newer git.
    if (baseModel !== 'git-2.56') {
      const r = runs.get('git-2.56') ?? this.runModel('git-2.56', w, opts);
      out.push(
        mk(
          'newer-git',
          'git 2.56 (tombstones reach the caller, which stops at its bound)',
          time(r, constantsFor(k, 'git-2.56', w.kind)),
          `the same stack and workload with ${MODELS['git-2.56'].versions}`,
        ),
      );
    }
    // core.warnAmbiguousRefs=false (git ≤ 2.49 update-ref).
    if (baseModel === 'git-2.49' && w.kind === 'updates' && (opts.warnAmbiguousRefs ?? true)) {
      const dw = runs.get('git-2.49')!.phases.parse;
      if (dw.mergedSeeks > 0) {
        const r = this.runModel('git-2.49', w, { ...opts, warnAmbiguousRefs: false });
        out.push(
          mk(
            'no-warn-ambiguous-refs',
            'git -c core.warnAmbiguousRefs=false update-ref',
            time(r, kb),
            `skips the ${fmt(dw.mergedSeeks)} dwim reads of object ids (git 2.50 skips them in update-ref anyway)`,
          ),
        );
      }
    }
    return out;
  }
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function notApplicable(m: ModelName, reason: string): ModelResult {
  const p = MODELS[m];
  return {
    model: m,
    versions: p.versions,
    summary: p.summary,
    applicable: false,
    reason,
    seconds: null,
    seeks: null,
    blocksRead: null,
    recordsDecoded: null,
    tombstonesSkipped: null,
    counts: null,
    phases: [],
    parts: [],
    errors: [],
    errorCount: 0,
    tablesAfter: null,
    found: null,
    notFound: null,
  };
}

function modelResult(m: ModelName, r: RunResult, kAll: TimeConstants, kind: Workload['kind']): ModelResult {
  const p = MODELS[m];
  const k = constantsFor(kAll, m, kind);
  const byPhase = secondsByPhase(r.phases, k);
  const phases: PhaseResult[] = PHASES.filter((ph) => byPhase[ph] > 0).map((ph) => ({
    phase: ph,
    seconds: byPhase[ph],
    counts: r.phases[ph],
  }));
  const t = r.total;
  return {
    model: m,
    versions: p.versions,
    summary: p.summary,
    applicable: true,
    reason: null,
    seconds: seconds(t, k),
    // The files backend has no tables: its work is in counts (loose reads and writes, packed-refs
    // probes and records), and the reftable columns are null rather than a misleading 0.
    ...(p.backend === 'files'
      ? { seeks: null, blocksRead: null, recordsDecoded: null, tombstonesSkipped: null }
      : {
          seeks: t.seeks + t.logSeeks,
          blocksRead: blocksRead(t),
          recordsDecoded: t.recordsDecoded,
          tombstonesSkipped: t.tombstonesSkipped,
        }),
    counts: t,
    phases,
    parts: partsOf(t, k),
    errors: r.errors,
    errorCount: r.errorCount,
    tablesAfter: p.backend === 'reftable' ? r.tablesAfter : null,
    found: r.lookups?.found ?? null,
    notFound: r.lookups?.notFound ?? null,
  };
}

/** The breakdown of counted work into parts. */
export function partsOf(t: Counts, k: TimeConstants): PartResult[] {
  const by = secondsByPart(t, k);
  const total = COST_PARTS.reduce((s, p) => s + by[p], 0);
  return COST_PARTS.filter((p) => by[p] > 0).map((p) => ({
    part: p,
    seconds: by[p],
    share: total > 0 ? by[p] / total : 0,
    estimate: p === 'objects',
  }));
}

/** How the work outside the ref store is priced (the objects are an estimate: refscope reads no objects). */
function outsideNote(k: TimeConstants, opts: SimulateOptions): string {
  // Two significant digits, in µs below a millisecond and in ms above (never "8.6e+2 µs").
  const us = (s: number) =>
    s >= 1e-3 ? `${Number((s * 1e3).toPrecision(2))} ms` : `${Number((s * 1e6).toPrecision(2))} µs`;
  return (
    `Outside the ref store: each new object id is checked in the object database (${us(k.perObjectCheck)} per distinct id), ` +
    `each transaction locks, writes and renames (${us(k.perTransaction)}), each process starts (${us(k.startup)})` +
    `${opts.reflogs ? `, each reflog entry ${us(k.perReflog)}` : ''}. ` +
    'refscope reads no objects, so the objects part is an estimate: it was measured on a 33,000-commit pack on the test machine; ' +
    'in a large repository (a pack of gigabytes, cold caches, long delta chains) it can be several times larger — up to about 5× by the pack index depth and cache misses. ' +
    'The measure script (refscope export --format measure) times it with your git.' +
    (opts.machineFactor !== undefined
      ? ` Times scaled by this machine's factor ${opts.machineFactor.toPrecision(3)} (from a measure file).`
      : '')
  );
}

/** Stack facts from a store: live refs and winning tombstones with the values they hide. */
function storeFacts(store: SimStore): StackFacts {
  let livePos: number[] | null = null;
  let tombPos: number[] | null = null;
  const positions = () => {
    if (!livePos) {
      livePos = [];
      tombPos = [];
      for (let p = 0; p < store.keys.length; p++) {
        const w = store.winner[p];
        if (w > 0) livePos.push(p);
        else if (w === 0) tombPos.push(p);
      }
    }
    return { live: livePos, tomb: tombPos! };
  };
  // Value of the winning record at p, or (skipNewest) of the record it hides.
  const valueIn = (p: number, skipNewest: boolean): RecValue | null => {
    let skipped = !skipNewest;
    for (let i = store.tables.length - 1; i >= 0; i--) {
      const t = store.tables[i];
      let lo = 0,
        hi = t.count;
      while (lo < hi) {
        const m = (lo + hi) >>> 1;
        if (t.pos[m] < p) lo = m + 1;
        else hi = m;
      }
      if (lo < t.count && t.pos[lo] === p) {
        if (!skipped) {
          skipped = true;
          continue;
        }
        return t.types[lo] === 0 ? null : t.valueAt(lo);
      }
    }
    return null;
  };
  let liveNames: string[] | null = null;
  let tombNames: string[] | null = null;
  let keys: string[] | null = null;
  return {
    hexLength: store.hexLength,
    liveNames: () => (liveNames ??= positions().live.map((p) => store.keys[p])),
    liveValue: (i) => valueIn(positions().live[i], false) ?? { oid: null, target: null },
    tombstoneNames: () => (tombNames ??= positions().tomb.map((p) => store.keys[p])),
    hiddenValue: (i) => valueIn(positions().tomb[i], true),
    keys: () => (keys ??= store.keys.filter((_, p) => store.winner[p] >= 0)),
    has: (name) => {
      const p = store.indexOf(name);
      return p >= 0 && store.winner[p] >= 0;
    },
  };
}

/** Stack facts of a files repository: every listed ref, no tombstones. */
function filesFacts(repo: FilesRepo | null, f: FilesStore): StackFacts {
  let live: LiveRef[] | null = null;
  const all = (): LiveRef[] => {
    if (!live) {
      const m = new Map<string, LiveRef>();
      if (repo?.packed) for (const r of repo.packed.records) m.set(r.name, { name: r.name, oid: r.oid, target: null });
      for (const l of repo?.loose ?? []) {
        const c = l.content;
        m.set(l.name, {
          name: l.name,
          oid: c.kind === 'oid' ? c.oid : l.resolved,
          target: c.kind === 'symref' ? c.target : null,
        });
      }
      live = [...m.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    }
    return live;
  };
  let names: string[] | null = null;
  return {
    hexLength: f.hexLength,
    liveNames: () => (names ??= all().map((r) => r.name)),
    liveValue: (i) => ({ oid: all()[i].oid, target: all()[i].target }),
    tombstoneNames: () => [],
    hiddenValue: () => null,
    keys: () => (names ??= all().map((r) => r.name)),
    has: (name) => f.loose.has(name) || lowerStrHas(f.packed, name),
  };
}

function lowerStrHas(sorted: readonly string[], name: string): boolean {
  let lo = 0,
    hi = sorted.length;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (sorted[m] < name) lo = m + 1;
    else hi = m;
  }
  return lo < sorted.length && sorted[lo] === name;
}

function secs(s: number): string {
  if (s >= 100) return `${Math.round(s)} s`;
  if (s >= 1) return `${s.toFixed(1)} s`;
  if (s >= 0.1) return `${s.toFixed(2)} s`;
  if (s >= 0.001) return `${(s * 1000).toFixed(s >= 0.01 ? 0 : 1)} ms`;
  return `${(s * 1e6).toFixed(0)} µs`;
}
function big(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)} billion`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} million`;
  return fmt(n);
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

/** The plain-words paragraph. */
function explain(res: SimulationResult, w: Workload): string {
  const ok = res.results.filter((r) => r.applicable && r.seconds !== null);
  if (!ok.length) return 'No model applies to this input.';
  const parts: string[] = [];
  const inp = res.input;
  const where =
    inp.kind === 'reftable'
      ? `a stack of ${inp.tables.length} table${inp.tables.length === 1 ? '' : 's'} (${fmt(inp.liveRefs)} live ref${inp.liveRefs === 1 ? '' : 's'}, ${fmt(inp.tombstones)} tombstone${inp.tombstones === 1 ? '' : 's'})`
      : `a files-backend repository (${fmt(inp.liveRefs)} refs)`;
  parts.push(
    `${capital(w.description)} on ${where}: ${ok.map((r) => `${MODELS[r.model].versions} ${secs(r.seconds!)}`).join(', ')}.`,
  );
  const worst = ok.reduce((a, b) => (b.seconds! > a.seconds! ? b : a));
  // Compare git versions (the initial-transaction model is a reference point, not a version to run).
  const versions = ok.filter((r) => r.model !== 'initial');
  const best = (versions.length ? versions : ok).reduce((a, b) => (b.seconds! < a.seconds! ? b : a));
  const wc = worst.counts!;
  const top = worst.phases
    .filter((p) => p.phase !== 'startup')
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, 3);
  if (top.length) {
    parts.push(
      `With ${MODELS[worst.model].versions} the time goes to ${top.map((p) => `${PHASE_WORDS[p.phase]} (${Math.round((100 * p.seconds) / worst.seconds!)} %)`).join(', ')}.`,
    );
  }
  const ops = Math.max(1, res.workload.operations);
  if (wc.tombstonesSkipped > 10 * Math.max(1, wc.mergedSeeks)) {
    parts.push(
      `The reads land on tombstones, and up to git 2.55 the merged iterator steps over every following tombstone before it can answer, whatever the caller was looking for: ${big(wc.tombstonesSkipped)} tombstones stepped over in all, about ${fmt(wc.tombstonesSkipped / ops)} per operation, and ${big(wc.recordsDecoded)} records decoded.`,
    );
  } else if (wc.tombstonesSkipped > 0) {
    parts.push(
      `Tombstones cost little here (${big(wc.tombstonesSkipped)} stepped over in ${big(wc.mergedSeeks)} reads).`,
    );
  }
  const hasNewer = res.fixes.some((f) => f.fix === 'newer-git');
  if (worst !== best && best.seconds! > 0 && !hasNewer)
    parts.push(`${MODELS[best.model].versions} is ${fmtSpeedup(worst.seconds! / best.seconds!)} faster.`);
  for (const f of res.fixes) {
    if (f.fix === 'pack-refs' && f.seconds !== null) {
      parts.push(
        `\`git pack-refs\` (${f.note}) would make it ${secs(f.seconds)} with ${MODELS[f.model].versions}${f.speedup && f.speedup >= 1.05 ? ` (${fmtSpeedup(f.speedup)} faster)` : ''}.`,
      );
    } else if (f.fix === 'auto-compaction') {
      parts.push(
        f.seconds === null
          ? `Auto-compaction will not help: ${f.note}.`
          : `git's auto-compaction ${f.note}: ${secs(f.seconds)}${f.speedup && f.speedup >= 1.05 ? ` (${fmtSpeedup(f.speedup)} faster)` : ''}.`,
      );
    } else if (f.fix === 'auto-compaction-by-records' && f.seconds !== null) {
      parts.push(`Compared ${f.note.replace(/^by record counts /, 'by record counts instead ')}: ${secs(f.seconds)}.`);
    } else if (f.fix === 'newer-git' && f.seconds !== null && f.speedup && f.speedup >= 1.05) {
      parts.push(`git 2.56 would take ${secs(f.seconds)} (${fmtSpeedup(f.speedup)} faster).`);
    } else if (f.fix === 'no-warn-ambiguous-refs' && f.seconds !== null && f.speedup) {
      parts.push(
        `\`-c core.warnAmbiguousRefs=false\` saves ${Math.round(100 * (1 - 1 / f.speedup))} % with git ≤ 2.49 (${secs(f.seconds)}).`,
      );
    }
  }
  const errs = worst.errorCount;
  if (errs)
    parts.push(
      `Note: git would refuse ${fmt(errs)} of these updates (e.g. ${displayName(worst.errors[0])}); the estimate counts the work as if it went on.`,
    );
  if (inp.brokenTables.length) parts.push(`${inp.brokenTables.length} table(s) could not be read and are left out.`);
  return parts.join(' ');
}

function capital(s: string): string {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

/** One call: simulate a workload (spec string or workload) on an analysis. */
export function simulate(a: Analysis, workload: Workload | string, opts: SimulateOptions = {}): SimulationResult {
  const sim = Simulator.fromAnalysis(a);
  const w = typeof workload === 'string' ? sim.parseSpec(workload) : workload;
  return sim.run(w, opts);
}
