/**
 * analyze: from input files to everything the report, the refs list and the simulator need.
 * One entry point for the CLI, the worker and the tests.
 */
import { type InputFile, FormatError, type Finding } from './basics.ts';
import { classifyInput, configSaysReftable, type ClassifiedInput } from './input.ts';
import { loadStack, mergeTables, type Stack, type MergedView } from './stack.ts';
import { listRefs, type ListedRef } from './refs.ts';
import type { OpenOptions } from './table.ts';
import { loadWorktreeStacks } from './worktree.ts';

/** Result of analysing one input. Exactly one of `stack` or `files` is set (unless `kind` is empty). */
export interface Analysis {
  input: ClassifiedInput;
  stack: Stack | null;
  merged: MergedView | null;
  /** Files-backend analysis (a `FilesRepo`: packed-refs / loose refs), from the registered hook. */
  files: unknown;
  findings: Finding[];
}

/** Hook for the files backend (registered by files-backend module to keep this file small). */
export interface FilesBackendHook {
  analyze(input: ClassifiedInput): { files: unknown; findings: Finding[] };
  refs(files: unknown): ListedRef[];
}
let filesHook: FilesBackendHook | null = null;
/** Register the files-backend analyser (done by `engine/extensions.ts`, imported by `engine/index.ts`). */
export function registerFilesBackend(h: FilesBackendHook): void {
  filesHook = h;
}

/**
 * Analyse the given files. Throws `FormatError` only when nothing usable was found
 * (no reftable, packed-refs or git directory) or `tables.list` itself is malformed; per-table
 * errors are in `stack.broken`. With `opts.deadline` / `opts.maxRecords` (see `OpenOptions`) it
 * throws a `BudgetError` (a `FormatError`) when the reftable analysis exceeds them.
 */
export function analyzeFiles(files: InputFile[], opts: OpenOptions = {}): Analysis {
  const input = classifyInput(files);
  const findings: Finding[] = [];
  if (input.kind === 'empty') {
    const config = files.find((f) => f.path.split('/').pop() === 'config');
    if (configSaysReftable(config)) {
      throw new FormatError(config!.path, -1, 'a reftable/ directory with tables.list next to this config (it says refStorage = reftable)');
    }
    throw new FormatError(files[0]?.path ?? '(input)', -1, 'a reftable directory (tables.list), .ref files, a packed-refs file or a .git directory');
  }
  if (input.kind === 'reftable') {
    // A worktree: its own stack and the main repository's, listed together (engine/worktree.ts).
    const wt = input.worktree ? loadWorktreeStacks(input, opts) : null;
    const stack = wt ? wt.stack : loadStack(input.tablesList, input.tableFiles, opts);
    for (const f of stack.findings) findings.push(f);
    const merged = wt ? wt.merged : mergeTables(stack.tables);
    // A tombstone table with nothing under it: all its records are tombstones and none has an
    // older record of its key below it (winning or not: every tombstone counts).
    stack.tables.forEach((t, i) => {
      if (t && t.refs.count > 0 && t.counts.tombstone === t.refs.count && (merged.tombstonesOverOlderBy ?? merged.tombstonesHidingBy)[i] === 0) {
        findings.push({ severity: 'warning', file: t.path, offset: -1, message: `all ${t.counts.tombstone} records are tombstones and none hides an older record (a deletion table with nothing under it)` });
      }
    });
    return { input, stack, merged, files: null, findings };
  }
  if (!filesHook) throw new Error('files backend not registered');
  const r = filesHook.analyze(input);
  findings.push(...r.findings);
  return { input, stack: null, merged: null, files: r.files, findings };
}

/** The live refs, as `git for-each-ref --include-root-refs --format='%(objectname) %(refname)'` lists them. */
export function analysisRefs(a: Analysis): ListedRef[] {
  if (a.stack && a.merged) return listRefs(a.stack.tables, a.merged);
  if (filesHook && a.files) return filesHook.refs(a.files);
  return [];
}
