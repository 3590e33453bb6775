import {
  Component,
  Suspense,
  useCallback,
  useEffect,
  useRef,
  type KeyboardEvent as ReactKeyboardEvent,
  type ReactNode,
} from 'react';
import { useApp } from './store.ts';
import { VIEWS, type ViewId } from './route.ts';
import { useFleet } from '../fleet/store.ts';
import { inputsFromFiles, pickFiles, pickFolder, pickersSupported } from './input.ts';
import { loadInputs } from './drops.ts';
import { fmtBytes, fmtInt } from '../lib/format.ts';
import { isTyping } from '../lib/util.ts';
import { consumeLaunches } from './pwa.ts';
import { PwaNotices } from './PwaNotices.tsx';
import { Shortcuts } from './Shortcuts.tsx';
import { lazyView } from '../lib/lazyview.tsx';
import { CliEquivalent } from './CliEquivalent.tsx';
import { OverviewView } from '../views/OverviewView.tsx';
import { NeedsFiles, ShareNotice, needsFiles, watchShareLinks } from '../share/share-open.tsx';
// Every view but the Overview (the first one drawn) is its own chunk: the page paints with the
// shell and the Overview only, then fetches the other views' files without running them
// (`prefetchViews`), and imports a tab's chunk when the pointer or focus is on the tab
// (`preloadTab`), so a tab opened later draws at once. The service worker precaches them too.
const StackView = lazyView(() => import('../views/StackView.tsx').then((m) => m.StackView));
const TableView = lazyView(() => import('../views/TableView.tsx').then((m) => m.TableView));
const RefsView = lazyView(() => import('../views/RefsView.tsx').then((m) => m.RefsView));
const WatchView = lazyView(() => import('../views/WatchView.tsx').then((m) => m.WatchView));
const CompareView = lazyView(() => import('../views/CompareView.tsx').then((m) => m.CompareView));
const ShareView = lazyView(() => import('../share/ShareView.tsx').then((m) => m.ShareView));
const FleetView = lazyView(() => import('../fleet/FleetView.tsx').then((m) => m.FleetView));
const CompactionView = lazyView(() => import('../compaction/CompactionView.tsx').then((m) => m.CompactionView));
const SimulatorView = lazyView(() => import('../simulator/SimulatorView.tsx').then((m) => m.SimulatorView));
/** The lazy view of each tab (the Overview is in the start-up chunk). */
const LAZY_VIEWS: Partial<Record<ViewId, { preload(): Promise<void> }>> = {
  stack: StackView,
  table: TableView,
  refs: RefsView,
  watch: WatchView,
  compare: CompareView,
  share: ShareView,
  compaction: CompactionView,
  simulator: SimulatorView,
};

/**
 * A tab the pointer is on, or that has focus, is likely the next one opened: its chunk is
 * imported (evaluated) now, so it draws at once when chosen.
 */
function preloadTab(v: ViewId): void {
  void LAZY_VIEWS[v]?.preload().catch(() => undefined);
}

/**
 * Fetch the other views' files into the HTTP cache once the first analysis is on screen (or the
 * start-up failed), while the page is idle, or after 5 s; earlier, they would share a slow link
 * with the first analysis. Fetched, not imported: importing a view evaluated its chunk (fflate,
 * in the compare and share code, builds its tables then) and added its stylesheets, a restyle of
 * the whole page each, which made a chain of long main-thread tasks. A `fetch` whose body is
 * only stored costs the main thread about a millisecond; one per idle callback. The list is
 * written into the built page (vite.config.ts `laterFiles`); the dev server has none.
 */
