/**
 * Opening share links: a page loaded with `#s=…` (or a `hashchange` to one) decodes it
 * in the worker (`decodeShare` → `reportFromShare`) and shows that report, marked "shared report
 * (no files)". The URL keeps the link while it is shown (`#s=<value>&view=stack`, route.ts), so
 * reloading or copying the address shows the same thing. A link that cannot be read gives the
 * `ShareLinkError` sentence in a banner (`data-testid="error"`), never a blank page.
 *
 * Also here: the banner on shared and synthetic reports, "re-run on a synthetic stack", and the
 * note shown instead of the views that need the files (Tables, Refs).
 */
import { create } from 'zustand';
import * as Comlink from 'comlink';
import type { LoadProgress } from '../../engine/session/index.ts';
import type { SharedReport } from '../../engine/share/index.ts';
import { engine } from '../shell/engine.ts';
import { beginLoad, isLatestLoad, useApp, type Loaded } from '../shell/store.ts';
import { isShareHash, parseRoute, type ViewId } from '../shell/route.ts';
import './share.css';

interface ShareLinkState {
  /** Why the last link could not be opened; shown while `loadedId` is still the load on screen. */
  error: { reason: string; message: string; loadedId: number } | null;
}

export const useShareLink = create<ShareLinkState>(() => ({ error: null }));

/** The `s=` value being opened (a link is opened once even if asked twice, e.g. by StrictMode). */
let opening: string | null = null;

/** The report rebuilt from a link, when `loaded` is one. */
export function sharedReport(loaded: Loaded | null): SharedReport | null {
  const r = loaded?.result.report as SharedReport | null | undefined;
  return loaded?.origin === 'shared' && r && 'shared' in r ? r : null;
}

/** Decode and show the share link in `hash` (`#s=…&view=…`). */
export async function openShareLink(hash: string): Promise<void> {
  const route = parseRoute(hash);
  const share = route.share ?? '';
  if (opening === share) return;
  opening = share;
  const id = beginLoad();
  useApp.setState({ status: 'loading', loadingLabel: 'shared link', progress: null, appError: null });
  useShareLink.setState({ error: null });
  const fail = (reason: string, message: string) => {
    useShareLink.setState({ error: { reason, message, loadedId: useApp.getState().loaded?.id ?? 0 } });
    useApp.setState({ status: useApp.getState().loaded ? 'ready' : 'idle', progress: null });
  };
  try {
    const r = await engine().openShare(hash);
    if (!isLatestLoad(id)) return;
    if (!r.ok) {
      fail(r.reason, r.message);
      return;
    }
    const n = r.result.report?.tables.length ?? 0;
    const keep = route.t !== null && route.t < n;
    useApp.setState({
      status: 'ready',
      progress: null,
      loaded: { id, result: r.result, label: 'shared link', sample: null, origin: 'shared', share },
      route: { ...route, share: null, sample: null, t: keep ? route.t : null, b: null, r: null },
    });
  } catch (e) {
    if (isLatestLoad(id)) fail('damaged', `The link could not be opened: ${(e as Error)?.message ?? String(e)}`);
  } finally {
    if (opening === share) opening = null;
  }
}

/** Open `#s=` links at start-up and on `hashchange`/back/forward. Returns the unsubscribe function. */
export function watchShareLinks(): () => void {
  const on = () => {
    const h = location.hash;
    if (!isShareHash(h)) return;
    const route = parseRoute(h);
    const loaded = useApp.getState().loaded;
    if (loaded?.share && loaded.share === route.share) {
      // Back/forward between views of the report already shown.
      useApp.setState({ route: { ...route, share: null, sample: null } });
      return;
    }
    void openShareLink(h);
  };
  on();
  window.addEventListener('hashchange', on);
  window.addEventListener('popstate', on);
  return () => {
    window.removeEventListener('hashchange', on);
    window.removeEventListener('popstate', on);
  };
}

