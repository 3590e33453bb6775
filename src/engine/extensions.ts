/**
 * Wires the optional modules into `report`: the compaction geometry (`stack.compaction`) and the
 * one-paragraph diagnosis. Kept apart so each module stays independent of the report's shape.
 */
import { registerReportExtension, type Report } from './report.ts';
import type { Analysis } from './analyze.ts';
import { registerFilesBackend } from './analyze.ts';
import { gitAutoCompaction, geometryByCount, jgitCompaction, type Segment } from './compaction.ts';
import { loadFilesRepo, filesRefs, filesRepoSection, packedRefsSection, type FilesRepo, type PackedRefsJson } from './files.ts';
import { FormatError, sizeText } from './basics.ts';
import { Simulator } from './simulate/index.ts';
import { compactAll, compactSegment, type CompactResult } from './compact.ts';

/** `stack.compaction` of the report (docs/report.md). */
export interface CompactionReport {
  /** Geometric factor used (git's `reftable.geometricFactor`, default 2). */
  factor: number;
  /** What git's auto-compaction (`git pack-refs --auto`) merges: indexes into `tables[]`, end inclusive. */
  segment: Segment | null;
  /** Net sizes git compares (file size − 91 / − 99) and why each table is in or out. */
  bySize: { values: number[]; reasons: string[] };
  /** The same rule on ref + log record counts: what lookups really pay for. */
  byRecords: { values: number[]; segment: Segment | null; reasons: string[] };
  /** The same rule on live records (winners that are not tombstones). */
  byLive: { values: number[]; segment: Segment | null };
  /** JGit's rule (Gerrit): equal ⌊log2(size − 91)⌋ groups. */
  jgit: { segment: Segment | null; reasons: string[]; error?: string };
  /** Whether the segment git picks starts at the base table, so tombstones would be dropped. */
  dropsTombstones: boolean;
  /** The stack after a real `git pack-refs` (`compactAll`: written and measured); null when skipped (`afterSkipped`). */
  afterPackRefs: AfterCompaction | null;
  /** The stack after a real `git pack-refs --auto` of `segment`; null when there is no segment or when skipped. */
  afterAuto: AfterCompaction | null;
  /** Why `afterPackRefs` / `afterAuto` were not computed (stack too large, unreadable table, git's writer would fail). */
  afterSkipped?: string;
}

/** A stack after a real compaction (docs/report.md, `stack.compaction`). */
export interface AfterCompaction {
  /** Tables in the stack afterwards (`afterPackRefs`: 1, or 0 when everything cancelled out). */
  tables: number;
  /** Total file size of the stack afterwards. */
  bytes: number;
  /** Ref + log records in the stack afterwards. */
  records: number;
  /** The compacted table alone: its file size and records (0 when git would not list it: empty). */
  newTableBytes: number;
  newTableRecords: number;
}

/** Stacks with more records than this get no `afterPackRefs` / `afterAuto` (the write costs time). */
export const AFTER_COMPACTION_MAX_RECORDS = 250_000;

/** The stack after `res`, from the report's per-table figures and the written table. */
function afterOf(res: CompactResult, sizes: number[], recs: number[]): AfterCompaction {
  const { start, end } = res.segment;
  const keep = (v: number[]): number => v.reduce((s, x, i) => (i < start || i > end ? s + x : s), 0);
  const newBytes = res.empty ? 0 : res.bytes.length;
  const newRecs = res.empty ? 0 : res.stats.refsOut + res.stats.logsOut;
  return {
    tables: res.names.length,
    bytes: keep(sizes) + newBytes,
    records: keep(recs) + newRecs,
    newTableBytes: newBytes,
    newTableRecords: newRecs,
  };
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}
function plural(n: number, one: string, many = one + 's'): string {
  return `${fmt(n)} ${n === 1 ? one : many}`;
}
const kb = sizeText;

/** Options for the extension (passed through `buildReport`). */
export interface ReportOptions {
  factor?: number;
}