function prefetchViews(): () => void {
  let started = false;
  let stopped = false;
  const idle = (f: () => void, timeout: number) => {
    const ric = (globalThis as { requestIdleCallback?: (f: () => void, o?: { timeout: number }) => void })
      .requestIdleCallback;
    if (ric) ric(f, { timeout });
    else setTimeout(f, 0);
  };
  const files = (document.querySelector<HTMLMetaElement>('meta[name="refscope-later"]')?.content ?? '')
    .split(' ')
    .filter(Boolean);
  const next = (i: number) => {
    if (stopped || i >= files.length) return;
    // Same mode and credentials as the page's module imports, so the cached response serves them.
    void fetch(files[i], { credentials: 'same-origin' })
      .then((r) => r.blob())
      .catch(() => undefined);
    idle(() => next(i + 1), 1000);
  };
  const go = () => {
    if (started) return;
    started = true;
    unsubscribe();
    clearTimeout(timer);
    next(0);
  };
  const unsubscribe = useApp.subscribe((s) => {
    if (!s.loaded && !s.appError) return;
    unsubscribe();
    idle(go, 500);
  });
  const timer = setTimeout(go, 5000);
  return () => {
    stopped = true;
    unsubscribe();
    clearTimeout(timer);
  };
}

const TAB_LABEL: Record<ViewId, string> = {
  overview: 'Overview',
  stack: 'Stack',
  table: 'Tables',
  refs: 'Refs',
  compaction: 'Compaction',
  simulator: 'Simulator',
  share: 'Share',
  watch: 'Watch',
  compare: 'Compare',
};

