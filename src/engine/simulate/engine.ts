/**
 * engine: the read and write primitives a cost model is made of, on a `SimState`, counted
 * without walking records one by one (each primitive costs a few binary searches).
 *
 * Merged-iterator semantics (git's reftable/merged.c, the mailing-list case 2):
 * - `suppress` (git ≤ 2.55): the merged iterator drops deletions inside itself, so after a seek
 *   it returns the first *live* entry at or after the key; every tombstone before it is consumed,
 *   whatever the caller's bound. A point read or a prefix scan that lands on tombstones steps
 *   over all of them up to the next live key or the end of the stack.
 * - `pass` (git 2.56+): tombstones reach the caller, which stops at its bound: a point read
 *   consumes one entry, a prefix scan the entries under the prefix plus the first one past it.
 * Per merged seek, every table is seeked (`SimTable.seek`), the iterator pulls one record from
 * each table, and each entry it produces pops (and advances past) the records of that key in
 * every table. Records decoded in table t for a consumed range [lo, q] are therefore
 * min(records ≥ lo, records in [lo, q] + 1). Blocks: one more each time the iterator crosses
 * into the next ref block, plus one if the first record is not in the block the seek ended in.
 *
 * `literal.ts` implements the same primitives by walking records one at a time; the tests check
 * that both give identical counts.
 */
import { LONG_SCAN_BLOCKS, type Counts } from './counts.ts';
import { gitAutoCompaction } from '../reftable/auto-compaction.ts';
import { SimState, rankOf, gallopParts, cmpParts, type RecValue, type NewRecords, type SimTable } from './state.ts';

export type Semantics = 'suppress' | 'pass';

/** Result of a point read. */
export interface ReadResult {
  /** The key exists as a live ref. */
  exists: boolean;
  /** Its value type (1 id, 2 peeled, 3 symref) when it exists. */
  type: number;
  /** Universe position the key landed on (a hint for later reads of nearby keys). */
  pos: number;
}

/** Result of a prefix scan. */
export interface ScanResult {
  /** Live refs found under the prefix (for a conflict check: ≥ 1 means a conflict, the scan stops at the first). */
  found: number;
  /** The first live ref under the prefix (conflict checks), if any. */
  first: string | null;
}

/** A record a transaction writes. */
export interface WriteRecord {
  key: string;
  type: 0 | 1 | 2 | 3;
  value: RecValue;
  /** Universe position of `key`, when the caller knows it. */
  pos?: number;
}

/** The primitives a model plan uses. */
export interface SimEngine {
  /**
   * A point read (git's `reftable_backend_read_ref`): seek to `key`, next. `hint`: a universe
   * position near where the key lands (only speeds up the search).
   */
  pointRead(key: string, c: Counts, sem: Semantics, hint?: number): ReadResult;
  /**
   * A prefix scan from `prefix` (seek, then next until the caller's stop): mode `conflict`
   * stops at the first live ref under the prefix (name-availability check), `list` yields every
   * live ref under it (`for-each-ref <prefix>`). `prefix` '' scans everything.
   */
  scan(prefix: string, c: Counts, sem: Semantics, mode: 'conflict' | 'list', hint?: number): ScanResult;
  /** `pointRead(a + b + c)`, for engines that can avoid building the name (dwim reads). */
  pointReadParts?(a: string, b: string, cc: string, c: Counts, sem: Semantics, hint: number): ReadResult;
  /** Universe positions where each key lands (for hints). */
  locate(keys: readonly string[]): Int32Array;
  /** A seek with no next (an iterator positioned, e.g. created for prefix ""). */
  seekOnly(key: string, c: Counts): void;
  /** Value of the live ref `key`, or null. */
  valueOf(key: string): RecValue | null;
  /** Append a transaction's table (records sorted by key). */
  append(records: WriteRecord[]): void;
  /** Compact tables [start, end] into one. */
  compact(start: number, end: number): { read: number; written: number };
  /**
   * Append a transaction's table, then (if `auto`) one auto-compaction; counts the compaction
   * into `c`. Optional: engines without it get `append` + `autoCompact`. `tx` identifies the
   * transaction (the fast engine reuses the result of the same first commit across models).
   */
  commit?(tx: object, records: WriteRecord[], c: Counts, auto: boolean, factor: number): void;
  /** Tables (oldest first) for the compaction rule. */
  tables(): readonly SimTable[];
}

/** Smallest byte string greater than every string that starts with `prefix` ('' → none). */
export function prefixEnd(prefix: string): string | null {
  let p = prefix;
  while (p.length) {
    const c = p.charCodeAt(p.length - 1);
    if (c < 0xff) return p.slice(0, -1) + String.fromCharCode(c + 1);
    p = p.slice(0, -1);
  }
  return null;
}

