import { useApp } from '../store.ts';

/**
 * Placeholder for the Simulator view (issue #6), filled by another developer.
 * Available: `useApp` (store.ts) for the loaded result and route, `engine()` (engine.ts) for the
 * worker API (add methods to src/engine/session.ts and workers/engine.worker.ts).
 */
export function SimulatorView() {
  const loaded = useApp((s) => s.loaded);
  return (
    <div className="panel placeholder" data-testid="placeholder-simulator">
      <h2>Simulator</h2>
      <p>Simulator: replay batched updates and lookups on these tables per git version, count the work, and predict what a fix would save.</p>
      <p className="muted">Coming soon (issue #6).{loaded?.result.report?.stack ? '' : ' Needs a reftable stack.'}</p>
    </div>
  );
}
