/**
 * stack: `tables.list`, the tables it names, and the merged view git sees.
 *
 * Rules (spec "Stack" / "Update transactions", git's reftable/merged.c behaviour):
 * tables are listed oldest first; for each key the record of the newest table that has the key
 * wins; a winning deletion (tombstone) hides every older record of that key. Tables not listed
 * are garbage (reported as a warning, not read).
 */
import { type InputFile, FormatError, BudgetError, Budget, type Finding, readAll } from './basics.ts';
import { type Table, openTable, type OpenOptions } from './table.ts';

/** A table that could not be parsed: the rest of the stack is still analysed. */
export interface BrokenTable {
  name: string;
  path: string;
  fileSize: number;
  error: FormatError;
}

/** A loaded stack: the tables in `tables.list` order (oldest first). */
export interface Stack {
  /** Path of `tables.list`, or '' for a lone table. */
  listPath: string;
  /** Names as listed. */
  names: string[];
  /** Parsed tables, same order as `names`; a broken one is `null` (see `broken`). */
  tables: (Table | null)[];
  broken: BrokenTable[];
  findings: Finding[];
}

const SAFE_NAME = /^[^/\\]+$/;

/**
 * Parse `tables.list`: one table file name per line (LF-terminated). Throws `FormatError` for an
 * unsafe name (containing `/`, `\\` or equal to `.`/`..`), an empty line or a missing final newline.
 */
export function parseTablesList(path: string, bytes: Uint8Array): string[] {
  return parseTablesListAt(path, bytes).names;
}

const utf8 = new TextDecoder();
/** `parseTablesList` with the byte offset of each line (for errors and warnings about a name). */
function parseTablesListAt(path: string, bytes: Uint8Array): { names: string[]; offsets: number[] } {
  const names: string[] = [];
  const offsets: number[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0x0a) continue;
    const name = utf8.decode(bytes.subarray(start, i));
    if (!name) throw new FormatError(path, start, 'a table file name on every line, found an empty line');
    if (!SAFE_NAME.test(name) || name === '.' || name === '..') {
      throw new FormatError(path, start, `a plain file name (no '/', no '..'), found ${JSON.stringify(name)}`);
    }
    names.push(name);
    offsets.push(start);
    start = i + 1;
  }
  if (start !== bytes.length) throw new FormatError(path, start, 'a newline at the end of the last line');
  return { names, offsets };
}

/**
 * Load a stack. `list` is the `tables.list` file (or null for a set of lone `.ref` files, taken in
 * update-index order); `files` maps a file name to its input. Tables named but missing and tables
 * that fail to parse are reported in `broken`; `.ref` files present but not listed are warnings.
 */
export function loadStack(list: InputFile | null, refFiles: InputFile[], opts: OpenOptions = {}): Stack {
  const byName = new Map(refFiles.map((f) => [f.path.split('/').pop()!, f]));
  const findings: Finding[] = [];
  // One budget for every table of the stack (see OpenOptions.deadline / maxRecords).
  const budget = opts.budget ?? new Budget(opts.deadline, opts.maxRecords);
  let names: string[];
  let lineAt: number[] = [];
  if (list) {
    ({ names, offsets: lineAt } = parseTablesListAt(list.path, readAll(list.source)));
    const listed = new Set<string>();
    names.forEach((n, i) => {
      if (listed.has(n)) findings.push({ severity: 'warning', file: list.path, offset: lineAt[i], message: `table ${JSON.stringify(n)} is listed twice` });
      listed.add(n);
    });
    for (const n of byName.keys()) {
      if (!listed.has(n) && n.endsWith('.ref')) {
        findings.push({ severity: 'warning', file: byName.get(n)!.path, offset: -1, message: 'table file not listed in tables.list (garbage git would delete on the next compaction)' });
      }
    }
  } else {
    names = [...byName.keys()].filter((n) => n.endsWith('.ref')).sort();
  }
  const tables: (Table | null)[] = [];
  const broken: BrokenTable[] = [];
  let done = 0;
  names.forEach((n, i) => {
    const f = byName.get(n);
    if (!f) {
      // Only reachable with a list: lone tables are named after the files themselves.
      const e = new FormatError(list ? list.path : n, lineAt[i] ?? 0, `table file ${JSON.stringify(n)} named in tables.list to exist`);
      broken.push({ name: n, path: n, fileSize: 0, error: e });
      tables.push(null);
      return;
    }
    try {
      const base = done;
      const t = openTable(f, { ...opts, budget, onProgress: opts.onProgress ? (b) => opts.onProgress!(base + b) : undefined });
      tables.push(t);
      for (const w of t.findings) findings.push(w);
    } catch (e) {
      // A budget stop ends the whole analysis; any other format error breaks this table only.
      if (!(e instanceof FormatError) || e instanceof BudgetError) throw e;
      broken.push({ name: n, path: f.path, fileSize: f.source.size, error: e });
      tables.push(null);
    }
    done += f.source.size;
  });
  if (!list) {
    // Lone tables: order by update index, as they would be listed.
    const order = tables.map((t, i) => i).sort((a, b) => (tables[a]?.header.minUpdateIndex ?? 0) - (tables[b]?.header.minUpdateIndex ?? 0));
    names = order.map((i) => names[i]);
    const t2 = order.map((i) => tables[i]);
    for (let i = 0; i < t2.length; i++) tables[i] = t2[i];
  }
  // Update-index continuity: each table's min should be the previous max + 1; overlaps are suspect
  // (git accepts them). Records outside their own table's range are rejected by `openTable`.
  let prev: Table | null = null;
  for (const t of tables) {
    if (!t) continue;
    if (prev) {
      if (t.header.minUpdateIndex <= prev.header.maxUpdateIndex) {
        findings.push({ severity: 'warning', file: t.path, offset: 8, message: `update-index range ${t.header.minUpdateIndex}..${t.header.maxUpdateIndex} overlaps the older table ${prev.name} (${prev.header.minUpdateIndex}..${prev.header.maxUpdateIndex})` });
      }
    }
    prev = t;
  }
  return { listPath: list?.path ?? '', names, tables, broken, findings };
}

