/**
 * What every CLI command shares: the command description (`CommandSpec`), argument parsing with
 * `node:util` parseArgs, generated `--help`, the CLI-wide deadline (`--budget`), usage errors.
 * Loading a path is in load.ts: this module does not import the engine, so `--version` and
 * `--help` start without initialising it. Kept apart from main.ts so that command modules and
 * main.ts do not import each other.
 */
import fs from 'node:fs';
import { parseArgs as nodeParseArgs } from 'node:util';
import { Progress } from './progress.ts';

/** Thrown for a usage error (exit 2). */
export class UsageError extends Error {}

/** Exit codes, as git's: success, usage error, invalid input, closed pipe (128 + SIGPIPE). */
export const EXIT_OK = 0;
/** `show` of a name that nothing in the input holds, as `git show-ref <name>` exits 1. */
export const EXIT_NOTHING = 1;
export const EXIT_USAGE = 2;
export const EXIT_INPUT = 3;
export const EXIT_EPIPE = 141;

/** One option of a command. The key of `CommandSpec.options` is its long name (`--<key>`). */
export interface OptionSpec {
  type: 'string' | 'boolean';
  /** One-letter alias (`-z`). */
  short?: string;
  /** May be given several times; the values are collected (`--model a --model b`). */
  multiple?: boolean;
  /** Name of the value in the help (`<file>`, `N`). */
  value?: string;
  /** One line for `--help`. */
  help: string;
}

/** What a command receives: parsed arguments and the CLI-wide services. */
export interface Context {
  /** The positional arguments (after `--` too), their count already checked. */
  positionals: string[];
  /** Option values by long name: a string, `true`, or a string array for `multiple` options. */
  values: Record<string, string | boolean | string[] | undefined>;
  /** `--json` was given: print the command's JSON document (`CommandSpec.schema`). */
  json: boolean;
  /** The CLI-wide deadline, a `Date.now()` time in ms (`--budget`, default 60 s). */
  deadline: number;
  /** The budget the deadline came from, in ms. */
  budgetMs: number;
  /** Progress on standard error (only when it is a terminal; see progress.ts). */
  progress: Progress;
}

/**
 * A command: everything `--help` says and the code that runs it. One command is one module
 * `src/cli/<name>-cmd.ts` exporting its `CommandSpec`, listed once in commands.ts.
 */
export interface CommandSpec {
  name: string;
  /** The usage line after `refscope <name>`, e.g. `<path> --out <dir> [options]`. */
  usage: string;
  /** One line for `refscope --help`. */
  summary: string;
  /** Fewest and most positional arguments. */
  args: { min: number; max: number };
  options: Record<string, OptionSpec>;
  /** Schema name of the `--json` document, e.g. `refscope.report/1` (schemas/*.schema.json). */
  schema: string;
  /** Text after the option list (paragraphs, examples). */
  details?: string;
  run(ctx: Context): Promise<number> | number;
}

/** Default of `--budget`: the same 60 s bound the web app's worker puts on a load and a simulation. */
export const DEFAULT_BUDGET_S = 60;

/** The options every command has. */
export const COMMON_OPTIONS: Record<string, OptionSpec> = {
  json: { type: 'boolean', help: 'print the result as one JSON document (see the schema named below)' },
  budget: {
    type: 'string',
    value: '<seconds>',
    help: `wall-clock bound of each step (reading the input, a simulation), whole seconds (default ${DEFAULT_BUDGET_S}); past it: exit 3`,
  },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
};

/** The `--help` text of a command, listing every option. */
export function commandHelp(spec: CommandSpec): string {
  const all = { ...spec.options, ...COMMON_OPTIONS };
  const rows = Object.entries(all).map(([name, o]) => {
    const names = o.short === name ? `-${name}` : `${o.short ? `-${o.short}, ` : ''}--${name}`;
    const flag = `${names}${o.type === 'string' ? ` ${o.value ?? '<value>'}` : ''}`;
    return { flag, help: o.help + (o.multiple ? ' (may be repeated)' : '') };
  });
  rows.push({ flag: '--', help: 'end of options: what follows is a path even if it starts with -' });
  const w = Math.min(30, Math.max(...rows.map((r) => r.flag.length)) + 2);
  const lines = [
    `usage: refscope ${spec.name} ${spec.usage}`,
    '',
    ...wrap(spec.summary, 96),
    '',
    'options:',
    ...rows.map((r) =>
      r.flag.length + 2 > w ? `  ${r.flag}\n  ${' '.repeat(w)}${r.help}` : `  ${r.flag.padEnd(w)}${r.help}`,
    ),
    '',
    `--json prints ${spec.schema} (schemas/${schemaFile(spec.schema)} in the package; docs/cli.md).`,
    'Exit codes: 0 success, 2 usage error, 3 invalid input or budget exceeded (one line on standard',
    'error: refscope: <file>: offset <n>: expected <what>), 141 when the reader of the output went away.',
  ];
  if (spec.details) lines.push('', spec.details);
  return lines.join('\n') + '\n';
}

/** Words of `text` in lines of at most `width` characters. */
export function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const w of text.split(' ')) {
    if (line && line.length + 1 + w.length > width) {
      out.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) out.push(line);
  return out;
}

