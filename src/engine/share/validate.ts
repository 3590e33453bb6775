/**
 * share/validate: the checks a decoded payload passes before anything loops on its numbers —
 * sizes plausible for the tables' files, bounded totals, consistent overrides, and the measured
 * extras' shape.
 */
import {
  MAX_SHARED_DIAGNOSIS,
  MAX_SHARE_BLOCKS,
  MAX_SHARE_OIDS,
  MAX_SHARE_RECORDS,
  MAX_SHARE_TABLES,
  ShareLinkError,
  damaged,
  fmt,
} from './limits.ts';
import { type ShareMeasured, type ShareNsRecords, type SharePayload, SECTIONS, NUM_FIELDS } from './payload.ts';

/** Longest text in the measured figures (a reason, `afterSkipped`). */
export const MAX_MEASURED_TEXT = 2000;

/**
 * The shape of every `stack.compaction` field a link may carry (extensions.ts `CompactionReport`):
 * a field of any other shape makes the link damaged, so no view or export meets a value of the
 * wrong type. Lists are at most one entry per table; `reportFromShare` pads shorter ones.
 */
type Check = (x: unknown, n: number) => string | null;
const isObj = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);
const hasOnly = (x: Record<string, unknown>, keys: string[], optional: string[] = []) =>
  Object.keys(x).every((k) => keys.includes(k) || optional.includes(k)) && keys.every((k) => k in x);
const finiteCount = (x: unknown) =>
  typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= Number.MAX_SAFE_INTEGER;
const text: Check = (x) =>
  typeof x === 'string' && x.length <= MAX_MEASURED_TEXT ? null : `a text of at most ${MAX_MEASURED_TEXT} characters`;
const bool: Check = (x) => (typeof x === 'boolean' ? null : 'true or false');
const segment: Check = (x, n) => {
  if (x === null) return null;
  if (!isObj(x) || !hasOnly(x, ['start', 'end'])) return 'null or { start, end }';
  const ok = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v < n;
  return ok(x.start) && ok(x.end) && (x.start as number) <= (x.end as number)
    ? null
    : `a segment inside the ${n} tables`;
};
const numbers: Check = (x, n) =>
  Array.isArray(x) && x.length <= n && x.every(finiteCount) ? null : `at most ${n} non-negative numbers`;
/**
 * Per-table reasons: texts, or at a repeated line of tables.list the index of an earlier entry
 * that is a text (the report's folded reasons: "the rule of entry k, at this position's figures").
 */
const reasons: Check = (x, n) =>
  Array.isArray(x) &&
  x.length <= n &&
  x.every(
    (s, i) =>
      text(s, n) === null ||
      (typeof s === 'number' && Number.isSafeInteger(s) && s >= 0 && s < i && typeof x[s] === 'string'),
  )
    ? null
    : `at most ${n} texts (or indexes of an earlier text)`;
const fields =
  (req: Record<string, Check>, opt: Record<string, Check> = {}): Check =>
  (x, n) => {
    if (!isObj(x) || !hasOnly(x, Object.keys(req), Object.keys(opt)))
      return `{ ${[...Object.keys(req), ...Object.keys(opt).map((k) => k + '?')].join(', ')} }`;
    for (const [k, c] of Object.entries({ ...req, ...opt })) {
      if (!(k in x)) continue;
      const e = c(x[k], n);
      if (e) return `${k}: ${e}`;
    }
    return null;
  };
const COMPACTION_FIELDS: Record<string, Check> = {
  factor: (x) => (typeof x === 'number' && Number.isSafeInteger(x) && x >= 2 && x <= 255 ? null : 'an integer 2..255'),
  segment,
  bySize: fields({ values: numbers, reasons }),
  byRecords: fields({ values: numbers, segment, reasons }),
  byLive: fields({ values: numbers, segment }),
  jgit: fields({ segment, reasons }, { error: text }),
  dropsTombstones: bool,
  afterPackRefs: (x, n) => afterShape(x, n),
  afterAuto: (x, n) => afterShape(x, n),
  afterSkipped: text,
  incomplete: bool,
  reason: text,
};

/** The `stack.compaction` fields a link may carry. */
export const MEASURED_FIELDS: readonly string[] = Object.keys(COMPACTION_FIELDS);

/**
 * The measured extras of a link (the part `checkPayload` cannot cross-check): known
 * `stack.compaction` fields only, each of its own shape (`COMPACTION_FIELDS`: numbers finite and
 * non-negative, segments inside the stack, lists at most one entry per table, texts bounded), and a
 * diagnosis of at most `MAX_SHARED_DIAGNOSIS` characters.
 */
