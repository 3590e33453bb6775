/**
 * analyze: from input files to everything the report, the refs list and the simulator need.
 * One entry point for the CLI, the worker and the tests. The result is a typed union: a reftable
 * analysis (a stack, its merged view and its lock files) or a files-backend analysis (packed-refs
 * and loose refs); each caller tells them apart by `stack` / `files`, never by a cast.
 */
import {
  type InputFile,
  FormatError,
  type Finding,
  u32,
  displayName,
  bytesToKey,
  keyToBytes,
  firstUpperAscii,
} from './basics.ts';
import { classifyInput, configSaysReftable, type ClassifiedInput } from './input.ts';
import { loadStack, type Stack } from './reftable/stack.ts';
import { mergeTables, lowerBound, type MergedView } from './reftable/merged.ts';
import { listRefs, invalidRefNames, type ListedRef } from './refs.ts';
import type { OpenOptions, Table } from './reftable/table.ts';
import { loadFilesRepo, filesRefs, filesRefList, type FilesRefList, type FilesRepo } from './files.ts';
import type { StackLocks } from './reftable/auto-compaction.ts';
import { loadWorktreeStacks } from './worktree.ts';

/** A lock file in a reftable directory (git's `lockfile.c` / `reftable/stack.c` `flock_acquire`). */
export interface LockFile {
  /** Path as given. */
  path: string;
  /**
   * - `tables.list`: `tables.list.lock`, held by a writer or left by a crashed one; git refuses
   *   every write and compaction while it exists;
   * - `table`: `<table>.lock` of a listed table: git's auto-compaction skips it and what is older;
   * - `stale`: `<name>.lock` of a file that is not a listed table: git pays no attention to it.
   */
  kind: 'tables.list' | 'table' | 'stale';
  /** For `table`: the table's position in `tables.list` (oldest = 0). */
  table?: number;
}

/** A table file present in the reftable directory but not named in `tables.list`. */
export interface OrphanTable {
  path: string;
  bytes: number;
  /**
   * Whether git's next clean-up (`reftable_stack_clean`, run by `git pack-refs`) deletes it:
   * only a file that opens as a table and whose `max_update_index` is at most the stack's
   * (`remove_maybe_stale_table`): a newer one may be a table another writer is adding.
   */
  gitDeletes: boolean;
}

/** Fields both kinds of analysis carry. */
interface AnalysisBase {
  input: ClassifiedInput;
  findings: Finding[];
}

/** A reftable stack: its tables, the merged view git sees, the directory's lock and orphan files. */
export interface ReftableAnalysis extends AnalysisBase {
  stack: Stack;
  merged: MergedView;
  files: null;
  /** Lock files of the reftable directory (absent when the analysis was not made from files). */
  locks?: LockFile[];
  /** `.ref` files present but not listed (absent when the analysis was not made from files). */
  orphans?: OrphanTable[];
}

/** A files-backend repository or a lone packed-refs file. */
export interface FilesAnalysis extends AnalysisBase {
  stack: null;
  merged: null;
  files: FilesRepo;
}

/** Result of analysing one input: a reftable stack or a files-backend repository. */
export type Analysis = ReftableAnalysis | FilesAnalysis;

/** Largest packed-refs file read (bytes): about 20 million refs (files/loose.ts `PACKED_REFS_MAX_BYTES`). */
export const MAX_PACKED_REFS = 2048 * 1048576;
/** Largest loose ref, reflog or config file read (bytes). */
export const MAX_LOOSE_FILE = 64 * 1048576;

/**
 * Analyse the given files. Throws `FormatError` only when nothing usable was found
 * (no reftable, packed-refs or git directory) or `tables.list` itself is malformed; per-table
 * errors are in `stack.broken`. With `opts.deadline` / `opts.maxRecords` (see `OpenOptions`) it
 * throws a `BudgetError` (a `FormatError`) when the reftable analysis exceeds them.
 */
export function analyzeFiles(files: InputFile[], opts: AnalyzeOptions = {}): Analysis {
  const input = classifyInput(files);
  if (input.kind === 'empty') {
    const config = files.find((f) => f.path.split('/').pop() === 'config');
    if (configSaysReftable(config)) {
      throw new FormatError(
        config!.path,
        -1,
        'a reftable/ directory with tables.list next to this config (it says refStorage = reftable)',
      );
    }
    throw new FormatError(
      files[0]?.path ?? '(input)',
      -1,
      'a reftable directory (tables.list), .ref files, a packed-refs file or a .git directory',
    );
  }
  return input.kind === 'reftable' ? analyzeReftable(input, opts) : analyzeFilesBackend(input);
}

