/**
 * The Compare view: two snapshots of the same ref storage side by side ("keep this, open
 * another"): the input kept is the before side, the one loaded now the after side. Shows tables
 * added, removed and merged (by update_index ranges), refs created / updated / deleted, records
 * and tombstones dropped and written, bytes and compaction debt before and after, and whether
 * the change was a compaction (src/engine/diff.ts, in the worker; lists cut to their first 200).
 */
import { useEffect, useState } from 'react';
import type { StackDiff, DiffTable } from '../../engine/diff.ts';
import { useApp } from '../shell/store.ts';
import { engine } from '../shell/engine.ts';
import { fmtInt } from '../lib/format.ts';
import { shortTableName } from '../lib/util.ts';

type Answer = StackDiff & { cut: number; counts: Record<string, number> };

/** The kept load (module state: it outlives the view while the user opens the other input). */
let kept: { id: number; label: string } | null = null;

const range = (t: DiffTable) => `${t.minUpdateIndex}–${t.maxUpdateIndex}`;

export function CompareView() {
  const loaded = useApp((s) => s.loaded)!;
  const [keptNow, setKept] = useState(kept);
  const [got, setGot] = useState<{ id: number; d: Answer | null; error?: string } | null>(null);
  const other = keptNow && keptNow.id !== loaded.id;
  useEffect(() => {
    if (!other) return;
    let live = true;
    engine()
      .compare()
      .then(
        (d) => live && setGot({ id: loaded.id, d }),
        (e: unknown) => live && setGot({ id: loaded.id, d: null, error: e instanceof Error ? e.message : String(e) }),
      );
    return () => {
      live = false;
    };
  }, [other, loaded.id]);
  const keep = async () => {
    if (await engine().keepForCompare()) {
      kept = { id: loaded.id, label: loaded.label };
      setKept(kept);
    }
  };
  const drop = async () => {
    await engine().dropKept();
    kept = null;
    setKept(null);
  };
  const d = got && got.id === loaded.id ? got.d : null;
  return (
    <div className="panel compare-view">
      <h2>Compare two snapshots</h2>
      {!keptNow ? (
        <p>
          Keep <strong>{loaded.label}</strong> as the before side, then open the after side (another folder, a copy
          taken after <code>git pack-refs --auto</code> or a push) with Open files or Open folder.{' '}
          <button type="button" className="btn" onClick={() => void keep()} data-testid="compare-keep">
            Keep this, open another
          </button>
        </p>
      ) : !other ? (
        <p data-testid="compare-waiting">
          Kept <strong>{keptNow.label}</strong>. Now open the other input.{' '}
          <button type="button" className="btn small" onClick={() => void drop()}>
            Forget it
          </button>
        </p>
      ) : (
        <p>
          Before: <strong>{keptNow.label}</strong> · after: <strong>{loaded.label}</strong>{' '}
          <button type="button" className="btn small" onClick={() => void drop()}>
            Forget the kept input
          </button>
        </p>
      )}
      {got?.error && <p role="alert">{got.error}</p>}
      {other && d && (
        <div
          data-testid="compare-result"
          data-compaction={d.compaction ? '1' : '0'}
          data-unrelated={d.unrelated ? '1' : '0'}
        >
          {d.unrelated && (
            <p className="warn" role="alert" data-testid="compare-unrelated">
              These stacks look unrelated: {d.unrelated}. The figures below compare two different stacks, not one
              stack&apos;s change.
            </p>
          )}
          <p data-testid="compare-summary">
            {d.unrelated
              ? 'Two unrelated stacks: no compaction or transaction can be told.'
              : d.compaction
                ? d.writes
                  ? 'New transactions and a compaction.'
                  : 'A compaction: tables were merged, no new transaction.'
                : d.writes
                  ? 'New transactions, no compaction.'
                  : 'No new transaction and no compaction.'}
          </p>
          <table className="compare-sides">
            <thead>
              <tr>
                <th scope="col"></th>
                <th scope="col">Before</th>
                <th scope="col">After</th>
              </tr>
            </thead>
            <tbody>
              {(
                [
                  ['Tables', d.before.tables, d.after.tables],
                  ['Bytes', d.before.bytes, d.after.bytes],
                  ['Live refs', d.before.liveRefs, d.after.liveRefs],
                  ['Tombstones', d.before.tombstones, d.after.tombstones],
                  ['Records pack-refs would drop', d.before.debt.droppableRecords, d.after.debt.droppableRecords],
                ] as const
              ).map(([k, a, b]) => (
                <tr key={k}>
                  <th scope="row">{k}</th>
                  <td>{fmtInt(a)}</td>
                  <td>{fmtInt(b)}</td>
                </tr>
              ))}
              <tr>
                <th scope="row">Auto-compaction would merge</th>
                <td>
                  {d.before.debt.segment
                    ? `tables ${d.before.debt.segment.start}–${d.before.debt.segment.end}`
                    : 'nothing'}
                </td>
                <td>
                  {d.after.debt.segment
                    ? `tables ${d.after.debt.segment.start}–${d.after.debt.segment.end}`
                    : 'nothing'}
                </td>
              </tr>
            </tbody>
          </table>
          <h3>Tables</h3>
          <ul data-testid="compare-tables">
            {d.merges.map((m) => (
              <li
                key={m.table.name}
                data-testid="compare-merge"
                data-from={m.from.map((t) => t.name).join(',')}
                data-into={m.table.name}
              >
                merged {m.from.length} tables ({m.from.map((t) => `${shortTableName(t.name)} ${range(t)}`).join(', ')})
                into {shortTableName(m.table.name)} ({range(m.table)})
              </li>
            ))}
            {d.tablesAdded
              .filter((t) => !d.merges.some((m) => m.table.name === t.name))
              .map((t) => (
                <li key={t.name}>
                  added {shortTableName(t.name)} ({range(t)})
                </li>
              ))}
            <li>
              {d.tablesAdded.length} added, {d.tablesRemoved.length} removed, {d.tablesKept} kept
            </li>
          </ul>
          <h3>Records and refs</h3>
          <p
            data-testid="compare-records"
            data-dropped={d.counts.recordsDropped}
            data-tombstones-dropped={d.tombstonesDropped}
          >
            {fmtInt(d.counts.recordsDropped)} records dropped ({fmtInt(d.tombstonesDropped)} tombstones),{' '}
            {fmtInt(d.counts.recordsWritten)} written ({fmtInt(d.tombstonesAdded)} tombstones); refs{' '}
            {fmtInt(d.counts.refsCreated)} created, {fmtInt(d.counts.refsUpdated)} updated,{' '}
            {fmtInt(d.counts.refsDeleted)} deleted.
          </p>
          <ul className="small mono">
            {d.recordsDropped.map((r) => (
              <li key={`${r.table}-${r.name}-${r.updateIndex}`}>
                dropped {r.kind} {r.name} ({r.updateIndex})
              </li>
            ))}
            {d.refsCreated.map((r) => (
              <li key={`c-${r.name}`}>created {r.name}</li>
            ))}
            {d.refsUpdated.map((r) => (
              <li key={`u-${r.name}`}>updated {r.name}</li>
            ))}
            {d.refsDeleted.map((r) => (
              <li key={`d-${r.name}`}>deleted {r.name}</li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
