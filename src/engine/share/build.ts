/**
 * share/build: the payload of a link from an analysis and its report (`buildSharePayload`), and
 * the link in one step (`shareLink`).
 */
import { bytesToKey, textToKey } from '../basics.ts';
import { analysisRefList, analysisRefs, type Analysis } from '../analyze.ts';
import { prefixCounts, shareNamespaceEnd } from '../files.ts';
import { type Report } from '../report.ts';
import { type Stack } from '../reftable/stack.ts';
import { lowerBound, type MergedView } from '../reftable/merged.ts';
import { resolveEntry } from '../refs.ts';
import { type Table, type SectionName } from '../reftable/table.ts';
import {
  CUT_MARK,
  MAX_EXAMPLE_BYTES,
  MAX_FINDINGS,
  MAX_FINDING_BYTES,
  MAX_NAMESPACE_BYTES,
  MAX_SHARED_DIAGNOSIS,
  DEFAULT_EXAMPLE_NAMES,
  MAX_SHARED_REPORT_WINNERS,
  MAX_SHARE_TABLES,
  ShareLinkError,
  SHARE_SCHEMA,
  SHARE_VERSION,
  sharedWinners,
} from './limits.ts';
import { type ShareLinkResult, encodeShare, verifyShare } from './link.ts';
import {
  type RefKind,
  type ShareHiding,
  type ShareMeasured,
  type ShareNsRecords,
  type ShareOptions,
  type ShareOverlap,
  type SharePayload,
} from './payload.ts';
import { reportFromShare } from './rebuild.ts';
import { pickExamples, redactNamespaces, sanitizeMeasured, sanitizeSimulation, shareNamespaceOf } from './redact.ts';
import { MAX_MEASURED_TEXT, MEASURED_FIELDS } from './validate.ts';
import { sharedSimulation } from './simulation.ts';

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
  let best = 16,
    bestE = e16 < 0 ? Infinity : e16;
  for (let iv = 1; iv <= 256; iv++) {
    const e = extras(iv);
    if (e >= 0 && e < bestE) {
      best = iv;
      bestE = e;
    }
  }
  return best;
}

/**
 * Records and blocks `buildSharePayload` has visited, and links `shareLink` has encoded, since the
 * process started (tests read the difference around one call to check that the work is bounded
 * by the input, not by positions in tables.list or by retries).
 */
export const shareWork = { records: 0, encodes: 0, measures: 0 };

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
  const { payload, components } = buildShapePayload(a, report, opts);
  if (payload.kind === 'reftable' && a.stack && a.merged)
    payload.measured = measuredExtras(report, payload, payload.withNames, components);
  return payload;
}

/**
 * The payload without its measured extras (`measured` null), and the name components kept out
 * of texts: what `measuredExtras` needs to add them. Measuring rebuilds a whole report from the
 * payload, so `shareLink` does it only once the smallest link is known to fit.
 */
