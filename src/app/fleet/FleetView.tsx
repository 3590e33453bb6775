/**
 * The fleet view: a `refscope scan` result (Parquet or JSON Lines) as a sortable, filterable table
 * of repositories, its totals, and three distributions drawn as SVG bar charts (tombstone share,
 * tables per stack, predicted time). "Open…" on a row asks for that repository's folder (the page
 * cannot read a path on its own) and opens it in the other views.
 */
import { useMemo, useRef, useState } from 'react';
import { useFixedRows } from '../lib/fixedrows.ts';
import { useFleet } from './store.ts';
import {
  filterRows,
  sortRows,
  tableBins,
  timeBins,
  tombstoneBins,
  totals,
  predicted,
  type Bin,
  type Filter,
} from './model.ts';
import type { FleetRow } from './scanfile.ts';
import './fleet.css';

/** A table row's height in pixels (fleet.css gives the rows this height): the table is virtual. */
const ROW_HEIGHT = 28;

const fmt = (n: number): string => n.toLocaleString('en-US');

function secs(s: number | null): string {
  if (s === null) return '—';
  if (s >= 1) return `${s.toFixed(2)} s`;
  if (s >= 0.001) return `${(s * 1000).toFixed(1)} ms`;
  return `${(s * 1e6).toFixed(0)} µs`;
}

const COLUMNS: { key: string; label: string; num?: boolean; show: (r: FleetRow) => string }[] = [
  { key: 'path', label: 'repository', show: (r) => String(r.path) },
  { key: 'backend', label: 'backend', show: (r) => String(r.backend ?? '—') },
  { key: 'refs', label: 'refs', num: true, show: (r) => (typeof r.refs === 'number' ? fmt(r.refs) : '—') },
  { key: 'tables', label: 'tables', num: true, show: (r) => (typeof r.tables === 'number' ? fmt(r.tables) : '—') },
  { key: 'bytes', label: 'bytes', num: true, show: (r) => (typeof r.bytes === 'number' ? fmt(r.bytes) : '—') },
  {
    key: 'tombstoneShare',
    label: 'tombstone share',
    num: true,
    show: (r) => (typeof r.tombstoneShare === 'number' ? `${(r.tombstoneShare * 100).toFixed(1)} %` : '—'),
  },
  {
    key: 'debtBytes',
    label: 'debt bytes',
    num: true,
    show: (r) => (typeof r.debtBytes === 'number' ? fmt(r.debtBytes) : '—'),
  },
  { key: 'locks', label: 'locks', num: true, show: (r) => (typeof r.locks === 'number' ? fmt(r.locks) : '—') },
  {
    key: 'findings',
    label: 'findings',
    num: true,
    show: (r) => (typeof r.findings === 'number' ? fmt(r.findings) : '—'),
  },
  {
    key: 'gitReadable',
    label: 'git reads it',
    show: (r) => (r.gitReadable === true ? 'yes' : r.gitReadable === false ? 'NO' : '—'),
  },
  { key: 'predicted', label: 'predicted', num: true, show: (r) => secs(predicted(r)) },
  {
    key: 'git249FixGain',
    label: 'best fix (gain)',
    num: true,
    show: (r) =>
      r.git249Fix
        ? `${String(r.git249Fix)} (×${Number(r.git249FixGain).toFixed(1)})`
        : r.filesFix
          ? String(r.filesFix)
          : '—',
  },
];

