/**
 * The CLI's conventions, as a process (bin/refscope.mjs): `--version`, `--help` on every command
 * listing every option, `--`, `-` for standard input, extra arguments and unknown options refused
 * (exit 2), and the progress line: on standard error only when it is a terminal (a pseudo-terminal
 * from util-linux `script`), never in a pipe.
 */
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { COMMANDS } from '../src/cli/commands.ts';
import { COMMON_OPTIONS } from '../src/cli/common.ts';
import { refscope } from './lib/cli.ts';

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'bin/refscope.mjs');
const FX = path.join(ROOT, 'test/fixtures');
const BASIC = path.join(FX, 'reftable/basic-sha1/reftable');
const GITGIT = path.join(FX, 'packed-refs/gitgit/packed-refs');
/** git for-each-ref of the fixture, as git printed it (truth/). */
const truthRefs = (fx: string) => fs.readFileSync(path.join(FX, fx, 'truth/refs.txt'), 'latin1');

function run(args: string[], opts: { input?: Buffer | string; env?: NodeJS.ProcessEnv } = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    encoding: 'latin1',
    timeout: 120_000,
    input: opts.input,
    env: { ...process.env, ...opts.env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('--version and --help', () => {
  it('--version prints the package version and exits 0', () => {
    const r = run(['--version']);
    expect(r.stdout).toBe(`refscope ${JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version}\n`);
    expect(r.code).toBe(0);
  });

  it('refscope --help lists every command; no command at all is a usage error', () => {
    const r = run(['--help']);
    expect(r.code).toBe(0);
    for (const c of COMMANDS) expect(r.stdout).toContain(`  ${c.name} `);
    const none = run([]);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
  });

  it.each(COMMANDS.map((c) => c.name))('%s --help and -h: every option, exit 0, nothing on stderr', async (name) => {
    const spec = await COMMANDS.find((c) => c.name === name)!.load();
    // --help as a process, -h through main in this process (bin/refscope.mjs only hands main its
    // arguments and sets the exit code): the same text either way, each checked in full.
    const spawned = run([name, '--help']);
    for (const flag of ['--help', '-h']) {
      const r = flag === '--help' ? spawned : await refscope([name, flag]);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout.startsWith(`usage: refscope ${name} `)).toBe(true);
      for (const [opt, o] of Object.entries({ ...spec.options, ...COMMON_OPTIONS })) {
        expect(r.stdout).toMatch(new RegExp(`(^|[ ,])${o.short === opt ? `-${opt}` : `--${opt}`}\\b`, 'm'));
      }
      expect(r.stdout).toContain(spec.schema);
    }
  });
});

describe('arguments', () => {
  it('refs equals git for-each-ref (truth/), also through -- and from standard input (-)', () => {
    const r = run(['refs', BASIC]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(truthRefs('reftable/basic-sha1'));
    expect(run(['refs', '--', BASIC]).stdout).toBe(r.stdout);
    const packed = fs.readFileSync(GITGIT);
    const viaStdin = run(['refs', '-'], { input: packed });
    expect(viaStdin.code).toBe(0);
    expect(viaStdin.stdout).toBe(truthRefs('packed-refs/gitgit'));
  });

  it('analyze - reads one table from standard input', () => {
    const name = fs.readFileSync(path.join(BASIC, 'tables.list'), 'utf8').split('\n')[0];
    const bytes = fs.readFileSync(path.join(BASIC, name));
    const r = run(['analyze', '--json', '-'], { input: bytes });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.tables).toHaveLength(1);
    expect(doc.tables[0].fileSize).toBe(bytes.length);
  });

  it('extra arguments, unknown options, a missing path and a bad --budget are usage errors (exit 2)', async () => {
    // The first as a process (exit status, streams), the others through main in this process.
    for (const [i, args] of [
      ['analyze', BASIC, BASIC],
      ['refs', BASIC, 'x'],
      ['refs', '--frobnicate', BASIC],
      ['analyze'],
      ['serve', 'x'],
      ['analyze', '--budget', '0', BASIC],
      ['analyze', '--json=yes', BASIC],
      ['nosuchcommand'],
      ['--nosuchoption'],
    ].entries()) {
      const r = i === 0 ? run(args) : await refscope(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout, args.join(' ')).toBe('');
      expect(r.stderr, args.join(' ')).toMatch(/^refscope: [^\n]+\nrun 'refscope [a-z ]*--help' for the options\n$/);
    }
  });

  it('- is standard input wherever a file is read (share --simulation, calibrate), and is read once', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-stdin-'));
    try {
      const sim = run([
        'simulate',
        '--json',
        '--workload',
        'create:10:refs/heads/stdin/',
        '--model',
        'git-2.56',
        '--no-fixes',
        '--no-curve',
        BASIC,
      ]);
      expect(sim.code, sim.stderr).toBe(0);
      const file = path.join(tmp, 'sim.json');
      fs.writeFileSync(file, sim.stdout);
      const share = (simArg: string, input?: string) =>
        run(['share', '--json', '--base', 'http://refscope.invalid/', '--simulation', simArg, BASIC], { input });
      const fromFile = share(file);
      expect(fromFile.code, fromFile.stderr).toBe(0);
      const fromStdin = share('-', sim.stdout);
      expect(fromStdin.code, fromStdin.stderr).toBe(0);
      expect(JSON.parse(fromStdin.stdout).link).toBe(JSON.parse(fromFile.stdout).link);
      expect(JSON.parse(fromStdin.stdout).link).toMatch(/^http:\/\/refscope\.invalid\/#/);
      // calibrate - reads its measure file from standard input: a file that is not one is bad input.
      const cal = run(['calibrate', '-'], { input: '{"schema":"not-a-measure-file"}' });
      expect(cal.code).toBe(3);
      expect(cal.stderr).toMatch(/^refscope: (-|\(stdin\)): offset 0: expected "schema": "refscope\.measure\/1"/);
      // Standard input is read once: two - in one command is a usage error.
      for (const args of [
        ['share', '--simulation', '-', '-'],
        ['simulate', '--stdin', '-', '-'],
      ]) {
        const r = run(args, { input: '' });
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stderr, args.join(' ')).toMatch(/standard input is read once/);
      }
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('a path that starts with - goes after --', () => {
    const r = run(['refs', '--', '-no-such-path']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^refscope: no such file or directory: -no-such-path\n/);
  });
});

describe('progress on standard error', () => {
  // A workload of a few seconds: progress shows after `REFSCOPE_PROGRESS_AFTER_MS` (0 here, so the
  // test does not depend on how fast the machine is).
  const slow = [
    'simulate',
    path.join(FX, 'reftable/recreate-1000/reftable'),
    '--workload',
    'recreate:per-ref',
    '--model',
    'git-2.49',
    '--no-fixes',
    '--no-curve',
  ];

  it('nothing on standard error when it is not a terminal, and stdout is the same as without progress', () => {
    const r = run(slow, { env: { REFSCOPE_PROGRESS_AFTER_MS: '0' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(run(slow, { env: { REFSCOPE_PROGRESS: '0' } }).stdout);
  });

  const haveScript = spawnSync('script', ['--version']).status === 0;
  it.skipIf(!haveScript)('a terminal (util-linux script) shows the operations simulated, then clears the line', () => {
    const cmd = [process.execPath, BIN, ...slow].map((a) => `'${a}'`).join(' ');
    const r = spawnSync('script', ['-qec', `${cmd} >/dev/null`, '/dev/null'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, REFSCOPE_PROGRESS_AFTER_MS: '0' },
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/simulating git-2\.49: [0-9,]+ of [0-9,]+ operations/);
    expect(r.stdout).toMatch(/reading tables: [0-9,]+ of 2 /);
    expect(r.stdout.endsWith('\r\x1b[2K')).toBe(true);
  });
});