function buildShapePayload(
  a: Analysis,
  report: Report,
  opts: ShareOptions,
): { payload: SharePayload; components: Set<string> } {
  // Refused by the count of positions before anything is built per position (the decoder refuses
  // such a link anyway).
  const lines = a.stack?.names.length ?? 0;
  if (lines > MAX_SHARE_TABLES) throw tooManyTables(lines);
  const withNames = !!opts.withNames;
  const kind = report.input.kind === 'files' || report.input.kind === 'packed-refs' ? report.input.kind : 'reftable';
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
    schema: SHARE_SCHEMA,
    version: SHARE_VERSION,
    generator: report.generator,
    kind,
    withNames,
    factor,
    namespaces: [],
    tables: [],
    nsRecords: [],
    overlaps: [],
    hiding: [],
    liveByNs: null,
    findings: {
      warnings,
      errors,
      infos,
      messages: withNames
        ? report.findings
            .slice(0, MAX_FINDINGS)
            .map((f) => ({ severity: f.severity, message: cutBytes(textToKey(f.message), MAX_FINDING_BYTES) }))
        : null,
    },
    examples: [],
    simulation: null,
    measured: null,
  };

  if (!a.stack) {
    // A files-backend input: the refs as columns, a name decoded only where it is carried (an
    // example) or needed (a simulation's labels are checked against the name components).
    const list = analysisRefList(a);
    const counts = prefixCounts(list, shareNamespaceEnd, '(root)');
    const real = [...counts.keys()].sort();
    payload.namespaces = withNames ? fitNamespaces(real) : redactNamespaces(real);
    payload.liveByNs = real.map((ns) => counts.get(ns)!);
    if (withNames) {
      // pickExamples takes the first names of each namespace in list order: only those are decoded.
      const want = opts.exampleNames ?? DEFAULT_EXAMPLE_NAMES;
      const taken = new Map<string, number>();
      const names: string[] = [];
      for (let k = 0; k < list.length; k++) {
        const x = list.nameBytes(k);
        if (x.end - x.start > MAX_EXAMPLE_BYTES) continue;
        const c = shareNamespaceEnd(x.bytes, x.start, x.end);
        const ns = c < 0 ? '(root)' : bytesToKey(x.bytes, x.start, c);
        const t = taken.get(ns) ?? 0;
        if (t >= want) continue;
        taken.set(ns, t + 1);
        names.push(list.name(k));
        if (names.length === want * counts.size) break;
      }
      payload.examples = pickExamples(names, want);
    }
    if (opts.simulation !== undefined && opts.simulation !== null)
      for (let k = 0; k < list.length; k++) addComponents(list.name(k));
    payload.simulation = linkSimulation(opts.simulation, withNames, red.components);
    return { payload, components: red.components };
  }
  if (kind !== 'reftable' || !a.merged) {
    const refs = analysisRefs(a);
    const counts = new Map<string, number>();
    for (const r of refs) {
      addComponents(r.name);
      const ns = shareNamespaceOf(r.name);
      counts.set(ns, (counts.get(ns) ?? 0) + 1);
    }
    const real = [...counts.keys()].sort();
    payload.namespaces = withNames ? fitNamespaces(real) : redactNamespaces(real);
    payload.liveByNs = real.map((ns) => counts.get(ns)!);
    if (withNames)
      payload.examples = pickExamples(fitExamples(refs.map((r) => r.name)), opts.exampleNames ?? DEFAULT_EXAMPLE_NAMES);
    payload.simulation = linkSimulation(opts.simulation, withNames, red.components);
    return { payload, components: red.components };
  }

  const s: Stack = a.stack;
  const m: MergedView = a.merged;
  const tables = s.tables;
  // A table listed several times in tables.list is one parsed `Table` (the stack parses each
  // distinct file once): what depends on the table alone is computed once per distinct table and
  // counted for each of its positions, so the work is bounded by the input's records, not by
  // positions × records (280 lines naming one 50,000-record table used to take minutes).
  const positions = new Map<Table, number[]>();
  tables.forEach((t, i) => {
    if (!t) return;
    let l = positions.get(t);
    if (!l) positions.set(t, (l = []));
    l.push(i);
  });
  // Namespaces of every record (names are the same across tables, so one namespace per key).
  const nsIndex = new Map<string, number>();
  const nsOfTable = new Map<Table, Int32Array>();
  for (const t of positions.keys()) {
    const out = new Int32Array(t.refs.count);
    const names = t.refs.names;
    for (let r = 0; r < t.refs.count; r++) {
      const ns = shareNamespaceOf(names[r]);
      let k = nsIndex.get(ns);
      if (k === undefined) {
        k = nsIndex.size;
        nsIndex.set(ns, k);
      }
      out[r] = k;
    }
    shareWork.records += t.refs.count;
    nsOfTable.set(t, out);
  }
  const nsOf: Int32Array[] = tables.map((t) => (t ? nsOfTable.get(t)! : new Int32Array(0)));
  const realNs = [...nsIndex.keys()];
  const nsCount = Math.max(1, realNs.length);
  const order = realNs.map((_, i) => i).sort((x, y) => (realNs[x] < realNs[y] ? -1 : realNs[x] > realNs[y] ? 1 : 0));
  const remap = new Int32Array(realNs.length);
  order.forEach((old, nw) => {
    remap[old] = nw;
  });
  const sortedReal = order.map((i) => realNs[i]);
  payload.namespaces = withNames ? fitNamespaces(sortedReal) : redactNamespaces(sortedReal);

  // records and winners per (table, ns, kind)
  const nsRec = new Map<string, ShareNsRecords>();
  const entry = (table: number, ns: number, kind: RefKind) => {
    const key = `${table}:${ns}:${kind}`;
    let e = nsRec.get(key);
    if (!e) {
      e = { table, ns, kind, records: 0, winners: 0, dangling: 0 };
      nsRec.set(key, e);
    }
    return e;
  };
  for (const [t, at] of positions) {
    // (ns, kind) → records, once per distinct table
    const counts = new Map<number, number>();
    const ns = nsOfTable.get(t)!;
    for (let r = 0; r < t.refs.count; r++) {
      const k = remap[ns[r]] * 4 + t.refs.types[r];
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    shareWork.records += t.refs.count;
    for (const i of at) for (const [k, n] of counts) entry(i, k >> 2, (k & 3) as RefKind).records += n;
  }
  const hidingMark = new Uint8Array(m.count);
  for (let j = 0; j < m.count; j++) {
    const ti = m.table[j];
    const r = m.rec[j];
    const e = entry(ti, remap[nsOf[ti][r]], tables[ti]!.refs.types[r] as RefKind);
    e.winners++;
    if (e.kind === 3 && resolveEntry(tables, m, j) === null) e.dangling++;
  }
  shareWork.records += m.count;
  // overlaps: for every record that is not the winner of its key
  const ov = new Map<string, ShareOverlap>();
  for (const [t, at] of positions) {
    // (winning table, ns) → records of this table shadowed by it, and how many by a tombstone
    const shadowed = new Map<number, { count: number; tombstones: number }>();
    const ns = nsOfTable.get(t)!;
    const names = t.refs.names;
    let lo = 0;
    for (let r = 0; r < t.refs.count; r++) {
      const name = names[r];
      // names are sorted within a table: search from the previous position
      const j = lowerBound(m.keys, name, lo);
      lo = j;
      if (j >= m.count || m.keys[j] !== name) continue; // cannot happen for a consistent view
      const w = m.table[j];
      // the winner is this table at its only position: not shadowed
      if (at.length === 1 && at[0] === w) continue;
      const k = w * nsCount + remap[ns[r]];
      let c = shadowed.get(k);
      if (!c) shadowed.set(k, (c = { count: 0, tombstones: 0 }));
      c.count++;
      if (tables[w]!.refs.types[m.rec[j]] === 0) {
        c.tombstones++;
        hidingMark[j] = 1;
      }
    }
    shareWork.records += t.refs.count;
    for (const i of at) {
      for (const [k, c] of shadowed) {
        const w = Math.floor(k / nsCount);
        if (w === i) continue;
        const n = k - w * nsCount;
        const key = `${w}:${i}:${n}`;
        let e = ov.get(key);
        if (!e) {
          e = { newer: w, older: i, ns: n, count: 0, tombstones: 0 };
          ov.set(key, e);
        }
        e.count += c.count;
        e.tombstones += c.tombstones;
      }
    }
  }
  const hid = new Map<string, ShareHiding>();
  for (let j = 0; j < m.count; j++) {
    if (!hidingMark[j]) continue;
    const ti = m.table[j];
    const ns = remap[nsOf[ti][m.rec[j]]];
    const key = `${ti}:${ns}`;
    let e = hid.get(key);
    if (!e) {
      e = { table: ti, ns, count: 0 };
      hid.set(key, e);
    }
    e.count++;
  }
  shareWork.records += m.count;
  payload.nsRecords = [...nsRec.values()].sort((x, y) => x.table - y.table || x.ns - y.ns || x.kind - y.kind);
  payload.overlaps = [...ov.values()].sort((x, y) => x.older - y.older || x.newer - y.newer || x.ns - y.ns);
  payload.hiding = [...hid.values()].sort((x, y) => x.table - y.table || x.ns - y.ns);

  // restart interval, key bytes and distinct object ids: once per distinct table
  const perTable = new Map<Table, { interval: number; keyBytes: number; distinctOids: number }>();
  const figuresOf = (t: Table, blocks: Report['tables'][number]['blocks']) => {
    let f = perTable.get(t);
    if (f) return f;
    const interval = estimateRestartInterval(blocks.filter((b) => b.section === 'ref'));
    shareWork.records += blocks.length;
    const keyBytes = keySuffixBytes(t.refs.names, interval);
    const hs = t.header.hashSize;
    const seen = new Set<string>();
    const bytes = t.refs.oids;
    for (let r = 0; r < t.refs.count; r++) {
      const ty = t.refs.types[r];
      if (ty !== 1 && ty !== 2) continue;
      // One flat string per id (a char at a time would build a rope of 20 pieces per ref).
      seen.add(String.fromCharCode.apply(null, bytes.subarray(r * hs, (r + 1) * hs) as unknown as number[]));
      const p = t.refs.peeled.get(r);
      if (p) seen.add(String.fromCharCode.apply(null, p as unknown as number[]));
    }
    shareWork.records += 2 * t.refs.count;
    f = { interval, keyBytes, distinctOids: seen.size };
    perTable.set(t, f);
    return f;
  };

  payload.tables = [];
  report.tables.forEach((tr, i) => {
    // The same file on another line of tables.list: its first line's figures, marked as a copy.
    if (tr.copyOf !== undefined && payload.tables[tr.copyOf] && payload.tables[tr.copyOf].copyOf === undefined) {
      payload.tables.push({ ...payload.tables[tr.copyOf], copyOf: tr.copyOf });
      return;
    }
    const t: Table | null = tables[i] ?? null;
    const sectionBlocks = { ref: 0, refIndex: 0, obj: 0, objIndex: 0, log: 0, logIndex: 0 } as Record<
      SectionName,
      number
    >;
    for (const b of tr.blocks) sectionBlocks[b.section]++;
    shareWork.records += tr.blocks.length;
    const f = t ? figuresOf(t, tr.blocks) : null;
    payload.tables.push({
      fileSize: tr.fileSize,
      version: tr.version,
      hashId: tr.hashId,
      unreadable: !!tr.error || !t,
      blockSize: tr.blockSize ?? 0,
      minUpdateIndex: tr.minUpdateIndex ?? 0,
      maxUpdateIndex: tr.maxUpdateIndex ?? 0,
      logs: tr.records.log,
      logDeletions: tr.records.logDeletion,
      objRecords: tr.records.obj,
      indexRecords: tr.records.index,
      sectionBytes: { ...tr.sectionBytes },
      sectionBlocks,
      refIndexLevels: tr.refIndexLevels,
      restartInterval: f ? f.interval : 16,
      keyBytes: f ? f.keyBytes : 0,
      distinctOids: f ? f.distinctOids : 0,
    });
  });

  for (const t of positions.keys()) {
    const names = t.refs.names;
    for (let r = 0; r < t.refs.count; r++) addComponents(names[r]);
    shareWork.records += t.refs.count;
  }
  if (withNames)
    payload.examples = pickExamples(
      fitExamples(analysisRefs(a).map((r) => r.name)),
      opts.exampleNames ?? DEFAULT_EXAMPLE_NAMES,
    );
  payload.simulation = linkSimulation(opts.simulation, withNames, red.components);
  return { payload, components: red.components };
}