function compactionReport(r: Report, a: Analysis, factor: number): CompactionReport | null {
  if (!a.stack || !a.merged) return null;
  const ok = r.tables;
  const sizes = ok.map((t) => t.fileSize);
  const versions = ok.map((t) => (t.version ?? 1) as 1 | 2);
  const git = gitAutoCompaction(sizes, versions, factor);
  const recs = ok.map((t) => t.records.ref + t.records.peeled + t.records.symref + t.records.tombstone + t.records.log + t.records.logDeletion);
  const byRec = geometryByCount(recs, factor);
  const live = liveWinners(a, ok.length);
  const byLive = geometryByCount(live, factor);
  const jg = jgitCompaction(sizes);
  let afterPackRefs: AfterCompaction | null = null;
  let afterAuto: AfterCompaction | null = null;
  let afterSkipped: string | undefined;
  const total = recs.reduce((s, x) => s + x, 0);
  if (a.stack.tables.some((t) => !t)) afterSkipped = 'a table could not be read';
  else if (total > AFTER_COMPACTION_MAX_RECORDS) afterSkipped = `more than ${fmt(AFTER_COMPACTION_MAX_RECORDS)} records`;
  else if (ok.length > 0) {
    try {
      const all = compactAll(a.stack, { random: 0 });
      afterPackRefs = afterOf(all, sizes, recs);
      // A segment spanning the whole stack is the same compaction: measured once.
      const whole = git.segment && git.segment.start === 0 && git.segment.end === ok.length - 1;
      if (git.segment) afterAuto = whole ? afterPackRefs : afterOf(compactSegment(a.stack, git.segment, { random: 0 }), sizes, recs);
    } catch (e) {
      afterPackRefs = afterAuto = null;
      afterSkipped = `git's compaction would fail: ${(e as Error).message}`;
    }
  }
  return {
    factor, segment: git.segment,
    bySize: { values: git.netSizes, reasons: git.reasons },
    byRecords: { values: recs, segment: byRec.segment, reasons: byRec.reasons },
    byLive: { values: live, segment: byLive.segment },
    jgit: { segment: jg.segment, reasons: jg.reasons, ...(jg.error ? { error: jg.error } : {}) },
    dropsTombstones: git.segment?.start === 0,
    afterPackRefs, afterAuto, ...(afterSkipped ? { afterSkipped } : {}),
  };
}

/** Per table: its records that are live in the merged view (winners that are not tombstones). */
function liveWinners(a: Analysis, n: number): number[] {
  const m = a.merged!;
  const tables = a.stack!.tables;
  const out = new Array(n).fill(0);
  for (let k = 0; k < m.count; k++) {
    const t = tables[m.table[k]]!;
    if (t.refs.types[m.rec[k]] !== 0) out[m.table[k]]++;
  }
  return out;
}

/** Stacks up to this many ref records get the simulator's estimate in the diagnosis (~1 s per 100,000). */
export const DIAGNOSIS_SIMULATION_MAX_RECORDS = 120_000;

function secs(x: number): string {
  return x >= 100 ? `${fmt(Math.round(x))} s` : x >= 1 ? `${x.toFixed(1)} s` : `${Math.max(1, Math.round(x * 1000))} ms`;
}

/**
 * When tombstones hide refs: what re-creating them costs per git version (the mailing-list cases
 * of CONTEXT.md), from the simulator, and what `git pack-refs` would make of it.
 */
function simulationSentence(r: Report, a: Analysis): string {
  const st = r.stack!;
  if (!st.tombstonesHiding || st.incomplete) return '';
  if (st.refRecords > DIAGNOSIS_SIMULATION_MAX_RECORDS) {
    return `Open the Simulator (or \`refscope simulate --workload recreate\`) to see what re-creating the ${plural(st.tombstonesHiding, 'hidden ref')} costs per git version.`;
  }
  try {
    const sim = Simulator.fromAnalysis(a);
    const res = sim.run(sim.parseSpec('recreate'), { models: ['git-2.49', 'git-2.55', 'git-2.56'], fixes: false, curve: false });
    const by = new Map(res.results.map((x) => [x.model, x.seconds ?? undefined]));
    const old = by.get('git-2.49'), mid = by.get('git-2.55'), neu = by.get('git-2.56');
    if (old === undefined || mid === undefined || neu === undefined) return '';
    return `Re-creating the ${plural(st.tombstonesHiding, 'hidden ref')} in one \`git update-ref --stdin\` would take about ${secs(old)} with git ≤ 2.49, ${secs(mid)} with git 2.50–2.55 and ${secs(neu)} with git 2.56 (refscope's simulator; see the Simulator for the breakdown and for the time after \`git pack-refs\`).`;
  } catch {
    return '';
  }
}

/**
 * The one-paragraph diagnosis for a reftable stack, with the numbers: what the stack holds, what
 * makes it slow, why git's auto-compaction does (not) fix it, and what would.
 */