/** Add the seek and iteration work of one merged seek + consumption of [lo, q] (q = n: to the end). */
function countTables(state: SimState, key: string, lo: number, kin: boolean, q: number, c: Counts): void {
  const n = state.keys.length;
  c.mergedSeeks++;
  let entered = 0;
  for (const t of state.tables) {
    const N = t.count;
    const a = rankOf(t, lo);
    const exact = kin && a < N && t.pos[a] === lo;
    const sc = t.seek(a, exact, key);
    c.seeks++;
    c.indexBlocks += sc.indexBlocks;
    c.leafBlocks += sc.leafBlocks;
    c.restartProbes += sc.restartProbes;
    c.recordsDecoded += sc.records;
    if (a >= N) continue;
    const inRange = q >= n ? N - a : rankOf(t, q + 1, a) - a;
    const d = Math.min(N - a, inRange + 1);
    c.recordsDecoded += d;
    c.iterRecords += d;
    entered += t.block[a + d - 1] - t.block[a] + (sc.leaf !== t.block[a] ? 1 : 0);
  }
  c.iterBlocks += entered;
  c.longScanBlocks += Math.max(0, entered - LONG_SCAN_BLOCKS);
}

/** Count merged entries and tombstones in [lo, q] (q = n: to the end). */
function countEntries(state: SimState, lo: number, q: number, c: Counts): void {
  const end = Math.min(q + 1, state.keys.length);
  const entries = state.countPresent(lo, end);
  const live = state.countLive(lo, end);
  c.mergedEntries += entries;
  c.tombstonesSkipped += entries - live;
}

/** Counters a commit adds (append + auto-compaction). */
const COMMIT_FIELDS = ['compactions', 'compactionRecordsRead', 'compactionRecordsWritten'] as const;
/** Results of first commits, per store and transaction. */
const commitCache = new WeakMap<object, WeakMap<object, Map<string, { state: SimState; d: number[] }>>>();

/** One auto-compaction after a commit (git's geometric rule on byte sizes), counted into c. */
export function autoCompactInto(engine: SimEngine, c: Counts, factor: number): void {
  const ts = engine.tables();
  if (ts.length < 2) return;
  const g = gitAutoCompaction(
    ts.map((t) => t.fileSize),
    ts.map((t) => t.version),
    factor,
  );
  if (!g.segment) return;
  const r = engine.compact(g.segment.start, g.segment.end);
  c.compactions++;
  c.compactionRecordsRead += r.read;
  c.compactionRecordsWritten += r.written;
}

/** Fields a point read adds (for the cache). */
const READ_FIELDS = [
  'mergedSeeks',
  'seeks',
  'indexBlocks',
  'leafBlocks',
  'iterBlocks',
  'longScanBlocks',
  'restartProbes',
  'recordsDecoded',
  'iterRecords',
  'mergedEntries',
  'tombstonesSkipped',
] as const;

/** A cached point read: its counts and result. */
interface CachedRead {
  d: Float64Array;
  r: ReadResult;
}

/**
 * The counting engine over a `SimState`. Point reads of keys that are not in the universe are
 * cached per (position, semantics) until the stack changes: every such key that lands on the
 * same position costs the same, because seeks are costed by position (realseek.ts; the one
 * exception, index keys that are not record keys, turns the cache off).
 */
export class FastEngine implements SimEngine {
  private cache = new Map<number, CachedRead>();
  private cacheable = true;
  state: SimState;

  constructor(state: SimState) {
    this.state = state;
    this.changed();
  }

  private changed(): void {
    this.cache.clear();
    this.cacheable = this.state.tables.every((t) => !t.looseIndexKeys);
  }

  pointRead(key: string, c: Counts, sem: Semantics, hint = -1): ReadResult {
    const s = this.state;
    const n = s.keys.length;
    const lo = s.lower(key, hint);
    const kin = lo < n && s.keys[lo] === key;
    // Keys that are not in the universe (dwim names, directories) repeat and land on few places:
    // those reads are cached. Keys of the universe are mostly read once: not worth an entry.
    const cache = this.cacheable && !kin;
    const ck = lo * 2 + (sem === 'pass' ? 1 : 0);
    let before: Float64Array | null = null;
    if (cache) {
      const hit = this.cache.get(ck);
      if (hit) {
        const d = hit.d;
        for (let i = 0; i < READ_FIELDS.length; i++) c[READ_FIELDS[i]] += d[i];
        return hit.r;
      }
      before = new Float64Array(READ_FIELDS.length);
      for (let i = 0; i < READ_FIELDS.length; i++) before[i] = c[READ_FIELDS[i]];
    }
    const q = sem === 'suppress' ? s.nextLive(lo) : s.nextPresent(lo);
    countTables(s, key, lo, kin, q, c);
    countEntries(s, lo, q, c);
    const exists = kin && q === lo && s.winner[lo] > 0;
    const r: ReadResult = { exists, type: exists ? s.winner[lo] : 0, pos: lo };
    if (before) {
      for (let i = 0; i < READ_FIELDS.length; i++) before[i] = c[READ_FIELDS[i]] - before[i];
      this.cache.set(ck, { d: before, r });
    }
    return r;
  }

  pointReadParts(a: string, b: string, cc: string, c: Counts, sem: Semantics, hint: number): ReadResult {
    const s = this.state;
    const lo = gallopParts(s.keys, a, b, cc, hint);
    if (this.cacheable && (lo >= s.keys.length || cmpParts(s.keys[lo], a, b, cc) !== 0)) {
      const hit = this.cache.get(lo * 2 + (sem === 'pass' ? 1 : 0));
      if (hit) {
        const d = hit.d;
        for (let i = 0; i < READ_FIELDS.length; i++) c[READ_FIELDS[i]] += d[i];
        return hit.r;
      }
    }
    return this.pointRead(a + b + cc, c, sem, lo);
  }

