/**
 * The Compare view: two snapshots of the same ref storage side by side ("keep this, open
 * another"): the input kept is the before side, the one loaded now the after side. Shows tables
 * added, removed and merged (by update_index ranges), refs created / updated / deleted, records
 * and tombstones dropped and written, bytes and compaction debt before and after, and whether
 * the change was a compaction (src/engine/diff.ts, in the worker; lists cut to their first 200).
 * A comparison can be shared as a link (src/engine/share/compare-link.ts: shapes only, ref names
 * if the sharer opts in); `#/compare?c=…` shows a shared one without any input.
 */
import { useEffect, useMemo, useState } from 'react';
import type { StackDiff, DiffTable } from '../../engine/diff.ts';
import {
  compareLink,
  compareShare,
  decodeCompareShare,
  type CompareShare,
  type CompareSide,
  type CompareTable,
  type DiffCounts,
  MAX_COMPARE_NAMES,
} from '../../engine/share/compare-link.ts';
import { useApp } from '../shell/store.ts';
import { CopyButton } from '../lib/CopyButton.tsx';
import { engine } from '../shell/engine.ts';
import { fmtInt } from '../lib/format.ts';
import { shortTableName } from '../lib/util.ts';

type Answer = StackDiff & { cut: number; counts: Record<string, number> };

/** The kept load (module state: it outlives the view while the user opens the other input). */
let kept: { id: number; label: string } | null = null;

const range = (t: DiffTable) => `${t.minUpdateIndex}–${t.maxUpdateIndex}`;

type Sides = { before: CompareSide; after: CompareSide };

const segText = (s: CompareSide['segment']) => (s ? `tables ${s[0]}–${s[1]}` : 'nothing');

/** The before / after figures of both sides. */
function SidesTable({ d }: { d: Sides }) {
  const rows: [string, number, number][] = [
    ['Tables', d.before.tables, d.after.tables],
    ['Bytes', d.before.bytes, d.after.bytes],
    ['Live refs', d.before.liveRefs, d.after.liveRefs],
    ['Tombstones', d.before.tombstones, d.after.tombstones],
    ['Records pack-refs would drop', d.before.droppableRecords, d.after.droppableRecords],
  ];
  return (
    <table className="compare-sides">
      <thead>
        <tr>
          <th scope="col"></th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([k, a, b]) => (
          <tr key={k}>
            <th scope="row">{k}</th>
            <td data-testid={`compare-before-${k.split(' ')[0].toLowerCase()}`}>{fmtInt(a)}</td>
            <td data-testid={`compare-after-${k.split(' ')[0].toLowerCase()}`}>{fmtInt(b)}</td>
          </tr>
        ))}
        <tr>
          <th scope="row">Auto-compaction would merge</th>
          <td>{segText(d.before.segment)}</td>
          <td>{segText(d.after.segment)}</td>
        </tr>
      </tbody>
    </table>
  );
}

function summaryText(d: { unrelated: boolean; compaction: boolean; writes: boolean }): string {
  if (d.unrelated) return 'Two unrelated stacks: no compaction or transaction can be told.';
  if (d.compaction)
    return d.writes ? 'New transactions and a compaction.' : 'A compaction: tables were merged, no new transaction.';
  return d.writes ? 'New transactions, no compaction.' : 'No new transaction and no compaction.';
}

/** "Share this comparison": a link with the shapes, ref names only if asked for. */
function ShareComparison({ d }: { d: Answer }) {
  const [names, setNames] = useState(false);
  const r = useMemo(() => {
    const base = location.href.split('#')[0];
    return compareLink(compareShare(d, d.counts as unknown as DiffCounts, { names }), base);
  }, [d, names]);
  return (
    <section aria-labelledby="compare-share-h" className="compare-share">
      <h3 id="compare-share-h">Share this comparison</h3>
      <p className="small muted">
        The link carries the figures above, the tables by update_index range and the counts; no file name, and no ref
        name unless you include them. It is read in the browser that opens it: nothing is sent anywhere.
      </p>
      <label className="small">
        <input
          type="checkbox"
          checked={names}
          onChange={(e) => setNames(e.target.checked)}
          data-testid="compare-share-names"
        />{' '}
        Include ref names (the first {MAX_COMPARE_NAMES} of each list)
      </label>
      {r.ok ? (
        <p className="compare-link">
          <a href={r.link} data-testid="compare-share-link" className="mono small">
            {r.link.length > 90 ? `${r.link.slice(0, 60)}…${r.link.slice(-20)}` : r.link}
          </a>{' '}
          <CopyButton text={r.link} what="comparison link" />{' '}
          <span className="muted small">{fmtInt(r.chars)} characters</span>
        </p>
      ) : (
        <p role="alert" data-testid="compare-share-error">
          No link: {r.error}.
        </p>
      )}
    </section>
  );
}

