/**
 * The fleet view's figures, computed from the rows of a scan file in plain JavaScript: totals,
 * filtering and sorting, and the distributions charted (tombstone share, table count, predicted
 * time). Pure functions, so the end-to-end test can check the page against a hand count of the file.
 */
import type { FleetRow } from './scanfile.ts';

export interface FleetTotals {
  repositories: number;
  reftable: number;
  files: number;
  unreadable: number;
  errors: number;
  withLocks: number;
  refs: number;
  tombstoneRecords: number;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

export function totals(rows: FleetRow[]): FleetTotals {
  const t: FleetTotals = {
    repositories: rows.length,
    reftable: 0,
    files: 0,
    unreadable: 0,
    errors: 0,
    withLocks: 0,
    refs: 0,
    tombstoneRecords: 0,
  };
  for (const r of rows) {
    if (r.backend === 'reftable') t.reftable++;
    else if (r.backend === 'files') t.files++;
    if (r.gitReadable === false) t.unreadable++;
    if (r.error !== null && r.error !== undefined) t.errors++;
    if (num(r.locks) > 0) t.withLocks++;
    t.refs += num(r.refs);
    t.tombstoneRecords += num(r.tombstoneRecords);
  }
  return t;
}

/** The predicted seconds of a row: its oldest model's estimate (what most forges still run). */
export function predicted(r: FleetRow): number | null {
  for (const k of ['git249Seconds', 'git255Seconds', 'git256Seconds', 'filesSeconds']) {
    const v = r[k];
    if (typeof v === 'number') return v;
  }
  return null;
}

export interface Filter {
  text: string;
  backend: '' | 'reftable' | 'files';
  unreadableOnly: boolean;
}

export function filterRows(rows: FleetRow[], f: Filter): FleetRow[] {
  const q = f.text.toLowerCase();
  return rows.filter(
    (r) =>
      (!q || String(r.path).toLowerCase().includes(q) || String(r.findingCodes ?? '').includes(q)) &&
      (!f.backend || r.backend === f.backend) &&
      (!f.unreadableOnly || r.gitReadable === false),
  );
}

/** Sort by a column (numbers, text, truth values; nulls last either way). */
export function sortRows(rows: FleetRow[], col: string, desc: boolean): FleetRow[] {
  const get = (r: FleetRow) => (col === 'predicted' ? predicted(r) : r[col]);
  return [...rows].sort((a, b) => {
    const x = get(a);
    const y = get(b);
    if (x === null || x === undefined) return y === null || y === undefined ? 0 : 1;
    if (y === null || y === undefined) return -1;
    const c =
      typeof x === 'number' && typeof y === 'number'
        ? x - y
        : String(x) < String(y)
          ? -1
          : String(x) > String(y)
            ? 1
            : 0;
    return desc ? -c : c;
  });
}

export interface Bin {
  label: string;
  count: number;
}

/** Tombstone share in tenths: 0, (0, 10 %), [10 %, 20 %), … [90 %, 100 %]. */
export function tombstoneBins(rows: FleetRow[]): Bin[] {
  const bins: Bin[] = [{ label: '0', count: 0 }];
  for (let i = 0; i < 10; i++) bins.push({ label: `${i * 10}–${i * 10 + 10} %`, count: 0 });
  for (const r of rows) {
    const s = r.tombstoneShare;
    if (typeof s !== 'number') continue;
    if (s === 0) bins[0].count++;
    else bins[1 + Math.min(9, Math.floor(s * 10))].count++;
  }
  return bins;
}

/** Tables per stack: 0 (files backend), 1, 2, 3, 4–7, 8–15, 16–31, 32 and more. */
export function tableBins(rows: FleetRow[]): Bin[] {
  const edges = [0, 1, 2, 3, 4, 8, 16, 32];
  const labels = ['0', '1', '2', '3', '4–7', '8–15', '16–31', '≥ 32'];
  const bins = labels.map((label) => ({ label, count: 0 }));
  for (const r of rows) {
    if (typeof r.tables !== 'number') continue;
    let i = edges.length - 1;
    while (i > 0 && r.tables < edges[i]) i--;
    bins[i].count++;
  }
  return bins;
}

/** Predicted seconds in decades: < 1 ms, 1–10 ms, …, ≥ 100 s. */
export function timeBins(rows: FleetRow[]): Bin[] {
  const labels = ['< 1 ms', '1–10 ms', '10–100 ms', '0.1–1 s', '1–10 s', '10–100 s', '≥ 100 s'];
  const bins = labels.map((label) => ({ label, count: 0 }));
  for (const r of rows) {
    const s = predicted(r);
    if (s === null) continue;
    const i = s < 0.001 ? 0 : Math.min(6, 1 + Math.floor(Math.log10(s / 0.001) + 1e-9));
    bins[i].count++;
  }
  return bins;
}
