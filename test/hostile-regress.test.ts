/**
 * Regressions from the hostile tester's findings (table parser): long keys in log blocks must not
 * make parsing quadratic, and prefix compression must not expand a small table into gigabytes of
 * names. Tables built with refscope's writer (byte-identical to git's on every fixture).
 * Then every stored hostile case (test/fixtures/hostile: damage, attacks, file-system) through
 * the CLI: an answer (exit 0, nothing on stderr) or exit 3 with one stderr line, under 512 MB.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeTable, type LogRecordIn, type RefRecordIn } from '../src/engine/reftable/writer.ts';
import { openTable, memorySource, FormatError, crc32, encodeVarint, putU32, putU64 } from '../src/engine/index.ts';
import { zlibSync } from 'fflate';

/**
 * A log-only table (v1, block_size 0) whose one log block holds `n` deletion records, each key
 * the previous key (prefix = its whole length) plus 10 bytes ("a", NUL, 8-byte reversed update
 * index): key i is 10 × (i + 1) bytes long, so rebuilding keys as strings costs O(n²).
 */
function growingLogKeys(n: number): Uint8Array {
  const recs: number[] = [];
  let prevLen = 0;
  for (let i = 0; i < n; i++) {
    recs.push(
      ...encodeVarint(prevLen),
      ...encodeVarint((10 << 3) | 0),
      0x61,
      0,
      0xff,
      0xff,
      0xff,
      0xff,
      0xff,
      0xff,
      0xff,
      0xfe,
    );
    prevLen += 10;
  }
  const inner = Uint8Array.from([...recs, 0, 0, 4, 0, 1]);
  const blockLen = 4 + inner.length;
  const header = [0x52, 0x45, 0x46, 0x54, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1];
  const z = zlibSync(inner);
  const body = [...header, 0x67, (blockLen >> 16) & 0xff, (blockLen >> 8) & 0xff, blockLen & 0xff, ...z];
  const footer = new Uint8Array(68);
  footer.set(header, 0);
  putU64(footer, 24 + 24, 24); // log_position: right after the header
  putU32(footer, 64, crc32(footer, 0, 64));
  return Uint8Array.from([...body, ...footer]);
}

describe('hostile shapes', () => {
  it('a log block whose keys keep growing (60,000 records, keys up to 600 KB) parses without quadratic work', () => {
    const bytes = growingLogKeys(60000);
    // Quadratic key building would copy ~18 GB here: the test timeout is the guard (no clock check).
    const t = openTable({ path: 'grow.ref', source: memorySource(bytes) });
    expect(t.counts.logDeletion).toBe(60000);
  });
  it('2,000 log records with 8 KiB names sharing a prefix parse without quadratic work', () => {
    const base = 'refs/heads/' + 'x'.repeat(8192);
    const logs: LogRecordIn[] = [];
    for (let i = 0; i < 2000; i++) {
      logs.push({
        name: base + String(i).padStart(5, '0'),
        updateIndex: 1,
        type: 1,
        oldId: new Uint8Array(20),
        newId: new Uint8Array(20).fill(1),
        committerName: 'a',
        email: 'b',
        time: 1,
        tzOffset: 0,
        message: 'm',
      });
    }
    const bytes = writeTable([], logs, { minUpdateIndex: 1, maxUpdateIndex: 1, blockSize: 1 << 20 });
    const t = openTable({ path: 'logs.ref', source: memorySource(bytes) });
    expect(t.counts.log).toBe(2000);
  });
  it('a table whose names expand beyond the key budget is refused with a FormatError, not an allocation failure', async () => {
    const mod = await import('../src/engine/reftable/table.ts');
    // Budget = 256 MiB + 32 bytes per file byte. 40,000 names of 8 KiB sharing all but 6 bytes
    // spell 328 MB of names from a table of a few hundred KB: over the budget.
    const base = 'refs/heads/' + 'y'.repeat(8192);
    const refs: RefRecordIn[] = [];
    for (let i = 0; i < 40000; i++) refs.push({ name: base + String(i).padStart(6, '0'), updateIndex: 1, type: 0 });
    const bytes = writeTable(refs, [], {
      minUpdateIndex: 1,
      maxUpdateIndex: 1,
      blockSize: (1 << 24) - 1,
      restartInterval: 65535,
      indexObjects: false,
    });
    const budget = mod.KEY_BYTES_BASE + mod.KEY_BYTES_PER_FILE_BYTE * bytes.length;
    expect(40000 * (base.length + 6)).toBeGreaterThan(budget);
    expect(() => openTable({ path: 'keys.ref', source: memorySource(bytes) })).toThrow(FormatError);
    expect(() => openTable({ path: 'keys.ref', source: memorySource(bytes) })).toThrow(/expected ref names of at most/);
  });
});

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'bin/refscope.mjs');
const HOSTILE = path.join(__dirname, 'fixtures/hostile');
const TIME = '/usr/bin/time';
const hasTime = fs.existsSync(TIME);

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  maxRssKb: number | null;
}
/**
 * Run the CLI once. Peak memory from GNU time's `%M` (kilobytes) when /usr/bin/time exists.
 * The 60 s timeout is a hang guard (several of these cases never ended), not a speed check.
 */