/**
 * The simulation a link carries: the simulator's numbers-only layout (`simulationForShare`),
 * sanitised once more; anything else is left out, so no arbitrary value travels in a link.
 */
function linkSimulation(v: unknown, withNames: boolean, components: Set<string>): unknown {
  if (v === undefined || v === null) return null;
  const s = sanitizeSimulation(v, withNames, components).value;
  return sharedSimulation(s) ? s : null;
}

/**
 * Compare the sharer's report with the one rebuilt from the payload: the `stack.compaction`
 * fields that differ (measured on the real tables) and the diagnosis if it differs. Texts that
 * contain a ref name component or 8+ hex digits are left out unless `withNames`.
 */
export function measuredExtras(
  report: Report,
  p: SharePayload,
  withNames: boolean,
  components: Set<string>,
): ShareMeasured | null {
  if (!report.stack || sharedWinners(p) > MAX_SHARED_REPORT_WINNERS) return null;
  const probe = reportFromShare(p);
  const orig = (report.stack!.compaction ?? {}) as Record<string, unknown>;
  const got = (probe.stack?.compaction ?? {}) as Record<string, unknown>;
  const set: Record<string, unknown> = {};
  const absent: string[] = [];
  for (const k of Object.keys(orig)) {
    if (!MEASURED_FIELDS.includes(k)) continue;
    if (JSON.stringify(orig[k]) !== JSON.stringify(got[k]))
      set[k] = sanitizeMeasured(orig[k], withNames, components, p.tables.length, MAX_MEASURED_TEXT);
  }
  for (const k of Object.keys(got)) if (!(k in orig) && MEASURED_FIELDS.includes(k)) absent.push(k);
  // the diagnosis names unreadable tables: compare with the rebuilt report's synthetic names
  let text = report.diagnosis;
  report.tables.forEach((t, i) => {
    if (t.name && probe.tables[i]) text = text.split(t.name).join(probe.tables[i].name);
  });
  let diagnosis: string | null = null;
  if (text !== probe.diagnosis) {
    const safe =
      withNames ||
      (!/[0-9a-f]{8,}/i.test(text.replace(/0x[0-9a-f]{12}-0x[0-9a-f]{12}-[0-9a-f]{8}\.ref/g, '')) &&
        !text.split(/[^A-Za-z0-9._-]+/).some((w) => w && components.has(w)));
    // A diagnosis naming hundreds of unreadable tables is cut to what a link carries, with a mark.
    diagnosis = safe ? cutText(text, MAX_SHARED_DIAGNOSIS) : null;
  }
  if (!Object.keys(set).length && !absent.length && diagnosis === null) return null;
  return { compaction: set, compactionAbsent: absent, diagnosis };
}

