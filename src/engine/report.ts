/**
 * report: the `refscope.report/1` document (documented field by field in docs/report.md).
 * Plain data: counts and per-table/per-block summaries; no ref names except namespace prefixes.
 */
import type { Finding } from './basics.ts';
import type { Analysis, LockFile, OrphanTable } from './analyze.ts';
import { keyString, type BlockInfo, type SectionName, type Table } from './reftable/table.ts';
import { namespaceCounts, resolveEntry } from './refs.ts';
import { filesRefList, namespaceEnd, prefixCounts } from './files.ts';
import type { MergedView } from './reftable/merged.ts';
import { REPORT_SCHEMA, GENERATOR } from './version.ts';
import { addCompactionSection, addFilesSection, filesSection } from './extensions.ts';
import { diagnose } from './diagnosis.ts';
import type { PackedRefsJson } from './files.ts';

export { REPORT_SCHEMA, GENERATOR } from './version.ts';

/** One block in the report: the block's summary fields from the parser, without its keys. */
export type BlockReport = Pick<
  BlockInfo,
  'offset' | 'type' | 'section' | 'blockLen' | 'restartCount' | 'recordCount' | 'padding' | 'fileBytes'
>;

/** One table in the report (`tables[]`, oldest first). */
export interface TableReport {
  name: string;
  fileSize: number;
  /** Null fields when the table could not be parsed (see `error`). */
  version: 1 | 2 | null;
  hashId: 'sha1' | 's256' | null;
  blockSize: number | null;
  minUpdateIndex: number | null;
  maxUpdateIndex: number | null;
  /**
   * Every block in file order; empty on a position that repeats an earlier line of tables.list
   * (`copyOf`): the same file's blocks are listed once, at its first position.
   */
  blocks: BlockReport[];
  /**
   * Present when tables.list names this file on an earlier line too: the index of the first
   * position naming it (its `blocks` are listed there). The other fields are this position's own.
   * Consecutive copies with the same figures (a run) are one object at each of their positions:
   * a report of 100,000 lines naming one file holds a few objects, not 100,000.
   */
  copyOf?: number;
  records: {
    ref: number;
    peeled: number;
    symref: number;
    tombstone: number;
    log: number;
    logDeletion: number;
    obj: number;
    index: number;
  };
  sectionBytes: Record<SectionName, number>;
  refIndexLevels: number;
  /** Records of this table that a newer table's record of the same key overrides. */
  shadowed: number;
  /** Of those, records hidden by a newer tombstone. */
  hiddenByTombstone: number;
  /** Tombstones of this table that hide at least one older record. */
  tombstonesHiding: number;
  /** Records of this table that win in the merged view (live refs plus winning tombstones). */
  winners: number;
  error: null | { file: string; offset: number; expected: string };
  /**
   * Present when an unreadable table may change this table's merge figures: `shadowed`,
   * `hiddenByTombstone` and `winners` when it is newer, `tombstonesHiding` when it is older.
   */
  incomplete?: string[];
}

/** The whole report. */
export interface Report {
  schema: typeof REPORT_SCHEMA;
  generator: string;
  input: { kind: string; description: string };
  tables: TableReport[];
  stack: {
    tables: number;
    totalBytes: number;
    live: number;
    tombstones: number;
    tombstonesHiding: number;
    /** Live symrefs whose target does not resolve (for-each-ref leaves them out). */
    danglingSymrefs: number;
    /** Sum of ref records over all tables (live, shadowed and tombstones). */
    refRecords: number;
    logRecords: number;
    namespaces: Record<string, number>;
    /**
     * Per table after the first readable one: whether its `min_update_index` follows the previous
     * readable table's max. A run of consecutive copies of one file that break the same way is
     * one entry, `through` its last table.
     */
    continuity: {
      table: number;
      expectedMin: number;
      actualMin: number;
      status: 'ok' | 'gap' | 'overlap';
      through?: number;
    }[];
    /** True when some table could not be parsed: stack-wide figures leave it out. */
    incomplete: boolean;
    /**
     * The figures of `stack` that leave out the unreadable tables (empty when `incomplete` is
     * false). `tables` and `totalBytes` never do: file sizes are known.
     */
    incompleteFigures: string[];
    /** Every tombstone record of every table (`tombstones` counts the winning ones only). */
    tombstoneRecords: number;
    /** Lock files of the reftable directory and what git does with each (see `LockFile`). */
    locks: LockFile[];
    /** `.ref` files not listed in `tables.list`; `reclaimableBytes` is what git's next clean-up deletes. */
    orphans: { tables: number; bytes: number; reclaimableBytes: number; files: OrphanTable[] };
    /** `stack.compaction` (see `CompactionReport` in extensions.ts); unknown when a table is unreadable. */
    compaction?: unknown;
  } | null;
  packedRefs?: unknown;
  files?: unknown;
  findings: Finding[];
  /**
   * Whether git can read the input at all. When it cannot (a table missing, truncated or
   * corrupt; a packed-refs file git dies on), every figure, prediction and simulation shown is
   * refscope's reading of the intact parts, not git's behaviour; `reason` says what git trips on.
   */
  verdict: { gitReadable: boolean; reason: string | null };
  /**
   * Per name prefix (namespace plus the first character after it, e.g. `refs/tags/t`): the ref
   * records of every table under it, how many are tombstones, and the live refs. A scan bounded
   * to the prefix steps over all its records; `records / live` is what each live ref costs.
   * At most `PREFIX_ROWS` rows, most records first;
   * empty for a files-backend input and for a report rebuilt from a share link (no names).
   */
  prefixes: { prefix: string; records: number; tombstones: number; live: number }[];
  diagnosis: string;
}