/** Options of `analyzeFiles`: the table options, and what may be left for later. */
export interface AnalyzeOptions extends OpenOptions {
  /**
   * Leave out the checks of the live ref names (git's ref-name rules, names differing only in
   * case): a load that shows its counts first runs them afterwards with `nameFindings`. Default
   * false: the findings are complete.
   */
  deferNameChecks?: boolean;
}

/**
 * The findings of the live ref names that `deferNameChecks` left out (invalid names, names that
 * differ only in case), in the order `analyzeFiles` gives them.
 */
export function nameFindings(a: ReftableAnalysis): Finding[] {
  const findings: Finding[] = [];
  const { input, stack, merged } = a;
  caseCollisions(caseCandidates(stack.tables, merged), findings, stack.listPath || input.root || '(stack)');
  brokenRefNames(stack, merged, findings);
  return findings;
}

function analyzeReftable(input: ClassifiedInput, opts: AnalyzeOptions): ReftableAnalysis {
  const findings: Finding[] = [];
  // A worktree: its own stack and the main repository's, listed together (engine/worktree.ts).
  const wt = input.worktree ? loadWorktreeStacks(input, opts) : null;
  const stack = wt ? wt.stack : loadStack(input.tablesList, input.tableFiles, opts);
  for (const f of stack.findings) findings.push(f);
  const merged = wt ? wt.merged : mergeTables(stack.tables);
  deletionTablesWithNothingUnder(stack.tables, merged, findings);
  const locks = lockFiles(input, stack, findings);
  const orphans = orphanTables(input, stack, findings);
  ignoredGitDirFiles(input, findings);
  const a: ReftableAnalysis = { input, stack, merged, files: null, findings, locks, orphans };
  if (!opts.deferNameChecks) for (const f of nameFindings(a)) findings.push(f);
  return a;
}

function analyzeFilesBackend(input: ClassifiedInput): FilesAnalysis {
  // Text files are read whole: bound them so an absurd file gets a message, not a crash.
  for (const f of input.gitFiles) {
    const limit = f.path === 'packed-refs' ? MAX_PACKED_REFS : MAX_LOOSE_FILE;
    if (f.source.size > limit) {
      throw new FormatError(
        f.path,
        limit,
        `${f.path === 'packed-refs' ? 'a packed-refs file' : 'a loose ref, reflog or config file'} of at most ${limit / 1048576} MiB, found one of ${f.source.size.toLocaleString('en-US')} bytes`,
      );
    }
  }
  const repo = loadFilesRepo(input.gitFiles);
  const findings: Finding[] = [...(repo.packed?.findings ?? []), ...repo.findings].map((f) => ({
    severity: f.severity,
    file: f.file,
    offset: f.offset,
    message: f.message,
  }));
  if (!repo.fatal) {
    caseCollisions(
      listCaseCandidates(filesRefList(repo)),
      findings,
      input.root || (repo.kind === 'packed-refs' ? 'packed-refs' : '.git'),
    );
  }
  return { input, stack: null, merged: null, files: repo, findings };
}

/**
 * The live refs of a files-backend analysis as columns (`FilesRefList`: names and ids decoded for
 * the entries asked for); throws as `analysisRefs` does when git dies on the repository.
 */
export function analysisRefList(a: FilesAnalysis): FilesRefList {
  if (a.files.fatal) throw new FormatError(a.files.fatal.file, a.files.fatal.offset, a.files.fatal.message);
  return filesRefList(a.files);
}

/**
 * `caseCandidates` of a files-backend ref list: the names that may differ from another only in
 * ASCII case, each once (a name on several lines of packed-refs is not a collision with itself).
 * Few names with an upper-case letter (found in one pass over the bytes): those and their
 * lower-case forms that are listed (a binary search each). Otherwise the lower-cased bytes of
 * every name are hashed, and only names whose hash another name shares are decoded.
 */