/**
 * Build the payload and its link in one step. With `withNames`, example names are dropped
 * (halving their number) until the link fits `MAX_LINK_CHARS`.
 */
export function shareLink(a: Analysis, report: Report, opts: ShareOptions & { base?: string } = {}): ShareLinkResult {
  const shape = buildShapePayload(a, report, opts);
  let p = shape.payload;
  const all = p.examples;
  let examples = all.length;
  const measurable = p.kind === 'reftable' && !!a.stack && !!a.merged;
  // The smallest link this payload can give (no example names, no measured figures: where the
  // loop below ends) is tried first. When even that is too long, so is every larger try, and a
  // stack of thousands of tables would otherwise be encoded and compressed once per try, and
  // measured (a report rebuilt from the payload) for nothing.
  let least: ShareLinkResult | null = null;
  if (examples > 0 || measurable) {
    shareWork.encodes++;
    // Only its length is wanted here: it is decoded and rebuilt (verified) only if it is the
    // link handed out, as every link that is (encodeShare verifies the others below).
    least = encodeShare({ ...p, examples: pickExamples(all, 0), measured: null }, opts.base, false);
    if (!least.ok) return least;
  }
  if (measurable) {
    shareWork.measures++;
    p.measured = measuredExtras(report, p, p.withNames, shape.components);
  }
  // Nothing to add to the smallest link (no names, nothing measured differs): it is the link.
  if (least && examples === 0 && !p.measured) return verifyShare(least);
  for (;;) {
    shareWork.encodes++;
    const r = encodeShare(p, opts.base);
    if (r.ok) return r;
    if (opts.withNames && examples > 0) {
      examples = Math.floor(examples / 2);
      p = { ...p, examples: pickExamples(all, examples) };
      continue;
    }
    // Still too long: the measured lists (one entry per table) go first, then all measured
    // extras; the report rebuilt from the numbers alone is still the sharer's shape.
    const m = p.measured;
    if (m && LIST_FIELDS.some((k) => k in m.compaction)) {
      const compaction = Object.fromEntries(Object.entries(m.compaction).filter(([k]) => !LIST_FIELDS.includes(k)));
      p = { ...p, measured: { ...m, compaction } };
      continue;
    }
    if (m) {
      p = { ...p, measured: null };
      continue;
    }
    return r;
  }
}

