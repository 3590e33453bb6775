/**
 * The CLI as whole processes against git on a 1,000,000-ref table written by git itself: the
 * bundled `refscope refs` and `refscope analyze --json` against `git for-each-ref
 * --format='%(refname)'` on the same files, run in turns (a shared machine's load hits all three
 * alike), medians of wall time, and each process's peak RSS (GNU time's %M).
 *
 * The repository is built once into bench/out/git-1m/ with the newest real git of the test suite
 * (scripts/setup-git.sh, test/lib/realgit.ts): one commit, 1,000,000 `create` lines in one
 * `git update-ref --stdin` transaction, then `git pack-refs --all`, so the stack is one table.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { realGits, gitEnv, type RealGit } from '../test/lib/realgit.ts';

export interface Row {
  target: string;
  goal: string;
  measured: string;
  reference: string;
  ratio: string;
  verdict: string;
}

/** Refs of the table: 1,000,000 by default (`cliVsGit`'s `refs`: 10,000,000 for the forge-scale row). */
const N_DEFAULT = 1_000_000;
const median = (xs: number[]): number => {
  const a = [...xs].sort((x, y) => x - y);
  const m = a.length >> 1;
  return a.length % 2 ? a[m] : (a[m - 1] + a[m]) / 2;
};
const ms = (x: number): string => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(0)} ms`);
const mb = (b: number): string => `${(b / 1e6).toFixed(1)} MB`;

/** The newest released git the tests built (a `+next` build only when there is no release). */
export function pickGit(): RealGit | null {
  const gits = realGits();
  return [...gits].reverse().find((g) => !g.version.includes('+')) ?? gits[gits.length - 1] ?? null;
}

function git(g: RealGit, repo: string, env: NodeJS.ProcessEnv, args: string[], input?: string | Buffer): string {
  const r = spawnSync(g.git, args, {
    cwd: repo,
    env: { ...env, GIT_DIR: repo },
    input,
    maxBuffer: 1 << 30,
    encoding: 'latin1',
  });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** bench/out/git-1m (git-10m, …): a bare reftable repository whose one table git wrote with `n` refs. */
export function buildRepo(
  g: RealGit,
  out: string,
  log: (s?: string) => void,
  n: number,
): { repo: string; table: string; buildMs: number | null } {
  const repo = path.join(out, `git-${n % 1_000_000 === 0 ? `${n / 1_000_000}m` : n}`);
  const done = path.join(repo, 'BENCH-DONE');
  const list = () => fs.readFileSync(path.join(repo, 'reftable/tables.list'), 'utf8').trim().split('\n');
  if (fs.existsSync(done) && fs.readFileSync(done, 'utf8').trim() === g.versionLine) {
    return { repo, table: path.join(repo, 'reftable', list()[0]), buildMs: null };
  }
  fs.rmSync(repo, { recursive: true, force: true });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-bench-home-'));
  const env = gitEnv(home);
  const t0 = performance.now();
  fs.mkdirSync(out, { recursive: true });
  const r = spawnSync(g.git, ['init', '-q', '--bare', '--ref-format=reftable', repo], { env });
  if (r.status !== 0) throw new Error(`git init: ${r.stderr}`);
  const tree = git(g, repo, env, ['hash-object', '-t', 'tree', '-w', '--stdin'], '').trim();
  const commit = git(g, repo, env, ['commit-tree', tree, '-m', 'bench'], '').trim();
  // The transaction's lines through a file (10 million of them are more than one string holds).
  const input = path.join(home, 'update-ref-input');
  const fd = fs.openSync(input, 'w');
  const width = Math.max(7, String(n - 1).length);
  for (let i = 0; i < n; i += 100_000) {
    let chunk = '';
    for (let k = i; k < Math.min(n, i + 100_000); k++)
      chunk += `create refs/heads/bench/r${String(k).padStart(width, '0')} ${commit}\n`;
    fs.writeSync(fd, chunk);
  }
  fs.closeSync(fd);
  log(
    `   writing ${n.toLocaleString('en-US')} refs with ${g.versionLine} (update-ref --stdin, one transaction, then pack-refs --all)…`,
  );
  const inFd = fs.openSync(input, 'r');
  const u = spawnSync(g.git, ['update-ref', '--stdin'], {
    cwd: repo,
    env: { ...env, GIT_DIR: repo },
    stdio: [inFd, 'ignore', 'pipe'],
  });
  fs.closeSync(inFd);
  if (u.status !== 0) throw new Error(`git update-ref --stdin: ${u.stderr}`);
  git(g, repo, env, ['pack-refs', '--all']);
  fs.rmSync(home, { recursive: true, force: true });
  const tables = list();
  if (tables.length !== 1) throw new Error(`expected one table after pack-refs --all, found ${tables.length}`);
  fs.writeFileSync(done, g.versionLine + '\n');
  return { repo, table: path.join(repo, 'reftable', tables[0]), buildMs: performance.now() - t0 };
}

/**
 * Run `cmd args` with stdout to /dev/null: wall ms, CPU ms (user + system, the process and the
 * children it waited for) and peak RSS in bytes (GNU time). On a shared machine the CPU time
 * says what the wall time cannot: how much work each process did.
 */
function measure(
  cmd: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): { wall: number; cpu: number; rss: number; ok: boolean } {
  const rssFile = path.join(os.tmpdir(), `refscope-bench-rss-${process.pid}`);
  const devnull = fs.openSync('/dev/null', 'w');
  const t = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M %U %S', '-o', rssFile, cmd, ...args], {
    cwd,
    env,
    stdio: ['ignore', devnull, 'pipe'],
  });
  const wall = performance.now() - t;
  fs.closeSync(devnull);
  const [kb, user, sys] = fs.readFileSync(rssFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
  fs.rmSync(rssFile, { force: true });
  return { wall, cpu: (user + sys) * 1000, rss: kb * 1024, ok: r.status === 0 };
}

export function cliVsGit(opts: {
  root: string;
  out: string;
  runs: number;
  log: (s?: string) => void;
  /** Refs of the table (default 1,000,000). */
  refs?: number;
}): { rows: Row[] } | { skipped: string } {
  const { root, out, runs, log } = opts;
  const N = opts.refs ?? N_DEFAULT;
  const g = pickGit();
  if (!g) return { skipped: 'no real git built (npm run setup:git)' };
  if (!fs.existsSync('/usr/bin/time')) return { skipped: 'GNU time (/usr/bin/time) is not installed' };
  const { repo, table, buildMs } = buildRepo(g, out, log, N);
  const tableBytes = fs.statSync(table).size;
  log(
    `   ${buildMs === null ? 'reused' : `built in ${ms(buildMs)}:`} bench/out/${path.basename(repo)}, one table of ${mb(tableBytes)} written by ${g.versionLine} (${N.toLocaleString('en-US')} refs)`,
  );
  // The bundle, built now so that no run pays for it (bin/refscope.mjs rebuilds a stale one).
  const b = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs'), '--cli', '--quiet'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (b.status !== 0) return { skipped: `CLI build failed: ${b.stderr.slice(0, 200)}` };
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-bench-home-'));
  const env = { ...gitEnv(home), GIT_DIR: repo };
  const bin = path.join(root, 'bin/refscope.mjs');
  const reftable = path.join(repo, 'reftable');

  // Same answer first: refscope refs = git for-each-ref (object id and name of every ref).
  const gitList = spawnSync(g.git, ['for-each-ref', '--include-root-refs', '--format=%(objectname) %(refname)'], {
    cwd: repo,
    env,
    maxBuffer: 1 << 30,
  }).stdout;
  const ours = spawnSync(process.execPath, [bin, 'refs', reftable], { cwd: root, maxBuffer: 1 << 30 }).stdout;
  const same = Buffer.compare(gitList, ours) === 0;
  log(
    `   refscope refs = git for-each-ref --include-root-refs: ${same ? 'identical' : 'DIFFERENT'} (${(ours.length / 1e6).toFixed(1)} MB)`,
  );

  const kinds = [
    {
      name: "git for-each-ref --format='%(refname)'",
      cmd: g.git,
      args: ['for-each-ref', '--format=%(refname)'],
      cwd: repo,
    },
    { name: 'refscope refs', cmd: process.execPath, args: [bin, 'refs', reftable], cwd: root },
    { name: 'refscope analyze --json', cmd: process.execPath, args: [bin, 'analyze', '--json', repo], cwd: root },
    { name: 'refscope --version', cmd: process.execPath, args: [bin, '--version'], cwd: root },
  ];
  const res = kinds.map(() => ({ wall: [] as number[], cpu: [] as number[], rss: [] as number[] }));
  // One untimed turn (page cache, first start), then `runs` timed turns, each command in turn.
  for (let i = 0; i <= runs; i++) {
    kinds.forEach((k, j) => {
      const m = measure(k.cmd, k.args, k.cwd, env);
      if (!m.ok) throw new Error(`${k.name} failed`);
      if (i > 0) {
        res[j].wall.push(m.wall);
        res[j].cpu.push(m.cpu);
        res[j].rss.push(m.rss);
      }
    });
  }
  fs.rmSync(home, { recursive: true, force: true });
  const med = res.map((r) => ({ wall: median(r.wall), cpu: median(r.cpu), rss: Math.max(...r.rss) }));
  kinds.forEach((k, j) =>
    log(
      `   ${k.name}: wall ${res[j].wall.map((w) => w.toFixed(0)).join(', ')} ms → median ${ms(med[j].wall)}; CPU ${res[j].cpu.map((w) => w.toFixed(0)).join(', ')} ms → median ${ms(med[j].cpu)}; peak RSS ${mb(med[j].rss)}`,
    ),
  );
  const gitWall = med[0].wall;
  const rssGoal = 3 * tableBytes + 60e6;
  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  const rows: Row[] = [1, 2].map((j) => ({
    target: `Whole process on git's ${N.toLocaleString('en-US')}-ref table: ${kinds[j].name}`,
    goal: `≤ git for-each-ref wall (same run, in turns); peak RSS < 3× table + 60 MB (${mb(rssGoal)})`,
    measured: `${ms(med[j].wall)} wall, ${ms(med[j].cpu)} CPU, ${mb(med[j].rss)} peak RSS (medians / max of ${runs})`,
    reference: `${g.versionLine} for-each-ref: ${ms(gitWall)} wall, ${ms(med[0].cpu)} CPU, ${mb(med[0].rss)}`,
    ratio: `git/refscope ${(gitWall / med[j].wall).toFixed(2)}× wall, ${(med[0].cpu / med[j].cpu).toFixed(2)}× CPU`,
    verdict: verdict(med[j].wall <= gitWall && med[j].rss < rssGoal && same),
  }));
  rows.push({
    target: '  refscope --version (start-up alone: Node and the bundle)',
    goal: 'for reference',
    measured: `${ms(med[3].wall)} wall, ${ms(med[3].cpu)} CPU, ${mb(med[3].rss)}`,
    reference: '',
    ratio: '',
    verdict: 'info',
  });
  return { rows };
}