/** Build a synthetic stack of the shared report's shape in the worker and analyse it like files. */
export async function loadSyntheticStack(): Promise<void> {
  const from = useApp.getState().loaded;
  const share = from?.share ?? null;
  // The sharer's results travel with the rebuilt stack (a rebuild of a rebuild keeps them).
  const sharerSimulation = sharedReport(from)?.shared.simulation ?? from?.sharerSimulation ?? null;
  const id = beginLoad();
  useApp.setState({
    status: 'loading',
    loadingLabel: 'a synthetic stack of the shared shape',
    progress: null,
    appError: null,
  });
  let last = 0;
  try {
    const result = await engine().loadSynthetic(
      Comlink.proxy((p: LoadProgress) => {
        if (!isLatestLoad(id)) return;
        const now = performance.now();
        if (now - last < 50 && p.phase !== 'done') return;
        last = now;
        useApp.setState({ progress: p });
      }),
    );
    if (!isLatestLoad(id)) return;
    useApp.setState({
      status: 'ready',
      progress: null,
      loaded: { id, result, label: 'synthetic stack', sample: null, origin: 'synthetic', share, sharerSimulation },
    });
  } catch (e) {
    if (!isLatestLoad(id)) return;
    useApp.setState({
      status: useApp.getState().loaded ? 'ready' : 'idle',
      progress: null,
      appError: `Could not build the synthetic stack: ${(e as Error)?.message ?? String(e)}`,
    });
  }
}

/** Views that read the table files: not available for a shared report. */
export function needsFiles(loaded: Loaded | null, view: ViewId): boolean {
  return loaded?.origin === 'shared' && (view === 'table' || view === 'refs');
}

/** Shown instead of a view that needs the files. */
export function NeedsFiles({ view }: { view: ViewId }) {
  const what =
    view === 'table'
      ? 'The Tables view (blocks, records, hex) reads the table files'
      : 'The Refs view lists ref names from the table files';
  return (
    <div className="panel needs-files" data-testid="needs-files">
      <h2>Not available for a shared report</h2>
      <p>
        {what}, and a shared report has none: the link carries the stack&rsquo;s shape (sizes and counts per table and
        namespace), not its contents.
      </p>
      <p>
        <button type="button" className="btn" onClick={() => void loadSyntheticStack()}>
          Re-run on a synthetic stack
        </button>{' '}
        <span className="muted">
          builds tables of the same shape with synthetic names, so every view works on them.
        </span>
      </p>
    </div>
  );
}

/** The link error, and the marker on shared and synthetic reports (above every view). */
export function ShareNotice() {
  const loaded = useApp((s) => s.loaded);
  const status = useApp((s) => s.status);
  const err = useShareLink((s) => s.error);
  const shared = sharedReport(loaded);
  const showErr = !!err && err.loadedId === (loaded?.id ?? 0);
  return (
    <>
      {showErr && (
        <div className="banner error share-error" role="alert" data-testid="error" data-reason={err.reason}>
          <span>
            <strong>This share link cannot be opened.</strong> {err.message}
          </span>
          <button
            type="button"
            className="btn small"
            onClick={() => useShareLink.setState({ error: null })}
            aria-label="Dismiss"
          >
            Dismiss
          </button>
        </div>
      )}
      {shared && (
        <div className="banner shared-banner" role="status" data-testid="shared-banner">
          <div className="shared-text">
            <strong className="shared-label">{shared.shared.label}</strong>
            <span className="muted">
              {' '}
              made with {shared.shared.generator} ·{' '}
              {shared.shared.withNames ? 'the sharer included ref names' : 'no ref names, no object ids'} · table names
              are synthetic and blocks approximate · the Tables and Refs views need the files
            </span>
          </div>
          <div className="shared-actions">
            {shared.shared.simulation != null && (
              <a
                className="btn small"
                href="#/simulator"
                onClick={(e) => {
                  e.preventDefault();
                  useApp.getState().navigate({ view: 'simulator' });
                }}
              >
                Sharer&rsquo;s simulation results
              </a>
            )}
            <button
              type="button"
              className="btn small primary"
              data-testid="rerun-synthetic"
              disabled={status === 'loading'}
              onClick={() => void loadSyntheticStack()}
            >
              Re-run on a synthetic stack
            </button>
          </div>
        </div>
      )}
      {loaded?.origin === 'synthetic' && (
        <div className="banner synthetic-banner" role="status" data-testid="synthetic-banner">
          <span>
            <strong>Synthetic stack</strong>
            <span className="muted">
              {' '}
              rebuilt from a shared link: same tables, record kinds and counts, shadowing and tombstones as the
              sharer&rsquo;s; names and object ids are made up.
            </span>
          </span>
        </div>
      )}
    </>
  );
}

/** The sharer's simulation results (sanitised JSON from the link), as text. */
export function SimulationResults({ value }: { value: unknown }) {
  if (value == null) return <p className="muted">The sharer included no simulation results.</p>;
  return (
    <pre className="sim-results" data-testid="shared-simulation">
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}