/**
 * The merged view of a stack, column-wise: entry `i` is the winning record for key `keys[i]`,
 * from table `table[i]` (index into `Stack.tables`) at record `rec[i]` of that table.
 * Includes winning tombstones (so callers can show them); `live` counts the others.
 */
export interface MergedView {
  count: number;
  /** All keys as byte strings (materialised on first access; prefer `key(i)` or `find`). */
  readonly keys: string[];
  /** Key of entry `i` as a byte string. */
  key(i: number): string;
  /** Index of the entry whose key is `name` (byte string), or -1. */
  find(name: string): number;
  /** Index of the first entry with key ≥ `name` (byte string). */
  lowerBound(name: string): number;
  table: Uint16Array;
  rec: Uint32Array;
  /** Number of live refs (winners that are not tombstones). */
  live: number;
  /** Winning tombstones. */
  tombstones: number;
  /** Winning tombstones that hide at least one older record. */
  tombstonesHiding: number;
  /** Per table: records that lose to a newer table's record of the same key. */
  shadowed: number[];
  /** Per table: records that are the winner (live or tombstone). */
  winners: number[];
  /** Per table: its records that are shadowed *by a tombstone* (hidden refs). */
  hiddenByTombstone: number[];
  /** Per table: its winning tombstones that hide at least one older record. */
  tombstonesHidingBy: number[];
}

/**
 * Merge the tables (oldest first; `null` entries skipped) into the view git sees.
 * Cost: O(N log k) comparisons of byte strings for N records in k tables; a single table is a copy.
 */