/** The `blocks` of every copy (`copyOf`): one frozen empty list. */
const NO_BLOCKS: BlockReport[] = Object.freeze([]) as unknown as BlockReport[];

/**
 * The fields a copy (`copyOf`) has in the JSON document: the rest are its first position's
 * (`tables[copyOf]`), left out so that a line of tables.list repeating a name costs a few bytes.
 */
export const COPY_FIELDS = [
  'copyOf',
  'shadowed',
  'hiddenByTombstone',
  'tombstonesHiding',
  'winners',
  'incomplete',
] as const;

/**
 * The report as `refscope.report/1` JSON text: every field as in memory, but a copy's entry
 * (`copyOf`) holds only `COPY_FIELDS` (read the others with `tableOf`), and a further position of
 * a run of copies (the same object as the position before it) is the index of the run's first
 * position. Compaction reasons and continuity are folded in memory already (`Reason`, `through`).
 */
export function reportJson(report: Report, indent = 2): string {
  // A shallow copy with the folded parts replaced (a replacer function would be called for
  // every value of the document, millions for a long stack).
  let start = 0;
  const tables = report.tables.map((t, i): unknown => {
    if (t.copyOf === undefined) return t;
    if (i > 0 && report.tables[i - 1] === t) return start;
    start = i;
    const o: Record<string, unknown> = {};
    for (const k of COPY_FIELDS) if (t[k] !== undefined) o[k] = t[k];
    return o;
  });
  return JSON.stringify({ ...report, tables }, null, indent);
}

/** Per position, the entry of a JSON document's reasons whose text gives its rule (see `Reason`). */
export function reasonRuleOf(reasons: (string | number)[], i: number): string {
  const x = reasons[i];
  return typeof x === 'number' ? String(reasons[x]) : x;
}

/** An entry of `tables` as read back from JSON: a table, a copy entry, or a run's first index. */
type TableEntry = TableReport | number;

/** The entry of position `i`, following a run's index (JSON read back) to its first position. */
function entryAt(r: Pick<Report, 'tables'>, i: number): TableReport | undefined {
  const t = (r.tables as TableEntry[])[i];
  return typeof t === 'number' ? ((r.tables as TableEntry[])[t] as TableReport | undefined) : t;
}

/**
 * A table entry with every field, from a report in memory or read back from its JSON (where a
 * copy holds only `COPY_FIELDS`): a copy's own figures over its first position's fields.
 */
export function tableOf(r: Pick<Report, 'tables'>, i: number): TableReport | undefined {
  const t = entryAt(r, i);
  if (!t || t.copyOf === undefined) return t;
  const o = entryAt(r, t.copyOf);
  return o ? { ...o, ...t, blocks: NO_BLOCKS } : t;
}

/**
 * The last position of the run of copies starting at `i`: consecutive positions naming the same
 * earlier file (`copyOf`) with the same merge figures. `i` itself when there is no run of two.
 */