/** `refscope.report/1` → `report.schema.json`. */
export function schemaFile(schema: string): string {
  return `${schema.replace(/^refscope\./, '').replace(/\/\d+$/, '')}.schema.json`;
}

/** Parse `argv` for `spec` (throws UsageError); null when `--help` was asked for (printed). */
export function parseCommand(spec: CommandSpec, argv: string[]): Context | null {
  const options = { ...spec.options, ...COMMON_OPTIONS };
  let parsed;
  try {
    parsed = nodeParseArgs({
      args: argv,
      options: Object.fromEntries(
        Object.entries(options).map(([k, o]) => [
          k,
          { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) },
        ]),
      ),
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    throw new UsageError(parseArgsMessage(e as Error & { code?: string }, spec));
  }
  const values = parsed.values as Context['values'];
  if (values.help) {
    process.stdout.write(commandHelp(spec));
    return null;
  }
  const pos = parsed.positionals;
  if (pos.length < spec.args.min) {
    // The first argument not given, as the usage line names it (`<path>`, `<refname>`, …).
    const args = spec.usage.match(/[<(][^>)]*[>)]|\S*<[^>]*>/g) ?? [];
    const want = args[pos.length] ?? args[0] ?? 'an argument';
    throw new UsageError(`${spec.name}: missing ${want}`);
  }
  if (pos.length > spec.args.max) {
    throw new UsageError(
      `${spec.name}: unexpected argument ${JSON.stringify(pos[spec.args.max])} (${spec.args.max === 0 ? 'no arguments' : `at most ${spec.args.max}`})`,
    );
  }
  let budgetS = DEFAULT_BUDGET_S;
  if (values.budget !== undefined) {
    const b = String(values.budget);
    if (!/^[0-9]{1,6}$/.test(b) || Number(b) < 1) throw new UsageError('--budget takes whole seconds from 1 to 999999');
    budgetS = Number(b);
  }
  return {
    positionals: pos,
    values,
    json: values.json === true,
    budgetMs: budgetS * 1000,
    deadline: Date.now() + budgetS * 1000,
    progress: new Progress(),
  };
}

/** parseArgs' errors, in the CLI's words. */
function parseArgsMessage(e: Error & { code?: string }, spec: CommandSpec): string {
  const m = /'([^']+)'/.exec(e.message);
  const opt = m?.[1]?.split(' ')[0] ?? '';
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `${spec.name}: unknown option ${opt} (refscope ${spec.name} --help lists them; put -- before a path that starts with -)`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const name = opt
        .replace(/^-+/, '')
        .replace(/^([a-z])$/, (s) => Object.entries(spec.options).find(([, o]) => o.short === s)?.[0] ?? s);
      const o = spec.options[name] ?? COMMON_OPTIONS[name];
      return o?.type === 'boolean'
        ? `--${name} takes no value`
        : `--${name} needs a value${o?.value ? ` (${o.value})` : ''}`;
    }
    default:
      return `${spec.name}: ${e.message}`;
  }
}

/** A string option's value (the last one given), or undefined. */
export function str(ctx: Context, name: string): string | undefined {
  const v = ctx.values[name];
  if (v === undefined || typeof v === 'boolean') return undefined;
  return Array.isArray(v) ? v[v.length - 1] : v;
}

/** A boolean option. */
export function flag(ctx: Context, name: string): boolean {
  return ctx.values[name] === true;
}

/**
 * A whole-number option in [lo, hi], written in decimal digits only (no "1e2", "0x10", " 3");
 * undefined when absent. Throws UsageError "--<name> takes an integer from <lo> to <hi>".
 */
export function intOption(ctx: Context, name: string, lo: number, hi: number): number | undefined {
  const raw = str(ctx, name);
  if (raw === undefined) return undefined;
  const v = /^[0-9]{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(v) || v < lo || v > hi)
    throw new UsageError(
      `--${name} takes an integer from ${lo.toLocaleString('en-US')} to ${hi.toLocaleString('en-US')}`,
    );
  return v;
}

/** `--factor N` (reftable.geometricFactor, 2..255); 2 when absent. */
export function factorOption(ctx: Context): number {
  return intOption(ctx, 'factor', 2, 255) ?? 2;
}

/** The `--factor` option, shared by the commands that report git's auto-compaction. */
export const FACTOR_OPTION: OptionSpec = {
  type: 'string',
  value: 'N',
  help: "git's reftable.geometricFactor for the compaction geometry, 2 to 255 (default 2)",
};

/** Write to stdout and wait until it is flushed (large outputs, pipes). */
export function writeOut(b: Uint8Array | string): Promise<void> {
  return new Promise((resolve, reject) => {
    const ok = process.stdout.write(b, (e) => (e ? reject(e) : resolve()));
    // A replaced `write` (tests capture output) may never call back: it returned true, done.
    if (ok === true && process.stdout.write.length < 2) resolve();
  });
}

/** A JSON document on stdout, two-space indented as the other documents. */
export function writeJson(doc: unknown): void {
  process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
}

/** The package's version (package.json), for `--version` and the documents' `generator`. */
export function version(): string {
  try {
    return JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version as string;
  } catch {
    return 'unknown';
  }
}
