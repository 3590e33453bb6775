/**
 * `refscope compact <path> --out <dir> [--auto | --all] [--factor N]`: compact a reftable stack as
 * `git pack-refs` (`--all`, the default) or `git pack-refs --auto` (`--auto`, git's geometric rule)
 * would, and write the complete resulting `reftable/` directory: the new table, the tables outside
 * the segment copied byte for byte, and `tables.list`.
 * `refscope convert <packed-refs or .git> --out <dir>`: a one-table reftable stack from a
 * files-backend repository, as `git refs migrate --ref-format=reftable` writes it.
 *
 * `--out <dir>` receives a `reftable/` directory (`<dir>/reftable/`), or is that directory itself
 * when its last component is `reftable`; it must not exist yet or be empty.
 * Exit codes as the other commands: 0, 2 usage, 3 invalid input (one line on stderr).
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  UsageError,
  intOption,
  flag,
  str,
  writeJson,
  FACTOR_OPTION,
  type CommandSpec,
  type Context,
  type OptionSpec,
} from './common.ts';
import { loadPath, inputFiles, checkDeadline } from './load.ts';
import { FormatError, displayName } from '../engine/basics.ts';
import { GENERATOR } from '../engine/report.ts';
import { jsonName } from './refs-cmd.ts';
import { stackLocks } from '../engine/analyze.ts';
import { classifyInput } from '../engine/input.ts';
import { loadFilesRepo } from '../engine/files.ts';
import {
  compactAll,
  compactAuto,
  convertFilesToReftable,
  stackFiles,
  stackFilesAfter,
  type CompactResult,
  type StackFile,
} from '../engine/reftable/compact.ts';

const n = (v: number): string => v.toLocaleString('en-US');

/** The `reftable/` directory to write (see the module comment); refuses a non-empty one. */
function outDir(ctx: Context): string {
  const out = str(ctx, 'out');
  if (!out) throw new UsageError('--out <dir> is required');
  const dir = path.basename(path.resolve(out)) === 'reftable' ? out : path.join(out, 'reftable');
  if (fs.existsSync(dir) && (!fs.statSync(dir).isDirectory() || fs.readdirSync(dir).length > 0)) {
    throw new UsageError(`${dir} exists and is not an empty directory; choose a new --out`);
  }
  // The nearest existing ancestor must be a directory (checked now, before any work is done).
  for (let up = path.dirname(path.resolve(dir)); ; up = path.dirname(up)) {
    if (fs.existsSync(up)) {
      if (!fs.statSync(up).isDirectory()) throw new UsageError(`${up} is not a directory; --out must name a directory`);
      break;
    }
    if (path.dirname(up) === up) break;
  }
  return dir;
}

/** Write the tables first and `tables.list` last (as git commits a stack update). */
function writeStack(dir: string, files: StackFile[]): void {
  fs.mkdirSync(dir, { recursive: true });
  const list = files.find((f) => f.name === 'tables.list');
  for (const f of files) if (f !== list) fs.writeFileSync(path.join(dir, f.name), f.bytes);
  if (list) fs.writeFileSync(path.join(dir, list.name), list.bytes);
}

function describe(res: CompactResult): string {
  const { start, end } = res.segment;
  const s = res.stats;
  const lines = [
    `compacted tables ${start}–${end} (${n(s.tablesIn)} tables, ${n(s.bytesIn)} bytes) into ` +
      (res.empty
        ? 'nothing: every record cancelled out, no table is listed'
        : `${res.name} (${n(res.bytes.length)} bytes)`),
    `  ${n(s.refsOut)} ref records and ${n(s.logsOut)} log records written; ${n(s.shadowedRefs + s.shadowedLogs)} shadowed records merged away`,
  ];
  if (res.dropsDeletions) {
    lines.push(
      `  ${n(s.tombstonesDropped)} tombstones and ${n(s.logDeletionsDropped)} log deletions dropped (the segment starts at the base table)`,
    );
  } else {
    const sd = res.specDroppable;
    lines.push(
      `  ${n(s.tombstonesKept)} tombstones and ${n(s.logDeletionsKept)} log deletions carried forward (git drops them only when the segment starts at the base table` +
        (sd.tombstones + sd.logDeletions > 0
          ? `; the specification would allow dropping ${n(sd.tombstones)} tombstones and ${n(sd.logDeletions)} log deletions whose key no older table has)`
          : ')'),
    );
  }
  return lines.join('\n');
}

