/**
 * session/columns: the ref columns of a large input without their value columns. A table of ten
 * million refs keeps, per ref, its key bytes, key start, type and prefix length (about 35 bytes a
 * ref of a forge's names), not its object id, peeled id, update index and block (33 bytes more):
 * those stay in the table's own bytes — the dropped file, read in slices — and are decoded on
 * demand, a block at a time (seek.ts `readRefRecord`, which keeps the last blocks read), for the
 * rows a view shows. A view that needs every value (the simulator, compaction, comparison, share
 * links) asks for a column and gets it: the table is read once more with the value columns
 * (`openTable` with `ids`), and they are kept until `release`.
 *
 * The columns of a table opened with `ids: false` are empty arrays (table.ts `OpenOptions.ids`):
 * `LazyRefColumns` stands in for them so that every existing reader of `Table.refs` keeps working.
 */
import { FormatError, toHex } from '../basics.ts';
import { openTable, type RefColumns, type Table } from '../reftable/table.ts';
import { readRefRecord } from '../reftable/seek.ts';

/** The value of one ref record, decoded from its block. */
export interface RecordValue {
  updateIndex: number;
  /** Object id (hex), '' for a tombstone or a symref. */
  oid: string;
  /** Peeled id (hex) of an annotated tag, or undefined. */
  peeled?: string;
  /** Index of the block (in `Table.blocks`) holding the record, and the record's ordinal in it. */
  block: number;
  blockRecord: number;
}

/** Work counted by the lazy columns (tests count it instead of timing it). */
export interface LazyCounters {
  /** Records whose value was decoded from the table's bytes for a view. */
  valuesDecoded: number;
  /** Tables whose value columns were built (the table read once more). */
  materialized: number;
}

export class LazyRefColumns implements RefColumns {
  private full: RefColumns | null = null;
  /** Per ref block (file order): its index in `Table.blocks` and its first record. */
  private readonly blockAt: Uint32Array;
  private readonly firstRec: Uint32Array;

  constructor(
    private readonly t: Table,
    private readonly base: RefColumns,
    private readonly counters: LazyCounters,
  ) {
    let n = 0;
    for (const b of t.blocks) if (b.type === 'ref') n++;
    this.blockAt = new Uint32Array(n);
    this.firstRec = new Uint32Array(n + 1);
    let k = 0,
      rec = 0;
    t.blocks.forEach((b, i) => {
      if (b.type !== 'ref') return;
      this.blockAt[k] = i;
      this.firstRec[k++] = rec;
      rec += b.recordCount;
    });
    this.firstRec[k] = rec;
  }

  get count(): number {
    return this.base.count;
  }
  get keyBytes(): Uint8Array {
    return this.base.keyBytes;
  }
  get keyStart(): Uint32Array {
    return this.base.keyStart;
  }
  get types(): Uint8Array {
    return this.base.types;
  }
  get targets(): Map<number, string> {
    return this.base.targets;
  }
  get lcp(): Uint8Array | undefined {
    return this.base.lcp;
  }
  name(i: number): string {
    return this.base.name(i);
  }
  get names(): string[] {
    return this.base.names;
  }
  get updateIndex(): Float64Array {
    return this.materialize().updateIndex;
  }
  get oids(): Uint8Array {
    return this.materialize().oids;
  }
  get peeled(): Map<number, Uint8Array> {
    return this.materialize().peeled;
  }
  get block(): Uint32Array {
    return this.materialize().block;
  }

  /** True while the value columns are not held (values come from the table's bytes). */
  get lazy(): boolean {
    return this.full === null;
  }

  /** Bytes the value columns hold now (0 while lazy). */
  get valueBytes(): number {
    const f = this.full;
    return f ? f.oids.byteLength + f.updateIndex.byteLength + f.block.byteLength + f.peeled.size * 20 : 0;
  }

  /** Drop the value columns (the next use builds them again). */
  release(): void {
    this.full = null;
  }

