import { useApp } from '../store.ts';

/**
 * Placeholder for the Compaction view (issue #5), filled by another developer.
 * Available: `useApp` (store.ts) for the loaded result and route, `engine()` (engine.ts) for the
 * worker API (add methods to src/engine/session.ts and workers/engine.worker.ts).
 */
export function CompactionView() {
  const loaded = useApp((s) => s.loaded);
  return (
    <div className="panel placeholder" data-testid="placeholder-compaction">
      <h2>Compaction</h2>
      <p>Compaction: the geometry git sees (by bytes) and the geometry that costs (by records), the segment git's next auto-compaction merges, JGit's rule, and a compacted stack to download.</p>
      <p className="muted">Coming soon (issue #5).{loaded?.result.report?.stack ? '' : ' Needs a reftable stack.'}</p>
    </div>
  );
}
