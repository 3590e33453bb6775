/**
 * "Measure with your git": `refscope export --format measure` writes a bash script; run here
 * against a fixture repository with a real git (test/lib/realgit.ts), it must leave the repository
 * untouched, write one refscope.measure/1 file, and `refscope calibrate` must show the trace's own
 * figures (computed here from the trace events independently) and the CPU times bash measured.
 * Plus the version-string mapping ("which git is mine") on the shapes `git --version` prints.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { realGits, gitSkipReason, gitRepo, behaviour, type GitRepo } from './lib/realgit.ts';
import { parseGitVersion } from '../src/engine/simulate/gitversion.ts';
import { readMeasureFile, MeasureFileError } from '../src/engine/simulate/measure.ts';
import { Ajv2020 } from 'ajv/dist/2020.js';

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'bin/refscope.mjs');

function cli(args: string[], env?: NodeJS.ProcessEnv): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
    env: env ?? process.env,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('which git is mine: git --version → model', () => {
  const cases: [string, string | null, string | null, RegExp][] = [
    ['git version 2.55.0', 'git-2.55', null, /release of the git-2\.55 model/],
    [
      'git version 2.55.GIT',
      'git-2.55',
      'git-2.56',
      /if your build contains the July 2026 fix 'reftable: fix quadratic behavior in the presence of tombstones', choose git-2\.56/,
    ],
    ['git version 2.56.0.rc1', 'git-2.56', null, /release candidate of 2\.56/],
    ['git version 2.47.3', 'git-2.49', null, /release/],
    ['git version 2.39.5', null, null, /no reftable support \(it arrived in git 2\.45\)/],
    ['git version 2.39.5 (Apple Git-154)', null, null, /Apple Git-154.*no reftable/],
    ['git version 2.50.1 (Apple Git-155)', 'git-2.55', null, /Apple Git-155/],
    ['git version 2.47.1.windows.2', 'git-2.49', null, /Git for Windows\.2/],
    ['git version 2.53.0.697.g625c4fb2daa', 'git-2.55', 'git-2.56', /development build after git 2\.53/],
    ['git version 2.57.0', 'git-2.56', null, /release/],
    ['2.48.1', 'git-2.49', null, /release/],
  ];
  for (const [line, model, alt, note] of cases) {
    it(`${line} → ${model ?? 'files only'}`, () => {
      const v = parseGitVersion(line);
      expect(v.model).toBe(model);
      expect(v.alternative).toBe(alt);
      expect(v.reftable).toBe(model !== null);
      expect(v.note).toMatch(note);
    });
  }
  it('a line without a version is refused, naming what was expected', () => {
    expect(() => parseGitVersion('hub version 2.14')).toThrow(/expected a line like "git version 2\.55\.0"/);
  });
  it('simulate --git-version: the fix panel compares against that git, and the text names the model', () => {
    const fx = path.join(ROOT, 'test/fixtures/reftable/recreate-1000');
    const r = cli([
      'simulate',
      path.join(fx, 'reftable'),
      '--stdin',
      path.join(fx, 'truth/recreate.stdin'),
      '--git-version',
      'git version 2.55.0',
      '--json',
      '--no-curve',
    ]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.gitVersion.model).toBe('git-2.55');
    expect(new Set(doc.fixes.map((f: { model: string }) => f.model))).toEqual(new Set(['git-2.55']));
    const bad = cli(['simulate', path.join(fx, 'reftable'), '--workload', 'recreate', '--git-version', 'version?']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--git-version: git version: expected a line like/);
  });
});

describe('refscope calibrate: bad files', () => {
  it('a file that is not a measure file: one line, the file, offset, what was expected (exit 3)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-cal-'));
    try {
      const f = path.join(dir, 'x.json');
      fs.writeFileSync(f, '{"schema":"something else"}');
      const r = cli(['calibrate', f]);
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/x\.json: offset 0: expected "schema": "refscope\.measure\/1"/);
      fs.writeFileSync(f, '{"schema": ');
      expect(() => readMeasureFile('{"schema": ', 'x.json')).toThrow(MeasureFileError);
      expect(cli(['calibrate', f]).code).toBe(3);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(gitSkipReason)('the measure script with a real git', () => {
  const gits = realGits();
  const g = gits[gits.length - 1];
  let repo: GitRepo;
  let tmp: string;
  let script: string;
  let file: string;
  let before: string;
  const ids: string[] = [];

  const listing = (dir: string): string => {
    const out: string[] = [];
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else out.push(`${path.relative(dir, p)} ${fs.statSync(p).size} ${fs.statSync(p).mtimeMs}`);
      }
    };
    walk(dir);
    return out.join('\n');
  };

  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-measure-'));
    repo = gitRepo(g, { format: 'reftable' });
    // 40 commits, 30 refs at distinct ones, 20 of them deleted in one transaction: tombstones.
    let parent = '';
    const tree = repo.git(['mktree'], '').trim();
    for (let i = 0; i < 40; i++) {
      parent = repo.git(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', `c${i}`]).trim();
      ids.push(parent);
    }
    repo.git(['update-ref', 'refs/heads/main', parent]);
    repo.git(
      ['update-ref', '--stdin'],
      ids
        .slice(0, 30)
        .map((id, i) => `create refs/heads/topic-${i} ${id}\n`)
        .join(''),
    );
    repo.git(
      ['update-ref', '--stdin'],
      ids
        .slice(0, 20)
        .map((id, i) => `delete refs/heads/topic-${i} ${id}\n`)
        .join(''),
    );
    before = repo.git(['for-each-ref']) + listing(repo.gitDir);
    const r = cli([
      'export',
      repo.gitDir,
      '--format',
      'measure',
      '--workload',
      'recreate',
      '--git-version',
      g.versionLine,
      '--repeats',
      '2',
    ]);
    expect(r.stderr).toMatch(/development build|release/);
    expect(r.code).toBe(0);
    script = path.join(tmp, 'measure.sh');
    fs.writeFileSync(script, r.stdout);
    file = path.join(tmp, 'out.json');
    const run = spawnSync('bash', [script, repo.dir, file], {
      cwd: tmp,
      env: { ...repo.env, GIT: g.git },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.stderr).toMatch(/refscope: wrote/);
    expect(run.status).toBe(0);
  }, 180_000);

  afterAll(() => {
    repo?.dispose();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('the script says at the top what it touches (only its copy) and that nothing is uploaded', () => {
    const head = fs.readFileSync(script, 'utf8').split('\n').slice(0, 20).join('\n');
    expect(head).toMatch(/throw-away bare repository/);
    expect(head).toMatch(/Your repository is never written to/);
    expect(head).toMatch(/Nothing is uploaded/);
  });

  it('the repository is untouched: same refs, same files (sizes and times)', () => {
    expect(repo.git(['for-each-ref']) + listing(repo.gitDir)).toBe(before);
  });

  it('the file holds the runs: before and after pack-refs, each traced, all exit 0, with the git that ran', () => {
    const m = readMeasureFile(fs.readFileSync(file, 'utf8'), file);
    expect(m.git).toBe(g.versionLine);
    expect(m.refFormat).toBe('reftable');
    expect(m.runs.map((r) => r.phase)).toEqual(['before', 'pack-refs', 'after', 'before', 'pack-refs', 'after']);
    for (const r of m.runs) {
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.trace.some((e) => e.event === 'exit')).toBe(true);
    }
    // The workload ran on the copy: the recreate of 20 refs (behaviour of this build known to the helper).
    expect(typeof behaviour(g).tombstoneFix).toBe('boolean');
  });

  it("refscope calibrate shows the trace's own figures and the CPU times measured", () => {
    const m = JSON.parse(fs.readFileSync(file, 'utf8'));
    const r = cli(['calibrate', file, '--json']);
    expect(r.code).toBe(0);
    const c = JSON.parse(r.stdout);
    // The document validates against its shipped schema (as every other --json: schemas.test.ts).
    const v = new Ajv2020({ allErrors: true, strictTypes: false, strictRequired: false }).compile(
      JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas/calibration.schema.json'), 'utf8')),
    );
    expect(v(c) ? [] : v.errors).toEqual([]);
    const med = (xs: number[]) => {
      const a = [...xs].sort((x, y) => x - y);
      const k = a.length >> 1;
      return a.length % 2 ? a[k] : (a[k - 1] + a[k]) / 2;
    };
    const t = (s: string) => Date.parse(s.slice(0, 23) + 'Z') / 1000 + Number(`0.000${s.slice(23, 26)}`);
    for (const phase of ['before', 'after'] as const) {
      const runs = m.runs.filter((x: { phase: string }) => x.phase === phase);
      const rows = c[phase] as { what: string; measured: number; predicted: number }[];
      const row = (w: RegExp) => rows.find((x) => w.test(x.what))!;
      expect(row(/^total \(CPU\)/).measured).toBeCloseTo(
        med(runs.map((x: { user: number; sys: number }) => x.user + x.sys)),
        9,
      );
      // User and sys apart (the files backend's time is mostly sys).
      expect(row(/^of which user \(CPU\)/).measured).toBeCloseTo(med(runs.map((x: { user: number }) => x.user)), 9);
      expect(row(/^of which sys \(CPU/).measured).toBeCloseTo(med(runs.map((x: { sys: number }) => x.sys)), 9);
      const exitAbs = runs.map(
        (x: { trace: { event: string; t_abs: number }[] }) => x.trace.find((e) => e.event === 'exit')!.t_abs,
      );
      expect(row(/exit t_abs/).measured).toBeCloseTo(med(exitAbs), 9);
      const cmd = runs.map(
        (x: { trace: { event: string; time: string }[] }) =>
          t(x.trace.find((e) => e.event === 'exit')!.time) - t(x.trace.find((e) => e.event === 'cmd_name')!.time),
      );
      expect(row(/cmd_name to exit/).measured).toBeCloseTo(med(cmd), 5);
      const start = runs.map((x: { trace: { event: string; time: string; t_abs: number }[] }) => {
        const s = x.trace.find((e) => e.event === 'start')!;
        return s.t_abs + t(x.trace.find((e) => e.event === 'cmd_name')!.time) - t(s.time);
      });
      expect(row(/start to cmd_name/).measured).toBeCloseTo(med(start), 5);
      expect(row(/^total \(CPU\)/).predicted).toBe(
        phase === 'before' ? m.prediction.before.seconds : m.prediction.after.seconds,
      );
    }
    // The machine's factor: measured CPU over predicted.
    const b = c.before[0];
    expect(c.factorBefore).toBeCloseTo(b.measured / b.predicted, 9);
    // The readable form shows the same numbers.
    const text = cli(['calibrate', file]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/this machine's factor/);
    expect(text.stdout).toMatch(/process start \(trace: start to cmd_name\)/);
  });
});
