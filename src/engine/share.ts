/**
 * share: the diagnostic link (issue #7). A report's *shape* — per-table figures, record counts by
 * kind and namespace, which tables' records override which, the compaction factor and, if given,
 * the sharer's simulation results — encoded compactly in the URL fragment:
 *
 *     <base>#s=<version>.<base64url(deflate(payload))>
 *
 * The fragment never reaches a server. By default the payload holds no ref names, no object ids,
 * no file names or paths, no reflog contents and no finding texts: namespaces are kept
 * (`refs/heads`, `refs/tags`, …), remote names become `remote-1`, `remote-2`, … and namespaces
 * outside a list of well-known ones become `other-1`, … . With `withNames` the real namespace
 * names, some example ref names and the finding texts are added.
 *
 * Binary payload (format version 1), all integers are reftable varints (basics.encodeVarint):
 *     varint bodyLength, body, u32 CRC-32(body)
 * and the body is described in docs/share.md. Decoding never trusts the input: every count and
 * index is checked, and any failure is a `ShareLinkError` saying what is wrong.
 *
 * From a payload: `describeShare` (what the link contains, for the share dialog),
 * `reportFromShare` (a `Report` rebuilt with the engine's own report code, marked shared),
 * `syntheticStack` (tables written with `writeTable`: same tables, record kinds and counts per
 * table and namespace, same shadowing and tombstones, similar sizes) and `shapePlan` (the
 * synthetic key layout, shared by `syntheticStack` and the repro script of `export.ts`).
 *
 * Pure TypeScript: no DOM, no Node APIs.
 */
import { deflateSync, inflateSync } from 'fflate';
import {
  FormatError, sizeText, crc32, encodeVarint, getVarint, cursor, memorySource, textToKey, displayName, type InputFile, type Finding,
} from './basics.ts';
import type { Analysis } from './analyze.ts';
import { analysisRefs } from './analyze.ts';
import { buildReport, GENERATOR, type Report } from './report.ts';
import { lowerBound, type Stack, type MergedView } from './stack.ts';
import { resolveEntry } from './refs.ts';
import type { Table, SectionName, BlockType } from './table.ts';
import type { ClassifiedInput } from './input.ts';
import { writeTable, tableFileName, type RefRecordIn, type LogRecordIn } from './writer.ts';

// ---------------------------------------------------------------------------------------------
// Constants and errors

/** Format version this refscope writes and reads. */
export const SHARE_VERSION = 1;
/** Schema name of a decoded payload. */
export const SHARE_SCHEMA = 'refscope.share/1';
/** Default base URL of links (the local app, `npm start`). */
export const DEFAULT_SHARE_BASE = 'http://127.0.0.1:4173/';
/** No link is longer than this (characters, base URL included); past it, use the file export. */
export const MAX_LINK_CHARS = 8000;
/** Links are meant to stay under this for typical stacks. */
export const TYPICAL_LINK_CHARS = 2000;
/** Default number of example ref names with `withNames`. */
export const DEFAULT_EXAMPLE_NAMES = 20;
/** Largest inflated payload accepted (bytes). */
const MAX_INFLATED = 1 << 20;
/** Largest link text accepted by the decoder (characters). */
const MAX_LINK_INPUT = 100_000;
/** Largest stack `shapePlan` (and so the repro script) lays out (records over all tables). */
export const MAX_SYNTHETIC_RECORDS = 20_000_000;
/** Largest stack `syntheticStack` builds in memory (ref + log records over all tables; live refs for files links). */
export const MAX_BROWSER_SYNTHETIC_RECORDS = 5_000_000;
/** Largest total size of unreadable tables `syntheticStack` writes as zero bytes. */
const MAX_SYNTHETIC_UNREADABLE_BYTES = 64 << 20;
/** Most tables a link may declare. */
export const MAX_SHARE_TABLES = 100_000;
/** Most records (ref + log + obj + index, all tables; live refs for files links) a link may declare. */
export const MAX_SHARE_RECORDS = 50_000_000;
/** Most blocks (all sections, all tables) a link may declare: the shared report lists each one. */
export const MAX_SHARE_BLOCKS = 2_000_000;
/** Most distinct object ids a table may declare (the repro script makes that many commits). */
export const MAX_SHARE_OIDS = 10_000_000;
/**
 * Most winning records (live refs and winning tombstones) a shared report is rebuilt for: the
 * stand-in merged view has one entry per winner (about 1 s and 200 MB at this size).
 */
export const MAX_SHARED_REPORT_WINNERS = 5_000_000;
/** Longest diagnosis text carried in the measured extras (characters). */
const MAX_SHARED_DIAGNOSIS = 4000;
/** What a diagnosis carried by a link starts with in the shared report (it is the sharer's text, not refscope's). */
export const SHARED_DIAGNOSIS_PREFIX = 'Diagnosis as shared: ';

/** Why a link could not be read. */
export type ShareErrorReason = 'not-a-link' | 'truncated' | 'damaged' | 'future-version' | 'too-large';

/**
 * The one error of the decoder (and of `syntheticStack` for a stack too large to build).
 * `message` is a sentence for the user: "link is truncated …", "link was made by a newer
 * refscope (version N) …", "link is damaged: …".
 */
export class ShareLinkError extends Error {
  constructor(
    public readonly reason: ShareErrorReason,
    message: string,
    /** The link's format version when known. */
    public readonly linkVersion: number | null = null,
  ) {
    super(message);
    this.name = 'ShareLinkError';
  }
}

function damaged(what: string): ShareLinkError {
  return new ShareLinkError('damaged', `link is damaged: ${what}`, SHARE_VERSION);
}

// ---------------------------------------------------------------------------------------------
// The payload

/** Value types of ref records (reftable value_type): 0 tombstone, 1 ref, 2 ref + peeled, 3 symref. */
export type RefKind = 0 | 1 | 2 | 3;
const SECTIONS: SectionName[] = ['ref', 'refIndex', 'obj', 'objIndex', 'log', 'logIndex'];

/** Per-table figures of a payload (no names). */
export interface ShareTable {
  fileSize: number;
  /** Null when the table could not be read in the original (then every figure below is 0). */
  version: 1 | 2 | null;
  hashId: 'sha1' | 's256' | null;
  unreadable: boolean;
  blockSize: number;
  minUpdateIndex: number;
  maxUpdateIndex: number;
  /** Log records (updates) and log deletions. */
  logs: number;
  logDeletions: number;
  /** Obj records and index records (all indexes). */
  objRecords: number;
  indexRecords: number;
  sectionBytes: Record<SectionName, number>;
  sectionBlocks: Record<SectionName, number>;
  refIndexLevels: number;
  /** Restart interval estimated from the ref blocks' record and restart counts. */
  restartInterval: number;
  /** Bytes of key suffixes the ref records store (prefix compression at that interval): sizes the synthetic names. */
  keyBytes: number;
  /** Distinct object ids among the table's ref values and peeled values. */
  distinctOids: number;
}

/** Records of one kind in one namespace of one table, and how many of them win in the merged view. */
export interface ShareNsRecords {
  table: number;
  ns: number;
  kind: RefKind;
  records: number;
  winners: number;
  /** Symrefs only: winners whose target does not resolve (dangling; `for-each-ref` leaves them out). */
  dangling: number;
}

/** Records of table `older` in namespace `ns` that a winner in table `newer` overrides. */
export interface ShareOverlap {
  newer: number;
  older: number;
  ns: number;
  /** Records overridden. */
  count: number;
  /** Of those, overridden by a winning tombstone (hidden). */
  tombstones: number;
}

/** Winning tombstones of a table and namespace that hide at least one older record. */
export interface ShareHiding {
  table: number;
  ns: number;
  count: number;
}

/** A decoded (or freshly built) share payload: plain data, JSON-able. */
export interface SharePayload {
  schema: typeof SHARE_SCHEMA;
  /** Link format version (1). */
  version: number;
  /** Generator of the sharer's refscope, e.g. "refscope 0.1.0". */
  generator: string;
  kind: 'reftable' | 'files' | 'packed-refs';
  /** True when the link carries real names (namespaces, example ref names, finding texts). */
  withNames: boolean;
  /** Geometric factor of the compaction geometry (2..255). */
  factor: number;
  /** Namespaces: `refs/heads`, `refs/remotes/remote-1`, `(root)`, … (byte strings). */
  namespaces: string[];
  tables: ShareTable[];
  nsRecords: ShareNsRecords[];
  overlaps: ShareOverlap[];
  hiding: ShareHiding[];
  /** Files backend / packed-refs only: live refs per namespace (same order as `namespaces`). */
  liveByNs: number[] | null;
  findings: { warnings: number; errors: number; infos: number; messages: { severity: Finding['severity']; message: string }[] | null };
  /** With `withNames`: example ref names (byte strings). */
  examples: string[];
  /** The sharer's simulation results, sanitised (numbers, booleans, short labels), or null. */
  simulation: unknown;
  /**
   * What the numbers above cannot reproduce, from the sharer's report: `stack.compaction` fields
   * measured on the real tables (e.g. the size after a real `git pack-refs`), and the diagnosis
   * if it would come out different. Sanitised like `simulation`. Null when nothing differs.
   */
  measured: ShareMeasured | null;
}

/** See `SharePayload.measured`. */
export interface ShareMeasured {
  /** `stack.compaction` fields to set (values as in the sharer's report, sanitised). */
  compaction: Record<string, unknown>;
  /** `stack.compaction` fields the sharer's report does not have. */
  compactionAbsent: string[];
  /** The sharer's diagnosis, when the one rebuilt from the numbers differs (table names synthetic). */
  diagnosis: string | null;
}

/** Options of `buildSharePayload` / `shareLink`. */
export interface ShareOptions {
  /** Put real names in the link: namespaces with remote names, example ref names, finding texts. */
  withNames?: boolean;
  /** Example ref names with `withNames` (default 20). */
  exampleNames?: number;
  /**
   * The sharer's simulation results: any JSON-able value. Numbers, booleans and null are kept;
   * strings only when short and not name-like (no `/`, no 8+ hex digits, not a ref name component)
   * unless `withNames`; object keys only when identifier-like. Depth ≤ 8, ≤ 2,000 values.
   */
  simulation?: unknown;
}

// ---------------------------------------------------------------------------------------------
// Namespaces

/** Second components of `refs/<x>/…` kept as they are; others become `refs/other-N`. */
const KNOWN_NAMESPACES = new Set([
  'heads', 'tags', 'remotes', 'notes', 'pull', 'changes', 'keep-around', 'merge-requests', 'pipelines',
  'environments', 'stash', 'bisect', 'replace', 'prefetch', 'rewritten', 'worktree', 'meta', 'cache-automerge',
  'users', 'for', 'sources', 'namespaces', 'original', 'review', 'draft-comments', 'starred-changes',
  'sequences', 'groups', 'tmp', 'backup', 'archive', 'svn', 'p4', 'jj', 'gitbutler', 'branchless',
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
    if (!NS_COMPONENT.test(c) || c.startsWith('.') || c.endsWith('.') || c.endsWith('.lock') || c.includes('..')) return false;
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
    do name = `refs/other-${++k}`; while (used.has(name));
    used.add(name);
    return name;
  });
}

/** Real namespace names (sorted) → the names put in a link without `withNames`. */
function redactNamespaces(real: string[]): string[] {
  let remote = 0, other = 0;
  return real.map((ns) => {
    if (ns === '(root)') return ns;
    if (ns.startsWith('refs/remotes/')) return `refs/remotes/remote-${++remote}`;
    const second = ns.slice(5);
    if (KNOWN_NAMESPACES.has(second)) return ns;
    return `refs/other-${++other}`;
  });
}

// ---------------------------------------------------------------------------------------------
// Building a payload

/**
 * Key suffix bytes stored for sorted names with a restart every `interval` records (the first
 * record and every interval-th store the whole key, the others what differs from the previous key).
 */
