/**
 * session/paging: the refs list of one analysis, asked for one page at a time (a million refs
 * never cross to the page at once), and one table's blocks or one block for the drill-down
 * views. Names leave as Unicode text (`displayName`); inside they stay byte strings so that
 * order and filters are git's byte order.
 */
import { bytesToKey, displayName, keyToBytes, textToKey, toHex, type FormatError } from '../basics.ts';
import { analysisRefList, analysisRefs, type Analysis } from '../analyze.ts';
import { resolveEntry } from '../refs.ts';
import { sectionRanges, type BlockInfo, type SectionName, type Table, type PartialTable } from '../reftable/table.ts';
import { decodeBlockDetail, type BlockDetail, type BlockSourceTable } from '../blockdetail.ts';
import { blockReport } from '../report.ts';
import { LazyRefColumns } from './columns.ts';
import type { BlockSummary, RefRow, RefsPage, RefsQuery, TableLayout, TableSplit } from './types.ts';

function keyDisplay(t: Table | null, k: string, section: SectionName): string {
  if (section === 'obj' || section === 'objIndex') {
    let s = '';
    for (let i = 0; i < k.length; i++) s += k.charCodeAt(i).toString(16).padStart(2, '0');
    return s;
  }
  if (section === 'log' || section === 'logIndex') {
    const j = k.length - 9;
    if (j >= 0 && k.charCodeAt(j) === 0) return displayName(k.slice(0, j));
  }
  void t;
  return displayName(k);
}

/**
 * The live entries of the merged view, as positions: the live entry of rank `p` is at
 * `at(p)`. Held as the positions of the winning tombstones only (a stack of ten million refs
 * with 100,000 tombstones: 400 KB, not 40 MB): before tombstone `k` come `tomb[k] - k` live
 * entries, so a binary search over that finds how many tombstones precede rank `p`.
 */
export class LiveMap {
  readonly length: number;
  constructor(
    private readonly tomb: Int32Array,
    total: number,
  ) {
    this.length = total - tomb.length;
  }
  at(p: number): number {
    const t = this.tomb;
    let lo = 0,
      hi = t.length;
    while (lo < hi) {
      const m = (lo + hi) >>> 1;
      if (t[m] - m > p) hi = m;
      else lo = m + 1;
    }
    return p + lo;
  }
  get heldBytes(): number {
    return this.tomb.byteLength;
  }
}

/** Index of the first position p in [lo, hi) of `idx` with keyOf(idx.at(p)) ≥ key. */
function lowerBoundIdx(keyOf: (i: number) => string, idx: LiveMap | null, key: string, lo: number, hi: number): number {
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    const k = keyOf(idx ? idx.at(m) : m);
    if (k < key) lo = m + 1;
    else hi = m;
  }
  return lo;
}

/** Smallest byte string greater than every string starting with `p` (or null when there is none). */
function prefixEnd(p: string): string | null {
  let i = p.length - 1;
  while (i >= 0 && p.charCodeAt(i) === 0xff) i--;
  if (i < 0) return null;
  return p.slice(0, i) + String.fromCharCode(p.charCodeAt(i) + 1);
}

/** A filtered list: either a contiguous range of the base list, or explicit positions. */
/** A refs list read by index (`FilesRefList` is one). */
interface Listed {
  readonly length: number;
  name(k: number): string;
  oid(k: number): string;
  nameIncludes(k: number, needle: Uint8Array): boolean;
}

type Selection = { base: LiveMap | null; from: number; to: number } | { list: Int32Array };

/** Bytes of substring selections kept for paging (the newest first; a range costs nothing). */
const SELECTION_BYTES = 16 * 1024 * 1024;

