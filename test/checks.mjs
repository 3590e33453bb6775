#!/usr/bin/env node
/**
 * The static checks of `npm test`: the typecheck (one tsconfig per layer), ESLint with zero
 * warnings, and Prettier. They are independent, so they run side by side, as many at once as the
 * machine has cores (the longest first): one after the other they leave a core idle for a minute.
 * Each check's output is printed when it ends; the exit code is 1 when any failed.
 *
 *   node test/checks.mjs                      all of them
 *   node test/checks.mjs typecheck            the typecheck only
 *   node test/checks.mjs --with <command…>    all of them beside <command> (`npm test`: vitest run)
 *
 * `--with`: the command starts at once, with the terminal, while the checks run beside it: on a
 * fresh clone the typecheck alone takes a minute of one core, which the test files' first minute
 * (builds, browser start, child processes waited on) leaves partly idle. A check's one-line
 * outcome is printed when it ends, its output (and a failure's) again after the command ends, so
 * it is not lost in the command's; the exit code is the command's when every check passed, and 1
 * when any check failed, whatever the command did.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(ROOT, 'node_modules', '.bin', name);

// One build of the project references: the engine (ES2023 only), the app (DOM) and the CLI (Node)
// each under its own types, then the tests, benchmarks and scripts against their declarations,
// so each source file is checked once. The build info goes to .tmp/tsc/, so a second run on
// unchanged files checks nothing again; a fresh clone (CI) checks everything.
const TYPECHECKS = [['tsc -b tsconfig.test.json', bin('tsc'), ['-b', 'tsconfig.test.json']]];
// Longest first: the typecheck, then ESLint and Prettier. Their caches (under .tmp/, git-ignored)
// only skip files unchanged since a run on this tree; a fresh clone starts without them.
const LINTS = [
  [
    'eslint --max-warnings 0 .',
    bin('eslint'),
    ['--max-warnings', '0', '--cache', '--cache-location', '.tmp/eslint/', '.'],
  ],
  ['prettier --check .', bin('prettier'), ['--check', '--cache', '--cache-location', '.tmp/prettier-cache', '.']],
];
const withAt = process.argv.indexOf('--with');
const beside = withAt < 0 ? [] : process.argv.slice(withAt + 1);
const only = withAt === 2 ? undefined : process.argv[2];
if ((only !== undefined && only !== 'typecheck') || (withAt >= 0 && beside.length === 0)) {
  process.stderr.write(
    `checks: unknown arguments ${process.argv.slice(2).join(' ')} (expected none, "typecheck" or "--with <command…>")\n`,
  );
  process.exit(2);
}
const jobs = only === 'typecheck' ? TYPECHECKS : [...TYPECHECKS, ...LINTS];
/** The checks' output, printed again after the `--with` command (see above). */
const reports = [];

/** Run one check with its output captured; resolves to its exit code. */
function run([label, cmd, args]) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    child.on('error', (e) => out.push(Buffer.from(`${e.message}\n`)));
    child.on('close', (code) => {
      const text = Buffer.concat(out).toString();
      const s = ((Date.now() - started) / 1000).toFixed(1);
      const head = `> ${label}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`} (${s} s)\n`;
      process.stdout.write(beside.length ? head : head + text);
      reports.push(head + text);
      resolve(code ?? 1);
    });
  });
}

/** The `--with` command, started now with the terminal; resolves to its exit code. */
const besideDone = beside.length
  ? new Promise((resolve) => {
      const bin = path.join(ROOT, 'node_modules', '.bin', beside[0]);
      const child = spawn(fs.existsSync(bin) ? bin : beside[0], beside.slice(1), { cwd: ROOT, stdio: 'inherit' });
      child.on('error', (e) => {
        process.stderr.write(`checks: ${beside[0]}: ${e.message}\n`);
        resolve(1);
      });
      child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    })
  : Promise.resolve(0);

const queue = [...jobs];
/** Each job's outcome, to wait on: a job with `after` starts once that one has succeeded. */
const done = new Map(
  jobs.map((j) => {
    let resolve;
    const promise = new Promise((r) => (resolve = r));
    return [j, { promise, resolve }];
  }),
);
let failed = 0;
const lanes = Array.from({ length: Math.max(1, Math.min(availableParallelism(), queue.length)) }, async () => {
  for (let j = queue.shift(); j; j = queue.shift()) {
    const after = j[3];
    const ok = after ? (await done.get(after).promise) === 0 : true;
    const code = ok ? await run(j) : 1;
    if (!ok) process.stdout.write(`> ${j[0]}: not run (${after[0]} failed)\n`);
    if (code !== 0) failed++;
    done.get(j).resolve(code);
  }
});
await Promise.all(lanes);
const besideCode = await besideDone;
if (beside.length) process.stdout.write(`\nStatic checks (beside ${beside.join(' ')}):\n${reports.join('')}`);
if (failed) process.stdout.write(`checks: ${failed} of ${jobs.length} failed\n`);
process.exit(failed ? 1 : besideCode);
