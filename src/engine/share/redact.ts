/**
 * share/redact: what keeps names out of a link made without names — namespaces kept only when
 * well known (remotes become `remote-N`, others `other-N`), texts only when they cannot be a ref
 * name component or an object id.
 */

/** Second components of `refs/<x>/…` kept as they are; others become `refs/other-N`. */
const KNOWN_NAMESPACES = new Set([
  'heads',
  'tags',
  'remotes',
  'notes',
  'pull',
  'changes',
  'keep-around',
  'merge-requests',
  'pipelines',
  'environments',
  'stash',
  'bisect',
  'replace',
  'prefetch',
  'rewritten',
  'worktree',
  'meta',
  'cache-automerge',
  'users',
  'for',
  'sources',
  'namespaces',
  'original',
  'review',
  'draft-comments',
  'starred-changes',
  'sequences',
  'groups',
  'tmp',
  'backup',
  'archive',
  'svn',
  'p4',
  'jj',
  'gitbutler',
  'branchless',
]);

/**
 * The namespace a ref is shared under (real name): `refs/remotes/<remote>` for remote-tracking
 * refs, else `namespaceOf` (the first two components; `(root)` outside `refs/`).
 */
export function shareNamespaceOf(name: string): string {
  if (!name.startsWith('refs/')) return '(root)';
  const j = name.indexOf('/', 5);
  if (j < 0) return name;
  if (name.startsWith('refs/remotes/')) {
    const k = name.indexOf('/', 13);
    if (k > 13) return name.slice(0, k);
  }
  return name.slice(0, j);
}

const NS_COMPONENT = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * Whether a namespace name from a link is safe to use: `(root)`, or `refs/<c>` or
 * `refs/remotes/<c>` whose components are `[A-Za-z0-9._-]` only and pass git's refname rules
 * (no `..`, no component starting with `.` or ending with `.` or `.lock`). Only such names reach
 * synthetic ref names and the repro script.
 */
export function isSafeNamespace(ns: string): boolean {
  if (ns === '(root)') return true;
  if (typeof ns !== 'string' || ns.length > 255 || !ns.startsWith('refs/')) return false;
  const parts = ns.split('/');
  if (parts.length !== 2 && !(parts.length === 3 && parts[1] === 'remotes')) return false;
  for (const c of parts) {
    if (!NS_COMPONENT.test(c) || c.startsWith('.') || c.endsWith('.') || c.endsWith('.lock') || c.includes('..'))
      return false;
  }
  return true;
}

/** Namespaces of a link with every unsafe one (`isSafeNamespace`) replaced by a synthetic `refs/other-N`. */
export function safeNamespaces(list: readonly string[]): string[] {
  const used = new Set(list.filter(isSafeNamespace));
  let k = 0;
  return list.map((ns) => {
    if (isSafeNamespace(ns)) return ns;
    let name: string;
    do name = `refs/other-${++k}`;
    while (used.has(name));
    used.add(name);
    return name;
  });
}

/** Real namespace names (sorted) → the names put in a link without `withNames`. */
export function redactNamespaces(real: string[]): string[] {
  let remote = 0,
    other = 0;
  return real.map((ns) => {
    if (ns === '(root)') return ns;
    if (ns.startsWith('refs/remotes/')) return `refs/remotes/remote-${++remote}`;
    const second = ns.slice(5);
    if (KNOWN_NAMESPACES.has(second)) return ns;
    return `refs/other-${++other}`;
  });
}

/** Counts of what `sanitizeSimulation` kept. */
export interface SanitizedSimulation {
  value: unknown;
  numbers: number;
  labels: string[];
  removed: number;
}

