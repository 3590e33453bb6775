/**
 * The Simulator view's state (zustand), kept while the user switches views: the workload picker,
 * the pasted or opened `update-ref --stdin` input, the options, the run in progress and the last
 * result (tied to the load it was computed on). Runs go to the engine worker (`simulate`); the
 * main thread only waits.
 */
import { create } from 'zustand';
import * as Comlink from 'comlink';
import type { SimulateError, SimulateQuery } from '../../engine/session/index.ts';
import { MODEL_NAMES, type ModelName } from '../../engine/simulate/models.ts';
import { engine } from '../shell/engine.ts';
import { useApp, type Loaded } from '../shell/store.ts';
import { sharedReport } from '../share/share-open.tsx';
import { DEFAULT_FORM, formFromSpec, specOf, workloadCode, type WorkloadForm } from './simspec.ts';
import type { SimDisplay } from '../../engine/share/simulation.ts';
import { parseGitVersion, type GitVersionInfo } from '../../engine/simulate/gitversion.ts';
import { compareMeasure, readMeasureFile, type MeasureComparison } from '../../engine/simulate/measure.ts';
import { downloadText } from '../shell/download.ts';

/** `update-ref --stdin` input: typed or pasted text, or an opened/dropped file (bytes as they are). */
export interface StdinInput {
  text: string;
  z: boolean;
  file: { name: string; bytes: Uint8Array } | null;
}

/** A finished run. */
export interface SimRun extends SimDisplay {
  source: 'live';
  loadedId: number;
  runId: number;
  /** The spec run (null for stdin input). */
  spec: string | null;
  /** Milliseconds in the worker. */
  elapsed: number;
}

export interface SimOptionsForm {
  warnAmbiguousRefs: boolean;
  autoCompaction: boolean;
  factorText: string;
  /** The user's `git --version` line (remembered in localStorage); '' = not given. */
  gitVersion: string;
  /** This machine's factor from a measure file (remembered); null = none. */
  machineFactor: number | null;
}

export interface SimState {
  /** The load the picker was set up for (its defaults depend on the stack). */
  formFor: number | null;
  form: WorkloadForm;
  stdin: StdinInput;
  /** Models ticked; null = every model that applies. */
  models: ModelName[] | null;
  options: SimOptionsForm;
  busy: { runId: number; loadedId: number; started: number } | null;
  /** Why the last run ran nothing (a bad spec or stdin line), for the load it was asked on. */
  error: (SimulateError & { loadedId: number }) | null;
  last: SimRun | null;
  /** A measure file dropped or opened (refscope.measure/1), compared; or why it could not be read. */
  measured: { name: string; comparison: MeasureComparison } | { name: string; error: string } | null;
  /** The measure script being written (busy) or why it could not be. */
  measureBusy: boolean;
  measureError: string | null;
}

export const useSim = create<SimState>(() => ({
  formFor: null,
  form: DEFAULT_FORM,
  stdin: { text: '', z: false, file: null },
  models: null,
  options: {
    warnAmbiguousRefs: true,
    autoCompaction: true,
    factorText: '2',
    gitVersion: remembered(GIT_VERSION_KEY) ?? '',
    machineFactor: rememberedFactor(),
  },
  busy: null,
  error: null,
  last: null,
  measured: null,
  measureBusy: false,
  measureError: null,
}));

/** localStorage keys: the user's git and this machine's factor stay between visits (nothing leaves the page). */
export const GIT_VERSION_KEY = 'refscope.simulator.gitVersion';
export const MACHINE_FACTOR_KEY = 'refscope.simulator.machineFactor';

function remembered(key: string): string | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage.getItem(key);
  } catch {
    return null;
  }
}
function remember(key: string, v: string | null): void {
  try {
    if (typeof localStorage === 'undefined') return;
    if (v === null || v === '') localStorage.removeItem(key);
    else localStorage.setItem(key, v);
  } catch {
    /* private mode: not remembered */
  }
}
function rememberedFactor(): number | null {
  const v = Number(remembered(MACHINE_FACTOR_KEY) ?? NaN);
  return v > 0 && v < 1000 ? v : null;
}

/** Set the user's git version line (remembered). */
export function setGitVersion(line: string): void {
  remember(GIT_VERSION_KEY, line.trim());
  useSim.setState((s) => ({ options: { ...s.options, gitVersion: line } }));
}

/** Use (or drop, null) this machine's factor for the next runs (remembered). */
export function setMachineFactor(f: number | null): void {
  remember(MACHINE_FACTOR_KEY, f === null ? null : String(f));
  useSim.setState((s) => ({ options: { ...s.options, machineFactor: f } }));
}