export function checkMeasured(m: ShareMeasured, nTables: number): void {
  const bad = (what: string) => damaged(`the measured figures ${what}`);
  for (const k of m.compactionAbsent) {
    if (!Object.hasOwn(COMPACTION_FIELDS, k)) throw bad(`have an unknown field ${JSON.stringify(k.slice(0, 40))}`);
  }
  if (m.compactionAbsent.length > Object.keys(COMPACTION_FIELDS).length) throw bad('name too many absent fields');
  for (const k of Object.keys(m.compaction)) {
    if (!Object.hasOwn(COMPACTION_FIELDS, k)) throw bad(`have an unknown field ${JSON.stringify(k.slice(0, 40))}`);
    const e = COMPACTION_FIELDS[k](m.compaction[k], nTables);
    if (e) throw bad(`have ${k} of the wrong shape (expected ${e})`);
  }
  if (m.diagnosis !== null && m.diagnosis.length > MAX_SHARED_DIAGNOSIS) throw bad('have a diagnosis that is too long');
}

const AFTER_KEYS = ['tables', 'bytes', 'records', 'newTableBytes', 'newTableRecords'];
function afterShape(x: unknown, n: number): string | null {
  if (x === null) return null;
  const want = 'null or { tables, bytes, records, newTableBytes, newTableRecords } of whole counts';
  if (!isObj(x) || !hasOnly(x, AFTER_KEYS)) return want;
  if (!AFTER_KEYS.every((k) => finiteCount(x[k]) && Number.isSafeInteger(x[k]))) return want;
  return (x.tables as number) <= n ? null : `at most ${n} tables`;
}

/**
 * Plausibility of a payload's sizes, before anything loops on them: every figure a non-negative
 * integer; per table, records of every kind and section bytes at most its file size (every record
 * and byte is in the file), blocks at most file size / 4 + 1 (a block header alone is 4 bytes),
 * distinct object ids at most what its ref and peeled records hold; over all tables, at most
 * `MAX_SHARE_TABLES` tables, `MAX_SHARE_RECORDS` records, `MAX_SHARE_BLOCKS` blocks.
 */
/** The most bytes deflate's output inflates to per byte (zlib's maximum compression ratio). */
const DEFLATE_MAX_RATIO = 1032;