  private materialize(): RefColumns {
    if (this.full) return this.full;
    const t = this.t;
    const again = openTable({ path: t.path, source: t.source }, { logs: false, ids: true });
    const r = again.refs;
    if (r.count !== this.base.count || r.keyBytes.length !== this.base.keyBytes.length)
      throw new FormatError(
        t.path,
        -1,
        `the same ${this.base.count} ref records when read again (found ${r.count}: the file changed since it was dropped?)`,
      );
    this.counters.materialized++;
    this.full = r;
    return r;
  }

  /** The object id of record `rec` (hex; '' for a tombstone or a symref), without building a column. */
  oidHex(rec: number): string {
    const type = this.base.types[rec];
    return type === 1 || type === 2 ? this.value(rec).oid : '';
  }

  /**
   * The block column (`block[i]`: index in `Table.blocks` of record i's block) from the block
   * list alone: no read of the table, 4 bytes a record (the simulator needs the blocks, not the
   * values). The held value columns' own when they are built.
   */
  blockColumn(): Uint32Array {
    if (this.full) return this.full.block;
    const out = new Uint32Array(this.base.count);
    const fr = this.firstRec;
    for (let k = 0; k < this.blockAt.length; k++) out.fill(this.blockAt[k], fr[k], fr[k + 1]);
    return out;
  }

  /** Block (index in `Table.blocks`) and ordinal in it of record `rec`. */
  blockOf(rec: number): { block: number; blockRecord: number } {
    const fr = this.firstRec;
    let lo = 0,
      hi = this.blockAt.length - 1;
    while (lo < hi) {
      const m = (lo + hi + 1) >>> 1;
      if (fr[m] <= rec) lo = m;
      else hi = m - 1;
    }
    return { block: this.blockAt[lo] ?? 0, blockRecord: rec - (fr[lo] ?? 0) };
  }

  /** The value of record `rec`: from the columns when they are held, else from its block. */
  value(rec: number): RecordValue {
    const t = this.t;
    const hs = t.header.hashSize;
    const type = this.base.types[rec];
    if (this.full) {
      const f = this.full;
      const blk = f.block[rec];
      let first = rec;
      while (first > 0 && f.block[first - 1] === blk) first--;
      const p = type === 2 ? f.peeled.get(rec) : undefined;
      return {
        updateIndex: f.updateIndex[rec],
        oid: type === 1 || type === 2 ? toHex(f.oids, rec * hs, (rec + 1) * hs) : '',
        peeled: p ? toHex(p) : undefined,
        block: blk,
        blockRecord: rec - first,
      };
    }
    this.counters.valuesDecoded++;
    const at = this.blockOf(rec);
    const got = readRefRecord(t, this.base.name(rec));
    if (!got || got.type !== type)
      throw new FormatError(
        t.path,
        t.blocks[at.block]?.offset ?? -1,
        `the ref record ${JSON.stringify(this.base.name(rec).slice(0, 200))} read before (the file changed since it was dropped?)`,
      );
    const v = got.value;
    return {
      updateIndex: t.header.minUpdateIndex + v.updateIndexDelta,
      oid: v.oidAt >= 0 ? toHex(got.bytes, v.oidAt, v.oidAt + hs) : '',
      peeled: v.peeledAt >= 0 ? toHex(got.bytes, v.peeledAt, v.peeledAt + hs) : undefined,
      ...at,
    };
  }
}

/**
 * Replace the columns of every table of `tables` opened without value columns by lazy ones (a
 * table named on several lines of `tables.list` is one object: wrapped once). Returns them.
 */
export function makeLazy(tables: (Table | null)[], counters: LazyCounters): LazyRefColumns[] {
  const out: LazyRefColumns[] = [];
  const seen = new Set<Table>();
  for (const t of tables) {
    if (!t || seen.has(t)) continue;
    seen.add(t);
    if (t.refs instanceof LazyRefColumns) continue;
    // Only a table whose value columns were left out (`ids: false`) and has records to value.
    if (t.refs.count === 0 || t.refs.oids.length > 0 || t.refs.updateIndex.length > 0) continue;
    const l = new LazyRefColumns(t, t.refs, counters);
    t.refs = l;
    out.push(l);
  }
  return out;
}