function diagnoseStack(r: Report, c: CompactionReport | null): string {
  const st = r.stack!;
  const parts: string[] = [];
  const n = r.tables.length;
  const refRecs = st.refRecords;
  const dangling = st.danglingSymrefs ?? 0;
  parts.push(`${plural(n, 'table')}, ${kb(st.totalBytes)}: ${plural(st.live, 'live ref')}${dangling ? ` (${dangling === st.live ? (dangling === 1 ? 'a symref' : 'all symrefs') : `${fmt(dangling)} of them ${dangling === 1 ? 'a symref' : 'symrefs'}`} to a deleted ref, which \`git for-each-ref\` leaves out)` : ''} in ${plural(refRecs, 'ref record')}.`);
  if (st.incomplete) {
    const bad = r.tables.filter((t) => t.error).map((t) => t.name);
    parts.push(`${plural(bad.length, 'table')} could not be read (${bad.join(', ')}): the figures leave ${bad.length === 1 ? 'it' : 'them'} out, and what compaction would do cannot be judged (git itself fails on such a stack).`);
    return parts.join(' ');
  }
  // What makes it slow: records that lookups must step over.
  const hidden = r.tables.reduce((s, t) => s + t.hiddenByTombstone, 0);
  const shadowed = r.tables.reduce((s, t) => s + t.shadowed, 0);
  const tombTables = r.tables.map((t, i) => ({ t, i })).filter(({ t }) => t.records.tombstone > 0);
  if (tombTables.length) {
    const heavy = tombTables.sort((x, y) => y.t.records.tombstone - x.t.records.tombstone)[0];
    const where = heavy.i === n - 1 ? 'the newest table' : `table ${heavy.i}`;
    parts.push(`${where[0].toUpperCase() + where.slice(1)} holds ${plural(heavy.t.records.tombstone, 'tombstone')} (deletion records)${tombTables.length > 1 ? `, ${fmt(st.tombstones)} in the whole stack` : ''}; they hide ${plural(hidden, 'older ref')}, and every lookup and scan still steps over both.`);
  }
  if (shadowed > hidden && refRecs) {
    parts.push(`${fmt(shadowed)} of the ${fmt(refRecs)} ref records (${((100 * shadowed) / refRecs).toFixed(0)} %) are old values that newer tables override.`);
  }
  if (c && n > 1) {
    if (c.segment) {
      const { start, end } = c.segment;
      parts.push(`git's next auto-compaction merges tables ${start}–${end}${c.dropsTombstones ? ' (it starts at the base table, so their tombstones go)' : ' (not from the base table, so tombstones are carried forward)'}.`);
    } else {
      const last = c.bySize.values.length - 1;
      parts.push(`git's auto-compaction will not merge anything: it compares file sizes (less header and footer), and each table is at least ${c.factor}× the next newer one (${fmt(c.bySize.values[last - 1])} vs ${fmt(c.bySize.values[last])} bytes for the two newest).`);
      if (c.byRecords.segment) {
        const { start, end } = c.byRecords.segment;
        parts.push(`Counted in records the picture differs: tables ${start}–${end} hold ${c.byRecords.values.slice(start, end + 1).map(fmt).join(' and ')} records; tombstones look small in bytes only because they carry no object id.`);
      }
    }
    const tomb = st.tombstones;
    if (tomb || shadowed) {
      parts.push(`Fix: \`git pack-refs\` merges everything into one table of ${plural(st.live, 'ref')}${tomb ? `, dropping the ${plural(tomb, 'tombstone')} and the ${fmt(hidden)} refs they hide` : ''}.`);
    } else {
      parts.push(`Nothing to fix: no tombstones and no overridden records; \`git pack-refs\` would only merge the ${fmt(n)} tables into one.`);
    }
  } else if (n === 1) {
    parts.push(st.tombstones ? `A single table: \`git pack-refs\` would drop its ${plural(st.tombstones, 'tombstone')}.` : 'A single table: nothing to compact.');
  }
  return parts.join(' ');
}

/** Largest packed-refs file read (bytes): about 6 million refs. */
export const MAX_PACKED_REFS = 512 * 1048576;
/** Largest loose ref, reflog or config file read (bytes). */
export const MAX_LOOSE_FILE = 64 * 1048576;

