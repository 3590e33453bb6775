/**
 * refs: the live refs of a merged reftable view as `git for-each-ref --include-root-refs` lists
 * them: byte-sorted by name, symrefs printing their target's object id (followed up to 5 levels,
 * git's SYMREF_MAXDEPTH), symrefs whose target does not exist left out, and among names outside
 * `refs/` only root refs (git's `is_root_ref`: upper-case letters, `-` and `_`, either ending in
 * `_HEAD` or one of HEAD, AUTO_MERGE, BISECT_EXPECTED_REV, NOTES_MERGE_PARTIAL, NOTES_MERGE_REF,
 * MERGE_AUTOSTASH). Names git's `check_refname_format` refuses are left out as its reftable
 * iterator does (refs/reftable-backend.c `reftable_ref_iterator_advance` marks them broken, and
 * for-each-ref then warns "ignoring ref with broken name"); `invalidRefNames` lists them.
 */
import { FormatError, toHex } from './basics.ts';
import { firstRecordOffset } from './reftable/block.ts';
import { KEY_OK, RecordReader, type RefValue } from './reftable/record.ts';
import { readRefRecord } from './reftable/seek.ts';
import { checkRefnameBytes, checkRefnameFormat, refnameIsSafe } from './files/refname.ts';
import { keyString, type BlockInfo, type Table } from './reftable/table.ts';
import type { MergedView } from './reftable/merged.ts';

const IRREGULAR_ROOT_REFS = new Set([
  'HEAD',
  'AUTO_MERGE',
  'BISECT_EXPECTED_REV',
  'NOTES_MERGE_PARTIAL',
  'NOTES_MERGE_REF',
  'MERGE_AUTOSTASH',
]);

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
      // Columns that keep their values in the table's bytes (session/columns.ts) decode this one.
      const lazy = t.refs as { oidHex?: (rec: number) => string };
      if (typeof lazy.oidHex === 'function') return lazy.oidHex(r);
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
    if (!checkRefnameFormat(name, true)) continue;
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
 * Live refs per namespace (see `namespaceOf`), counted over the key bytes. Namespaces are runs in
 * key order: the names before `refs/` and from `refs0` on are root refs, and the names starting
 * with `<namespace>/` are contiguous, so each run's end is found by a binary search
 * (`lowerBound(<namespace> + '0')`, '0' being the byte after '/') and its entries are only
 * checked for tombstones: one string per run, a few byte comparisons per namespace, not per ref.
 * (A namespace can come back after a gap: `refs/foo`, `refs/foo-x`, `refs/foo/bar`; runs add up.)
 */
export function namespaceCounts(tables: (Table | null)[], m: MergedView): Record<string, number> {
  const out: Record<string, number> = {};
  const add = (ns: string, n: number) => {
    if (n) out[ns] = (out[ns] ?? 0) + n;
  };
  if (tables.some((t) => t && !t.refs.keyBytes)) {
    // Stand-in tables without key bytes (a report rebuilt from a share link): by name.
    for (let i = 0; i < m.count; i++) {
      if (tables[m.table[i]]!.refs.types[m.rec[i]] === 0) continue;
      add(namespaceOf(m.key(i)), 1);
    }
    return out;
  }
  const mt = m.table,
    mr = m.rec;
  const types = tables.map((t) => t?.refs.types ?? new Uint8Array(0));
  /** Live entries in [from, to). */
  const live = (from: number, to: number): number => {
    let n = 0;
    for (let i = from; i < to; i++) if (types[mt[i]][mr[i]] !== 0) n++;
    return n;
  };
  const refsFrom = m.lowerBound('refs/'),
    refsTo = m.lowerBound('refs0');
  add('(root)', live(0, refsFrom));
  let i = refsFrom;
  while (i < refsTo) {
    const r = tables[mt[i]]!.refs;
    const kb = r.keyBytes,
      st = r.keyStart[mr[i]],
      en = r.keyStart[mr[i] + 1];
    let nsEnd = en;
    for (let j = st + 5; j < en; j++)
      if (kb[j] === 0x2f) {
        nsEnd = j;
        break;
      }
    const ns = keyString(kb, st, nsEnd);
    if (nsEnd === en) {
      add(ns, live(i, i + 1));
      i++;
      continue;
    } // the name is its namespace
    const to = Math.max(i + 1, Math.min(refsTo, m.lowerBound(ns + '0')));
    add(ns, live(i, to));
    i = to;
  }
  add('(root)', live(refsTo, m.count));
  return out;
}

