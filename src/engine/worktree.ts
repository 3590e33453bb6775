/**
 * worktree: a reftable worktree read as git reads it. A linked worktree's git directory
 * (`.git/worktrees/<name>`) holds its own stack, with the per-worktree refs (HEAD, ORIG_HEAD and
 * other root refs, refs/worktree/*, refs/bisect/*, refs/rewritten/*), and names the main
 * repository in `commondir`, whose stack holds the shared refs.
 *
 * git (refs/reftable-backend.c `reftable_be_iterator_begin`, refs/iterator.c
 * `ref_iterator_select`) iterates the two stacks together: every ref of the worktree's stack, in
 * name order; a ref of the main stack only when its name is shared (refs.c `parse_worktree_ref`
 * says REF_WORKTREE_SHARED: the main worktree's own HEAD, refs/bisect/… are not this worktree's),
 * and not when the worktree's stack has a ref of the same name (that one shadows it). Each stack
 * is first merged on its own (tombstones hide older records of the same stack only; git's
 * per-stack iterator never yields a tombstone). Reading one name goes to the stack its kind
 * belongs to (`backend_for`): per-worktree names to the worktree's, others to the main one,
 * which the merged view below reproduces, so symrefs resolve as in git.
 */
import { Budget, type Finding } from './basics.ts';
import type { ClassifiedInput } from './input.ts';
import { loadStack, type Stack } from './reftable/stack.ts';
import { mergeTables, type MergedView } from './reftable/merged.ts';
import type { OpenOptions } from './reftable/table.ts';
import { worktreeRefType } from './files/refname.ts';

/**
 * Load both stacks of a reftable worktree (`input.worktree` set by `classifyInput`) and merge
 * them as git does. The returned `stack` lists the main repository's tables first, then the
 * worktree's (`tables` indexes match `merged.table`); compaction figures of such a stack mean
 * nothing (each stack compacts on its own), which its info finding says.
 */
export function loadWorktreeStacks(
  input: ClassifiedInput,
  opts: OpenOptions = {},
): { stack: Stack; merged: MergedView } {
  const wt = input.worktree!;
  const budget = opts.budget ?? new Budget(opts.deadline, opts.maxRecords);
  const common = loadStack(wt.commonTablesList, wt.commonTableFiles, { ...opts, budget });
  const own = loadStack(input.tablesList, input.tableFiles, { ...opts, budget });
  const mc = mergeTables(common.tables);
  const mw = mergeTables(own.tables);
  const merged = mergeWorktreeViews(
    common.tables.length,
    mc,
    mw,
    (ti, r) =>
      (ti < common.tables.length ? common.tables[ti] : own.tables[ti - common.tables.length])!.refs.types[r] === 0,
  );
  const note: Finding = {
    severity: 'info',
    file: input.tablesList?.path ?? '',
    offset: -1,
    message: `a worktree: its ${own.tables.length} table(s) hold its own refs (HEAD, refs/worktree/, refs/bisect/, refs/rewritten/, …), the ${common.tables.length} table(s) of ${wt.commonTablesList.path} (the main repository, named by commondir) the shared refs; listed together as git lists them. The two stacks compact separately: analyze each one for its compaction`,
  };
  const stack: Stack = {
    listPath: own.listPath,
    names: [...common.names, ...own.names],
    tables: [...common.tables, ...own.tables],
    broken: [...common.broken, ...own.broken],
    findings: [note, ...common.findings, ...own.findings],
  };
  return { stack, merged };
}

/**
 * The combined view: `mc` over tables [0, k), `mw` over tables [k, …) (its table numbers are
 * shifted by k). Entries: each stack's winners in name order; at equal names a live worktree
 * entry wins; a main-stack entry is kept only for a shared name (`worktreeRefType`); a tombstone
 * never shadows the other stack's live ref (git's iterators skip tombstones before merging).
 */
export function mergeWorktreeViews(
  k: number,
  mc: MergedView,
  mw: MergedView,
  isTombstone: (table: number, rec: number) => boolean,
): MergedView {
  const tab: number[] = [];
  const rec: number[] = [];
  const keys: string[] = [];
  let live = 0;
  const push = (t: number, r: number, key: string) => {
    tab.push(t);
    rec.push(r);
    keys.push(key);
    if (!isTombstone(t, r)) live++;
  };
  let i = 0;
  let j = 0;
  while (i < mc.count || j < mw.count) {
    const ck = i < mc.count ? mc.key(i) : null;
    const wk = j < mw.count ? mw.key(j) : null;
    if (wk !== null && (ck === null || wk < ck)) {
      push(mw.table[j] + k, mw.rec[j], wk);
      j++;
    } else if (ck !== null && (wk === null || ck < wk)) {
      if (worktreeRefType(ck) === 'shared') push(mc.table[i], mc.rec[i], ck);
      i++;
    } else {
      // Same name in both: the worktree's live ref shadows; a worktree tombstone does not.
      const wTomb = isTombstone(mw.table[j] + k, mw.rec[j]);
      const shared = worktreeRefType(ck!) === 'shared';
      if (!wTomb || !shared || isTombstone(mc.table[i], mc.rec[i])) push(mw.table[j] + k, mw.rec[j], wk!);
      else push(mc.table[i], mc.rec[i], ck!);
      i++;
      j++;
    }
  }
  const lowerBound = (name: string): number => {
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const m = (lo + hi) >>> 1;
      if (keys[m] < name) lo = m + 1;
      else hi = m;
    }
    return lo;
  };
  return {
    count: keys.length,
    keys,
    key: (x: number) => keys[x],
    find: (name: string) => {
      const x = lowerBound(name);
      return x < keys.length && keys[x] === name ? x : -1;
    },
    lowerBound,
    table: Uint32Array.from(tab),
    rec: Uint32Array.from(rec),
    live,
    tombstones: keys.length - live,
    tombstonesHiding: mc.tombstonesHiding + mw.tombstonesHiding,
    shadowed: [...mc.shadowed, ...mw.shadowed],
    winners: [...mc.winners, ...mw.winners],
    hiddenByTombstone: [...mc.hiddenByTombstone, ...mw.hiddenByTombstone],
    tombstonesHidingBy: [...mc.tombstonesHidingBy, ...mw.tombstonesHidingBy],
  };
}
