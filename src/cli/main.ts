/**
 * The `refscope` command line tool. Exit codes: 0 success, 2 usage error, 3 invalid input
 * (one line on stderr: `refscope: <file>: offset <n>: expected <what>`).
 */
import { FormatError, displayName, oneLine } from '../engine/basics.ts';
import { analysisRefs, listRefsBytes } from '../engine/index.ts';
import { buildReport, type Report } from '../engine/report.ts';
import { formatReport } from './format.ts';
import { extraCommands } from './commands.ts';
import { UsageError, parseArgs, loadPath, firstError, factorFlag } from './common.ts';

export { UsageError, parseArgs, loadPath, firstError } from './common.ts';

/** The usage text (a function: the command list is complete only once every module loaded). */
export function usage(): string {
  return `usage: refscope <command> [options]

commands:
  refs <path>                 live refs, one "<object id> <refname>" per line (as git for-each-ref)
  analyze <path> [--json] [--factor N]
                              report on a reftable stack, packed-refs file or .git directory
${extraCommands.map((c) => `  ${c.usage.padEnd(28)}${c.summary}`).join('\n')}

<path> is a reftable/ directory, a tables.list or .ref file, a packed-refs file, or a .git
directory (or bare repository) of either backend.`;
}

/** Exit code when stdout's reader has gone (128 + SIGPIPE, as a shell reports git's). */
export const EXIT_EPIPE = 141;

/** What a path should have been, for a system error on it (one line, no error code twice). */
function systemExpectation(err: NodeJS.ErrnoException): string {
  const op = err.syscall ? `, ${err.syscall}` : '';
  switch (err.code) {
    case 'ENOENT': return `an existing file or directory (none there${op})`;
    case 'EACCES': case 'EPERM': return `a file or directory refscope may ${err.syscall === 'open' || err.syscall === 'read' || err.syscall === 'scandir' ? 'read' : 'use'} (permission denied${op})`;
    case 'EISDIR': return `a file, found a directory${op ? ` (${err.syscall})` : ''}`;
    case 'ENOTDIR': return `a directory on this path, found a file${op ? ` (${err.syscall})` : ''}`;
    case 'EEXIST': return `a path that does not exist yet (it exists${op})`;
    case 'ENOSPC': return `room on the device to write (no space left${op})`;
    default: return `a readable input and a writable output (${err.code}${op})`;
  }
}

/** Write bytes to stdout and wait until they are flushed (large outputs, pipes). */
function writeOut(b: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => process.stdout.write(b, (e) => (e ? reject(e) : resolve())));
}

function write(s: string): void {
  process.stdout.write(s);
}

/** Run the CLI; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
      write(usage() + '\n');
      return cmd ? 0 : 2;
    }
    if (cmd === 'refs') {
      const args = parseArgs(rest, [], []);
      const a = loadPath(args.pos[0]);
      const err = a.stack?.broken[0]?.error;
      if (err) throw err;
      if (a.stack && a.merged) {
        await writeOut(listRefsBytes(a.stack.tables, a.merged));
        return 0;
      }
      const refs = analysisRefs(a);
      // Names are byte strings: write them as raw bytes.
      const chunks: string[] = [];
      for (const r of refs) chunks.push(`${r.oid} ${r.name}\n`);
      process.stdout.write(Buffer.from(chunks.join(''), 'latin1'));
      return 0;
    }
    if (cmd === 'analyze') {
      const args = parseArgs(rest, ['factor'], ['json']);
      const a = loadPath(args.pos[0]);
      const factor = factorFlag(args.flags);
      const report: Report = buildReport(a, { factor });
      write(args.flags.has('json') ? JSON.stringify(report, null, 2) + '\n' : formatReport(report));
      const err = firstError(a);
      if (err) {
        process.stderr.write(`refscope: ${displayName(err.message)}\n`);
        return 3;
      }
      return 0;
    }
    const extra = extraCommands.find((c) => c.name === cmd);
    if (extra) return await extra.run(rest);
    throw new UsageError(`unknown command: ${cmd}`);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`refscope: ${e.message}\nrun 'refscope --help' for the commands and options\n`);
      return 2;
    }
    if (e instanceof FormatError) {
      process.stderr.write(`refscope: ${e.message}\n`);
      return 3;
    }
    if (e instanceof Error && e.name === 'ShareLinkError') {
      process.stderr.write(`refscope: ${oneLine(e.message)}\n`);
      return 3;
    }
    const err = e as NodeJS.ErrnoException;
    // The reader of our output went away (`refscope refs … | head`): stop quietly, as git does
    // when SIGPIPE ends it (exit 141 = 128 + SIGPIPE, what a shell reports for git).
    if (err && err.code === 'EPIPE') return EXIT_EPIPE;
    if (err && typeof err.code === 'string' && /^E[A-Z]+$/.test(err.code)) {
      // A system error on a path (unreadable input, an output directory that cannot be made, …).
      process.stderr.write(`refscope: ${oneLine(String(err.path ?? '(output)'))}: offset 0: expected ${systemExpectation(err)}\n`);
      return 3;
    }
    if (e instanceof RangeError) {
      // Allocation failures on absurd inputs: say so in one line rather than with a stack trace.
      process.stderr.write(`refscope: (input): offset 0: expected an input that fits in memory (${oneLine(e.message)})\n`);
      return 3;
    }
    throw e;
  }
}
