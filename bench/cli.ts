/**
 * bench/cli: only the whole-process comparison with a real git (bench/cli-vs-git.ts), without the
 * rest of `npm run bench` (no stacks built, no browser): a few minutes instead of a quarter hour.
 *
 *   node bin/run-ts.mjs bench/cli.ts [--runs N] [--refs N] [--build-only]
 *
 * `--refs 10000000`: the forge-scale table (bench/out/git-10m, ~0.26 GB, written by the same git
 * in one transaction; several minutes to build once). `--build-only`: build the repository and
 * stop. Prints the log and the rows; writes nothing to bench/results.md.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRepo, cliVsGit, pickGit } from './cli-vs-git.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const i = process.argv.indexOf('--runs');
const runs = i > 0 ? Number(process.argv[i + 1]) : 7;
const j = process.argv.indexOf('--refs');
const refs = j > 0 ? Number(process.argv[j + 1]) : undefined;
const log = (s = '') => console.log(s);
if (process.argv.includes('--build-only')) {
  const g = pickGit();
  if (!g) throw new Error('no real git built (npm run setup:git)');
  const b = buildRepo(g, path.join(ROOT, 'bench/out'), log, refs ?? 1_000_000);
  log(`${b.repo}: ${b.buildMs === null ? 'reused' : `built in ${(b.buildMs / 1000).toFixed(1)} s`}`);
  process.exit(0);
}
log(
  `load average before: ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
const r = cliVsGit({ root: ROOT, out: path.join(ROOT, 'bench/out'), runs, log, refs });
if ('skipped' in r) log(`skipped: ${r.skipped}`);
else
  for (const row of r.rows) log(`${row.target} | ${row.measured} | ${row.reference} | ${row.ratio} | ${row.verdict}`);
log(
  `load average after: ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