export function copyRunEnd(r: Pick<Report, 'tables'>, i: number): number {
  const t = entryAt(r, i);
  if (!t || t.copyOf === undefined || t.error) return i;
  const list = r.tables as TableEntry[];
  let j = i;
  while (j + 1 < list.length) {
    // A run in memory is one object at each position; read back from JSON, the run's first index.
    const next = list[j + 1];
    if (next === t || next === list[i] || (typeof next === 'number' && entryAt(r, j + 1) === t)) {
      j++;
      continue;
    }
    const u = entryAt(r, j + 1);
    if (
      !u ||
      u.copyOf !== t.copyOf ||
      u.shadowed !== t.shadowed ||
      u.hiddenByTombstone !== t.hiddenByTombstone ||
      u.winners !== t.winners ||
      u.error
    )
      break;
    j++;
  }
  return j;
}

/** Most rows of `prefixes`. */
export const PREFIX_ROWS = 50;

/** A block's summary fields as the report lists them (the table view adds its index and keys). */
export function blockReport(b: BlockInfo): BlockReport {
  return {
    offset: b.offset,
    type: b.type,
    section: b.section,
    blockLen: b.blockLen,
    restartCount: b.restartCount,
    recordCount: b.recordCount,
    padding: b.padding,
    fileBytes: b.fileBytes,
  };
}

function tableReport(t: Table, i: number, m: MergedView, copy = false): TableReport {
  return {
    name: t.name,
    fileSize: t.fileSize,
    version: t.header.version,
    hashId: t.header.hashId,
    blockSize: t.header.blockSize,
    minUpdateIndex: t.header.minUpdateIndex,
    maxUpdateIndex: t.header.maxUpdateIndex,
    blocks: copy ? [] : t.blocks.map(blockReport),
    records: { ...t.counts },
    sectionBytes: { ...t.sectionBytes },
    refIndexLevels: t.refIndexLevels,
    shadowed: m.shadowed[i],
    hiddenByTombstone: m.hiddenByTombstone[i],
    tombstonesHiding: m.tombstonesHidingBy[i],
    winners: m.winners[i],
    error: null,
  };
}

/**
 * The blocks of `tables[i]`: its own, or those of the first position naming the same file
 * (`copyOf`). Readers of a report use this rather than `tables[i].blocks`.
 */
export function blocksOf(r: Pick<Report, 'tables'>, i: number): BlockReport[] {
  const t = entryAt(r, i);
  if (!t) return [];
  const c = t.copyOf;
  const o = c !== undefined ? entryAt(r, c) : undefined;
  return o ? o.blocks : t.blocks;
}

/**
 * Where a table.list name first appears: for each position, the index of the first line naming
 * the same file, or -1 when this is that first line. A stack parses each distinct name once, so
 * the same name is the same Table (or the same broken file).
 */
function firstPositions(names: string[]): number[] {
  const first = new Map<string, number>();
  return names.map((n, i) => {
    const j = first.get(n);
    if (j === undefined) {
      first.set(n, i);
      return -1;
    }
    return j;
  });
}

/** Options of `buildReport`. */
export interface BuildOptions {
  /** Geometric factor for the compaction geometry (2..255, git's default 2). */
  factor?: number;
  /**
   * Leave `prefixes` empty: a load that shows its counts first fills it afterwards with
   * `reportPrefixes`. Default false.
   */
  deferPrefixes?: boolean;
}

/** `prefixes` of the report of `a` (see `prefixRows`); empty for a files-backend analysis. */
export function reportPrefixes(a: Analysis): Report['prefixes'] {
  return a.stack && a.merged ? prefixRows(a.stack.tables, a.merged) : [];
}

/** Sets `incomplete` on readable tables that an unreadable newer or older table may affect. */
function markIncomplete(tables: TableReport[]): void {
  const firstBroken = tables.findIndex((t) => t.error);
  if (firstBroken < 0) return;
  let lastBroken = firstBroken;
  tables.forEach((t, i) => {
    if (t.error) lastBroken = i;
  });
  tables.forEach((t, i) => {
    if (t.error) return;
    const figs: string[] = [];
    if (i < lastBroken) figs.push('shadowed', 'hiddenByTombstone', 'winners');
    if (i > firstBroken) figs.push('tombstonesHiding');
    if (figs.length) t.incomplete = figs;
  });
}

/**
 * Live symrefs (winning type-3 records) that do not resolve to an object id. Only the symref
 * records are looked at (each table's `targets`, a handful in a forge's millions of refs), each
 * found in the merged view by a binary search: no pass over every entry. A table named on several
 * lines wins only at its newest position (merged.ts `mergeTables`).
 */
