/**
 * The CLI has the worker's deadline (`--budget`, 60 s by default): `analyze`, `compact`, `share`
 * and `export` stop at it with one line and exit 3, never run on. A clock loaded before the CLI
 * (`--import`) moves 5 s forward at every reading, so the deadline has passed at the first check
 * whatever the machine's speed: no wall-clock assertion, the stop is forced.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'bin/refscope.mjs');
const STACK = path.join(__dirname, 'fixtures/reftable/nocompact-s2/reftable');
let tmp = '';
let clock = '';

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-deadline-'));
  clock = path.join(tmp, 'clock.mjs');
  fs.writeFileSync(clock, 'const real = Date.now;\nlet k = 0;\nDate.now = () => real() + 5000 * k++;\n');
  // the CLI bundle is (re)built with the real clock
  spawnSync(process.execPath, [BIN, '--version'], { cwd: ROOT });
});
afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the CLI stops at its deadline', () => {
  for (const args of [
    ['analyze', STACK, '--json'],
    ['compact', STACK, '--all', '--out', 'OUT'],
    ['share', STACK],
    ['export', STACK, '--format', 'md'],
  ]) {
    it(`${args[0]}: exit 3, one line saying the budget ran out`, () => {
      const argv = args.map((a) => (a === 'OUT' ? path.join(tmp, 'out') : a));
      const r = spawnSync(process.execPath, ['--import', pathToFileURL(clock).href, BIN, ...argv], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 60_000, // a hang guard, not a speed assertion
      });
      expect(r.status).toBe(3);
      expect(r.stderr).toMatch(/^refscope: [^\n]+: offset \d+: expected [^\n]*(deadline|budget)[^\n]*\n$/);
      expect(r.stdout).toBe('');
      expect(fs.existsSync(path.join(tmp, 'out'))).toBe(false);
    });
  }
});