function listCaseCandidates(list: FilesRefList): string[] {
  const n = list.length;
  const upper = list.inOrder ? list.upperCaseEntries(4096 + (n >> 6)) : null;
  if (upper) {
    const out = new Set<string>();
    for (const k of upper) {
      const name = list.name(k);
      out.add(name);
      const lower = keyToBytes(name.replace(/[A-Z]+/g, (c) => c.toLowerCase()));
      const i = list.lowerBound(lower);
      if (i < n && list.nameEquals(i, lower)) out.add(bytesToKey(lower, 0, lower.length));
    }
    return [...out].sort();
  }
  const hashes = new Uint32Array(n);
  const at = new Int32Array(n);
  let m = 0;
  for (let k = 0; k < n; k++) {
    if (k > 0 && list.comparePrev(k).c === 0) continue;
    const x = list.nameBytes(k);
    const kb = x.bytes;
    let h = 0x811c9dc5;
    for (let j = x.start; j < x.end; j++) {
      const c = kb[j];
      h = Math.imul(h ^ (c >= 0x41 && c <= 0x5a ? c + 0x20 : c), 0x01000193);
    }
    hashes[m] = h >>> 0;
    at[m++] = k;
  }
  const sorted = hashes.slice(0, m).sort();
  const shared = new Set<number>();
  for (let k = 1; k < m; k++) if (sorted[k] === sorted[k - 1]) shared.add(sorted[k]);
  const out = new Set<string>();
  if (shared.size) for (let k = 0; k < m; k++) if (shared.has(hashes[k])) out.add(list.name(at[k]));
  return [...out];
}

/** The live refs, as `git for-each-ref --include-root-refs --format='%(objectname) %(refname)'` lists them. */
export function analysisRefs(a: Analysis): ListedRef[] {
  if (a.stack) return listRefs(a.stack.tables, a.merged);
  if (a.files.fatal) throw new FormatError(a.files.fatal.file, a.files.fatal.offset, a.files.fatal.message);
  return filesRefs(a.files);
}

/**
 * A table whose records are all tombstones, none of which has an older record of its key in any
 * table below it: it deletes nothing. Every tombstone counts, winning or not: in a stack where a
 * branch is created and deleted again and again, each deletion table deletes the creation just
 * below it even when a newer creation wins in the merged view.
 */
function deletionTablesWithNothingUnder(tables: (Table | null)[], merged: MergedView, findings: Finding[]): void {
  const over = merged.tombstonesOverOlderBy;
  tables.forEach((t, i) => {
    if (!t || t.refs.count === 0 || t.counts.tombstone !== t.refs.count) return;
    // An unreadable older table may hold the keys: say nothing then.
    if (tables.slice(0, i).some((o) => !o)) return;
    if (over) {
      if (over[i] > 0) return;
    } else
      for (let r = 0; r < t.refs.count; r++) {
        const key = t.refs.name(r);
        for (let j = i - 1; j >= 0; j--) {
          const names = tables[j]!.refs.names;
          const k = lowerBound(names, key);
          if (k < names.length && names[k] === key) return;
        }
      }
    findings.push({
      severity: 'warning',
      file: t.path,
      offset: -1,
      message: `all ${t.counts.tombstone} records are tombstones and none hides an older record (a deletion table with nothing under it)`,
    });
  });
}

const baseOf = (p: string): string => p.slice(p.lastIndexOf('/') + 1);

/** The lock files of the reftable directory, each with a finding saying what git does with it. */
function lockFiles(input: ClassifiedInput, stack: Stack, findings: Finding[]): LockFile[] {
  const out: LockFile[] = [];
  const index = new Map(stack.names.map((n, i) => [n, i]));
  for (const f of input.reftableOther ?? []) {
    const name = baseOf(f.path);
    if (!name.endsWith('.lock')) continue;
    const target = name.slice(0, -'.lock'.length);
    if (target === 'tables.list') {
      out.push({ path: f.path, kind: 'tables.list' });
      findings.push({
        severity: 'warning',
        file: f.path,
        offset: -1,
        message:
          'tables.list.lock exists: git refuses every ref update ("cannot lock references") and every compaction ("unable to compact stack: data is locked") until it is removed; if no git process is running, a crashed one left it behind',
      });
    } else if (index.has(target)) {
      const i = index.get(target)!;
      out.push({ path: f.path, kind: 'table', table: i });
      findings.push({
        severity: 'warning',
        file: f.path,
        offset: -1,
        message: `table ${i} (${target}) is locked: git's auto-compaction merges only tables above it, and \`git pack-refs\` without --auto fails ("data is locked")`,
      });
    } else {
      out.push({ path: f.path, kind: 'stale' });
      findings.push({
        severity: 'info',
        file: f.path,
        offset: -1,
        message: `a lock file for ${JSON.stringify(target)}, which is not a table listed in tables.list: git takes no notice of it`,
      });
    }
  }
  return out;
}

