import { useApp } from '../shell/store.ts';
import { fmtBytes, fmtInt, fmtPct, plural } from '../lib/format.ts';
import { STACK_KINDS, kindWidths } from '../lib/svg.ts';

export function StackView() {
  const loaded = useApp((s) => s.loaded)!;
  const navigate = useApp((s) => s.navigate);
  const r = loaded.result.report;
  const splits = loaded.result.splits;
  if (!r || !r.stack) {
    return (
      <div className="panel empty-note">
        The stack view is for reftable stacks; this input is {loaded.result.description || 'not one'}.
      </div>
    );
  }
  const max = Math.max(1, ...r.tables.map((t) => t.fileSize));
  const order = r.tables.map((_, i) => i).reverse(); // newest at the top, oldest at the bottom
  return (
    <div className="stack-view">
      <div className="panel">
        <div className="stack-head">
          <h2>
            Stack{' '}
            <span className="muted">
              newest on top · bar width = file size · {fmtBytes(r.stack.totalBytes)} in {fmtInt(r.stack.tables)}{' '}
              {r.stack.tables === 1 ? 'table' : 'tables'}
            </span>
          </h2>
          <ul className="legend" aria-label="Legend">
            {STACK_KINDS.map((k) => (
              <li key={k.key}>
                <span className={`swatch ${k.cls}`} />
                {k.label}
              </li>
            ))}
          </ul>
        </div>
        <ol className="stack-bars" aria-label="Tables, newest first">
          {order.map((i) => {
            const t = r.tables[i];
            const s = splits[i];
            const seg = s ? kindWidths(s) : null;
            const w = (100 * t.fileSize) / max;
            const upd =
              t.minUpdateIndex === null
                ? '—'
                : t.minUpdateIndex === t.maxUpdateIndex
                  ? `${t.minUpdateIndex}`
                  : `${t.minUpdateIndex}–${t.maxUpdateIndex}`;
            const desc = s
              ? `${fmtInt(s.live)} live, ${fmtInt(s.shadowed)} shadowed, ${plural(s.tombstones, 'tombstone')}, ${plural(t.records.log + t.records.logDeletion, 'log record')}`
              : 'could not be read';
            return (
              <li key={i}>
                <button
                  type="button"
                  className={t.error ? 'stack-row broken' : 'stack-row'}
                  data-testid="stack-bar"
                  data-name={t.name}
                  onClick={() => navigate({ view: 'table', t: i, b: null, r: null })}
                >
                  <span className="stack-label">
                    <span className="stack-idx">
                      #{i}
                      {i === r.tables.length - 1 && r.tables.length > 1 ? ' newest' : i === 0 ? ' base' : ''}
                    </span>
                    <span className="mono stack-name" title={t.name}>
                      {t.name}
                    </span>
                    <span className="muted small">
                      update index {upd} · {fmtBytes(t.fileSize)}
                      {t.copyOf !== undefined && ` · same file as position ${t.copyOf}`}
                    </span>
                  </span>
                  <span className="stack-track">
                    <span className="stack-bar" style={{ width: `${Math.max(w, 0.4)}%` }}>
                      {seg ? (
                        STACK_KINDS.map(
                          (k) =>
                            seg[k.key] > 0 && (
                              <span
                                key={k.key}
                                className={`seg ${k.cls}`}
                                style={{ flexGrow: seg[k.key] }}
                                title={`${k.label}: ${fmtBytes(Math.round(seg[k.key]))} (${fmtPct(seg[k.key], t.fileSize)})`}
                              />
                            ),
                        )
                      ) : (
                        <span className="seg k-broken" style={{ flexGrow: 1 }} />
                      )}
                    </span>
                    <span className="stack-caption small">
                      {desc}
                      {t.error ? ` — ${t.error.expected}` : ''}
                    </span>
                  </span>
                </button>
              </li>
            );
          })}
        </ol>
      </div>
      <StackNotes />
    </div>
  );
}

function StackNotes() {
  const r = useApp((s) => s.loaded?.result.report);
  if (!r?.stack) return null;
  const s = r.stack;
  const hidden = r.tables.reduce((a, t) => a + t.hiddenByTombstone, 0);
  return (
    <div className="panel notes">
      <h3>Reading the stack</h3>
      <ul>
        <li>
          A lookup consults every table from the newest down: this stack has {fmtInt(s.tables)}{' '}
          {s.tables === 1 ? 'table' : 'tables'}.
        </li>
        <li>
          {plural(s.refRecords, 'ref record')} {s.refRecords === 1 ? 'is' : 'are'} stored for{' '}
          {plural(s.live, 'live ref')}
          {s.refRecords ? ` (${fmtPct(s.live, s.refRecords)} of the records are live)` : ''}.
        </li>
        {s.tombstones > 0 && (
          <li>
            {plural(s.tombstones, 'tombstone')} {s.tombstones === 1 ? 'wins' : 'win'} in the merged view;{' '}
            {s.tombstones === 1 ? 'it hides' : 'they hide'} {plural(hidden, 'older record')} that{' '}
            {hidden === 1 ? 'is' : 'are'} still stored and still read.
          </li>
        )}
      </ul>
    </div>
  );
}