export function mergeTables(tables: (Table | null)[]): MergedView {
  const k = tables.length;
  const shadowed = new Array(k).fill(0);
  const winners = new Array(k).fill(0);
  const hiddenByTombstone = new Array(k).fill(0);
  const tombstonesHidingBy = new Array(k).fill(0);
  const live = tables.filter((t) => t && t.refs.count > 0).length;
  let total = 0;
  for (const t of tables) if (t) total += t.refs.count;
  const tab = new Uint16Array(total);
  const rec = new Uint32Array(total);
  let n = 0, nLive = 0, nTomb = 0, nHiding = 0;
  if (live <= 1) {
    const ti = tables.findIndex((t) => t && t.refs.count > 0);
    if (ti >= 0) {
      const r = tables[ti]!.refs;
      const types = r.types;
      for (let i = 0; i < r.count; i++) {
        tab[i] = ti;
        rec[i] = i;
        if (types[i] === 0) nTomb++;
      }
      n = r.count;
      winners[ti] = n;
      nLive = n - nTomb;
    }
  } else {
    // k-way merge with a binary heap of table indexes ordered by (current key, newer table first).
    // Keys are compared as bytes in each table's key arena: no strings are made.
    const pos = new Array(k).fill(0);
    const kbs = tables.map((t) => t?.refs.keyBytes ?? new Uint8Array(0));
    const kss = tables.map((t) => t?.refs.keyStart ?? new Uint32Array(1));
    const cmp = (a: number, ia: number, b: number, ib: number): number => {
      const ka = kbs[a], kb = kbs[b];
      let pa = kss[a][ia];
      const ea = kss[a][ia + 1];
      let pb = kss[b][ib];
      const eb = kss[b][ib + 1];
      while (pa < ea && pb < eb) {
        const d = ka[pa++] - kb[pb++];
        if (d !== 0) return d;
      }
      return (ea - pa) - (eb - pb);
    };
    const heap: number[] = [];
    const less = (a: number, b: number): boolean => {
      const c = cmp(a, pos[a], b, pos[b]);
      return c < 0 || (c === 0 && a > b);
    };
    const up = (i: number) => {
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!less(heap[i], heap[p])) break;
        [heap[i], heap[p]] = [heap[p], heap[i]];
        i = p;
      }
    };
    const down = (i: number) => {
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < heap.length && less(heap[l], heap[m])) m = l;
        if (r < heap.length && less(heap[r], heap[m])) m = r;
        if (m === i) return;
        [heap[i], heap[m]] = [heap[m], heap[i]];
        i = m;
      }
    };
    for (let t = 0; t < k; t++) if (tables[t] && tables[t]!.refs.count > 0) { heap.push(t); up(heap.length - 1); }
    while (heap.length) {
      const w = heap[0];
      const wr = tables[w]!.refs;
      const wi = pos[w];
      const isTomb = wr.types[wi] === 0;
      tab[n] = w; rec[n] = wi; n++;
      winners[w]++;
      if (isTomb) nTomb++; else nLive++;
      let hid = false;
      // Advance the winner, then pop every older table positioned on the same key.
      for (;;) {
        const t = heap[0];
        pos[t]++;
        if (pos[t] >= tables[t]!.refs.count) {
          const last = heap.pop()!;
          if (heap.length) { heap[0] = last; down(0); }
        } else down(0);
        if (!heap.length) break;
        const h = heap[0];
        if (cmp(h, pos[h], w, wi) !== 0) break;
        shadowed[h]++;
        if (isTomb) { hid = true; hiddenByTombstone[h]++; }
      }
      if (hid) { nHiding++; tombstonesHidingBy[w]++; }
    }
  }
  return new Merged(tables, n, tab.subarray(0, n), rec.subarray(0, n), nLive, nTomb, nHiding, shadowed, winners, hiddenByTombstone, tombstonesHidingBy);
}

/** `MergedView` implementation: keys are read from the tables' key arenas on demand. */
class Merged implements MergedView {
  private cache: string[] | null = null;
  constructor(
    private readonly tables: (Table | null)[], readonly count: number, readonly table: Uint16Array, readonly rec: Uint32Array,
    readonly live: number, readonly tombstones: number, readonly tombstonesHiding: number, readonly shadowed: number[],
    readonly winners: number[], readonly hiddenByTombstone: number[], readonly tombstonesHidingBy: number[],
  ) {}
  key(i: number): string {
    return this.cache ? this.cache[i] : this.tables[this.table[i]]!.refs.name(this.rec[i]);
  }
  get keys(): string[] {
    if (!this.cache) {
      const out = new Array<string>(this.count);
      for (let i = 0; i < this.count; i++) out[i] = this.tables[this.table[i]]!.refs.name(this.rec[i]);
      this.cache = out;
    }
    return this.cache;
  }
  /** Compare entry i's key bytes with byte string `s`. */
  private cmpStr(i: number, s: string): number {
    const r = this.tables[this.table[i]]!.refs;
    const kb = r.keyBytes;
    const st = r.keyStart[this.rec[i]], en = r.keyStart[this.rec[i] + 1];
    const n = Math.min(en - st, s.length);
    for (let j = 0; j < n; j++) {
      const d = kb[st + j] - s.charCodeAt(j);
      if (d !== 0) return d;
    }
    return en - st - s.length;
  }
  lowerBound(name: string): number {
    let lo = 0, hi = this.count;
    while (lo < hi) {
      const m = (lo + hi) >>> 1;
      if (this.cmpStr(m, name) < 0) lo = m + 1; else hi = m;
    }
    return lo;
  }
  find(name: string): number {
    const i = this.lowerBound(name);
    return i < this.count && this.cmpStr(i, name) === 0 ? i : -1;
  }
}

/** Binary search: index of the first merged entry with key ≥ `key`. */
export function lowerBound(keys: string[], key: string, lo = 0, hi = keys.length): number {
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (keys[m] < key) lo = m + 1; else hi = m;
  }
  return lo;
}
