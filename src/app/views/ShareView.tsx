import { useApp } from '../store.ts';

/**
 * Placeholder for the Share view (issue #7), filled by another developer.
 * Available: `useApp` (store.ts) for the loaded result and route, `engine()` (engine.ts) for the
 * worker API (add methods to src/engine/session.ts and workers/engine.worker.ts).
 */
export function ShareView() {
  const loaded = useApp((s) => s.loaded);
  return (
    <div className="panel placeholder" data-testid="placeholder-share">
      <h2>Share</h2>
      <p>Share: a link that carries the diagnosis without ref names, and exports (JSON, Markdown, stack picture, repro script).</p>
      <p className="muted">Coming soon (issue #7).{loaded?.result.report?.stack ? '' : ' Needs a reftable stack.'}</p>
    </div>
  );
}
