import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useApp, type Loaded } from '../shell/store.ts';
import { fmtMs } from '../lib/format.ts';
import { loadSyntheticStack, sharedReport, SimulationResults } from '../share/share-open.tsx';
import {
  initFormFor,
  lastRunFor,
  runProblem,
  runSimulation,
  sharerSimulation,
  simKind,
  takeLinkWorkload,
  useSim,
} from './simstore.ts';
import { sharedSimulation } from '../../engine/share/simulation.ts';
import { WorkloadPicker } from './WorkloadPicker.tsx';
import { OptionsPicker } from './OptionsPicker.tsx';
import { SimErrorBox } from './SimErrorBox.tsx';
import { SimResults } from './SimResults.tsx';
import { MeasurePanel } from './MeasurePanel.tsx';
import '../compaction/compaction.css';
import './simulator.css';
import { GitVerdict, gitRefuses } from '../views/GitVerdict.tsx';

/**
 * A first visit runs the workload by itself when the address the page was opened with names one,
 * or when the stack has at most
 * this many ref records and the workload at most `AUTO_RUN_OPS` operations (well under a second);
 * bigger ones wait for the Run button (the worker is busy while it counts).
 */
const AUTO_RUN_RECORDS = 200_000;
const AUTO_RUN_OPS = 10_000;

/**
 * Simulator view: replay a batch of ref updates or lookups on these tables per git
 * version (in the worker), with the counts, the estimated time, the cost against batch size on a
 * log–log chart, what would fix it, and a paragraph in plain words. For a shared report, the
 * sharer's results (read-only); on a synthetic stack rebuilt from a link, a live simulator again.
 */
export function SimulatorView() {
  const loaded = useApp((s) => s.loaded)!;
  const shared = sharedReport(loaded);
  if (shared) return <SharedSimulator />;
  const kind = simKind(loaded);
  if (!kind) {
    return (
      <div className="panel empty-note" data-testid="simulator-view" data-state="unavailable">
        The simulator needs a reftable stack or a files-backend repository; this input is{' '}
        {loaded.result.description || loaded.result.kind}
        {loaded.result.error ? ' and could not be analysed' : ''}.
      </div>
    );
  }
  return <LiveSimulator key={loaded.id} loaded={loaded} kind={kind} />;
}

// ---------------------------------------------------------------------------------------------
// Live simulator