export function keySuffixBytes(names: readonly string[], interval: number): number {
  let total = 0;
  for (let i = 0; i < names.length; i++) {
    const n = names[i];
    if (i % interval === 0) {
      total += n.length;
      continue;
    }
    const p = names[i - 1];
    const m = Math.min(n.length, p.length);
    let k = 0;
    while (k < m && n.charCodeAt(k) === p.charCodeAt(k)) k++;
    total += n.length - k;
  }
  return total;
}

/**
 * Restart interval from ref blocks' (records, restarts): a block of R records has at least
 * ⌈R / interval⌉ restarts (more where a key shares no prefix with the one before). 16 (git's
 * default) when consistent with every block and few extra restarts; else the feasible interval
 * with the fewest extra restarts.
 */
export function estimateRestartInterval(blocks: { recordCount: number; restartCount: number }[]): number {
  const bs = blocks.filter((b) => b.recordCount > 0 && b.restartCount > 0);
  if (!bs.length) return 16;
  const extras = (iv: number): number => {
    let e = 0;
    for (const b of bs) {
      const forced = Math.ceil(b.recordCount / iv);
      if (forced > b.restartCount) return -1;
      e += b.restartCount - forced;
    }
    return e;
  };
  const total = bs.reduce((s, b) => s + b.restartCount, 0);
  const e16 = extras(16);
  if (e16 >= 0 && e16 <= Math.max(2, 0.05 * total)) return 16;
  let best = 16, bestE = e16 < 0 ? Infinity : e16;
  for (let iv = 1; iv <= 256; iv++) {
    const e = extras(iv);
    if (e >= 0 && e < bestE) { best = iv; bestE = e; }
  }
  return best;
}

interface NameRedaction {
  /** Path components beyond the namespace of every ref name (to keep them out of simulation labels). */
  components: Set<string>;
}

/**
 * Build the payload of a link from an analysis and its report (`buildReport(analysis, { factor })`).
 * Reads the merged view for the namespace mix and the overlap of tables; puts no name or object id
 * in the payload unless `opts.withNames`.
 */
export function buildSharePayload(a: Analysis, report: Report, opts: ShareOptions = {}): SharePayload {
  const withNames = !!opts.withNames;
  const kind = (report.input.kind === 'files' || report.input.kind === 'packed-refs') ? report.input.kind : 'reftable';
  const compaction = report.stack?.compaction as { factor?: number } | undefined;
  const factor = compaction?.factor ?? 2;
  const warnings = report.findings.filter((f) => f.severity === 'warning').length;
  const errors = report.findings.filter((f) => f.severity === 'error').length;
  const infos = report.findings.filter((f) => f.severity === 'info').length;
  const red: NameRedaction = { components: new Set() };
  const addComponents = (name: string) => {
    const parts = name.split('/');
    const skip = name.startsWith('refs/') ? 2 : 0;
    for (let i = skip; i < parts.length; i++) if (parts[i]) red.components.add(parts[i]);
  };
  const payload: SharePayload = {
    schema: SHARE_SCHEMA, version: SHARE_VERSION, generator: report.generator, kind, withNames, factor,
    namespaces: [], tables: [], nsRecords: [], overlaps: [], hiding: [], liveByNs: null,
    findings: {
      warnings, errors, infos,
      messages: withNames ? report.findings.map((f) => ({ severity: f.severity, message: textToKey(f.message) })) : null,
    },
    examples: [], simulation: null, measured: null,
  };

  if (kind !== 'reftable' || !a.stack || !a.merged) {
    const refs = analysisRefs(a);
    const counts = new Map<string, number>();
    for (const r of refs) {
      addComponents(r.name);
      const ns = shareNamespaceOf(r.name);
      counts.set(ns, (counts.get(ns) ?? 0) + 1);
    }
    const real = [...counts.keys()].sort();
    payload.namespaces = withNames ? real : redactNamespaces(real);
    payload.liveByNs = real.map((ns) => counts.get(ns)!);
    if (withNames) payload.examples = pickExamples(refs.map((r) => r.name), opts.exampleNames ?? DEFAULT_EXAMPLE_NAMES);
    payload.simulation = opts.simulation === undefined ? null : sanitizeSimulation(opts.simulation, withNames, red.components).value;
    return payload;
  }

  const s: Stack = a.stack;
  const m: MergedView = a.merged;
  const tables = s.tables;
  // Namespaces of every record (names are the same across tables, so one namespace per key).
  const nsIndex = new Map<string, number>();
  const nsOf: Int32Array[] = tables.map((t) => {
    if (!t) return new Int32Array(0);
    const out = new Int32Array(t.refs.count);
    for (let r = 0; r < t.refs.count; r++) {
      const ns = shareNamespaceOf(t.refs.names[r]);
      let k = nsIndex.get(ns);
      if (k === undefined) { k = nsIndex.size; nsIndex.set(ns, k); }
      out[r] = k;
    }
    return out;
  });
  const realNs = [...nsIndex.keys()];
  const order = realNs.map((_, i) => i).sort((x, y) => (realNs[x] < realNs[y] ? -1 : realNs[x] > realNs[y] ? 1 : 0));
  const remap = new Int32Array(realNs.length);
  order.forEach((old, nw) => { remap[old] = nw; });
  const sortedReal = order.map((i) => realNs[i]);
  payload.namespaces = withNames ? sortedReal : redactNamespaces(sortedReal);

  // records and winners per (table, ns, kind)
  const nsRec = new Map<string, ShareNsRecords>();
  const bump = (table: number, ns: number, kind: RefKind, winner: boolean) => {
    const key = `${table}:${ns}:${kind}`;
    let e = nsRec.get(key);
    if (!e) { e = { table, ns, kind, records: 0, winners: 0, dangling: 0 }; nsRec.set(key, e); }
    if (winner) e.winners++; else e.records++;
    return e;
  };
  tables.forEach((t, i) => {
    if (!t) return;
    for (let r = 0; r < t.refs.count; r++) bump(i, remap[nsOf[i][r]], t.refs.types[r] as RefKind, false);
  });
  const hidingMark = new Uint8Array(m.count);
  for (let j = 0; j < m.count; j++) {
    const ti = m.table[j];
    const r = m.rec[j];
    const e = bump(ti, remap[nsOf[ti][r]], tables[ti]!.refs.types[r] as RefKind, true);
    if (e.kind === 3 && resolveEntry(tables, m, j) === null) e.dangling++;
  }
  // overlaps: for every record that is not the winner of its key
  const ov = new Map<string, ShareOverlap>();
  tables.forEach((t, i) => {
    if (!t) return;
    let lo = 0;
    for (let r = 0; r < t.refs.count; r++) {
      const name = t.refs.names[r];
      // names are sorted within a table: search from the previous position
      const j = lowerBound(m.keys, name, lo);
      lo = j;
      if (j >= m.count || m.keys[j] !== name) continue; // cannot happen for a consistent view
      const w = m.table[j];
      if (w === i) continue;
      const ns = remap[nsOf[i][r]];
      const key = `${w}:${i}:${ns}`;
      let e = ov.get(key);
      if (!e) { e = { newer: w, older: i, ns, count: 0, tombstones: 0 }; ov.set(key, e); }
      e.count++;
      if (tables[w]!.refs.types[m.rec[j]] === 0) {
        e.tombstones++;
        hidingMark[j] = 1;
      }
    }
  });
  const hid = new Map<string, ShareHiding>();
  for (let j = 0; j < m.count; j++) {
    if (!hidingMark[j]) continue;
    const ti = m.table[j];
    const ns = remap[nsOf[ti][m.rec[j]]];
    const key = `${ti}:${ns}`;
    let e = hid.get(key);
    if (!e) { e = { table: ti, ns, count: 0 }; hid.set(key, e); }
    e.count++;
  }
  payload.nsRecords = [...nsRec.values()].sort((x, y) => x.table - y.table || x.ns - y.ns || x.kind - y.kind);
  payload.overlaps = [...ov.values()].sort((x, y) => x.older - y.older || x.newer - y.newer || x.ns - y.ns);
  payload.hiding = [...hid.values()].sort((x, y) => x.table - y.table || x.ns - y.ns);

  payload.tables = report.tables.map((tr, i) => {
    const t: Table | null = tables[i] ?? null;
    const sectionBlocks = { ref: 0, refIndex: 0, obj: 0, objIndex: 0, log: 0, logIndex: 0 } as Record<SectionName, number>;
    for (const b of tr.blocks) sectionBlocks[b.section]++;
    const interval = estimateRestartInterval(tr.blocks.filter((b) => b.section === 'ref'));
    let keyBytes = 0, distinctOids = 0;
    if (t) {
      keyBytes = keySuffixBytes(t.refs.names, interval);
      const hs = t.header.hashSize;
      const seen = new Set<string>();
      const bytes = t.refs.oids;
      for (let r = 0; r < t.refs.count; r++) {
        const ty = t.refs.types[r];
        if (ty !== 1 && ty !== 2) continue;
        let k = '';
        for (let b = r * hs; b < (r + 1) * hs; b++) k += String.fromCharCode(bytes[b]);
        seen.add(k);
        const p = t.refs.peeled.get(r);
        if (p) {
          let q = '';
          for (let b = 0; b < p.length; b++) q += String.fromCharCode(p[b]);
          seen.add(q);
        }
      }
      distinctOids = seen.size;
    }
    return {
      fileSize: tr.fileSize, version: tr.version, hashId: tr.hashId, unreadable: !!tr.error || !t,
      blockSize: tr.blockSize ?? 0, minUpdateIndex: tr.minUpdateIndex ?? 0, maxUpdateIndex: tr.maxUpdateIndex ?? 0,
      logs: tr.records.log, logDeletions: tr.records.logDeletion, objRecords: tr.records.obj, indexRecords: tr.records.index,
      sectionBytes: { ...tr.sectionBytes }, sectionBlocks, refIndexLevels: tr.refIndexLevels,
      restartInterval: t ? interval : 16, keyBytes, distinctOids,
    };
  });

  for (const t of tables) if (t) for (let r = 0; r < t.refs.count; r++) addComponents(t.refs.names[r]);
  if (withNames) payload.examples = pickExamples(analysisRefs(a).map((r) => r.name), opts.exampleNames ?? DEFAULT_EXAMPLE_NAMES);
  payload.simulation = opts.simulation === undefined ? null : sanitizeSimulation(opts.simulation, withNames, red.components).value;
  payload.measured = measuredExtras(report, payload, withNames, red.components);
  return payload;
}

/**
 * Compare the sharer's report with the one rebuilt from the payload: the `stack.compaction`
 * fields that differ (measured on the real tables) and the diagnosis if it differs. Texts that
 * contain a ref name component or 8+ hex digits are left out unless `withNames`.
 */
function measuredExtras(report: Report, p: SharePayload, withNames: boolean, components: Set<string>): ShareMeasured | null {
  if (!report.stack || sharedWinners(p) > MAX_SHARED_REPORT_WINNERS) return null;
  const probe = reportFromShare(p);
  const orig = (report.stack!.compaction ?? {}) as Record<string, unknown>;
  const got = (probe.stack?.compaction ?? {}) as Record<string, unknown>;
  const set: Record<string, unknown> = {};
  const absent: string[] = [];
  for (const k of Object.keys(orig)) {
    if (JSON.stringify(orig[k]) !== JSON.stringify(got[k])) set[k] = sanitizeSimulation(orig[k], withNames, components).value;
  }
  for (const k of Object.keys(got)) if (!(k in orig)) absent.push(k);
  // the diagnosis names unreadable tables: compare with the rebuilt report's synthetic names
  let text = report.diagnosis;
  report.tables.forEach((t, i) => { if (t.name && probe.tables[i]) text = text.split(t.name).join(probe.tables[i].name); });
  let diagnosis: string | null = null;
  if (text !== probe.diagnosis) {
    const safe = withNames || (!/[0-9a-f]{8,}/i.test(text.replace(/0x[0-9a-f]{12}-0x[0-9a-f]{12}-[0-9a-f]{8}\.ref/g, ''))
      && !text.split(/[^A-Za-z0-9._-]+/).some((w) => w && components.has(w)));
    diagnosis = safe ? text : null;
  }
  if (!Object.keys(set).length && !absent.length && diagnosis === null) return null;
  return { compaction: set, compactionAbsent: absent, diagnosis };
}

