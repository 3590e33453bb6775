/**
 * The `refscope` command line tool: dispatch to the commands of commands.ts, `--version`,
 * `--help`, and the one place errors become exit codes. Exit codes as git's: 0 success, 2 usage
 * error, 3 invalid input (one line on stderr: `refscope: <file>: offset <n>: expected <what>`),
 * 141 when the reader of the output went away (128 + SIGPIPE).
 */
import { FormatError, oneLine } from '../engine/basics.ts';
import { COMMANDS } from './commands.ts';
import { UsageError, parseCommand, version, EXIT_EPIPE, EXIT_INPUT, EXIT_USAGE, DEFAULT_BUDGET_S } from './common.ts';

export { UsageError, EXIT_EPIPE } from './common.ts';

/** The top-level usage text. */
export function usage(): string {
  return `usage: refscope <command> [options] [--] <path>
       refscope <command> --help | refscope --help | refscope --version

commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(10)}${c.summary}`).join('\n')}

<path> is a reftable/ directory, a tables.list or .ref file, a packed-refs file, a .git
directory (or bare repository) of either backend, or - for one table or packed-refs file on
standard input. Every command takes --json (a versioned JSON document, schemas/ in the package)
and --budget <seconds> (a wall-clock bound, default ${DEFAULT_BUDGET_S}).
Exit codes: 0 success, 2 usage error, 3 invalid input or budget exceeded, 141 closed pipe.
`;
}

/** What a path should have been, for a system error on it (one line, no error code twice). */
function systemExpectation(err: NodeJS.ErrnoException): string {
  const op = err.syscall ? `, ${err.syscall}` : '';
  switch (err.code) {
    case 'ENOENT':
      return `an existing file or directory (none there${op})`;
    case 'EACCES':
    case 'EPERM':
      return `a file or directory refscope may ${err.syscall === 'open' || err.syscall === 'read' || err.syscall === 'scandir' ? 'read' : 'use'} (permission denied${op})`;
    case 'EISDIR':
      return `a file, found a directory${op ? ` (${err.syscall})` : ''}`;
    case 'ENOTDIR':
      return `a directory on this path, found a file${op ? ` (${err.syscall})` : ''}`;
    case 'EEXIST':
      return `a path that does not exist yet (it exists${op})`;
    case 'ENOSPC':
      return `room on the device to write (no space left${op})`;
    case 'EADDRINUSE':
      return `a free port (in use${op})`;
    default:
      return `a readable input and a writable output (${err.code}${op})`;
  }
}

/** Run the CLI; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    if (cmd === undefined) {
      process.stderr.write(usage());
      return EXIT_USAGE;
    }
    if (cmd === '--help' || cmd === '-h' || (cmd === 'help' && rest.length === 0)) {
      process.stdout.write(usage());
      return 0;
    }
    if (cmd === '--version' || cmd === 'version') {
      if (rest.length) throw new UsageError(`--version takes no arguments`);
      process.stdout.write(`refscope ${version()}\n`);
      return 0;
    }
    const name = cmd === 'help' ? rest[0] : cmd;
    const entry = COMMANDS.find((c) => c.name === name);
    if (!entry) {
      if (cmd.startsWith('-'))
        throw new UsageError(`unknown option ${cmd} (before a command only --help and --version)`);
      throw new UsageError(
        `unknown command ${JSON.stringify(name)}; the commands are ${COMMANDS.map((c) => c.name).join(', ')}`,
      );
    }
    const spec = await entry.load();
    const ctx = parseCommand(spec, cmd === 'help' ? ['--help'] : rest);
    if (!ctx) return 0;
    try {
      return await spec.run(ctx);
    } finally {
      ctx.progress.done();
    }
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(
        `refscope: ${oneLine(e.message)}\nrun 'refscope ${COMMANDS.some((c) => c.name === cmd) ? `${cmd} ` : ''}--help' for the options\n`,
      );
      return EXIT_USAGE;
    }
    if (e instanceof FormatError) {
      process.stderr.write(`refscope: ${e.message}\n`);
      return EXIT_INPUT;
    }
    if (e instanceof Error && e.name === 'ShareLinkError') {
      process.stderr.write(`refscope: ${oneLine(e.message)}\n`);
      return EXIT_INPUT;
    }
    const err = e as NodeJS.ErrnoException;
    // The reader of our output went away (`refscope refs … | head`): stop quietly, as git does
    // when SIGPIPE ends it (exit 141 = 128 + SIGPIPE, what a shell reports for git).
    if (err && err.code === 'EPIPE') return EXIT_EPIPE;
    if (err && typeof err.code === 'string' && /^E[A-Z]+$/.test(err.code)) {
      // A system error on a path (unreadable input, an output directory that cannot be made, …).
      process.stderr.write(
        `refscope: ${oneLine(String(err.path ?? (err.code === 'EADDRINUSE' ? '(port)' : '(output)')))}: offset 0: expected ${systemExpectation(err)}\n`,
      );
      return EXIT_INPUT;
    }
    if (e instanceof RangeError) {
      // Allocation failures on absurd inputs: say so in one line rather than with a stack trace.
      process.stderr.write(
        `refscope: (input): offset 0: expected an input that fits in memory (${oneLine(e.message)})\n`,
      );
      return EXIT_INPUT;
    }
    // Anything else is a defect of refscope, not of the input; still one line, never a stack
    // trace (docs/limits.md "One contract"). REFSCOPE_DEBUG=1 shows the trace.
    if (process.env.REFSCOPE_DEBUG) throw e;
    const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    process.stderr.write(
      `refscope: (refscope): offset 0: expected the command to finish (a defect stopped it: ${oneLine(what).slice(0, 300)})\n`,
    );
    return EXIT_INPUT;
  }
}
