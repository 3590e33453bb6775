/**
 * bench/cli: only the whole-process comparison with a real git (bench/cli-vs-git.ts), without the
 * rest of `npm run bench` (no stacks built, no browser): a few minutes instead of a quarter hour.
 *
 *   node bin/run-ts.mjs bench/cli.ts [--runs N]
 *
 * Prints the log and the rows; writes nothing to bench/results.md.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliVsGit } from './cli-vs-git.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const i = process.argv.indexOf('--runs');
const runs = i > 0 ? Number(process.argv[i + 1]) : 7;
const log = (s = '') => console.log(s);
log(
  `load average before: ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
const r = cliVsGit({ root: ROOT, out: path.join(ROOT, 'bench/out'), runs, log });
if ('skipped' in r) log(`skipped: ${r.skipped}`);
else
  for (const row of r.rows) log(`${row.target} | ${row.measured} | ${row.reference} | ${row.ratio} | ${row.verdict}`);
log(
  `load average after: ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
