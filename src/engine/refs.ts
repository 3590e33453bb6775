/**
 * refs: the live refs of a merged reftable view as `git for-each-ref --include-root-refs` lists
 * them: byte-sorted by name, symrefs printing their target's object id (followed up to 5 levels,
 * git's SYMREF_MAXDEPTH), symrefs whose target does not exist left out, and among names outside
 * `refs/` only root refs (git's `is_root_ref`: upper-case letters, `-` and `_`, either ending in
 * `_HEAD` or one of HEAD, AUTO_MERGE, BISECT_EXPECTED_REV, NOTES_MERGE_PARTIAL, NOTES_MERGE_REF,
 * MERGE_AUTOSTASH).
 */
import { toHex, bytesToKey } from './basics.ts';
import type { Table } from './table.ts';
import type { MergedView } from './stack.ts';

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
    const j = m.find(t.refs.targets.get(r)!);
    if (j < 0) return null;
    i = j;
  }
  return null;
}

/** The live refs as `for-each-ref --include-root-refs` prints them (see module comment). */
export function listRefs(tables: (Table | null)[], m: MergedView): ListedRef[] {
  const out: ListedRef[] = [];
  for (let i = 0; i < m.count; i++) {
    const name = m.key(i);
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

const REFS_ = [0x72, 0x65, 0x66, 0x73, 0x2f]; // "refs/"
const HEX_DIGITS = new TextEncoder().encode('0123456789abcdef');

function startsWithRefs(kb: Uint8Array, st: number, en: number): boolean {
  if (en - st < 5) return false;
  for (let j = 0; j < 5; j++) if (kb[st + j] !== REFS_[j]) return false;
  return true;
}

/**
 * Live refs per namespace (see `namespaceOf`), counted over the key bytes: namespaces are
 * contiguous in key order, so one string is made per namespace run, not per ref.
 */
export function namespaceCounts(tables: (Table | null)[], m: MergedView): Record<string, number> {
  const out: Record<string, number> = {};
  let cur: string | null = null;
  let curBytes: Uint8Array = new Uint8Array(0);
  for (let i = 0; i < m.count; i++) {
    const t = tables[m.table[i]]!;
    const r = m.rec[i];
    if (t.refs.types[r] === 0) continue;
    const kb = t.refs.keyBytes;
    if (!kb) {
      const ns = namespaceOf(m.key(i));
      out[ns] = (out[ns] ?? 0) + 1;
      continue;
    }
    const st = t.refs.keyStart[r], en = t.refs.keyStart[r + 1];
    let nsEnd = -1; // -1: root
    if (startsWithRefs(kb, st, en)) {
      nsEnd = en;
      for (let j = st + 5; j < en; j++) if (kb[j] === 0x2f) { nsEnd = j; break; }
    }
    let same = cur !== null;
    if (same) {
      if (nsEnd < 0) same = cur === '(root)';
      else if (cur === '(root)' || nsEnd - st !== curBytes.length) same = false;
      else for (let j = 0; j < curBytes.length; j++) if (kb[st + j] !== curBytes[j]) { same = false; break; }
    }
    if (!same) {
      if (nsEnd < 0) { cur = '(root)'; curBytes = new Uint8Array(0); }
      else { curBytes = kb.slice(st, nsEnd); cur = bytesToKey(curBytes, 0, curBytes.length); }
    }
    out[cur!] = (out[cur!] ?? 0) + 1;
  }
  return out;
}

/**
 * The `refs` listing as bytes, exactly what `listRefs` would print as "<oid> <name>\n" lines,
 * written straight from the key and id columns (no string per ref): the CLI's fast path.
 */
export function listRefsBytes(tables: (Table | null)[], m: MergedView): Uint8Array {
  let cap = 1 << 20;
  let out = new Uint8Array(cap);
  let o = 0;
  for (let i = 0; i < m.count; i++) {
    const t = tables[m.table[i]]!;
    const refs = t.refs;
    const r = m.rec[i];
    const type = refs.types[r];
    if (type === 0) continue;
    const kb = refs.keyBytes;
    const st = refs.keyStart[r], en = refs.keyStart[r + 1];
    if (!startsWithRefs(kb, st, en) && !isRootRef(refs.name(r))) continue;
    // The id: own value, or the target's through the merged view.
    let src = t, sr = r;
    if (type === 3) {
      let j = i, ok = false;
      for (let depth = 0; depth <= SYMREF_MAXDEPTH; depth++) {
        const tt = tables[m.table[j]]!;
        const rr = m.rec[j];
        const ty = tt.refs.types[rr];
        if (ty === 0) break;
        if (ty !== 3) { src = tt; sr = rr; ok = true; break; }
        j = m.find(tt.refs.targets.get(rr)!);
        if (j < 0) break;
      }
      if (!ok) continue;
    }
    const hs = src.header.hashSize;
    const need = 2 * hs + 2 + (en - st);
    if (o + need > cap) {
      cap = Math.max(cap * 2, o + need);
      const bigger = new Uint8Array(cap);
      bigger.set(out.subarray(0, o));
      out = bigger;
    }
    const oids = src.refs.oids;
    for (let j = sr * hs, e = j + hs; j < e; j++) {
      const b = oids[j];
      out[o++] = HEX_DIGITS[b >> 4];
      out[o++] = HEX_DIGITS[b & 15];
    }
    out[o++] = 0x20;
    for (let j = st; j < en; j++) out[o++] = kb[j];
    out[o++] = 0x0a;
  }
  return out.subarray(0, o);
}
