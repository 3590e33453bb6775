import {
  Fragment, memo, useEffect, useLayoutEffect, useMemo, useRef, useState, type DragEvent, type KeyboardEvent, type MouseEvent, type ReactNode, type RefObject,
} from 'react';
import type { ModelResult, FixResult } from '../../engine/simulate/index.ts';
import type { CurveData } from '../../engine/simulate/curve.ts';
import { MODELS, MODEL_NAMES, type ModelName } from '../../engine/simulate/models.ts';
import type { Counts, Phase } from '../../engine/simulate/counts.ts';
import { useApp, type Loaded } from '../store.ts';
import { fmtBytes, fmtInt, fmtMs, fmtPct, plural } from '../format.ts';
import { loadSyntheticStack, sharedReport, SimulationResults } from '../share-open.tsx';
import {
  applicableModels, factorOf, initFormFor, lastRunFor, runProblem, runSimulation, sharerSimulation, simKind, takeLinkWorkload, useSim,
  type SimState,
} from '../simstore.ts';
import type { Gen, LookupWhich, WorkloadForm } from '../simspec.ts';
import { phaseWords, sharedSimulation, type SimDisplay } from '../simshare.ts';
import { fmtCount, fmtGain, fmtNTick, fmtSeconds, fmtSecondsTick, fmtTimes } from '../simformat.ts';
import {
  chartSeries, linePath, logAxis, nearestIndex, secondsRange, spreadLabels, type ChartSeries, type CurveMode,
} from '../simchart.ts';
import '../compaction.css';
import '../simulator.css';
import { GitVerdict, gitRefuses } from './GitVerdict.tsx';

/**
 * A first visit runs the workload by itself when the address the page was opened with names one,
 * or when the stack has at most
 * this many ref records and the workload at most `AUTO_RUN_OPS` operations (well under a second);
 * bigger ones wait for the Run button (the worker is busy while it counts).
 */
const AUTO_RUN_RECORDS = 200_000;
const AUTO_RUN_OPS = 10_000;

/** Largest stdin file shown as editable text (bigger ones are used as they are). */
const MAX_TEXT_FILE = 512 * 1024;

