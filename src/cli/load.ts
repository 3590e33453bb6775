/**
 * Loading what a command reads: a path on disk or standard input (`-`), analysed within the
 * command's deadline with progress on a terminal. Only the command modules import this (and with
 * it the engine); main.ts and common.ts do not, so `--version` and `--help` stay quick.
 */
import fs from 'node:fs';
// The engine's modules themselves, not its index (which brings in the report and the simulator
// for every command that loads a path).
import { FormatError, memorySource, type InputFile } from '../engine/basics.ts';
import { analyzeFiles, type Analysis } from '../engine/analyze.ts';
import { classifyInput, type ClassifiedInput } from '../engine/input.ts';
import { parseTablesList } from '../engine/reftable/stack.ts';
import { collectInput, readInputCapped } from './node-input.ts';
import { watchTables } from './progress.ts';
import { UsageError, type Context } from './common.ts';

/** The name standard input's bytes are shown under in messages. */
export const STDIN_NAME = '(stdin)';

let stdinTaken = false;
/** All of standard input, once (a second `-` in the same command is a usage error). */
export function readStdin(what: string, file = '-', max = MAX_STDIN_TABLE, kind = 'input'): Uint8Array {
  if (file !== '-') return readInputCapped(file, max, kind);
  if (stdinTaken) throw new UsageError(`standard input is read once; ${what} cannot be - as well`);
  stdinTaken = true;
  // Capped like every other read: /dev/zero or an endless pipe ends with one line, not with memory.
  return readInputCapped('-', max, kind);
}

/** The most refscope reads from standard input as one table or packed-refs file. */
export const MAX_STDIN_TABLE = 512 * 1048576;

/**
 * Standard input as one input file: a reftable table (it starts with the magic `REFT`) or a
 * `packed-refs` file (anything else; its header or first line says which).
 */
export function stdinInput(): InputFile[] {
  const bytes = readStdin('the path');
  const isTable = bytes.length >= 4 && bytes[0] === 0x52 && bytes[1] === 0x45 && bytes[2] === 0x46 && bytes[3] === 0x54;
  return [{ path: isTable ? `${STDIN_NAME}.ref` : 'packed-refs', source: memorySource(bytes) }];
}

/** The input files of a path argument: a path on disk, or standard input for `-`. */
export function inputFiles(p: string | undefined): InputFile[] {
  if (!p) throw new UsageError('missing <path>');
  if (p === '-') return stdinInput();
  if (!fs.existsSync(p)) throw new UsageError(`no such file or directory: ${p}`);
  return collectInput(p);
}

/**
 * Tables up to this size are read with one `read`; larger ones block by block. A whole-file
 * buffer would sit beside the record columns built from it: for a 26 MB table of a million refs
 * that is a fifth of the process's peak memory, for a few milliseconds of reads saved.
 */
export const CLI_WHOLE_READ = 8 * 1048576;

/**
 * Bytes a table over `CLI_WHOLE_READ` is read at a time (`OpenOptions.readAhead`): a million-ref
 * table is 26 reads, not one per block (some 19,000).
 */
export const CLI_READ_AHEAD = 1 << 20;

/**
 * The one table file of a reftable stack of exactly one table (what `git pack-refs` and `git gc`
 * leave: `tables.list` names one table, or a lone `.ref` file), or null for anything else
 * (several tables, a worktree, packed-refs, a `tables.list` that does not parse: the general
 * path words its errors).
 */
export function oneTableOf(input: ClassifiedInput): InputFile | null {
  if (input.kind !== 'reftable' || input.worktree) return null;
  const list = input.tablesList;
  if (!list) return input.tableFiles.length === 1 ? input.tableFiles[0] : null;
  if (list.source.size > 1 << 16) return null;
  let names: string[];
  try {
    names = parseTablesList(list.path, list.source.read(0, list.source.size));
  } catch {
    return null;
  }
  if (names.length !== 1) return null;
  return input.tableFiles.find((f) => f.path.split('/').pop() === names[0]) ?? null;
}

/**
 * Load and analyse a path (or `-`); throws FormatError (including the deadline's BudgetError) or
 * UsageError. With a context, the analysis stops at its deadline and shows progress; `open.logs`
 * false leaves log blocks unread (what `refs` needs, as git for-each-ref reads no reflog);
 * `open.ids` says from the input whether the ref columns need object ids (`OpenOptions.ids`).
 */
export function loadPath(
  p: string | undefined,
  ctx?: Context,
  open: { logs?: boolean; ids?: (input: ClassifiedInput) => boolean } = {},
): Analysis {
  const files = inputFiles(p);
  if (classifyInput(files).kind === 'empty' && !files.some((f) => f.path.split('/').pop() === 'config')) {
    throw new FormatError(
      p!,
      0,
      'a reftable/ directory with tables.list, a .ref file, a packed-refs file or a .git directory; found none of these',
    );
  }
  if (!ctx) return analyzeFiles(files);
  const watched = watchTables(files, ctx.progress);
  try {
    return analyzeFiles(watched.files, {
      wholeReadLimit: CLI_WHOLE_READ,
      readAhead: CLI_READ_AHEAD,
      logs: open.logs,
      ids: open.ids ? open.ids(classifyInput(watched.files)) : true,
      deadline: ctx.deadline,
      onProgress: watched.onBytes,
    });
  } finally {
    ctx.progress.done();
  }
}

/** First parse error of an analysis, as a FormatError, or null. */
export function firstError(a: Analysis): FormatError | null {
  const broken = a.stack?.broken[0]?.error;
  if (broken) return broken;
  const f = a.findings.find((x) => x.severity === 'error');
  return f ? new FormatError(f.file, f.offset, f.message) : null;
}

/** Throws the deadline's error between steps that have no budget check of their own. */
export function checkDeadline(ctx: Context, where: string): void {
  if (Date.now() > ctx.deadline)
    throw new FormatError(
      where,
      0,
      `the command to finish within its ${ctx.budgetMs / 1000} s budget (--budget); stopped here`,
    );
}