/** The refs list of an analysis (or of nothing: an empty list). */
export class RefsList {
  /** Positions (into the list) of live entries; null = every entry is live. */
  private liveIdx: LiveMap | null = null;
  /**
   * The listed refs of a files-backend input (names and ids in the files' bytes, decoded for the
   * rows shown: `FilesRefList`), or of a stack without a merged view; null for a merged view,
   * whose keys are read in place.
   */
  private listed: Listed | null = null;
  private cache = new Map<string, Selection>();
  /** Per table (report order), null for a broken table. */
  readonly splits: (TableSplit | null)[] = [];

  /**
   * `analysis` null: an empty list (a report opened from a link). Throws what listing the refs
   * throws (a damaged packed-refs): the caller keeps the report and says why the list is empty.
   */
  constructor(private readonly analysis: Analysis | null) {
    const a = analysis;
    if (!a) return;
    if (a.stack && a.merged) {
      const m = a.merged;
      const tables = a.stack.tables;
      const tombWin = new Array(tables.length).fill(0);
      const tomb = new Int32Array(m.count - m.live);
      let j = 0;
      for (let i = 0; i < m.count; i++) {
        const t = tables[m.table[i]]!;
        if (t.refs.types[m.rec[i]] === 0) {
          tombWin[m.table[i]]++;
          tomb[j++] = i;
        }
      }
      this.liveIdx = j ? new LiveMap(tomb.subarray(0, j).slice(), m.count) : null;
      tables.forEach((t, i) => {
        if (!t) {
          this.splits.push(null);
          return;
        }
        const sb = t.sectionBytes;
        const live = m.winners[i] - tombWin[i];
        // The same file on the line before with the same figures (a run of repeated lines of
        // tables.list): one object for the run, so what crosses to the page grows with the runs.
        const prev = this.splits[i - 1];
        if (
          prev &&
          tables[i - 1] === t &&
          prev.live === live &&
          prev.shadowed === m.shadowed[i] &&
          prev.tombstones === tombWin[i]
        ) {
          this.splits.push(prev);
          return;
        }
        this.splits.push({
          live,
          shadowed: m.shadowed[i],
          tombstones: tombWin[i],
          refRecords: t.refs.count,
          refBytes: sb.ref,
          logBytes: sb.log,
          otherBytes: Math.max(0, t.fileSize - sb.ref - sb.log),
        });
      });
    } else if (!a.stack) {
      this.listed = analysisRefList(a);
    } else {
      const refs = analysisRefs(a);
      this.listed = {
        length: refs.length,
        name: (k) => refs[k].name,
        oid: (k) => refs[k].oid,
        nameIncludes: (k, needle) => refs[k].name.includes(bytesToKey(needle, 0, needle.length)),
      };
    }
  }

  /** Live entries of the list. */
  liveCount(): number {
    return this.liveIdx ? this.liveIdx.length : this.keyCount();
  }

  /** Entries of the list, tombstones included. */
  get totalCount(): number {
    return this.keyCount();
  }

  /**
   * The merged view behind the refs list, when it is one. Its keys stay in the tables' key
   * arenas: the session makes no string per ref (a million names would take ~50 MB and ~250 ms).
   */
  private mergedList(): NonNullable<Analysis['merged']> | null {
    return this.listed ? null : (this.analysis?.merged ?? null);
  }

  /** Entries of the refs list (tombstones included). */
  keyCount(): number {
    const m = this.mergedList();
    return m ? m.count : (this.listed?.length ?? 0);
  }

  /** Key of entry `i` of the refs list (byte string). */
  private keyOf = (i: number): string => {
    const m = this.mergedList();
    return m ? m.key(i) : this.listed!.name(i);
  };