/** Up to `n` names, spread over namespaces (round-robin over each namespace's first names). */
function pickExamples(names: string[], n: number): string[] {
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
      if (round < l.length && out.length < n) { out.push(l[round]); any = true; }
    }
    if (!any) break;
  }
  return out.sort();
}

// ---------------------------------------------------------------------------------------------
// Simulation results

/** Counts of what `sanitizeSimulation` kept. */
export interface SanitizedSimulation {
  value: unknown;
  numbers: number;
  labels: string[];
  removed: number;
}

/** What a simulation text value that looked like a name is replaced with. */
export const REMOVED = '(removed)';
const SAFE_LABEL = /^[A-Za-z0-9 .,:;()%×+=<>#@'"!?-]{0,64}$/;
const SAFE_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * Keep numbers, booleans and null; strings only if short label text (not name-like: no `/`, no
 * run of 8 hex digits, no ref name component) — unless `withNames`, then any string up to 200
 * characters; object keys only if identifier-like. Depth ≤ 8, ≤ 2,000 values.
 */
export function sanitizeSimulation(v: unknown, withNames: boolean, components: Set<string> = new Set()): SanitizedSimulation {
  let budget = 2000;
  let numbers = 0, removed = 0;
  const labels: string[] = [];
  const labelOk = (s: string): boolean => {
    if (withNames) return s.length <= 200;
    if (!SAFE_LABEL.test(s) || /[0-9a-f]{8,}/i.test(s)) return false;
    for (const tok of s.split(/[^A-Za-z0-9._-]+/)) if (tok && components.has(tok)) return false;
    return !components.has(s);
  };
  const walk = (x: unknown, depth: number): unknown => {
    if (budget-- <= 0 || depth > 8) { removed++; return null; }
    if (x === null || typeof x === 'boolean') return x;
    if (typeof x === 'number') {
      if (!Number.isFinite(x)) { removed++; return null; }
      numbers++;
      return x;
    }
    if (typeof x === 'string') {
      if (labelOk(x)) { labels.push(x); return x; }
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
        if (!SAFE_KEY.test(k) || (!withNames && components.has(k))) { removed++; continue; }
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

// ---------------------------------------------------------------------------------------------
// Binary encoding

class ByteWriter {
  buf = new Uint8Array(1024);
  n = 0;
  private ensure(k: number): void {
    if (this.n + k <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.n + k) cap *= 2;
    const b = new Uint8Array(cap);
    b.set(this.buf.subarray(0, this.n));
    this.buf = b;
  }
  varint(v: number): void {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`share payload: a non-negative integer, got ${v}`);
    const e = encodeVarint(v);
    this.ensure(e.length);
    this.buf.set(e, this.n);
    this.n += e.length;
  }
  /** A byte string (one char per byte). */
  str(s: string): void {
    this.varint(s.length);
    this.ensure(s.length);
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c > 0xff) throw new RangeError('share payload: strings are byte strings (use textToKey)');
      this.buf[this.n++] = c;
    }
  }
  bytes(): Uint8Array {
    return this.buf.slice(0, this.n);
  }
}

class ByteReader {
  pos = 0;
  constructor(private readonly b: Uint8Array) {}
  varint(what: string, max = Number.MAX_SAFE_INTEGER): number {
    const v = getVarint(this.b, this.pos, this.b.length);
    if (v === -1) throw damaged(`the data ends inside ${what}`);
    if (v === -2) throw damaged(`${what} is too large`);
    this.pos = cursor.pos;
    if (v > max) throw damaged(`${what} is ${v}, at most ${max} allowed`);
    return v;
  }
  str(what: string, max = 4096): string {
    const n = this.varint(`the length of ${what}`, max);
    if (this.pos + n > this.b.length) throw damaged(`the data ends inside ${what}`);
    let s = '';
    for (let i = 0; i < n; i++) s += String.fromCharCode(this.b[this.pos + i]);
    this.pos += n;
    return s;
  }
  get done(): boolean {
    return this.pos >= this.b.length;
  }
}

const KIND_CODE = { reftable: 0, files: 1, 'packed-refs': 2 } as const;
const KIND_NAME = ['reftable', 'files', 'packed-refs'] as const;
const SEVERITIES: Finding['severity'][] = ['warning', 'error', 'info'];

type NumField = 'fileSize' | 'blockSize' | 'minUpdateIndex' | 'logs' | 'logDeletions' | 'objRecords' | 'indexRecords' | 'refIndexLevels' | 'restartInterval' | 'keyBytes' | 'distinctOids';
const NUM_FIELDS: NumField[] = ['fileSize', 'blockSize', 'minUpdateIndex', 'logs', 'logDeletions', 'objRecords', 'indexRecords', 'refIndexLevels', 'restartInterval', 'keyBytes', 'distinctOids'];

/** The payload as bytes: `varint length, body, u32 CRC-32(body)` (docs/share.md). */
export function encodeSharePayload(p: SharePayload): Uint8Array {
  const w = new ByteWriter();
  let flags = 0;
  if (p.withNames) flags |= 1;
  if (p.simulation !== null && p.simulation !== undefined) flags |= 2;
  if (p.findings.messages) flags |= 4;
  if (p.liveByNs) flags |= 8;
  if (p.measured) flags |= 16;
  w.varint(SHARE_VERSION);
  w.varint(flags);
  w.varint(KIND_CODE[p.kind]);
  w.str(textToKey(p.generator));
  w.varint(p.factor);
  w.varint(p.namespaces.length);
  for (const ns of p.namespaces) w.str(ns);
  const n = p.tables.length;
  w.varint(n);
  // column-major: each field for every table, so deflate sees runs of similar values
  for (const f of NUM_FIELDS) for (const t of p.tables) w.varint(t[f]);
  for (const t of p.tables) w.varint(t.maxUpdateIndex - t.minUpdateIndex);
  for (const t of p.tables) w.varint((t.version ?? 0) | (t.hashId === 's256' ? 4 : 0) | (t.unreadable ? 8 : 0));
  for (const s of SECTIONS) for (const t of p.tables) w.varint(t.sectionBytes[s]);
  for (const s of SECTIONS) for (const t of p.tables) w.varint(t.sectionBlocks[s]);
  w.varint(p.nsRecords.length);
  let prev = 0;
  for (const e of p.nsRecords) {
    w.varint(e.table - prev);
    prev = e.table;
    w.varint(e.ns); w.varint(e.kind); w.varint(e.records); w.varint(e.winners);
    if (e.kind === 3) w.varint(e.dangling);
  }
  w.varint(p.overlaps.length);
  prev = 0;
  for (const e of p.overlaps) {
    w.varint(e.older - prev);
    prev = e.older;
    w.varint(e.newer - e.older); w.varint(e.ns); w.varint(e.count); w.varint(e.tombstones);
  }
  w.varint(p.hiding.length);
  prev = 0;
  for (const e of p.hiding) {
    w.varint(e.table - prev);
    prev = e.table;
    w.varint(e.ns); w.varint(e.count);
  }
  if (p.liveByNs) for (const v of p.liveByNs) w.varint(v);
  w.varint(p.findings.warnings); w.varint(p.findings.errors); w.varint(p.findings.infos);
  if (p.findings.messages) {
    w.varint(p.findings.messages.length);
    for (const f of p.findings.messages) { w.varint(SEVERITIES.indexOf(f.severity)); w.str(f.message); }
  }
  w.varint(p.examples.length);
  for (const x of p.examples) w.str(x);
  if (flags & 2) w.str(textToKey(JSON.stringify(p.simulation)));
  if (flags & 16) w.str(textToKey(JSON.stringify(p.measured)));
  const body = w.bytes();
  const len = encodeVarint(body.length);
  const out = new Uint8Array(len.length + body.length + 4);
  out.set(len, 0);
  out.set(body, len.length);
  const c = crc32(body);
  const o = len.length + body.length;
  out[o] = c >>> 24; out[o + 1] = (c >>> 16) & 0xff; out[o + 2] = (c >>> 8) & 0xff; out[o + 3] = c & 0xff;
  return out;
}

/** Decode and check payload bytes (the inflated link data). Throws `ShareLinkError`. */
export function decodeSharePayload(bytes: Uint8Array): SharePayload {
  const lenV = getVarint(bytes, 0, bytes.length);
  if (lenV === -1) throw new ShareLinkError('truncated', 'link is truncated: the data ends before its length field', SHARE_VERSION);
  if (lenV === -2) throw damaged('the length field is not a number');
  const start = cursor.pos;
  if (start + lenV + 4 > bytes.length) {
    throw new ShareLinkError('truncated', `link is truncated: it says ${lenV + 4} bytes of data follow, ${bytes.length - start} do`, SHARE_VERSION);
  }
  if (start + lenV + 4 < bytes.length) throw damaged(`${bytes.length - start - lenV - 4} unexpected bytes after the data`);
  const body = bytes.subarray(start, start + lenV);
  const o = start + lenV;
  const want = ((bytes[o] << 24) >>> 0) + ((bytes[o + 1] << 16) | (bytes[o + 2] << 8) | bytes[o + 3]);
  if (crc32(body) !== want) throw damaged('the checksum does not match (a character was changed)');
  const r = new ByteReader(body);
  const version = r.varint('the format version');
  if (version !== SHARE_VERSION) {
    if (version > SHARE_VERSION) throw futureVersion(version);
    throw damaged(`format version ${version} inside a version ${SHARE_VERSION} link`);
  }
  const flags = r.varint('the flags', 31);
  const kindCode = r.varint('the input kind', 2);
  const generator = displayName(r.str('the generator', 200));
  const factor = r.varint('the geometric factor', 255);
  if (factor < 2) throw damaged(`geometric factor ${factor} (2..255)`);
  const nNs = r.varint('the namespace count', 10_000);
  const rawNamespaces: string[] = [];
  for (let i = 0; i < nNs; i++) rawNamespaces.push(r.str('a namespace', 1024));
  if (new Set(rawNamespaces).size !== nNs) throw damaged('a namespace appears twice');
  // names outside [A-Za-z0-9._/-] (or not valid in git) never reach synthetic names or the script
  const namespaces = safeNamespaces(rawNamespaces);
  const n = r.varint('the table count', MAX_SHARE_TABLES);
  const cols: Record<string, number[]> = {};
  for (const f of NUM_FIELDS) {
    const col: number[] = [];
    for (let i = 0; i < n; i++) col.push(r.varint(`table ${i} ${f}`));
    cols[f] = col;
  }
  const spans: number[] = [];
  for (let i = 0; i < n; i++) spans.push(r.varint(`table ${i} update-index range`));
  const tflags: number[] = [];
  for (let i = 0; i < n; i++) tflags.push(r.varint(`table ${i} flags`, 15));
  const sb: Record<string, number[]> = {};
  for (const s of SECTIONS) { const c: number[] = []; for (let i = 0; i < n; i++) c.push(r.varint(`table ${i} ${s} bytes`)); sb[s] = c; }
  const sk: Record<string, number[]> = {};
  for (const s of SECTIONS) { const c: number[] = []; for (let i = 0; i < n; i++) c.push(r.varint(`table ${i} ${s} blocks`)); sk[s] = c; }
  const tables: ShareTable[] = [];
  for (let i = 0; i < n; i++) {
    const fl = tflags[i];
    const v = fl & 3;
    if (v === 3) throw damaged(`table ${i}: format version 3`);
    const unreadable = (fl & 8) !== 0;
    if (!unreadable && v === 0) throw damaged(`table ${i}: no format version`);
    const t: ShareTable = {
      fileSize: cols.fileSize[i], version: v === 0 ? null : (v as 1 | 2), hashId: v === 0 ? null : (fl & 4 ? 's256' : 'sha1'), unreadable,
      blockSize: cols.blockSize[i], minUpdateIndex: cols.minUpdateIndex[i], maxUpdateIndex: cols.minUpdateIndex[i] + spans[i],
      logs: cols.logs[i], logDeletions: cols.logDeletions[i], objRecords: cols.objRecords[i], indexRecords: cols.indexRecords[i],
      sectionBytes: Object.fromEntries(SECTIONS.map((s) => [s, sb[s][i]])) as Record<SectionName, number>,
      sectionBlocks: Object.fromEntries(SECTIONS.map((s) => [s, sk[s][i]])) as Record<SectionName, number>,
      refIndexLevels: cols.refIndexLevels[i], restartInterval: cols.restartInterval[i], keyBytes: cols.keyBytes[i], distinctOids: cols.distinctOids[i],
    };
    if (!Number.isSafeInteger(t.maxUpdateIndex)) throw damaged(`table ${i}: update index too large`);
    if (t.blockSize >= 1 << 24) throw damaged(`table ${i}: block size ${t.blockSize}`);
    if (t.restartInterval < 1 || t.restartInterval > 65535) throw damaged(`table ${i}: restart interval ${t.restartInterval}`);
    tables.push(t);
  }
  const nsRecords: ShareNsRecords[] = [];
  let prev = 0;
  const nRec = r.varint('the namespace record count', 4_000_000);
  for (let k = 0; k < nRec; k++) {
    const table = prev + r.varint('a table index', n);
    prev = table;
    const ns = r.varint('a namespace index', Math.max(0, nNs - 1));
    const kind = r.varint('a record kind', 3) as RefKind;
    const records = r.varint('a record count');
    const winners = r.varint('a winner count');
    const dangling = kind === 3 ? r.varint('a dangling symref count') : 0;
    nsRecords.push({ table, ns, kind, records, winners, dangling });
  }
  const overlaps: ShareOverlap[] = [];
  prev = 0;
  const nOv = r.varint('the overlap count', 4_000_000);
  for (let k = 0; k < nOv; k++) {
    const older = prev + r.varint('a table index', n);
    prev = older;
    const newer = older + r.varint('a table distance', n);
    const ns = r.varint('a namespace index', Math.max(0, nNs - 1));
    const count = r.varint('an overlap count');
    const tombstones = r.varint('an overlap tombstone count');
    overlaps.push({ newer, older, ns, count, tombstones });
  }
  const hiding: ShareHiding[] = [];
  prev = 0;
  const nHid = r.varint('the hiding count', 4_000_000);
  for (let k = 0; k < nHid; k++) {
    const table = prev + r.varint('a table index', n);
    prev = table;
    const ns = r.varint('a namespace index', Math.max(0, nNs - 1));
    const count = r.varint('a hiding count');
    hiding.push({ table, ns, count });
  }
  let liveByNs: number[] | null = null;
  if (flags & 8) {
    liveByNs = [];
    for (let i = 0; i < nNs; i++) liveByNs.push(r.varint('a live ref count'));
  }
  const warnings = r.varint('the warning count');
  const errors = r.varint('the error count');
  const infos = r.varint('the info count');
  let messages: SharePayload['findings']['messages'] = null;
  if (flags & 4) {
    messages = [];
    const k = r.varint('the finding count', 100_000);
    for (let i = 0; i < k; i++) {
      const sev = SEVERITIES[r.varint('a finding severity', 2)];
      messages.push({ severity: sev, message: r.str('a finding', 8192) });
    }
  }
  const examples: string[] = [];
  const nEx = r.varint('the example count', 10_000);
  for (let i = 0; i < nEx; i++) examples.push(r.str('an example name', 8192));
  let simulation: unknown = null;
  if (flags & 2) {
    const text = displayName(r.str('the simulation results', MAX_INFLATED));
    try {
      simulation = JSON.parse(text);
    } catch {
      throw damaged('the simulation results are not JSON');
    }
  }
  let measured: ShareMeasured | null = null;
  if (flags & 16) {
    let m: unknown;
    try {
      m = JSON.parse(displayName(r.str('the measured figures', MAX_INFLATED)));
    } catch {
      throw damaged('the measured figures are not JSON');
    }
    const mm = m as ShareMeasured;
    if (!mm || typeof mm !== 'object' || !mm.compaction || typeof mm.compaction !== 'object' || Array.isArray(mm.compaction)
      || !Array.isArray(mm.compactionAbsent) || !mm.compactionAbsent.every((x) => typeof x === 'string')
      || !(mm.diagnosis === null || typeof mm.diagnosis === 'string')) {
      throw damaged('the measured figures have the wrong shape');
    }
    measured = { compaction: mm.compaction, compactionAbsent: mm.compactionAbsent, diagnosis: mm.diagnosis };
  }
  if (measured) checkMeasured(measured, n);
  if (!r.done) throw damaged('unexpected bytes at the end');
  const p: SharePayload = {
    schema: SHARE_SCHEMA, version, generator, kind: KIND_NAME[kindCode], withNames: (flags & 1) !== 0, factor,
    namespaces, tables, nsRecords, overlaps, hiding, liveByNs,
    findings: { warnings, errors, infos, messages }, examples, simulation, measured,
  };
  checkPayload(p);
  return p;
}

const COMPACTION_KEYS = new Set([
  'factor', 'segment', 'bySize', 'byRecords', 'byLive', 'jgit', 'dropsTombstones', 'afterPackRefs', 'afterAuto', 'afterSkipped',
  'incomplete', 'reason',
]);
const AFTER_KEYS = ['tables', 'bytes', 'records', 'newTableBytes', 'newTableRecords'];

/**
 * The measured extras of a link (the part `checkPayload` cannot cross-check): known
 * `stack.compaction` fields only; every number finite and non-negative; every `segment` null or
 * `{ start, end }` with table indexes 0 ≤ start ≤ end < table count; `afterPackRefs` /
 * `afterAuto` null or their five counts; the factor 2..255; texts and the diagnosis of bounded length.
 */
function checkMeasured(m: ShareMeasured, nTables: number): void {
  const bad = (what: string) => damaged(`the measured figures ${what}`);
  const isObj = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);
  const index = (x: unknown) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0 && x < nTables;
  const segment = (x: unknown) => {
    if (x === null) return;
    if (!isObj(x) || Object.keys(x).length !== 2 || !index(x.start) || !index(x.end) || (x.start as number) > (x.end as number)) {
      throw bad(`have a compaction segment outside the ${nTables} tables`);
    }
  };
  let budget = 100_000;
  const walk = (x: unknown, depth: number, key: string): void => {
    if (budget-- <= 0 || depth > 8) throw bad('are too large');
    if (key === 'segment') { segment(x); return; }
    if ((key === 'afterPackRefs' || key === 'afterAuto') && x !== null) {
      if (!isObj(x) || Object.keys(x).length !== AFTER_KEYS.length || !AFTER_KEYS.every((k) => typeof x[k] === 'number' && Number.isSafeInteger(x[k]) && (x[k] as number) >= 0)) {
        throw bad(`have an invalid ${key}`);
      }
      if ((x.tables as number) > nTables) throw bad(`have ${key} with more tables than the stack`);
      return;
    }
    if (x === null || typeof x === 'boolean') return;
    if (typeof x === 'number') {
      if (!Number.isFinite(x) || x < 0) throw bad('have a negative or non-finite number');
      return;
    }
    if (typeof x === 'string') {
      if (x.length > 2000) throw bad('have a text that is too long');
      return;
    }
    if (Array.isArray(x)) {
      if (x.length > nTables + 1) throw bad('have a list longer than the table count');
      for (const y of x) walk(y, depth + 1, '');
      return;
    }
    if (isObj(x)) {
      for (const [k, y] of Object.entries(x)) {
        if (!SAFE_KEY.test(k)) throw bad('have an invalid field name');
        walk(y, depth + 1, k);
      }
      return;
    }
    throw bad('have a value of the wrong type');
  };
  for (const k of [...Object.keys(m.compaction), ...m.compactionAbsent]) {
    if (!COMPACTION_KEYS.has(k)) throw bad(`have an unknown field ${JSON.stringify(k.slice(0, 40))}`);
  }
  if ('factor' in m.compaction) {
    const f = m.compaction.factor;
    if (typeof f !== 'number' || !Number.isSafeInteger(f) || f < 2 || f > 255) throw bad('have an invalid factor');
  }
  walk(m.compaction, 0, '');
  if (m.diagnosis !== null && m.diagnosis.length > MAX_SHARED_DIAGNOSIS) throw bad('have a diagnosis that is too long');
}

