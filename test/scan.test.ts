/**
 * `refscope scan` on a tree of 64 repositories that real gits made: both backends, bare and not,
 * forge layouts, tombstone tables, lock files, a truncated table. The scan runs on two worker
 * threads, is killed part way and resumed, and runs as three shards; the merged shards must equal
 * the single run row for row, every row must agree with `refscope analyze --json` on that
 * repository, and a sample with git itself (`for-each-ref`, and git failing where the row says it
 * cannot read). What was built (backends, locks, damage) is known by construction.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Ajv2020 from 'ajv/dist/2020.js';
import { gitSkipReason, realGits, run, gitEnv, type RealGit } from './lib/realgit.ts';
import { refscope } from './lib/cli.ts';
import { readScanFile, type FleetRow } from '../src/app/fleet/scanfile.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin/refscope.mjs');

/** What a repository of the tree was built as. */
interface Built {
  rel: string;
  backend: 'reftable' | 'files';
  bare: boolean;
  locks: number;
  damaged: boolean;
  tombstones: boolean;
  layout: 'gitlab-hashed' | 'wiki' | null;
  /** The template it is a copy of. */
  template: string;
}

let tmp: string;
let tree: string;
const built: Built[] = [];
let git: RealGit;
let env: NodeJS.ProcessEnv;

