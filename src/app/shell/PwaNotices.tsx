/**
 * The service worker's notices: "update available — reload" (never reloads by itself)
 * and, on the first install, "ready to work offline". Fixed in the bottom-right corner.
 */
import { useEffect } from 'react';
import { useApp } from './store.ts';
import { applyUpdate, deferUpdate, dismissOfflineReady, usePwa } from './pwa.ts';
import './pwa.css';

/** How long the "ready to work offline" notice stays (ms). */
const OFFLINE_READY_MS = 10_000;

export function PwaNotices() {
  const offlineReady = usePwa((s) => s.offlineReady);
  const needRefresh = usePwa((s) => s.needRefresh);
  const elsewhere = usePwa((s) => s.activatedElsewhere);
  const updating = usePwa((s) => s.updating);
  const deferred = usePwa((s) => s.deferred);
  // Files the user opened (not a built-in sample, which the link reopens after a reload).
  const ownFiles = useApp((s) => !!s.loaded && !s.loaded.sample);
  const busy = useApp((s) => s.status === 'loading');

  useEffect(() => {
    if (!offlineReady) return;
    const t = setTimeout(dismissOfflineReady, OFFLINE_READY_MS);
    return () => clearTimeout(t);
  }, [offlineReady]);

  if (!offlineReady && !needRefresh) return null;
  return (
    <div className="pwa-notices">
      {needRefresh && deferred && (
        <button
          type="button"
          className="pwa-pill"
          data-testid="pwa-update"
          data-state="deferred"
          onClick={() => void applyUpdate()}
          title="A new version of refscope is ready. Reload to use it."
        >
          <span className="pwa-dot" aria-hidden="true" />
          Update available — reload
        </button>
      )}
      {needRefresh && !deferred && (
        <div
          className="pwa-toast pwa-update"
          role="status"
          aria-live="polite"
          data-testid="pwa-update"
          data-state="prompt"
        >
          <div className="pwa-text">
            <strong>
              {elsewhere
                ? 'A new version of refscope was activated in another window.'
                : 'A new version of refscope is available.'}
            </strong>
            <span className="muted">
              {busy
                ? 'An analysis is running: reloading would stop it. '
                : ownFiles
                  ? 'Reloading closes the files you opened here; open them again afterwards. '
                  : ''}
              Nothing changes until you reload.
            </span>
          </div>
          <div className="pwa-buttons">
            <button
              type="button"
              className="btn primary small"
              data-testid="pwa-reload"
              onClick={() => void applyUpdate()}
              disabled={updating}
            >
              {updating ? 'Reloading…' : 'Update available — reload'}
            </button>
            <button
              type="button"
              className="btn small"
              data-testid="pwa-later"
              onClick={deferUpdate}
              disabled={updating}
            >
              Later
            </button>
          </div>
        </div>
      )}
      {offlineReady && !needRefresh && (
        <div className="pwa-toast" role="status" aria-live="polite" data-testid="pwa-offline-ready">
          <svg className="pwa-icon" viewBox="0 0 24 24" aria-hidden="true">
            <path d="M9.5 16.2 5.3 12l-1.4 1.4 5.6 5.6L20.1 8.4 18.7 7z" />
          </svg>
          <div className="pwa-text">
            <strong>refscope is ready to work offline.</strong>
            <span className="muted">It now opens and analyses files with no network connection.</span>
          </div>
          <div className="pwa-buttons">
            <button type="button" className="btn small" data-testid="pwa-offline-ok" onClick={dismissOfflineReady}>
              OK
            </button>
          </div>
        </div>
      )}
    </div>
  );
}