  /** A test "entry i's key contains `needle`" (non-empty byte string), on the key bytes in place. */
  private keyIncludes(needle: string): (i: number) => boolean {
    const m = this.mergedList();
    const tables = this.analysis?.stack?.tables;
    if (!m || !tables) {
      const l = this.listed;
      const nb = keyToBytes(needle);
      return (i) => !!l && l.nameIncludes(i, nb);
    }
    const nb = keyToBytes(needle);
    const nl = nb.length,
      first = nb[0];
    return (i) => {
      const r = tables[m.table[i]]!.refs;
      const rec = m.rec[i];
      const kb = r.keyBytes;
      const last = r.keyStart[rec + 1] - nl;
      outer: for (let p = r.keyStart[rec]; p <= last; p++) {
        if (kb[p] !== first) continue;
        for (let j = 1; j < nl; j++) if (kb[p + j] !== nb[j]) continue outer;
        return true;
      }
      return false;
    };
  }

  private select(filter: string, mode: 'prefix' | 'substring', includeTombstones: boolean): Selection {
    const cacheKey = `${mode}\u0000${includeTombstones ? 1 : 0}\u0000${filter}`;
    const hit = this.cache.get(cacheKey);
    if (hit) {
      // Keep recently used selections last (a tiny LRU).
      this.cache.delete(cacheKey);
      this.cache.set(cacheKey, hit);
      return hit;
    }
    const base = includeTombstones ? null : this.liveIdx;
    const n = base ? base.length : this.keyCount();
    const key = textToKey(filter);
    let sel: Selection;
    if (!key) sel = { base, from: 0, to: n };
    else if (mode === 'prefix') {
      const from = lowerBoundIdx(this.keyOf, base, key, 0, n);
      const endKey = prefixEnd(key);
      const to = endKey === null ? n : lowerBoundIdx(this.keyOf, base, endKey, from, n);
      sel = { base, from, to };
    } else {
      const out = new Int32Array(Math.min(n, 1 << 16));
      let list = out;
      let c = 0;
      const has = this.keyIncludes(key);
      for (let p = 0; p < n; p++) {
        const i = base ? base.at(p) : p;
        if (has(i)) {
          if (c === list.length) {
            const bigger = new Int32Array(Math.min(n, list.length * 2));
            bigger.set(list);
            list = bigger;
          }
          list[c++] = i;
        }
      }
      sel = { list: list.subarray(0, c) };
    }
    this.cache.set(cacheKey, sel);
    // Free what paging no longer needs: at most 8 selections, and the long lists a substring
    // filter makes (4 bytes a match) within `SELECTION_BYTES`, the newest kept.
    const bytes = () => [...this.cache.values()].reduce((s, x) => s + ('list' in x ? x.list.byteLength : 0), 0);
    while (this.cache.size > 8 || (this.cache.size > 1 && bytes() > SELECTION_BYTES))
      this.cache.delete(this.cache.keys().next().value!);
    return sel;
  }

  /** Bytes the list holds beyond the analysis: the live map and the kept selections. */
  heldBytes(): number {
    let n = this.liveIdx?.heldBytes ?? 0;
    for (const x of this.cache.values()) if ('list' in x) n += x.list.byteLength;
    return n;
  }

  /** One page of the refs list (merged view, byte order), filtered. */
  refsPage(q: RefsQuery): RefsPage {
    const sel = this.select(q.filter, q.mode, q.includeTombstones);
    const total = 'list' in sel ? sel.list.length : sel.to - sel.from;
    const offset = Math.max(0, Math.min(q.offset | 0, total));
    const limit = Math.max(0, Math.min(q.limit | 0, 5000, total - offset));
    const rows: RefRow[] = [];
    for (let r = offset; r < offset + limit; r++) {
      const i = 'list' in sel ? sel.list[r] : sel.base ? sel.base.at(sel.from + r) : sel.from + r;
      rows.push(this.row(i, r));
    }
    const page: RefsPage = { total, offset, rows };
    if (q.mode === 'prefix' && q.filter && this.mergedList()) page.prefixStats = this.prefixStats(q.filter);
    return page;
  }

