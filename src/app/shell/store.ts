/**
 * App state (zustand): the current load, its progress, the samples, the route.
 * Only summaries live here; ref lists and blocks are asked from the worker page by page.
 */
import { create } from 'zustand';
import type { Capabilities, LoadProgress, LoadResult } from '../../engine/session/index.ts';
import { engine, loadInWorker, onWorkerReplaced, type WorkerInput } from './engine.ts';
import { fetchSample, fetchSamples, type SampleInfo } from './input.ts';
import { DEFAULT_ROUTE, formatRoute, isRouteHash, parseRoute, type Route } from './route.ts';

/** The analysis shown. */
export interface Loaded {
  /** Increases with every load: views use it to drop stale worker answers. */
  id: number;
  result: LoadResult;
  /** What was loaded, e.g. "sample: tombstones-50k" or "dropped folder reftable/". */
  label: string;
  sample: string | null;
  /** Where it comes from: files (default), a shared link (no files), or a synthetic stack built from one. */
  origin?: 'files' | 'shared' | 'synthetic';
  /** The share link's `s=` value while a shared report (or its synthetic stack) is shown: kept in the URL. */
  share?: string | null;
  /**
   * On a synthetic stack: the sharer's simulation results carried by the link it was rebuilt from
   * (shown next to a live run). Kept on the load itself, not gathered by a store subscription,
   * because the simulator's code may load only after the shared report is already on screen.
   */
  sharerSimulation?: unknown;
}

export interface AppState {
  status: 'idle' | 'loading' | 'ready';
  progress: LoadProgress | null;
  /** Label of the load in progress. */
  loadingLabel: string;
  loaded: Loaded | null;
  /** A problem outside any input file (sample missing, worker crashed). */
  appError: string | null;
  samples: SampleInfo[];
  capabilities: Capabilities | null;
  route: Route;
  /** True while files are dragged over the window. */
  dragging: boolean;
  /**
   * True from the page's start until `startUp` has loaded the sample the link asks for (or found
   * that there is none to load): the page shows that it is working instead of the welcome text,
   * which would flash and then give way (and shift) to the progress of the sample's analysis.
   */
  starting: boolean;

  load(inputs: WorkerInput[], label: string, sample?: string | null): Promise<void>;
  loadSample(name: string): Promise<void>;
  navigate(patch: Partial<Route>, opts?: { replace?: boolean }): void;
  setDragging(v: boolean): void;
}

let loadSeq = 0;

/** Ask the worker for what load `id` left pending, and put it into the report shown. */
async function completeDetails(id: number): Promise<void> {
  try {
    const d = await engine().details();
    const cur = useApp.getState().loaded;
    if (!cur || cur.id !== id || !cur.result.report) return;
    useApp.setState({
      loaded: {
        ...cur,
        result: {
          ...cur.result,
          pending: [],
          report: d ? { ...cur.result.report, findings: d.findings, prefixes: d.prefixes } : cur.result.report,
        },
      },
    });
  } catch (e) {
    const cur = useApp.getState().loaded;
    if (!cur || cur.id !== id) return;
    useApp.setState({
      loaded: { ...cur, result: { ...cur.result, pending: [] } },
      appError: `The engine could not finish the ref-name checks: ${(e as Error)?.message ?? String(e)}`,
    });
  }
}

/** Start a load that does not go through `load` (a shared link, a synthetic stack): its id. */
export function beginLoad(): number {
  return ++loadSeq;
}

/** True while no newer load than `id` was started. */
export function isLatestLoad(id: number): boolean {
  return id === loadSeq;
}

export const useApp = create<AppState>((set, get) => ({
  status: 'idle',
  progress: null,
  loadingLabel: '',
  loaded: null,
  appError: null,
  samples: [],
  capabilities: null,
  route: isRouteHash(location.hash) ? parseRoute(location.hash) : { ...DEFAULT_ROUTE },
  dragging: false,
  starting: true,

  async load(inputs, label, sample = null) {
    const id = ++loadSeq;
    set({ status: 'loading', progress: null, loadingLabel: label, appError: null });
    let last = 0;
    try {
      const result = await loadInWorker(inputs, (p) => {
        if (id !== loadSeq) return;
        // The worker throttles; still never re-render more than every 50 ms.
        const now = performance.now();
        if (now - last < 50 && p.phase !== 'done') return;
        last = now;
        set({ progress: p });
      });
      if (id !== loadSeq) return;
      const r = get().route;
      // A new input: keep the view, drop selections that may not exist in it.
      const keep = r.t !== null && result.report && r.t < result.report.tables.length;
      set({
        status: 'ready',
        progress: null,
        loaded: { id, result, label, sample },
        route: keep ? r : { ...r, t: null, b: null, r: null },
      });
      writeHash(get().route, true);
      // A large stack's counts came first: its name checks and prefix rows follow (the banner
      // says so meanwhile), and the findings they add join the report shown.
      if (result.pending?.length && result.report) void completeDetails(id);
    } catch (e) {
      if (id !== loadSeq) return;
      set({
        status: get().loaded ? 'ready' : 'idle',
        progress: null,
        appError: `The engine failed: ${(e as Error)?.message ?? String(e)}`,
      });
    }
  },

  async loadSample(name) {
    let samples = get().samples;
    if (!samples.length) {
      samples = await fetchSamples();
      set({ samples });
    }
    const s = samples.find((x) => x.name === name);
    if (!s) {
      set({ appError: `No built-in sample named “${name}”.` });
      return;
    }
    const caps = get().capabilities;
    if (s.requires && caps && !(caps as unknown as Record<string, boolean>)[s.requires]) {
      set({
        appError: `The sample “${s.title}” needs ${s.requires === 'filesBackend' ? 'packed-refs support' : s.requires}, which this build of the engine does not have yet.`,
      });
      return;
    }
    set({ status: 'loading', loadingLabel: `sample ${s.title}`, progress: null });
    const seq = loadSeq;
    try {
      const inputs = await fetchSample(s);
      // Something else was opened meanwhile (a drop, a launch from the OS): that one wins.
      if (loadSeq !== seq) return;
      await get().load(inputs, `sample: ${s.title}`, s.name);
    } catch (e) {
      set({ status: get().loaded ? 'ready' : 'idle', appError: `Could not load the sample: ${(e as Error).message}` });
    }
  },

  navigate(patch, opts = {}) {
    const route = { ...get().route, ...patch };
    set({ route });
    writeHash(route, !!opts.replace);
  },

  setDragging(v) {
    if (get().dragging !== v) set({ dragging: v });
  },
}));