/** What the git version field says: the model and the note, or why it is not a version line. */
export function gitVersionInfo(line: string): { info: GitVersionInfo } | { error: string } | null {
  if (!line.trim()) return null;
  try {
    return { info: parseGitVersion(line) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** Read a dropped or opened measure file (text) and compare it with the prediction it carries. */
export function loadMeasureFile(name: string, text: string): void {
  try {
    useSim.setState({ measured: { name, comparison: compareMeasure(readMeasureFile(text, name)) } });
  } catch (e) {
    useSim.setState({ measured: { name, error: (e as Error).message } });
  }
}

/** Kind of input the loaded analysis is, for the simulator. */
export function simKind(loaded: Loaded): 'reftable' | 'files' | null {
  const r = loaded.result.report;
  if (!r) return null;
  if (r.stack) return 'reftable';
  const k = r.input.kind;
  return k === 'files' || k === 'packed-refs' ? 'files' : null;
}

/** Models that apply to the input. */
export function applicableModels(kind: 'reftable' | 'files'): ModelName[] {
  return MODEL_NAMES.filter((m) => (m === 'files') === (kind === 'files'));
}

/** The workload offered first: re-creating what tombstones hide when there is any, else creating refs. */
export function defaultForm(loaded: Loaded): WorkloadForm {
  const hiding = loaded.result.report?.stack?.tombstonesHiding ?? 0;
  return hiding > 0 ? { ...DEFAULT_FORM, gen: 'recreate' } : { ...DEFAULT_FORM, gen: 'create' };
}

/**
 * Set the picker up for a load (once per load): the route's workload, else the default. Later, a
 * route naming another workload (the address edited, back/forward) picks that one.
 */
export function initFormFor(loaded: Loaded, w: string | null | undefined): void {
  const s = useSim.getState();
  if (s.formFor !== loaded.id) {
    const base = defaultForm(loaded);
    useSim.setState({ formFor: loaded.id, form: w ? formFromSpec(w, base) : base, error: null });
    return;
  }
  if (!w) return;
  const cur = specOf(s.form);
  const same = w === 'stdin' ? s.form.gen === 'stdin' : 'spec' in cur && cur.spec === w;
  if (!same) useSim.setState({ form: formFromSpec(w, s.form) });
}

/** A workload named by the address the page was opened with runs once by itself. */
let linkWorkloadPending = true;

/** True the first time it is asked (the page's first simulator), false after. */
export function takeLinkWorkload(): boolean {
  const v = linkWorkloadPending;
  linkWorkloadPending = false;
  return v;
}

/** Factor text → a factor 2..255, or null. */
export function factorOf(t: string): number | null {
  if (!/^\s*\d{1,3}\s*$/.test(t)) return null;
  const n = Number(t);
  return n >= 2 && n <= 255 ? n : null;
}

let runSeq = 0;

/** What is wrong with the picker or the options before a run, or null. */
export function runProblem(s: SimState, kind: 'reftable' | 'files'): string | null {
  const sp = specOf(s.form);
  if ('error' in sp) return sp.error;
  if (s.form.gen === 'stdin' && !s.stdin.file && !s.stdin.text.trim())
    return 'Paste `git update-ref --stdin` input, or open or drop a file with it.';
  const models = (s.models ?? applicableModels(kind)).filter((m) => applicableModels(kind).includes(m));
  if (!models.length) return 'Tick at least one model.';
  if (factorOf(s.options.factorText) === null) return 'The geometric factor is a whole number from 2 to 255.';
  const gv = gitVersionInfo(s.options.gitVersion);
  if (gv && 'error' in gv) return 'Your git: paste what `git --version` prints, e.g. "git version 2.55.0".';
  return null;
}

/** Run the picked workload on the loaded analysis in the worker. */
export async function runSimulation(): Promise<void> {
  const loaded = useApp.getState().loaded;
  if (!loaded) return;
  const kind = simKind(loaded);
  const s = useSim.getState();
  if (!kind || s.busy || runProblem(s, kind)) return;
  const sp = specOf(s.form) as { spec: string };
  const isStdin = s.form.gen === 'stdin';
  const models = (s.models ?? applicableModels(kind)).filter((m) => applicableModels(kind).includes(m));
  const factor = factorOf(s.options.factorText)!;
  const q: SimulateQuery = {
    models,
    warnAmbiguousRefs: s.options.warnAmbiguousRefs,
    autoCompaction: s.options.autoCompaction,
    factor,
    options: outsideOf(s),
  };
  const transfer: ArrayBuffer[] = [];
  if (isStdin) {
    // A copy is sent (transferred): the input stays here for the next run.
    const bytes = s.stdin.file ? s.stdin.file.bytes.slice() : new TextEncoder().encode(s.stdin.text);
    q.stdin = { bytes, z: s.stdin.z, file: s.stdin.file?.name ?? '(pasted input)' };
    transfer.push(bytes.buffer as ArrayBuffer);
  } else q.spec = sp.spec;
  const runId = ++runSeq;
  useSim.setState({ busy: { runId, loadedId: loaded.id, started: performance.now() }, error: null });
  try {
    const ans = await engine().simulate(Comlink.transfer(q, transfer));
    if (useSim.getState().busy?.runId !== runId) return;
    if (!ans.ok) {
      useSim.setState({ busy: null, error: { ...ans.error, loadedId: loaded.id } });
      return;
    }
    const r = ans.result;
    const spec = isStdin ? null : sp.spec;
    useSim.setState({
      busy: null,
      error: null,
      last: {
        source: 'live',
        result: r,
        loadedId: loaded.id,
        runId,
        spec,
        elapsed: ans.elapsed,
        code: workloadCode(spec),
        tables: r.input.tables.length,
        options: { warnAmbiguousRefs: q.warnAmbiguousRefs!, autoCompaction: q.autoCompaction!, factor },
      },
    });
    // The workload in the address, so that the link shows it (pasted input cannot travel: `stdin`).
    if (useApp.getState().loaded?.id === loaded.id && useApp.getState().route.view === 'simulator') {
      useApp.getState().navigate({ w: spec ?? 'stdin' }, { replace: true });
    }
  } catch (e) {
    if (useSim.getState().busy?.runId !== runId) return;
    useSim.setState({
      busy: null,
      error: {
        kind: 'engine',
        message: (e as Error)?.message ?? String(e),
        file: '',
        offset: -1,
        expected: '',
        line: 0,
        column: 0,
        lineText: '',
        loadedId: loaded.id,
      },
    });
  }
}

/** The run options for the user's git and this machine's factor. */
function outsideOf(s: SimState): NonNullable<SimulateQuery['options']> {
  const o: NonNullable<SimulateQuery['options']> = {};
  if (s.options.gitVersion.trim()) o.gitVersion = s.options.gitVersion.trim();
  if (s.options.machineFactor !== null) o.machineFactor = s.options.machineFactor;
  return o;
}

/**
 * "Measure with your git": the worker writes the measure script for the picked workload (with the
 * prediction for the user's git embedded); the page saves it as refscope-measure.sh.
 */
export async function downloadMeasureScript(): Promise<void> {
  const loaded = useApp.getState().loaded;
  if (!loaded) return;
  const kind = simKind(loaded);
  const s = useSim.getState();
  if (!kind || s.measureBusy || runProblem(s, kind)) return;
  const sp = specOf(s.form) as { spec: string };
  const q: SimulateQuery = {
    models: [],
    warnAmbiguousRefs: s.options.warnAmbiguousRefs,
    autoCompaction: s.options.autoCompaction,
    factor: factorOf(s.options.factorText)!,
    options: { ...outsideOf(s), machineFactor: undefined },
    measure: {},
  };
  const transfer: ArrayBuffer[] = [];
  if (s.form.gen === 'stdin') {
    const bytes = s.stdin.file ? s.stdin.file.bytes.slice() : new TextEncoder().encode(s.stdin.text);
    q.stdin = { bytes, z: s.stdin.z, file: s.stdin.file?.name ?? '(pasted input)' };
    transfer.push(bytes.buffer as ArrayBuffer);
  } else q.spec = sp.spec;
  useSim.setState({ measureBusy: true, measureError: null });
  try {
    const ans = await engine().simulate(Comlink.transfer(q, transfer));
    if (!ans.ok) {
      useSim.setState({ measureBusy: false, measureError: ans.error.message });
      return;
    }
    if (!ans.measure || 'error' in ans.measure) {
      useSim.setState({
        measureBusy: false,
        measureError: ans.measure && 'error' in ans.measure ? ans.measure.error : 'no script was written',
      });
      return;
    }
    downloadText(ans.measure.script, 'refscope-measure.sh', 'text/x-shellscript');
    useSim.setState({ measureBusy: false, measureError: null });
  } catch (e) {
    useSim.setState({ measureBusy: false, measureError: (e as Error)?.message ?? String(e) });
  }
}

/** The last run when it belongs to the analysis shown. */
export function lastRunFor(s: SimState, loaded: Loaded | null): SimRun | null {
  return loaded && s.last && s.last.loadedId === loaded.id ? s.last : null;
}

/** The sharer's simulation value for the link a load comes from, if any. */
export function sharerSimulation(loaded: Loaded | null): unknown {
  if (!loaded?.share) return null;
  const r = sharedReport(loaded);
  if (r) return r.shared.simulation ?? null;
  return loaded.sharerSimulation ?? null;
}
