import { useEffect, useMemo, useRef, useState } from 'react';
import type { ExportFormat } from '../../engine/session/index.ts';
import { useApp } from '../shell/store.ts';
import { engine } from '../shell/engine.ts';
import { fmtInt } from '../lib/format.ts';
import { useAsync } from '../lib/util.ts';
import { stackSvg } from '../lib/svg.ts';
import { downloadBlob, downloadText, svgToPng } from '../shell/download.ts';
import { SimulationResults, sharedReport } from './share-open.tsx';
import { lastRunFor, useSim } from '../simulator/simstore.ts';
import { sharedSimulation, simulationForShare } from '../../engine/share/simulation.ts';
import './share.css';

/** Most characters a link may have, and what typical links stay under (src/engine/share/). */
const MAX_LINK = 8000;
const TYPICAL_LINK = 2000;

/** The app's own address, without fragment: where a link opens. */
function appBase(): string {
  return location.href.split('#')[0];
}

/**
 * Share view: the share dialog (what the link contains, its length, copy) and the
 * exports (JSON, Markdown, repro script, stack picture as SVG and PNG).
 */
export function ShareView() {
  const loaded = useApp((s) => s.loaded)!;
  const report = loaded.result.report;
  const shared = sharedReport(loaded);
  if (!report) {
    return <div className="panel empty-note">Nothing to share: this input could not be analysed.</div>;
  }
  return (
    <div className="share-view">
      <ShareDialog key={loaded.id} />
      <Exports />
      {shared && (
        <section className="panel span-all" aria-labelledby="sim-h">
          <h2 id="sim-h">The sharer&rsquo;s simulation results</h2>
          {sharedSimulation(shared.shared.simulation) ? (
            <>
              <p>
                The link carries the sharer&rsquo;s simulation results:{' '}
                <a
                  href="#/simulator"
                  data-testid="open-shared-simulation"
                  onClick={(e) => {
                    e.preventDefault();
                    useApp.getState().navigate({ view: 'simulator' });
                  }}
                >
                  see them in the Simulator view
                </a>
                .
              </p>
              <details>
                <summary className="muted">As the link holds them (numbers only)</summary>
                <SimulationResults value={shared.shared.simulation} />
              </details>
            </>
          ) : (
            <SimulationResults value={shared.shared.simulation} />
          )}
        </section>
      )}
    </div>
  );
}