function countDangling(tables: (Table | null)[], m: MergedView): number {
  const newest = new Map<Table, number>();
  tables.forEach((t, i) => {
    if (t) newest.set(t, i);
  });
  let n = 0;
  for (const [t, ti] of newest) {
    if (!t.refs.targets) continue;
    for (const rec of t.refs.targets.keys()) {
      if (t.refs.types[rec] !== 3) continue;
      const i = m.find(t.refs.name(rec));
      if (i >= 0 && m.table[i] === ti && m.rec[i] === rec && resolveEntry(tables, m, i) === null) n++;
    }
  }
  return n;
}

/** Build the `refscope.report/1` document for an analysis. */
export function buildReport(a: Analysis, opts: BuildOptions = {}): Report {
  const r: Report = {
    schema: REPORT_SCHEMA,
    generator: GENERATOR,
    input: { kind: a.input.kind, description: a.input.description },
    tables: [],
    stack: null,
    findings: [...a.findings],
    verdict: { gitReadable: true, reason: null },
    prefixes: [],
    diagnosis: '',
  };
  if (a.stack && a.merged) {
    const s = a.stack;
    const m = a.merged;
    const broken = new Map(s.broken.map((b) => [b.name, b]));
    // A file repeated in tables.list is listed at each position (the order stays visible) with
    // its position's merge figures, but its blocks only once: the report grows with the distinct
    // tables' blocks, not with the lines.
    const first = firstPositions(s.names);
    r.tables = [];
    s.names.forEach((name, i) => {
      const t = s.tables[i];
      const f = first[i];
      let tr: TableReport;
      if (f >= 0) {
        const shadowed = t ? m.shadowed[i] : 0,
          hiddenByTombstone = t ? m.hiddenByTombstone[i] : 0,
          tombstonesHiding = t ? m.tombstonesHidingBy[i] : 0,
          winners = t ? m.winners[i] : 0;
        // The position before names the same file with the same figures: one object for the run.
        const prev = r.tables[i - 1];
        if (
          first[i - 1] === f &&
          prev.shadowed === shadowed &&
          prev.hiddenByTombstone === hiddenByTombstone &&
          prev.tombstonesHiding === tombstonesHiding &&
          prev.winners === winners
        ) {
          r.tables.push(prev);
          return;
        }
        // A copy shares its first position's unchanging parts (one object each, however many
        // lines): only its merge figures are its own.
        const o = r.tables[f];
        tr = {
          name: o.name,
          fileSize: o.fileSize,
          version: o.version,
          hashId: o.hashId,
          blockSize: o.blockSize,
          minUpdateIndex: o.minUpdateIndex,
          maxUpdateIndex: o.maxUpdateIndex,
          blocks: NO_BLOCKS,
          copyOf: f,
          records: o.records,
          sectionBytes: o.sectionBytes,
          refIndexLevels: o.refIndexLevels,
          shadowed,
          hiddenByTombstone,
          tombstonesHiding,
          winners,
          error: o.error,
        };
      } else tr = t ? tableReport(t, i, m) : brokenReport(name, i, false);
      r.tables.push(tr);
    });
    function brokenReport(name: string, i: number, copy: boolean): TableReport {
      const b = broken.get(name)!;
      if (!copy)
        r.findings.push({ severity: 'error', file: b.error.file, offset: b.error.offset, message: b.error.expected });
      return {
        name,
        fileSize: b.fileSize,
        version: null,
        hashId: null,
        blockSize: null,
        minUpdateIndex: null,
        maxUpdateIndex: null,
        blocks: [],
        records: { ref: 0, peeled: 0, symref: 0, tombstone: 0, log: 0, logDeletion: 0, obj: 0, index: 0 },
        sectionBytes: { ref: 0, refIndex: 0, obj: 0, objIndex: 0, log: 0, logIndex: 0 },
        refIndexLevels: 0,
        shadowed: 0,
        hiddenByTombstone: 0,
        tombstonesHiding: 0,
        winners: 0,
        error: { file: b.error.file, offset: b.error.offset, expected: b.error.expected },
      };
    }
    const namespaces = namespaceCounts(s.tables, m);
    const continuity: NonNullable<Report['stack']>['continuity'] = [];
    let prev: Table | null = null;
    s.tables.forEach((t, i) => {
      if (!t) return;
      if (prev) {
        const expectedMin = prev.header.maxUpdateIndex + 1;
        const actualMin = t.header.minUpdateIndex;
        // Consecutive copies of one file (one parsed table) that break the same way: one entry.
        const last = continuity[continuity.length - 1];
        if (
          last &&
          first[i] >= 0 &&
          first[i] === first[i - 1] &&
          (last.through ?? last.table) === i - 1 &&
          last.expectedMin === expectedMin &&
          last.actualMin === actualMin
        ) {
          last.through = i;
          prev = t;
          return;
        }
        continuity.push({
          table: i,
          expectedMin,
          actualMin,
          status: actualMin === expectedMin ? 'ok' : actualMin < expectedMin ? 'overlap' : 'gap',
        });
      }
      prev = t;
    });
    let refRecords = 0,
      logRecords = 0;
    for (const t of s.tables)
      if (t) {
        refRecords += t.refs.count;
        logRecords += t.counts.log + t.counts.logDeletion;
      }
    r.stack = {
      tables: s.names.length,
      totalBytes: r.tables.reduce((x, t) => x + t.fileSize, 0),
      live: m.live,
      tombstones: m.tombstones,
      tombstonesHiding: m.tombstonesHiding,
      danglingSymrefs: countDangling(s.tables, m),
      refRecords,
      logRecords,
      namespaces,
      continuity,
      incomplete: s.broken.length > 0,
      incompleteFigures: s.broken.length
        ? [
            'live',
            'tombstones',
            'tombstonesHiding',
            'refRecords',
            'logRecords',
            'namespaces',
            'continuity',
            'tombstoneRecords',
          ]
        : [],
      tombstoneRecords: m.allTombstones ?? s.tables.reduce((n, t) => n + (t ? t.counts.tombstone : 0), 0),
      locks: a.locks ?? [],
      orphans: {
        tables: a.orphans?.length ?? 0,
        bytes: (a.orphans ?? []).reduce((n, o) => n + o.bytes, 0),
        reclaimableBytes: (a.orphans ?? []).reduce((n, o) => n + (o.gitDeletes ? o.bytes : 0), 0),
        files: a.orphans ?? [],
      },
    };
    markIncomplete(r.tables);
    r.prefixes = opts.deferPrefixes ? [] : prefixRows(s.tables, m);
    r.verdict = gitVerdict(a);
    const c = addCompactionSection(r, a, opts.factor ?? 2);
    r.diagnosis = diagnose(r, a, c, null);
  } else if (a.files) {
    const p = addFilesSection(r, a);
    // The namespace mix, as for a stack: on a forge's mirror most refs are often refs/pull/*.
    if (!a.files.fatal) {
      // On the names' bytes: `namespaceOf`'s prefix, decoded where it changes.
      const ns: Record<string, number> = {};
      for (const [k, v] of prefixCounts(filesRefList(a.files), namespaceEnd, '(root)')) ns[k] = v;
      p.namespaces = ns;
    }
    r.verdict = gitVerdict(a, p);
    r.diagnosis = diagnose(r, a, null, p);
  }
  return r;
}

