/**
 * json: the `packedRefs` section of `refscope analyze --json` (documented field by field in
 * docs/packed-refs.md). Names are Unicode text here (`displayName`), not byte strings.
 */
import { displayName } from '../basics.ts';
import {
  type PackedRefs,
  type HashKind,
  type PeeledTrait,
  type BisectStats,
  type PeelCoverage,
  type GitDies,
  parsePackedRefs,
  peelCoverage,
} from './packed.ts';
import {
  type FilesRepo,
  type PackRefsAuto,
  type FilesLookupCost,
  type LooseStats,
  looseStats,
  loadFilesRepo,
  filesRefList,
  packedRefList,
} from './loose.ts';
import { type ReftableEstimate, estimateReftableOf } from './estimate.ts';

/** One finding in JSON form. */
export interface FilesFindingJson {
  severity: 'error' | 'warning' | 'info';
  code: string;
  file: string;
  line: number;
  offset: number;
  gitDies: GitDies;
  message: string;
}

/** The `packedRefs` JSON section. See docs/packed-refs.md for every field. */
export interface PackedRefsJson {
  present: boolean;
  file: string;
  bytes: number;
  hash: HashKind;
  header: string | null;
  traits: string[];
  unknownTraits: string[];
  peeledTrait: PeeledTrait;
  claimsSorted: boolean;
  records: number;
  lines: number;
  peeled: number;
  sorted: boolean;
  firstUnsorted: { line: number; offset: number; name: string; previous: string } | null;
  unfoundByBinarySearch: string[];
  duplicates: string[];
  bisect: BisectStats;
  peelCoverage: PeelCoverage;
  gitDies: { when: Exclude<GitDies, null>; code: string; line: number; offset: number; message: string } | null;
  findings: FilesFindingJson[];
  findingCounts: Record<string, number>;
  lookupCost: FilesLookupCost;
  /** `LooseStats`' counts (names as display text) and the repository's directories and reflogs. */
  loose:
    | (Pick<LooseStats, 'looseRefs' | 'rootRefs' | 'looseSymrefs' | 'looseBroken' | 'shadowing' | 'shadowingNames'> & {
        directories: number;
        reflogs: number;
        reflogEntries: number;
        ignored: { path: string; reason: string }[];
      })
    | null;
  packRefsAuto: PackRefsAuto | null;
  reftableEstimate: ReftableEstimate;
  /**
   * Live refs per namespace, as `stack.namespaces` counts them for a stack (`refs/heads`,
   * `refs/pull`, `(root)`, …): filled by the report (`buildReport`); absent when git cannot list
   * the refs.
   */
  namespaces?: Record<string, number>;
}

function findingJson(f: {
  severity: 'error' | 'warning' | 'info';
  code: string;
  file: string;
  line: number;
  offset: number;
  gitDies: GitDies;
  message: string;
}): FilesFindingJson {
  return {
    severity: f.severity,
    code: f.code,
    file: f.file,
    line: f.line,
    offset: f.offset,
    gitDies: f.gitDies,
    message: f.message,
  };
}

/**
 * Build the `packedRefs` JSON section for a packed-refs file, optionally with the repository it
 * belongs to (adds `loose`, `packRefsAuto`, the loose part of `lookupCost`, and makes the
 * reftable estimate cover the merged refs). Names are converted with `displayName`.
 */
export function packedRefsSection(pr: PackedRefs, repo?: FilesRepo): PackedRefsJson {
  const stats = looseStats(repo ?? loadFilesRepo([]));
  if (!repo) {
    stats.lookupCost.packed = {
      mode: pr.recordCount === 0 ? 'none' : pr.claimsSorted || pr.sorted ? 'binary-search' : 'sort-on-load',
      records: pr.recordCount,
      bytesOnLoad: pr.size,
      avgProbes: pr.bisect.avgProbes,
      maxProbes: pr.bisect.maxProbes,
      idealProbes: pr.bisect.idealProbes,
      sortComparisons:
        !pr.claimsSorted && !pr.sorted && pr.recordCount > 1
          ? pr.recordCount * Math.ceil(Math.log2(pr.recordCount))
          : 0,
    };
  }
  const fatal = pr.fatal ?? repo?.fatal ?? null;
  const findings = [...pr.findings, ...(repo ? repo.findings : [])].map(findingJson);
  const counts: Record<string, number> = { ...pr.findingCounts };
  if (repo) for (const [k, v] of Object.entries(repo.findingCounts)) counts[k] = (counts[k] ?? 0) + v;
  return {
    present: true,
    file: pr.file,
    bytes: pr.size,
    hash: pr.hash,
    header: pr.header === null ? null : displayName(pr.header),
    traits: pr.traits.map(displayName),
    unknownTraits: pr.unknownTraits.map(displayName),
    peeledTrait: pr.peeledTrait,
    claimsSorted: pr.claimsSorted,
    records: pr.recordCount,
    lines: pr.lines,
    peeled: pr.peeledCount,
    sorted: pr.sorted,
    firstUnsorted: pr.firstUnsorted && {
      ...pr.firstUnsorted,
      name: displayName(pr.firstUnsorted.name),
      previous: displayName(pr.firstUnsorted.previous),
    },
    unfoundByBinarySearch: pr.unfoundByBinarySearch.map(displayName),
    duplicates: pr.duplicates.map(displayName),
    bisect: { ...pr.bisect },
    peelCoverage: peelCoverage(pr),
    gitDies:
      fatal && fatal.gitDies
        ? { when: fatal.gitDies, code: fatal.code, line: fatal.line, offset: fatal.offset, message: fatal.message }
        : null,
    findings,
    findingCounts: counts,
    lookupCost: stats.lookupCost,
    loose: repo
      ? {
          looseRefs: stats.looseRefs,
          rootRefs: stats.rootRefs,
          looseSymrefs: stats.looseSymrefs,
          looseBroken: stats.looseBroken,
          shadowing: stats.shadowing,
          shadowingNames: stats.shadowingNames.map(displayName),
          directories: repo.directories.length,
          reflogs: repo.reflogs.length,
          reflogEntries: repo.reflogs.reduce((s, r) => s + r.entries, 0),
          ignored: repo.ignored,
        }
      : null,
    packRefsAuto: repo ? stats.packRefsAuto : null,
    // The listed refs (symrefs as symrefs) as a reftable would hold them, read from the columns.
    reftableEstimate: estimateReftableOf(repo ? filesRefList(repo, { bestEffort: true }) : packedRefList(pr), pr.hash),
  };
}

/**
 * The `packedRefs` section for a whole files-backend repository; when it has no packed-refs
 * file the section describes an empty one with `present: false`.
 */
export function filesRepoSection(repo: FilesRepo): PackedRefsJson {
  const pr = repo.packed ?? parsePackedRefs('packed-refs', new Uint8Array(0), { hash: repo.hash });
  const s = packedRefsSection(pr, repo);
  s.present = repo.packed !== null;
  return s;
}
