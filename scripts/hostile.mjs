#!/usr/bin/env node
// `npm run hostile`: every case of test/fixtures/hostile through the CLI (`analyze`, `compact`,
// `share`, `export --format md` and `--format json`; crafted links through `export <link>`) and
// through the web app's worker flow (scripts/hostile-session.mjs: the engine session in a worker
// thread, fed the files as a drop feeds them), each in its own process, measured with GNU time.
//
// Each must give an answer (exit 0) or one clean error line (exit 3, `refscope: <file>: offset
// <n>: expected …`; `compact` of an input that is not a reftable stack is the usage error, exit 2,
// "… is not a reftable stack … use convert"; in the worker, the engine's error) within LIMIT_MS
// and under LIMIT_MB of resident memory. The time limit is on the process's CPU time (user +
// system, node's start included): on an idle machine that is its wall time, on a shared one the
// wall time also counts the other processes' turns, so it is printed but only held to the hang
// guard. Limits live here, not in `npm test` (which must pass on a busy machine). Prints the
// worst time and RSS per command and exits 1 if any case broke a limit.
//
//   node scripts/hostile.mjs [--only <substring>] [--limit-ms N] [--verbose] [--case <path>]...
//
// `--case <path>` (repeatable) measures one more input given by path, as the CLI takes it (a
// `reftable/` directory, a `.git`, a packed-refs file): the larger attack inputs the hostile
// README's generator writes, which are not stored.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HOSTILE = path.join(ROOT, 'test/fixtures/hostile');
const BIN = path.join(ROOT, 'bin/refscope.mjs');
const TIME = '/usr/bin/time';
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? dflt : process.argv[i + 1];
};
const ONLY = arg('--only', '');
const VERBOSE = process.argv.includes('--verbose');
/** The limits of the contract (docs/limits.md): per command, per case. */
const LIMIT_MS = Number(arg('--limit-ms', 2000));
const LIMIT_MB = 512;
/** A hang guard far above the limit (a case past it is killed and counted over the limit). */
const KILL_MS = 30_000;

if (!fs.existsSync(TIME)) {
  console.error(`hostile: ${TIME} (GNU time) is needed to measure each process's peak RSS`);
  process.exit(2);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-hostile-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

// The CLI bundle is (re)built by bin/refscope.mjs on its first run: do that before measuring.
spawnSync(process.execPath, [BIN, '--version'], { cwd: ROOT });
// The worker flow, bundled once (the engine, the CLI's input walker, the worker thread).
const SESSION = path.join(tmp, 'session.mjs');
{
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [path.join(ROOT, 'scripts/hostile-session.mjs')],
    outfile: SESSION,
    bundle: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'error',
  });
}

// ---------------------------------------------------------------------------------------------
// The cases

/** Copy `src` to `dst`, a `dot-git` directory becoming `.git` (git cannot store a `.git` in a tree). */
function copyTree(src, dst) {
  fs.mkdirSync(dst, { recursive: true });
  for (const e of fs.readdirSync(src, { withFileTypes: true })) {
    const to = path.join(dst, e.name === 'dot-git' ? '.git' : e.name);
    if (e.isDirectory()) copyTree(path.join(src, e.name), to);
    else fs.copyFileSync(path.join(src, e.name), to);
  }
}

/** What the CLI is given for a case saved as dropped files: the one file, or their common directory. */
function cliPathOf(dir, paths) {
  if (paths.length === 1) return path.join(dir, paths[0]);
  const parts = paths.map((p) => p.split('/').slice(0, -1));
  const common = [];
  for (let i = 0; parts.every((p) => p.length > i && p[i] === parts[0][i]); i++) common.push(parts[0][i]);
  return path.join(dir, ...common);
}

const cases = [];
const dirCase = (name, p) => cases.push({ name, path: p });
process.argv.forEach((a, i) => {
  if (a !== '--case') return;
  const p = path.resolve(process.argv[i + 1]);
  dirCase(`extra/${path.basename(path.basename(p) === 'reftable' ? path.dirname(p) : p)}`, p);
});
for (const fam of ['damage', 'attacks']) {
  for (const n of fs.readdirSync(path.join(HOSTILE, fam)).sort()) {
    const p = path.join(HOSTILE, fam, n);
    if (fs.statSync(p).isDirectory()) dirCase(`${fam}/${n}`, p);
  }
}
dirCase('compact-bigkey', path.join(HOSTILE, 'compact-bigkey/reftable'));
dirCase('convert-longname', path.join(HOSTILE, 'convert-longname/packed-refs'));
dirCase('writer-blowup', path.join(HOSTILE, 'writer-blowup/packed-refs'));
for (const n of ['direct/reftable', 'out/reftable', 'packed-refs'])
  dirCase(`markup/${n}`, path.join(HOSTILE, 'markup', n));
