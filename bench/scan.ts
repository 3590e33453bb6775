/**
 * `refscope scan` throughput: repositories per second on 2 cores (`--jobs 2`) over a tree of
 * 10,000 small repositories (half reftable, half files backend, in GitLab's hashed layout), copied
 * from two templates a real git of the test suite makes. A benchmark, not a test: it never fails
 * on timings. It writes its section of bench/results.md (between the scan-bench markers).
 *
 *   node bin/run-ts.mjs bench/scan.ts [--count N] [--jobs N] [--lean]   (--lean: also with --no-estimates)
 *
 * The tree is kept in bench/out/scan-tree-<N> (git-ignored) and reused when complete.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name: string, def: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const COUNT = arg('count', 10_000);
const JOBS = arg('jobs', 2);
const GIT = '/var/cache/refscope-git/2.55.0/src/bin-wrappers/git';

function git(cwd: string, args: string[], input?: string): string {
  const home = path.join(ROOT, 'bench/out/home');
  fs.mkdirSync(home, { recursive: true });
  const r = spawnSync(GIT, args, {
    cwd,
    input,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      HOME: home,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'A',
      GIT_AUTHOR_EMAIL: 'a@example.com',
      GIT_COMMITTER_NAME: 'C',
      GIT_COMMITTER_EMAIL: 'c@example.com',
    },
  });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function template(dir: string, format: 'reftable' | 'files'): void {
  fs.rmSync(dir, { recursive: true, force: true });
  git(ROOT, ['init', '-q', '--bare', `--ref-format=${format}`, dir]);
  const tree = git(dir, ['mktree'], '').trim();
  const c = git(dir, ['commit-tree', '-m', 'c', tree]).trim();
  git(dir, ['update-ref', '--stdin'], Array.from({ length: 20 }, (_, i) => `create refs/heads/b${i} ${c}\n`).join(''));
  git(dir, ['update-ref', '--stdin'], Array.from({ length: 5 }, (_, i) => `delete refs/heads/b${i}\n`).join(''));
}

function buildTree(): string {
  const out = path.join(ROOT, 'bench/out');
  const tree = path.join(out, `scan-tree-${COUNT}`);
  if (fs.existsSync(path.join(tree, '.complete'))) return tree;
  fs.rmSync(tree, { recursive: true, force: true });
  const t = { reftable: path.join(out, 'scan-template-reftable'), files: path.join(out, 'scan-template-files') };
  template(t.reftable, 'reftable');
  template(t.files, 'files');
  for (let i = 0; i < COUNT; i++) {
    const sha = createHash('sha256').update(String(i)).digest('hex');
    const dest = path.join(tree, '@hashed', sha.slice(0, 2), sha.slice(2, 4), `${sha}.git`);
    fs.cpSync(i % 2 ? t.files : t.reftable, dest, { recursive: true });
  }
  fs.writeFileSync(path.join(tree, '.complete'), '');
  return tree;
}

function scan(tree: string, extra: string[]): { wall: number; seconds: number; repositories: number } {
  const out = path.join(os.tmpdir(), `refscope-scan-bench-${process.pid}.parquet`);
  fs.rmSync(out, { force: true });
  fs.rmSync(`${out}.progress`, { force: true });
  const t0 = process.hrtime.bigint();
  const r = spawnSync(
    process.execPath,
    [path.join(ROOT, 'bin/refscope.mjs'), 'scan', tree, '--jobs', String(JOBS), '--out', out, '--json', ...extra],
    { encoding: 'utf8', maxBuffer: 1 << 26 },
  );
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`scan failed: ${r.stderr}`);
  fs.rmSync(out, { force: true });
  const doc = JSON.parse(r.stdout) as { seconds: number; repositories: number };
  return { wall, seconds: doc.seconds, repositories: doc.repositories };
}

const before = os.loadavg();
const t0 = Date.now();
const tree = buildTree();
const buildS = (Date.now() - t0) / 1000;
const full = scan(tree, []);
const lean = process.argv.includes('--lean') ? scan(tree, ['--no-estimates']) : null;
const after = os.loadavg();
const rate = (x: { repositories: number; seconds: number }) => (x.repositories / x.seconds).toFixed(1);
const section = `<!-- scan-bench -->
## Fleet scan (bench/scan.ts)

Run on ${new Date().toISOString().replace('T', ' ').slice(0, 19)} UTC: \`refscope scan --jobs ${JOBS}\` over ${COUNT.toLocaleString('en-US')} small bare repositories in GitLab's hashed layout (half reftable: 2 tables, 20 refs of which 5 deleted; half files backend, 15 loose refs), copied from templates git 2.55.0 made (tree built in ${buildS.toFixed(0)} s, or reused). Load average before ${before.map((x) => x.toFixed(1)).join(' ')}, after ${after.map((x) => x.toFixed(1)).join(' ')}: a shared machine, the figures are lower bounds of an idle one.

| scan | repositories | scanning (s) | whole process (s) | repositories per second |
|---|---|---|---|---|
| with the estimates (default) | ${full.repositories.toLocaleString('en-US')} | ${full.seconds.toFixed(1)} | ${full.wall.toFixed(1)} | ${rate(full)} |
${lean ? `| \`--no-estimates\` | ${lean.repositories.toLocaleString('en-US')} | ${lean.seconds.toFixed(1)} | ${lean.wall.toFixed(1)} | ${rate(lean)} |\n` : ''}<!-- /scan-bench -->
`;
const file = path.join(ROOT, 'bench/results.md');
const text = fs.readFileSync(file, 'utf8');
const re = /<!-- scan-bench -->[\s\S]*?<!-- \/scan-bench -->\n?/;
fs.writeFileSync(file, re.test(text) ? text.replace(re, section) : `${text.trimEnd()}\n\n${section}`);
process.stdout.write(section);