/** Measured fields holding one entry per table. */
const LIST_FIELDS = ['bySize', 'byRecords', 'byLive', 'jgit'];

/** A byte string cut to at most `max` bytes on a UTF-8 character boundary, ending in the cut mark. */
export function cutBytes(s: string, max: number): string {
  if (s.length <= max) return s;
  const mark = textToKey(CUT_MARK);
  let end = max - mark.length;
  // back off continuation bytes (10xxxxxx) so no character is split
  while (end > 0 && (s.charCodeAt(end) & 0xc0) === 0x80) end--;
  return s.slice(0, end) + mark;
}

/** A text cut to at most `max` characters (UTF-16 units), ending in the cut mark. */
export function cutText(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = max - CUT_MARK.length;
  if (end > 0 && /[\uD800-\uDBFF]/.test(s[end - 1])) end--;
  return s.slice(0, end) + CUT_MARK;
}

/**
 * Real namespace names as a link carries them: at most `MAX_NAMESPACE_BYTES` bytes each (a longer
 * one is never a safe name for synthetic refs: it becomes `refs/other-N`, as the decoder would make it).
 */
function fitNamespaces(real: string[]): string[] {
  let k = 0;
  const used = new Set(real);
  return real.map((ns) => {
    if (ns.length <= Math.min(255, MAX_NAMESPACE_BYTES)) return ns;
    let name: string;
    do name = `refs/other-${++k}`;
    while (used.has(name));
    used.add(name);
    return name;
  });
}

/** Example names a link can carry (at most `MAX_EXAMPLE_BYTES` bytes: a longer name is left out). */
function fitExamples(names: string[]): string[] {
  return names.filter((x) => x.length <= MAX_EXAMPLE_BYTES);
}

/** A stack with more positions in tables.list than a link may hold (`MAX_SHARE_TABLES`). */
export function tooManyTables(n: number): ShareLinkError {
  return new ShareLinkError(
    'too-large',
    `link is too large: ${n.toLocaleString('en-US')} tables, at most ${MAX_SHARE_TABLES.toLocaleString('en-US')} (use the file export: refscope export --format json)`,
    SHARE_VERSION,
  );
}