function LiveSimulator({ loaded, kind }: { loaded: Loaded; kind: 'reftable' | 'files' }) {
  const w = useApp((s) => s.route.w);
  const st = useSim();
  const last = lastRunFor(st, loaded);
  const busy = st.busy && st.busy.loadedId === loaded.id ? st.busy : null;
  const error = st.error && st.error.loadedId === loaded.id ? st.error : null;
  const textRef = useRef<HTMLTextAreaElement>(null);

  useLayoutEffect(() => initFormFor(loaded, w), [loaded, w]);

  // A first visit runs the workload by itself when the link names one, or when the stack is small.
  useEffect(() => {
    const s = useSim.getState();
    if (lastRunFor(s, loaded) || s.busy || (s.error && s.error.loadedId === loaded.id)) return;
    if (s.form.gen === 'stdin') {
      takeLinkWorkload();
      return;
    }
    const r = loaded.result.report;
    const records = r?.stack ? r.stack.refRecords : loaded.result.refCount;
    const ops =
      s.form.gen === 'recreate'
        ? (r?.stack?.tombstonesHiding ?? 0)
        : s.form.gen === 'delete-all'
          ? loaded.result.refCount
          : 1000;
    const fromLink = takeLinkWorkload() && !!w;
    // On a stack git cannot read nothing runs by itself: its times would not be git's.
    if (fromLink || (!gitRefuses(r) && records <= AUTO_RUN_RECORDS && ops <= AUTO_RUN_OPS)) void runSimulation();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [loaded.id]);

  const problem = runProblem(st, kind);
  const sharer = loaded.origin === 'synthetic' ? sharedSimulation(sharerSimulation(loaded)) : null;
  const refused = gitRefuses(loaded.result.report);
  return (
    <div
      className="sim-view"
      data-testid="simulator-view"
      data-state={busy ? 'busy' : last ? 'done' : 'idle'}
      data-run-id={last?.runId ?? 0}
      data-git-readable={refused ? 'false' : 'true'}
    >
      <GitVerdict
        report={loaded.result.report}
        shows="Git fails on every operation here. A run below replays the workload on the intact tables: its counts and times are refscope's reading, not what git would do or take."
      />
      <section className="panel" aria-labelledby="sim-h">
        <div className="panel-head">
          <h2 id="sim-h">
            Simulator{' '}
            <span className="muted">
              {refused
                ? 'refscope’s replay on the intact tables (not git’s behaviour)'
                : 'what git would do on these tables, per version'}
            </span>
          </h2>
        </div>
        <div className="sim-setup">
          <WorkloadPicker loaded={loaded} kind={kind} textRef={textRef} />
          <OptionsPicker kind={kind} st={st} />
        </div>
        <div className="sim-run-bar">
          <button
            type="button"
            className="btn primary"
            data-testid="sim-run"
            disabled={!!busy || !!problem}
            onClick={() => void runSimulation()}
            title={problem ?? 'Run in the engine worker'}
          >
            {last ? 'Run again' : 'Run simulation'}
          </button>
          {busy ? (
            <Busy started={busy.started} />
          ) : problem ? (
            <span className="muted small" data-testid="sim-problem">
              {problem}
            </span>
          ) : last ? (
            <span className="muted small">Last run: {fmtMs(last.elapsed)} in the worker.</span>
          ) : null}
        </div>
        {error && <SimErrorBox error={error} textRef={textRef} />}
      </section>
      {last && error && (
        <p className="muted small sim-prev-note">
          Below: the results of the previous run ({last.result.workload.description}).
        </p>
      )}
      {last ? (
        <SimResults d={last} stale={!!busy || !!error} />
      ) : (
        !busy &&
        !error && (
          <p className="muted sim-hint">
            Pick a workload and press <strong>Run simulation</strong>: the tables are replayed in the engine worker, the
            page stays responsive.
          </p>
        )
      )}
      <MeasurePanel kind={kind} />
      {sharer && (
        <details className="panel sim-sharer" data-testid="sim-sharer">
          <summary>
            <strong>The sharer&rsquo;s results</strong>{' '}
            <span className="muted">from the link, computed on their real tables</span>
          </summary>
          <SimResults d={sharer} nested />
        </details>
      )}
    </div>
  );
}

function Busy({ started }: { started: number }) {
  const [now, setNow] = useState(started);
  useEffect(() => {
    const t = setInterval(() => setNow(performance.now()), 100);
    return () => clearInterval(t);
  }, []);
  return (
    <span className="cmp-busy" role="status" data-testid="sim-busy">
      <span className="spinner small-spinner" aria-hidden="true" /> Simulating in the worker… {fmtMs(now - started)}
    </span>
  );
}

// ---------------------------------------------------------------------------------------------
// A shared report: the sharer's results, read-only

function SharedSimulator() {
  const loaded = useApp((s) => s.loaded)!;
  const status = useApp((s) => s.status);
  const shared = sharedReport(loaded)!;
  const value = shared.shared.simulation;
  const d = useMemo(() => sharedSimulation(value), [value]);
  const rerun = (
    <button
      type="button"
      className="btn primary"
      disabled={status === 'loading'}
      onClick={() => void loadSyntheticStack()}
      data-testid="sim-rerun-synthetic"
    >
      Re-run on a synthetic stack
    </button>
  );
  return (
    <div
      className="sim-view"
      data-testid="simulator-view"
      data-state={d ? 'shared' : 'shared-none'}
      data-source="shared"
    >
      <section className="panel sim-shared-note" data-testid="sim-shared-note">
        <h2>
          Simulator <span className="muted">shared report (no files)</span>
        </h2>
        {value == null ? (
          <p>
            The sharer included no simulation results, and the tables themselves are not in a link. Rebuild a stack of
            the same shape (same tables, record kinds and counts, tombstones; synthetic names) to simulate on it.
          </p>
        ) : d ? (
          <p>
            These are the <strong>sharer&rsquo;s results</strong>, computed on their real tables and carried by the
            link: read-only. To try other workloads, rebuild a stack of the same shape and simulate on it.
          </p>
        ) : (
          <p>
            The link carries simulation results in a form this view does not read; they are shown as they are below (and
            in the Share view).
          </p>
        )}
        <p>{rerun}</p>
      </section>
      {d ? (
        <SimResults d={d} />
      ) : value != null ? (
        <section className="panel">
          <SimulationResults value={value} />
        </section>
      ) : null}
    </div>
  );
}
