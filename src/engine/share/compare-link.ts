/**
 * share/compare-link: a comparison of two snapshots (src/engine/diff.ts) in a link,
 * `<base>#/compare?c=<version>.<base64url(deflate(JSON))>`, shapes only as the report links are:
 * each side's figures (tables, bytes, live refs, tombstones, compaction debt), the tables added
 * and removed by update_index range, size and record count (no file names), which added table
 * merged which removed ones, whether it was a compaction, new transactions or two unrelated
 * stacks, and the counts of refs created / updated / deleted and records dropped / written.
 * Ref names travel only when the sharer opts in (`names`), cut to `MAX_COMPARE_NAMES` per list.
 * The fragment never reaches a server. Decoding checks every field and bound before use and
 * throws `ShareLinkError`, never anything else.
 */
import { deflateSync, inflateSync } from 'fflate';
import type { DiffSide, DiffTable, StackDiff } from '../diff.ts';
import { base64UrlDecode, base64UrlEncode } from './base64url.ts';
import { DEFAULT_SHARE_BASE, MAX_LINK_CHARS, MAX_LINK_INPUT, ShareLinkError } from './limits.ts';

/** The comparison link's format version. */
export const COMPARE_LINK_VERSION = 1;
/** Ref names per list when the sharer includes them. */
export const MAX_COMPARE_NAMES = 100;
/** Tables per list a link may carry (the decoder refuses more). */
export const MAX_COMPARE_TABLES = 10_000;
/** Bytes the link's data may unpack to. */
const MAX_COMPARE_INFLATED = 1 << 20;
/** Bytes of one ref name in a link. */
const MAX_NAME_BYTES = 4096;

export interface CompareSide {
  kind: 'reftable' | 'files' | 'packed-refs';
  tables: number;
  bytes: number;
  liveRefs: number;
  tombstones: number;
  droppableRecords: number;
  /** Auto-compaction's segment (table indexes, oldest = 0), or null. */
  segment: [number, number] | null;
}

/** One table: update_index range, file size, ref records. */
export type CompareTable = [min: number, max: number, bytes: number, records: number];

export interface CompareShare {
  before: CompareSide;
  after: CompareSide;
  added: CompareTable[];
  removed: CompareTable[];
  kept: number;
  /** Each merge: the index of the added table and the indexes of the removed ones it covers. */
  merges: { into: number; from: number[] }[];
  compaction: boolean;
  writes: boolean;
  /** The stacks look unrelated (the reason is not carried: it may name a ref). */
  unrelated: boolean;
  refs: { created: number; updated: number; deleted: number };
  records: { dropped: number; written: number; tombstonesDropped: number; tombstonesAdded: number };
  /** Present only when the sharer included ref names: the first names of each list. */
  names?: { created: string[]; updated: string[]; deleted: string[] };
}

/** The full counts of a diff whose lists may have been cut (the worker sends the first 200). */
export interface DiffCounts {
  refsCreated: number;
  refsUpdated: number;
  refsDeleted: number;
  recordsDropped: number;
  recordsWritten: number;
}

const KINDS = ['reftable', 'files', 'packed-refs'] as const;

function side(s: DiffSide): CompareSide {
  const kind = (KINDS as readonly string[]).includes(s.kind) ? (s.kind as CompareSide['kind']) : 'reftable';
  return {
    kind,
    tables: s.tables,
    bytes: s.bytes,
    liveRefs: s.liveRefs,
    tombstones: s.tombstones,
    droppableRecords: s.debt.droppableRecords,
    segment: s.debt.segment ? [s.debt.segment.start, s.debt.segment.end] : null,
  };
}

const table = (t: DiffTable): CompareTable => [t.minUpdateIndex, t.maxUpdateIndex, t.bytes, t.records];