/**
 * `checkRefnameBytes(b, st, en)` for a key whose first `shared` bytes are those of a key that
 * passed it. git's rules are per component, but for the name "@" alone and a final '.' (refs.c
 * `check_refname_component`): the components that end before byte `shared` were checked whole,
 * in the other key, so only the rest is checked (a name of the same namespace as the one before
 * it, as in sorted keys, costs its last component, not its whole length).
 */
export function checkRefnameAfter(b: Uint8Array, st: number, en: number, shared: number): boolean {
  let c = st + Math.min(shared, en - st);
  while (c > st && b[c - 1] !== 0x2f) c--;
  if (c === st) return checkRefnameBytes(b, st, en);
  if (en - c === 1 && b[c] === 0x40) return true; // "@" is refused only as the whole name
  return checkRefnameBytes(b, c, en);
}

/** Four hex digits (as big-endian u32 of their ASCII codes) for each 16-bit value, built on first use. */
let hex4: Uint32Array | null = null;
function hex4Table(): Uint32Array {
  if (!hex4) {
    hex4 = new Uint32Array(65536);
    for (let v = 0; v < 65536; v++) {
      hex4[v] =
        ((HEX_DIGITS[v >> 12] << 24) |
          (HEX_DIGITS[(v >> 8) & 15] << 16) |
          (HEX_DIGITS[(v >> 4) & 15] << 8) |
          HEX_DIGITS[v & 15]) >>>
        0;
    }
  }
  return hex4;
}

/** Bytes of each chunk `refsLines` hands out (at least: a chunk holds the longest line). */
export const REFS_CHUNK = 1 << 20;

/**
 * The `refs` listing, exactly what `listRefs` would print as "<oid> <name>\n" lines, written
 * straight from the key and id columns (no string per ref) into chunks of `REFS_CHUNK` bytes,
 * handed out as the merged iteration fills them: the CLI writes each one out before the next is
 * made, so the listing is never held whole (64 MB at a million refs). Each call of `next()`
 * returns the next chunk, or null at the end: a fresh one, or with `reuse` the same buffer
 * refilled (for a consumer done with each chunk before asking for the next).
 */
export function refsLines(
  tables: (Table | null)[],
  m: MergedView,
  opts: { chunkBytes?: number; reuse?: boolean } = {},
): { next(): Uint8Array | null } {
  const chunkBytes = opts.chunkBytes ?? REFS_CHUNK;
  let spare: Uint8Array | null = null;
  let maxHs = 0;
  for (const t of tables) if (t) maxHs = Math.max(maxHs, t.header.hashSize);
  const H4 = hex4Table();
  const kdvs = tables.map((t) =>
    t ? new DataView(t.refs.keyBytes.buffer, t.refs.keyBytes.byteOffset, t.refs.keyBytes.length) : null,
  );
  const mt = m.table,
    mr = m.rec;
  // Chunks hold the longest line (a key may be as long as a block, 16 MiB), so a line never
  // needs a chunk of its own.
  let longest = 0;
  for (const t of tables) {
    if (!t) continue;
    const ks = t.refs.keyStart;
    for (let r = 0; r < t.refs.count; r++) longest = Math.max(longest, ks[r + 1] - ks[r]);
  }
  const size = Math.max(chunkBytes, longest + 2 * maxHs + 2);
  let i = 0;
  return {
    next(): Uint8Array | null {
      if (i >= m.count) return null;
      const out: Uint8Array = spare ?? new Uint8Array(size);
      if (opts.reuse) spare = out;
      const dv = new DataView(out.buffer);
      let o = 0;
      for (; i < m.count; i++) {
        const ti = mt[i];
        const t = tables[ti]!;
        const refs = t.refs;
        const r = mr[i];
        const type = refs.types[r];
        if (type === 0) continue;
        const kb = refs.keyBytes;
        const st = refs.keyStart[r],
          en = refs.keyStart[r + 1];
        if (!startsWithRefs(kb, st, en) && !isRootRef(refs.name(r))) continue;
        if (!checkRefnameBytes(kb, st, en)) continue;
        // The id: own value, or the target's through the merged view.
        let src = t,
          sr = r;
        if (type === 3) {
          let j = i,
            ok = false;
          for (let depth = 0; depth <= SYMREF_MAXDEPTH; depth++) {
            const tt = tables[mt[j]]!;
            const rr = mr[j];
            const ty = tt.refs.types[rr];
            if (ty === 0) break;
            if (ty !== 3) {
              src = tt;
              sr = rr;
              ok = true;
              break;
            }
            j = m.find(tt.refs.targets.get(rr)!);
            if (j < 0) break;
          }
          if (!ok) continue;
        }
        if (o + 2 * maxHs + 2 + (en - st) > size) break; // this chunk is full: the line starts the next
        const hs = src.header.hashSize;
        const oids = src.refs.oids;
        for (let j = sr * hs, e = j + hs; j < e; j += 2, o += 4) dv.setUint32(o, H4[(oids[j] << 8) | oids[j + 1]]);
        out[o++] = 0x20;
        const kdv = kdvs[ti]!;
        let j = st;
        for (; j + 4 <= en; j += 4, o += 4) dv.setUint32(o, kdv.getUint32(j));
        for (; j < en; j++) out[o++] = kb[j];
        out[o++] = 0x0a;
      }
      return o ? out.subarray(0, o) : null;
    },
  };
}