function cli(args: string[]): CliRun {
  const marker = '@@refscope-maxrss=';
  const cmd = hasTime ? TIME : process.execPath;
  const argv = hasTime ? ['-f', `${marker}%M`, process.execPath, BIN, ...args] : [BIN, ...args];
  const r = spawnSync(cmd, argv, { cwd: ROOT, encoding: 'latin1', timeout: 60_000, maxBuffer: 1 << 28 });
  let stderr = r.stderr ?? '';
  let maxRssKb: number | null = null;
  const i = stderr.lastIndexOf(marker);
  if (i >= 0) {
    maxRssKb = Number(stderr.slice(i + marker.length).trim());
    stderr = stderr.slice(0, i).replace(/Command exited with non-zero status \d+\n$/, '');
  }
  return { code: r.status, stdout: r.stdout ?? '', stderr, maxRssKb };
}

/** The contract: exit 0 with an empty stderr, or exit 3 with exactly one `refscope: …` line. */
function expectContract(r: CliRun): void {
  expect([0, 3]).toContain(r.code);
  if (r.code === 0) expect(r.stderr).toBe('');
  else expect(r.stderr).toMatch(/^refscope: [^\n]+: offset \d+: expected [^\n]+\n$/);
  expect(r.stderr).not.toMatch(/\n\s+at |Error:/);
  if (r.maxRssKb !== null) expect(r.maxRssKb).toBeLessThan(512 * 1000);
}

let fsRoot = '';
beforeAll(() => {
  fsRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-hostile-'));
  // The file-system cases hold symbolic links (and .git directories): kept in a tar, unpacked here.
  spawnSync('tar', ['xf', path.join(HOSTILE, 'fs/fs-attacks.tar'), '-C', fsRoot]);
});
afterAll(() => {
  if (fsRoot) fs.rmSync(fsRoot, { recursive: true, force: true });
});

const stored = ['damage', 'attacks'].flatMap((fam) =>
  fs
    .readdirSync(path.join(HOSTILE, fam))
    .filter((n) => fs.statSync(path.join(HOSTILE, fam, n)).isDirectory())
    .map((n) => `${fam}/${n}`),
);

describe('every stored hostile case through the CLI', () => {
  it('the family is all there (a case lost in a copy would pass silently)', () => {
    expect(stored).toEqual(
      expect.arrayContaining([
        'damage/flipped',
        'damage/garbage',
        'damage/list-trav',
        'damage/packed-bad',
        'damage/packed-noeol',
        'damage/truncated',
        'attacks/index-65',
        'attacks/list-1000-same',
      ]),
    );
  });
  for (const c of stored) {
    for (const cmd of ['refs', 'analyze']) {
      it(`${cmd} ${c}`, () => expectContract(cli([cmd, path.join(HOSTILE, c)])), 130_000);
    }
  }
  // What each damaged file holds, read by hand: the error names that file and the offset where
  // it goes wrong.
  it('damage: the errors name the file and the place', () => {
    expect(cli(['refs', path.join(HOSTILE, 'damage/packed-noeol')]).stderr).toMatch(
      /^refscope: packed-refs: offset 46: expected an LF at the end of the file, found a last line without one/,
    );
    expect(cli(['refs', path.join(HOSTILE, 'damage/packed-bad')]).stderr).toMatch(
      /^refscope: packed-refs: offset 0: expected a ref line before each '\^' line, found a '\^' line with no ref line above it/,
    );
    expect(cli(['refs', path.join(HOSTILE, 'damage/garbage')]).stderr).toMatch(
      /^refscope: x\.ref: offset 0: expected magic 'REFT'/,
    );
  });
});

describe('the file-system cases (unpacked from fs/fs-attacks.tar)', () => {
  const cases: [string, RegExp][] = [
    ['loop2/.git', /^refscope: refs\/heads\/[ab]: offset 0: expected a directory tree without loops/],
    [
      'linkroot/.git',
      /^refscope: refs\/heads\/root: offset 0: expected files and directories inside the input, found a symbolic link to a directory outside it/,
    ],
    [
      'symshadow/reftable',
      /^refscope: tables\.list: offset 0: expected files and directories inside the input, found a symbolic link to a regular file outside it/,
    ],
    [
      'symlist/reftable',
      /^refscope: tables\.list: offset 0: expected files and directories inside the input, found a symbolic link to a regular file outside it/,
    ],
  ];
  for (const [c, re] of cases) {
    for (const cmd of ['refs', 'analyze']) {
      it(`${cmd} ${c}: refused by name, nothing outside read`, () => {
        const r = cli([cmd, path.join(fsRoot, c)]);
        expectContract(r);
        expect(r.code).toBe(3);
        expect(r.stderr).toMatch(re);
        // Nothing of /etc/shadow or /etc/passwd: their first lines start "root:x:", "root:*:", "root:$…".
        expect(r.stderr).not.toMatch(/root:[x*!$]/);
      }, 130_000);
    }
  }
});