/** What a simulation text value that looked like a name is replaced with. */
export const REMOVED = '(removed)';
export const SAFE_LABEL = /^[A-Za-z0-9 .,:;()%×+=<>#@'"!?-]{0,64}$/;
/** Keys that would reach an object's prototype when assigned: never kept. */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
export const SAFE_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * Keep numbers, booleans and null; strings only if short label text (not name-like: no `/`, no
 * run of 8 hex digits, no ref name component) — unless `withNames`, then any string up to 200
 * characters; object keys only if identifier-like. Depth ≤ 8, ≤ 2,000 values.
 */
export function sanitizeSimulation(
  v: unknown,
  withNames: boolean,
  components: Set<string> = new Set(),
): SanitizedSimulation {
  let budget = 2000;
  let numbers = 0,
    removed = 0;
  const labels: string[] = [];
  const labelOk = (s: string): boolean => {
    if (withNames) return s.length <= 200;
    if (!SAFE_LABEL.test(s) || /[0-9a-f]{8,}/i.test(s)) return false;
    for (const tok of s.split(/[^A-Za-z0-9._-]+/)) if (tok && components.has(tok)) return false;
    return !components.has(s);
  };
  const walk = (x: unknown, depth: number): unknown => {
    if (budget-- <= 0 || depth > 8) {
      removed++;
      return null;
    }
    if (x === null || typeof x === 'boolean') return x;
    if (typeof x === 'number') {
      if (!Number.isFinite(x)) {
        removed++;
        return null;
      }
      numbers++;
      return x;
    }
    if (typeof x === 'string') {
      if (labelOk(x)) {
        labels.push(x);
        return x;
      }
      removed++;
      return REMOVED;
    }
    if (Array.isArray(x)) {
      // At most what is left of the node budget: a long array is cut, not expanded into nulls.
      const keep = Math.max(0, Math.min(x.length, budget));
      removed += x.length - keep;
      return x.slice(0, keep).map((y) => walk(y, depth + 1));
    }
    if (typeof x === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, y] of Object.entries(x as Record<string, unknown>)) {
        if (!SAFE_KEY.test(k) || UNSAFE_KEYS.has(k) || k in Object.prototype || (!withNames && components.has(k))) {
          removed++;
          continue;
        }
        out[k] = walk(y, depth + 1);
      }
      return out;
    }
    removed++;
    return null;
  };
  const value = walk(v, 0);
  return { value, numbers, labels, removed };
}

/** Up to `n` names, spread over namespaces (round-robin over each namespace's first names). */
export function pickExamples(names: string[], n: number): string[] {
  if (n <= 0) return [];
  const by = new Map<string, string[]>();
  for (const x of names) {
    const ns = shareNamespaceOf(x);
    const l = by.get(ns) ?? [];
    if (l.length < n) l.push(x);
    by.set(ns, l);
  }
  const out: string[] = [];
  for (let round = 0; out.length < n; round++) {
    let any = false;
    for (const l of by.values()) {
      if (round < l.length && out.length < n) {
        out.push(l[round]);
        any = true;
      }
    }
    if (!any) break;
  }
  return out.sort();
}

/** Whether a text may travel in a link made without names (see `sanitizeSimulation`). */
function labelSafe(s: string, components: Set<string>): boolean {
  if (!SAFE_LABEL.test(s) || /[0-9a-f]{8,}/i.test(s)) return false;
  for (const tok of s.split(/[^A-Za-z0-9._-]+/)) if (tok && components.has(tok)) return false;
  return !components.has(s);
}

/**
 * One `stack.compaction` field of the sharer's report as a link carries it, keeping its shape
 * (what share/validate.ts `checkMeasured` accepts): numbers kept (a non-finite one becomes 0),
 * lists cut to `nTables` entries, texts kept when they cannot be a name (any text with names)
 * and cut to `maxText` characters, else `REMOVED`; object keys only when identifier-like.
 */
export function sanitizeMeasured(
  v: unknown,
  withNames: boolean,
  components: Set<string>,
  nTables: number,
  maxText: number,
): unknown {
  const walk = (x: unknown, depth: number): unknown => {
    if (x === null || typeof x === 'boolean') return x;
    if (typeof x === 'number') return Number.isFinite(x) ? x : 0;
    if (typeof x === 'string') {
      if (!withNames && !labelSafe(x, components)) return REMOVED;
      return x.length > maxText ? x.slice(0, maxText - 1) + '…' : x;
    }
    if (depth >= 3) return null;
    if (Array.isArray(x)) return x.slice(0, nTables).map((y) => walk(y, depth + 1));
    if (typeof x === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, y] of Object.entries(x as Record<string, unknown>)) {
        if (!SAFE_KEY.test(k) || UNSAFE_KEYS.has(k) || k in Object.prototype) continue;
        out[k] = walk(y, depth + 1);
      }
      return out;
    }
    return null;
  };
  return walk(v, 0);
}
