/**
 * Deep links: the selected view, table, block and record, and the refs filter, kept in the URL
 * fragment as `#/<view>?t=1&b=3&r=5&q=refs%2Fheads%2F&m=prefix&x=1&sample=basic-sha1` (and the
 * simulator's workload, `#/simulator?w=recreate`).
 *
 * The `#/` prefix marks a route; any other fragment (e.g. `#s=…`, a shared report payload) is left
 * alone for the feature that owns it. The older `#view=table&t=1` form is accepted too.
 */
export const VIEWS = [
  'overview',
  'stack',
  'table',
  'refs',
  'compaction',
  'simulator',
  'share',
  'watch',
  'compare',
] as const;
export type ViewId = (typeof VIEWS)[number];

export interface Route {
  view: ViewId;
  /** Selected table (index into report.tables), or null. */
  t: number | null;
  /** Selected block of that table, or null. */
  b: number | null;
  /** Selected record within that block, or null. */
  r: number | null;
  /** Refs view: filter text, mode, tombstones shown. */
  q: string;
  m: 'prefix' | 'substring';
  x: boolean;
  /** Sample asked for by the link ('none' = start empty), or null. */
  sample: string | null;
  /**
   * Simulator view: the chosen workload spec (`recreate`, `create:1000:refs/heads/new/:per-ref`,
   * `lookup:missing:1000`, … or `stdin` for pasted input), or absent / null for the default.
   */
  w?: string | null;
  /** Refs view: the selected ref's full name (`#/refs?ref=refs/heads/main`), or absent / null. */
  ref?: string | null;
  /**
   * The `s=` value of a shared report (`<version>.<data>`) while one is shown, so that the URL
   * stays a share link: `#s=<value>&view=stack&t=1`. Absent / null otherwise.
   */
  share?: string | null;
  /** Compare view: a shared comparison's `c=` value (`<version>.<data>`), or absent / null. */
  c?: string | null;
}

export const DEFAULT_ROUTE: Route = {
  view: 'overview',
  t: null,
  b: null,
  r: null,
  q: '',
  m: 'prefix',
  x: false,
  sample: null,
};

function int(v: string | null): number | null {
  if (v === null || !/^\d{1,9}$/.test(v)) return null;
  return Number(v);
}

/** True when the fragment is a route (or empty), false when it belongs to someone else (e.g. `#s=`). */
export function isRouteHash(hash: string): boolean {
  const h = hash.replace(/^#/, '');
  return h === '' || h.startsWith('/') || h.startsWith('view=');
}

/** True when the fragment is a share link's (`#s=…`, optionally followed by `&view=…` route parameters). */
export function isShareHash(hash: string): boolean {
  return /^#?s=/.test(hash);
}

/**
 * Parse a fragment (with or without the leading `#`). Unknown or foreign fragments give the default
 * route. A share fragment (`#s=<value>&view=…`) gives its route parameters and `share`.
 */
export function parseRoute(hash: string): Route {
  let h = hash.replace(/^#/, '');
  let view: string | null = null;
  let query: string;
  if (h.startsWith('/')) {
    h = h.slice(1);
    const qi = h.indexOf('?');
    view = qi < 0 ? h : h.slice(0, qi);
    query = qi < 0 ? '' : h.slice(qi + 1);
  } else if (h.startsWith('view=') || h.startsWith('s=')) {
    query = h;
  } else return { ...DEFAULT_ROUTE };
  const p = new URLSearchParams(query);
  if (p.has('view')) view = p.get('view');
  const v = (VIEWS as readonly string[]).includes(view ?? '') ? (view as ViewId) : 'overview';
  const m = p.get('m') === 'substring' ? 'substring' : 'prefix';
  return {
    view: v,
    t: int(p.get('t')),
    b: int(p.get('b')),
    r: int(p.get('r')),
    q: p.get('q') ?? '',
    m,
    x: p.get('x') === '1',
    sample: p.get('sample'),
    ...(p.has('w') && v === 'simulator' ? { w: p.get('w') } : {}),
    ...(p.has('ref') && v === 'refs' ? { ref: p.get('ref') } : {}),
    ...(p.has('c') && v === 'compare' ? { c: p.get('c') } : {}),
    ...(p.has('s') ? { share: p.get('s') } : {}),
  };
}

/**
 * Format a route as a fragment (`#/view?…`), leaving out defaults. With `share`, the fragment is
 * the share link's, followed by the route (`#s=<value>&view=<view>&…`), and no sample.
 */
export function formatRoute(r: Route): string {
  if (r.share) {
    const q = formatRoute({ ...r, share: null, sample: null });
    const i = q.indexOf('?');
    return `#s=${r.share}&view=${r.view}${i < 0 ? '' : '&' + q.slice(i + 1)}`;
  }
  const p = new URLSearchParams();
  if (r.t !== null) p.set('t', String(r.t));
  if (r.b !== null) p.set('b', String(r.b));
  if (r.r !== null) p.set('r', String(r.r));
  if (r.view === 'refs') {
    if (r.q) p.set('q', r.q);
    if (r.m !== 'prefix') p.set('m', r.m);
    if (r.x) p.set('x', '1');
    if (r.ref) p.set('ref', r.ref);
  }
  if (r.view === 'simulator' && r.w) p.set('w', r.w);
  if (r.view === 'compare' && r.c) p.set('c', r.c);
  if (r.sample) p.set('sample', r.sample);
  const qs = p.toString();
  return `#/${r.view}${qs ? '?' + qs : ''}`;
}