/** The shape of a comparison, names left out unless `names`. */
export function compareShare(d: StackDiff, counts?: DiffCounts, opts: { names?: boolean } = {}): CompareShare {
  const c = counts ?? {
    refsCreated: d.refsCreated.length,
    refsUpdated: d.refsUpdated.length,
    refsDeleted: d.refsDeleted.length,
    recordsDropped: d.recordsDropped.length,
    recordsWritten: d.recordsWritten.length,
  };
  const addedAt = new Map(d.tablesAdded.map((t, i) => [t.name, i]));
  const removedAt = new Map(d.tablesRemoved.map((t, i) => [t.name, i]));
  const out: CompareShare = {
    before: side(d.before),
    after: side(d.after),
    added: d.tablesAdded.map(table),
    removed: d.tablesRemoved.map(table),
    kept: d.tablesKept,
    merges: d.merges.map((m) => ({
      into: addedAt.get(m.table.name) ?? 0,
      from: m.from.map((t) => removedAt.get(t.name) ?? 0),
    })),
    compaction: d.compaction,
    writes: d.writes,
    unrelated: !!d.unrelated,
    refs: { created: c.refsCreated, updated: c.refsUpdated, deleted: c.refsDeleted },
    records: {
      dropped: c.recordsDropped,
      written: c.recordsWritten,
      tombstonesDropped: d.tombstonesDropped,
      tombstonesAdded: d.tombstonesAdded,
    },
  };
  if (opts.names) {
    const first = (l: { name: string }[]) => l.slice(0, MAX_COMPARE_NAMES).map((r) => r.name);
    out.names = { created: first(d.refsCreated), updated: first(d.refsUpdated), deleted: first(d.refsDeleted) };
  }
  return out;
}

/** The `c=` value of a comparison: `<version>.<data>`. */
export function encodeCompareShare(p: CompareShare): string {
  const json = new TextEncoder().encode(JSON.stringify(p));
  return `${COMPARE_LINK_VERSION}.${base64UrlEncode(deflateSync(json, { level: 9 }))}`;
}

export type CompareLinkResult = { ok: true; link: string; chars: number } | { ok: false; error: string; chars: number };

/** The link of a comparison (`base`'s own fragment is dropped); an error past `MAX_LINK_CHARS`. */
export function compareLink(p: CompareShare, base: string = DEFAULT_SHARE_BASE): CompareLinkResult {
  const b = base.includes('#') ? base.slice(0, base.indexOf('#')) : base;
  const link = `${b}#/compare?c=${encodeCompareShare(p)}`;
  if (link.length > MAX_LINK_CHARS)
    return {
      ok: false,
      chars: link.length,
      error: `the link would be ${link.length.toLocaleString('en-US')} characters, more than the ${MAX_LINK_CHARS.toLocaleString('en-US')} a link may have${p.names ? ': leave the ref names out' : ''}`,
    };
  return { ok: true, link, chars: link.length };
}

const bad = (what: string) =>
  new ShareLinkError('damaged', `comparison link is damaged: ${what}`, COMPARE_LINK_VERSION);

function obj(v: unknown, where: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(`${where} is not an object`);
  return v as Record<string, unknown>;
}
function count(v: unknown, where: string, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max)
    throw bad(`${where} is ${JSON.stringify(v)?.slice(0, 40)}, expected a whole number from 0 to ${max}`);
  return v;
}
function flag(v: unknown, where: string): boolean {
  if (typeof v !== 'boolean') throw bad(`${where} is not true or false`);
  return v;
}
function list(v: unknown, where: string, max: number): unknown[] {
  if (!Array.isArray(v)) throw bad(`${where} is not a list`);
  if (v.length > max) throw bad(`${where} has ${v.length} entries, at most ${max} are allowed`);
  return v;
}

function readSide(v: unknown, where: string): CompareSide {
  const o = obj(v, where);
  if (!(KINDS as readonly unknown[]).includes(o.kind)) throw bad(`${where}.kind is not one of ${KINDS.join(', ')}`);
  let segment: [number, number] | null = null;
  if (o.segment !== null) {
    const s = list(o.segment, `${where}.segment`, 2);
    if (s.length !== 2) throw bad(`${where}.segment does not have two entries`);
    segment = [count(s[0], `${where}.segment[0]`), count(s[1], `${where}.segment[1]`)];
  }
  return {
    kind: o.kind as CompareSide['kind'],
    tables: count(o.tables, `${where}.tables`),
    bytes: count(o.bytes, `${where}.bytes`),
    liveRefs: count(o.liveRefs, `${where}.liveRefs`),
    tombstones: count(o.tombstones, `${where}.tombstones`),
    droppableRecords: count(o.droppableRecords, `${where}.droppableRecords`),
    segment,
  };
}

function readTables(v: unknown, where: string): CompareTable[] {
  return list(v, where, MAX_COMPARE_TABLES).map((t, i) => {
    const a = list(t, `${where}[${i}]`, 4);
    if (a.length !== 4) throw bad(`${where}[${i}] does not have four figures`);
    const [min, max, bytes, records] = a.map((x, k) => count(x, `${where}[${i}][${k}]`));
    if (min > max) throw bad(`${where}[${i}]'s update_index range ${min}–${max} runs backwards`);
    return [min, max, bytes, records] as CompareTable;
  });
}

