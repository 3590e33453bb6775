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
import type { Command } from './commands.ts';
import { parseArgs, loadPath, UsageError, intFlag } from './common.ts';
import { collectInput } from './node-input.ts';
import { FormatError, displayName } from '../engine/basics.ts';
import { stackLocks } from '../engine/analyze.ts';
import { classifyInput } from '../engine/input.ts';
import { loadFilesRepo } from '../engine/files.ts';
import { compactAll, compactAuto, convertFilesToReftable, stackFiles, stackFilesAfter, type CompactResult, type StackFile } from '../engine/compact.ts';

const n = (v: number): string => v.toLocaleString('en-US');

/** The `reftable/` directory to write (see the module comment); refuses a non-empty one. */
function outDir(flags: Map<string, string | true>): string {
  const out = flags.get('out');
  if (typeof out !== 'string' || !out) throw new UsageError('--out <dir> is required');
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
      (res.empty ? 'nothing: every record cancelled out, no table is listed' : `${res.name} (${n(res.bytes.length)} bytes)`),
    `  ${n(s.refsOut)} ref records and ${n(s.logsOut)} log records written; ${n(s.shadowedRefs + s.shadowedLogs)} shadowed records merged away`,
  ];
  if (res.dropsDeletions) {
    lines.push(`  ${n(s.tombstonesDropped)} tombstones and ${n(s.logDeletionsDropped)} log deletions dropped (the segment starts at the base table)`);
  } else {
    const sd = res.specDroppable;
    lines.push(`  ${n(s.tombstonesKept)} tombstones and ${n(s.logDeletionsKept)} log deletions carried forward (git drops them only when the segment starts at the base table` +
      (sd.tombstones + sd.logDeletions > 0 ? `; the specification would allow dropping ${n(sd.tombstones)} tombstones and ${n(sd.logDeletions)} log deletions whose key no older table has)` : ')'));
  }
  return lines.join('\n');
}

/** `compact`: git pack-refs [--auto] into a new directory. */
export const compactCommand: Command = {
  name: 'compact',
  usage: 'compact <path> --out <dir>',
  summary: 'write the stack after git pack-refs: --all (default) or --auto [--factor N]; a new reftable/ in <dir>',
  run(argv: string[]): number {
    const args = parseArgs(argv, ['out', 'factor', 'block-size', 'restart-interval'], ['auto', 'all']);
    if (args.flags.has('auto') && args.flags.has('all')) throw new UsageError('--auto and --all exclude each other');
    const auto = args.flags.has('auto');
    if (args.flags.has('factor') && !auto) throw new UsageError('--factor applies to --auto');
    const factor = intFlag(args.flags, 'factor', 2, 255) ?? 2;
    const blockSize = intFlag(args.flags, 'block-size', 256, 16777215);
    const restartInterval = intFlag(args.flags, 'restart-interval', 1, 65535);
    if (args.pos.length > 1) throw new UsageError(`one <path>, got ${args.pos.length}`);
    const dir = outDir(args.flags);
    const a = loadPath(args.pos[0]);
    if (!a.stack) throw new UsageError(`${args.pos[0]} is not a reftable stack (${a.input.description}); use convert`);
    const err = a.stack.broken[0]?.error;
    // git cannot read the stack, so it compacts nothing: refuse, saying so first
    if (err) throw new FormatError(err.file, err.offset, `${err.expected} (git cannot read this stack, so git pack-refs fails on it too; nothing written)`);
    if (a.stack.tables.length === 0) throw new FormatError(a.stack.listPath || args.pos[0], 0, 'a stack with at least one table');
    const opts = { blockSize, restartInterval };
    const locks = stackLocks(a);
    const res = auto ? compactAuto(a.stack, { ...opts, factor, locks }) : compactAll(a.stack, { ...opts, locks });
    let files: StackFile[];
    let summary: string;
    if (!res) {
      summary = `nothing to compact: the table sizes already form a geometric sequence (factor ${factor}); copying the stack unchanged`;
      files = stackFiles(a.stack);
    } else {
      summary = res.changed ? describe(res) : 'nothing to compact: a single table (git leaves it as it is); copying it unchanged';
      files = stackFilesAfter(a.stack, res);
    }
    // Written first, reported after: a failed write leaves no success line behind.
    writeStack(dir, files);
    process.stdout.write(`${summary}\nwrote ${dir}: ${n(files.length - 1)} table${files.length === 2 ? '' : 's'} and tables.list\n`);
    return 0;
  },
};

/** `convert`: packed-refs / files backend into a one-table reftable stack. */
export const convertCommand: Command = {
  name: 'convert',
  usage: 'convert <path> --out <dir>',
  summary: 'packed-refs or .git into a one-table reftable stack (git refs migrate); --block-size N, --restart-interval N',
  run(argv: string[]): number {
    const args = parseArgs(argv, ['out', 'block-size', 'restart-interval'], ['no-reflog']);
    const blockSize = intFlag(args.flags, 'block-size', 256, 16777215);
    const restartInterval = intFlag(args.flags, 'restart-interval', 1, 65535);
    const p = args.pos[0];
    if (!p) throw new UsageError('missing <path>');
    if (args.pos.length > 1) throw new UsageError(`one <path>, got ${args.pos.length}`);
    if (!fs.existsSync(p)) throw new UsageError(`no such file or directory: ${p}`);
    const dir = outDir(args.flags);
    const files = collectInput(p);
    const input = classifyInput(files);
    if (input.kind === 'reftable') throw new UsageError(`${p} is already a reftable stack (${input.description}); use compact`);
    if (input.kind === 'empty') throw new FormatError(files[0]?.path ?? p, -1, 'a packed-refs file or a files-backend .git directory');
    const repo = loadFilesRepo(input.gitFiles);
    if (repo.fatal) throw new FormatError(repo.fatal.file, repo.fatal.offset, repo.fatal.message);
    const res = convertFilesToReftable(repo, { blockSize, restartInterval, noReflog: args.flags.has('no-reflog') });
    for (const s of res.skipped) process.stderr.write(`refscope: warning: left out ${displayName(s.name)}: ${s.reason}\n`);
    writeStack(dir, [{ name: res.name, bytes: res.bytes }, { name: 'tables.list', bytes: new TextEncoder().encode(res.tablesList) }]);
    const r = res.refs;
    process.stdout.write(
      `converted ${input.description}: ${n(r.direct + r.peeled + r.symref)} refs (${n(r.peeled)} with a peeled value, ${n(r.symref)} symrefs) and ${n(res.logs)} reflog entries\n` +
        `wrote ${dir}: ${res.name} (${n(res.bytes.length)} bytes, update indexes ${res.minUpdateIndex}–${res.maxUpdateIndex}) and tables.list\n` +
        (res.unpeeled ? `  ${n(res.unpeeled)} refs without a known peeled value: git peels them through the object database, so refs to annotated tags among them would carry one in git's table\n` : ''),
    );
    return 0;
  },
};

export const compactCommands: Command[] = [compactCommand, convertCommand];
