/**
 * The history panel of the Refs view: every record of the selected ref in every table, newest
 * first (update index, kind, which one git reads, what each shadows), and its reflog entries.
 * The worker reads each table with one point seek (src/engine/history.ts); nothing else moves.
 */
import { useEffect, useState } from 'react';
import type { RefHistory } from '../../engine/history.ts';
import { engine } from '../shell/engine.ts';
import { shortTableName } from '../lib/util.ts';

function when(t?: number): string {
  return t === undefined
    ? ''
    : new Date(t * 1000)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.000Z$/, ' UTC');
}

export function HistoryPanel({ name, loadId }: { name: string; loadId: number }) {
  // The answer is kept with the name and load it is for: a stale one reads as "not yet".
  const [got, setGot] = useState<{ key: string; h?: RefHistory | null; error?: string } | null>(null);
  const key = `${loadId}\u0000${name}`;
  useEffect(() => {
    let live = true;
    engine()
      .refHistory(name)
      .then(
        (r) => live && setGot({ key, h: r }),
        (e: unknown) => live && setGot({ key, error: e instanceof Error ? e.message : String(e) }),
      );
    return () => {
      live = false;
    };
  }, [name, key]);
  const cur = got?.key === key ? got : null;
  const h = cur ? (cur.error ? undefined : cur.h) : undefined;
  const error = cur?.error ?? null;
  if (error)
    return (
      <section className="ref-detail history" aria-label={`History of ${name}`} data-testid="ref-history">
        <p role="alert">{error}</p>
      </section>
    );
  if (h === undefined) return <p className="muted">Reading the history of {name}…</p>;
  if (h === null)
    return (
      <p className="muted" data-testid="ref-history-none">
        A ref&apos;s history across tables needs a reftable stack (packed-refs keeps one record per name).
      </p>
    );
  const w = h.records[0];
  return (
    <section className="ref-detail history" aria-label={`History of ${name}`} data-testid="ref-history">
      <h2 className="mono ref-detail-name">{h.name}</h2>
      <p data-testid="ref-history-state">
        {!w
          ? `No record of this name in any of the ${h.tablesRead} tables.`
          : w.kind === 'tombstone'
            ? `Deleted: the tombstone in ${shortTableName(w.table)} wins` +
              (w.hides.length ? ` and hides ${w.hides.length} older record${w.hides.length > 1 ? 's' : ''}.` : '.')
            : `Live: git reads the ${w.kind} record in ${shortTableName(w.table)}.`}{' '}
        <span className="muted">
          {h.records.length} of {h.tablesRead} tables hold a record; {h.seek.seeks} seeks.
        </span>
      </p>
      {h.records.length > 0 && (
        <table className="history-records" data-testid="ref-history-records">
          <caption className="sr-only">Records of {h.name}, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Table</th>
              <th scope="col">Update index</th>
              <th scope="col">Kind</th>
              <th scope="col">Value</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {h.records.map((r) => (
              <tr key={r.table} data-testid="history-record" data-kind={r.kind} data-wins={r.wins ? '1' : '0'}>
                <td className="mono small" title={r.table}>
                  #{r.tableIndex} {shortTableName(r.table)}
                </td>
                <td>{r.updateIndex}</td>
                <td>{r.kind}</td>
                <td className="mono small">
                  {r.kind === 'symref' ? `→ ${r.target}` : r.kind === 'tombstone' ? '—' : r.oid}
                  {r.peeled && <div className="muted">peeled {r.peeled}</div>}
                </td>
                <td>
                  {r.wins
                    ? r.hides.length
                      ? `wins, hides ${r.hides.length} older`
                      : 'wins'
                    : `hidden by #${h.records[0].tableIndex}`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3 className="small">Reflog ({h.logs.length})</h3>
      {h.logs.length === 0 ? (
        <p className="muted">No reflog entries for this name.</p>
      ) : (
        <ol className="history-logs small" data-testid="ref-history-logs">
          {h.logs.map((l) => (
            <li key={`${l.tableIndex}-${l.updateIndex}`} className={l.wins ? '' : 'muted'} data-testid="history-log">
              <span>{l.updateIndex}</span>{' '}
              {l.type === 'deletion' ? (
                <span>reflog deleted</span>
              ) : (
                <>
                  <span className="mono">
                    {l.oldId?.slice(0, 12)} → {l.newId?.slice(0, 12)}
                  </span>{' '}
                  <span>{l.message?.trim()}</span>{' '}
                  <span className="muted">
                    {l.name} {when(l.time)}
                  </span>
                </>
              )}{' '}
              <span className="muted">#{l.tableIndex}</span>
              {!l.wins && <span className="muted"> (shadowed by a newer table)</span>}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
