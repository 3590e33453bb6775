/**
 * refs: the live refs of a merged reftable view as `git for-each-ref --include-root-refs` lists
 * them: byte-sorted by name, symrefs printing their target's object id (followed up to 5 levels,
 * git's SYMREF_MAXDEPTH), symrefs whose target does not exist left out, and among names outside
 * `refs/` only root refs (git's `is_root_ref`: upper-case letters, `-` and `_`, either ending in
 * `_HEAD` or one of HEAD, AUTO_MERGE, BISECT_EXPECTED_REV, NOTES_MERGE_PARTIAL, NOTES_MERGE_REF,
 * MERGE_AUTOSTASH).
 */
import { toHex } from './basics.ts';
import type { Table } from './table.ts';
import { type MergedView, lowerBound } from './stack.ts';

const IRREGULAR_ROOT_REFS = new Set(['HEAD', 'AUTO_MERGE', 'BISECT_EXPECTED_REV', 'NOTES_MERGE_PARTIAL', 'NOTES_MERGE_REF', 'MERGE_AUTOSTASH']);

/** git's root-ref rule (refs.c `is_root_ref`): see the module comment. */
export function isRootRef(name: string): boolean {
  if (!/^[A-Z_-]+$/.test(name)) return false;
  return name.endsWith('_HEAD') || IRREGULAR_ROOT_REFS.has(name);
}

/** One listed ref: name as a byte string, object id in hex. */
export interface ListedRef {
  name: string;
  oid: string;
}

/** Max symref depth git follows (refs.h SYMREF_MAXDEPTH). */
export const SYMREF_MAXDEPTH = 5;

/**
 * Resolve merged entry `i` to an object id (hex), following symrefs through the merged view.
 * Returns null for a tombstone, a dangling symref or a chain deeper than `SYMREF_MAXDEPTH`.
 */
export function resolveEntry(tables: (Table | null)[], m: MergedView, i: number): string | null {
  for (let depth = 0; depth <= SYMREF_MAXDEPTH; depth++) {
    const t = tables[m.table[i]]!;
    const r = m.rec[i];
    const type = t.refs.types[r];
    if (type === 0) return null;
    if (type !== 3) {
      const hs = t.header.hashSize;
      return toHex(t.refs.oids, r * hs, (r + 1) * hs);
    }
    const target = t.refs.targets.get(r)!;
    const j = lowerBound(m.keys, target);
    if (j >= m.count || m.keys[j] !== target) return null;
    i = j;
  }
  return null;
}

/** The live refs as `for-each-ref --include-root-refs` prints them (see module comment). */
export function listRefs(tables: (Table | null)[], m: MergedView): ListedRef[] {
  const out: ListedRef[] = [];
  for (let i = 0; i < m.count; i++) {
    const name = m.keys[i];
    if (!name.startsWith('refs/') && !isRootRef(name)) continue;
    const oid = resolveEntry(tables, m, i);
    if (oid !== null) out.push({ name, oid });
  }
  return out;
}

/**
 * The namespace a ref is counted under: its first two components for names under `refs/`
 * (`refs/heads`, `refs/tags`, `refs/remotes`, `refs/pull`, …), `(root)` for others.
 */
export function namespaceOf(name: string): string {
  if (!name.startsWith('refs/')) return '(root)';
  const j = name.indexOf('/', 5);
  return j < 0 ? name : name.slice(0, j);
}