/**
 * Plausibility of a payload's sizes, before anything loops on them: every figure a non-negative
 * integer; per table, records of every kind and section bytes at most its file size (every record
 * and byte is in the file), blocks at most file size / 4 + 1 (a block header alone is 4 bytes),
 * distinct object ids at most what its ref and peeled records hold; over all tables, at most
 * `MAX_SHARE_TABLES` tables, `MAX_SHARE_RECORDS` records, `MAX_SHARE_BLOCKS` blocks.
 */
function checkSizes(p: SharePayload): void {
  const n = p.tables.length;
  if (n > MAX_SHARE_TABLES) throw new ShareLinkError('too-large', `link is too large: ${fmt(n)} tables, at most ${fmt(MAX_SHARE_TABLES)}`, p.version);
  const count = (x: unknown) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
  if (!p.namespaces.every((ns) => typeof ns === 'string')) throw damaged('a namespace is not text');
  const refRecs = new Array<number>(n).fill(0);
  const oidCap = new Array<number>(n).fill(0);
  for (const e of p.nsRecords) {
    if (!count(e.table) || !count(e.ns) || !count(e.records) || !count(e.winners) || !count(e.dangling) || ![0, 1, 2, 3].includes(e.kind)) {
      throw damaged('a record count is not a non-negative integer');
    }
    if (e.table >= n) throw damaged('a record count names a table that does not exist');
    refRecs[e.table] += e.records;
    if (e.kind === 1) oidCap[e.table] += e.records;
    else if (e.kind === 2) oidCap[e.table] += 2 * e.records;
  }
  for (const o of p.overlaps) {
    if (![o.newer, o.older, o.ns, o.count, o.tombstones].every(count)) throw damaged('an overlap is not non-negative integers');
  }
  for (const h of p.hiding) if (![h.table, h.ns, h.count].every(count)) throw damaged('a hiding count is not non-negative integers');
  let records = 0, blocks = 0;
  p.tables.forEach((t, i) => {
    for (const f of [...NUM_FIELDS, 'maxUpdateIndex'] as const) if (!count(t[f])) throw damaged(`table ${i}: ${f} is not a non-negative integer`);
    if (t.maxUpdateIndex < t.minUpdateIndex) throw damaged(`table ${i}: update-index range ends before it starts`);
    const size = t.fileSize;
    const tooMany = (what: string, v: number) => { if (v > size) throw damaged(`table ${i}: ${fmt(v)} ${what} in a file of ${fmt(size)} bytes`); };
    tooMany('ref records', refRecs[i]);
    tooMany('reflog records', t.logs + t.logDeletions);
    tooMany('obj records', t.objRecords);
    tooMany('index records', t.indexRecords);
    let tb = 0;
    for (const s of SECTIONS) {
      if (!count(t.sectionBytes?.[s]) || !count(t.sectionBlocks?.[s])) throw damaged(`table ${i}: ${s} section figures are not non-negative integers`);
      tooMany(`${s} section bytes`, t.sectionBytes[s]);
      tb += t.sectionBlocks[s];
    }
    if (tb > Math.floor(size / 4) + 1) throw damaged(`table ${i}: ${fmt(tb)} blocks in a file of ${fmt(size)} bytes`);
    if (t.distinctOids > oidCap[i] || t.distinctOids > MAX_SHARE_OIDS) {
      throw damaged(`table ${i}: ${fmt(t.distinctOids)} distinct object ids for ${fmt(oidCap[i])} values`);
    }
    records += refRecs[i] + t.logs + t.logDeletions + t.objRecords + t.indexRecords;
    blocks += tb;
  });
  if (p.liveByNs) {
    if (!p.liveByNs.every(count)) throw damaged('a live ref count is not a non-negative integer');
    records += p.liveByNs.reduce((s, v) => s + v, 0);
  }
  if (records > MAX_SHARE_RECORDS) {
    throw new ShareLinkError('too-large', `link is too large: ${fmt(records)} records, at most ${fmt(MAX_SHARE_RECORDS)} (use the file export)`, p.version);
  }
  if (blocks > MAX_SHARE_BLOCKS) {
    throw new ShareLinkError('too-large', `link is too large: ${fmt(blocks)} blocks, at most ${fmt(MAX_SHARE_BLOCKS)} (use the file export)`, p.version);
  }
}