export function App() {
  const route = useApp((s) => s.route);
  const status = useApp((s) => s.status);
  const loaded = useApp((s) => s.loaded);
  const dragging = useApp((s) => s.dragging);
  const appError = useApp((s) => s.appError);
  const fleetStatus = useFleet((s) => s.status);
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const tabsRef = useRef<HTMLDivElement>(null);

  const openFiles = useCallback(async () => {
    if (!pickersSupported) {
      filesInput.current?.click();
      return;
    }
    try {
      const r = await pickFiles();
      if (r) loadInputs(r, 'opened');
    } catch {
      filesInput.current?.click();
    }
  }, []);

  const openFolder = useCallback(async () => {
    if (!pickersSupported) {
      folderInput.current?.click();
      return;
    }
    try {
      const r = await pickFolder();
      if (r) loadInputs(r, 'opened');
    } catch {
      folderInput.current?.click();
    }
  }, []);

  // Share links (`#s=…`): opened at start-up and when the fragment changes to one (share-open.tsx).
  useEffect(() => watchShareLinks(), []);
  useEffect(() => prefetchViews(), []);

  // Files the installed app was opened with from the OS (manifest file_handlers): like a drop.
  useEffect(() => {
    consumeLaunches(
      (files) => loadInputs(inputsFromFiles(files), 'opened'),
      (msg) => useApp.setState({ appError: msg }),
    );
  }, []);

  // Keyboard: Ctrl/Cmd+O open files, Ctrl/Cmd+Shift+O open folder, 1–9 switch views.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'o') {
        e.preventDefault();
        if (e.shiftKey) void openFolder();
        else void openFiles();
        return;
      }
      if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
      if (/^[1-9]$/.test(e.key)) {
        useApp.getState().navigate({ view: VIEWS[Number(e.key) - 1] });
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [openFiles, openFolder]);

  const onTabKey = (e: ReactKeyboardEvent) => {
    if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft' && e.key !== 'Home' && e.key !== 'End') return;
    e.preventDefault();
    const i = VIEWS.indexOf(route.view);
    const n = VIEWS.length;
    const j = e.key === 'Home' ? 0 : e.key === 'End' ? n - 1 : (i + (e.key === 'ArrowRight' ? 1 : n - 1)) % n;
    useApp.getState().navigate({ view: VIEWS[j] });
    requestAnimationFrame(() => tabsRef.current?.querySelector<HTMLElement>(`[data-view="${VIEWS[j]}"]`)?.focus());
  };

  const result = loaded?.result;
  const view = route.view;
  return (
    <div className="app">
      <header className="topbar">
        <a className="brand" href="#/overview" aria-label="refscope overview">
          <svg className="logo" viewBox="0 0 24 24" aria-hidden="true">
            <rect x="3" y="15" width="18" height="5" rx="1" />
            <rect x="5" y="9" width="14" height="4" rx="1" />
            <rect x="8" y="4" width="8" height="3" rx="1" />
          </svg>
          <span>refscope</span>
        </a>
        <div className="source" aria-live="polite">
          {status === 'loading' ? (
            <span className="muted">Loading {useApp.getState().loadingLabel}…</span>
          ) : result ? (
            <>
              <span className="source-label">{loaded!.label}</span>
              <span className="muted"> · {result.description || result.kind}</span>
            </>
          ) : (
            <span className="muted">No input yet</span>
          )}
        </div>
        <div className="actions">
          <button
            type="button"
            className="btn"
            data-testid="open-files"
            onClick={() => void openFiles()}
            title="Open files (Ctrl/⌘+O)"
          >
            Open files
          </button>
          <button
            type="button"
            className="btn"
            data-testid="open-folder"
            onClick={() => void openFolder()}
            title="Open folder (Ctrl/⌘+Shift+O)"
          >
            Open folder
          </button>
          <SamplesMenu />
          <Shortcuts />
          <input
            ref={filesInput}
            type="file"
            multiple
            hidden
            data-testid="open-files-input"
            aria-hidden="true"
            tabIndex={-1}
            onChange={(e) => {
              const f = e.currentTarget.files;
              if (f?.length) loadInputs(inputsFromFiles(f), 'opened');
              e.currentTarget.value = '';
            }}
          />
          <input
            ref={folderInput}
            type="file"
            hidden
            data-testid="open-folder-input"
            aria-hidden="true"
            tabIndex={-1}
            // A property, not an attribute: Preact sets a prop the element has (`webkitdirectory`
            // is a boolean property) as that property, so `''` would turn it off.
            {...({ webkitdirectory: true, directory: '' } as Record<string, unknown>)}
            onChange={(e) => {
              const f = e.currentTarget.files;
              if (f?.length) loadInputs(inputsFromFiles(f), 'opened');
              e.currentTarget.value = '';
            }}
          />
        </div>
      </header>
      <ProgressBar />
      <nav aria-label="Views">
        <div className="tabs" role="tablist" aria-label="Views" ref={tabsRef} onKeyDown={onTabKey}>
          {VIEWS.map((v, i) => (
            <a
              key={v}
              role="tab"
              href={`#/${v}`}
              data-view={v}
              data-testid={`tab-${v}`}
              aria-selected={view === v}
              tabIndex={view === v ? 0 : -1}
              className={view === v ? 'tab active' : 'tab'}
              onClick={(e) => {
                e.preventDefault();
                useApp.getState().navigate({ view: v });
              }}
              onPointerEnter={() => preloadTab(v)}
              onFocus={() => preloadTab(v)}
              title={`${TAB_LABEL[v]} (${i + 1})`}
            >
              {TAB_LABEL[v]}
            </a>
          ))}
        </div>
      </nav>
      {appError && (
        <div className="banner error" role="alert" data-testid="app-error">
          <span>{appError}</span>
          <button
            type="button"
            className="btn small"
            onClick={() => useApp.setState({ appError: null })}
            aria-label="Dismiss"
          >
            Dismiss
          </button>
        </div>
      )}
      <ShareNotice />
      {status === 'ready' && loaded?.result.pending && loaded.result.pending.length > 0 && (
        <div className="banner" role="status" data-testid="load-pending">
          <span>
            The counts are complete; still computing {loaded.result.pending.join(' and ')} (findings may be added).
          </span>
        </div>
      )}
      {loaded?.result.report && loaded.result.error && (
        <div className="banner warning" role="status" data-testid="load-warning">
          <span>The report is shown, but the refs could not be listed: {loaded.result.error.message}</span>
        </div>
      )}
      <main
        className={status === 'loading' && loaded ? 'content stale' : 'content'}
        aria-label={TAB_LABEL[view]}
        data-testid="main"
        data-status={status}
        data-load-id={loaded?.id ?? 0}
        data-pool-tables={loaded?.result.parsedInPool ?? 0}
        aria-busy={status === 'loading'}
      >
        {(loaded || view === 'watch' || (view === 'compare' && route.c)) && (
          <h1 className="sr-only">refscope · {TAB_LABEL[view]}</h1>
        )}
        {fleetStatus !== 'idle' ? (
          <Suspense fallback={<LazyFallback />}>
            <FleetView onOpenRepository={() => void openFolder()} />
          </Suspense>
        ) : view === 'watch' ? (
          // Watching needs no loaded input: it reads its own folder.
          <Suspense fallback={<LazyFallback />}>
            <WatchView />
          </Suspense>
        ) : view === 'compare' && route.c ? (
          // A shared comparison needs no loaded input either.
          <Suspense fallback={<LazyFallback />}>
            <CompareView />
          </Suspense>
        ) : !loaded ? (
          <Welcome onOpenFiles={openFiles} onOpenFolder={openFolder} />
        ) : needsFiles(loaded, view) ? (
          <NeedsFiles view={view} />
        ) : (
          // One boundary per view and report: a view that fails says so, the others still work.
          <ViewBoundary key={`${view}:${loaded.id}`} view={TAB_LABEL[view]}>
            {view === 'overview' ? (
              <OverviewView />
            ) : (
              <Suspense fallback={<LazyFallback />}>
                {view === 'stack' ? (
                  <StackView />
                ) : view === 'table' ? (
                  <TableView />
                ) : view === 'refs' ? (
                  <RefsView />
                ) : view === 'compaction' ? (
                  <CompactionView />
                ) : view === 'simulator' ? (
                  <SimulatorView />
                ) : view === 'compare' ? (
                  <CompareView />
                ) : (
                  <ShareView />
                )}
              </Suspense>
            )}
          </ViewBoundary>
        )}
        {loaded && !needsFiles(loaded, view) && <CliEquivalent view={view} />}
      </main>
      <footer className="statusbar">
        <span>Everything stays in this browser: files are read locally by a worker, nothing is uploaded.</span>
        <span className="muted">
          Keys: ? help · Ctrl/⌘+K jump to · 1–9 views · Ctrl/⌘+O open files · Ctrl/⌘+Shift+O open folder
        </span>
      </footer>
      <PwaNotices />
      {dragging && (
        <div className="drop-overlay" aria-hidden="true">
          <div className="drop-card">
            <div className="drop-title">Drop to analyse</div>
            <div className="muted">
              a <code>reftable/</code> folder, a <code>.git</code> folder or bare repository, <code>.ref</code> files
              with or without <code>tables.list</code>, or a <code>packed-refs</code> file
            </div>
          </div>
        </div>
      )}
    </div>
  );
}