  scan(prefix: string, c: Counts, sem: Semantics, mode: 'conflict' | 'list', hint = -1): ScanResult {
    const s = this.state;
    const n = s.keys.length;
    const lo = s.lower(prefix, hint);
    const kin = lo < n && s.keys[lo] === prefix;
    const endKey = prefixEnd(prefix);
    const b = endKey === null ? n : s.lower(endKey, lo);
    let q: number;
    let found = 0;
    let first: string | null = null;
    const nl = s.nextLive(lo);
    if (mode === 'conflict') {
      if (nl < b) {
        q = nl;
        found = 1;
        first = s.keys[nl];
      } else q = sem === 'suppress' ? nl : s.nextPresent(b);
    } else {
      found = s.countLive(lo, b);
      if (found) first = s.keys[nl];
      q = sem === 'suppress' ? s.nextLive(b) : s.nextPresent(b);
      c.refsListed += found;
    }
    countTables(s, prefix, lo, kin, q, c);
    countEntries(s, lo, q, c);
    return { found, first };
  }

  locate(keys: readonly string[]): Int32Array {
    const s = this.state;
    const known = s.store.namePos;
    if (keys.every((k) => known.has(k))) return Int32Array.from(keys, (k) => known.get(k)!);
    const order = keys.map((_, i) => i).sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0));
    const out = new Int32Array(keys.length);
    let h = -1;
    for (const i of order) {
      h = s.lower(keys[i], h);
      out[i] = h;
    }
    return out;
  }

  seekOnly(key: string, c: Counts): void {
    const s = this.state;
    const n = s.keys.length;
    const lo = s.lower(key);
    const kin = lo < n && s.keys[lo] === key;
    // Only the initial pull of one record per table.
    c.mergedSeeks++;
    let entered = 0;
    for (const t of s.tables) {
      const N = t.count;
      const a = rankOf(t, lo);
      const sc = t.seek(a, kin && a < N && t.pos[a] === lo, key);
      c.seeks++;
      c.indexBlocks += sc.indexBlocks;
      c.leafBlocks += sc.leafBlocks;
      c.restartProbes += sc.restartProbes;
      c.recordsDecoded += sc.records;
      if (a < N) {
        c.recordsDecoded += 1;
        c.iterRecords += 1;
        entered += sc.leaf !== t.block[a] ? 1 : 0;
      }
    }
    c.iterBlocks += entered;
    c.longScanBlocks += Math.max(0, entered - LONG_SCAN_BLOCKS);
  }

  valueOf(key: string): RecValue | null {
    const s = this.state;
    const p = s.lower(key);
    if (p >= s.keys.length || s.keys[p] !== key || s.winner[p] <= 0) return null;
    return s.valueAt(p);
  }

  append(records: WriteRecord[]): void {
    const s = this.state;
    const rec: NewRecords = { pos: new Int32Array(records.length), types: new Uint8Array(records.length), values: [] };
    let h = -1;
    records.forEach((r, i) => {
      const p = r.pos !== undefined && s.keys[r.pos] === r.key ? r.pos : s.lower(r.key, h);
      h = p;
      if (p >= s.keys.length || s.keys[p] !== r.key)
        throw new Error(`simulator: key ${JSON.stringify(r.key)} missing from the universe`);
      rec.pos[i] = p;
      rec.types[i] = r.type;
      rec.values.push(r.value);
    });
    s.append(rec);
    this.changed();
  }

  compact(start: number, end: number): { read: number; written: number } {
    const r = this.state.compact(start, end);
    this.changed();
    return r;
  }

  commit(tx: object, records: WriteRecord[], c: Counts, auto: boolean, factor: number): void {
    const s = this.state;
    if (!s.pristine) {
      this.append(records);
      if (auto) autoCompactInto(this, c, factor);
      return;
    }
    // Every model's first commit starts from the store's unchanged stack: compute it once.
    let byTx = commitCache.get(s.store);
    if (!byTx) {
      byTx = new WeakMap();
      commitCache.set(s.store, byTx);
    }
    let m = byTx.get(tx);
    if (!m) {
      m = new Map();
      byTx.set(tx, m);
    }
    const key = `${auto}:${factor}:${records.length}`;
    const hit = m.get(key);
    if (hit) {
      for (let i = 0; i < COMMIT_FIELDS.length; i++) c[COMMIT_FIELDS[i]] += hit.d[i];
      this.state = hit.state.clone();
      this.changed();
      return;
    }
    const before = COMMIT_FIELDS.map((f) => c[f]);
    this.append(records);
    if (auto) autoCompactInto(this, c, factor);
    m.set(key, { state: this.state.clone(), d: COMMIT_FIELDS.map((f, i) => c[f] - before[i]) });
  }

  tables(): readonly SimTable[] {
    return this.state.tables;
  }
}