  /**
   * Ref records, tombstones and live refs under a name prefix (see `RefsPage.prefixStats`): per
   * table, a binary search for the prefix's range of its sorted keys, then the tombstones in it.
   */
  prefixStats(filter: string): NonNullable<RefsPage['prefixStats']> {
    const key = textToKey(filter) ?? '';
    const end = prefixEnd(key);
    let records = 0,
      tombstones = 0;
    for (const t of this.analysis?.stack?.tables ?? []) {
      if (!t) continue;
      const r = t.refs;
      const name = (i: number) => r.name(i);
      const from = lowerBoundIdx(name, null, key, 0, r.count);
      const to = end === null ? r.count : lowerBoundIdx(name, null, end, from, r.count);
      records += to - from;
      for (let i = from; i < to; i++) if (r.types[i] === 0) tombstones++;
    }
    const live = this.select(filter, 'prefix', false);
    return {
      prefix: filter,
      records,
      tombstones,
      live: 'list' in live ? live.list.length : live.to - live.from,
    };
  }

  private row(i: number, index: number): RefRow {
    const a = this.analysis!;
    if (this.listed) {
      const l = this.listed;
      return {
        index,
        name: displayName(l.name(i)),
        oid: l.oid(i),
        kind: 'ref',
        table: -1,
        source: a.input.kind === 'packed-refs' ? 'packed-refs' : 'files backend',
        updateIndex: -1,
        block: -1,
        blockRecord: -1,
      };
    }
    const m = a.merged!;
    const tables = a.stack!.tables;
    const ti = m.table[i];
    const t = tables[ti]!;
    const rec = m.rec[i];
    const type = t.refs.types[rec];
    if (t.refs instanceof LazyRefColumns) {
      // Values from the table's bytes: one block read (or a cached one) per row shown.
      const v = t.refs.value(rec);
      const row: RefRow = {
        index,
        name: displayName(m.key(i)),
        oid: v.oid,
        kind: type === 0 ? 'tombstone' : type === 3 ? 'symref' : type === 2 ? 'peeled' : 'ref',
        table: ti,
        source: t.name,
        updateIndex: v.updateIndex,
        block: v.block,
        blockRecord: v.blockRecord,
      };
      if (type === 3) {
        row.target = displayName(t.refs.targets.get(rec) ?? '');
        // resolveEntry reads a lazy table's value through its columns' `oidHex` (no column built).
        row.oid = resolveEntry(tables, m, i) ?? '';
      }
      if (type === 2 && v.peeled) row.peeled = v.peeled;
      return row;
    }
    const hs = t.header.hashSize;
    const row: RefRow = {
      index,
      name: displayName(m.key(i)),
      oid: '',
      kind: 'ref',
      table: ti,
      source: t.name,
      updateIndex: t.refs.updateIndex[rec],
      block: t.refs.block[rec],
      blockRecord: rec - firstOfBlock(t.refs.block, rec),
    };
    if (type === 0) row.kind = 'tombstone';
    else if (type === 3) {
      row.kind = 'symref';
      row.target = displayName(t.refs.targets.get(rec) ?? '');
      row.oid = resolveEntry(tables, m, i) ?? '';
    } else {
      row.oid = toHex(t.refs.oids, rec * hs, (rec + 1) * hs);
      if (type === 2) {
        row.kind = 'peeled';
        const p = t.refs.peeled.get(rec);
        if (p) row.peeled = toHex(p);
      }
    }
    return row;
  }

  private table(i: number): Table | null {
    return this.analysis?.stack?.tables[i] ?? null;
  }

