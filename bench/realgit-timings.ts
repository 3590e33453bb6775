/**
 * `npm run calibrate:real`: CPU time of the real gits this machine built (scripts/setup-git.sh,
 * /var/cache/refscope-git/<version>) on ref-store workloads with real objects and distinct object
 * ids. A benchmark, not a test: it writes src/engine/simulate/measured/real-gits.json, which the
 * tests read (test/simulate-realgit.test.ts refits the time model on it and checks every estimate
 * against it); `npm test` times nothing.
 *
 *   npm run calibrate:real [-- --git 2.55.0] [--plan reftable:cycle,start] [--max-n 16000] [--n 16000] [--repeats 3] [--quick]
 *
 * Per git (each run replaces only that git's entries in the file, so builds that finish later can
 * be added):
 * - one object repository shared by every case: C commits written by `git fast-import` (a chain,
 *   each commit changing one of 64 files: one pack of realistic shape), hard-linked into each case;
 * - per backend (reftable, files) and n = 1000 … 16000 (32000 where the previous n stayed cheap):
 *   `create` n refs `refs/heads/br-<i>` at n distinct commits into a store holding only HEAD and
 *   refs/heads/main (one `update-ref --stdin` transaction), `delete` them and main in one
 *   transaction, `recreate` them (the quadratic case of git ≤ 2.55 on reftable); then, from a copy
 *   of the store as it was after `delete`, `git pack-refs --all` and the same `recreate` again
 *   (reftable: pack-refs drops the tombstones). Files backend: the pack-refs sequence packs after
 *   `create` (delete then rewrites packed-refs once).
 * - variants at a few n that isolate costs outside the ref store: all refs at one commit (object
 *   existence check of distinct objects vs one cached object), reflogs on
 *   (`core.logAllRefUpdates=always`), fsync of refs (`core.fsync=reference`), one transaction per
 *   update (lock, table file or loose file, rename per transaction);
 * - process start: `git --version`, `git rev-parse HEAD`.
 * Every timed command runs under `nice` and `/usr/bin/time`; the figure is user + sys CPU seconds
 * of the child (the machine is shared: wall time is recorded too, but not used), median of the
 * repeats.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'src/engine/simulate/measured/real-gits.json');
const CACHE = process.env.REFSCOPE_GIT_CACHE ?? '/var/cache/refscope-git';

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const QUICK = argv.includes('--quick');
const ONLY = opt('--git');
/** `--plan reftable:cycle,files:cycle,start`: run only these parts (default: all). */
const PLAN = opt('--plan')?.split(',');
const MAX_N = Number(opt('--max-n') ?? (QUICK ? 2000 : 32000));
const REPEATS = Number(opt('--repeats') ?? (QUICK ? 1 : 3));
/** A case runs once when its first run takes longer than this (CPU s); a reftable cycle repeats its cheap steps. */
const LONG = 15;
/** A larger n is skipped when the previous one, grown ×4.2, would pass this (CPU seconds). */
const BUDGET = Number(opt('--budget') ?? 200);
const BUDGET_32K = Number(opt('--budget-32k') ?? 40);
/**
 * `--n 16000,32000`: only these n (a point the budget skipped earlier, or one between the usual
 * doublings such as 12000 or 24000 to see where growth bends; other entries stay).
 */
const ONLY_N = opt('--n')?.split(',').map(Number);
const NS = ONLY_N ? ONLY_N.filter((n) => n <= MAX_N) : [1000, 2000, 4000, 8000, 16000, 32000].filter((n) => n <= MAX_N);
// The object store is the same whatever --max-n says (its size is one of the recorded facts).
const COMMITS = 32000 + 100;

interface Git {
  version: string;
  versionLine: string;
  exe: string;
  execPath: string;
  templates: string;
}