/** The locks as the auto-compaction rule needs them (see `gitAutoCompactionWithLocks`). */
export function stackLocks(a: ReftableAnalysis): StackLocks {
  const tables = new Array<boolean>(a.stack.names.length).fill(false);
  let tablesList = false;
  for (const l of a.locks ?? []) {
    if (l.kind === 'tables.list') tablesList = true;
    else if (l.kind === 'table' && l.table !== undefined) tables[l.table] = true;
  }
  return { tablesList, tables };
}

/**
 * `.ref` files present but not listed. Git deletes such a file on its next clean-up when it opens
 * as a table whose `max_update_index` is at most the stack's (reftable/stack.c
 * `reftable_stack_clean_locked`, `remove_maybe_stale_table`); here "opens" is checked on the
 * header and footer magic and the header's update indexes, without parsing the blocks.
 */
function orphanTables(input: ClassifiedInput, stack: Stack, findings: Finding[]): OrphanTable[] {
  if (!input.tablesList) return [];
  const listed = new Set(stack.names);
  let stackMax = 0;
  for (const t of stack.tables) if (t) stackMax = Math.max(stackMax, t.header.maxUpdateIndex);
  const out: OrphanTable[] = [];
  for (const f of input.tableFiles) {
    const name = baseOf(f.path);
    if (listed.has(name)) continue;
    const size = f.source.size;
    let gitDeletes = false;
    if (size >= 24 + 68) {
      const h = f.source.read(0, 24);
      const version = h[4];
      const fs = version === 2 ? 72 : 68;
      const foot = f.source.read(size - fs, 4);
      const magic = (b: Uint8Array) => b[0] === 0x52 && b[1] === 0x45 && b[2] === 0x46 && b[3] === 0x54;
      if (magic(h) && magic(foot) && (version === 1 || version === 2)) {
        const max = u32(h, 16) * 4294967296 + u32(h, 20);
        gitDeletes = max <= stackMax;
      }
    }
    out.push({ path: f.path, bytes: size, gitDeletes });
  }
  if (out.length) {
    const del = out.filter((o) => o.gitDeletes);
    const bytes = del.reduce((s, o) => s + o.bytes, 0);
    findings.push({
      severity: 'warning',
      file: stack.listPath,
      offset: -1,
      message: `${out.length} table file${out.length === 1 ? ' is' : 's are'} not listed in tables.list (orphans); git's next \`git pack-refs\` deletes ${del.length} of them, reclaiming ${bytes.toLocaleString('en-US')} bytes${del.length < out.length ? ` (the others are newer than the stack or do not open as tables: git keeps them)` : ''}`,
    });
  }
  return out;
}

/** What git writes into the `HEAD` of a reftable repository so that older gits stop there. */
const PLACEHOLDER_HEAD = 'ref: refs/heads/.invalid';
/** And into `refs/heads`, a file (not a directory) for the same reason. */
const PLACEHOLDER_REFS_HEADS = 'this repository uses the reftable format';

/**
 * In a reftable repository git reads refs from the stack only (refs/reftable-backend.c): the
 * `HEAD` file is a placeholder, and loose refs under `refs/` or a `packed-refs` file are ignored.
 */