function futureVersion(v: number): ShareLinkError {
  return new ShareLinkError('future-version', `link was made by a newer refscope (version ${v}); this refscope reads version ${SHARE_VERSION} links: open it with a newer refscope`, v);
}

/**
 * The consistency rules of a payload (a link that breaks one is damaged): indexes in range, older
 * table before newer, per table and namespace the overridden records equal what the newer tables
 * override, tombstones that hide are winning tombstones, and live records that override exist.
 */
export function checkPayload(p: SharePayload): void {
  checkSizes(p);
  const n = p.tables.length;
  const nNs = p.namespaces.length;
  const key = (t: number, ns: number) => t * nNs + ns;
  const rec = new Map<string, ShareNsRecords>();
  const sums = new Map<number, { records: number; winners: number; tombWin: number }>();
  let total = 0;
  for (const e of p.nsRecords) {
    if (e.table >= n || e.ns >= nNs) throw damaged('a record count names a table or namespace that does not exist');
    if (p.tables[e.table].unreadable) throw damaged(`table ${e.table} is unreadable but has record counts`);
    if (e.winners > e.records) throw damaged(`table ${e.table}: more winners than records`);
    if (e.dangling > (e.kind === 3 ? e.winners : 0)) throw damaged(`table ${e.table}: more dangling symrefs than winning symrefs`);
    const k = `${e.table}:${e.ns}:${e.kind}`;
    if (rec.has(k)) throw damaged(`table ${e.table}: a record count appears twice`);
    rec.set(k, e);
    const s = sums.get(key(e.table, e.ns)) ?? { records: 0, winners: 0, tombWin: 0 };
    s.records += e.records;
    s.winners += e.winners;
    if (e.kind === 0) s.tombWin += e.winners;
    sums.set(key(e.table, e.ns), s);
    total += e.records;
    if (!Number.isSafeInteger(total)) throw damaged('record counts too large');
  }
  const overridden = new Map<number, number>();
  /** Per (newer, ns): tombstones hiding summed over older tables, and the most in one older table. */
  const perNewer = new Map<number, { hid: number; live: number }>();
  const seenOv = new Set<string>();
  for (const e of p.overlaps) {
    if (e.newer >= n || e.older >= e.newer || e.ns >= nNs) throw damaged('an overlap names tables out of order');
    if (e.tombstones > e.count) throw damaged('an overlap with more tombstones than records');
    const k = `${e.newer}:${e.older}:${e.ns}`;
    if (seenOv.has(k)) throw damaged('an overlap appears twice');
    seenOv.add(k);
    const ko = key(e.older, e.ns);
    overridden.set(ko, (overridden.get(ko) ?? 0) + e.count);
    const w = sums.get(key(e.newer, e.ns));
    const live = w ? w.winners - w.tombWin : 0;
    if (e.count - e.tombstones > live) throw damaged(`table ${e.newer}: overrides more records than it has live winners`);
    const pn = perNewer.get(key(e.newer, e.ns)) ?? { hid: 0, live: 0 };
    pn.hid += e.tombstones;
    pn.live = Math.max(pn.live, e.tombstones);
    perNewer.set(key(e.newer, e.ns), pn);
  }
  for (const [k, s] of sums) {
    if ((overridden.get(k) ?? 0) !== s.records - s.winners) {
      throw damaged(`table ${Math.floor(k / Math.max(1, nNs))}: ${s.records - s.winners} records lose but ${overridden.get(k) ?? 0} are overridden`);
    }
  }
  for (const k of overridden.keys()) if (!sums.has(k)) throw damaged('an overlap names records that do not exist');
  const seenHid = new Set<number>();
  for (const e of p.hiding) {
    if (e.table >= n || e.ns >= nNs) throw damaged('a hiding count names a table or namespace that does not exist');
    const k = key(e.table, e.ns);
    if (seenHid.has(k)) throw damaged('a hiding count appears twice');
    seenHid.add(k);
    const s = sums.get(k);
    const pn = perNewer.get(k);
    if (!s || e.count > s.tombWin) throw damaged(`table ${e.table}: more hiding tombstones than winning tombstones`);
    if (!pn || e.count > pn.hid || e.count === 0) throw damaged(`table ${e.table}: hiding tombstones do not match what they hide`);
    if (pn.live > e.count) throw damaged(`table ${e.table}: hides more records in one table than it has hiding tombstones`);
  }
  for (const [k, pn] of perNewer) if (pn.hid > 0 && !seenHid.has(k)) throw damaged('tombstones hide records but no hiding count is given');
  if (p.liveByNs && p.liveByNs.length !== nNs) throw damaged('live counts do not match the namespaces');
}

// ---------------------------------------------------------------------------------------------
// Links

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B64_INV = new Int16Array(128).fill(-1);
for (let i = 0; i < 64; i++) B64_INV[B64.charCodeAt(i)] = i;

/** base64url without padding (RFC 4648 §5). */
export function base64UrlEncode(b: Uint8Array): string {
  let s = '';
  let i = 0;
  for (; i + 2 < b.length; i += 3) {
    const v = (b[i] << 16) | (b[i + 1] << 8) | b[i + 2];
    s += B64[v >> 18] + B64[(v >> 12) & 63] + B64[(v >> 6) & 63] + B64[v & 63];
  }
  if (i + 1 === b.length) {
    const v = b[i] << 16;
    s += B64[v >> 18] + B64[(v >> 12) & 63];
  } else if (i + 2 === b.length) {
    const v = (b[i] << 16) | (b[i + 1] << 8);
    s += B64[v >> 18] + B64[(v >> 12) & 63] + B64[(v >> 6) & 63];
  }
  return s;
}

/** Inverse of `base64UrlEncode`; throws `ShareLinkError` on a bad character or an impossible length. */
export function base64UrlDecode(s: string): Uint8Array {
  if (s.length % 4 === 1) throw new ShareLinkError('truncated', 'link is truncated: its data has an impossible length (a character is missing)', SHARE_VERSION);
  const out = new Uint8Array(Math.floor((s.length * 3) / 4));
  let o = 0, acc = 0, bits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const v = c < 128 ? B64_INV[c] : -1;
    if (v < 0) throw damaged(`character ${JSON.stringify(s[i])} at position ${i + 1} of the data is not base64url (A–Z, a–z, 0–9, -, _)`);
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out.subarray(0, o);
}

/** Result of `encodeShare` / `shareLink`. */
export type ShareLinkResult =
  | { ok: true; link: string; fragment: string; chars: number; payload: SharePayload }
  | { ok: false; error: string; chars: number; payload: SharePayload };

/** `#s=<version>.<data>` of a payload. */
export function shareFragment(p: SharePayload): string {
  return `#s=${SHARE_VERSION}.${base64UrlEncode(deflateSync(encodeSharePayload(p), { level: 9 }))}`;
}

/**
 * The link for a payload: `base` (default `DEFAULT_SHARE_BASE`; any fragment of it is dropped)
 * plus the fragment. An error result when the link would exceed `MAX_LINK_CHARS`.
 */
export function encodeShare(p: SharePayload, base: string = DEFAULT_SHARE_BASE): ShareLinkResult {
  const b = base.includes('#') ? base.slice(0, base.indexOf('#')) : base;
  const winners = sharedWinners(p);
  if (winners > MAX_SHARED_REPORT_WINNERS) return { ok: false, chars: 0, payload: p, error: tooManyWinners(winners, SHARE_VERSION).message.replace(/^link is too large/, 'the stack is too large for a link') };
  const fragment = shareFragment(p);
  const link = b + fragment;
  if (link.length > MAX_LINK_CHARS) {
    return {
      ok: false, chars: link.length, payload: p,
      error: `the link would be ${link.length.toLocaleString('en-US')} characters, more than the ${MAX_LINK_CHARS.toLocaleString('en-US')} a link may have: use the file export (refscope export --format json) instead`,
    };
  }
  return { ok: true, link, fragment, chars: link.length, payload: p };
}

/**
 * Build the payload and its link in one step. With `withNames`, example names are dropped
 * (halving their number) until the link fits `MAX_LINK_CHARS`.
 */
export function shareLink(a: Analysis, report: Report, opts: ShareOptions & { base?: string } = {}): ShareLinkResult {
  let p = buildSharePayload(a, report, opts);
  const all = p.examples;
  let examples = all.length;
  for (;;) {
    const r = encodeShare(p, opts.base);
    if (r.ok || !opts.withNames || examples === 0) return r;
    examples = Math.floor(examples / 2);
    p = { ...p, examples: pickExamples(all, examples) };
  }
}

/**
 * Decode a link: a whole URL, its fragment (`#s=…`), or `s=…`. Whitespace (line breaks added by
 * mail clients) is ignored. Throws `ShareLinkError` with reason `not-a-link`, `truncated`,
 * `damaged`, `future-version` or `too-large`; never anything else.
 */
export function decodeShare(text: string): SharePayload {
  if (typeof text !== 'string') throw new ShareLinkError('not-a-link', 'not a refscope share link: no text');
  if (text.length > MAX_LINK_INPUT) throw new ShareLinkError('too-large', `not a refscope share link: ${text.length} characters, links have at most ${MAX_LINK_CHARS}`);
  let t = text.replace(/\s+/g, '');
  const hash = t.indexOf('#');
  if (hash >= 0) t = t.slice(hash + 1);
  const param = t.split('&').find((x) => x.startsWith('s='));
  if (param === undefined) {
    throw new ShareLinkError('not-a-link', 'not a refscope share link: it has no "#s=" part (a share link ends in #s=<version>.<data>)');
  }
  const v = param.slice(2);
  const m = /^(\d{1,9})(?:\.(.*))?$/.exec(v);
  if (!m) throw new ShareLinkError('damaged', 'link is damaged: "#s=" is not followed by a format version and a dot');
  const version = Number(m[1]);
  if (version > SHARE_VERSION) throw futureVersion(version);
  if (version < 1) throw new ShareLinkError('damaged', `link is damaged: format version ${version}`);
  if (m[2] === undefined || m[2] === '') throw new ShareLinkError('truncated', 'link is truncated: it ends right after the format version', version);
  const deflated = base64UrlDecode(m[2]);
  let raw: Uint8Array;
  try {
    raw = inflateSync(deflated, { out: new Uint8Array(MAX_INFLATED + 1) });
  } catch (e) {
    const code = (e as { code?: number }).code;
    if (code === 0) throw new ShareLinkError('truncated', 'link is truncated: its compressed data ends early (copy the whole link)', version);
    throw damaged('its compressed data is invalid');
  }
  if (raw.length > MAX_INFLATED) throw new ShareLinkError('too-large', `link is damaged: it unpacks to more than ${MAX_INFLATED} bytes`, version);
  return decodeSharePayload(raw);
}

// ---------------------------------------------------------------------------------------------
// Figures derived from a payload

/** Per-table and stack-wide figures a payload implies (the report's numbers). */
export interface ShareFigures {
  tables: {
    records: { ref: number; peeled: number; symref: number; tombstone: number };
    refRecords: number;
    winners: number;
    liveWinners: number;
    tombstoneWinners: number;
    shadowed: number;
    hiddenByTombstone: number;
    tombstonesHiding: number;
  }[];
  live: number;
  tombstones: number;
  tombstonesHiding: number;
  refRecords: number;
  logRecords: number;
  totalBytes: number;
  /** Live refs per payload namespace. */
  liveByNs: number[];
}