function gits(): Git[] {
  const out: Git[] = [];
  for (const version of fs.readdirSync(CACHE).sort()) {
    const dir = path.join(CACHE, version);
    if (!fs.existsSync(path.join(dir, 'OK'))) continue;
    if (ONLY && version !== ONLY) continue;
    const src = path.join(dir, 'src');
    out.push({
      version,
      versionLine: fs.readFileSync(path.join(dir, 'version.txt'), 'utf8').trim(),
      exe: path.join(src, 'git'),
      execPath: src,
      templates: path.join(src, 'templates/blt'),
    });
  }
  return out;
}

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-realgit-'));
const HOME = path.join(TMP, 'home');
fs.mkdirSync(HOME);
fs.writeFileSync(path.join(HOME, '.gitconfig'), '[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n');

function env(g: Git): NodeJS.ProcessEnv {
  // The built git run in place, without its bin-wrapper (a shell start would count as git's).
  return {
    PATH: process.env.PATH,
    HOME,
    LANG: 'C',
    LC_ALL: 'C',
    TZ: 'UTC',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: path.join(HOME, '.gitconfig'),
    GIT_EXEC_PATH: g.execPath,
    GIT_TEMPLATE_DIR: g.templates,
    GIT_AUTHOR_NAME: 'A U Thor',
    GIT_AUTHOR_EMAIL: 'author@example.com',
    GIT_AUTHOR_DATE: '1700000000 +0000',
    GIT_COMMITTER_NAME: 'C O Mitter',
    GIT_COMMITTER_EMAIL: 'committer@example.com',
    GIT_COMMITTER_DATE: '1700000000 +0000',
  };
}