/** Bytes the one-table listing reads of the file at a time (`tableRefsLines`). */
export const REFS_READ_AHEAD = 1 << 20;

/**
 * The `refs` listing of a stack of one table, exactly what `refsLines` prints for it, read
 * straight from the ref blocks: the records are decoded again by `RecordReader` (record.ts, the
 * one record decoder) from the file, a window of `REFS_READ_AHEAD` bytes at a time, and each line
 * written from the decoded key and the id's bytes in the block; no column, merged view or string
 * per ref. For a table `openTable` accepted, typically opened with `refColumns: false` (it reads
 * only `blocks`, `header` and `source`). A symref is resolved by point reads in the table
 * (seek.ts `readRefRecord`), as the merged view of one table resolves it. Chunks as `refsLines`.
 */
export function tableRefsLines(
  t: Table,
  opts: { chunkBytes?: number; reuse?: boolean } = {},
): { next(): Uint8Array | null } {
  const chunkBytes = opts.chunkBytes ?? REFS_CHUNK;
  const st = new TableLister(t, new Uint8Array(2 * chunkBytes));
  let bi = 0;
  return {
    next(): Uint8Array | null {
      if (!opts.reuse || st.out.length > 2 * chunkBytes) st.out = new Uint8Array(2 * chunkBytes);
      st.o = 0;
      // Whole blocks until the chunk holds at least `chunkBytes` (a block's lines never straddle
      // two chunks; `TableLister.room` grows the buffer for a block whose lines do not fit).
      while (st.o < chunkBytes && bi < st.blocks.length) st.block(st.blocks[bi++]);
      return st.o ? st.out.subarray(0, st.o) : null;
    },
  };
}

/**
 * The id a symref of table `t` whose target is `target` resolves to, by point reads in the table
 * (the symref itself is the first of `SYMREF_MAXDEPTH` levels), or null: a missing target, a
 * tombstone or a chain too deep (see `resolveEntry`).
 */
function resolveInTable(t: Table, target: string): { bytes: Uint8Array; at: number } | null {
  for (let depth = 1; depth <= SYMREF_MAXDEPTH; depth++) {
    const r = readRefRecord(t, target);
    if (!r || r.type === 0) return null;
    if (r.type !== 3) return { bytes: r.bytes, at: r.value.oidAt };
    target = keyString(r.bytes, r.value.targetAt, r.value.targetAt + r.value.targetLen);
  }
  return null;
}

/** The state of `tableRefsLines`: the reader, the file window and the output buffer. */
class TableLister {
  readonly blocks: BlockInfo[];
  readonly hs: number;
  readonly rec = new RecordReader();
  readonly v: RefValue = { updateIndexDelta: 0, oidAt: -1, peeledAt: -1, targetAt: -1, targetLen: 0 };
  win: Uint8Array = new Uint8Array(0);
  winAt = 0;
  o = 0;
  /** Views of `out` and of the reader's key for the four-byte stores. */
  dv: DataView = new DataView(new ArrayBuffer(0));
  kdv: DataView = new DataView(new ArrayBuffer(0));
  readonly h4 = hex4Table();
  constructor(
    readonly t: Table,
    public out: Uint8Array,
  ) {
    this.blocks = t.blocks.filter((b) => b.type === 'ref');
    this.hs = t.header.hashSize;
  }

