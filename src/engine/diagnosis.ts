/**
 * diagnosis: the one-paragraph diagnosis of a report, in words, with the numbers: what the stack
 * or repository holds, what makes it slow, why git's auto-compaction does (not) fix it, and what
 * would. It sits above the simulator (one sentence quotes a simulated time) and above the
 * report's figures; nothing below imports it. When git cannot read the input, the paragraph
 * starts by saying so.
 */
import { groupDigits, sizeText } from './basics.ts';
import type { Report, TableReport } from './report.ts';
import type { Analysis, ReftableAnalysis } from './analyze.ts';
import type { CompactionReport } from './extensions.ts';
import type { PackedRefsJson } from './files.ts';
import { Simulator } from './simulate/index.ts';

function fmt(n: number): string {
  return groupDigits(n);
}
function plural(n: number, one: string, many = one + 's'): string {
  return `${fmt(n)} ${n === 1 ? one : many}`;
}
const kb = sizeText;
/** Unreadable tables the diagnosis names; the others are counted. */
const NAMED_UNREADABLE = 10;

/**
 * The diagnosis of `r` (built from `a`): the paragraph for a reftable stack (with `c`, its
 * compaction section, null when a table is unreadable) or for a files-backend input (`p`).
 */
export function diagnose(r: Report, a: Analysis, c: CompactionReport | null, p: PackedRefsJson | null): string {
  const first = r.verdict.gitReadable
    ? ''
    : `Git cannot read this ${a.stack ? 'stack' : 'repository'}: ${r.verdict.reason}. `;
  if (a.stack) {
    let d = diagnoseStack(r, c);
    const sim = simulationSentence(r, a);
    if (sim) d += ' ' + sim;
    return first + d;
  }
  return first + (p ? diagnoseFiles(p) : '');
}

/** Stacks up to this many ref records get the simulator's estimate in the diagnosis (~1 s per 100,000). */
export const DIAGNOSIS_SIMULATION_MAX_RECORDS = 120_000;

function secs(x: number): string {
  return x >= 100
    ? `${fmt(Math.round(x))} s`
    : x >= 1
      ? `${x.toFixed(1)} s`
      : `${Math.max(1, Math.round(x * 1000))} ms`;
}

/**
 * When tombstones hide refs: what re-creating them costs per git version (the shape of the
 * mailing-list reports docs/simulator.md restates), from the simulator.
 */
function simulationSentence(r: Report, a: ReftableAnalysis): string {
  const st = r.stack!;
  if (!st.tombstonesHiding || st.incomplete || !r.verdict.gitReadable) return '';
  if (st.refRecords > DIAGNOSIS_SIMULATION_MAX_RECORDS) {
    return `What re-creating the ${plural(st.tombstonesHiding, 'hidden ref')} costs per git version: \`refscope simulate --workload recreate\`.`;
  }
  try {
    const sim = Simulator.fromAnalysis(a);
    const res = sim.run(sim.parseSpec('recreate'), {
      models: ['git-2.49', 'git-2.55', 'git-2.56'],
      fixes: false,
      curve: false,
    });
    const by = new Map(res.results.map((x) => [x.model, x.seconds ?? undefined]));
    const old = by.get('git-2.49'),
      mid = by.get('git-2.55'),
      neu = by.get('git-2.56');
    if (old === undefined || mid === undefined || neu === undefined) return '';
    return `Re-creating the ${plural(st.tombstonesHiding, 'hidden ref')} in one \`git update-ref --stdin\` would take about ${secs(old)} with git ≤ 2.49, ${secs(mid)} with git 2.50–2.55 and ${secs(neu)} with git 2.56 (simulated on these tables; \`refscope simulate --workload recreate\` gives the breakdown and the time after \`git pack-refs\`).`;
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
  parts.push(
    `${plural(n, 'table')}, ${kb(st.totalBytes)}: ${plural(st.live, 'live ref')}${dangling ? ` (${dangling === st.live ? (dangling === 1 ? 'a symref' : 'all symrefs') : `${fmt(dangling)} of them ${dangling === 1 ? 'a symref' : 'symrefs'}`} to a deleted ref, which \`git for-each-ref\` leaves out)` : ''} in ${plural(refRecs, 'ref record')}.`,
  );
  if (st.incomplete) {
    // Each unreadable file once (a repeated line of tables.list names the same file), the first
    // few by name: 100,000 missing tables must not make a paragraph of 100,000 names.
    const positions = r.tables.filter((t) => t.error);
    const bad = [...new Set(positions.map((t) => t.name))];
    const named =
      bad.length > NAMED_UNREADABLE
        ? `${bad.slice(0, NAMED_UNREADABLE).join(', ')} and ${fmt(bad.length - NAMED_UNREADABLE)} more`
        : bad.join(', ');
    parts.push(
      `${plural(positions.length, 'table')} could not be read (${named}): these figures are refscope's reading of the intact tables, not what git sees, and what compaction would do cannot be judged.`,
    );
    return parts.join(' ');
  }
  // What makes it slow: records that lookups must step over.
  const hidden = r.tables.reduce((s, t) => s + t.hiddenByTombstone, 0);
  const shadowed = r.tables.reduce((s, t) => s + t.shadowed, 0);
  const tombTables: { t: TableReport; i: number }[] = [];
  r.tables.forEach((t, i) => {
    if (t.records.tombstone > 0) tombTables.push({ t, i });
  });
  if (tombTables.length) {
    const heavy = tombTables.sort((x, y) => y.t.records.tombstone - x.t.records.tombstone)[0];
    const where = heavy.i === n - 1 ? 'the newest table' : `table ${heavy.i}`;
    // Every tombstone record counts here (a lookup steps over each one), not only the winning ones.
    parts.push(
      `${where[0].toUpperCase() + where.slice(1)} holds ${plural(heavy.t.records.tombstone, 'tombstone')} (deletion records)${tombTables.length > 1 ? `, ${fmt(st.tombstoneRecords)} in ${fmt(tombTables.length)} tables of the stack` : ''}; they hide ${plural(hidden, 'older ref')}, and every lookup and scan still steps over both.`,
    );
  }
  if (shadowed > hidden && refRecs) {
    parts.push(
      `${fmt(shadowed)} of the ${fmt(refRecs)} ref records (${((100 * shadowed) / refRecs).toFixed(0)} %) are old values that newer tables override.`,
    );
  }
  if (c && c.locks.outcome === 'list-locked') {
    parts.push(`A tables.list.lock is present: ${c.locks.reason}.`);
  } else if (c && n > 1) {
    if (c.locks.outcome === 'locked' || (c.segment && c.ruleSegment && c.segment.start !== c.ruleSegment.start)) {
      parts.push(`Lock files change git's next compaction: ${c.locks.reason}.`);
    }
    if (c.locks.outcome === 'locked') {
      // nothing merged; the rule's reasons follow for what would happen once the lock is gone
    } else if (c.segment) {
      const { start, end } = c.segment;
      parts.push(
        `git's next auto-compaction merges tables ${start}–${end}${c.dropsTombstones ? ' (it starts at the base table, so their tombstones go)' : ' (not from the base table, so tombstones are carried forward)'}.`,
      );
    } else {
      const last = c.bySize.values.length - 1;
      parts.push(
        `git's auto-compaction will not merge anything: it compares file sizes (less header and footer), and each table is at least ${c.factor}× the next newer one (${fmt(c.bySize.values[last - 1])} vs ${fmt(c.bySize.values[last])} bytes for the two newest).`,
      );
      if (c.byRecords.segment) {
        const { start, end } = c.byRecords.segment;
        parts.push(
          `Counted in records the picture differs: tables ${start}–${end} hold ${c.byRecords.values
            .slice(start, end + 1)
            .map(fmt)
            .join(' and ')} records; tombstones look small in bytes only because they carry no object id.`,
        );
      }
    }
    const tomb = st.tombstoneRecords;
    if (tomb || shadowed) {
      parts.push(
        `Fix: \`git pack-refs\` merges everything into one table of ${plural(st.live, 'ref')}${tomb ? `, dropping the ${plural(tomb, 'tombstone')} and the ${fmt(hidden)} refs they hide` : ''}.`,
      );
    } else {
      parts.push(
        `Nothing to fix: no tombstones and no overridden records; \`git pack-refs\` would only merge the ${fmt(n)} tables into one.`,
      );
    }
  } else if (n === 1) {
    parts.push(
      st.tombstoneRecords
        ? `A single table: \`git pack-refs\` would drop its ${plural(st.tombstoneRecords, 'tombstone')}.`
        : 'A single table: nothing to compact.',
    );
  }
  return parts.join(' ');
}