/** The counts of records and refs, in one line. */
function RecordsLine({ c }: { c: Pick<CompareShare, 'records' | 'refs'> }) {
  return (
    <p
      data-testid="compare-records"
      data-dropped={c.records.dropped}
      data-tombstones-dropped={c.records.tombstonesDropped}
    >
      {fmtInt(c.records.dropped)} records dropped ({fmtInt(c.records.tombstonesDropped)} tombstones),{' '}
      {fmtInt(c.records.written)} written ({fmtInt(c.records.tombstonesAdded)} tombstones); refs{' '}
      {fmtInt(c.refs.created)} created, {fmtInt(c.refs.updated)} updated, {fmtInt(c.refs.deleted)} deleted.
    </p>
  );
}

const tableText = (t: CompareTable) =>
  `${t[0]}–${t[1]} (${fmtInt(t[3])} ${t[3] === 1 ? 'record' : 'records'}, ${fmtInt(t[2])} bytes)`;

/** A comparison opened from a link: the same figures, without the inputs. */
function SharedComparison({ value }: { value: string }) {
  const got = useMemo((): { d: CompareShare } | { error: string } => {
    try {
      return { d: decodeCompareShare(value) };
    } catch (e) {
      return { error: e instanceof Error ? e.message : String(e) };
    }
  }, [value]);
  const close = () => useApp.getState().navigate({ c: null });
  if ('error' in got)
    return (
      <div className="panel compare-view">
        <h2>Compare two snapshots</h2>
        <p role="alert" data-testid="compare-shared-error">
          This comparison link cannot be read: {got.error}.
        </p>
        <button type="button" className="btn small" onClick={close}>
          Compare your own inputs
        </button>
      </div>
    );
  const d = got.d;
  const merged = new Set(d.merges.flatMap((m) => m.from));
  const into = new Set(d.merges.map((m) => m.into));
  return (
    <div className="panel compare-view">
      <h2>Compare two snapshots</h2>
      <p>
        A shared comparison: the shapes of two snapshots, not their files.{' '}
        <button type="button" className="btn small" onClick={close}>
          Compare your own inputs
        </button>
      </p>
      <div
        data-testid="compare-result"
        data-shared="1"
        data-compaction={d.compaction ? '1' : '0'}
        data-unrelated={d.unrelated ? '1' : '0'}
      >
        {d.unrelated && (
          <p className="compare-warn" role="alert" data-testid="compare-unrelated">
            These stacks look unrelated. The figures below compare two different stacks, not one stack&apos;s change.
          </p>
        )}
        <p data-testid="compare-summary">{summaryText(d)}</p>
        <SidesTable d={d} />
        <h3>Tables</h3>
        <ul data-testid="compare-tables">
          {d.merges.map((m) => (
            <li
              key={m.into}
              data-testid="compare-merge"
              data-from-ranges={m.from.map((i) => `${d.removed[i][0]}-${d.removed[i][1]}`).join(',')}
              data-into-range={`${d.added[m.into][0]}-${d.added[m.into][1]}`}
            >
              merged {m.from.length} tables ({m.from.map((i) => tableText(d.removed[i])).join(', ')}) into{' '}
              {tableText(d.added[m.into])}
            </li>
          ))}
          {d.added.map((t, i) => (into.has(i) ? null : <li key={`a${i}`}>added {tableText(t)}</li>))}
          {d.removed.map((t, i) => (merged.has(i) ? null : <li key={`r${i}`}>removed {tableText(t)}</li>))}
          <li>
            {d.added.length} added, {d.removed.length} removed, {d.kept} kept
          </li>
        </ul>
        <h3>Records and refs</h3>
        <RecordsLine c={d} />
        {d.names ? (
          <ul className="small mono" data-testid="compare-shared-names">
            {d.names.created.map((n) => (
              <li key={`c-${n}`}>created {n}</li>
            ))}
            {d.names.updated.map((n) => (
              <li key={`u-${n}`}>updated {n}</li>
            ))}
            {d.names.deleted.map((n) => (
              <li key={`d-${n}`}>deleted {n}</li>
            ))}
          </ul>
        ) : (
          <p className="small muted">The sharer left the ref names out.</p>
        )}
      </div>
    </div>
  );
}

export function CompareView() {
  const shared = useApp((s) => s.route.c);
  if (shared) return <SharedComparison value={shared} />;
  return <LiveCompare />;
}

function LiveCompare() {
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
            <p className="compare-warn" role="alert" data-testid="compare-unrelated">
              These stacks look unrelated: {d.unrelated}. The figures below compare two different stacks, not one
              stack&apos;s change.
            </p>
          )}
          <p data-testid="compare-summary">{summaryText({ ...d, unrelated: !!d.unrelated })}</p>
          <SidesTable d={compareShare(d)} />
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
          <RecordsLine c={compareShare(d, d.counts as unknown as DiffCounts)} />
          <ShareComparison d={d} />
          <h3>Records and refs, one by one</h3>
          <div className="compare-list" tabIndex={0} role="region" aria-label="Records and refs, one by one">
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
        </div>
      )}
    </div>
  );
}