function readNames(v: unknown, where: string): string[] {
  return list(v, where, MAX_COMPARE_NAMES).map((n, i) => {
    if (typeof n !== 'string' || n.length > MAX_NAME_BYTES) throw bad(`${where}[${i}] is not a ref name`);
    return n;
  });
}

/**
 * Decode a comparison link: a whole URL, its fragment, or the `c=` value. Throws
 * `ShareLinkError` (`not-a-link`, `truncated`, `damaged`, `future-version`, `too-large`).
 */
export function decodeCompareShare(text: string): CompareShare {
  if (typeof text !== 'string') throw new ShareLinkError('not-a-link', 'not a comparison link: no text');
  if (text.length > MAX_LINK_INPUT)
    throw new ShareLinkError('too-large', `not a comparison link: ${text.length} characters`);
  let t = text.replace(/\s+/g, '');
  const q = t.search(/[?&#]c=/);
  if (q >= 0) t = t.slice(q + 3);
  else if (t.startsWith('c=')) t = t.slice(2);
  t = t.split('&')[0];
  const m = /^(\d{1,9})\.(.*)$/.exec(t);
  if (!m) throw new ShareLinkError('not-a-link', 'not a comparison link: it has no "c=<version>.<data>" part');
  const version = Number(m[1]);
  if (version > COMPARE_LINK_VERSION)
    throw new ShareLinkError(
      'future-version',
      `comparison link of format version ${version}: this refscope reads version ${COMPARE_LINK_VERSION}; open it with a newer refscope`,
      version,
    );
  if (version < 1) throw bad(`format version ${version}`);
  if (!m[2]) throw new ShareLinkError('truncated', 'comparison link is truncated: no data after the version', version);
  let raw: Uint8Array;
  try {
    raw = inflateSync(base64UrlDecode(m[2]), { out: new Uint8Array(MAX_COMPARE_INFLATED + 1) });
  } catch (e) {
    if (e instanceof ShareLinkError) throw e;
    throw new ShareLinkError(
      (e as { code?: number }).code === 0 ? 'truncated' : 'damaged',
      'comparison link is damaged or cut short: its compressed data does not unpack (copy the whole link)',
      version,
    );
  }
  if (raw.length > MAX_COMPARE_INFLATED) throw new ShareLinkError('too-large', 'comparison link unpacks to over 1 MiB');
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
  } catch {
    throw bad('its data is not JSON text');
  }
  const o = obj(doc, 'the comparison');
  const added = readTables(o.added, 'added');
  const removed = readTables(o.removed, 'removed');
  const merges = list(o.merges, 'merges', MAX_COMPARE_TABLES).map((x, i) => {
    const mo = obj(x, `merges[${i}]`);
    return {
      into: count(mo.into, `merges[${i}].into`, Math.max(0, added.length - 1)),
      from: list(mo.from, `merges[${i}].from`, MAX_COMPARE_TABLES).map((f, k) =>
        count(f, `merges[${i}].from[${k}]`, Math.max(0, removed.length - 1)),
      ),
    };
  });
  if (merges.length && (!added.length || !removed.length)) throw bad('a merge names a table the link does not carry');
  const refs = obj(o.refs, 'refs');
  const rec = obj(o.records, 'records');
  const out: CompareShare = {
    before: readSide(o.before, 'before'),
    after: readSide(o.after, 'after'),
    added,
    removed,
    kept: count(o.kept, 'kept'),
    merges,
    compaction: flag(o.compaction, 'compaction'),
    writes: flag(o.writes, 'writes'),
    unrelated: flag(o.unrelated, 'unrelated'),
    refs: {
      created: count(refs.created, 'refs.created'),
      updated: count(refs.updated, 'refs.updated'),
      deleted: count(refs.deleted, 'refs.deleted'),
    },
    records: {
      dropped: count(rec.dropped, 'records.dropped'),
      written: count(rec.written, 'records.written'),
      tombstonesDropped: count(rec.tombstonesDropped, 'records.tombstonesDropped'),
      tombstonesAdded: count(rec.tombstonesAdded, 'records.tombstonesAdded'),
    },
  };
  if (o.names !== undefined) {
    const n = obj(o.names, 'names');
    out.names = {
      created: readNames(n.created, 'names.created'),
      updated: readNames(n.updated, 'names.updated'),
      deleted: readNames(n.deleted, 'names.deleted'),
    };
  }
  return out;
}