function writeHash(route: Route, replace: boolean): void {
  // A link to a built-in sample names it, so that the link shows the same thing elsewhere.
  // A shared report keeps its link in the URL (`#s=…&view=…`, route.ts).
  const loaded = useApp.getState().loaded;
  const h = formatRoute({ ...route, sample: loaded?.sample ?? null, share: loaded?.share ?? null });
  if (h === location.hash) return;
  if (replace) history.replaceState(history.state, '', h);
  else history.pushState(history.state, '', h);
}

/** Follow back/forward and edited fragments. Foreign fragments (e.g. `#s=…`) are left alone. */
export function watchHash(): () => void {
  const on = () => {
    if (!isRouteHash(location.hash)) return;
    const route = parseRoute(location.hash);
    useApp.setState({ route });
    // `sample=` edited in the address bar of an open page: load that sample, as a fresh page would.
    const st = useApp.getState();
    if (route.sample && route.sample !== 'none' && route.sample !== st.loaded?.sample && st.status !== 'loading')
      void st.loadSample(route.sample);
  };
  window.addEventListener('hashchange', on);
  window.addEventListener('popstate', on);
  return () => {
    window.removeEventListener('hashchange', on);
    window.removeEventListener('popstate', on);
  };
}

/**
 * Whether the link loads a sample at start-up: not for `sample=none`, a foreign payload (e.g. a
 * shared report `#s=…`, handled by the share feature) or a shared comparison (`#/compare?c=…`,
 * which shows without any input).
 */
function willLoadSample(): boolean {
  if (!isRouteHash(location.hash)) return false;
  const r = parseRoute(location.hash);
  return r.sample !== 'none' && !(r.view === 'compare' && r.c);
}

/**
 * Start-up: list the samples, ask the engine what it can do, and load the default sample unless
 * the link asks for another one (`sample=<name>`), for none (`sample=none`), or carries a foreign
 * payload (e.g. a shared report `#s=…`, handled by the share feature).
 */
export async function startUp(): Promise<void> {
  const st = useApp.getState();
  try {
    // The worker starts while the sample list and the sample's files are fetched: a sample that
    // needs no particular capability does not wait for the worker's first answer.
    const caps = engine()
      .capabilities()
      .then((capabilities) => useApp.setState({ capabilities }));
    // Nothing to load: the page is ready for input at once, without waiting for the worker.
    const none = () => {
      useApp.setState({ starting: false });
      return caps;
    };
    if (!willLoadSample()) useApp.setState({ starting: false });
    const samples = await fetchSamples();
    useApp.setState({ samples });
    if (!isRouteHash(location.hash)) return await none();
    const want = st.route.sample;
    if (want === 'none') return await none();
    // A shared comparison (`#/compare?c=…`) shows without any input.
    if (st.route.view === 'compare' && st.route.c) return await none();
    if (useApp.getState().loaded || useApp.getState().status === 'loading') return await none();
    const pick = want ? samples.find((s) => s.name === want) : (samples.find((s) => s.default) ?? samples[0]);
    if (!pick) {
      if (want) useApp.setState({ appError: `No built-in sample named “${want}”.` });
      return await none();
    }
    if (pick.requires) await caps;
    await Promise.all([useApp.getState().loadSample(pick.name), caps]);
  } catch (e) {
    useApp.setState({ appError: `Start-up failed: ${(e as Error).message}` });
  } finally {
    useApp.setState({ starting: false });
  }
}

// A worker over its budget was terminated and replaced: what it held is gone, so is the report
// shown from it; the page says what happened.
onWorkerReplaced((message) => {
  loadSeq++;
  useApp.setState({ status: 'idle', progress: null, loaded: null, appError: message });
});