/**
 * An error boundary around one view: a view that throws while drawing (an unexpected value in a
 * report) shows what happened instead of blanking the page; the tabs and other views stay usable.
 */
class ViewBoundary extends Component<{ view: string; children: ReactNode }, { error: string | null }> {
  override state = { error: null as string | null };

  static getDerivedStateFromError(e: unknown): { error: string } {
    return { error: e instanceof Error ? e.message : String(e) };
  }

  override render() {
    if (this.state.error === null) return this.props.children;
    return (
      <div className="banner error" role="alert" data-testid="view-error">
        <span>
          The {this.props.view} view could not be shown: {this.state.error.slice(0, 300)}. The other views still work.
        </span>
      </div>
    );
  }
}

function LazyFallback() {
  return (
    <div className="panel muted" role="status">
      Loading the view…
    </div>
  );
}

function ProgressBar() {
  const status = useApp((s) => s.status);
  const p = useApp((s) => s.progress);
  if (status !== 'loading') return <div className="progress idle" />;
  const frac = p && p.bytesTotal ? (p.bytesRead + p.bytesParsed) / (2 * p.bytesTotal) : 0;
  const text = p
    ? `${p.phase === 'merging' ? 'Merging tables' : p.phase === 'reading' ? 'Reading' : 'Parsing'} · ${fmtBytes(p.bytesParsed)} of ${fmtBytes(p.bytesTotal)}${p.tablesTotal ? ` · table ${fmtInt(Math.min(p.tablesDone + 1, p.tablesTotal))} of ${fmtInt(p.tablesTotal)}` : ''}`
    : 'Starting…';
  return (
    <div
      className="progress"
      role="progressbar"
      aria-label="Analysis progress"
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(frac * 100)}
      aria-valuetext={text}
      data-testid="progress"
    >
      <div
        className={p ? 'progress-fill' : 'progress-fill indeterminate'}
        style={{ transform: p ? `scaleX(${Math.max(0.02, frac)})` : undefined }}
      />
      <div className="progress-text">{text}</div>
    </div>
  );
}

