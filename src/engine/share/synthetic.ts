/**
 * share/synthetic: a stack of the shared shape — the synthetic key layout (`shapePlan`, shared
 * with the repro script of export.ts) and the tables written with `writeTable` (`syntheticStack`).
 */
import { memorySource, type InputFile } from '../basics.ts';
import { writeTable, tableFileName, type RefRecordIn, type LogRecordIn } from '../reftable/writer.ts';
import { keySuffixBytes } from './build.ts';
import {
  MAX_BROWSER_SYNTHETIC_RECORDS,
  MAX_SYNTHETIC_RECORDS,
  MAX_SYNTHETIC_UNREADABLE_BYTES,
  ShareLinkError,
  damaged,
  fmt,
} from './limits.ts';
import { type RefKind, type ShareNsRecords, type SharePayload, type ShareTable, shareFigures } from './payload.ts';
import { checkPayload } from './validate.ts';

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
    throw new ShareLinkError(
      'too-large',
      `the shared stack has ${fmt(f.refRecords + f.logRecords)} records, more than the ${fmt(MAX_SYNTHETIC_RECORDS)} a synthetic stack is built for`,
      p.version,
    );
  }
  checkPayload(p);
  // per (table, ns): winners by kind, hiding count
  const recs = new Map<string, ShareNsRecords>();
  for (const e of p.nsRecords) recs.set(`${e.table}:${e.ns}:${e.kind}`, e);
  const win = (t: number, ns: number, kind: RefKind) => recs.get(`${t}:${ns}:${kind}`)?.winners ?? 0;
  const hidingOf = new Map<string, number>();
  for (const h of p.hiding) hidingOf.set(`${h.table}:${h.ns}`, h.count);
  // owned id blocks
  interface Owned {
    start: number;
    H: number;
    T: number;
    L: number;
    byKind: [number, number, number, number];
    dangling: number;
  }
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
      owned.set(`${t}:${ns}`, {
        start: keysPerNs[ns],
        H,
        T: byKind[0],
        L: byKind[1] + byKind[2] + byKind[3],
        byKind,
        dangling,
      });
      ownerRanges[ns].push({ ns, start: keysPerNs[ns], end: keysPerNs[ns] + total, owner: t });
      keysPerNs[ns] += total;
    }
  }
  // segments per table
  const segs: { ns: number; start: number; count: number; kind: RefKind; owner: number; dangling?: boolean }[][] =
    p.tables.map(() => []);
  for (const [key, o] of owned) {
    const [t, ns] = key.split(':').map(Number);
    let id = o.start;
    const kinds: RefKind[] = [0, 1, 2, 3];
    for (const kind of kinds) {
      if (kind === 3 && o.dangling) {
        segs[t].push({ ns, start: id, count: o.dangling, kind, owner: t, dangling: true });
        if (o.byKind[3] > o.dangling)
          segs[t].push({ ns, start: id + o.dangling, count: o.byKind[3] - o.dangling, kind, owner: t });
      } else if (o.byKind[kind]) segs[t].push({ ns, start: id, count: o.byKind[kind], kind, owner: t });
      id += o.byKind[kind];
    }
  }
  // borrowed keys, round-robin per (newer, ns), nearest older table first
  const ptrH = new Map<string, number>();
  const ptrL = new Map<string, number>();
  const borrowed: { ns: number; start: number; count: number; owner: number }[][] = p.tables.map(() => []);
  const ovs = p.overlaps.slice().sort((x, y) => x.newer - y.newer || x.ns - y.ns || y.older - x.older);
  const take = (
    list: { ns: number; start: number; count: number; owner: number }[],
    ns: number,
    base: number,
    size: number,
    ptr: Map<string, number>,
    key: string,
    count: number,
    owner: number,
  ) => {
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
    if (o.count - o.tombstones)
      take(borrowed[o.older], o.ns, ow.start + ow.T, ow.L, ptrL, key, o.count - o.tombstones, o.newer);
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
      let kind: number;
      const nextKind = () => {
        const order = [1, 2, 3, 0];
        for (const k of order) if (need[k] > 0) return k;
        return -1;
      };
      for (const b of list) {
        let start = b.start,
          left = b.count;
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
    for (const s of segs[t])
      for (let i = 0; i < s.count; i++) out.push(synthName(p.namespaces[s.ns], s.start + i, idWidth, fill[s.owner]));
    return out.sort();
  };
  for (let t = n - 1; t >= 0; t--) {
    const tab = p.tables[t];
    if (tab.unreadable || !segs[t].length) continue;
    const base = keySuffixBytes(
      planNames(
        t,
        fillerOf.map((v, i) => (i === t ? 0 : v)),
      ),
      tab.restartInterval,
    );
    let own = 0;
    for (const s of segs[t]) if (s.owner === t && p.namespaces[s.ns] !== '(root)') own += s.count;
    if (!own) continue;
    const fill = Math.round((tab.keyBytes - base) / own);
    fillerOf[t] = Math.max(0, Math.min(200, fill));
  }
  const fillers = ownerRanges.map((l) =>
    l.map((r) => ({ ns: r.ns, start: r.start, end: r.end, filler: fillerOf[r.owner] })),
  );
  const tables: PlanTable[] = p.tables.map((tab, t) => {
    const s: PlanSegment[] = segs[t]
      .map(({ ns, start, count, kind, dangling }) =>
        dangling ? { ns, start, count, kind, dangling } : { ns, start, count, kind },
      )
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
  let lo = 0,
    hi = l.length - 1;
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
    for (let i = 0; i < 5 || v > 0; i++) {
      s = LETTERS[v % 26] + s;
      v = Math.floor(v / 26);
    }
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
    out[i] = z >>> 24;
    out[i + 1] = (z >>> 16) & 0xff;
    out[i + 2] = (z >>> 8) & 0xff;
    out[i + 3] = z & 0xff;
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
    throw new ShareLinkError(
      'too-large',
      `the shared stack has ${fmt(total)} records (more than ${fmt(MAX_BROWSER_SYNTHETIC_RECORDS)}): too large to rebuild in the browser; use the repro script (refscope export <link> --format script)`,
      p.version,
    );
  }
  const unreadableBytes = p.tables.reduce((s, t) => s + (t.unreadable ? t.fileSize : 0), 0);
  if (unreadableBytes > MAX_SYNTHETIC_UNREADABLE_BYTES) {
    throw new ShareLinkError(
      'too-large',
      `the shared stack has ${fmt(unreadableBytes)} bytes of unreadable tables: too large to rebuild in the browser; use the repro script (refscope export <link> --format script)`,
      p.version,
    );
  }
  const names: string[] = [];
  const out: { name: string; bytes: Uint8Array }[] = [];
  if (p.kind !== 'reftable') {
    // files backend / packed-refs: one table with the live refs per namespace
    const live = p.liveByNs ?? [];
    const refs: RefRecordIn[] = [];
    const width = Math.max(6, String(Math.max(0, ...live)).length);
    live.forEach((c, ns) => {
      for (let i = 0; i < c; i++)
        refs.push({
          name: synthName(p.namespaces[ns], i, width, 0),
          updateIndex: 1,
          type: 1,
          value: syntheticOid(i, 20),
        });
    });
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
        if (t.fileSize > 0) {
          out.push({ name, bytes: new Uint8Array(t.fileSize) });
          names.push(name);
        } else names.push(name);
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
        else if (r.type === 2) {
          r.value = syntheticOid(oidBase + (v++ % D), hs);
          r.peeled = syntheticOid(oidBase + (v++ % D), hs);
        } else if (r.type === 3) r.target = dangling.has(r.name) ? DANGLING_TARGET : plan.symrefTarget;
      }
      oidBase += D;
      const logs = syntheticLogs(
        recs.map((r) => r.name),
        t,
        hs,
      );
      const bytes = writeTable(recs, logs, {
        hashId: t.hashId ?? 'sha1',
        blockSize: t.blockSize,
        restartInterval: t.restartInterval,
        indexObjects: !(t.refIndexLevels > 0 && t.objRecords === 0),
        minUpdateIndex: t.minUpdateIndex,
        maxUpdateIndex: t.maxUpdateIndex,
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
      logs.push(
        upd
          ? {
              name: names[ni],
              updateIndex: t.maxUpdateIndex - d,
              type: 1,
              oldId: syntheticOid(k, hs),
              newId: syntheticOid(k + 1, hs),
              committerName: 'A U Thor',
              email: 'author@example.com',
              time: 1_700_000_000 + k,
              tzOffset: 0,
              message: `update: synthetic entry ${k}`,
            }
          : { name: names[ni], updateIndex: t.maxUpdateIndex - d, type: 0 },
      );
    }
  }
  logs.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : y.updateIndex - x.updateIndex));
  return logs;
}