function ShareDialog() {
  const loaded = useApp((s) => s.loaded)!;
  const [withNames, setWithNames] = useState(false);
  const [withSim, setWithSim] = useState(true);
  const [copyState, setCopyState] = useState<'idle' | 'copied' | 'manual'>('idle');
  const linkRef = useRef<HTMLTextAreaElement>(null);
  const fromLink = loaded.origin === 'shared';
  // The last simulation made on this analysis (Simulator view): its numbers can travel in the link.
  const sim = useSim((s) => lastRunFor(s, loaded));
  const simulation = useMemo(
    () => (sim && withSim && !fromLink ? simulationForShare(sim) : undefined),
    [sim, withSim, fromLink],
  );
  const ans = useAsync(
    () => engine().share({ withNames, base: appBase(), simulation }),
    [loaded.id, withNames, simulation],
  );
  const a = ans.data;
  // A new link resets the copy button (adjusted while rendering, as React's docs advise).
  const [copiedFor, setCopiedFor] = useState(a);
  if (copiedFor !== a) {
    setCopiedFor(a);
    setCopyState('idle');
  }

  const copy = async () => {
    if (!a?.ok) return;
    try {
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(a.link);
      setCopyState('copied');
    } catch {
      // No clipboard access (permissions, insecure context): select the text for Ctrl/⌘+C.
      const el = linkRef.current;
      if (el) {
        el.focus();
        el.select();
      }
      setCopyState('manual');
    }
  };

  return (
    <section className="panel share-dialog" aria-labelledby="share-h" data-testid="share-dialog">
      <h2 id="share-h">Share a link</h2>
      <p className="share-intro">
        The link carries this report&rsquo;s <em>shape</em> in its fragment (the part after <code>#</code>), which
        browsers never send to a server: whoever opens it sees the same figures, diagnosis and compaction geometry,
        without the files.
      </p>
      <label className="share-names">
        <input
          type="checkbox"
          data-testid="share-with-names"
          checked={withNames}
          disabled={fromLink}
          onChange={(e) => setWithNames(e.currentTarget.checked)}
        />
        <span>
          <strong>Include ref names</strong>
          <span className="muted">
            {fromLink
              ? 'This report was opened from a link: the link below is that one again, with whatever the sharer put in it.'
              : 'Off (the default): no ref names, no object ids — namespaces such as refs/heads/ are kept, remote names become remote-1, remote-2 and so on. On: real namespace and remote names, up to 20 example ref names, and the findings’ texts.'}
          </span>
        </span>
      </label>
      {sim && !fromLink && (
        <label className="share-names">
          <input
            type="checkbox"
            data-testid="share-with-simulation"
            checked={withSim}
            onChange={(e) => setWithSim(e.currentTarget.checked)}
          />
          <span>
            <strong>Include simulation results</strong>
            <span className="muted">
              The last Simulator run ({sim.result.workload.operations.toLocaleString('en-US')} operations;{' '}
              {sim.result.results
                .filter((m) => m.applicable)
                .map((m) => m.model)
                .join(', ')}
              ): per model the estimated time, seeks, blocks, records and tombstones, the phases, the fixes and the
              curve — numbers only, no names.
            </span>
          </span>
        </label>
      )}
      {ans.error && (
        <div className="inline-error" role="alert">
          Could not make the link: {ans.error}
        </div>
      )}
      {!a && !ans.error && <p className="muted">{ans.loading ? 'Making the link…' : 'Nothing to share.'}</p>}
      {a && (
        <>
          <p className="share-summary" data-testid="share-summary">
            {a.description.summary}
          </p>
          {a.ok ? (
            <>
              <div className="share-link-box">
                <label className="sr-only" htmlFor="share-link">
                  Share link
                </label>
                <textarea
                  id="share-link"
                  ref={linkRef}
                  readOnly
                  value={a.link}
                  data-testid="share-link"
                  rows={3}
                  spellCheck={false}
                  onFocus={(e) => e.currentTarget.select()}
                />
                <div className="share-link-actions">
                  <button type="button" className="btn primary" data-testid="share-copy" onClick={() => void copy()}>
                    Copy link
                  </button>
                  <a className="btn small" href={a.link} target="_blank" rel="noopener noreferrer">
                    Open
                  </a>
                </div>
              </div>
              <div className="share-meta" aria-live="polite">
                <span data-testid="share-length" data-value={a.chars}>
                  {fmtInt(a.chars)} characters{' '}
                  {a.chars <= TYPICAL_LINK
                    ? '(short enough for any chat or issue tracker)'
                    : `(under the ${fmtInt(MAX_LINK)} a link may have)`}
                </span>
                {copyState === 'copied' && (
                  <span className="ok" data-testid="share-copied">
                    Copied to the clipboard.
                  </span>
                )}
                {copyState === 'manual' && (
                  <span className="warn-text">
                    The clipboard is not available here: the link is selected, press Ctrl/⌘+C.
                  </span>
                )}
              </div>
            </>
          ) : (
            <div className="inline-error big" role="alert" data-testid="share-error">
              <p className="share-error-text">No link: {a.error}.</p>
              <button type="button" className="btn" onClick={() => void exportDoc('json')}>
                Download the JSON export instead
              </button>
            </div>
          )}
          <div className="share-lists">
            <div>
              <h3>Exactly what the link contains</h3>
              <ul data-testid="share-contains">
                {a.description.contains.map((c, i) => (
                  <li key={i}>{c}</li>
                ))}
              </ul>
            </div>
            <div>
              <h3>It does not contain</h3>
              <ul className="share-omits" data-testid="share-omits">
                {a.description.omits.map((c, i) => (
                  <li key={i}>{c}</li>
                ))}
              </ul>
            </div>
          </div>
        </>
      )}
    </section>
  );
}

async function exportDoc(format: ExportFormat): Promise<void> {
  const d = await engine().exportAs(format);
  downloadText(d.text, d.filename, d.mime);
}

function Exports() {
  const loaded = useApp((s) => s.loaded)!;
  const r = loaded.result.report!;
  const [status, setStatus] = useState<{ text: string; error: boolean } | null>(null);
  const shared = sharedReport(loaded);
  const dark = useDarkScheme();
  const picture = useMemo(
    () =>
      r.stack
        ? stackSvg(r, loaded.result.splits, {
            theme: dark ? 'dark' : 'light',
            note: shared
              ? `${shared.shared.label} — table names are synthetic`
              : loaded.origin === 'synthetic'
                ? 'synthetic stack rebuilt from a shared link'
                : undefined,
          })
        : null,
    [r, loaded.result.splits, dark, shared, loaded.origin],
  );
  const previewUrl = useMemo(
    () => (picture ? URL.createObjectURL(new Blob([picture.svg], { type: 'image/svg+xml' })) : null),
    [picture],
  );
  useEffect(
    () => () => {
      if (previewUrl) URL.revokeObjectURL(previewUrl);
    },
    [previewUrl],
  );

  const run = async (what: string, f: () => Promise<void>) => {
    setStatus({ text: `Preparing ${what}…`, error: false });
    try {
      await f();
      setStatus({ text: `${what} downloaded.`, error: false });
    } catch (e) {
      setStatus({ text: `Could not export ${what}: ${(e as Error)?.message ?? String(e)}`, error: true });
    }
  };
  const isReftable = !!r.stack;
  return (
    <section className="panel" aria-labelledby="export-h">
      <h2 id="export-h">Export</h2>
      <ul className="export-list">
        <li>
          <button
            type="button"
            className="btn"
            data-testid="export-json"
            onClick={() => void run('the JSON report', () => exportDoc('json'))}
          >
            Report (JSON)
          </button>
          <span className="muted">
            the <code>refscope.report/1</code> document, as <code>refscope analyze --json</code> prints it
          </span>
        </li>
        <li>
          <button
            type="button"
            className="btn"
            data-testid="export-md"
            onClick={() => void run('the Markdown report', () => exportDoc('md'))}
          >
            Report (Markdown)
          </button>
          <span className="muted">
            figures, diagnosis and tables for an issue or a mailing-list post (names as inert code spans)
          </span>
        </li>
        <li>
          <button
            type="button"
            className="btn"
            data-testid="export-script"
            disabled={!isReftable}
            onClick={() => void run('the repro script', () => exportDoc('script'))}
          >
            Repro script (bash)
          </button>
          <span className="muted">
            rebuilds a stack of the same shape with <code>git update-ref --stdin</code> and synthetic names
          </span>
        </li>
        <li>
          <button
            type="button"
            className="btn"
            data-testid="export-svg"
            disabled={!picture}
            onClick={() =>
              void run('the stack picture (SVG)', async () =>
                downloadText(picture!.svg, 'refscope-stack.svg', 'image/svg+xml'),
              )
            }
          >
            Stack picture (SVG)
          </button>
          <span className="muted">the Stack view as a standalone SVG, {dark ? 'dark' : 'light'} colours</span>
        </li>
        <li>
          <button
            type="button"
            className="btn"
            data-testid="export-png"
            disabled={!picture}
            onClick={() =>
              void run('the stack picture (PNG)', async () =>
                downloadBlob(await svgToPng(picture!.svg, picture!.width, picture!.height), 'refscope-stack.png'),
              )
            }
          >
            Stack picture (PNG)
          </button>
          <span className="muted">the same, drawn on a canvas at twice the size</span>
        </li>
      </ul>
      <div
        className={status?.error ? 'export-status error-tag' : 'export-status muted'}
        aria-live="polite"
        data-testid="export-status"
      >
        {status?.text ?? ''}
      </div>
      {previewUrl && (
        <div className="stack-preview">
          <img src={previewUrl} alt="Preview of the stack picture" data-testid="stack-preview" />
        </div>
      )}
    </section>
  );
}

/** True while the system (or the browser's emulation) prefers dark colours. */
function useDarkScheme(): boolean {
  const q = useMemo(() => window.matchMedia('(prefers-color-scheme: dark)'), []);
  const [dark, setDark] = useState(q.matches);
  useEffect(() => {
    const on = () => setDark(q.matches);
    q.addEventListener('change', on);
    return () => q.removeEventListener('change', on);
  }, [q]);
  return dark;
}