function SamplesMenu() {
  const samples = useApp((s) => s.samples);
  const caps = useApp((s) => s.capabilities);
  const ref = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    const close = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) ref.current.open = false;
    };
    document.addEventListener('click', close);
    return () => document.removeEventListener('click', close);
  }, []);
  return (
    <details
      className="menu"
      ref={ref}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && ref.current) {
          ref.current.open = false;
          ref.current.querySelector('summary')?.focus();
        }
      }}
    >
      <summary className="btn" data-testid="samples-menu">
        Samples
      </summary>
      <div className="menu-list" role="menu">
        {samples.map((s) => {
          const missing = !!s.requires && !!caps && !(caps as unknown as Record<string, boolean>)[s.requires];
          return (
            <button
              type="button"
              role="menuitem"
              key={s.name}
              className="menu-item"
              data-testid={`sample-${s.name}`}
              onClick={() => {
                if (ref.current) ref.current.open = false;
                void useApp.getState().loadSample(s.name);
              }}
              disabled={missing}
              title={missing ? 'Needs packed-refs support in the engine (not in this build yet)' : s.description}
            >
              <span className="menu-title">{s.title}</span>
              <span className="menu-desc">{missing ? 'not available in this build yet' : s.description}</span>
            </button>
          );
        })}
        {!samples.length && <div className="menu-item muted">No samples found</div>}
      </div>
    </details>
  );
}

function Welcome({ onOpenFiles, onOpenFolder }: { onOpenFiles: () => void; onOpenFolder: () => void }) {
  const status = useApp((s) => s.status);
  const starting = useApp((s) => s.starting);
  const samples = useApp((s) => s.samples);
  const caps = useApp((s) => s.capabilities);
  if (status === 'loading' || starting)
    return (
      <div className="welcome">
        <div className="spinner" aria-hidden="true" />
        <p className="muted">Analysing…</p>
      </div>
    );
  return (
    <div className="welcome">
      <h1>Why is this ref store slow?</h1>
      <p className="lead">
        Drop a <code>reftable/</code> folder, a <code>.git</code> folder, <code>.ref</code> files or a{' '}
        <code>packed-refs</code> file anywhere on this page. Nothing leaves your machine.
      </p>
      <div className="welcome-actions">
        <button type="button" className="btn primary" onClick={onOpenFolder}>
          Open folder
        </button>
        <button type="button" className="btn" onClick={onOpenFiles}>
          Open files
        </button>
      </div>
      {samples.length > 0 && (
        <div className="welcome-samples">
          <div className="muted">or try a sample:</div>
          {samples.map((s) => (
            <button
              type="button"
              key={s.name}
              className="btn small"
              onClick={() => void useApp.getState().loadSample(s.name)}
              disabled={!!s.requires && !!caps && !(caps as unknown as Record<string, boolean>)[s.requires]}
              title={s.description}
            >
              {s.title}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
