/**
 * The CLI on a stack git cannot read (one table of a git-written fixture cut 30 bytes short, the
 * stack test/e2e/damaged-stack.test.ts drops on the app): every command says so, as git refuses
 * it. That git refuses it is checked with each real git built: `for-each-ref` lists nothing and
 * `update-ref` and `pack-refs` fail with "corrupt reftable file"; `analyze` then leads with it
 * and exits 3, `simulate` prints it before its replay and exits 3, `compact` writes nothing and
 * exits 3, `refs` lists nothing and exits 3.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { realGits, gitRepo, gitSkipReason } from './lib/realgit.ts';
import { damagedStack } from './lib/fixtures.ts';

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'bin/refscope.mjs');
let tmp = '';
let stackDir = '';
let cut = '';

const cli = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });

describe.skipIf(gitSkipReason)('the CLI on a stack git cannot read agrees with git', () => {
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-damaged-cli-'));
    ({ dir: stackDir, cut } = damagedStack(tmp));
  });
  afterAll(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  for (const g of realGits()) {
    it(`git ${g.version} refuses it: nothing listed, update-ref and pack-refs fail`, () => {
      const repo = gitRepo(g);
      try {
        const c = repo.git(['commit-tree', '-m', 'x', repo.git(['write-tree']).trim()]).trim();
        const dst = path.join(repo.gitDir, 'reftable');
        fs.rmSync(dst, { recursive: true });
        fs.cpSync(stackDir, dst, { recursive: true });
        expect(repo.gitResult(['for-each-ref', '--format=%(refname)']).stdout).toBe('');
        const u = repo.gitResult(['update-ref', 'refs/heads/x', c]);
        expect(u.status).not.toBe(0);
        expect(u.stderr).toMatch(/corrupt reftable file/);
        const before = fs.readFileSync(path.join(dst, 'tables.list'), 'utf8');
        const pr = repo.gitResult(['pack-refs', '--auto']);
        expect(pr.status).not.toBe(0);
        expect(fs.readFileSync(path.join(dst, 'tables.list'), 'utf8')).toBe(before);
      } finally {
        repo.dispose();
      }
    });
  }

  const said = /table 0x0+3-0x0+3-\w+\.ref is damaged .*truncated: 167 of 197 bytes/;

  it('analyze: leads with "git cannot read this stack", JSON verdict false and no compaction segment, exit 3', () => {
    const t = cli(['analyze', stackDir]);
    expect(t.status).toBe(3);
    expect(t.stdout.split('\n')[1]).toMatch(/^GIT CANNOT READ THIS STACK: /);
    expect(t.stdout.split('\n')[1]).toMatch(said);
    const j = JSON.parse(cli(['analyze', stackDir, '--json']).stdout) as {
      verdict: { gitReadable: boolean; reason: string };
      stack: { compaction: { segment: unknown } };
      diagnosis: string;
    };
    expect(j.verdict.gitReadable).toBe(false);
    expect(j.verdict.reason).toMatch(said);
    expect(j.stack.compaction.segment).toBeNull();
    expect(j.diagnosis).toMatch(/^Git cannot read this stack: /);
  });

  it('simulate: says so before the replay (text and JSON), exit 3', () => {
    const t = cli(['simulate', stackDir, '--workload', 'recreate']);
    expect(t.status).toBe(3);
    expect(t.stdout.split('\n')[0]).toMatch(/^GIT CANNOT READ THIS STACK: /);
    const j = cli(['simulate', stackDir, '--workload', 'recreate', '--json']);
    expect(j.status).toBe(3);
    expect((JSON.parse(j.stdout) as { verdict: { gitReadable: boolean } }).verdict.gitReadable).toBe(false);
  });

  it('compact --auto and --all: nothing written, exit 3, as git pack-refs fails', () => {
    for (const mode of ['--auto', '--all']) {
      const out = path.join(tmp, 'out' + mode);
      const r = cli(['compact', stackDir, mode, '--out', out]);
      expect(r.status).toBe(3);
      expect(r.stderr).toMatch(/git cannot read this stack/);
      expect(fs.existsSync(path.join(out, 'tables.list'))).toBe(false);
    }
  });

  it('refs: lists nothing (git lists nothing), exit 3 naming the table', () => {
    const r = cli(['refs', stackDir]);
    expect(r.status).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(cut);
  });
});