/** Figures of a (checked) payload. */
export function shareFigures(p: SharePayload): ShareFigures {
  const tables = p.tables.map(() => ({
    records: { ref: 0, peeled: 0, symref: 0, tombstone: 0 }, refRecords: 0, winners: 0, liveWinners: 0,
    tombstoneWinners: 0, shadowed: 0, hiddenByTombstone: 0, tombstonesHiding: 0,
  }));
  const liveByNs = p.liveByNs ? p.liveByNs.slice() : p.namespaces.map(() => 0);
  const KEYS = ['tombstone', 'ref', 'peeled', 'symref'] as const;
  for (const e of p.nsRecords) {
    const t = tables[e.table];
    t.records[KEYS[e.kind]] += e.records;
    t.refRecords += e.records;
    t.winners += e.winners;
    if (e.kind === 0) t.tombstoneWinners += e.winners;
    else { t.liveWinners += e.winners; if (!p.liveByNs) liveByNs[e.ns] += e.winners; }
    t.shadowed += e.records - e.winners;
  }
  for (const o of p.overlaps) tables[o.older].hiddenByTombstone += o.tombstones;
  for (const h of p.hiding) tables[h.table].tombstonesHiding += h.count;
  const sum = (f: (t: (typeof tables)[number]) => number) => tables.reduce((s, t) => s + f(t), 0);
  return {
    tables,
    live: p.liveByNs ? p.liveByNs.reduce((s, v) => s + v, 0) : sum((t) => t.liveWinners),
    tombstones: sum((t) => t.tombstoneWinners),
    tombstonesHiding: sum((t) => t.tombstonesHiding),
    refRecords: sum((t) => t.refRecords),
    logRecords: p.tables.reduce((s, t) => s + t.logs + t.logDeletions, 0),
    totalBytes: p.tables.reduce((s, t) => s + t.fileSize, 0),
    liveByNs,
  };
}

// ---------------------------------------------------------------------------------------------
// describeShare

/** What a link contains, for the share dialog (shown before the link is copied). */
export interface ShareDescription {
  /** One line: what was shared. */
  summary: string;
  /** What the link contains, one entry per line. */
  contains: string[];
  /** What it does not contain. */
  omits: string[];
  /** True when real names are in the link. */
  withNames: boolean;
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}
function plural(n: number, one: string, many = one + 's'): string {
  return `${fmt(n)} ${n === 1 ? one : many}`;
}
const bytesText = sizeText;

/** Human-readable list of exactly what the payload holds. */
export function describeShare(p: SharePayload): ShareDescription {
  const f = shareFigures(p);
  const contains: string[] = [];
  const omits: string[] = [];
  const nsList = p.namespaces.map(displayName).join(', ') || 'none';
  if (p.kind === 'reftable') {
    const versions = [...new Set(p.tables.filter((t) => t.version).map((t) => `${t.hashId === 's256' ? 'SHA-256' : 'SHA-1'}, format ${t.version}`))];
    const blockSizes = [...new Set(p.tables.filter((t) => !t.unreadable).map((t) => t.blockSize))];
    const summary = `reftable stack: ${plural(p.tables.length, 'table')}, ${bytesText(f.totalBytes)}, ${plural(f.live, 'live ref')}, ${plural(f.tombstones, 'tombstone')}`;
    contains.push(`Stack: ${plural(p.tables.length, 'table')} (${versions.join('; ') || 'none readable'}; block size ${blockSizes.join(', ') || '–'}), ${fmt(f.totalBytes)} bytes in all${p.tables.some((t) => t.unreadable) ? `; ${plural(p.tables.filter((t) => t.unreadable).length, 'table')} could not be read (only its size is included)` : ''}.`);
    contains.push('Per table: file size, update-index range, block size, restart interval, blocks and bytes per section (ref, index, obj, log), index levels, obj and index record counts, distinct object-id count (a number, not the ids), and the key bytes the ref records store (a number).');
    contains.push(`Per table and namespace: record counts by kind (refs, peeled tags, symrefs, tombstones) and how many win in the merged view; ${plural(f.refRecords, 'ref record')} and ${plural(f.logRecords, 'reflog record')} in all (reflog records as counts only).`);
    contains.push(p.overlaps.length
      ? `Overrides: for ${plural(p.overlaps.length, 'pair')} of (newer table, older table, namespace), how many records of the older table the newer one overrides and how many of those its tombstones hide; ${plural(f.tombstonesHiding, 'tombstone')} hide older records.`
      : 'Overrides: none (no table overrides a record of an older one).');
    contains.push(`Namespaces (${p.namespaces.length}): ${nsList}${p.withNames ? '' : ' — remote names are replaced by remote-1, remote-2, …; unusual namespace names by other-1, …'}.`);
    contains.push(`Compaction: geometric factor ${p.factor} (the geometry and the diagnosis are recomputed from the numbers above).`);
    if (p.measured) {
      const mk = Object.keys(p.measured.compaction);
      const ms = sanitizeSimulation(p.measured.compaction, true);
      contains.push(`Measured on the real tables: ${mk.length ? `${mk.join(', ')} (${plural(ms.numbers, 'number')}${ms.labels.length ? `, ${plural(ms.labels.length, 'label')}` : ''})` : 'no figures'}${p.measured.diagnosis ? '; the diagnosis paragraph as the sharer saw it' : ''}.`);
    }
    contains.push(...findingsLines(p), simulationLine(p), namesLine(p));
    omits.push(...baseOmits(p));
    return { summary, contains, omits, withNames: p.withNames };
  }
  const summary = `${p.kind === 'files' ? 'files backend' : 'packed-refs file'}: ${plural(f.live, 'live ref')}`;
  contains.push(`Live refs per namespace: ${p.namespaces.map((ns, i) => `${displayName(ns)} ${fmt(p.liveByNs?.[i] ?? 0)}`).join(', ') || 'none'}${p.withNames ? '' : ' (remote names replaced by remote-1, …)'}.`);
  contains.push(...findingsLines(p), simulationLine(p), namesLine(p));
  omits.push(...baseOmits(p));
  return { summary, contains, omits, withNames: p.withNames };
}

function findingsLines(p: SharePayload): string[] {
  const { warnings, errors, infos, messages } = p.findings;
  if (!warnings && !errors && !infos) return ['Findings: none.'];
  const counts = [errors && plural(errors, 'error'), warnings && plural(warnings, 'warning'), infos && plural(infos, 'note')].filter(Boolean).join(', ');
  return [messages ? `Findings: ${counts}, with their texts (they may name refs and files).` : `Findings: ${counts} (counts only, not their texts).`];
}
function simulationLine(p: SharePayload): string {
  if (p.simulation === null || p.simulation === undefined) return 'Simulation results: none.';
  const s = sanitizeSimulation(p.simulation, true);
  const labels = s.labels.filter((l) => l !== REMOVED);
  const removed = s.labels.length - labels.length;
  return `Simulation results: ${plural(s.numbers, 'number')}${labels.length ? `, ${plural(labels.length, 'label')} (${labels.slice(0, 8).map((l) => JSON.stringify(l)).join(', ')}${labels.length > 8 ? ', …' : ''})` : ''}${removed ? `; ${plural(removed, 'text value')} removed because ${removed === 1 ? 'it looks' : 'they look'} like a name or id` : ''}.`;
}
function namesLine(p: SharePayload): string {
  if (!p.withNames) return 'Ref names: none.';
  return `Ref names: real namespace names and ${plural(p.examples.length, 'example ref name')}${p.examples.length ? `: ${p.examples.slice(0, 5).map(displayName).join(', ')}${p.examples.length > 5 ? ', …' : ''}` : ''}.`;
}
function baseOmits(p: SharePayload): string[] {
  const o = ['object ids (no hashes of any length)', 'table file names and paths', 'reflog contents (names, e-mail addresses, messages, dates)', 'block contents'];
  if (!p.withNames) o.unshift('ref names (none beyond the namespace)', 'remote names', 'finding texts');
  return o;
}

// ---------------------------------------------------------------------------------------------
// reportFromShare

/** A report rebuilt from a link: the `Report` fields plus `shared`. */
export interface SharedReport extends Report {
  shared: {
    /** Always the text the app shows: "shared report (no files)". */
    label: string;
    linkVersion: number;
    withNames: boolean;
    /** The sharer's refscope. */
    generator: string;
    /** Namespaces as in the link (`refs/remotes/remote-1`, …), with their live counts. */
    namespaces: { name: string; live: number }[];
    /** The sharer's simulation results, or null. */
    simulation: unknown;
    /** Example ref names (only when shared with names). */
    examples: string[];
    /** `tables[].blocks` are reconstructed from per-section counts: evenly split, not the real blocks. */
    blocksApproximate: true;
    /** Table names are synthetic (`tableFileName(min, max, index)`). */
    namesSynthetic: true;
  };
}

/** The label the app shows on a report opened from a link. */
export const SHARED_LABEL = 'shared report (no files)';

/**
 * A report from a payload: the same overview figures as the sharer's (live refs, tombstones,
 * tables, bytes, per-table records, shadowing, namespaces, compaction, diagnosis), computed by the
 * engine's own `buildReport` on the payload's numbers. Blocks are reconstructed per section
 * (evenly split), table names are synthetic, findings are counts unless shared with names.
 */
export function reportFromShare(p: SharePayload): SharedReport {
  checkPayload(p);
  const f = shareFigures(p);
  const winners = sharedWinners(p);
  if (winners > MAX_SHARED_REPORT_WINNERS) throw tooManyWinners(winners, p.version);
  const shared: SharedReport['shared'] = {
    label: SHARED_LABEL, linkVersion: p.version, withNames: p.withNames, generator: p.generator,
    namespaces: p.namespaces.map((ns, i) => ({ name: displayName(ns), live: f.liveByNs[i] })),
    simulation: p.simulation, examples: p.examples.map(displayName), blocksApproximate: true, namesSynthetic: true,
  };
  const findings: Finding[] = [];
  if (p.findings.messages) {
    for (const m of p.findings.messages) findings.push({ severity: m.severity, file: '(shared)', offset: -1, message: displayName(m.message) });
  } else if (p.findings.warnings || p.findings.errors || p.findings.infos) {
    findings.push({
      severity: 'info', file: '(shared)', offset: -1,
      message: `the original report had ${plural(p.findings.errors, 'error')} and ${plural(p.findings.warnings, 'warning')}${p.findings.infos ? ` and ${plural(p.findings.infos, 'note')}` : ''}; their texts are not in the link`,
    });
  }
  const input: ClassifiedInput = { kind: p.kind, root: '', tablesList: null, tableFiles: [], gitFiles: [], description: SHARED_LABEL };
  if (p.kind !== 'reftable') {
    const r: SharedReport = {
      schema: 'refscope.report/1', generator: GENERATOR, input: { kind: p.kind, description: SHARED_LABEL },
      tables: [], stack: null, findings, verdict: { gitReadable: true, reason: null }, prefixes: [],
      diagnosis: `${plural(f.live, 'live ref')} (${p.kind === 'files' ? 'files backend' : 'packed-refs'}; the shared link carries the namespace counts only).`,
      shared,
    };
    return r;
  }
  // A stand-in analysis with the payload's numbers, so buildReport and its extensions (compaction,
  // diagnosis) compute the report exactly as for the sharer.
  const tables: (Table | null)[] = [];
  const broken: Stack['broken'] = [];
  const names: string[] = [];
  // winners per table as typed arrays (kind, namespace): no object per winner. The counts are
  // checked against the tables' sizes and `MAX_SHARE_RECORDS` (checkPayload).
  const winCount = new Array<number>(p.tables.length).fill(0);
  for (const e of p.nsRecords) winCount[e.table] += e.winners;
  const winKind = winCount.map((c) => new Uint8Array(c));
  const winNs = winCount.map((c) => new Uint32Array(c));
  {
    const fill = new Array<number>(p.tables.length).fill(0);
    for (const e of p.nsRecords) {
      const at = fill[e.table];
      winKind[e.table].fill(e.kind, at, at + e.winners);
      winNs[e.table].fill(e.ns, at, at + e.winners);
      fill[e.table] = at + e.winners;
    }
  }
  p.tables.forEach((t, i) => {
    const name = tableFileName(t.minUpdateIndex, t.maxUpdateIndex, i);
    names.push(name);
    if (t.unreadable) {
      tables.push(null);
      broken.push({ name, path: name, fileSize: t.fileSize, error: new FormatError(name, -1, 'a readable table (it could not be read in the original report; the link has its size only)') });
      return;
    }
    const types = winKind[i];
    const ft = f.tables[i];
    const fake = {
      name, path: name, fileSize: t.fileSize,
      header: {
        version: t.version!, blockSize: t.blockSize, minUpdateIndex: t.minUpdateIndex, maxUpdateIndex: t.maxUpdateIndex,
        hashId: t.hashId!, hashSize: t.hashId === 's256' ? 32 : 20, headerSize: t.version === 2 ? 28 : 24, footerSize: t.version === 2 ? 72 : 68,
      },
      blocks: approximateBlocks(t, ft.refRecords),
      counts: { ...ft.records, log: t.logs, logDeletion: t.logDeletions, obj: t.objRecords, index: t.indexRecords },
      sectionBytes: { ...t.sectionBytes },
      refs: { count: ft.refRecords, types },
      refIndexLevels: t.refIndexLevels,
      findings: [],
    };
    tables.push(fake as unknown as Table);
  });
  // merged view: one entry per winner, keyed by a name in its namespace
  const count = winCount.reduce((s, c) => s + c, 0);
  const keys: string[] = new Array(count);
  const tab = new Uint32Array(count);
  const rec = new Uint32Array(count);
  const nsKey = p.namespaces.map((ns) => (ns === '(root)' ? '(root)' : `${ns}/-`));
  let k = 0;
  winNs.forEach((w, ti) => {
    tab.fill(ti, k, k + w.length);
    for (let r = 0; r < w.length; r++, k++) { keys[k] = nsKey[w[r]]; rec[k] = r; }
  });
  const merged: MergedView = {
    count, keys, table: tab as unknown as MergedView['table'], rec, live: f.live, tombstones: f.tombstones, tombstonesHiding: f.tombstonesHiding,
    shadowed: f.tables.map((t) => t.shadowed), winners: f.tables.map((t) => t.winners),
    hiddenByTombstone: f.tables.map((t) => t.hiddenByTombstone), tombstonesHidingBy: f.tables.map((t) => t.tombstonesHiding),
    key: (i) => keys[i],
    lowerBound: (name) => lowerBound(keys, name),
    find: (name) => { const i = lowerBound(keys, name); return keys[i] === name ? i : -1; },
  };
  const stack: Stack = { listPath: '', names, tables, broken, findings: [] };
  const a: Analysis = { input, stack, merged, files: null, findings };
  const report = buildReport(a, { factor: p.factor });
  // The stand-in tables carry no symref targets: take the count of dangling symrefs from the link.
  if (report.stack) report.stack.danglingSymrefs = p.nsRecords.reduce((s, e) => s + (e.kind === 3 ? e.dangling : 0), 0);
  const m = p.measured;
  if (m && report.stack) {
    const c = (report.stack.compaction ?? {}) as Record<string, unknown>;
    for (const k of m.compactionAbsent) delete c[k];
    for (const [k, v] of Object.entries(m.compaction)) c[k] = v;
    report.stack.compaction = c;
  }
  // A carried diagnosis is the sharer's text, not refscope's: say so (checkMeasured bounds its length).
  if (m?.diagnosis) report.diagnosis = SHARED_DIAGNOSIS_PREFIX + displayName(textToKey(m.diagnosis));
  return { ...report, input: { kind: 'reftable', description: SHARED_LABEL }, shared };
}

