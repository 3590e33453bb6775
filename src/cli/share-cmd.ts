/**
 * `refscope share <path> [--base <url>] [--with-names] [--factor N] [--simulation <file.json>]`:
 * prints the share link on stdout and what it contains on stderr.
 * `refscope export <path or link> --format json|md|script [--factor N]`: the report as
 * `refscope.report/1` JSON, as Markdown, or a bash script rebuilding a stack of the same shape.
 *
 * Exit codes as the other commands: 0, 2 usage, 3 invalid input with one line on stderr — also
 * when no link can be made (it would exceed 8,000 characters) or a given link cannot be read.
 * On a stack with a damaged table `share` still prints the link of what could be read, and then
 * only the error line on stderr (not the description).
 */
import fs from 'node:fs';
import type { Command } from './commands.ts';
import { parseArgs, loadPath, firstError, UsageError, factorFlag } from './common.ts';
import { buildReport, type Report } from '../engine/report.ts';
import { displayName, oneLine } from '../engine/basics.ts';
import {
  shareLink, describeShare, decodeShare, reportFromShare, buildSharePayload, ShareLinkError, DEFAULT_SHARE_BASE,
  simulationFromDocument, type SharePayload, type SimShare,
} from '../engine/share/index.ts';
import { exportJson, exportMarkdown, exportScript } from '../engine/export.ts';

function looksLikeLink(s: string): boolean {
  return /#s=|^s=\d/.test(s);
}

/** `share`: the link on stdout, its contents on stderr. */
export const shareCommand: Command = {
  name: 'share',
  usage: 'share <path> [options]',
  summary: 'print a link with the report\'s shape (no names); --base <url>, --with-names',
  run(argv: string[]): number {
    const args = parseArgs(argv, ['base', 'factor', 'simulation'], ['with-names']);
    const a = loadPath(args.pos[0]);
    const report = buildReport(a, { factor: factorFlag(args.flags) });
    let simulation: SimShare | null = null;
    if (args.flags.has('simulation')) {
      const file = String(args.flags.get('simulation'));
      let doc: unknown;
      try {
        doc = JSON.parse(fs.readFileSync(file, 'utf8'));
      } catch (e) {
        throw new UsageError(`--simulation: a JSON file (${(e as Error).message})`);
      }
      // Only the simulator's own results travel, in the link's numbers-only layout.
      simulation = simulationFromDocument(doc);
      if (!simulation) throw new UsageError('--simulation: the JSON output of refscope simulate --json (refscope.simulation/1)');
    }
    const base = args.flags.has('base') ? String(args.flags.get('base')) : DEFAULT_SHARE_BASE;
    // A link base is an http(s) URL on one line: anything else would make a link that is not one.
    if (!/^https?:\/\/[^\s\x00-\x1f\x7f]+$/.test(base)) throw new UsageError('--base takes an http:// or https:// URL (no spaces or control characters)');
    const r = shareLink(a, report, { withNames: args.flags.has('with-names'), base, simulation });
    if (!r.ok) {
      process.stderr.write(`refscope: ${displayName(args.pos[0] ?? '')}: offset 0: expected a stack whose shape fits a link (${oneLine(r.error)})\n`);
      return 3;
    }
    process.stdout.write(r.link + '\n');
    const err = firstError(a);
    if (err) {
      process.stderr.write(`refscope: ${displayName(err.message)}\n`);
      return 3;
    }
    const d = describeShare(r.payload);
    const lines = [`${d.summary} — ${r.chars.toLocaleString('en-US')} characters. The link contains:`, ...d.contains.map((x) => `  - ${x}`), 'It does not contain:', ...d.omits.map((x) => `  - ${x}`)];
    process.stderr.write(lines.join('\n') + '\n');
    return 0;
  },
};

/** `export`: JSON, Markdown or a repro script, from files or from a share link. */
export const exportCommand: Command = {
  name: 'export',
  usage: 'export <path> --format F',
  summary: 'F = json, md, or script (rebuilds the shape with git); <path> may be a link',
  run(argv: string[]): number {
    const args = parseArgs(argv, ['format', 'factor'], []);
    const format = args.flags.get('format');
    if (format !== 'json' && format !== 'md' && format !== 'script') throw new UsageError('--format takes json, md or script');
    const src = args.pos[0];
    let report: Report;
    let payload: () => SharePayload;
    let exitCode = 0;
    if (src !== undefined && looksLikeLink(src) && !fs.existsSync(src)) {
      let p: SharePayload;
      try {
        p = decodeShare(src);
      } catch (e) {
        if (e instanceof ShareLinkError) {
          process.stderr.write(`refscope: (link): offset 0: expected a refscope share link (${oneLine(e.message)})\n`);
          return 3;
        }
        throw e;
      }
      report = reportFromShare(p);
      payload = () => p;
    } else {
      const a = loadPath(src);
      report = buildReport(a, { factor: factorFlag(args.flags) });
      payload = () => buildSharePayload(a, report);
      const err = firstError(a);
      if (err) {
        process.stderr.write(`refscope: ${displayName(err.message)}\n`);
        exitCode = 3;
      }
    }
    if (format === 'json') process.stdout.write(exportJson(report));
    else if (format === 'md') process.stdout.write(exportMarkdown(report));
    else {
      if (!report.stack) throw new UsageError('--format script rebuilds reftable stacks; this input is ' + report.input.kind);
      process.stdout.write(exportScript(payload(), { source: `a ${report.input.kind} stack of ${report.stack.tables} tables` }));
    }
    return exitCode;
  },
};

export const shareCommands: Command[] = [shareCommand, exportCommand];