export const COMPACT_SCHEMA = 'refscope.compact/1';
export const CONVERT_SCHEMA = 'refscope.convert/1';

/** The table layout options of both commands (git's defaults when absent). */
const LAYOUT_OPTIONS: Record<string, OptionSpec> = {
  'block-size': {
    type: 'string',
    value: 'N',
    help: "block size of the new table, 256 to 16,777,215 bytes (default 4096, git's reftable.blockSize)",
  },
  'restart-interval': {
    type: 'string',
    value: 'N',
    help: "records between restart points, 1 to 65,535 (default 16, git's reftable.restartInterval)",
  },
};

/** The written files as JSON: name and size, tables.list last. */
function writtenFiles(files: StackFile[]): { name: string; bytes: number }[] {
  return files.map((f) => ({ name: f.name, bytes: f.bytes.length }));
}

/** `compact`: git pack-refs [--auto] into a new directory. */
export const compactCommand: CommandSpec = {
  name: 'compact',
  usage: '<path> --out <dir> [--all | --auto [--factor N]] [options]',
  summary:
    "Compact a reftable stack as git pack-refs (--all, the default) or git pack-refs --auto (git's geometric rule) would, and write the complete resulting reftable/ directory: the new table, the tables outside the segment copied byte for byte, and tables.list.",
  args: { min: 1, max: 1 },
  options: {
    out: {
      type: 'string',
      value: '<dir>',
      help: 'write <dir>/reftable/ (or <dir> itself when it is named reftable); it must not exist or be empty',
    },
    all: { type: 'boolean', help: 'everything into one table, as git pack-refs (the default)' },
    auto: { type: 'boolean', help: "only the segment git's geometric rule picks, as git pack-refs --auto" },
    factor: { ...FACTOR_OPTION, help: "with --auto: git's reftable.geometricFactor, 2 to 255 (default 2)" },
    ...LAYOUT_OPTIONS,
  },
  schema: COMPACT_SCHEMA,
  run(ctx: Context): number {
    if (flag(ctx, 'auto') && flag(ctx, 'all')) throw new UsageError('--auto and --all exclude each other');
    const auto = flag(ctx, 'auto');
    if (str(ctx, 'factor') !== undefined && !auto) throw new UsageError('--factor applies to --auto');
    const factor = intOption(ctx, 'factor', 2, 255) ?? 2;
    const blockSize = intOption(ctx, 'block-size', 256, 16777215);
    const restartInterval = intOption(ctx, 'restart-interval', 1, 65535);
    const p = ctx.positionals[0];
    const dir = outDir(ctx);
    const a = loadPath(p, ctx);
    if (!a.stack) throw new UsageError(`${p} is not a reftable stack (${a.input.description}); use convert`);
    const err = a.stack.broken[0]?.error;
    // git cannot read the stack, so it compacts nothing: refuse, saying so first
    if (err)
      throw new FormatError(
        err.file,
        err.offset,
        `${err.expected} (git cannot read this stack, so git pack-refs fails on it too; nothing written)`,
      );
    if (a.stack.tables.length === 0) throw new FormatError(a.stack.listPath || p, 0, 'a stack with at least one table');
    const opts = { blockSize, restartInterval };
    const locks = stackLocks(a);
    const res = auto ? compactAuto(a.stack, { ...opts, factor, locks }) : compactAll(a.stack, { ...opts, locks });
    checkDeadline(ctx, p);
    let files: StackFile[];
    let summary: string;
    if (!res) {
      summary = `nothing to compact: the table sizes already form a geometric sequence (factor ${factor}); copying the stack unchanged`;
      files = stackFiles(a.stack);
    } else {
      summary = res.changed
        ? describe(res)
        : 'nothing to compact: a single table (git leaves it as it is); copying it unchanged';
      files = stackFilesAfter(a.stack, res);
    }
    // Written first, reported after: a failed write leaves no success line behind.
    writeStack(dir, files);
    if (ctx.json) {
      writeJson({
        schema: COMPACT_SCHEMA,
        generator: GENERATOR,
        mode: auto ? 'auto' : 'all',
        factor: auto ? factor : null,
        out: dir,
        changed: res ? res.changed : false,
        segment: res ? res.segment : null,
        newTable: res && res.changed && !res.empty ? { name: res.name, bytes: res.bytes.length } : null,
        empty: res ? res.empty : false,
        dropsDeletions: res ? res.dropsDeletions : false,
        stats: res ? res.stats : null,
        specDroppable: res ? res.specDroppable : null,
        files: writtenFiles(files),
        summary,
      });
    } else {
      process.stdout.write(
        `${summary}\nwrote ${dir}: ${n(files.length - 1)} table${files.length === 2 ? '' : 's'} and tables.list\n`,
      );
    }
    return 0;
  },
};