/**
 * Whether git can read the input at all (`Report.verdict`), from the analysis alone (cheap: the
 * CLI's simulate and compact ask it without building a report). A reftable stack with any table
 * missing or unreadable is refused whole: git's `reftable_stack_reload` fails, and with it every
 * command. A files-backend repository is refused when git dies on its packed-refs or a ref it
 * must read (`p`, the packed-refs section, when already built).
 */
export function gitVerdict(a: Analysis, p?: PackedRefsJson): Report['verdict'] {
  if (a.stack) {
    const s = a.stack;
    const b = s.broken[0];
    if (!b) return { gitReadable: true, reason: null };
    const what =
      b.fileSize === 0 && /to exist/.test(b.error.expected)
        ? 'is missing'
        : `is damaged (${b.error.file}: offset ${Math.max(0, b.error.offset)}: expected ${b.error.expected})`;
    return {
      gitReadable: false,
      reason: `${s.broken.length === 1 ? 'table' : `${s.broken.length} tables, the first`} ${b.name} ${what}, and git cannot open a stack with an unreadable table: it lists no ref at all and fails every update and compaction ("corrupt reftable file")`,
    };
  }
  if (a.files.fatal)
    return {
      gitReadable: false,
      reason: `${a.files.fatal.file}: offset ${Math.max(0, a.files.fatal.offset)}: ${a.files.fatal.message}`,
    };
  const dies = (p ?? filesSection(a)).gitDies;
  if (dies)
    return {
      gitReadable: false,
      reason: `git dies on packed-refs (${dies.when}): line ${dies.line}, offset ${dies.offset}: ${dies.message}`,
    };
  return { gitReadable: true, reason: null };
}

