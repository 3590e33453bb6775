/**
 * `refscope share <path> [--base <url>] [--with-names] [--factor N] [--simulation <file.json>]`:
 * prints the share link on stdout and what it contains on stderr. Without `--base` the link
 * points at a running `refscope serve` when there is one (serve-cmd.ts `findServe`), else at
 * `DEFAULT_SHARE_BASE`.
 * `refscope export <path or link> --format json|md|script [--factor N]`: the report as
 * `refscope.report/1` JSON, as Markdown, or a bash script rebuilding a stack of the same shape.
 *
 * Exit codes as the other commands: 0, 2 usage, 3 invalid input with one line on stderr — also
 * when no link can be made (it would exceed 8,000 characters) or a given link cannot be read.
 * On a stack with a damaged table `share` still prints the link of what could be read, and then
 * only the error line on stderr (not the description).
 */
import { measureExport } from './calibrate-cmd.ts';
import fs from 'node:fs';
import {
  UsageError,
  factorOption,
  flag,
  str,
  writeJson,
  FACTOR_OPTION,
  type CommandSpec,
  type Context,
} from './common.ts';
import { loadPath, firstError, readStdin } from './load.ts';
import { buildReport, GENERATOR, type Report } from '../engine/report.ts';
import { displayName, oneLine } from '../engine/basics.ts';
import {
  shareLink,
  describeShare,
  decodeShare,
  reportFromShare,
  buildSharePayload,
  ShareLinkError,
  DEFAULT_SHARE_BASE,
  simulationFromDocument,
  MAX_LINK_INPUT,
  MAX_SHARE_TABLES,
  tooManyTables,
  type SharePayload,
  type SimShare,
} from '../engine/share/index.ts';
import { exportJson, exportMarkdown, exportScript } from '../engine/export.ts';
import { findServe } from './serve-cmd.ts';

export const LINK_SCHEMA = 'refscope.link/1';
export const EXPORT_SCHEMA = 'refscope.export/1';

function looksLikeLink(s: string): boolean {
  return /#s=|^s=\d/.test(s);
}

/**
 * A regular file that holds a share link (one line, `https://…#s=…`, `#s=…` or `s=…`): its text,
 * else null. A link can be longer than one command-line argument may be (Linux caps one at
 * 128 KiB), so `export` takes it from a file too. No ref storage file starts so: packed-refs
 * starts with "# pack-refs" or an object id, a table with "REFT", tables.list with a table name.
 */