registerFilesBackend({
  analyze(input) {
    // Text files are read whole: bound them so an absurd file gets a message, not a crash.
    for (const f of input.gitFiles) {
      const limit = f.path === 'packed-refs' ? MAX_PACKED_REFS : MAX_LOOSE_FILE;
      if (f.source.size > limit) {
        throw new FormatError(f.path, limit, `${f.path === 'packed-refs' ? 'a packed-refs file' : 'a loose ref, reflog or config file'} of at most ${limit / 1048576} MiB (this one has ${f.source.size.toLocaleString('en-US')} bytes)`);
      }
    }
    const repo = loadFilesRepo(input.gitFiles);
    const findings = [...(repo.packed?.findings ?? []), ...repo.findings].map((f) => ({
      severity: f.severity, file: f.file, offset: f.offset, message: f.message,
    }));
    return { files: repo, findings };
  },
  refs(files) {
    const repo = files as FilesRepo;
    if (repo.fatal) throw new FormatError(repo.fatal.file, repo.fatal.offset, repo.fatal.message);
    return filesRefs(repo);
  },
});

/** The diagnosis paragraph for a files-backend input (packed-refs, loose refs). */
function diagnoseFiles(p: PackedRefsJson): string {
  const parts: string[] = [];
  if (p.present) {
    parts.push(`packed-refs: ${plural(p.records, 'record')} in ${kb(p.bytes)}, ${plural(p.peeled, 'peeled value')}, header ${p.header === null ? 'absent' : `"${p.traits.join(' ')}"`}.`);
    if (p.gitDies) parts.push(`git dies on this file (${p.gitDies.when}): line ${p.gitDies.line}, offset ${p.gitDies.offset}: ${p.gitDies.message}.`);
    if (p.claimsSorted && !p.sorted) {
      parts.push(`The header claims "sorted" but the records are not byte-sorted, so git's binary search over the file misses ${plural(p.unfoundByBinarySearch.length, 'ref')} that are in it.`);
    } else if (!p.claimsSorted && !p.sorted && p.records > 1) {
      parts.push(`Without the "sorted" trait and out of order, the file makes git sort a copy of all ${fmt(p.records)} records on every load.`);
    }
    if (p.duplicates.length) parts.push(`${plural(p.duplicates.length, 'name')} appear twice (git lists them twice).`);
    const pc = p.peelCoverage;
    parts.push(`Peeling: ${fmt(pc.tagsWithPeeled)} of ${fmt(pc.tags)} tags carry their peeled value; the ref advertisement must open ${plural(pc.mustOpen, 'object')} (${pc.rule}).`);
  } else {
    parts.push('No packed-refs file.');
  }
  if (p.loose) {
    parts.push(`${plural(p.loose.looseRefs, 'loose ref')} (${fmt(p.loose.shadowing)} shadow a packed ref) in ${plural(p.loose.directories, 'directory', 'directories')}.`);
  }
  if (p.packRefsAuto) {
    const a = p.packRefsAuto;
    parts.push(`\`git pack-refs --auto\` ${a.wouldPack ? 'would pack now' : 'would not pack yet'}: ${fmt(a.candidatesTags)} loose tags against a limit of ${fmt(a.limit)}${a.wouldPackAll !== a.wouldPack ? ` (with --all: ${fmt(a.candidatesAll)} loose refs, ${a.wouldPackAll ? 'would pack' : 'would not'})` : ''}.`);
  }
  const e = p.reftableEstimate;
  parts.push(`As a reftable these ${plural(e.refs, 'ref')} would take about ${kb(e.bytes)} in ${plural(e.blocks, 'block')} (estimate).`);
  return parts.join(' ');
}

registerReportExtension((r, a) => {
  if (!a.files) return;
  const repo = a.files as FilesRepo;
  const p = repo.kind === 'packed-refs' && repo.packed ? packedRefsSection(repo.packed) : filesRepoSection(repo);
  r.packedRefs = p;
  r.diagnosis = diagnoseFiles(p);
});

registerReportExtension((r, a, opts) => {
  if (!r.stack) return;
  const factor = opts?.factor ?? 2;
  // With an unreadable table git's own compaction fails: no segment is predicted from sizes
  // that include a table nobody can read.
  // A worktree's tables are two stacks (its own and the main repository's) that compact apart.
  const c = r.stack.incomplete || a.input.worktree ? null : compactionReport(r, a, factor);
  r.stack.compaction = c ?? { factor, segment: null, incomplete: true, reason: a.input.worktree
    ? "a worktree: its own stack and the main repository's compact separately; analyze each reftable/ directory for its compaction"
    : 'a table could not be read: git would fail to compact this stack' };
  r.diagnosis = diagnoseStack(r, c);
  const sim = simulationSentence(r, a);
  if (sim) r.diagnosis += ' ' + sim;
});