// The file-system attacks hold symbolic links: kept in a tar, unpacked with its links.
{
  const fsDir = path.join(tmp, 'fs');
  fs.mkdirSync(fsDir);
  spawnSync('tar', ['xf', path.join(HOSTILE, 'fs/fs-attacks.tar'), '-C', fsDir]);
  for (const c of ['loop2/.git', 'linkroot/.git', 'symshadow/reftable', 'symlist/reftable'])
    dirCase(`fs/${c}`, path.join(fsDir, c));
}
// Generated (too large to store): one small table named on 4,000, 20,000 and 100,000 lines of
// tables.list (git's basic-sha1 fixture's first table). Each copy must cost a small constant, not
// a table's worth.
for (const lines of [4_000, 20_000, 100_000]) {
  const label = `generated/list-${lines / 1000}k-same`;
  const dir = path.join(tmp, label, 'reftable');
  fs.mkdirSync(dir, { recursive: true });
  const src = path.join(ROOT, 'test/fixtures/reftable/basic-sha1/reftable');
  const name = fs
    .readdirSync(src)
    .filter((f) => f.endsWith('.ref'))
    .sort()[0];
  fs.copyFileSync(path.join(src, name), path.join(dir, name));
  fs.writeFileSync(path.join(dir, 'tables.list'), `${name}\n`.repeat(lines));
  dirCase(label, dir);
}
// Fuzz crashers, as dropped (manifest.json) and as a path.
for (const fam of ['fuzz', 'fuzz-found']) {
  for (const n of fs.readdirSync(path.join(HOSTILE, fam)).sort()) {
    const src = path.join(HOSTILE, fam, n);
    if (!fs.statSync(src).isDirectory()) continue;
    const dst = path.join(tmp, fam, n);
    copyTree(path.join(src, 'input'), dst);
    const manifest = path.join(src, 'manifest.json');
    const paths = fs.existsSync(manifest)
      ? JSON.parse(fs.readFileSync(manifest, 'utf8')).map((f) => f.path)
      : listFiles(dst);
    cases.push({
      name: `${fam}/${n}`,
      path: cliPathOf(dst, paths),
      manifest: fs.existsSync(manifest) ? manifest : null,
    });
  }
}
function listFiles(dir, rel = '') {
  return fs
    .readdirSync(path.join(dir, rel), { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? listFiles(dir, rel ? `${rel}/${e.name}` : e.name) : [rel ? `${rel}/${e.name}` : e.name],
    );
}
// Crafted links: the `#s=…` of each file (share-fuzz files start with a line saying what broke).
for (const fam of ['share-links', 'share-fuzz']) {
  for (const n of fs.readdirSync(path.join(HOSTILE, fam)).sort()) {
    if (!n.endsWith('.txt')) continue;
    const text = fs.readFileSync(path.join(HOSTILE, fam, n), 'utf8');
    const i = text.indexOf('#s=');
    if (i < 0) continue;
    cases.push({ name: `${fam}/${n}`, link: 'http://127.0.0.1:4173/' + text.slice(i).split(/\s/)[0] });
  }
}

// ---------------------------------------------------------------------------------------------
// Running and measuring

const MARK = '@@hostile=';
/** One process under GNU time: exit code, output, CPU ms (%U + %S), wall ms (%e), peak RSS (MiB, %M). */
function measured(argv) {
  // `timeout` kills the measured process itself at the hang guard (killing GNU time alone, as
  // spawnSync's own timeout does, left the node process running on).
  const r = spawnSync(TIME, ['-f', `${MARK}%e %U %S %M`, 'timeout', '-s', 'KILL', String(KILL_MS / 1000), ...argv], {
    cwd: ROOT,
    encoding: 'latin1',
    timeout: KILL_MS + 10_000,
    maxBuffer: 1 << 28,
  });
  let stderr = r.stderr ?? '';
  let ms = KILL_MS;
  let wall = KILL_MS;
  let mb = 0;
  const i = stderr.lastIndexOf(MARK);
  if (i >= 0) {
    const [e, u, s, m] = stderr
      .slice(i + MARK.length)
      .trim()
      .split(' ')
      .map(Number);
    wall = Math.round(e * 1000);
    ms = Math.round((u + s) * 1000);
    mb = Math.round(m / 1024);
    stderr = stderr.slice(0, i).replace(/Command exited with non-zero status \d+\n$/, '');
  }
  return { code: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr, ms, wall, mb };
}

const ONE_LINE = /^refscope: [^\n]+: offset \d+: expected [^\n]+\n$/;
/** The CLI's contract: exit 0 (the answer), or exit 3 with exactly one `refscope: …` line. */
function cliVerdict(cmd, r) {
  if (r.signal || r.code === null) return `killed (${r.signal ?? 'no exit'})`;
  if (r.code === 0) {
    // `share` says on stderr what its link contains; the others print nothing there.
    if (cmd !== 'share' && r.stderr !== '') return `exit 0 with stderr: ${r.stderr.slice(0, 200)}`;
    return null;
  }
  if (
    cmd === 'compact' &&
    r.code === 2 &&
    /^refscope: [^\n]+ is not a reftable stack [^\n]+use convert\n[^\n]+\n$/.test(r.stderr)
  )
    return null;
  if (r.code !== 3) return `exit ${r.code}: ${r.stderr.slice(0, 300)}`;
  if (!ONE_LINE.test(r.stderr)) return `not one clean error line: ${JSON.stringify(r.stderr.slice(0, 300))}`;
  return null;
}

const rows = [];
const worst = {};
const failures = [];
function record(caseName, cmd, r, verdict, answer) {
  const over = [];
  if (r.ms > LIMIT_MS) over.push(`${r.ms} ms of CPU > ${LIMIT_MS} ms`);
  if (r.wall >= KILL_MS) over.push(`no answer within ${KILL_MS} ms (hang guard)`);
  if (r.mb >= LIMIT_MB) over.push(`${r.mb} MiB ≥ ${LIMIT_MB} MiB`);
  const w = (worst[cmd] ??= { ms: 0, msCase: '', wall: 0, mb: 0, mbCase: '', runs: 0, errors: 0 });
  w.wall = Math.max(w.wall, r.wall);
  w.runs++;
  if (answer === 'error') w.errors++;
  if (r.ms > w.ms) Object.assign(w, { ms: r.ms, msCase: caseName });
  if (r.mb > w.mb) Object.assign(w, { mb: r.mb, mbCase: caseName });
  const bad = [verdict, ...over].filter(Boolean);
  if (bad.length) failures.push(`${caseName} ${cmd}: ${bad.join('; ')}`);
  rows.push({ case: caseName, cmd, ms: r.ms, wall: r.wall, mb: r.mb, answer, bad: bad.join('; ') });
  if (VERBOSE || bad.length)
    console.log(
      `${bad.length ? 'FAIL' : 'ok  '} ${caseName} ${cmd}: ${answer}, ${r.ms} ms CPU, ${r.wall} ms wall, ${r.mb} MiB ${bad.join('; ')}`,
    );
}

const node = process.execPath;
let n = 0;
for (const c of cases) {
  if (ONLY && !c.name.includes(ONLY)) continue;
  n++;
  // A link goes in a file (`export` reads a file holding a link): one argument is capped at
  // 128 KiB on Linux, and a hostile link can be longer.
  let linkArg = c.link;
  if (c.link && c.link.length > 100_000) {
    linkArg = path.join(tmp, `link-${n}.txt`);
    fs.writeFileSync(linkArg, c.link);
  }
  const cli = c.link
    ? [
        ['export md', ['export', linkArg, '--format', 'md']],
        ['export json', ['export', linkArg, '--format', 'json']],
      ]
    : [
        ['analyze', ['analyze', c.path]],
        ['compact', ['compact', c.path, '--out', path.join(tmp, `out-${n}`)]],
        ['share', ['share', c.path]],
        ['export md', ['export', c.path, '--format', 'md']],
        ['export json', ['export', c.path, '--format', 'json']],
      ];
  for (const [cmd, args] of cli) {
    const r = measured([node, BIN, ...args]);
    record(c.name, cmd, r, cliVerdict(cmd, r), r.code === 0 ? 'answer' : 'error');
  }
  // The worker's session flow.
  const spec = path.join(tmp, `spec-${n}.json`);
  fs.writeFileSync(
    spec,
    JSON.stringify(c.link ? { link: c.link } : c.manifest ? { manifest: c.manifest } : { path: c.path }),
  );
  const r = measured([node, SESSION, spec]);
  let verdict = null;
  let answer = '?';
  try {
    const m = JSON.parse(r.stdout.trim().split('\n').pop());
    if (m.error) verdict = m.error;
    else answer = /^(error|clean error)/.test(m.answer) ? 'error' : 'answer';
  } catch {
    verdict = `no answer from the worker (exit ${r.code}${r.signal ? ', ' + r.signal : ''}): ${r.stderr.slice(0, 300)}`;
  }
  record(c.name, 'worker', r, verdict, answer);
}

console.log(`\nhostile: ${n} cases, limits ${LIMIT_MS} ms of CPU and ${LIMIT_MB} MiB per process`);
console.log('command       runs  errors  worst CPU (case)                          worst wall  worst RSS (case)');
for (const [cmd, w] of Object.entries(worst))
  console.log(
    `${cmd.padEnd(12)} ${String(w.runs).padStart(5)} ${String(w.errors).padStart(7)}  ${`${w.ms} ms`.padStart(8)} (${w.msCase.slice(0, 32).padEnd(32)})  ${`${w.wall} ms`.padStart(9)}  ${`${w.mb} MiB`.padStart(8)} (${w.mbCase.slice(0, 32)})`,
  );
if (process.env.HOSTILE_JSON)
  fs.writeFileSync(process.env.HOSTILE_JSON, JSON.stringify({ worst, rows, failures }, null, 1));
console.log(
  failures.length
    ? `\n${failures.length} over a limit or broken:\n  ${failures.join('\n  ')}`
    : '\nall within the limits',
);
process.exitCode = failures.length ? 1 : 0;