/**
 * Simulator view (issue #6): replay a batch of ref updates or lookups on these tables per git
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
        The simulator needs a reftable stack or a files-backend repository; this input is {loaded.result.description || loaded.result.kind}
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
    if (s.form.gen === 'stdin') { takeLinkWorkload(); return; }
    const r = loaded.result.report;
    const records = r?.stack ? r.stack.refRecords : loaded.result.refCount;
    const ops = s.form.gen === 'recreate' ? r?.stack?.tombstonesHiding ?? 0 : s.form.gen === 'delete-all' ? loaded.result.refCount : 1000;
    const fromLink = takeLinkWorkload() && !!w;
    // On a stack git cannot read nothing runs by itself: its times would not be git's.
    if (fromLink || (!gitRefuses(r) && records <= AUTO_RUN_RECORDS && ops <= AUTO_RUN_OPS)) void runSimulation();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [loaded.id]);

  const problem = runProblem(st, kind);
  const sharer = loaded.origin === 'synthetic' ? sharedSimulation(sharerSimulation(loaded)) : null;
  const refused = gitRefuses(loaded.result.report);
  return (
    <div className="sim-view" data-testid="simulator-view" data-state={busy ? 'busy' : last ? 'done' : 'idle'} data-run-id={last?.runId ?? 0} data-git-readable={refused ? 'false' : 'true'}>
      <GitVerdict report={loaded.result.report} shows="Git fails on every operation here. A run below replays the workload on the intact tables: its counts and times are refscope's reading, not what git would do or take." />
      <section className="panel" aria-labelledby="sim-h">
        <div className="panel-head">
          <h2 id="sim-h">Simulator <span className="muted">{refused ? 'refscope’s replay on the intact tables (not git’s behaviour)' : 'what git would do on these tables, per version'}</span></h2>
        </div>
        <div className="sim-setup">
          <WorkloadPicker loaded={loaded} kind={kind} textRef={textRef} />
          <OptionsPicker kind={kind} st={st} />
        </div>
        <div className="sim-run-bar">
          <button
            type="button" className="btn primary" data-testid="sim-run" disabled={!!busy || !!problem}
            onClick={() => void runSimulation()} title={problem ?? 'Run in the engine worker'}
          >
            {last ? 'Run again' : 'Run simulation'}
          </button>
          {busy ? <Busy started={busy.started} /> : problem ? <span className="muted small" data-testid="sim-problem">{problem}</span>
            : last ? <span className="muted small">Last run: {fmtMs(last.elapsed)} in the worker.</span> : null}
        </div>
        {error && <SimErrorBox error={error} textRef={textRef} />}
      </section>
      {last && error && <p className="muted small sim-prev-note">Below: the results of the previous run ({last.result.workload.description}).</p>}
      {last ? <SimResults d={last} stale={!!busy || !!error} /> : !busy && !error && (
        <p className="muted sim-hint">Pick a workload and press <strong>Run simulation</strong>: the tables are replayed in the engine worker, the page stays responsive.</p>
      )}
      {sharer && (
        <details className="panel sim-sharer" data-testid="sim-sharer">
          <summary><strong>The sharer&rsquo;s results</strong> <span className="muted">from the link, computed on their real tables</span></summary>
          <SimResults d={sharer} nested />
        </details>
      )}
    </div>
  );
}

function Busy({ started }: { started: number }) {
  const [now, setNow] = useState(performance.now());
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
// Workload picker

const GENS: { gen: Gen; label: string }[] = [
  { gen: 'recreate', label: 'Re-create every ref a tombstone hides' },
  { gen: 'create', label: 'Create new refs' },
  { gen: 'delete-all', label: 'Delete every ref' },
  { gen: 'lookup', label: 'Read refs' },
  { gen: 'scan', label: 'Prefix scan' },
  { gen: 'oid', label: 'Lookups by object id' },
  { gen: 'stdin', label: 'git update-ref --stdin input' },
];

function setForm(patch: Partial<WorkloadForm>): void {
  useSim.setState((s) => ({ form: { ...s.form, ...patch } }));
}

function WorkloadPicker({ loaded, kind, textRef }: { loaded: Loaded; kind: 'reftable' | 'files'; textRef: RefObject<HTMLTextAreaElement | null> }) {
  const form = useSim((s) => s.form);
  const st = loaded.result.report?.stack ?? null;
  const hiding = st?.tombstonesHiding ?? 0;
  const live = st ? st.live : loaded.result.refCount;
  const tombs = st?.tombstones ?? 0;
  const namespaces = useMemo(() => Object.entries(st?.namespaces ?? {}).filter(([k]) => k.startsWith('refs/'))
    .sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k]) => `${k}/`), [st]);
  const txMatters = form.gen === 'recreate' || form.gen === 'create' || form.gen === 'delete-all';
  const pick = (gen: Gen) => setForm({ gen });
  const detail: Record<Gen, ReactNode> = {
    recreate: hiding > 0
      ? <>{plural(hiding, 'ref')} hidden by tombstones, re-created with the values they had (CONTEXT.md's case: everything deleted, then created again)</>
      : <>no tombstone on this {kind === 'files' ? 'repository' : 'stack'} hides a ref: nothing to re-create</>,
    create: (
      <span className="sim-inline">
        <input type="number" min={1} max={10_000_000} aria-label="Refs to create" data-testid="sim-create-n" value={form.createN}
          onFocus={() => pick('create')} onChange={(e) => setForm({ createN: e.currentTarget.value, gen: 'create' })} />
        <span>refs named</span>
        <input type="text" className="mono" aria-label="Name prefix" spellCheck={false} data-testid="sim-create-prefix" value={form.createPrefix}
          onFocus={() => pick('create')} onChange={(e) => setForm({ createPrefix: e.currentTarget.value, gen: 'create' })} />
        <span className="muted">0, 1, 2, …</span>
      </span>
    ),
    'delete-all': <>delete the {plural(live, 'live ref')} under <code>refs/</code></>,
    lookup: (
      <span className="sim-inline">
        {form.lookupWhich !== 'names' && (
          <input type="number" min={1} max={10_000_000} aria-label="Reads" data-testid="sim-lookup-n" value={form.lookupN}
            onFocus={() => pick('lookup')} onChange={(e) => setForm({ lookupN: e.currentTarget.value, gen: 'lookup' })} />
        )}
        <span>reads of</span>
        <select aria-label="Which names" data-testid="sim-lookup-which" value={form.lookupWhich}
          onFocus={() => pick('lookup')} onChange={(e) => setForm({ lookupWhich: e.currentTarget.value as LookupWhich, gen: 'lookup' })}>
          <option value="existing">existing names ({fmtInt(live)})</option>
          <option value="missing">missing names</option>
          <option value="tombstoned" disabled={!tombs}>tombstoned names ({fmtInt(tombs)})</option>
          <option value="names">names I give</option>
        </select>
        {form.lookupWhich === 'names' && (
          <textarea className="mono sim-names" rows={3} aria-label="Ref names to read, one per line" spellCheck={false} value={form.lookupNames}
            placeholder={'refs/heads/main\nrefs/tags/v1.0'} onFocus={() => pick('lookup')} onChange={(e) => setForm({ lookupNames: e.currentTarget.value, gen: 'lookup' })} />
        )}
        <span className="muted">spread evenly over the stack</span>
      </span>
    ),
    scan: (
      <span className="sim-inline">
        <code>for-each-ref</code>
        <input type="text" className="mono" aria-label="Scan prefix" list="sim-ns" spellCheck={false} data-testid="sim-scan-prefix" value={form.scanPrefix}
          placeholder="(all refs)" onFocus={() => pick('scan')} onChange={(e) => setForm({ scanPrefix: e.currentTarget.value, gen: 'scan' })} />
        <span>×</span>
        <input type="number" min={1} max={10_000_000} aria-label="Scans" value={form.scanN}
          onFocus={() => pick('scan')} onChange={(e) => setForm({ scanN: e.currentTarget.value, gen: 'scan' })} />
        <datalist id="sim-ns">{namespaces.map((n) => <option key={n} value={n} />)}</datalist>
      </span>
    ),
    oid: (
      <span className="sim-inline">
        <input type="number" min={1} max={10_000_000} aria-label="Lookups by object id" value={form.oidN}
          onFocus={() => pick('oid')} onChange={(e) => setForm({ oidN: e.currentTarget.value, gen: 'oid' })} />
        <span>{kind === 'files' ? 'lookups of object ids the repository holds (the files backend lists every ref)' : <>lookups of object ids the stack holds, through the tables&rsquo; object index</>}</span>
      </span>
    ),
    stdin: <>paste it below, or open or drop a file</>,
  };
  return (
    <fieldset className="sim-box sim-workloads">
      <legend>Workload</legend>
      <div role="radiogroup" aria-label="Workload" className="sim-gens">
        {GENS.map(({ gen, label }) => {
          const disabled = gen === 'recreate' && hiding === 0;
          return (
            <div key={gen} className={`sim-gen${form.gen === gen ? ' on' : ''}${disabled ? ' disabled' : ''}`}>
              <label className="sim-gen-label">
                <input type="radio" name="sim-gen" value={gen} checked={form.gen === gen} disabled={disabled} data-testid={`sim-gen-${gen}`}
                  onChange={() => pick(gen)} />
                <span className="sim-gen-title">{label}</span>
              </label>
              <div className="sim-gen-detail">{detail[gen]}</div>
            </div>
          );
        })}
      </div>
      {txMatters && (
        <div className="sim-tx" role="radiogroup" aria-label="Transactions">
          <span className="muted small">Transactions:</span>
          <label className="check"><input type="radio" name="sim-tx" checked={!form.perRef} onChange={() => setForm({ perRef: false })} data-testid="sim-tx-one" /> one for the whole batch</label>
          <label className="check"><input type="radio" name="sim-tx" checked={form.perRef} onChange={() => setForm({ perRef: true })} data-testid="sim-tx-per-ref" /> one per ref (<code>start</code>/<code>commit</code> around each)</label>
        </div>
      )}
      {form.gen === 'stdin' && <StdinInputBox textRef={textRef} />}
    </fieldset>
  );
}

function StdinInputBox({ textRef }: { textRef: RefObject<HTMLTextAreaElement | null> }) {
  const stdin = useSim((s) => s.stdin);
  const fileInput = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const setStdin = (patch: Partial<typeof stdin>) => useSim.setState((s) => ({ stdin: { ...s.stdin, ...patch }, error: null }));
  const take = async (f: File) => {
    const bytes = new Uint8Array(await f.arrayBuffer());
    const hasNul = bytes.includes(0);
    let text: string | null = null;
    if (!hasNul && bytes.length <= MAX_TEXT_FILE) {
      try { text = new TextDecoder('utf-8', { fatal: true }).decode(bytes); } catch { text = null; }
    }
    if (text !== null) {
      setStdin({ text, file: null });
      setNote(`Read ${f.name} (${fmtBytes(bytes.length)}) into the box.`);
    } else {
      setStdin({ file: { name: f.name, bytes }, z: hasNul ? true : stdin.z });
      setNote(hasNul ? `${f.name} has NUL bytes: read with -z.` : null);
    }
  };
  const onDrop = (e: DragEvent) => {
    // The window's own drop handler (App.tsx) opens dropped files as a new input: this one is ours.
    e.preventDefault();
    setOver(false);
    const f = e.dataTransfer.files?.[0];
    if (f) void take(f);
  };
  return (
    <div
      className={`sim-stdin${over ? ' over' : ''}`} data-own-drop="true"
      onDragOver={(e) => { if (Array.from(e.dataTransfer.types).includes('Files')) { e.preventDefault(); e.dataTransfer.dropEffect = 'copy'; setOver(true); } }}
      onDragLeave={() => setOver(false)} onDrop={onDrop}
    >
      {stdin.file ? (
        <div className="sim-file" data-testid="sim-stdin-file">
          Using <strong className="mono">{stdin.file.name}</strong> ({fmtBytes(stdin.file.bytes.length)}) as it is.{' '}
          <button type="button" className="btn small" onClick={() => { setStdin({ file: null }); setNote(null); }}>Use the text box instead</button>
        </div>
      ) : (
        <>
          <label className="sr-only" htmlFor="sim-stdin-text">git update-ref --stdin input</label>
          <textarea
            id="sim-stdin-text" ref={textRef} className="mono" data-testid="sim-stdin" rows={7} spellCheck={false} value={stdin.text}
            placeholder={'create refs/heads/topic 0123456789abcdef0123456789abcdef01234567\nupdate refs/heads/main <new-oid> <old-oid>\ndelete refs/tags/old\n…  (start / prepare / commit / abort, option no-deref)'}
            onChange={(e) => { setStdin({ text: e.currentTarget.value }); setNote(null); }}
          />
        </>
      )}
      <div className="sim-stdin-bar">
        <button type="button" className="btn small" onClick={() => fileInput.current?.click()}>Open file…</button>
        <input ref={fileInput} type="file" hidden data-testid="sim-stdin-input" onChange={(e) => { const f = e.currentTarget.files?.[0]; if (f) void take(f); e.currentTarget.value = ''; }} />
        <label className="check">
          <input type="checkbox" data-testid="sim-z" checked={stdin.z} onChange={(e) => setStdin({ z: e.currentTarget.checked })} />
          <code>-z</code> <span className="muted small">(NUL-terminated arguments, as <code>git update-ref -z --stdin</code>)</span>
        </label>
        <span className="muted small">{note ?? 'or drop a file on this box'}</span>
      </div>
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Options

function OptionsPicker({ kind, st }: { kind: 'reftable' | 'files'; st: SimState }) {
  const ok = applicableModels(kind);
  const models = st.models ?? ok;
  const o = st.options;
  const setO = (patch: Partial<SimState['options']>) => useSim.setState((s) => ({ options: { ...s.options, ...patch } }));
  const toggle = (m: ModelName, on: boolean) => {
    const cur = new Set(models.filter((x) => ok.includes(x)));
    if (on) cur.add(m); else cur.delete(m);
    useSim.setState({ models: MODEL_NAMES.filter((x) => cur.has(x)) });
  };
  const factorOk = factorOf(o.factorText) !== null;
  return (
    <fieldset className="sim-box sim-options">
      <legend>Models and options</legend>
      <ul className="sim-models">
        {MODEL_NAMES.map((m) => {
          const applies = ok.includes(m);
          const why = applies ? MODELS[m].summary : kind === 'reftable'
            ? 'needs a packed-refs file or a files-backend .git directory; this input is a reftable stack'
            : 'needs a reftable stack; this input is a files-backend repository';
          return (
            <li key={m} className={applies ? '' : 'disabled'}>
              <label className="check" title={why}>
                <input type="checkbox" data-testid={`sim-model-${m}`} checked={applies && models.includes(m)} disabled={!applies} onChange={(e) => toggle(m, e.currentTarget.checked)} />
                <ModelKey model={m} />
                <span><strong>{m}</strong> <span className="muted small">{MODELS[m].versions}</span></span>
              </label>
              {!applies && <div className="muted small sim-why">not applicable: {why}</div>}
            </li>
          );
        })}
      </ul>
      <label className="check sim-opt">
        <input type="checkbox" data-testid="sim-warn" checked={o.warnAmbiguousRefs} onChange={(e) => setO({ warnAmbiguousRefs: e.currentTarget.checked })} />
        <span><code>core.warnAmbiguousRefs</code> <span className="muted small">on is git&rsquo;s default: up to 2.49, <code>update-ref</code> reads six names per object id</span></span>
      </label>
      <label className="check sim-opt">
        <input type="checkbox" data-testid="sim-auto" checked={o.autoCompaction} onChange={(e) => setO({ autoCompaction: e.currentTarget.checked })} />
        <span>Auto-compaction after each commit <span className="muted small">(git&rsquo;s default)</span></span>
      </label>
      <label className="field sim-opt">
        <span>Geometric factor</span>
        <input type="number" min={2} max={255} value={o.factorText} aria-invalid={!factorOk} data-testid="sim-factor" onChange={(e) => setO({ factorText: e.currentTarget.value })} />
        <span className="muted small"><code>reftable.geometricFactor</code>, 2..255 (default 2)</span>
      </label>
    </fieldset>
  );
}

// ---------------------------------------------------------------------------------------------
// Errors

function SimErrorBox({ error, textRef }: { error: NonNullable<SimState['error']>; textRef: RefObject<HTMLTextAreaElement | null> }) {
  const stdin = useSim((s) => s.stdin);
  const z = stdin.z;
  const canShow = error.kind === 'stdin' && !stdin.file && !!textRef.current;
  const showInInput = () => {
    const el = textRef.current;
    if (!el) return;
    // Byte offset (UTF-8) → position in the text.
    const enc = new TextEncoder();
    let bytes = 0, i = 0;
    const text = el.value;
    while (i < text.length && bytes < error.offset) {
      const cp = text.codePointAt(i)!;
      bytes += enc.encode(String.fromCodePoint(cp)).length;
      i += cp > 0xffff ? 2 : 1;
    }
    let end = text.indexOf('\n', i);
    if (end < 0) end = text.length;
    el.focus();
    el.setSelectionRange(i, Math.max(i + 1, end));
  };
  const col = error.column;
  const caret = error.kind === 'stdin' && col >= 1 && col <= error.lineText.length + 1 ? ' '.repeat(col - 1) + '^' : null;
  return (
    <div className="inline-error big sim-error" role="alert" data-testid="error" data-kind={error.kind} data-offset={error.offset}>
      {error.kind === 'stdin' ? (
        <>
          <p className="sim-error-head">
            <strong>The update-ref input cannot be read</strong> at byte offset <strong data-testid="error-offset">{fmtInt(error.offset)}</strong>,{' '}
            {z ? 'field' : 'line'} {fmtInt(error.line)}, column {fmtInt(col)} of {error.file.startsWith('(') ? 'the ' + error.file.slice(1, -1) : error.file}: expected {error.expected}
          </p>
          {error.lineText !== '' || caret ? (
            <pre className="sim-error-line"><code>{error.lineText || ' '}</code>{caret ? '\n' + caret : ''}</pre>
          ) : null}
          {canShow && <button type="button" className="btn small" onClick={showInInput}>Show in the input</button>}
        </>
      ) : (
        <p className="sim-error-head">
          <strong>{error.kind === 'spec' ? 'The workload is not valid:' : 'The simulation failed:'}</strong> {error.message}
        </p>
      )}
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Results (a live run or the sharer's)

const MODEL_CLASS: Record<ModelName, string> = { 'git-2.49': 'm0', 'git-2.55': 'm1', 'git-2.56': 'm2', initial: 'm3', files: 'm4' };
const DASH: Record<ModelName, string | undefined> = { 'git-2.49': undefined, 'git-2.55': '7 4', 'git-2.56': undefined, initial: '2 3', files: '9 3 2 3' };

/** A model's line style, as a legend key. */
function ModelKey({ model }: { model: ModelName }) {
  return (
    <svg className={`sim-key ${MODEL_CLASS[model]}`} width="26" height="12" viewBox="0 0 26 12" aria-hidden="true">
      <line x1="1" x2="25" y1="6" y2="6" strokeDasharray={DASH[model]} />
      <Marker model={model} x={13} y={6} r={3.5} />
    </svg>
  );
}