function linkInFile(src: string): string | null {
  let fd: number;
  try {
    if (!fs.statSync(src).isFile()) return null;
    fd = fs.openSync(src, 'r');
  } catch {
    return null;
  }
  try {
    const head = Buffer.alloc(64);
    const n = fs.readSync(fd, head, 0, 64, 0);
    const start = head.subarray(0, n).toString('latin1');
    if (!/^(https?:\/\/[^\s#]*#s=|#s=|s=\d)/.test(start)) return null;
    // Read one byte past the decoder's limit at most: a longer link is refused by it, by length.
    const max = MAX_LINK_INPUT + 4096;
    const buf = Buffer.alloc(max + 1);
    const got = fs.readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, got).toString('latin1').trim();
  } finally {
    fs.closeSync(fd);
  }
}

/** `share`: the link on stdout, its contents on stderr. */
export const shareCommand: CommandSpec = {
  name: 'share',
  usage: '<path> [options]',
  summary:
    "Print a link whose URL fragment carries the report's shape (table sizes, record kinds, namespace mix, compaction geometry), never ref names or object ids unless --with-names; what it contains goes to standard error.",
  args: { min: 1, max: 1 },
  options: {
    base: {
      type: 'string',
      value: '<url>',
      help: `where the link points (default: a running refscope serve, else ${DEFAULT_SHARE_BASE})`,
    },
    'with-names': { type: 'boolean', help: 'put up to 20 example ref names into the link' },
    factor: FACTOR_OPTION,
    simulation: {
      type: 'string',
      value: '<file.json>',
      help: 'add a simulation (refscope simulate --json output) to the link; - for standard input',
    },
  },
  schema: LINK_SCHEMA,
  async run(ctx: Context): Promise<number> {
    const p = ctx.positionals[0];
    const factor = factorOption(ctx);
    const simFile = str(ctx, 'simulation');
    if (p === '-' && simFile === '-')
      throw new UsageError('standard input is read once: <path> and --simulation cannot both be -');
    const a = loadPath(p, ctx);
    // Counted before the report is built: a link holds at most MAX_SHARE_TABLES positions.
    if (a.stack && a.stack.names.length > MAX_SHARE_TABLES) {
      process.stderr.write(
        `refscope: ${displayName(p)}: offset 0: expected a stack whose shape fits a link (${oneLine(tooManyTables(a.stack.names.length).message)})\n`,
      );
      return 3;
    }
    const report = buildReport(a, { factor });
    let simulation: SimShare | null = null;
    if (simFile !== undefined) {
      let doc: unknown;
      try {
        doc = JSON.parse(
          new TextDecoder().decode(readStdin('--simulation', simFile, 64 * 1048576, 'a simulate --json file')),
        );
      } catch (e) {
        if (e instanceof UsageError) throw e;
        throw new UsageError(`--simulation: a JSON file (${(e as Error).message})`);
      }
      // Only the simulator's own results travel, in the link's numbers-only layout.
      simulation = simulationFromDocument(doc);
      if (!simulation)
        throw new UsageError('--simulation: the JSON output of refscope simulate --json (refscope.simulation/1)');
    }
    let base = str(ctx, 'base');
    let baseFrom: 'option' | 'serve' | 'default' = 'option';
    if (base === undefined) {
      const served = await findServe();
      base = served ?? DEFAULT_SHARE_BASE;
      baseFrom = served ? 'serve' : 'default';
    }
    // A link base is an http(s) URL on one line: anything else would make a link that is not one.
    // eslint-disable-next-line no-control-regex
    if (!/^https?:\/\/[^\s\x00-\x1f\x7f]+$/.test(base))
      throw new UsageError('--base takes an http:// or https:// URL (no spaces or control characters)');
    const withNames = flag(ctx, 'with-names');
    const r = shareLink(a, report, { withNames, base, simulation });
    if (!r.ok) {
      process.stderr.write(
        `refscope: ${displayName(p)}: offset 0: expected a stack whose shape fits a link (${oneLine(r.error)})\n`,
      );
      return 3;
    }
    const d = describeShare(r.payload);
    if (ctx.json) {
      writeJson({
        schema: LINK_SCHEMA,
        generator: GENERATOR,
        link: r.link,
        chars: r.chars,
        base,
        baseFrom,
        withNames: d.withNames,
        summary: d.summary,
        contains: d.contains,
        omits: d.omits,
      });
    } else {
      process.stdout.write(r.link + '\n');
    }
    const err = firstError(a);
    if (err) {
      process.stderr.write(`refscope: ${displayName(err.message)}\n`);
      return 3;
    }
    if (!ctx.json) {
      const lines = [
        `${d.summary} — ${r.chars.toLocaleString('en-US')} characters. The link contains:`,
        ...d.contains.map((x) => `  - ${x}`),
        'It does not contain:',
        ...d.omits.map((x) => `  - ${x}`),
        ...(baseFrom === 'serve' ? [`It opens in the refscope serve running at ${base}`] : []),
      ];
      process.stderr.write(lines.join('\n') + '\n');
    }
    return 0;
  },
};

/** `export`: JSON, Markdown or a repro script, from files or from a share link. */
export const exportCommand: CommandSpec = {
  name: 'export',
  usage: '(<path> | <link>) --format json|md|script [options]',
  summary:
    'The report as refscope.report/1 JSON, as Markdown, or as a bash script that rebuilds a stack of the same shape with a reftable-capable git; the input may be a share link instead of a path, or a file holding one (a link longer than one command-line argument may be).',
  args: { min: 1, max: 1 },
  options: {
    format: {
      type: 'string',
      value: 'json|md|script|measure',
      help: 'what to print (with --json the default is json); measure: a script timing a workload with your git on a throw-away copy (refscope calibrate reads its result)',
    },
    workload: {
      type: 'string',
      value: '<spec>',
      help: 'with --format measure: the workload to time (as simulate --workload)',
    },
    stdin: { type: 'string', value: '<file>', help: 'with --format measure: an update-ref --stdin file to time' },
    'git-version': {
      type: 'string',
      value: '<line>',
      help: 'with --format measure: your git --version line (picks the model predicted)',
    },
    model: { type: 'string', value: '<name>', help: 'with --format measure: the model predicted (default git-2.55)' },
    repeats: {
      type: 'string',
      value: 'N',
      help: 'with --format measure: runs before and after pack-refs, 1 to 20 (default 3)',
    },
    factor: FACTOR_OPTION,
  },
  schema: EXPORT_SCHEMA,
  details:
    '--json wraps the export in refscope.export/1: the report itself for --format json, the text for md and script.',
  run(ctx: Context): number {
    const format = str(ctx, 'format') ?? (ctx.json ? 'json' : undefined);
    if (format === 'measure') return measureExport(ctx);
    if (format !== 'json' && format !== 'md' && format !== 'script')
      throw new UsageError('--format takes json, md, script or measure');
    const src = ctx.positionals[0];
    let report: Report;
    let payload: () => SharePayload;
    let from: 'files' | 'link' = 'files';
    let exitCode = 0;
    const link = src === '-' ? null : looksLikeLink(src) && !fs.existsSync(src) ? src : linkInFile(src);
    if (link !== null) {
      let p: SharePayload;
      try {
        p = decodeShare(link);
      } catch (e) {
        if (e instanceof ShareLinkError) {
          process.stderr.write(`refscope: (link): offset 0: expected a refscope share link (${oneLine(e.message)})\n`);
          return 3;
        }
        throw e;
      }
      report = reportFromShare(p);
      payload = () => p;
      from = 'link';
    } else {
      const a = loadPath(src, ctx);
      report = buildReport(a, { factor: factorOption(ctx) });
      payload = () => buildSharePayload(a, report);
      const err = firstError(a);
      if (err) {
        process.stderr.write(`refscope: ${displayName(err.message)}\n`);
        exitCode = 3;
      }
    }
    let text: string;
    if (format === 'json') text = exportJson(report);
    else if (format === 'md') text = exportMarkdown(report);
    else {
      if (!report.stack)
        throw new UsageError('--format script rebuilds reftable stacks; this input is ' + report.input.kind);
      text = exportScript(payload(), { source: `a ${report.input.kind} stack of ${report.stack.tables} tables` });
    }
    if (ctx.json) {
      writeJson(
        format === 'json'
          ? { schema: EXPORT_SCHEMA, generator: GENERATOR, format, from, report: JSON.parse(text) }
          : { schema: EXPORT_SCHEMA, generator: GENERATOR, format, from, text },
      );
    } else process.stdout.write(text);
    return exitCode;
  },
};