  changed(at: number): FormatError {
    return new FormatError(
      this.t.path,
      at,
      'a well-formed ref record (this table was accepted before: the file changed?)',
    );
  }

  /** Make room for `need` more bytes of output (a block of long keys: rare). */
  room(need: number): void {
    const bigger = new Uint8Array(Math.max(2 * this.out.length, this.o + need));
    bigger.set(this.out.subarray(0, this.o));
    this.out = bigger;
  }

  /** The id a symref resolves to in this table, or null (see `resolveEntry`). */
  resolve(blk: Uint8Array, v: RefValue): { bytes: Uint8Array; at: number } | null {
    return resolveInTable(this.t, keyString(blk, v.targetAt, v.targetAt + v.targetLen));
  }

  /** Every line of ref block `b`, appended to `out`. */
  block(b: BlockInfo): void {
    const t = this.t;
    const end = b.offset + b.blockLen;
    if (b.offset < this.winAt || end > this.winAt + this.win.length) {
      const n = Math.min(Math.max(REFS_READ_AHEAD, b.blockLen), t.fileSize - b.offset);
      this.win = t.source.read(b.offset, n);
      this.winAt = b.offset;
      if (this.win.length < b.blockLen) throw this.changed(b.offset);
    }
    const blk = this.win;
    const base = b.offset - this.winAt;
    const rec = this.rec.reset(
      blk,
      base + firstRecordOffset(b.offset, t.header.headerSize),
      base + b.restartTableOffset,
    );
    const v = this.v,
      hs = this.hs;
    let out = this.out,
      o = this.o;
    if (this.dv.buffer !== out.buffer) this.dv = new DataView(out.buffer, out.byteOffset, out.length);
    if (this.kdv.buffer !== rec.key.buffer) this.kdv = new DataView(rec.key.buffer);
    const H4 = this.h4;
    /** The key before passed the name check (its shared part need not be checked again). */
    let prevOk = false;
    while (rec.more) {
      if (rec.parseKey() !== KEY_OK) throw this.changed(rec.errorAt);
      const type = rec.valueType;
      if (!rec.readRefValue(hs, v)) throw this.changed(rec.errorAt);
      const key = rec.key,
        kl = rec.keyLen;
      if (type === 0 || (!startsWithRefs(key, 0, kl) && !isRootRef(rec.keyString()))) {
        prevOk = false;
        continue;
      }
      const shared = rec.prefixLength;
      prevOk = prevOk && shared > 0 ? checkRefnameAfter(key, 0, kl, shared) : checkRefnameBytes(key, 0, kl);
      if (!prevOk) continue;
      let id = blk,
        at = v.oidAt;
      if (type === 3) {
        const r = this.resolve(blk, v);
        if (!r) continue;
        id = r.bytes;
        at = r.at;
      }
      if (o + 2 * hs + 2 + kl > out.length) {
        this.o = o;
        this.room(2 * hs + 2 + kl);
        out = this.out;
        this.dv = new DataView(out.buffer, out.byteOffset, out.length);
      }
      // Four hex digits per store, and the name four bytes at a time (as `refsLines`).
      const dv = this.dv;
      for (let j = at, e = at + hs; j < e; j += 2, o += 4) dv.setUint32(o, H4[(id[j] << 8) | id[j + 1]]);
      out[o++] = 0x20;
      const kdv = this.kdv;
      let j = 0;
      for (; j + 4 <= kl; j += 4, o += 4) dv.setUint32(o, kdv.getUint32(j));
      for (; j < kl; j++) out[o++] = key[j];
      out[o++] = 0x0a;
    }
    this.o = o;
  }
}

