/**
 * files: the files ref backend — `packed-refs`, loose refs, root refs and reflogs, read
 * as git reads them. Pure TypeScript, no DOM or Node APIs.
 *
 * - `files/packed.ts`: `parsePackedRefs` (header, traits, records, findings with line and byte
 *   offset, sortedness as found, duplicates, replay of git's binary search), `lookupPacked`,
 *   `peelCoverage`, `packedRefsForEachRef`.
 * - `files/loose.ts`: `loadFilesRepo` (a `.git` directory's files), `filesRefs` (equals
 *   `git for-each-ref --include-root-refs --format='%(objectname) %(refname)'`), `resolveName`,
 *   `mergedEntries`, reflogs, `looseStats` / `packRefsAuto` (loose vs packed, lookup cost).
 * - `files/estimate.ts`: `estimateReftable`, the same refs as a reftable (an estimate).
 * - `files/json.ts`: `packedRefsSection` / `filesRepoSection`, the `packedRefs` JSON section
 *   (docs/packed-refs.md).
 * - `files/refname.ts`: git's refname rules (`checkRefnameFormat`, `refnameIsSafe`, root refs,
 *   `worktreeRefType`: whose ref a name is in a worktree).
 * Worktrees: `input.ts classifyInput` picks the files git reads for a files-backend worktree;
 * `worktree.ts` merges a reftable worktree's two stacks.
 */
export {
  type HashKind,
  type GitDies,
  type FilesFinding,
  type PackedRecord,
  type PeeledTrait,
  type BisectStats,
  type PackedRefs,
  type ParsePackedOptions,
  type PeelCoverage,
  parsePackedRefs,
  lookupPacked,
  packedIterationOrder,
  peelCoverage,
  packedRefsForEachRef,
  packedWork,
  MAX_NAMES_LISTED,
} from './files/packed.ts';
export {
  type LooseContent,
  type LooseRef,
  type ReflogSummary,
  type ReflogEntry,
  type FilesRepo,
  type LoadFilesOptions,
  type MergedEntry,
  type FilesRefsOptions,
  type PackRefsAuto,
  type FilesLookupCost,
  type LooseStats,
  FILES_SYMREF_MAXDEPTH,
  LOOSE_REF_MAX_BYTES,
  REFLOG_MAX_BYTES,
  PACKED_REFS_MAX_BYTES,
  parseLooseContent,
  parseReflog,
  loadFilesRepo,
  resolveName,
  mergedEntries,
  filesRefs,
  filesRefList,
  packedRefList,
  FilesRefList,
  type NameBytes,
  prefixCounts,
  namespaceEnd,
  shareNamespaceEnd,
  packRefsAuto,
  looseStats,
} from './files/loose.ts';
export {
  type EstimateRef,
  type EstimateSource,
  type ReftableEstimate,
  estimateReftable,
  estimateReftableOf,
} from './files/estimate.ts';
export { type FilesFindingJson, type PackedRefsJson, packedRefsSection, filesRepoSection } from './files/json.ts';
export {
  checkRefnameFormat,
  refnameIsSafe,
  isRootRefName,
  isPseudoRefName,
  listedByForEachRef,
  isSharedRefName,
  isPerWorktreeRefName,
  worktreeRefType,
} from './files/refname.ts';
