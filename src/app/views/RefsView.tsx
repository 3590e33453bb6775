import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useFixedRows } from '../lib/fixedrows.ts';
import type { RefRow, RefsPage } from '../../engine/session/index.ts';
import { useApp } from '../shell/store.ts';
import { engine } from '../shell/engine.ts';
import { fmtInt } from '../lib/format.ts';
import { shortTableName } from '../lib/util.ts';
import { GitVerdict } from './GitVerdict.tsx';
import { HistoryPanel } from './HistoryPanel.tsx';
import { CopyButton } from '../lib/CopyButton.tsx';

const ROW = 26;
const PAGE = 200;

/** Pages of the refs list fetched from the worker on demand, for one query. */
function useRefPages(loadId: number, filter: string, mode: 'prefix' | 'substring', tomb: boolean) {
  const [total, setTotal] = useState<number | null>(null);
  const [stats, setStats] = useState<RefsPage['prefixStats'] | null>(null);
  const [, bump] = useState(0);
  const pages = useRef(new Map<number, RefRow[]>());
  const pending = useRef(new Set<number>());
  const gen = useRef(0);
  // A new query has no total until its first page comes (reset while rendering, as React's docs
  // advise for state that follows props).
  const query = `${loadId}\n${mode}\n${tomb}\n${filter}`;
  const [totalFor, setTotalFor] = useState(query);
  if (totalFor !== query) {
    setTotalFor(query);
    setTotal(null);
    setStats(null);
  }
  useEffect(() => {
    const g = ++gen.current;
    pages.current = new Map();
    pending.current = new Set();
    // Debounce typing a little: the worker scans up to a million names for a substring.
    const timer = setTimeout(
      () => {
        pending.current.add(0);
        engine()
          .refsPage({ filter, mode, includeTombstones: tomb, offset: 0, limit: PAGE })
          .then(
            (p) => {
              if (g !== gen.current) return;
              pending.current.delete(0);
              pages.current.set(0, p.rows);
              setTotal(p.total);
              setStats(p.prefixStats ?? null);
            },
            () => {
              if (g === gen.current) setTotal(0);
            },
          );
      },
      filter ? 120 : 0,
    );
    return () => clearTimeout(timer);
  }, [loadId, filter, mode, tomb]);
  const ensure = useCallback(
    (from: number, to: number) => {
      const g = gen.current;
      for (let p = Math.floor(from / PAGE); p <= Math.floor(to / PAGE); p++) {
        if (pages.current.has(p) || pending.current.has(p)) continue;
        pending.current.add(p);
        engine()
          .refsPage({ filter, mode, includeTombstones: tomb, offset: p * PAGE, limit: PAGE })
          .then(
            (res) => {
              if (g !== gen.current) return;
              pending.current.delete(p);
              pages.current.set(p, res.rows);
              // Keep memory bounded: forget pages far away (the list can be a million rows).
              if (pages.current.size > 60) {
                for (const k of pages.current.keys()) {
                  if (Math.abs(k - p) > 20) pages.current.delete(k);
                }
              }
              bump((x) => x + 1);
            },
            () => {
              pending.current.delete(p);
            },
          );
      }
    },
    [filter, mode, tomb],
  );
  const row = (i: number): RefRow | undefined => pages.current.get(Math.floor(i / PAGE))?.[i % PAGE];
  return { total, stats, ensure, row };
}