/** The whole `refs` listing as one buffer (`refsLines` joined; tests and the benchmark). */
export function listRefsBytes(tables: (Table | null)[], m: MergedView): Uint8Array {
  const parts: Uint8Array[] = [];
  let n = 0;
  const it = refsLines(tables, m);
  for (let c = it.next(); c; c = it.next()) {
    parts.push(c);
    n += c.length;
  }
  const out = new Uint8Array(n);
  let o = 0;
  for (const c of parts) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

/** A ref name stored in a table that git refuses to list (see `invalidRefNames`). */
export interface InvalidRefName {
  /** The name as a byte string. */
  name: string;
  /** File name of the table holding the winning record. */
  table: string;
  /** Which rule of git's `check_refname_format` it breaks. */
  why: string;
  /**
   * git dies on it instead of skipping it ("refname is dangerous": the name is not under
   * `refs/` in a normalised form nor all capitals and '_', refs.c `refname_is_safe`).
   */
  gitDies: boolean;
}

/**
 * The live names of the merged view that git's reftable backend refuses to list: those under
 * `refs/` (or root refs by their shape) that fail `check_refname_format(name,
 * REFNAME_ALLOW_ONELEVEL)`. git leaves them out of for-each-ref with a warning ("ignoring ref with
 * broken name"), and dies when such a name is also not safe (refs/reftable-backend.c
 * `reftable_ref_iterator_advance`). Tombstones are not listed by git either way.
 */
export function invalidRefNames(tables: (Table | null)[], m: MergedView): InvalidRefName[] {
  const out: InvalidRefName[] = [];
  const one = tables.filter((t) => t && t.refs.count > 0);
  if (one.length === 1 && one[0]!.refs.count === m.count) {
    // One table with records: the merged view is that table's records in order (entry i is
    // record i), walked on its columns directly.
    const t = one[0]!;
    const { types, keyBytes: kb, keyStart: ks, lcp } = t.refs;
    let prevOk = false;
    for (let r = 0; r < m.count; r++) {
      if (types[r] === 0) {
        prevOk = false;
        continue;
      }
      const st = ks[r],
        en = ks[r + 1];
      const ok: boolean =
        lcp && prevOk && lcp[r] > 0 ? checkRefnameAfter(kb, st, en, lcp[r]) : checkRefnameBytes(kb, st, en);
      prevOk = ok;
      if (!ok) pushInvalid(out, t, t.refs.name(r));
    }
    return out;
  }
  // The entry before, when it is the record before in the same table and its name passed: then
  // the bytes the two keys share (`lcp`) need no second look.
  let okT = -1,
    okR = -2;
  for (let i = 0; i < m.count; i++) {
    const ti = m.table[i];
    const t = tables[ti]!;
    const r = m.rec[i];
    if (t.refs.types[r] === 0) continue;
    const kb = t.refs.keyBytes;
    const st = t.refs.keyStart[r],
      en = t.refs.keyStart[r + 1];
    const lcp = t.refs.lcp;
    const ok =
      lcp && okT === ti && okR === r - 1 && lcp[r] > 0
        ? checkRefnameAfter(kb, st, en, lcp[r])
        : checkRefnameBytes(kb, st, en);
    okT = ok ? ti : -1;
    okR = r;
    if (ok) continue;
    pushInvalid(out, t, m.key(i));
  }
  return out;
}

/** Add `name` of table `t`, which failed the name check, when git lists names of its shape. */
function pushInvalid(out: InvalidRefName[], t: Table, name: string): void {
  if (!name.startsWith('refs/') && !isRootRef(name)) return;
  out.push({ name, table: t.name, why: refnameProblem(name) ?? 'a valid ref name', gitDies: !refnameIsSafe(name) });
}

/**
 * Which of git's ref-name rules (refs.c `check_refname_component`, `check_refname_format`;
 * git-check-ref-format(1)) `name` breaks, in words; null if none.
 */
export function refnameProblem(name: string): string | null {
  if (name === '@') return 'the name "@" alone is not allowed';
  // Bytes below 0x20 and DEL (\p{Cc} without C1: those code points are UTF-8 bytes git allows).
  const bad = /(?![\x80-\x9f])[\p{Cc} :?[\\^~*]/u.exec(name);
  if (bad) return `the byte 0x${bad[0].charCodeAt(0).toString(16).padStart(2, '0')} is not allowed in a ref name`;
  if (name.includes('..')) return 'two consecutive dots ".." are not allowed';
  if (name.includes('@{')) return 'the sequence "@{" is not allowed';
  const parts = name.split('/');
  if (parts.some((c) => c === '')) return 'an empty path component (leading, trailing or doubled "/")';
  if (parts.some((c) => c.startsWith('.'))) return 'a path component starts with "."';
  if (parts.some((c) => c.endsWith('.lock'))) return 'a path component ends with ".lock"';
  if (name.endsWith('.')) return 'the name ends with "."';
  return null;
}