/** A marker shape per model (so that the lines are told apart without colour). */
function Marker({ model, x, y, r }: { model: ModelName; x: number; y: number; r: number }) {
  switch (model) {
    case 'git-2.49': return <rect className="sim-mark" x={x - r} y={y - r} width={2 * r} height={2 * r} />;
    case 'git-2.55': return <path className="sim-mark" d={`M${x},${y - r * 1.3} L${x + r * 1.3},${y} L${x},${y + r * 1.3} L${x - r * 1.3},${y} Z`} />;
    case 'initial': return <path className="sim-mark" d={`M${x},${y - r * 1.25} L${x + r * 1.2},${y + r} L${x - r * 1.2},${y + r} Z`} />;
    case 'files': return <path className="sim-mark" d={`M${x - r},${y - r} L${x + r},${y + r} M${x + r},${y - r} L${x - r},${y + r}`} />;
    default: return <circle className="sim-mark" cx={x} cy={y} r={r} />;
  }
}

/** The results of a run (memoised: typing in the picker does not redraw them). */
const SimResults = memo(function SimResults({ d, stale = false, nested = false }: { d: SimDisplay; stale?: boolean; nested?: boolean }) {
  const r = d.result;
  const ok = r.results.filter((m) => m.applicable && m.seconds !== null);
  const notApplicable = r.results.filter((m) => !m.applicable);
  const wl = r.workload;
  const opts = d.options;
  const Section = nested ? 'div' : 'section';
  return (
    <div className={`sim-out${stale ? ' stale' : ''}`} data-testid={d.source === 'shared' ? 'sim-shared-results' : 'sim-out'} data-source={d.source}>
      <Section className={nested ? 'sim-sub' : 'panel'} aria-labelledby={`sim-res-h-${d.source}`}>
        <h2 id={`sim-res-h-${d.source}`}>
          Estimated cost <span className="muted">{d.source === 'shared' ? 'the sharer’s results, from the link (read-only)' : 'per git version, on these tables'}</span>
        </h2>
        <p className="sim-wl" data-testid="sim-workload">
          <strong>{capital(wl.description)}</strong>
          <span className="muted">
            {' '}· {plural(wl.operations, 'operation')}{wl.kind === 'updates' ? ` in ${plural(wl.transactions, 'transaction')}` : ''} ·{' '}
            {r.input.kind === 'files' ? `files backend, ${plural(r.input.liveRefs, 'ref')}` : `${plural(d.tables, 'table')}, ${plural(r.input.liveRefs, 'live ref')}, ${plural(r.input.tombstones, 'tombstone')}`}
            {' '}· warnAmbiguousRefs {opts.warnAmbiguousRefs ? 'on' : 'off'} · auto-compaction {opts.autoCompaction ? `on (factor ${opts.factor})` : 'off'}
          </span>
        </p>
        {ok.length ? <ModelTable results={r.results} idSuffix={d.source} /> : <p className="muted">No model applies to this input.</p>}
        {notApplicable.length > 0 && (
          <p className="muted small">
            {notApplicable.map((m) => <Fragment key={m.model}><strong>{m.model}</strong> not applicable{m.reason ? `: ${m.reason}` : ''}. </Fragment>)}
          </p>
        )}
        {ok.some((m) => m.errorCount > 0) && <Refusals results={ok} />}
      </Section>
      {r.curve && r.curve.series.length > 0 && (
        <Section className={nested ? 'sim-sub' : 'panel'} aria-labelledby={`sim-chart-h-${d.source}`}>
          <h2 id={`sim-chart-h-${d.source}`}>Cost against batch size <span className="muted">estimated time for n = 1 … 100,000, log–log</span></h2>
          <CostChart curve={r.curve} results={ok} idSuffix={d.source} />
        </Section>
      )}
      <Section className={nested ? 'sim-sub' : 'panel'} aria-labelledby={`sim-fix-h-${d.source}`}>
        <h2 id={`sim-fix-h-${d.source}`}>What would fix it</h2>
        {r.fixes.length ? <Fixes fixes={r.fixes} /> : (
          <p className="muted">{r.input.kind === 'files' ? 'The fixes are for reftable stacks.' : 'No reftable git model was run: tick git-2.49, git-2.55 or git-2.56.'}</p>
        )}
        <div className="sim-explain">
          <h3>In plain words</h3>
          <p data-testid="sim-explanation">{withCode(r.explanation)}</p>
        </div>
      </Section>
    </div>
  );
});

