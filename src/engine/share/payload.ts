/**
 * share/payload: what a share link carries (plain, JSON-able data, no names unless asked for),
 * and the figures a payload implies (`shareFigures`).
 */
import { type Finding } from '../basics.ts';
import { type SectionName } from '../reftable/table.ts';
import { SHARE_SCHEMA } from './limits.ts';

/** Value types of ref records (reftable value_type): 0 tombstone, 1 ref, 2 ref + peeled, 3 symref. */
export type RefKind = 0 | 1 | 2 | 3;
export const SECTIONS: SectionName[] = ['ref', 'refIndex', 'obj', 'objIndex', 'log', 'logIndex'];

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
  /**
   * Present when tables.list names the same file on an earlier line: the index of that first
   * line's table. Every figure above equals that table's; the rebuilt report lists its blocks once.
   */
  copyOf?: number;
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
  findings: {
    warnings: number;
    errors: number;
    infos: number;
    messages: { severity: Finding['severity']; message: string }[] | null;
  };
  /** With `withNames`: example ref names (byte strings). */
  examples: string[];
  /** The sharer's simulation results in the numbers-only layout of share/simulation.ts, or null. */
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
   * The sharer's simulation results in the numbers-only layout of `simulationForShare`
   * (share/simulation.ts, `SimShare`); any other value is left out of the link.
   */
  simulation?: unknown;
}

export type NumField =
  | 'fileSize'
  | 'blockSize'
  | 'minUpdateIndex'
  | 'logs'
  | 'logDeletions'
  | 'objRecords'
  | 'indexRecords'
  | 'refIndexLevels'
  | 'restartInterval'
  | 'keyBytes'
  | 'distinctOids';
export const NUM_FIELDS: NumField[] = [
  'fileSize',
  'blockSize',
  'minUpdateIndex',
  'logs',
  'logDeletions',
  'objRecords',
  'indexRecords',
  'refIndexLevels',
  'restartInterval',
  'keyBytes',
  'distinctOids',
];

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
    records: { ref: 0, peeled: 0, symref: 0, tombstone: 0 },
    refRecords: 0,
    winners: 0,
    liveWinners: 0,
    tombstoneWinners: 0,
    shadowed: 0,
    hiddenByTombstone: 0,
    tombstonesHiding: 0,
  }));
  const liveByNs = p.liveByNs ? p.liveByNs.slice() : p.namespaces.map(() => 0);
  const KEYS = ['tombstone', 'ref', 'peeled', 'symref'] as const;
  for (const e of p.nsRecords) {
    const t = tables[e.table];
    t.records[KEYS[e.kind]] += e.records;
    t.refRecords += e.records;
    t.winners += e.winners;
    if (e.kind === 0) t.tombstoneWinners += e.winners;
    else {
      t.liveWinners += e.winners;
      if (!p.liveByNs) liveByNs[e.ns] += e.winners;
    }
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