function git(g: Git, cwd: string, args: string[], input?: string | Buffer): string {
  const r = spawnSync(g.exe, args, { cwd, env: env(g), input, maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} in ${cwd}: exit ${r.status}: ${r.stderr}`);
  return r.stdout.toString();
}

interface Timing {
  cpu: number;
  user: number;
  sys: number;
  wall: number;
}

/**
 * One timed run: bash's `time` (getrusage of the child, millisecond resolution; /usr/bin/time
 * prints only centiseconds) around the git process, everything under `nice`. `loops` > 1 runs
 * the command that many times inside one timing and returns the time per run (process start:
 * about a millisecond each).
 */
function timed(g: Git, cwd: string, args: string[], stdinFile?: string, loops = 1): Timing {
  const script =
    'TIMEFORMAT="%3U %3S %3R"; in="$1"; k="$2"; shift 2; ' +
    'time { for ((i = 0; i < k; i++)); do "$@" <"$in" >/dev/null 2>>"$err" || exit 1; done; }';
  const r = spawnSync(
    'nice',
    [
      '-n',
      '10',
      'bash',
      '-c',
      `err=${JSON.stringify(path.join(TMP, 'git.err'))}; ${script}`,
      'timed',
      stdinFile ?? '/dev/null',
      String(loops),
      g.exe,
      ...args,
    ],
    { cwd, env: env(g), stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 30 },
  );
  if (r.status !== 0) {
    const err = fs.existsSync(path.join(TMP, 'git.err')) ? fs.readFileSync(path.join(TMP, 'git.err'), 'utf8') : '';
    throw new Error(`timed git ${args.join(' ')} in ${cwd}: exit ${r.status}: ${err}${r.stderr}`);
  }
  const [user, sys, wall] = r.stderr
    .toString()
    .trim()
    .split('\n')
    .pop()!
    .split(' ')
    .map((x) => Number(x) / loops);
  return { cpu: user + sys, user, sys, wall };
}

const median = (xs: number[]): number => {
  const a = [...xs].sort((x, y) => x - y);
  const m = a.length >> 1;
  return a.length % 2 ? a[m] : (a[m - 1] + a[m]) / 2;
};

/** The shared object store: a chain of COMMITS commits, one pack. Returns the commit ids in order. */
function objectRepo(g: Git): { dir: string; commits: string[]; packBytes: number; objects: number } {
  const dir = path.join(TMP, 'objects');
  if (fs.existsSync(path.join(dir, 'commits.txt'))) {
    const commits = fs.readFileSync(path.join(dir, 'commits.txt'), 'utf8').trim().split('\n');
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
    return { dir, commits, ...meta };
  }
  git(g, TMP, ['init', '-q', '--bare', dir]);
  const parts: string[] = [];
  for (let i = 1; i <= COMMITS; i++) {
    const msg = `change ${i}: adjust f${i % 64}\n\nA body line so that the commit looks like one.\n`;
    const body = `file ${i % 64}, revision ${i}\n${'line of text in a source file '.repeat(8 + (i % 13))}\n${(i * 7919) % 104729}\n`;
    parts.push(
      `commit refs/heads/main\nmark :${i}\ncommitter C O Mitter <c@example.com> ${1700000000 + i} +0000\n` +
        `data ${Buffer.byteLength(msg)}\n${msg}${i > 1 ? `from :${i - 1}\n` : ''}` +
        `M 100644 inline src/f${i % 64}.c\ndata ${Buffer.byteLength(body)}\n${body}\n`,
    );
  }
  const marks = path.join(TMP, 'marks');
  git(g, dir, ['fast-import', '--quiet', `--export-marks=${marks}`], parts.join(''));
  const byMark = new Map<number, string>();
  for (const line of fs.readFileSync(marks, 'utf8').trim().split('\n')) {
    const [m, oid] = line.split(' ');
    byMark.set(Number(m.slice(1)), oid);
  }
  const commits: string[] = [];
  for (let i = 1; i <= COMMITS; i++) commits.push(byMark.get(i)!);
  git(g, dir, ['update-ref', '-d', 'refs/heads/main']);
  const packDir = path.join(dir, 'objects/pack');
  const packBytes = fs
    .readdirSync(packDir)
    .filter((f) => f.endsWith('.pack'))
    .reduce((s, f) => s + fs.statSync(path.join(packDir, f)).size, 0);
  const objects =
    Number(/count: (\d+)/.exec(git(g, dir, ['count-objects', '-v']))?.[1] ?? 0) +
    Number(/in-pack: (\d+)/.exec(git(g, dir, ['count-objects', '-v']))?.[1] ?? 0);
  fs.writeFileSync(path.join(dir, 'commits.txt'), commits.join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'meta.json'), JSON.stringify({ packBytes, objects }));
  return { dir, commits, packBytes, objects };
}

type Backend = 'reftable' | 'files';

/** A fresh bare repository with the shared pack hard-linked in and refs/heads/main at the tip. */
function caseRepo(
  g: Git,
  obj: { dir: string; commits: string[] },
  backend: Backend,
  config: Record<string, string>,
): string {
  const dir = fs.mkdtempSync(path.join(TMP, `case-${backend}-`));
  git(g, TMP, ['init', '-q', '--bare', `--ref-format=${backend}`, dir]);
  const src = path.join(obj.dir, 'objects/pack');
  for (const f of fs.readdirSync(src)) fs.linkSync(path.join(src, f), path.join(dir, 'objects/pack', f));
  git(g, dir, ['config', 'core.logAllRefUpdates', 'false']);
  for (const [k, v] of Object.entries(config)) git(g, dir, ['config', k, v]);
  git(g, dir, ['update-ref', 'refs/heads/main', obj.commits[obj.commits.length - 1]]);
  return dir;
}

/** The ref store's files (to snapshot and restore around a pack-refs). */
function refStore(dir: string): string[] {
  return ['reftable', 'refs', 'packed-refs', 'logs'].filter((f) => fs.existsSync(path.join(dir, f)));
}
function snapshot(dir: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const f of refStore(dir)) fs.cpSync(path.join(dir, f), path.join(to, f), { recursive: true });
}
function restore(from: string, dir: string): void {
  for (const f of refStore(dir)) fs.rmSync(path.join(dir, f), { recursive: true, force: true });
  for (const f of fs.readdirSync(from)) fs.cpSync(path.join(from, f), path.join(dir, f), { recursive: true });
}

/** What the store held before a timed step (tables and their sizes; loose and packed counts). */
function storeShape(dir: string): unknown {
  const rt = path.join(dir, 'reftable');
  if (fs.existsSync(rt)) {
    const names = fs.readFileSync(path.join(rt, 'tables.list'), 'utf8').trim().split('\n').filter(Boolean);
    return { tables: names.map((n) => ({ name: n, bytes: fs.statSync(path.join(rt, n)).size })) };
  }
  let loose = 0;
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else loose++;
    }
  };
  walk(path.join(dir, 'refs'));
  const pr = path.join(dir, 'packed-refs');
  const packed = fs.existsSync(pr)
    ? fs
        .readFileSync(pr, 'utf8')
        .split('\n')
        .filter((l) => /^[0-9a-f]{40} /.test(l)).length
    : 0;
  return { loose, packed };
}

const names = (n: number): string[] => Array.from({ length: n }, (_, i) => `refs/heads/br-${i}`);

function stdin(file: string, lines: string[]): string {
  fs.writeFileSync(file, lines.join(''));
  return file;
}

interface Step {
  step: string;
  cpu: number;
  user: number;
  sys: number;
  wall: number;
  before: unknown;
}
interface CaseResult {
  git: string;
  backend: Backend;
  workload: string;
  n: number;
  repeats: number;
  /** Medians over the repeats, per step, CPU seconds (user + sys) of the git process. */
  steps: Record<string, { cpu: number; wall: number; user: number; sys: number; runs: number[]; before: unknown }>;
}

/**
 * One sequence on a fresh repository. `kind`:
 * - `cycle`: create (distinct commits), delete all + main, recreate; then from the store as it was
 *   after delete: pack-refs (reftable) and recreate again (`recreate-packed`); files: a second
 *   repository packs after create (`pack-refs`, `delete-packed`, `recreate-after-packed-delete`).
 * - `same-object`: create with every ref at one commit.
 * - `reflog`, `fsync`: create with core.logAllRefUpdates=always / core.fsync=reference.
 * - `per-ref`: create with one transaction per ref (start/commit around each line).
 */
function runOnce(
  g: Git,
  obj: { dir: string; commits: string[] },
  backend: Backend,
  kind: string,
  n: number,
  once: ReadonlySet<string> = new Set(),
): Step[] {
  const steps: Step[] = [];
  const nm = names(n);
  const oid = (i: number) => obj.commits[i];
  const creates = nm.map((r, i) => `create ${r} ${kind === 'same-object' ? oid(0) : oid(i)}\n`);
  const deletes = [
    ...nm.map((r, i) => `delete ${r} ${oid(i)}\n`),
    `delete refs/heads/main ${oid(obj.commits.length - 1)}\n`,
  ];
  const config: Record<string, string> = {};
  if (kind === 'reflog') config['core.logAllRefUpdates'] = 'always';
  if (kind === 'fsync') {
    config['core.fsync'] = 'reference';
    config['core.fsyncMethod'] = 'fsync';
  }
  const dir = caseRepo(g, obj, backend, config);
  const f = (s: string) => path.join(TMP, `${s}.stdin`);
  const step = (name: string, args: string[], file?: string) => {
    const before = storeShape(dir);
    steps.push({ step: name, ...timed(g, dir, args, file), before });
  };
  try {
    if (kind === 'per-ref') {
      step(
        'create',
        ['update-ref', '--stdin'],
        stdin(
          f('c'),
          creates.flatMap((l) => ['start\n', l, 'commit\n']),
        ),
      );
      return steps;
    }
    step('create', ['update-ref', '--stdin'], stdin(f('c'), creates));
    if (kind !== 'cycle') return steps;
    if (backend === 'files') {
      step('delete', ['update-ref', '--stdin'], stdin(f('d'), deletes));
      step('recreate', ['update-ref', '--stdin'], f('c'));
      const dir2 = caseRepo(g, obj, backend, config);
      try {
        const before = storeShape(dir2);
        steps.push({ step: 'create-loose', ...timed(g, dir2, ['update-ref', '--stdin'], f('c')), before });
        const b1 = storeShape(dir2);
        steps.push({ step: 'pack-refs', ...timed(g, dir2, ['pack-refs', '--all']), before: b1 });
        const b2 = storeShape(dir2);
        steps.push({
          step: 'delete-packed',
          ...timed(g, dir2, ['update-ref', '--stdin'], stdin(f('d'), deletes)),
          before: b2,
        });
        const b3 = storeShape(dir2);
        steps.push({
          step: 'recreate-after-packed-delete',
          ...timed(g, dir2, ['update-ref', '--stdin'], f('c')),
          before: b3,
        });
      } finally {
        fs.rmSync(dir2, { recursive: true, force: true });
      }
      return steps;
    }
    step('delete', ['update-ref', '--stdin'], stdin(f('d'), deletes));
    if (!once.has('recreate')) {
      const snap = path.join(TMP, 'snap');
      fs.rmSync(snap, { recursive: true, force: true });
      snapshot(dir, snap);
      step('recreate', ['update-ref', '--stdin'], f('c'));
      restore(snap, dir);
    }
    step('pack-refs', ['pack-refs', '--all']);
    step('recreate-packed', ['update-ref', '--stdin'], f('c'));
    return steps;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function runCase(
  g: Git,
  obj: { dir: string; commits: string[] },
  backend: Backend,
  kind: string,
  n: number,
): CaseResult {
  const runs: Step[][] = [];
  // A reftable re-creation over tombstones that took longer than LONG runs once; the case's other
  // steps are still repeated (one run of a cheap step is too noisy to fit on, on a shared machine).
  const once = new Set<string>();
  for (let r = 0; r < REPEATS; r++) {
    const s = runOnce(g, obj, backend, kind, n, once);
    runs.push(s);
    const rec = s.find((x) => x.step === 'recreate');
    if (backend === 'reftable' && kind === 'cycle' && rec && rec.cpu > LONG) once.add('recreate');
    else if (s.reduce((t, x) => t + x.cpu, 0) > LONG) break;
  }
  const steps: CaseResult['steps'] = {};
  for (const s of runs[0]) {
    const all = runs.map((rr) => rr.find((x) => x.step === s.step)).filter((x): x is Step => !!x);
    steps[s.step] = {
      cpu: median(all.map((x) => x.cpu)),
      user: median(all.map((x) => x.user)),
      sys: median(all.map((x) => x.sys)),
      wall: median(all.map((x) => x.wall)),
      runs: all.map((x) => x.cpu),
      before: s.before,
    };
  }
  return { git: g.version, backend, workload: kind, n, repeats: runs.length, steps };
}

function processStart(
  g: Git,
  obj: { dir: string; commits: string[] },
): Record<string, { cpu: number; runs: number[] }> {
  const out: Record<string, { cpu: number; runs: number[] }> = {};
  for (const backend of ['reftable', 'files'] as Backend[]) {
    const dir = caseRepo(g, obj, backend, {});
    try {
      for (const [what, args] of [
        ['version', ['--version']],
        ['rev-parse', ['rev-parse', 'refs/heads/main']],
        ['update-ref-empty', ['update-ref', '--stdin']],
      ] as [string, string[]][]) {
        if (what === 'version' && backend === 'files') continue;
        const empty = path.join(TMP, 'empty.stdin');
        fs.writeFileSync(empty, '');
        const runs: number[] = [];
        for (let i = 0; i < (QUICK ? 3 : 7); i++)
          runs.push(timed(g, dir, args, what === 'update-ref-empty' ? empty : undefined, 25).cpu);
        out[what === 'version' ? what : `${what} (${backend})`] = { cpu: median(runs), runs };
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}

interface FileData {
  schema: 'refscope.real-gits/1';
  description: string;
  machine: { nproc: number; cpu: string; memoryGB: number; kernel: string; date: string; load: number[] };
  objects: { commits: number; objects: number; packBytes: number };
  gits: Record<
    string,
    { versionLine: string; measured: string; processStart: Record<string, { cpu: number; runs: number[] }> }
  >;
  cases: CaseResult[];
}

function load(): FileData | null {
  try {
    return JSON.parse(fs.readFileSync(OUT, 'utf8'));
  } catch {
    return null;
  }
}

function save(d: FileData): void {
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(
    OUT,
    JSON.stringify(d, (k, v) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(4)) : v), 1) +
      '\n',
  );
  // In the tree's own style (`npm test` runs Prettier's check over it).
  spawnSync(path.join(ROOT, 'node_modules/.bin/prettier'), ['--write', '--log-level', 'warn', OUT], {
    stdio: 'inherit',
  });
}

function main(): void {
  const list = gits();
  if (!list.length) {
    console.error(`realgit-timings: no built git in ${CACHE} (npm run setup:git)`);
    process.exit(1);
  }
  const cpuModel = /model name\s*:\s*(.*)/.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown';
  const obj = objectRepo(list[list.length - 1]);
  const prev = load();
  const data: FileData = {
    schema: 'refscope.real-gits/1',
    description:
      'CPU seconds (user + sys, median of repeats) of real git on ref-store workloads; written by bench/realgit-timings.ts (npm run calibrate:real)',
    machine: {
      nproc: os.cpus().length,
      cpu: cpuModel,
      memoryGB: Math.round(os.totalmem() / 2 ** 30),
      kernel: os.release(),
      date: new Date().toISOString().slice(0, 10),
      load: os.loadavg().map((x) => Number(x.toFixed(2))),
    },
    objects: { commits: obj.commits.length, objects: obj.objects, packBytes: obj.packBytes },
    gits: { ...(prev?.gits ?? {}) },
    cases: prev?.cases ?? [],
  };
  for (const g of list) {
    console.log(`== ${g.versionLine} (${g.version})`);
    if (!data.gits[g.version] || !PLAN || PLAN.includes('start')) {
      data.gits[g.version] = {
        versionLine: g.versionLine,
        measured: new Date().toISOString(),
        processStart: processStart(g, obj),
      };
    }
    console.log(
      '  process start',
      JSON.stringify(Object.fromEntries(Object.entries(data.gits[g.version].processStart).map(([k, v]) => [k, v.cpu]))),
    );
    save(data);
    const plan: [Backend, string, number[]][] = (
      [
        ['reftable', 'cycle', NS],
        ['files', 'cycle', NS.filter((n) => n === 1000 || n === 4000)],
        ['reftable', 'same-object', NS.filter((n) => n === 4000 || n === 16000)],
        ['reftable', 'reflog', NS.filter((n) => n === 4000)],
        ['reftable', 'fsync', NS.filter((n) => n === 4000)],
        ['reftable', 'per-ref', NS.filter((n) => n === 1000)],
        ['files', 'reflog', NS.filter((n) => n === 1000)],
        ['files', 'per-ref', NS.filter((n) => n === 1000)],
      ] as [Backend, string, number[]][]
    ).filter(([b, k]) => !PLAN || PLAN.includes(`${b}:${k}`));
    // A case re-run replaces its old record (same git, backend, workload).
    data.cases = data.cases.filter(
      (c) =>
        !(c.git === g.version && plan.some(([b, k, ns]) => b === c.backend && k === c.workload && ns.includes(c.n))),
    );
    for (const [backend, kind, ns] of plan) {
      let last: CaseResult | undefined;
      for (const n of ns) {
        if (last) {
          const worst = Math.max(...Object.values(last.steps).map((s) => s.cpu));
          const limit = n > 16000 ? BUDGET_32K : BUDGET;
          if (worst * 4.2 * (n / last.n / 2) > limit) {
            console.log(
              `  ${backend} ${kind} n=${n}: skipped (n=${last.n} took ${worst.toFixed(2)} s, ×4 would pass ${limit} s)`,
            );
            break;
          }
        }
        const t0 = Date.now();
        const c = runCase(g, obj, backend, kind, n);
        data.cases.push(c);
        save(data);
        last = c;
        console.log(
          `  ${backend} ${kind} n=${n} ×${c.repeats}: ${Object.entries(c.steps)
            .map(([k, v]) => `${k} ${v.cpu.toFixed(3)}`)
            .join(', ')} (${((Date.now() - t0) / 1000).toFixed(0)} s wall)`,
        );
      }
    }
  }
  console.log(`wrote ${path.relative(ROOT, OUT)}`);
  fs.rmSync(TMP, { recursive: true, force: true });
}

main();