function capital(s: string): string {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

/** Text with `code` spans (the engine's paragraph quotes commands in backticks); text only. */
function withCode(text: string): ReactNode[] {
  // "git ≤ 2.49" stays on one line.
  text = text.replace(/≤ /g, '≤\u00a0');
  return text.split(/`([^`]+)`/).map((part, i) => (i % 2 ? <code key={i}>{part}</code> : <Fragment key={i}>{part}</Fragment>));
}

function ModelTable({ results, idSuffix }: { results: ModelResult[]; idSuffix: string }) {
  const [open, setOpen] = useState<Set<ModelName>>(new Set());
  const ok = results.filter((m) => m.applicable && m.seconds !== null);
  const fastest = Math.min(...ok.map((m) => m.seconds!));
  const showTables = ok.some((m) => m.tablesAfter !== null);
  const toggle = (m: ModelName) => setOpen((s) => {
    const n = new Set(s);
    if (n.has(m)) n.delete(m); else n.add(m);
    return n;
  });
  const cols = 8 + (showTables ? 1 : 0);
  return (
    <div className="table-scroll">
      <table className="grid sim-table" data-testid="sim-table">
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col" className="num">Estimated time</th>
            <th scope="col" className="num">vs fastest</th>
            <th scope="col" className="num" title="one per table per merged seek, plus obj-index and reflog seeks">Table seeks</th>
            <th scope="col" className="num" title="index blocks + ref blocks read by seeks + ref blocks entered while iterating">Blocks read</th>
            <th scope="col" className="num" title="linear scans inside seeks and every record a merged iterator pulls">Records decoded</th>
            <th scope="col" className="num" title="inside the merged iterator up to 2.55, by the caller from 2.56">Tombstones skipped</th>
            {showTables && <th scope="col" className="num" title="tables in the stack after the workload">Tables after</th>}
            <th scope="col" className="num" title="updates git would refuse (create of an existing ref, old value mismatch, name conflict)">Refused</th>
          </tr>
        </thead>
        <tbody>
          {ok.map((m) => {
            const isOpen = open.has(m.model);
            const rel = m.seconds! / (fastest || 1);
            return (
              <Fragment key={m.model}>
                <tr data-testid="sim-row" data-model={m.model} className={isOpen ? 'open' : undefined}>
                  <th scope="row" className="sim-model-cell">
                    <button
                      type="button" className="sim-expand" aria-expanded={isOpen} aria-controls={`sim-phases-${idSuffix}-${m.model}`}
                      onClick={() => toggle(m.model)} title="Where the time goes (per phase)"
                    >
                      <span className="sim-caret" aria-hidden="true">{isOpen ? '▾' : '▸'}</span>
                      <ModelKey model={m.model} />
                      <span className="sim-model-name">{m.model}</span>
                    </button>
                    <span className="muted small sim-versions">{m.versions}</span>
                  </th>
                  <td className="num sim-secs" data-testid="sim-seconds" data-value={m.seconds!}>{fmtSeconds(m.seconds)}</td>
                  <td className="num muted">{m.seconds === fastest ? 'fastest' : fmtTimes(rel)}</td>
                  {m.model === 'files' ? (
                    <td colSpan={4} className="sim-files-counts" data-testid="sim-files-counts">
                      {m.counts
                        ? <>{fmtCount(m.counts.looseWrites)} loose ref files written · {fmtCount(m.counts.looseReads)} loose reads · {fmtCount(m.counts.packedProbes)} packed-refs probes · {fmtCount(m.counts.packedRecords)} packed records</>
                        : <span className="muted">no reftable tables: loose ref files and packed-refs</span>}
                    </td>
                  ) : (
                    <>
                      <td className="num" title={m.seeks === null ? '' : fmtInt(m.seeks)} data-value={m.seeks ?? ''}>{fmtCount(m.seeks)}</td>
                      <td className="num" title={m.blocksRead === null ? '' : fmtInt(m.blocksRead)} data-value={m.blocksRead ?? ''}>{fmtCount(m.blocksRead)}</td>
                      <td className="num" title={m.recordsDecoded === null ? '' : fmtInt(m.recordsDecoded)} data-value={m.recordsDecoded ?? ''}>{fmtCount(m.recordsDecoded)}</td>
                      <td className="num" title={m.tombstonesSkipped === null ? '' : fmtInt(m.tombstonesSkipped)} data-value={m.tombstonesSkipped ?? ''}>{fmtCount(m.tombstonesSkipped)}</td>
                    </>
                  )}
                  {showTables && <td className="num">{m.tablesAfter === null ? '—' : fmtInt(m.tablesAfter)}</td>}
                  <td className="num">{m.errorCount ? <span className="warn-text">{fmtInt(m.errorCount)}</span> : <span className="muted">0</span>}</td>
                </tr>
                {isOpen && (
                  <tr className="sim-detail" id={`sim-phases-${idSuffix}-${m.model}`}>
                    <td colSpan={cols}><Phases m={m} /></td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

const PHASE_COUNTS: { key: keyof Counts; label: string }[] = [
  { key: 'mergedSeeks', label: 'Merged seeks' },
  { key: 'seeks', label: 'Table seeks' },
  { key: 'recordsDecoded', label: 'Records decoded' },
  { key: 'tombstonesSkipped', label: 'Tombstones skipped' },
  { key: 'iterators', label: 'Iterators' },
];

function Phases({ m }: { m: ModelResult }) {
  const total = m.seconds || 1;
  const hasCounts = m.phases.some((p) => p.counts);
  const blocks = (c: Counts) => c.indexBlocks + c.leafBlocks + c.iterBlocks;
  return (
    <div className="sim-phases" data-testid="sim-phases">
      <p className="muted small">{capital(m.summary)}.</p>
      <table className="grid">
        <thead>
          <tr>
            <th scope="col">Phase</th>
            <th scope="col" className="num">Time</th>
            <th scope="col">Share</th>
            {hasCounts && PHASE_COUNTS.map((c) => <th key={c.key} scope="col" className="num">{c.label}</th>)}
            {hasCounts && <th scope="col" className="num">Blocks read</th>}
          </tr>
        </thead>
        <tbody>
          {m.phases.map((p) => (
            <tr key={p.phase} data-phase={p.phase}>
              <th scope="row">{capital(phaseWords(p.phase as Phase))}</th>
              <td className="num">{fmtSeconds(p.seconds)}</td>
              <td className="sim-share">
                <span className="sim-share-bar" aria-hidden="true"><span style={{ width: `${Math.max(0.5, (100 * p.seconds) / total)}%` }} /></span>
                <span className="small">{fmtPct(p.seconds, total)}</span>
              </td>
              {hasCounts && PHASE_COUNTS.map((c) => <td key={c.key} className="num" title={p.counts ? fmtInt(p.counts[c.key]) : ''}>{p.counts ? fmtCount(p.counts[c.key]) : '—'}</td>)}
              {hasCounts && <td className="num">{p.counts ? fmtCount(blocks(p.counts)) : '—'}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Refusals({ results }: { results: ModelResult[] }) {
  const m = results.find((x) => x.errorCount > 0)!;
  return (
    <div className="note small sim-refusals" data-testid="sim-refusals">
      git would refuse {plural(m.errorCount, 'of these updates', 'of these updates')}; the estimates count the work as if it went on.
      {m.errors.length > 0 && (
        <ul>
          {m.errors.slice(0, 5).map((e, i) => <li key={i} className="mono">{e}</li>)}
          {m.errorCount > 5 && <li className="muted">… and {fmtInt(m.errorCount - 5)} more</li>}
        </ul>
      )}
    </div>
  );
}

function Fixes({ fixes }: { fixes: FixResult[] }) {
  const base = fixes[0];
  return (
    <>
      <p className="sim-fix-base">
        The same workload with <strong>{MODELS[base.model].versions}</strong> ({base.model}, {fmtSeconds(base.baselineSeconds)}), changed one way at a time:
      </p>
      <ul className="sim-fixes">
        {fixes.map((f) => {
          const frac = f.seconds !== null && f.baselineSeconds > 0 ? Math.min(1, f.seconds / f.baselineSeconds) : null;
          return (
            <li key={f.fix} className={f.seconds === null ? 'na' : f.speedup !== null && f.speedup >= 1.05 ? 'good' : ''} data-testid="sim-fix" data-fix={f.fix} data-speedup={f.speedup ?? ''}>
              <div className="sim-fix-label">{withCode(fixLabel(f))}</div>
              <div className="sim-fix-figures">
                {f.seconds === null ? <span className="muted">does not apply</span> : (
                  <>
                    <span className="mono">{fmtSeconds(f.baselineSeconds)} → <strong>{fmtSeconds(f.seconds)}</strong></span>
                    <span className={f.speedup !== null && f.speedup >= 1.05 ? 'sim-gain' : 'muted'}>{fmtGain(f.speedup)}</span>
                  </>
                )}
              </div>
              {frac !== null && (
                <div className="sim-fix-bars" aria-hidden="true">
                  <span className="sim-bar base" />
                  <span className="sim-bar after" style={{ width: `${Math.max(0.4, frac * 100)}%` }} />
                </div>
              )}
              {f.note && <div className="muted small sim-fix-note">{f.note}</div>}
            </li>
          );
        })}
      </ul>
    </>
  );
}

function fixLabel(f: FixResult): string {
  switch (f.fix) {
    case 'pack-refs': return '`git pack-refs` (refscope’s own compaction of the whole stack)';
    case 'auto-compaction': return 'Auto-compaction: `git pack-refs --auto` (git’s geometric rule, by bytes)';
    case 'auto-compaction-by-records': return 'Auto-compaction if it compared record counts (proposed, not what git does)';
    case 'newer-git': return 'A newer git: 2.56 (tombstones reach the caller, which stops at its bound)';
    case 'no-warn-ambiguous-refs': return '`git -c core.warnAmbiguousRefs=false update-ref` (git ≤ 2.49)';
  }
}

// ---------------------------------------------------------------------------------------------
// Chart

const CW = 820, CH = 380;
const M = { left: 66, right: 150, top: 18, bottom: 46 };

function CostChart({ curve, results, idSuffix }: { curve: CurveData; results: ModelResult[]; idSuffix: string }) {
  const [mode, setMode] = useState<CurveMode>('sameShape');
  const [cursor, setCursor] = useState<number | null>(null);
  const svgRef = useRef<SVGSVGElement>(null);
  const series = useMemo(() => chartSeries(curve, mode), [curve, mode]);
  const ns = curve.n;
  const x = useMemo(() => logAxis(ns[0], ns[ns.length - 1], M.left, CW - M.right), [ns]);
  const yr = useMemo(() => secondsRange(series.flatMap((s) => [...s.values, s.atSimulated])), [series]);
  const y = useMemo(() => logAxis(yr.lo, yr.hi, CH - M.bottom - 10, M.top + 4), [yr]);
  const clampY = (v: number) => Math.max(M.top - 4, Math.min(CH - M.bottom + 4, y.at(v)));
  const labelYs = spreadLabels(series.map((s) => clampY(s.values[s.values.length - 1])), 26, M.top + 4, CH - M.bottom - 8);
  const titleId = `sim-chart-title-${idSuffix}`, descId = `sim-chart-desc-${idSuffix}`;
  const simN = curve.simulatedN;
  const showSim = simN >= ns[0] && simN <= ns[ns.length - 1];
  const last = ns.length - 1;
  const desc = `One line per model: ${series.map((s) => `${MODELS[s.model].versions} grows ${s.growth.label} (${s.growth.perDoubling}), ${fmtSeconds(s.values[last])} at n = ${fmtInt(ns[last])}`).join('; ')}. `
    + `The simulated workload had n = ${fmtInt(simN)}. Use the left and right arrow keys to read the values at each n.`;
  const onMove = (e: MouseEvent<SVGSVGElement>) => {
    const el = svgRef.current;
    if (!el) return;
    const r = el.getBoundingClientRect();
    const px = ((e.clientX - r.left) * CW) / r.width;
    if (px < M.left - 10 || px > CW - M.right + 10) { setCursor(null); return; }
    setCursor(nearestIndex(ns, x, px));
  };
  const onKey = (e: KeyboardEvent<SVGSVGElement>) => {
    const k = e.key;
    if (k !== 'ArrowLeft' && k !== 'ArrowRight' && k !== 'Home' && k !== 'End' && k !== 'Escape') return;
    e.preventDefault();
    if (k === 'Escape') { setCursor(null); return; }
    setCursor((c) => {
      if (k === 'Home') return 0;
      if (k === 'End') return last;
      if (c === null) return k === 'ArrowRight' ? 0 : last;
      return Math.max(0, Math.min(last, c + (k === 'ArrowRight' ? 1 : -1)));
    });
  };
  const quad = series.filter((s) => s.growth.kind === 'quadratic');
  // Without stepping over entries (no tombstones in the way) both curves are the same: no choice.
  const steps = curve.series.some((s) => s.parts.stepping > 0);
  return (
    <div className="sim-chart-wrap">
      {!steps ? (
        <p className="muted small sim-chart-head">n operations of this workload: nothing steps over tombstones here, so the cost is the same whether the stack grows with the batch or not.</p>
      ) : (
      <div className="sim-chart-head">
        <div className="seg-control" role="group" aria-label="What grows with n">
          <button type="button" className={mode === 'sameShape' ? 'on' : ''} aria-pressed={mode === 'sameShape'} data-testid="sim-mode-same" onClick={() => setMode('sameShape')}>
            Stack grows with the batch
          </button>
          <button type="button" className={mode === 'fixedStack' ? 'on' : ''} aria-pressed={mode === 'fixedStack'} data-testid="sim-mode-fixed" onClick={() => setMode('fixedStack')}>
            This stack, n operations
          </button>
        </div>
        <span className="muted small">
          {mode === 'sameShape'
            ? 'n refs re-created over n tombstones (a stack of this shape, scaled): where the reads step over tombstones the cost is quadratic.'
            : 'n operations of this workload on this stack as it is: linear in n.'}
        </span>
      </div>
      )}
      <figure className="sim-chart" data-testid="sim-chart" data-mode={mode} data-series={series.length}>
        <svg
          ref={svgRef} viewBox={`0 0 ${CW} ${CH}`} width="100%" role="img" aria-labelledby={`${titleId} ${descId}`} tabIndex={0}
          className="sim-svg" onMouseMove={onMove} onMouseLeave={() => setCursor(null)} onKeyDown={onKey} onBlur={() => setCursor(null)}
        >
          <title id={titleId}>Estimated time against batch size n, log–log, per model</title>
          <desc id={descId}>{desc}</desc>
          <g className="sim-grid" aria-hidden="true">
            {y.ticks.map((t) => (
              <g key={t}>
                <line x1={M.left} x2={CW - M.right} y1={y.at(t)} y2={y.at(t)} />
                <text x={M.left - 8} y={y.at(t) + 4} textAnchor="end">{fmtSecondsTick(t)}</text>
              </g>
            ))}
            {x.ticks.map((t) => (
              <g key={t}>
                <line x1={x.at(t)} x2={x.at(t)} y1={M.top} y2={CH - M.bottom} />
                <text x={x.at(t)} y={CH - M.bottom + 16} textAnchor="middle">{fmtNTick(t)}</text>
              </g>
            ))}
            <line className="sim-baseline" x1={M.left} x2={CW - M.right} y1={CH - M.bottom} y2={CH - M.bottom} />
            <text className="sim-axis" x={(M.left + CW - M.right) / 2} y={CH - 8} textAnchor="middle">batch size n (operations), log scale</text>
            <text className="sim-axis" transform={`translate(14 ${(M.top + CH - M.bottom) / 2}) rotate(-90)`} textAnchor="middle">estimated time, log scale</text>
          </g>
          {showSim && (
            <g className="sim-simline" aria-hidden="true">
              <line x1={x.at(simN)} x2={x.at(simN)} y1={M.top} y2={CH - M.bottom} />
              {x.at(simN) > M.left + 0.7 * (CW - M.right - M.left)
                ? <text x={x.at(simN) - 4} y={M.top + 10} textAnchor="end">simulated: n = {fmtInt(simN)}</text>
                : <text x={x.at(simN) + 4} y={M.top + 10}>simulated: n = {fmtInt(simN)}</text>}
            </g>
          )}
          {series.map((s, i) => (
            <g key={s.model} className={`sim-series ${MODEL_CLASS[s.model]}`} data-testid="sim-series" data-model={s.model} data-growth={s.growth.kind}>
              <path className="sim-line" d={linePath(ns.map((n, j) => [x.at(n), clampY(s.values[j])]))} strokeDasharray={DASH[s.model]} />
              {showSim && <Marker model={s.model} x={x.at(simN)} y={clampY(s.atSimulated)} r={4} />}
              <g className="sim-end">
                <line x1={CW - M.right + 2} x2={CW - M.right + 10} y1={clampY(s.values[last])} y2={labelYs[i]} />
                <text x={CW - M.right + 13} y={labelYs[i] - 1}>{s.model}</text>
                <text className={`sim-growth ${s.growth.kind}`} x={CW - M.right + 13} y={labelYs[i] + 11}>{s.growth.kind === 'quadratic' ? 'quadratic · n²' : s.growth.kind === 'linear' ? 'linear · n' : 'flat'}</text>
              </g>
            </g>
          ))}
          {cursor !== null && (
            <g className="sim-cursor" aria-hidden="true">
              <line x1={x.at(ns[cursor])} x2={x.at(ns[cursor])} y1={M.top} y2={CH - M.bottom} />
              {series.map((s) => <g key={s.model} className={MODEL_CLASS[s.model]}><Marker model={s.model} x={x.at(ns[cursor])} y={clampY(s.values[cursor])} r={4.5} /></g>)}
            </g>
          )}
        </svg>
        <figcaption className="sim-readout" aria-live="polite" data-testid="sim-readout">
          {cursor === null ? (
            <span className="muted">Hover over the chart, or focus it (Tab) and use ← →, to read the estimates at each n; every value is also in the table below.</span>
          ) : (
            <>
              <strong>n = {fmtInt(ns[cursor])}</strong>
              {series.map((s) => <span key={s.model} className="sim-readout-item"><ModelKey model={s.model} /> {s.model} {fmtSeconds(s.values[cursor])}</span>)}
            </>
          )}
        </figcaption>
      </figure>
      <ul className="legend sim-legend" aria-label="Legend">
        {series.map((s) => (
          <li key={s.model}>
            <ModelKey model={s.model} />
            <strong>{s.model}</strong> <span className="muted">{MODELS[s.model].versions}</span> ·{' '}
            <span className={`sim-growth-text ${s.growth.kind}`}>{s.growth.label}</span> <span className="muted">({s.growth.perDoubling})</span>
          </li>
        ))}
        {showSim && <li className="muted">markers: the simulated run (n = {fmtInt(simN)})</li>}
      </ul>
      {quad.length > 0 && mode === 'sameShape' && (
        <p className="small sim-chart-note">
          {quad.map((s) => s.model).join(' and ')} {quad.length === 1 ? 'grows' : 'grow'} quadratically: each operation steps over tombstones whose number grows with the batch, so doubling n quadruples the time
          {series.some((s) => s.growth.kind === 'linear') ? `, while ${series.filter((s) => s.growth.kind === 'linear').map((s) => s.model).join(' and ')} stay${series.filter((s) => s.growth.kind === 'linear').length === 1 ? 's' : ''} linear` : ''}.
        </p>
      )}
      <details className="sim-data">
        <summary>Chart data as a table</summary>
        <ChartTable ns={ns} series={series} results={results} />
      </details>
    </div>
  );
}

function ChartTable({ ns, series }: { ns: number[]; series: ChartSeries[]; results: ModelResult[] }) {
  return (
    <div className="table-scroll">
      <table className="grid sim-data-table" data-testid="sim-chart-table">
        <thead>
          <tr><th scope="col" className="num">n</th>{series.map((s) => <th key={s.model} scope="col" className="num">{s.model}</th>)}</tr>
        </thead>
        <tbody>
          {ns.map((n, j) => (
            <tr key={n}>
              <th scope="row" className="num">{fmtInt(n)}</th>
              {series.map((s) => <td key={s.model} className="num">{fmtSeconds(s.values[j])}</td>)}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
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
    <button type="button" className="btn primary" disabled={status === 'loading'} onClick={() => void loadSyntheticStack()} data-testid="sim-rerun-synthetic">
      Re-run on a synthetic stack
    </button>
  );
  return (
    <div className="sim-view" data-testid="simulator-view" data-state={d ? 'shared' : 'shared-none'} data-source="shared">
      <section className="panel sim-shared-note" data-testid="sim-shared-note">
        <h2>Simulator <span className="muted">shared report (no files)</span></h2>
        {value == null ? (
          <p>The sharer included no simulation results, and the tables themselves are not in a link. Rebuild a stack of the same shape (same tables, record kinds and counts, tombstones; synthetic names) to simulate on it.</p>
        ) : d ? (
          <p>These are the <strong>sharer&rsquo;s results</strong>, computed on their real tables and carried by the link: read-only. To try other workloads, rebuild a stack of the same shape and simulate on it.</p>
        ) : (
          <p>The link carries simulation results in a form this view does not read; they are shown as they are below (and in the Share view).</p>
        )}
        <p>{rerun}</p>
      </section>
      {d ? <SimResults d={d} /> : value != null ? <section className="panel"><SimulationResults value={value} /></section> : null}
    </div>
  );
}
