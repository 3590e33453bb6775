/**
 * `refscope analyze <path>`: the report on a reftable stack, packed-refs file or `.git`
 * directory; `--json` prints the `refscope.report/1` document (docs/report.md). A damaged table
 * still gets its report (of what could be read) on stdout, then one error line and exit 3.
 */
import { displayName } from '../engine/basics.ts';
import { buildReport, reportJson } from '../engine/report.ts';
import { formatReport } from './format.ts';
import { factorOption, FACTOR_OPTION, type CommandSpec, type Context } from './common.ts';
import { loadPath, firstError, oneTableOf } from './load.ts';

function run(ctx: Context): number {
  const factor = factorOption(ctx);
  // The report of a stack of one table reads names and kinds only: its ids are not kept. (With
  // more tables the diagnosis may run the simulator on the columns, which replays the ids.)
  const a = loadPath(ctx.positionals[0], ctx, { ids: (input) => oneTableOf(input) === null });
  const report = buildReport(a, { factor });
  if (ctx.json) process.stdout.write(reportJson(report) + '\n');
  else process.stdout.write(formatReport(report));
  const err = firstError(a);
  if (err) {
    process.stderr.write(`refscope: ${displayName(err.message)}\n`);
    return 3;
  }
  return 0;
}

export const analyzeCommand: CommandSpec = {
  name: 'analyze',
  usage: '[options] <path>',
  summary:
    'A report on a reftable stack, packed-refs file or .git directory: tables, blocks, records, tombstones, the compaction geometry and a diagnosis.',
  args: { min: 1, max: 1 },
  options: { factor: FACTOR_OPTION },
  schema: 'refscope.report/1',
  run,
};