/** The diagnosis paragraph for a files-backend input (packed-refs, loose refs). */
function diagnoseFiles(p: PackedRefsJson): string {
  const parts: string[] = [];
  if (p.present) {
    parts.push(
      `packed-refs: ${plural(p.records, 'record')} in ${kb(p.bytes)}, ${plural(p.peeled, 'peeled value')}, header ${p.header === null ? 'absent' : `"${p.traits.join(' ')}"`}.`,
    );
    if (p.gitDies)
      parts.push(
        `git dies on this file (${p.gitDies.when}): line ${p.gitDies.line}, offset ${p.gitDies.offset}: ${p.gitDies.message}.`,
      );
    if (p.claimsSorted && !p.sorted) {
      parts.push(
        `The header claims "sorted" but the records are not byte-sorted, so git's binary search over the file misses ${plural(p.unfoundByBinarySearch.length, 'ref')} that are in it.`,
      );
    } else if (!p.claimsSorted && !p.sorted && p.records > 1) {
      parts.push(
        `Without the "sorted" trait and out of order, the file makes git sort a copy of all ${fmt(p.records)} records on every load.`,
      );
    }
    if (p.duplicates.length) parts.push(`${plural(p.duplicates.length, 'name')} appear twice (git lists them twice).`);
    const pc = p.peelCoverage;
    parts.push(
      `Peeling: ${fmt(pc.tagsWithPeeled)} of ${fmt(pc.tags)} tags carry their peeled value; the ref advertisement must open ${plural(pc.mustOpen, 'object')} (${pc.rule}).`,
    );
  } else {
    parts.push('No packed-refs file.');
  }
  if (p.loose) {
    parts.push(
      `${plural(p.loose.looseRefs, 'loose ref')} (${fmt(p.loose.shadowing)} shadow a packed ref) in ${plural(p.loose.directories, 'directory', 'directories')}.`,
    );
  }
  if (p.packRefsAuto) {
    const a = p.packRefsAuto;
    parts.push(
      `\`git pack-refs --auto\` ${a.wouldPack ? 'would pack now' : 'would not pack yet'}: ${fmt(a.candidatesTags)} loose tags against a limit of ${fmt(a.limit)}${a.wouldPackAll !== a.wouldPack ? ` (with --all: ${fmt(a.candidatesAll)} loose refs, ${a.wouldPackAll ? 'would pack' : 'would not'})` : ''}.`,
    );
  }
  const e = p.reftableEstimate;
  parts.push(
    `As a reftable these ${plural(e.refs, 'ref')} would take about ${kb(e.bytes)} in ${plural(e.blocks, 'block')} (estimate).`,
  );
  return parts.join(' ');
}
