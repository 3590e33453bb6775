/**
 * `refscope simulate`: exit codes (0, 2 usage, 3 bad input with `refscope: <file>: offset <n>:
 * <expected>`), the --json document (docs/simulation.md), -z, standard input, files backend.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'bin/refscope.mjs');
const FX = path.join(__dirname, 'fixtures');
const R1000 = path.join(FX, 'reftable/recreate-1000/reftable');
const STDIN = path.join(FX, 'reftable/recreate-1000/truth/recreate.stdin');
let tmp = '';

function run(args: string[], input?: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, 'simulate', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
    input,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-sim-'));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('refscope simulate', () => {
  it('--json: the refscope.simulation/1 document with every model', () => {
    const r = run([R1000, '--stdin', STDIN, '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.schema).toBe('refscope.simulation/1');
    expect(doc.results.map((x: { model: string }) => x.model)).toEqual([
      'git-2.49',
      'git-2.55',
      'git-2.56',
      'initial',
      'files',
    ]);
    for (const x of doc.results.slice(0, 4)) {
      for (const k of ['seconds', 'seeks', 'blocksRead', 'recordsDecoded', 'tombstonesSkipped'])
        expect(typeof x[k], `${x.model} ${k}`).toBe('number');
    }
    const files = doc.results[4];
    expect(files.applicable).toBe(false);
    expect(files.seconds).toBeNull();
    expect(doc.workload).toMatchObject({ kind: 'updates', operations: 1000, transactions: 1 });
    expect(doc.fixes.map((f: { fix: string }) => f.fix)).toContain('pack-refs');
    expect(doc.curve.n[0]).toBe(1);
    expect(doc.curve.n[doc.curve.n.length - 1]).toBe(100000);
    expect(typeof doc.explanation).toBe('string');
  });

  it('--model picks models; --workload generates; text output names the fixes', () => {
    const r = run([R1000, '--workload', 'recreate', '--model', 'git-2.49,git-2.56']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/git-2\.49/);
    expect(r.stdout).not.toMatch(/^git-2\.55 /m);
    expect(r.stdout).toMatch(/git pack-refs/);
  });

  it('-z input from standard input', () => {
    const z = fs
      .readFileSync(STDIN, 'utf8')
      .trim()
      .split('\n')
      .slice(0, 10)
      .map((l) => {
        const [cmd, ref, oid] = l.split(' ');
        return `${cmd} ${ref}\0${oid}\0`;
      })
      .join('');
    const r = run([R1000, '--stdin', '-', '-z', '--model', 'git-2.56', '--json', '--no-fixes', '--no-curve'], z);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.workload.operations).toBe(10);
    expect(doc.fixes).toEqual([]);
    expect(doc.curve).toBeNull();
  });

  it('files backend input runs the files model only', () => {
    const r = run([path.join(FX, 'packed-refs/gitgit/packed-refs'), '--workload', 'lookup:existing:100', '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    const byModel = Object.fromEntries(doc.results.map((x: { model: string }) => [x.model, x]));
    expect(byModel.files.applicable).toBe(true);
    expect(byModel['git-2.49'].applicable).toBe(false);
  });

  it('usage errors exit 2', () => {
    expect(run([R1000]).code).toBe(2); // neither --stdin nor --workload
    expect(run([R1000, '--stdin', STDIN, '--workload', 'recreate']).code).toBe(2);
    expect(run([R1000, '--workload', 'recreate', '--model', 'git-9']).code).toBe(2);
    expect(run([R1000, '--workload', 'create:x:refs/heads/']).code).toBe(2);
    expect(run([R1000, '--workload', 'recreate', '--frobnicate']).code).toBe(2);
    expect(run(['--workload', 'recreate']).code).toBe(2); // no path
  });

  it('a bad --stdin file exits 3 with one line: file, byte offset, expectation', () => {
    const bad = path.join(tmp, 'bad.stdin');
    // Line 1 is 61 bytes; line 2 is an unknown command.
    fs.writeFileSync(bad, `create refs/heads/a ${'1'.repeat(40)}\nfrobnicate refs/heads/b\n`);
    const r = run([R1000, '--stdin', bad]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^refscope: [^\n]*bad\.stdin: offset 61: [^\n]*unknown command[^\n]*\n$/);
  });
});

describe('--model takes a git version', () => {
  it('git-2.40 → git-2.49, 2.52.1 → git-2.55, git-2.60 → git-2.56 (the version ranges each model stands for)', async () => {
    const { modelForVersion } = await import('../src/cli/simulate-cmd.ts');
    expect(modelForVersion('git-2.40')).toBe('git-2.49');
    expect(modelForVersion('2.52.1')).toBe('git-2.55');
    expect(modelForVersion('git-2.60')).toBe('git-2.56');
    expect(modelForVersion('initial')).toBe('initial');
  });
});