export function RefsView() {
  const loaded = useApp((s) => s.loaded)!;
  const route = useApp((s) => s.route);
  const navigate = useApp((s) => s.navigate);
  const [text, setText] = useState(route.q);
  const result = loaded.result;
  const { total, stats, ensure, row } = useRefPages(loaded.id, route.q, route.m, route.x);
  const [picked, setSelected] = useState<number | null>(null);
  // The selected ref is in the URL (`ref=`): a link or the command palette names it, a click or a
  // key picks another. Named and not picked yet: its row on the first page, when it is there.
  const wanted = (): number | null => {
    if (!route.ref || !total) return null;
    for (let i = 0; i < Math.min(total, PAGE); i++) if (row(i)?.name === route.ref) return i;
    return null;
  };
  const selected = picked ?? wanted();
  const pick = (n: number | null) => {
    setSelected(n);
    navigate({ ref: n === null ? null : (row(n)?.name ?? null) }, { replace: true });
  };
  const scrollRef = useRef<HTMLDivElement>(null);
  const count = total ?? 0;
  const v = useFixedRows(scrollRef, count, ROW, 12);
  const items = v.rows;
  const first = items.length ? items[0].index : 0;
  const last = items.length ? items[items.length - 1].index : 0;
  useEffect(() => {
    if (count) ensure(first, last);
  }, [first, last, count, ensure]);
  // A new query or load clears the selection, and the box follows the route's query (adjusted
  // while rendering, as React's docs advise for state that follows props).
  const queryKey = `${loaded.id}\n${route.m}\n${route.x}\n${route.q}`;
  const [shownKey, setShownKey] = useState(queryKey);
  const [shownQ, setShownQ] = useState(route.q);
  if (shownKey !== queryKey) {
    setShownKey(queryKey);
    setSelected(null);
  }
  if (shownQ !== route.q) {
    setShownQ(route.q);
    setText(route.q);
  }

  const setFilter = (q: string) => {
    setText(q);
    navigate({ q }, { replace: true });
  };
  const onKey = (e: KeyboardEvent) => {
    if (!count) return;
    let n = selected ?? -1;
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 400) / ROW) - 1);
    if (e.key === 'ArrowDown') n = Math.min(count - 1, n + 1);
    else if (e.key === 'ArrowUp') n = Math.max(0, n - 1);
    else if (e.key === 'PageDown') n = Math.min(count - 1, n + page);
    else if (e.key === 'PageUp') n = Math.max(0, n - page);
    else if (e.key === 'Home') n = 0;
    else if (e.key === 'End') n = count - 1;
    else if (e.key === 'Escape') {
      pick(null);
      return;
    } else return;
    e.preventDefault();
    pick(n);
    v.scrollToIndex(n);
  };
  const all = route.x ? result.refCountWithTombstones : result.refCount;
  const sel = selected !== null ? row(selected) : undefined;
  const tables = result.report?.tables ?? [];
  return (
    <div className="refs-view panel">
      <GitVerdict
        report={result.report}
        shows="These are the refs refscope reads from the intact tables, not git's list."
      />
      <div className="refs-bar">
        <label className="filter">
          <span className="sr-only">Filter refs</span>
          <input
            type="search"
            value={text}
            placeholder={route.m === 'prefix' ? 'Filter by prefix, e.g. refs/heads/' : 'Filter by substring'}
            onChange={(e) => setFilter(e.currentTarget.value)}
            data-testid="refs-filter"
            spellCheck={false}
            autoComplete="off"
            onKeyDown={(e) => {
              if (e.key === 'ArrowDown') {
                e.preventDefault();
                scrollRef.current?.focus();
                pick(0);
              }
            }}
          />
        </label>
        <div className="seg-control" role="radiogroup" aria-label="Match">
          {(['prefix', 'substring'] as const).map((m) => (
            <button
              type="button"
              key={m}
              role="radio"
              aria-checked={route.m === m}
              className={route.m === m ? 'on' : ''}
              onClick={() => navigate({ m }, { replace: true })}
              data-testid={`refs-mode-${m}`}
            >
              {m}
            </button>
          ))}
        </div>
        <label className="check">
          <input
            type="checkbox"
            checked={route.x}
            onChange={(e) => navigate({ x: e.currentTarget.checked }, { replace: true })}
            data-testid="refs-tombstones"
          />
          show tombstones
        </label>
        <span className="refs-count muted" data-testid="refs-count" data-value={total ?? ''}>
          {total === null
            ? 'counting…'
            : `${fmtInt(total)} of ${fmtInt(all)} ${route.x ? (all === 1 ? 'entry' : 'entries') : all === 1 ? 'live ref' : 'live refs'}`}
        </span>
      </div>
      {stats && <PrefixStats stats={stats} />}
      <div className="refs-table">
        <div className="refs-head" aria-hidden="true">
          <span>Name</span>
          <span>Kind</span>
          <span>Object id</span>
          <span>Table</span>
        </div>
        <div
          className="refs-scroll"
          ref={scrollRef}
          tabIndex={0}
          onKeyDown={onKey}
          role="listbox"
          aria-label="Refs"
          aria-activedescendant={selected !== null ? `ref-${selected}` : undefined}
          data-testid="refs-list"
        >
          <div style={{ height: v.totalHeight, position: 'relative' }}>
            {items.map((it) => {
              const r = row(it.index);
              return (
                <div
                  key={it.index}
                  id={`ref-${it.index}`}
                  role="option"
                  aria-selected={selected === it.index}
                  className={`ref-row${selected === it.index ? ' selected' : ''}${r?.kind === 'tombstone' ? ' tomb' : ''}`}
                  style={{ transform: `translateY(${it.top}px)` }}
                  onClick={() => pick(it.index)}
                  data-testid="ref-row"
                >
                  {r ? (
                    <>
                      <span className="mono ref-name" title={r.name}>
                        {r.name}
                        {r.target !== undefined && <span className="muted"> → {r.target}</span>}
                      </span>
                      <span>
                        <span className={`kind-badge k-${r.kind}`}>
                          {r.kind === 'tombstone' ? 'tombstone' : r.kind}
                        </span>
                      </span>
                      <span className="mono muted">
                        {r.oid ? r.oid.slice(0, 12) : r.kind === 'tombstone' ? '—' : 'dangling'}
                      </span>
                      <span className="mono small" title={r.source}>
                        {r.table >= 0 ? `#${r.table} ${shortTableName(r.source)}` : r.source}
                      </span>
                    </>
                  ) : (
                    <span className="muted skeleton">…</span>
                  )}
                </div>
              );
            })}
          </div>
          {total === 0 && <div className="muted pad">{route.q ? 'No ref matches this filter.' : 'No refs.'}</div>}
        </div>
      </div>
      {sel && (
        <div className="ref-detail" aria-live="polite">
          <div className="mono ref-detail-name">
            {sel.name} <CopyButton text={sel.name} what="ref name" />
          </div>
          <dl className="facts small-facts">
            <div>
              <dt>Kind</dt>
              <dd>{sel.kind}</dd>
            </div>
            {sel.target !== undefined && (
              <div>
                <dt>Target</dt>
                <dd className="mono">
                  {sel.target} <CopyButton text={sel.target} what="symref target" />
                </dd>
              </div>
            )}
            <div>
              <dt>Object id</dt>
              <dd className="mono">
                {sel.oid || '—'} {sel.oid && <CopyButton text={sel.oid} what="object id" />}
              </dd>
            </div>
            {sel.peeled && (
              <div>
                <dt>Peeled</dt>
                <dd className="mono">
                  {sel.peeled} <CopyButton text={sel.peeled} what="peeled object id" />
                </dd>
              </div>
            )}
            <div>
              <dt>From</dt>
              <dd className="mono">{sel.source}</dd>
            </div>
            {sel.updateIndex >= 0 && (
              <div>
                <dt>Update index</dt>
                <dd>{sel.updateIndex}</dd>
              </div>
            )}
          </dl>
          {sel.table >= 0 && sel.block >= 0 && tables[sel.table] && (
            <button
              type="button"
              className="btn small"
              onClick={() =>
                navigate({
                  view: 'table',
                  t: sel.table,
                  b: sel.block,
                  r: sel.blockRecord >= 0 ? sel.blockRecord : null,
                })
              }
            >
              Show in table #{sel.table}, block {sel.block}
            </button>
          )}
        </div>
      )}
      {route.ref && <HistoryPanel name={route.ref} loadId={loaded.id} />}
    </div>
  );
}

/**
 * Under the filtered prefix: the ref records of all tables, the tombstones among them and the
 * live refs. A scan bounded to the prefix (for-each-ref refs/tags/t…) steps over every record.
 */
function PrefixStats({ stats: p }: { stats: NonNullable<RefsPage['prefixStats']> }) {
  const per = p.live ? p.records / p.live : null;
  return (
    <p
      className="muted small refs-prefix-stats"
      data-testid="refs-prefix-stats"
      data-records={p.records}
      data-tombstones={p.tombstones}
      data-live={p.live}
    >
      Under <span className="mono">{p.prefix}</span>: {fmtInt(p.records)} ref record{p.records === 1 ? '' : 's'} in all
      tables, {fmtInt(p.tombstones)} of them tombstone{p.tombstones === 1 ? '' : 's'}, for {fmtInt(p.live)} live ref
      {p.live === 1 ? '' : 's'}
      {per !== null && p.records > p.live
        ? ` — a scan of this prefix steps over ${per >= 10 ? fmtInt(Math.round(per)) : per.toFixed(1)} records per live ref`
        : ''}
      {p.live === 0 && p.records > 0 ? ' — a scan of this prefix steps over them all and lists nothing' : ''}.
    </p>
  );
}