export function checkSizes(p: SharePayload): void {
  const n = p.tables.length;
  if (n > MAX_SHARE_TABLES)
    throw new ShareLinkError(
      'too-large',
      `link is too large: ${fmt(n)} tables, at most ${fmt(MAX_SHARE_TABLES)}`,
      p.version,
    );
  const count = (x: unknown) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
  if (!p.namespaces.every((ns) => typeof ns === 'string')) throw damaged('a namespace is not text');
  const refRecs = new Array<number>(n).fill(0);
  const oidCap = new Array<number>(n).fill(0);
  for (const e of p.nsRecords) {
    if (
      !count(e.table) ||
      !count(e.ns) ||
      !count(e.records) ||
      !count(e.winners) ||
      !count(e.dangling) ||
      ![0, 1, 2, 3].includes(e.kind)
    ) {
      throw damaged('a record count is not a non-negative integer');
    }
    if (e.table >= n) throw damaged('a record count names a table that does not exist');
    refRecs[e.table] += e.records;
    if (e.kind === 1) oidCap[e.table] += e.records;
    else if (e.kind === 2) oidCap[e.table] += 2 * e.records;
  }
  for (const o of p.overlaps) {
    if (![o.newer, o.older, o.ns, o.count, o.tombstones].every(count))
      throw damaged('an overlap is not non-negative integers');
  }
  for (const h of p.hiding)
    if (![h.table, h.ns, h.count].every(count)) throw damaged('a hiding count is not non-negative integers');
  let records = 0,
    blocks = 0;
  p.tables.forEach((t, i) => {
    for (const f of [...NUM_FIELDS, 'maxUpdateIndex'] as const)
      if (!count(t[f])) throw damaged(`table ${i}: ${f} is not a non-negative integer`);
    if (t.maxUpdateIndex < t.minUpdateIndex) throw damaged(`table ${i}: update-index range ends before it starts`);
    const size = t.fileSize;
    const tooMany = (what: string, v: number) => {
      if (v > size) throw damaged(`table ${i}: ${fmt(v)} ${what} in a file of ${fmt(size)} bytes`);
    };
    tooMany('ref records', refRecs[i]);
    // Log blocks are deflated (Documentation/technical/reftable.adoc, "Log block format"): their
    // records are bounded by the inflated bytes, up to deflate's largest ratio (1032:1, zlib's
    // "technical details") times the file's, not by the file's bytes.
    if (t.logs + t.logDeletions > size * DEFLATE_MAX_RATIO)
      throw damaged(
        `table ${i}: ${fmt(t.logs + t.logDeletions)} reflog records in a file of ${fmt(size)} bytes (more than deflate can hold)`,
      );
    tooMany('obj records', t.objRecords);
    tooMany('index records', t.indexRecords);
    let tb = 0;
    for (const s of SECTIONS) {
      if (!count(t.sectionBytes?.[s]) || !count(t.sectionBlocks?.[s]))
        throw damaged(`table ${i}: ${s} section figures are not non-negative integers`);
      tooMany(`${s} section bytes`, t.sectionBytes[s]);
      tb += t.sectionBlocks[s];
    }
    if (tb > Math.floor(size / 4) + 1) throw damaged(`table ${i}: ${fmt(tb)} blocks in a file of ${fmt(size)} bytes`);
    if (t.distinctOids > oidCap[i] || t.distinctOids > MAX_SHARE_OIDS) {
      throw damaged(`table ${i}: ${fmt(t.distinctOids)} distinct object ids for ${fmt(oidCap[i])} values`);
    }
    records += refRecs[i] + t.logs + t.logDeletions + t.objRecords + t.indexRecords;
    if (t.copyOf !== undefined) {
      // The same file on another line: the same figures as its first line's table, whose blocks
      // the rebuilt report lists once (they are not counted again).
      const o = Number.isSafeInteger(t.copyOf) && t.copyOf >= 0 && t.copyOf < i ? p.tables[t.copyOf] : null;
      if (!o || o.copyOf !== undefined)
        throw damaged(`table ${i}: a copy of table ${String(t.copyOf)}, which is not an earlier first copy`);
      const same =
        [...NUM_FIELDS, 'maxUpdateIndex', 'version', 'hashId', 'unreadable'].every(
          (f) => t[f as keyof typeof t] === o[f as keyof typeof o],
        ) &&
        SECTIONS.every((s) => t.sectionBytes[s] === o.sectionBytes[s] && t.sectionBlocks[s] === o.sectionBlocks[s]);
      if (!same) throw damaged(`table ${i}: a copy of table ${t.copyOf} with other figures`);
    } else blocks += tb;
  });
  if (p.liveByNs) {
    if (!p.liveByNs.every(count)) throw damaged('a live ref count is not a non-negative integer');
    records += p.liveByNs.reduce((s, v) => s + v, 0);
  }
  if (records > MAX_SHARE_RECORDS) {
    throw new ShareLinkError(
      'too-large',
      `link is too large: ${fmt(records)} records, at most ${fmt(MAX_SHARE_RECORDS)} (use the file export)`,
      p.version,
    );
  }
  if (blocks > MAX_SHARE_BLOCKS) {
    throw new ShareLinkError(
      'too-large',
      `link is too large: ${fmt(blocks)} blocks, at most ${fmt(MAX_SHARE_BLOCKS)} (use the file export)`,
      p.version,
    );
  }
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
    if (e.dangling > (e.kind === 3 ? e.winners : 0))
      throw damaged(`table ${e.table}: more dangling symrefs than winning symrefs`);
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
    if (e.count - e.tombstones > live)
      throw damaged(`table ${e.newer}: overrides more records than it has live winners`);
    const pn = perNewer.get(key(e.newer, e.ns)) ?? { hid: 0, live: 0 };
    pn.hid += e.tombstones;
    pn.live = Math.max(pn.live, e.tombstones);
    perNewer.set(key(e.newer, e.ns), pn);
  }
  for (const [k, s] of sums) {
    if ((overridden.get(k) ?? 0) !== s.records - s.winners) {
      throw damaged(
        `table ${Math.floor(k / Math.max(1, nNs))}: ${s.records - s.winners} records lose but ${overridden.get(k) ?? 0} are overridden`,
      );
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
    if (!pn || e.count > pn.hid || e.count === 0)
      throw damaged(`table ${e.table}: hiding tombstones do not match what they hide`);
    if (pn.live > e.count)
      throw damaged(`table ${e.table}: hides more records in one table than it has hiding tombstones`);
  }
  for (const [k, pn] of perNewer)
    if (pn.hid > 0 && !seenHid.has(k)) throw damaged('tombstones hide records but no hiding count is given');
  if (p.liveByNs && p.liveByNs.length !== nNs) throw damaged('live counts do not match the namespaces');
}