function BarChart({ title, bins, id }: { title: string; bins: Bin[]; id: string }) {
  const w = 360;
  const h = 140;
  const max = Math.max(1, ...bins.map((b) => b.count));
  const bw = (w - 20) / bins.length;
  return (
    <figure className="fleet-chart" data-testid={`fleet-chart-${id}`}>
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${w} ${h + 36}`} width={w} height={h + 36} role="img" aria-label={title}>
        {bins.map((b, i) => {
          const bh = Math.round(((h - 16) * b.count) / max);
          const x = 10 + i * bw;
          return (
            <g key={b.label} data-label={b.label} data-count={b.count}>
              <rect x={x + 2} y={h - bh} width={bw - 4} height={bh} className="fleet-bar">
                <title>{`${b.label}: ${fmt(b.count)}`}</title>
              </rect>
              <text x={x + bw / 2} y={h - bh - 3} textAnchor="middle" className="fleet-count">
                {b.count ? fmt(b.count) : ''}
              </text>
              <text x={x + bw / 2} y={h + 14} textAnchor="middle" className="fleet-label">
                {b.label}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

export function FleetView({ onOpenRepository }: { onOpenRepository: (row: FleetRow) => void }) {
  const { name, rows, status, error, close } = useFleet();
  const [filter, setFilter] = useState<Filter>({ text: '', backend: '', unreadableOnly: false });
  const [sort, setSort] = useState<{ col: string; desc: boolean }>({ col: 'predicted', desc: true });
  const shown = useMemo(
    () => (rows ? sortRows(filterRows(rows, filter), sort.col, sort.desc) : []),
    [rows, filter, sort],
  );
  const t = useMemo(() => totals(shown), [shown]);
  if (status === 'loading')
    return (
      <div className="fleet" data-testid="fleet">
        Reading {name}…
      </div>
    );
  if (status === 'error')
    return (
      <div className="fleet" data-testid="fleet">
        <div className="banner error" role="alert" data-testid="fleet-error">
          {error}
        </div>
        <button onClick={close}>Close</button>
      </div>
    );
  if (!rows) return null;
  return (
    <div className="fleet" data-testid="fleet">
      <div className="fleet-head">
        <h2>
          Fleet: <span data-testid="fleet-name">{name}</span>
        </h2>
        <button onClick={close} data-testid="fleet-close">
          Close the fleet view
        </button>
      </div>
      <dl className="fleet-totals" data-testid="fleet-totals">
        {(
          [
            ['repositories', t.repositories],
            ['reftable', t.reftable],
            ['files backend', t.files],
            ['git cannot read', t.unreadable],
            ['not analysed', t.errors],
            ['with lock files', t.withLocks],
            ['refs', t.refs],
            ['tombstone records', t.tombstoneRecords],
          ] as const
        ).map(([k, v]) => (
          <div key={k} data-testid={`fleet-total-${k.replace(/ /g, '-')}`} data-value={v}>
            <dt>{k}</dt>
            <dd>{fmt(v)}</dd>
          </div>
        ))}
      </dl>
      <div className="fleet-charts">
        <BarChart id="tombstones" title="Tombstone share (repositories)" bins={tombstoneBins(shown)} />
        <BarChart id="tables" title="Tables per stack (repositories)" bins={tableBins(shown)} />
        <BarChart
          id="time"
          title="Predicted time of the workload, oldest model (repositories)"
          bins={timeBins(shown)}
        />
      </div>
      <div className="fleet-filter">
        <input
          type="search"
          placeholder="filter by path or finding code"
          aria-label="filter repositories"
          data-testid="fleet-filter"
          value={filter.text}
          onChange={(e) => setFilter({ ...filter, text: e.target.value })}
        />
        <select
          aria-label="backend"
          data-testid="fleet-backend"
          value={filter.backend}
          onChange={(e) => setFilter({ ...filter, backend: e.target.value as Filter['backend'] })}
        >
          <option value="">both backends</option>
          <option value="reftable">reftable</option>
          <option value="files">files</option>
        </select>
        <label>
          <input
            type="checkbox"
            data-testid="fleet-unreadable"
            checked={filter.unreadableOnly}
            onChange={(e) => setFilter({ ...filter, unreadableOnly: e.target.checked })}
          />{' '}
          only those git cannot read
        </label>
        <span className="muted" data-testid="fleet-count" data-value={shown.length}>
          {fmt(shown.length)} of {fmt(rows.length)} repositories
        </span>
      </div>
      <FleetTable shown={shown} sort={sort} setSort={setSort} onOpenRepository={onOpenRepository} />
    </div>
  );
}

/**
 * The repositories table, virtual: only the rows in view (and a few around) are drawn, between
 * two spacer rows that keep the scroll height, so every row of a scan file of any size can be
 * reached by scrolling (src/app/lib/fixedrows.ts).
 */
function FleetTable({
  shown,
  sort,
  setSort,
  onOpenRepository,
}: {
  shown: FleetRow[];
  sort: { col: string; desc: boolean };
  setSort: (s: { col: string; desc: boolean }) => void;
  onOpenRepository: (row: FleetRow) => void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const v = useFixedRows(scroller, shown.length, ROW_HEIGHT);
  const first = v.rows[0];
  const last = v.rows[v.rows.length - 1];
  const before = first ? first.top : 0;
  const after = last ? Math.max(0, v.totalHeight - last.top - ROW_HEIGHT) : 0;
  return (
    <div className="fleet-scroll" ref={scroller} data-testid="fleet-scroll" tabIndex={0} aria-label="Repositories">
      <table className="fleet-table" data-testid="fleet-table">
        <thead>
          <tr>
            {COLUMNS.map((c) => (
              <th
                key={c.key}
                className={c.num ? 'num' : undefined}
                aria-sort={sort.col === c.key ? (sort.desc ? 'descending' : 'ascending') : 'none'}
              >
                <button
                  data-testid={`fleet-sort-${c.key}`}
                  onClick={() => setSort({ col: c.key, desc: sort.col === c.key ? !sort.desc : !!c.num })}
                >
                  {c.label}
                  {sort.col === c.key ? (sort.desc ? ' ▼' : ' ▲') : ''}
                </button>
              </th>
            ))}
            <th />
          </tr>
        </thead>
        <tbody>
          {before > 0 && <tr aria-hidden="true" className="fleet-spacer" style={{ height: before }} />}
          {v.rows
            .map(({ index }) => shown[index])
            .map((r) => (
              <tr
                key={`${String(r.root)}\0${String(r.path)}`}
                className={r.gitReadable === false ? 'unreadable' : undefined}
              >
                {COLUMNS.map((c) => (
                  <td
                    key={c.key}
                    className={c.num ? 'num' : undefined}
                    title={c.key === 'path' ? `${String(r.root)}/${String(r.path)}` : undefined}
                  >
                    {c.show(r)}
                  </td>
                ))}
                <td>
                  <button onClick={() => onOpenRepository(r)} title="choose this repository's folder to open it">
                    Open…
                  </button>
                </td>
              </tr>
            ))}
          {after > 0 && <tr aria-hidden="true" className="fleet-spacer" style={{ height: after }} />}
        </tbody>
      </table>
    </div>
  );
}