  /** The layout of table `i` (report order): sections and blocks. */
  tableBlocks(i: number): TableLayout | null {
    const a = this.analysis;
    const s = a?.stack;
    if (!s || i < 0 || i >= s.names.length) return null;
    const t = s.tables[i];
    if (!t) {
      const b = s.broken.find((x) => x.name === s.names[i]);
      if (b?.partial?.header) return partialLayout(i, b.partial, b.error);
      return {
        index: i,
        name: s.names[i],
        path: b?.path ?? s.names[i],
        fileSize: b?.fileSize ?? 0,
        header: null,
        footer: null,
        sections: [],
        blocks: [],
        error: b ? { file: b.error.file, offset: b.error.offset, expected: b.error.expected } : null,
      };
    }
    const h = t.header;
    const firstType = t.source.read(h.headerSize, 1)[0] ?? 0;
    const sections: TableLayout['sections'] = [{ name: 'header', start: 0, end: h.headerSize }];
    for (const r of sectionRanges(h, t.footer, t.fileSize, firstType)) {
      sections.push({ name: r.name, start: r.start === 0 ? h.headerSize : r.start, end: r.end });
    }
    sections.push({ name: 'footer', start: t.fileSize - h.footerSize, end: t.fileSize });
    return {
      index: i,
      name: t.name,
      path: t.path,
      fileSize: t.fileSize,
      header: { ...h },
      footer: { ...t.footer },
      sections,
      blocks: t.blocks.map((b, k) => blockSummary(t, b, k)),
      error: null,
    };
  }

  /**
   * Block `b` of table `i` decoded for the hex view; null if out of range. For a table git cannot
   * open, the blocks that parse before its first bad byte (`openPartial`).
   */
  blockDetail(i: number, b: number): BlockDetail | null {
    const t = this.table(i) ?? this.partial(i);
    if (!t || b < 0 || b >= t.blocks.length) return null;
    return decodeBlockDetail(t, b, i);
  }

  /** The readable part of broken table `i`, when its header parses. */
  private partial(i: number): BlockSourceTable | null {
    const s = this.analysis?.stack;
    if (!s || i < 0 || i >= s.names.length || s.tables[i]) return null;
    const p = s.broken.find((x) => x.name === s.names[i])?.partial;
    return p?.header ? { name: p.name, blocks: p.blocks, source: p.source, header: p.header } : null;
  }
}

/** A block as the table view lists it. */
function blockSummary(t: Table | null, b: BlockInfo, k: number): BlockSummary {
  return {
    index: k,
    ...blockReport(b),
    firstKey: keyDisplay(t, b.firstKey, b.section),
    lastKey: keyDisplay(t, b.lastKey, b.section),
  };
}

/**
 * The layout of a table git cannot open, from what parses of it (`openPartial`): the header, the
 * blocks before the first bad byte grouped into sections by their own types (the footer is not
 * trusted), and the rest of the file as `unread`.
 */
function partialLayout(index: number, p: PartialTable, error: FormatError): TableLayout {
  const h = p.header!;
  const sections: TableLayout['sections'] = [{ name: 'header', start: 0, end: h.headerSize }];
  let upTo = h.headerSize;
  for (const b of p.blocks) {
    const start = Math.max(b.offset, h.headerSize);
    const end = b.offset + b.fileBytes;
    const last = sections[sections.length - 1];
    if (last.name === b.section && last.end === start) last.end = end;
    else sections.push({ name: b.section, start, end });
    upTo = end;
  }
  if (upTo < p.fileSize) sections.push({ name: 'unread', start: upTo, end: p.fileSize });
  return {
    index,
    name: p.name,
    path: p.path,
    fileSize: p.fileSize,
    header: { ...h },
    footer: null,
    sections,
    blocks: p.blocks.map((b, k) => blockSummary(null, b, k)),
    error: { file: error.file, offset: error.offset, expected: error.expected },
    readable: { upTo, stop: p.stop ? { offset: p.stop.offset, expected: p.stop.expected } : null },
  };
}

/** First record index holding the same block as record `rec` (`blocks` is non-decreasing). */
function firstOfBlock(blocks: Uint32Array, rec: number): number {
  const want = blocks[rec];
  let lo = 0,
    hi = rec;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (blocks[m] < want) lo = m + 1;
    else hi = m;
  }
  return lo;
}
