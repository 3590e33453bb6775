/**
 * models: the cost models, one named profile per group of git versions.
 *
 * Facts per version (git's refs/reftable-backend.c, refs.c, builtin/update-ref.c,
 * reftable/merged.c, and the mailing-list reports):
 * - up to 2.49: `update-ref` resolves every full object id with `repo_get_oid`, whose ambiguity
 *   check (`core.warnAmbiguousRefs`, default on) reads the six dwim names `<id>`, `refs/<id>`,
 *   `refs/tags/<id>`, `refs/heads/<id>`, `refs/remotes/<id>`, `refs/remotes/<id>/HEAD`.
 *   `refs_verify_refname_available` runs per new ref inside the prepare loop: a read of every
 *   leading directory (`refs`, `refs/heads`, …) and a fresh ref iterator over `<ref>/`.
 * - 2.50–2.55: `update-ref` skips the ambiguity check for full ids; new refs are collected and
 *   checked once after the loop (`refs_verify_refnames_available`): each leading directory once
 *   per transaction, one iterator re-seeked to `<ref>/` for each ref.
 * - up to 2.55 the merged iterator drops tombstones inside itself (`suppress_deletions`); 2.56
 *   passes them to the callers, which stop at their bound.
 * - initial transactions (clone, `git refs migrate`) skip the availability checks.
 */

/** Model names (CLI `--model`). */
export type ModelName = 'git-2.49' | 'git-2.55' | 'git-2.56' | 'initial' | 'files';
export const MODEL_NAMES: ModelName[] = ['git-2.49', 'git-2.55', 'git-2.56', 'initial', 'files'];

/** A cost model's behaviour switches. */
export interface ModelProfile {
  name: ModelName;
  /** The git versions it stands for. */
  versions: string;
  /** One line for tables and charts. */
  summary: string;
  backend: 'reftable' | 'files';
  /** Full object ids in `update-ref` input go through the six-rule ambiguity check. */
  dwimFullHex: boolean;
  /** New refs are checked for name conflicts (D/F). */
  availabilityChecks: boolean;
  /** Checks batched after the prepare loop (directories once, one re-seeked iterator). */
  batchedAvailability: boolean;
  /** Tombstones reach the caller (2.56+); otherwise dropped inside the merged iterator. */
  tombstonesPass: boolean;
}

export const MODELS: Record<ModelName, ModelProfile> = {
  'git-2.49': {
    name: 'git-2.49',
    versions: 'git ≤ 2.49',
    backend: 'reftable',
    summary:
      'per-ref availability check with a fresh iterator, six dwim reads per object id, tombstones consumed inside the merged iterator',
    dwimFullHex: true,
    availabilityChecks: true,
    batchedAvailability: false,
    tombstonesPass: false,
  },
  'git-2.55': {
    name: 'git-2.55',
    versions: 'git 2.50–2.55',
    backend: 'reftable',
    summary:
      'batched availability check (one re-seekable iterator), no dwim reads in update-ref, tombstones still consumed inside the merged iterator',
    dwimFullHex: false,
    availabilityChecks: true,
    batchedAvailability: true,
    tombstonesPass: false,
  },
  'git-2.56': {
    name: 'git-2.56',
    versions: 'git 2.56+',
    backend: 'reftable',
    summary: 'as 2.50–2.55, but tombstones reach the caller, which stops at its bound',
    dwimFullHex: false,
    availabilityChecks: true,
    batchedAvailability: true,
    tombstonesPass: true,
  },
  initial: {
    name: 'initial',
    versions: 'initial transaction (clone, git refs migrate), git 2.56 reader',
    backend: 'reftable',
    summary: 'no availability checks, no dwim reads; one point read per update',
    dwimFullHex: false,
    availabilityChecks: false,
    batchedAvailability: true,
    tombstonesPass: true,
  },
  files: {
    name: 'files',
    versions: 'files backend (packed-refs + loose refs), git 2.50+',
    backend: 'files',
    summary: 'loose ref files written one by one, packed-refs binary search for reads and conflict checks',
    dwimFullHex: false,
    availabilityChecks: true,
    batchedAvailability: true,
    tombstonesPass: true,
  },
};

/** The dwim rules of `ref_rev_parse_rules` (refs.c), in order. */
export const DWIM_RULES = ['%s', 'refs/%s', 'refs/tags/%s', 'refs/heads/%s', 'refs/remotes/%s', 'refs/remotes/%s/HEAD'];

/** Leading directories of a ref name: `refs/heads/a/b` → `refs`, `refs/heads`, `refs/heads/a`. */
export function leadingDirs(name: string): string[] {
  const out: string[] = [];
  for (let i = name.indexOf('/'); i >= 0; i = name.indexOf('/', i + 1)) out.push(name.slice(0, i));
  return out;
}