function ignoredGitDirFiles(input: ClassifiedInput, findings: Finding[]): void {
  const files = input.gitDirOther;
  if (!files) return;
  const root = input.root.endsWith('reftable/') ? input.root.slice(0, -'reftable/'.length) : input.root;
  const text = (f: InputFile): string => {
    const b = f.source.read(0, Math.min(f.source.size, 4096));
    let s = '';
    for (let i = 0; i < b.length; i++) s += String.fromCharCode(b[i]);
    return s.replace(/\n$/, '');
  };
  const ignored: string[] = [];
  for (const f of files) {
    if (f.path === 'HEAD') {
      const t = text(f);
      if (t === PLACEHOLDER_HEAD) {
        findings.push({
          severity: 'info',
          file: root + f.path,
          offset: -1,
          message: `HEAD is git's placeholder ("${PLACEHOLDER_HEAD}"): git reads HEAD from the reftable stack; the file only keeps older gits from taking this for a files-backend repository`,
        });
      } else {
        findings.push({
          severity: 'warning',
          file: root + f.path,
          offset: -1,
          message: `the HEAD file says ${JSON.stringify(t.slice(0, 200))} where git writes "${PLACEHOLDER_HEAD}": git ignores it in a reftable repository (HEAD comes from the stack), but an older git may read it`,
        });
      }
    } else if (f.path === 'refs/heads' && text(f) === PLACEHOLDER_REFS_HEADS) {
      continue;
    } else if (f.path === 'packed-refs' || f.path.startsWith('refs/')) {
      ignored.push(f.path);
    }
  }
  if (ignored.length) {
    const shown = ignored
      .slice(0, 5)
      .map((p) => JSON.stringify(p))
      .join(', ');
    findings.push({
      severity: 'warning',
      file: root + ignored[0],
      offset: -1,
      message: `${ignored.length} loose ref or packed-refs file${ignored.length === 1 ? '' : 's'} in a reftable repository (${shown}${ignored.length > 5 ? ', …' : ''}): git ignores ${ignored.length === 1 ? 'it' : 'them'}, refs come from the reftable stack only`,
    });
  }
}

/** Most invalid ref names listed one finding each; the rest are counted in one more. */
const MAX_BAD_NAMES_SHOWN = 20;

/**
 * Live ref names that git's `check_refname_format` refuses (refs.ts `invalidRefNames`): git's
 * reftable iterator marks them broken (refs/reftable-backend.c `reftable_ref_iterator_advance`),
 * `for-each-ref` warns "ignoring ref with broken name <name>" and leaves them out
 * (ref-filter.c), so `refs` leaves them out too; a name that is also not safe makes git die
 * ("refname is dangerous"). One finding per name, on the table holding the winning record.
 */
function brokenRefNames(stack: Stack, merged: MergedView, findings: Finding[]): void {
  if (stack.tables.some((t) => t && !t.refs.keyBytes)) return; // stand-in tables: no names
  const bad = invalidRefNames(stack.tables, merged);
  const pathOf = new Map(stack.tables.filter((t): t is Table => !!t).map((t) => [t.name, t.path]));
  const shown = (n: string) => JSON.stringify(displayName(n.length > 200 ? n.slice(0, 200) + '…' : n));
  for (const b of bad.slice(0, MAX_BAD_NAMES_SHOWN)) {
    findings.push(
      b.gitDies
        ? {
            severity: 'error',
            file: pathOf.get(b.table) ?? b.table,
            offset: -1,
            message: `the ref name ${shown(b.name)} is invalid (${b.why}) and not even safe: git dies on it ("refname is dangerous: ${displayName(b.name)}") in every command that lists refs`,
          }
        : {
            severity: 'warning',
            file: pathOf.get(b.table) ?? b.table,
            offset: -1,
            message: `the ref name ${shown(b.name)} is invalid (${b.why}): git leaves it out of \`git for-each-ref\` with the warning "ignoring ref with broken name ${displayName(b.name)}", and refscope's refs list leaves it out as well`,
          },
    );
  }
  if (bad.length > MAX_BAD_NAMES_SHOWN) {
    const dies = bad.slice(MAX_BAD_NAMES_SHOWN).some((b) => b.gitDies);
    findings.push({
      severity: dies ? 'error' : 'warning',
      file: stack.listPath || (pathOf.values().next().value ?? '(stack)'),
      offset: -1,
      message: `${(bad.length - MAX_BAD_NAMES_SHOWN).toLocaleString('en-US')} more invalid ref names: git leaves them out of \`git for-each-ref\` ("ignoring ref with broken name")${dies ? ', and dies on some of them ("refname is dangerous")' : ''}`,
    });
  }
}

