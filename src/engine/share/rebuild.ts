/**
 * share/rebuild: a `Report` rebuilt from a payload with the engine's own report code, marked
 * shared (synthetic table names, approximate blocks).
 */
import { FormatError, textToKey, displayName, type Finding } from '../basics.ts';
import { type Analysis } from '../analyze.ts';
import { buildReport, GENERATOR, type Report } from '../report.ts';
import { type Stack } from '../reftable/stack.ts';
import { lowerBound, type MergedView } from '../reftable/merged.ts';
import { type Table, type SectionName, type BlockType } from '../reftable/table.ts';
import { type ClassifiedInput } from '../input.ts';
import { tableFileName } from '../reftable/writer.ts';
import { MAX_SHARED_REPORT_WINNERS, SHARED_DIAGNOSIS_PREFIX, plural, sharedWinners, tooManyWinners } from './limits.ts';
import { type SharePayload, type ShareTable, shareFigures, SECTIONS } from './payload.ts';
import { checkPayload } from './validate.ts';

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
    label: SHARED_LABEL,
    linkVersion: p.version,
    withNames: p.withNames,
    generator: p.generator,
    namespaces: p.namespaces.map((ns, i) => ({ name: displayName(ns), live: f.liveByNs[i] })),
    simulation: p.simulation,
    examples: p.examples.map(displayName),
    blocksApproximate: true,
    namesSynthetic: true,
  };
  const findings: Finding[] = [];
  if (p.findings.messages) {
    for (const m of p.findings.messages)
      findings.push({ severity: m.severity, file: '(shared)', offset: -1, message: displayName(m.message) });
  } else if (p.findings.warnings || p.findings.errors || p.findings.infos) {
    findings.push({
      severity: 'info',
      file: '(shared)',
      offset: -1,
      message: `the original report had ${plural(p.findings.errors, 'error')} and ${plural(p.findings.warnings, 'warning')}${p.findings.infos ? ` and ${plural(p.findings.infos, 'note')}` : ''}; their texts are not in the link`,
    });
  }
  const input: ClassifiedInput = {
    kind: p.kind,
    root: '',
    tablesList: null,
    tableFiles: [],
    gitFiles: [],
    description: SHARED_LABEL,
  };
  if (p.kind !== 'reftable') {
    const r: SharedReport = {
      schema: 'refscope.report/1',
      generator: GENERATOR,
      input: { kind: p.kind, description: SHARED_LABEL },
      tables: [],
      stack: null,
      findings,
      verdict: { gitReadable: true, reason: null },
      prefixes: [],
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
  // A copy (the same file on another line of tables.list) takes its first line's name, so the
  // report marks it `copyOf`, and shares its blocks: built once, whatever the number of lines.
  const blocksAt: ReturnType<typeof approximateBlocks>[] = [];
  p.tables.forEach((t, i) => {
    const copy = t.copyOf !== undefined;
    const name = copy ? names[t.copyOf!] : tableFileName(t.minUpdateIndex, t.maxUpdateIndex, i);
    names.push(name);
    if (t.unreadable) {
      tables.push(null);
      if (copy) return;
      broken.push({
        name,
        path: name,
        fileSize: t.fileSize,
        error: new FormatError(
          name,
          -1,
          'a readable table (it could not be read in the original report; the link has its size only)',
        ),
      });
      return;
    }
    const types = winKind[i];
    const ft = f.tables[i];
    const fake = {
      name,
      path: name,
      fileSize: t.fileSize,
      header: {
        version: t.version!,
        blockSize: t.blockSize,
        minUpdateIndex: t.minUpdateIndex,
        maxUpdateIndex: t.maxUpdateIndex,
        hashId: t.hashId!,
        hashSize: t.hashId === 's256' ? 32 : 20,
        headerSize: t.version === 2 ? 28 : 24,
        footerSize: t.version === 2 ? 72 : 68,
      },
      blocks: (blocksAt[i] = copy
        ? (blocksAt[t.copyOf!] ?? approximateBlocks(t, ft.refRecords))
        : approximateBlocks(t, ft.refRecords)),
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
    for (let r = 0; r < w.length; r++, k++) {
      keys[k] = nsKey[w[r]];
      rec[k] = r;
    }
  });
  const merged: MergedView = {
    count,
    keys,
    table: tab as unknown as MergedView['table'],
    rec,
    live: f.live,
    tombstones: f.tombstones,
    tombstonesHiding: f.tombstonesHiding,
    shadowed: f.tables.map((t) => t.shadowed),
    winners: f.tables.map((t) => t.winners),
    hiddenByTombstone: f.tables.map((t) => t.hiddenByTombstone),
    tombstonesHidingBy: f.tables.map((t) => t.tombstonesHiding),
    key: (i) => keys[i],
    lowerBound: (name) => lowerBound(keys, name),
    find: (name) => {
      const i = lowerBound(keys, name);
      return keys[i] === name ? i : -1;
    },
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
    for (const [k, v] of Object.entries(m.compaction)) c[k] = fitLists(v, c[k], p.tables.length);
    report.stack.compaction = c;
  }
  // A carried diagnosis is the sharer's text, not refscope's: say so (checkMeasured bounds its length).
  if (m?.diagnosis) report.diagnosis = SHARED_DIAGNOSIS_PREFIX + displayName(textToKey(m.diagnosis));
  return { ...report, input: { kind: 'reftable', description: SHARED_LABEL }, shared };
}

/** Blocks of a table reconstructed from per-section counts and bytes (evenly split). */
function approximateBlocks(t: ShareTable, refRecords: number) {
  const out: {
    offset: number;
    type: BlockType;
    section: SectionName;
    blockLen: number;
    restartCount: number;
    recordCount: number;
    padding: number;
    fileBytes: number;
    restartTableOffset: number;
    firstKey: string;
    lastKey: string;
  }[] = [];
  let offset = 0;
  const idxBlocks = t.sectionBlocks.refIndex + t.sectionBlocks.objIndex + t.sectionBlocks.logIndex;
  const recordsOf: Record<SectionName, number> = {
    ref: refRecords,
    obj: t.objRecords,
    log: t.logs + t.logDeletions,
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
      out.push({
        offset,
        type,
        section: s,
        blockLen: bytes,
        restartCount: 0,
        recordCount: recs,
        padding: 0,
        fileBytes: bytes,
        restartTableOffset: 0,
        firstKey: '',
        lastKey: '',
      });
      offset += bytes;
    }
  }
  return out;
}

/**
 * A measured field with its per-table lists (`values`, `reasons`) made one entry per table: a
 * shorter list (cut to fit the link) is completed from the rebuilt report's own field, so every
 * view and export finds an entry for every table.
 */
function fitLists(v: unknown, rebuilt: unknown, n: number): unknown {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
  const out: Record<string, unknown> = { ...(v as Record<string, unknown>) };
  const own = (rebuilt && typeof rebuilt === 'object' ? rebuilt : {}) as Record<string, unknown>;
  for (const [k, fill] of [
    ['values', 0],
    ['reasons', ''],
  ] as const) {
    const list = out[k];
    if (!Array.isArray(list) || list.length >= n) continue;
    const theirs = Array.isArray(own[k]) ? (own[k] as unknown[]) : [];
    out[k] = Array.from({ length: n }, (_, i) => (i < list.length ? list[i] : (theirs[i] ?? fill)));
  }
  return out;
}