/**
 * `prefixes`: ref records, tombstones and live refs per name prefix over every table
 * (the namespace up to its second '/', plus one more character: `refs/tags/t`).
 */
function prefixRows(tables: (Table | null)[], m: MergedView): Report['prefixes'] {
  // Stand-in tables (a report rebuilt from a share link) carry no names: no rows.
  if (tables.some((t) => t && (!t.refs.keyBytes || typeof t.refs.name !== 'function'))) return [];
  const rows = new Map<string, { prefix: string; records: number; tombstones: number; live: number }>();
  const row = (p: string) => {
    let x = rows.get(p);
    if (!x) rows.set(p, (x = { prefix: p, records: 0, tombstones: 0, live: 0 }));
    return x;
  };
  // The prefix of a key, from its bytes: under `refs/`, up to the next '/' and one byte after it
  // (the whole name when there is none); otherwise its first byte. Keys come sorted, so a run of
  // keys shares one prefix: a string is made only where the prefix changes, not per ref.
  let lastKb: Uint8Array | null = null,
    lastSt = 0,
    lastLen = -1;
  let last: ReturnType<typeof row> | null = null;
  const rowAt = (kb: Uint8Array, st: number, en: number) => {
    let len: number;
    if (
      en - st >= 5 &&
      kb[st] === 0x72 &&
      kb[st + 1] === 0x65 &&
      kb[st + 2] === 0x66 &&
      kb[st + 3] === 0x73 &&
      kb[st + 4] === 0x2f
    ) {
      let j = st + 5;
      while (j < en && kb[j] !== 0x2f) j++;
      len = Math.min(en, j + 2) - st;
    } else len = Math.min(1, en - st);
    if (last && len === lastLen) {
      let same = true;
      for (let j = 0; j < len; j++)
        if (kb[st + j] !== lastKb![lastSt + j]) {
          same = false;
          break;
        }
      if (same) {
        lastKb = kb;
        lastSt = st;
        return last;
      }
    }
    lastKb = kb;
    lastSt = st;
    lastLen = len;
    return (last = row(keyString(kb, st, st + len)));
  };
  // A table listed several times in tables.list is one parsed Table: walked once, counted at
  // each of its positions (the work stays bounded by the input's records).
  const positions = new Map<Table, number>();
  for (const t of tables) if (t) positions.set(t, (positions.get(t) ?? 0) + 1);
  // A key that shares with the key before it (`lcp`, the record's prefix length) the whole prefix
  // of that key's row (a row prefix "refs/<namespace>/" plus a byte: its '/' at length − 2, past
  // "refs/") is in the same row: no byte is looked at.
  const sameRow = (kb: Uint8Array, st: number, lcp: Uint8Array | undefined, r: number): boolean =>
    lcp !== undefined && lastLen >= 7 && lcp[r] >= lastLen && lastKb === kb && kb[st + lastLen - 2] === 0x2f;
  for (const [t, k] of positions) {
    const refs = t.refs;
    const kb = refs.keyBytes,
      ks = refs.keyStart,
      lcp = refs.lcp;
    for (let i = 0; i < refs.count; i++) {
      let x: ReturnType<typeof row>;
      if (i > 0 && lastSt === ks[i - 1] && sameRow(kb, ks[i], lcp, i)) {
        x = last!;
        lastSt = ks[i];
      } else x = rowAt(kb, ks[i], ks[i + 1]);
      x.records += k;
      if (refs.types[i] === 0) x.tombstones += k;
    }
  }
  let prevT = -1,
    prevR = -1;
  for (let i = 0; i < m.count; i++) {
    const ti = m.table[i];
    const refs = tables[ti]!.refs;
    const r = m.rec[i];
    const follows = ti === prevT && r === prevR + 1;
    prevT = ti;
    prevR = r;
    if (refs.types[r] === 0) continue;
    const st = refs.keyStart[r];
    // The fast path needs the key just before in the same table to have set the row.
    if (follows && lastSt === refs.keyStart[r - 1] && sameRow(refs.keyBytes, st, refs.lcp, r)) {
      lastSt = st;
      last!.live++;
    } else rowAt(refs.keyBytes, st, refs.keyStart[r + 1]).live++;
  }
  return [...rows.values()]
    .sort((x, y) => y.records - x.records || (x.prefix < y.prefix ? -1 : 1))
    .slice(0, PREFIX_ROWS);
}