/**
 * The live names of the merged view that may differ from another only in ASCII case, in key order
 * (a superset: `caseCollisions` groups them exactly). A pair always has a name with an upper-case
 * letter. When few names have one (most repositories: HEAD and a few branches), those and their
 * all-lower-case forms that are live are the candidates (a binary search each). Otherwise every
 * live name's lower-cased bytes are hashed and the names whose hash another shares are taken.
 * Either way no string is made per ref.
 */
function caseCandidates(tables: (Table | null)[], merged: MergedView): string[] {
  const isLive = (i: number) => tables[merged.table[i]]!.refs.types[merged.rec[i]] !== 0;
  const upper: string[] = [];
  let many = false;
  // A table named on several lines is looked at once, at its newest position (the one that wins).
  const newestAt = new Map<Table, number>();
  tables.forEach((t, ti) => {
    if (t) newestAt.set(t, ti);
  });
  tables.forEach((t, ti) => {
    if (!t || many || newestAt.get(t) !== ti) return;
    const kb = t.refs.keyBytes,
      ks = t.refs.keyStart;
    let r = 0;
    for (let j = firstUpperAscii(kb, 0); j >= 0; j = firstUpperAscii(kb, j + 1)) {
      while (ks[r + 1] <= j) r++;
      if (upper.length > 4096 + (merged.count >> 6)) {
        many = true;
        return;
      }
      const name = t.refs.name(r);
      const i = merged.find(name);
      if (i >= 0 && merged.table[i] === ti && merged.rec[i] === r && isLive(i)) upper.push(name);
      j = ks[r + 1] - 1;
    }
  });
  if (!many) {
    const out = [...upper];
    for (const n of upper) {
      const k = n.replace(/[A-Z]+/g, (c) => c.toLowerCase());
      const i = merged.find(k);
      if (i >= 0 && isLive(i)) out.push(k);
    }
    return [...new Set(out)].sort();
  }
  const live = new Uint32Array(merged.count);
  const hashes = new Uint32Array(merged.count);
  let n = 0;
  for (let i = 0; i < merged.count; i++) {
    const r = tables[merged.table[i]]!.refs;
    const rec = merged.rec[i];
    if (r.types[rec] === 0) continue;
    const kb = r.keyBytes;
    let h = 0x811c9dc5;
    for (let j = r.keyStart[rec], e = r.keyStart[rec + 1]; j < e; j++) {
      const c = kb[j];
      h = Math.imul(h ^ (c >= 0x41 && c <= 0x5a ? c + 0x20 : c), 0x01000193);
    }
    hashes[n] = h >>> 0;
    live[n++] = i;
  }
  const sorted = hashes.slice(0, n).sort();
  const shared = new Set<number>();
  for (let k = 1; k < n; k++) if (sorted[k] === sorted[k - 1]) shared.add(sorted[k]);
  const out: string[] = [];
  if (shared.size) for (let k = 0; k < n; k++) if (shared.has(hashes[k])) out.push(merged.key(live[k]));
  return out;
}

/** Most case-only collision groups listed by name in the finding. */
const MAX_COLLISIONS_SHOWN = 10;

/**
 * Refs whose names differ only in ASCII case (`refs/heads/Foo`, `refs/heads/foo`). Both are valid
 * in a reftable, but on a case-insensitive file system the files backend stores them in one
 * loose file, so migrating such a repository (`git refs migrate`) or cloning it with the files
 * backend loses one of them.
 */
function caseCollisions(names: string[], findings: Finding[], file: string): void {
  const groups = new Map<string, string[]>();
  for (const n of names) {
    const k = n.replace(/[A-Z]+/g, (c) => c.toLowerCase());
    const g = groups.get(k);
    if (g) g.push(n);
    else groups.set(k, [n]);
  }
  const hit = [...groups.values()].filter((g) => g.length > 1);
  if (!hit.length) return;
  const shown = hit
    .slice(0, MAX_COLLISIONS_SHOWN)
    .map((g) => g.map((n) => JSON.stringify(n.length > 120 ? n.slice(0, 120) + '…' : n)).join(' vs '))
    .join('; ');
  findings.push({
    severity: 'warning',
    file,
    offset: -1,
    message: `${hit.length} group${hit.length === 1 ? '' : 's'} of ref names differ only in case (${shown}${hit.length > MAX_COLLISIONS_SHOWN ? '; …' : ''}): on a case-insensitive file system the files backend keeps only one of each, so a conversion or a files-backend clone loses refs`,
  });
}