function cli(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 600_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function g(dir: string, args: string[], input?: string, extra: Record<string, string> = {}): string {
  return run(git.git, args, { cwd: dir, env: { ...env, ...extra }, input }).stdout;
}

/** The templates: each made once by git, then copied to many places. */
function makeTemplates(dir: string): { name: string; b: Omit<Built, 'rel' | 'layout' | 'template'> }[] {
  const out: { name: string; b: Omit<Built, 'rel' | 'layout' | 'template'> }[] = [];
  const noAuto = { GIT_TEST_REFTABLE_AUTOCOMPACTION: 'false' };
  const make = (name: string, format: 'reftable' | 'files', bare: boolean, nRefs: number, deletes: number) => {
    const repo = path.join(dir, name);
    g(dir, ['init', '-q', `--ref-format=${format}`, ...(bare ? ['--bare'] : []), repo]);
    const blob = g(repo, ['hash-object', '-w', '--stdin'], 'x').trim();
    const tree0 = g(repo, ['mktree'], `100644 blob ${blob}\tf\n`).trim();
    const commit = g(repo, ['commit-tree', '-m', 'c', tree0]).trim();
    g(repo, ['update-ref', 'refs/heads/main', commit]);
    const names = Array.from({ length: nRefs }, (_, i) => `refs/heads/b${i}`);
    g(repo, ['update-ref', '--stdin'], names.map((r) => `create ${r} ${commit}\n`).join(''), noAuto);
    if (deletes)
      g(
        repo,
        ['update-ref', '--stdin'],
        names
          .slice(0, deletes)
          .map((r) => `delete ${r}\n`)
          .join(''),
        noAuto,
      );
    return repo;
  };
  make('rt-small', 'reftable', true, 5, 0);
  out.push({ name: 'rt-small', b: { backend: 'reftable', bare: true, locks: 0, damaged: false, tombstones: false } });
  make('rt-work', 'reftable', false, 40, 0);
  out.push({ name: 'rt-work', b: { backend: 'reftable', bare: false, locks: 0, damaged: false, tombstones: false } });
  make('rt-tomb', 'reftable', true, 200, 150);
  out.push({ name: 'rt-tomb', b: { backend: 'reftable', bare: true, locks: 0, damaged: false, tombstones: true } });
  const lock = make('rt-lock', 'reftable', true, 30, 10);
  fs.writeFileSync(path.join(lock, 'reftable', 'tables.list.lock'), '');
  out.push({ name: 'rt-lock', b: { backend: 'reftable', bare: true, locks: 1, damaged: false, tombstones: true } });
  const dmg = make('rt-damaged', 'reftable', true, 50, 20);
  const list = fs
    .readFileSync(path.join(dmg, 'reftable', 'tables.list'), 'utf8')
    .trim()
    .split('\n');
  const last = path.join(dmg, 'reftable', list[list.length - 1]);
  fs.truncateSync(last, Math.floor(fs.statSync(last).size / 2));
  out.push({ name: 'rt-damaged', b: { backend: 'reftable', bare: true, locks: 0, damaged: true, tombstones: true } });
  const fb = make('files-bare', 'files', true, 60, 0);
  g(fb, ['pack-refs', '--all']);
  g(fb, ['update-ref', 'refs/heads/loose', g(fb, ['rev-parse', 'refs/heads/main']).trim()]);
  out.push({ name: 'files-bare', b: { backend: 'files', bare: true, locks: 0, damaged: false, tombstones: false } });
  make('files-work', 'files', false, 8, 3);
  out.push({ name: 'files-work', b: { backend: 'files', bare: false, locks: 0, damaged: false, tombstones: false } });
  const fl = make('files-lock', 'files', true, 12, 0);
  g(fl, ['pack-refs', '--all']);
  fs.writeFileSync(path.join(fl, 'packed-refs.lock'), '');
  out.push({ name: 'files-lock', b: { backend: 'files', bare: true, locks: 1, damaged: false, tombstones: false } });
  return out;
}

/**
 * 8 templates × 8 places = 64 repositories in forge-like layouts. Eight places are enough for
 * every layout (hashed, wiki and plain group paths each take a third of the bare ones; groups 0-6
 * all occur), for the kill to land part way (30 journal lines of 64, 34 still to scan) and for
 * three shards of about 21 each; more copies of the same templates only repeat the same rows.
 */
const PLACES = 8;

function buildTree(): void {
  const templates = path.join(tmp, 'templates');
  fs.mkdirSync(templates);
  const ts = makeTemplates(templates);
  tree = path.join(tmp, 'storage');
  for (let i = 0; i < PLACES; i++) {
    ts.forEach((t, j) => {
      const n = i * ts.length + j;
      const sha = createHash('sha256').update(String(n)).digest('hex');
      let rel: string;
      let layout: Built['layout'] = null;
      if (t.b.bare && n % 3 === 0) {
        rel = `@hashed/${sha.slice(0, 2)}/${sha.slice(2, 4)}/${sha}.git`;
        layout = 'gitlab-hashed';
      } else if (t.b.bare && n % 3 === 1) {
        rel = `group-${i % 7}/project-${n}.wiki.git`;
        layout = 'wiki';
      } else rel = t.b.bare ? `group-${i % 7}/project-${n}.git` : `checkouts/c-${n}`;
      fs.cpSync(path.join(templates, t.name), path.join(tree, rel), { recursive: true, verbatimSymlinks: true });
      built.push({ rel, layout, template: t.name, ...t.b });
    });
  }
  // A link out of the root: never followed, listed as skipped.
  fs.symlinkSync(templates, path.join(tree, 'elsewhere'));
}

/** Each scan of the tree runs a few seconds alone; on a busy shared machine, minutes. */
const SLOW = 900_000;

const ajv = new Ajv2020({ allErrors: true, strict: false });
for (const f of fs.readdirSync(path.join(ROOT, 'schemas')))
  ajv.addSchema(JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas', f), 'utf8')));

async function rowsOf(file: string): Promise<FleetRow[]> {
  return readScanFile(file, new Uint8Array(fs.readFileSync(file)));
}

describe.skipIf(gitSkipReason)('refscope scan on a tree of 64 repositories', () => {
  let full: FleetRow[];
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-scan-'));
    git = realGits().find((x) => x.version === '2.55.0') ?? realGits()[0];
    const home = path.join(tmp, 'home');
    fs.mkdirSync(home);
    fs.writeFileSync(path.join(home, '.gitconfig'), '[init]\n\tdefaultBranch = main\n[core]\n\tfsync = none\n');
    env = gitEnv(home);
    buildTree();
  }, SLOW);
  afterAll(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  }, SLOW);

  it(
    'finds every repository, one row each, on two threads; the summary follows its schema',
    async () => {
      const out = path.join(tmp, 'full.jsonl');
      const r = cli(['scan', tree, '--jobs', '2', '--out', out, '--json']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const summary = JSON.parse(r.stdout);
      expect(ajv.validate('https://refscope.invalid/schemas/scan.schema.json', summary), ajv.errorsText()).toBe(true);
      expect(summary.found).toBe(built.length);
      expect(summary.scanned).toBe(built.length);
      expect(summary.skipped).toEqual([expect.objectContaining({ path: path.join(tree, 'elsewhere') })]);
      expect(fs.existsSync(`${out}.progress`)).toBe(false);
      full = await rowsOf(out);
      expect(full.map((x) => x.path)).toEqual(built.map((b) => b.rel).sort());
      for (const row of full) {
        expect(ajv.validate('https://refscope.invalid/schemas/scan-row.schema.json', row), ajv.errorsText()).toBe(true);
        const b = built.find((x) => x.rel === row.path)!;
        expect([row.path, row.backend, row.bare, row.layout, row.locks, row.gitReadable]).toEqual([
          b.rel,
          b.backend,
          b.bare,
          b.layout,
          b.locks,
          !b.damaged,
        ]);
        expect(row.error).toBe(null);
        if (b.tombstones && !b.damaged) expect(row.tombstoneRecords).toBeGreaterThan(0);
        if (!b.damaged) expect(row[b.backend === 'files' ? 'filesSeconds' : 'git249Seconds']).toBeGreaterThan(0);
      }
    },
    SLOW,
  );

  it(
    'is killed part way, then resumed: the same rows, the done ones not scanned again',
    async () => {
      const out = path.join(tmp, 'resumed.parquet');
      const child = spawn(process.execPath, [BIN, 'scan', tree, '--jobs', '2', '--out', out], { cwd: ROOT });
      const journal = `${out}.progress`;
      await new Promise<void>((resolve, reject) => {
        const t = setInterval(() => {
          const lines = fs.existsSync(journal) ? fs.readFileSync(journal, 'utf8').split('\n').length - 2 : 0;
          if (lines >= 30) {
            clearInterval(t);
            child.kill('SIGKILL');
            resolve();
          }
        }, 20);
        child.on('exit', () => {
          clearInterval(t);
          reject(new Error('the scan finished before it was killed'));
        });
      });
      await new Promise((r) => child.once('exit', r));
      expect(fs.existsSync(out)).toBe(false);
      const r = cli(['scan', tree, '--jobs', '2', '--out', out, '--json']);
      expect(r.code).toBe(0);
      const summary = JSON.parse(r.stdout);
      expect(summary.resumed).toBeGreaterThanOrEqual(30);
      expect(summary.resumed + summary.scanned).toBe(built.length);
      expect(await rowsOf(out)).toEqual(full);
    },
    SLOW,
  );

  it(
    '--shard 1/3 … 3/3 partition the repositories; merged they equal the single run',
    async () => {
      const parts: FleetRow[][] = [];
      for (let k = 1; k <= 3; k++) {
        const out = path.join(tmp, `shard-${k}.parquet`);
        const r = cli(['scan', tree, '--jobs', '1', '--shard', `${k}/3`, '--out', out]);
        expect(r.code, r.stderr).toBe(0);
        parts.push(await rowsOf(out));
      }
      for (const p of parts) expect(p.length).toBeGreaterThan(built.length / 6);
      const merged = parts.flat().sort((a, b) => (String(a.path) < String(b.path) ? -1 : 1));
      expect(merged).toEqual(full);
    },
    SLOW,
  );

  it(
    'every row agrees with refscope analyze --json on its repository',
    async () => {
      // The places of a template hold byte-identical copies, so analyze runs in the first
      // place of each template and every row is compared with that report.
      const reports = new Map<string, ReturnType<typeof JSON.parse>>();
      for (const row of full) {
        const template = built.find((b) => b.rel === row.path)!.template;
        let rep = reports.get(template);
        if (!rep) {
          const r = await refscope(['analyze', '--json', path.join(tree, String(row.path))]);
          rep = JSON.parse(r.stdout);
          reports.set(template, rep);
        }
        expect(rep.verdict.gitReadable).toBe(row.gitReadable);
        expect(rep.findings.length).toBe(row.findings);
        if (row.backend === 'reftable') {
          expect([rep.stack.tables, rep.stack.live, rep.stack.tombstones, rep.stack.tombstoneRecords]).toEqual([
            row.tables,
            row.liveRefs,
            row.tombstones,
            row.tombstoneRecords,
          ]);
        } else {
          expect(rep.stack).toBe(null);
          expect(rep.packedRefs.records + rep.packedRefs.loose.looseRefs).toBe(row.refRecords);
        }
      }
    },
    SLOW,
  );

  it(
    'agrees with git: for-each-ref counts, tables.list, and git failing where the row says it cannot read',
    () => {
      for (const row of full.filter((_, i) => i % 8 === 0 || full[i].gitReadable === false).slice(0, 80)) {
        const dir = path.join(tree, String(row.path));
        const r = run(git.git, ['for-each-ref', '--format=%(refname)'], { cwd: dir, env, allowFail: true });
        if (row.gitReadable) {
          expect(r.status).toBe(0);
          expect(r.stdout.split('\n').filter(Boolean).length).toBe(row.refs);
        } else {
          // git lists no ref at all from a stack with an unreadable table, and any transaction
          // fails at prepare (a verify that writes nothing even when it succeeds).
          expect(r.stdout).toBe('');
          expect(row.refs).toBeGreaterThan(0);
          const tx = run(git.git, ['update-ref', '--stdin'], {
            cwd: dir,
            env,
            allowFail: true,
            input: `start\nverify refs/heads/none ${'0'.repeat(40)}\nprepare\nabort\n`,
          });
          expect(tx.status).not.toBe(0);
          expect(tx.stderr).toMatch(/corrupt reftable/);
        }
        if (row.backend === 'reftable') {
          const gitDir = row.bare ? dir : path.join(dir, '.git');
          const list = fs
            .readFileSync(path.join(gitDir, 'reftable', 'tables.list'), 'utf8')
            .split('\n')
            .filter(Boolean);
          expect(row.tables).toBe(list.length);
        }
      }
    },
    SLOW,
  );

  it(
    'never writes into a repository: an --out inside one is refused',
    () => {
      const inside = path.join(tree, String(full[0].path), 'scan.jsonl');
      const r = cli(['scan', tree, '--out', inside]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/never writes into a repository/);
      expect(fs.existsSync(inside)).toBe(false);
      expect(fs.existsSync(`${inside}.progress`)).toBe(false);
    },
    SLOW,
  );
});