/** Winning records of a payload (the entries of the stand-in merged view of `reportFromShare`). */
function sharedWinners(p: SharePayload): number {
  return p.nsRecords.reduce((s, e) => s + e.winners, 0);
}
function tooManyWinners(winners: number, version: number | null): ShareLinkError {
  return new ShareLinkError('too-large', `link is too large: its stack has ${fmt(winners)} winning records, a shared report is rebuilt for at most ${fmt(MAX_SHARED_REPORT_WINNERS)} (use the file export: refscope export --format json)`, version);
}

/** Blocks of a table reconstructed from per-section counts and bytes (evenly split). */
function approximateBlocks(t: ShareTable, refRecords: number) {
  const out: { offset: number; type: BlockType; section: SectionName; blockLen: number; restartCount: number; recordCount: number; padding: number; fileBytes: number; restartTableOffset: number; firstKey: string; lastKey: string }[] = [];
  let offset = 0;
  const idxBlocks = t.sectionBlocks.refIndex + t.sectionBlocks.objIndex + t.sectionBlocks.logIndex;
  const recordsOf: Record<SectionName, number> = {
    ref: refRecords, obj: t.objRecords, log: t.logs + t.logDeletions,
    refIndex: idxBlocks ? Math.round((t.indexRecords * t.sectionBlocks.refIndex) / idxBlocks) : 0,
    objIndex: idxBlocks ? Math.round((t.indexRecords * t.sectionBlocks.objIndex) / idxBlocks) : 0,
    logIndex: 0,
  };
  recordsOf.logIndex = t.indexRecords - recordsOf.refIndex - recordsOf.objIndex;
  for (const s of SECTIONS) {
    const nb = t.sectionBlocks[s];
    for (let i = 0; i < nb; i++) {
      const bytes = Math.floor(t.sectionBytes[s] / nb) + (i === nb - 1 ? t.sectionBytes[s] % nb : 0);
      const recs = Math.floor(recordsOf[s] / nb) + (i === nb - 1 ? recordsOf[s] % nb : 0);
      const type: BlockType = s === 'ref' ? 'ref' : s === 'obj' ? 'obj' : s === 'log' ? 'log' : 'index';
      out.push({ offset, type, section: s, blockLen: bytes, restartCount: 0, recordCount: recs, padding: 0, fileBytes: bytes, restartTableOffset: 0, firstKey: '', lastKey: '' });
      offset += bytes;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Shape plan: synthetic keys for a payload

/** A run of synthetic keys `ns`, ids `start … start + count − 1` (never wrapping), of one kind. */
export interface PlanSegment {
  ns: number;
  start: number;
  count: number;
  kind: RefKind;
  /** Symrefs whose target is `DANGLING_TARGET` (a name no synthetic ref has). */
  dangling?: boolean;
}

/** Target of the synthetic dangling symrefs: no synthetic ref has this name. */
export const DANGLING_TARGET = 'refs/heads/dangling';

/** One table of the plan. */
export interface PlanTable {
  /** Segments in namespace, then id order; within a table every key appears once. */
  segments: PlanSegment[];
  /** Records per kind, summed over segments. */
  records: { ref: number; peeled: number; symref: number; tombstone: number };
  logs: number;
  logDeletions: number;
}

/** The synthetic key layout for a payload (see `syntheticStack`). */
export interface ShapePlan {
  namespaces: string[];
  /** Digits of the zero-padded key ids. */
  idWidth: number;
  /** Key count per namespace (ids 0 … n − 1). */
  keysPerNs: number[];
  /** Filler length of each key's name, per namespace, by id ranges: [start, end) → filler. */
  fillers: { ns: number; start: number; end: number; filler: number }[][];
  tables: PlanTable[];
  /** Name every synthetic symref points to. */
  symrefTarget: string;
}

/**
 * Synthetic key layout reproducing a payload's shape. Per namespace, each table's winners get
 * consecutive ids — hiding tombstones, other tombstones, then live refs, peeled refs, symrefs — and
 * the records a newer table overrides in an older one reuse that newer table's ids (hidden ones
 * from its hiding tombstones, taken round-robin so exactly the right number of tombstones hide
 * something). Names: `<namespace>/r<id><filler>`; under `(root)`: `HEAD` for id 0, else
 * `R<letters>_HEAD`. The filler (`-xxx…`) of each key is chosen so that every table stores about
 * the same key bytes as the original (`ShareTable.keyBytes`).
 */
export function shapePlan(p: SharePayload): ShapePlan {
  const nNs = p.namespaces.length;
  const n = p.tables.length;
  const f = shareFigures(p);
  if (f.refRecords + f.logRecords > MAX_SYNTHETIC_RECORDS) {
    throw new ShareLinkError('too-large', `the shared stack has ${fmt(f.refRecords + f.logRecords)} records, more than the ${fmt(MAX_SYNTHETIC_RECORDS)} a synthetic stack is built for`, p.version);
  }
  checkPayload(p);
  // per (table, ns): winners by kind, hiding count
  const recs = new Map<string, ShareNsRecords>();
  for (const e of p.nsRecords) recs.set(`${e.table}:${e.ns}:${e.kind}`, e);
  const win = (t: number, ns: number, kind: RefKind) => recs.get(`${t}:${ns}:${kind}`)?.winners ?? 0;
  const hidingOf = new Map<string, number>();
  for (const h of p.hiding) hidingOf.set(`${h.table}:${h.ns}`, h.count);
  // owned id blocks
  interface Owned { start: number; H: number; T: number; L: number; byKind: [number, number, number, number]; dangling: number }
  const owned = new Map<string, Owned>();
  const keysPerNs = new Array(nNs).fill(0);
  const ownerRanges: { ns: number; start: number; end: number; owner: number }[][] = p.namespaces.map(() => []);
  const present = new Set(p.nsRecords.map((e) => `${e.table}:${e.ns}`));
  for (let ns = 0; ns < nNs; ns++) {
    for (let t = 0; t < n; t++) {
      if (!present.has(`${t}:${ns}`)) continue;
      const byKind: [number, number, number, number] = [win(t, ns, 0), win(t, ns, 1), win(t, ns, 2), win(t, ns, 3)];
      const total = byKind[0] + byKind[1] + byKind[2] + byKind[3];
      if (!total) continue;
      const H = hidingOf.get(`${t}:${ns}`) ?? 0;
      const dangling = recs.get(`${t}:${ns}:3`)?.dangling ?? 0;
      owned.set(`${t}:${ns}`, { start: keysPerNs[ns], H, T: byKind[0], L: byKind[1] + byKind[2] + byKind[3], byKind, dangling });
      ownerRanges[ns].push({ ns, start: keysPerNs[ns], end: keysPerNs[ns] + total, owner: t });
      keysPerNs[ns] += total;
    }
  }
  // segments per table
  const segs: { ns: number; start: number; count: number; kind: RefKind; owner: number; dangling?: boolean }[][] = p.tables.map(() => []);
  for (const [key, o] of owned) {
    const [t, ns] = key.split(':').map(Number);
    let id = o.start;
    const kinds: RefKind[] = [0, 1, 2, 3];
    for (const kind of kinds) {
      if (kind === 3 && o.dangling) {
        segs[t].push({ ns, start: id, count: o.dangling, kind, owner: t, dangling: true });
        if (o.byKind[3] > o.dangling) segs[t].push({ ns, start: id + o.dangling, count: o.byKind[3] - o.dangling, kind, owner: t });
      } else if (o.byKind[kind]) segs[t].push({ ns, start: id, count: o.byKind[kind], kind, owner: t });
      id += o.byKind[kind];
    }
  }
  // borrowed keys, round-robin per (newer, ns), nearest older table first
  const ptrH = new Map<string, number>();
  const ptrL = new Map<string, number>();
  const borrowed: { ns: number; start: number; count: number; owner: number }[][] = p.tables.map(() => []);
  const ovs = p.overlaps.slice().sort((x, y) => x.newer - y.newer || x.ns - y.ns || y.older - x.older);
  const take = (list: { ns: number; start: number; count: number; owner: number }[], ns: number, base: number, size: number, ptr: Map<string, number>, key: string, count: number, owner: number) => {
    if (size <= 0 || count > size) throw damaged(`table ${owner}: overrides more records than it has`);
    let at = ptr.get(key) ?? 0;
    let left = count;
    while (left > 0) {
      const run = Math.min(left, size - at);
      list.push({ ns, start: base + at, count: run, owner });
      left -= run;
      at = (at + run) % size;
    }
    ptr.set(key, at);
  };
  for (const o of ovs) {
    const ow = owned.get(`${o.newer}:${o.ns}`)!;
    const key = `${o.newer}:${o.ns}`;
    if (o.tombstones) take(borrowed[o.older], o.ns, ow.start, ow.H, ptrH, key, o.tombstones, o.newer);
    if (o.count - o.tombstones) take(borrowed[o.older], o.ns, ow.start + ow.T, ow.L, ptrL, key, o.count - o.tombstones, o.newer);
  }
  // kinds of the borrowed keys: what the table has beyond its winners, per namespace
  for (let t = 0; t < n; t++) {
    const byNs = new Map<number, { ns: number; start: number; count: number; owner: number }[]>();
    for (const b of borrowed[t]) {
      const l = byNs.get(b.ns) ?? [];
      l.push(b);
      byNs.set(b.ns, l);
    }
    for (const [ns, list] of byNs) {
      list.sort((x, y) => x.start - y.start);
      const need: number[] = [0, 1, 2, 3].map((kind) => {
        const e = recs.get(`${t}:${ns}:${kind}`);
        return e ? e.records - e.winners : 0;
      });
      let kind = 1;
      const nextKind = () => { const order = [1, 2, 3, 0]; for (const k of order) if (need[k] > 0) return k; return -1; };
      for (const b of list) {
        let start = b.start, left = b.count;
        while (left > 0) {
          kind = nextKind();
          if (kind < 0) throw damaged(`table ${t}: overridden records do not add up`);
          const run = Math.min(left, need[kind]);
          segs[t].push({ ns, start, count: run, kind: kind as RefKind, owner: b.owner });
          need[kind] -= run;
          start += run;
          left -= run;
        }
      }
    }
  }
  // fillers: key bytes are linear in each owner's filler length; solve newest first
  const idWidth = Math.max(6, String(Math.max(0, ...keysPerNs) - 1).length);
  const fillerOf = new Array(n).fill(0);
  const planNames = (t: number, fill: number[]): string[] => {
    const out: string[] = [];
    for (const s of segs[t]) for (let i = 0; i < s.count; i++) out.push(synthName(p.namespaces[s.ns], s.start + i, idWidth, fill[s.owner]));
    return out.sort();
  };
  for (let t = n - 1; t >= 0; t--) {
    const tab = p.tables[t];
    if (tab.unreadable || !segs[t].length) continue;
    const base = keySuffixBytes(planNames(t, fillerOf.map((v, i) => (i === t ? 0 : v))), tab.restartInterval);
    let own = 0;
    for (const s of segs[t]) if (s.owner === t && p.namespaces[s.ns] !== '(root)') own += s.count;
    if (!own) continue;
    const fill = Math.round((tab.keyBytes - base) / own);
    fillerOf[t] = Math.max(0, Math.min(200, fill));
  }
  const fillers = ownerRanges.map((l) => l.map((r) => ({ ns: r.ns, start: r.start, end: r.end, filler: fillerOf[r.owner] })));
  const tables: PlanTable[] = p.tables.map((tab, t) => {
    const s: PlanSegment[] = segs[t].map(({ ns, start, count, kind, dangling }) => (dangling ? { ns, start, count, kind, dangling } : { ns, start, count, kind }))
      .sort((x, y) => x.ns - y.ns || x.start - y.start);
    const records = { ref: 0, peeled: 0, symref: 0, tombstone: 0 };
    const K = ['tombstone', 'ref', 'peeled', 'symref'] as const;
    for (const x of s) records[K[x.kind]] += x.count;
    return { segments: s, records, logs: tab.logs, logDeletions: tab.logDeletions };
  });
  // symref target: the first live plain ref under refs/heads, else under any namespace, else refs/heads/main
  let symrefTarget = 'refs/heads/main';
  const pick = (pred: (ns: string) => boolean): boolean => {
    for (const [key, o] of owned) {
      const [t, ns] = key.split(':').map(Number);
      if (!pred(p.namespaces[ns]) || !o.byKind[1]) continue;
      symrefTarget = synthName(p.namespaces[ns], o.start + o.T, idWidth, fillerOf[t]);
      return true;
    }
    return false;
  };
  if (!pick((ns) => ns === 'refs/heads')) pick((ns) => ns !== '(root)');
  return { namespaces: p.namespaces.slice(), idWidth, keysPerNs, fillers, tables, symrefTarget };
}

/** Filler length of key `id` in namespace `ns` of a plan. */
export function planFiller(plan: ShapePlan, ns: number, id: number): number {
  const l = plan.fillers[ns];
  let lo = 0, hi = l.length - 1;
  while (lo <= hi) {
    const m = (lo + hi) >> 1;
    if (id < l[m].start) hi = m - 1;
    else if (id >= l[m].end) lo = m + 1;
    else return l[m].filler;
  }
  return 0;
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** Synthetic name of key `id` in namespace `ns` (see `shapePlan`). */
export function synthName(ns: string, id: number, width: number, filler: number): string {
  if (ns === '(root)') {
    if (id === 0) return 'HEAD';
    let s = '';
    let v = id;
    for (let i = 0; i < 5 || v > 0; i++) { s = LETTERS[v % 26] + s; v = Math.floor(v / 26); }
    return `R${s}_HEAD`;
  }
  return `${ns}/r${String(id).padStart(width, '0')}${filler > 0 ? '-' + 'x'.repeat(filler - 1) : ''}`;
}

/** Name of a plan key. */
export function planName(plan: ShapePlan, ns: number, id: number): string {
  return synthName(plan.namespaces[ns], id, plan.idWidth, planFiller(plan, ns, id));
}

// ---------------------------------------------------------------------------------------------
// syntheticStack

/** Table files and `tables.list` of a synthetic stack. */
export interface SyntheticStack {
  /** `tables.list` bytes. */
  tablesList: Uint8Array;
  /** Table files, oldest first; an unreadable table of the original is zero bytes of its size. */
  tables: { name: string; bytes: Uint8Array }[];
  /** The same as engine input (`reftable/tables.list`, `reftable/<name>`), ready for `analyzeFiles`. */
  files: InputFile[];
}

/** Deterministic object id number `k` (20 or 32 bytes; splitmix32 stream). */
function syntheticOid(k: number, hs: number): Uint8Array {
  const out = new Uint8Array(hs);
  let x = (k * 0x9e3779b9 + 0x7f4a7c15) >>> 0;
  for (let i = 0; i < hs; i += 4) {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    z = (z ^ (z >>> 16)) >>> 0;
    out[i] = z >>> 24; out[i + 1] = (z >>> 16) & 0xff; out[i + 2] = (z >>> 8) & 0xff; out[i + 3] = z & 0xff;
  }
  return out;
}

/**
 * Table files of the same shape as the shared stack, written with `writeTable`: per table the same
 * format version, block size, restart interval, update-index range, record kinds and counts per
 * namespace, the same records overridden and hidden by newer tables, the same log record counts,
 * distinct object ids and key bytes (so sizes come out close). Names are synthetic
 * (`refs/heads/r000123`, see `shapePlan`), object ids pseudo-random, reflog entries synthetic.
 * Throws `ShareLinkError('too-large')` past `MAX_BROWSER_SYNTHETIC_RECORDS` records (and for more
 * than 64 MiB of unreadable tables): use the repro script for those.
 */
export function syntheticStack(p: SharePayload): SyntheticStack {
  checkPayload(p);
  const f = shareFigures(p);
  const total = p.kind === 'reftable' ? f.refRecords + f.logRecords : f.live;
  if (total > MAX_BROWSER_SYNTHETIC_RECORDS) {
    throw new ShareLinkError('too-large', `the shared stack has ${fmt(total)} records (more than ${fmt(MAX_BROWSER_SYNTHETIC_RECORDS)}): too large to rebuild in the browser; use the repro script (refscope export <link> --format script)`, p.version);
  }
  const unreadableBytes = p.tables.reduce((s, t) => s + (t.unreadable ? t.fileSize : 0), 0);
  if (unreadableBytes > MAX_SYNTHETIC_UNREADABLE_BYTES) {
    throw new ShareLinkError('too-large', `the shared stack has ${fmt(unreadableBytes)} bytes of unreadable tables: too large to rebuild in the browser; use the repro script (refscope export <link> --format script)`, p.version);
  }
  const names: string[] = [];
  const out: { name: string; bytes: Uint8Array }[] = [];
  if (p.kind !== 'reftable') {
    // files backend / packed-refs: one table with the live refs per namespace
    const live = p.liveByNs ?? [];
    const refs: RefRecordIn[] = [];
    const width = Math.max(6, String(Math.max(0, ...live)).length);
    live.forEach((c, ns) => { for (let i = 0; i < c; i++) refs.push({ name: synthName(p.namespaces[ns], i, width, 0), updateIndex: 1, type: 1, value: syntheticOid(i, 20) }); });
    refs.sort((x, y) => (x.name < y.name ? -1 : 1));
    const bytes = writeTable(refs, [], { minUpdateIndex: 1, maxUpdateIndex: 1 });
    const name = tableFileName(1, 1, 0);
    out.push({ name, bytes });
    names.push(name);
  } else {
    const plan = shapePlan(p);
    let oidBase = 0;
    p.tables.forEach((t, ti) => {
      const name = tableFileName(t.minUpdateIndex, t.maxUpdateIndex, ti);
      if (t.unreadable) {
        if (t.fileSize > 0) { out.push({ name, bytes: new Uint8Array(t.fileSize) }); names.push(name); }
        else names.push(name);
        return;
      }
      names.push(name);
      const hs = t.hashId === 's256' ? 32 : 20;
      const pt = plan.tables[ti];
      const recs: RefRecordIn[] = [];
      const dangling = new Set<string>();
      for (const s of pt.segments) {
        for (let i = 0; i < s.count; i++) {
          const name = planName(plan, s.ns, s.start + i);
          recs.push({ name, updateIndex: t.maxUpdateIndex, type: s.kind });
          if (s.dangling) dangling.add(name);
        }
      }
      recs.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
      const D = Math.max(1, t.distinctOids);
      let v = 0;
      for (const r of recs) {
        if (r.type === 1) r.value = syntheticOid(oidBase + (v++ % D), hs);
        else if (r.type === 2) { r.value = syntheticOid(oidBase + (v++ % D), hs); r.peeled = syntheticOid(oidBase + (v++ % D), hs); }
        else if (r.type === 3) r.target = dangling.has(r.name) ? DANGLING_TARGET : plan.symrefTarget;
      }
      oidBase += D;
      const logs = syntheticLogs(recs.map((r) => r.name), t, hs);
      const bytes = writeTable(recs, logs, {
        hashId: t.hashId ?? 'sha1', blockSize: t.blockSize, restartInterval: t.restartInterval,
        indexObjects: !(t.refIndexLevels > 0 && t.objRecords === 0),
        minUpdateIndex: t.minUpdateIndex, maxUpdateIndex: t.maxUpdateIndex,
      });
      out.push({ name, bytes });
    });
  }
  const list = new TextEncoder().encode(names.map((x) => x + '\n').join(''));
  const files: InputFile[] = [{ path: 'reftable/tables.list', source: memorySource(list) }];
  for (const t of out) files.push({ path: `reftable/${t.name}`, source: memorySource(t.bytes) });
  return { tablesList: list, tables: out, files };
}

/** `logs` updates and `logDeletions` deletions, on the table's own names (then extra names), newest first per name. */
function syntheticLogs(pool: string[], t: ShareTable, hs: number): LogRecordIn[] {
  const total = t.logs + t.logDeletions;
  if (!total) return [];
  const perName = t.maxUpdateIndex + 1;
  const need = Math.ceil(total / perName);
  const names = pool.slice(0, need);
  for (let i = 0; names.length < need; i++) names.push(`refs/heads/log-${String(i).padStart(6, '0')}`);
  const logs: LogRecordIn[] = [];
  let k = 0;
  for (let ni = 0; ni < names.length && k < total; ni++) {
    for (let d = 0; d < perName && k < total; d++, k++) {
      const upd = k < t.logs;
      logs.push(upd ? {
        name: names[ni], updateIndex: t.maxUpdateIndex - d, type: 1,
        oldId: syntheticOid(k, hs), newId: syntheticOid(k + 1, hs),
        committerName: 'A U Thor', email: 'author@example.com', time: 1_700_000_000 + k, tzOffset: 0,
        message: `update: synthetic entry ${k}`,
      } : { name: names[ni], updateIndex: t.maxUpdateIndex - d, type: 0 });
    }
  }
  logs.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : y.updateIndex - x.updateIndex));
  return logs;
}