/** `convert`: packed-refs / files backend into a one-table reftable stack. */
export const convertCommand: CommandSpec = {
  name: 'convert',
  usage: '<path> --out <dir> [options]',
  summary:
    'Convert a packed-refs file or a files-backend .git directory into a one-table reftable stack, as git refs migrate --ref-format=reftable writes it.',
  args: { min: 1, max: 1 },
  options: {
    out: {
      type: 'string',
      value: '<dir>',
      help: 'write <dir>/reftable/ (or <dir> itself when it is named reftable); it must not exist or be empty',
    },
    ...LAYOUT_OPTIONS,
    'no-reflog': { type: 'boolean', help: 'leave the reflogs out (only ref records are written)' },
  },
  schema: CONVERT_SCHEMA,
  run(ctx: Context): number {
    const blockSize = intOption(ctx, 'block-size', 256, 16777215);
    const restartInterval = intOption(ctx, 'restart-interval', 1, 65535);
    const p = ctx.positionals[0];
    const dir = outDir(ctx);
    const files = inputFiles(p);
    const input = classifyInput(files);
    if (input.kind === 'reftable')
      throw new UsageError(`${p} is already a reftable stack (${input.description}); use compact`);
    if (input.kind === 'empty')
      throw new FormatError(files[0]?.path ?? p, -1, 'a packed-refs file or a files-backend .git directory');
    const repo = loadFilesRepo(input.gitFiles);
    if (repo.fatal) throw new FormatError(repo.fatal.file, repo.fatal.offset, repo.fatal.message);
    checkDeadline(ctx, p);
    const res = convertFilesToReftable(repo, { blockSize, restartInterval, noReflog: flag(ctx, 'no-reflog') });
    checkDeadline(ctx, p);
    for (const s of res.skipped)
      process.stderr.write(`refscope: warning: left out ${displayName(s.name)}: ${s.reason}\n`);
    const written: StackFile[] = [
      { name: res.name, bytes: res.bytes },
      { name: 'tables.list', bytes: new TextEncoder().encode(res.tablesList) },
    ];
    writeStack(dir, written);
    const r = res.refs;
    if (ctx.json) {
      writeJson({
        schema: CONVERT_SCHEMA,
        generator: GENERATOR,
        input: { kind: input.kind, description: input.description },
        out: dir,
        table: {
          name: res.name,
          bytes: res.bytes.length,
          minUpdateIndex: res.minUpdateIndex,
          maxUpdateIndex: res.maxUpdateIndex,
        },
        refs: { ...r },
        logs: res.logs,
        unpeeled: res.unpeeled,
        skipped: res.skipped.map((s) => ({ ...jsonName(s.name), reason: s.reason })),
        files: writtenFiles(written),
      });
      return 0;
    }
    process.stdout.write(
      `converted ${input.description}: ${n(r.direct + r.peeled + r.symref)} refs (${n(r.peeled)} with a peeled value, ${n(r.symref)} symrefs) and ${n(res.logs)} reflog entries\n` +
        `wrote ${dir}: ${res.name} (${n(res.bytes.length)} bytes, update indexes ${res.minUpdateIndex}–${res.maxUpdateIndex}) and tables.list\n` +
        (res.unpeeled
          ? `  ${n(res.unpeeled)} refs without a known peeled value: git peels them through the object database, so refs to annotated tags among them would carry one in git's table\n`
          : ''),
    );
    return 0;
  },
};
