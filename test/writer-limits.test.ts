/**
 * The writer's limits (src/engine/reftable/writer.ts): inputs it cannot write end with the
 * engine's one error type (`FormatError`, as `WriterError`) naming what was expected and what was
 * found, and never run without end. Work is counted (index levels, blocks), never timed. Where
 * git is built (test/lib/realgit.ts), the same inputs are given to git to show it refuses them too
 * ("entry too large") or never finishes (index levels that do not shrink).
 */
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FormatError, fromHex, memorySource } from '../src/engine/basics.ts';
import { openTable } from '../src/engine/reftable/table.ts';
import { analyzeFiles } from '../src/engine/index.ts';
import { collectInput } from '../src/cli/node-input.ts';
import { parsePackedRefs } from '../src/engine/files.ts';
import {
  WriterError,
  writeTableDetailed,
  type LogRecordIn,
  type RefRecordIn,
  type WriterOptions,
} from '../src/engine/reftable/writer.ts';
import { compactAll, convertFilesToReftable } from '../src/engine/reftable/compact.ts';
import { realGits, gitRepo } from './lib/realgit.ts';

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'bin/refscope.mjs');
const HOSTILE = path.join(__dirname, 'fixtures/hostile');
const g255 = realGits().find((g) => g.version === '2.55.0') ?? null;

function packed(dir: string) {
  return parsePackedRefs('packed-refs', new Uint8Array(fs.readFileSync(path.join(HOSTILE, dir, 'packed-refs'))));
}
function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

describe('index levels that do not shrink', () => {
  it('8 refs of 413-byte names, block 512, restart interval 1: one clean error at index level 1', () => {
    const p = packed('writer-blowup');
    // Hand computation: a ref record is 1 (prefix 0) + 2 (varint 413×8+1 = 3305) + 413 + 1 (update
    // index delta) + 20 (id) = 437 bytes; one fits a 512-byte block (4 + 437 + 3 + 2, plus the
    // 24-byte header in the first), two do not. So 8 ref blocks; an index record for each is
    // 1 + 2 + 413 + 1–2 bytes, again one per block: level 1 has 8 blocks, as many as below.
    expect(p.records.map((r) => r.name.length)).toEqual(new Array(8).fill(413));
    const e = thrown(() => convertFilesToReftable(p, { blockSize: 512, restartInterval: 1, random: 0 }));
    expect(e).toBeInstanceOf(WriterError);
    expect(e).toBeInstanceOf(FormatError);
    expect((e as FormatError).expected).toMatch(
      /index levels that shrink .* found level 1 of the ref index with 8 blocks, as many as the level below, because an index key of up to 413 bytes fills a block/,
    );
  });
  it('the same refs with restart interval 16 are written (prefix compression shrinks the index)', () => {
    const p = packed('writer-blowup');
    const r = convertFilesToReftable(p, { blockSize: 512, restartInterval: 16, random: 0 });
    expect(r.refs.direct + r.refs.peeled).toBe(8);
  });
  it('the fuzz case (27 refs, 40 logs, block 512, restart 1) ends with the same error', () => {
    const a = JSON.parse(fs.readFileSync(path.join(HOSTILE, 'writer-blowup/case-48751-args.json'), 'utf8'));
    const hex = (v: string | undefined) => (v === undefined ? undefined : fromHex(v)!);
    const refs: RefRecordIn[] = a.refs.map((r: Record<string, never>) => ({
      ...r,
      value: hex(r.value),
      peeled: hex(r.peeled),
    }));
    const logs: LogRecordIn[] = a.logs.map((l: Record<string, never>) => ({
      ...l,
      oldId: hex(l.oldId),
      newId: hex(l.newId),
    }));
    const e = thrown(() => writeTableDetailed(refs, logs, a.opts as WriterOptions));
    expect(e).toBeInstanceOf(WriterError);
    expect((e as FormatError).expected).toMatch(/^index levels that shrink/);
  });
  it('levels that do shrink are still written: 5,000 refs in 256-byte blocks get a 2-level ref index', () => {
    const refs: RefRecordIn[] = [];
    for (let i = 0; i < 5000; i++)
      refs.push({
        name: `refs/heads/${String(i).padStart(5, '0')}`,
        updateIndex: 1,
        type: 1,
        value: new Uint8Array(20).fill(i & 255),
      });
    const w = writeTableDetailed(refs, [], { blockSize: 256, minUpdateIndex: 1, maxUpdateIndex: 1 });
    expect(w.refIndexLevels).toBeGreaterThanOrEqual(2);
    expect(openTable({ path: 'x.ref', source: memorySource(w.bytes) }).refs.count).toBe(5000);
  });
});

describe('records larger than a block', () => {
  it('a 6,011-byte name in packed-refs: FormatError on packed-refs, "entry too large"', () => {
    const e = thrown(() => convertFilesToReftable(packed('convert-longname'), { random: 0 }));
    expect(e).toBeInstanceOf(WriterError);
    expect((e as FormatError).file).toBe('packed-refs');
    expect((e as FormatError).expected).toMatch(
      /a ref record that fits one 4,096-byte block \(git fails with "entry too large"\), found ref "refs\/heads\/b+…" \(6,011 bytes\)/,
    );
  });
  it('compacting a valid table of 64 KiB blocks with a 6,011-byte name into 4 KiB blocks: FormatError naming that table', () => {
    const st = analyzeFiles(collectInput(path.join(HOSTILE, 'compact-bigkey/reftable'))).stack!;
    expect(st.broken).toEqual([]);
    const e = thrown(() => compactAll(st, { random: 0 }));
    expect(e).toBeInstanceOf(WriterError);
    expect((e as FormatError).file).toMatch(/0x000000000001-0x000000000001-00000001\.ref$/);
    expect((e as FormatError).expected).toMatch(/entry too large.*compacting tables 0–1/);
  });
  for (const [what, args] of [
    ['convert a 6,011-byte name', ['convert', path.join(HOSTILE, 'convert-longname/packed-refs')]],
    ['compact --all with a 6,011-byte name', ['compact', path.join(HOSTILE, 'compact-bigkey/reftable'), '--all']],
    [
      'convert --block-size 512 --restart-interval 1',
      ['convert', path.join(HOSTILE, 'writer-blowup/packed-refs'), '--block-size', '512', '--restart-interval', '1'],
    ],
  ] as const) {
    it(`CLI ${what}: exit 3, one line, no stack trace`, () => {
      const out = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-wl-'));
      try {
        const r = spawnSync(process.execPath, [BIN, ...args, '--out', path.join(out, 'o')], {
          cwd: ROOT,
          encoding: 'utf8',
          timeout: 60_000,
        });
        expect(r.stderr).toMatch(/^refscope: [^\n]*: offset \d+: expected [^\n]*\n$/);
        expect(r.stderr).not.toMatch(/\bat .*\(|Error:/);
        expect(r.status).toBe(3);
      } finally {
        fs.rmSync(out, { recursive: true, force: true });
      }
    });
  }
});

describe.skipIf(!g255)('git refuses the same inputs (git 2.55.0)', () => {
  it('git refs migrate on the 6,011-byte name fails with "entry too large"', () => {
    const repo = gitRepo(g255!, { format: 'files' });
    try {
      fs.copyFileSync(path.join(HOSTILE, 'convert-longname/packed-refs'), path.join(repo.gitDir, 'packed-refs'));
      const r = repo.gitResult(['refs', 'migrate', '--ref-format=reftable']);
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(/entry too large/);
    } finally {
      repo.dispose();
    }
  });
  it('git pack-refs on a 64 KiB-block table with a 6,011-byte name fails with "entry too large"', () => {
    const repo = gitRepo(g255!, { env: { GIT_TEST_REFTABLE_AUTOCOMPACTION: 'false' } });
    try {
      const c = repo.git(['commit-tree', '-m', 'x', repo.git(['write-tree']).trim()]).trim();
      repo.git(['-c', 'reftable.blockSize=65536', 'update-ref', `refs/heads/${'k'.repeat(6000)}`, c]);
      repo.git(['update-ref', 'refs/heads/main', c]);
      const r = repo.gitResult(['pack-refs']);
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(/unable to compact stack: entry too large/);
    } finally {
      repo.dispose();
    }
  });
  it('git refs migrate with blockSize 512 and restartInterval 1 on the 413-byte names never finishes (killed at a 2 MiB file limit)', () => {
    const repo = gitRepo(g255!, { format: 'files' });
    try {
      fs.copyFileSync(path.join(HOSTILE, 'writer-blowup/packed-refs'), path.join(repo.gitDir, 'packed-refs'));
      // 8 refs make a table of about 4 KiB; git keeps writing index levels. The file size limit
      // (ulimit -f, 512-byte units) stops it with SIGXFSZ: a count of bytes, not a clock.
      const r = spawnSync(
        'sh',
        [
          '-c',
          `ulimit -f 4096; exec "$0" -c reftable.blockSize=512 -c reftable.restartInterval=1 refs migrate --ref-format=reftable`,
          g255!.git,
        ],
        { cwd: repo.dir, env: repo.env, encoding: 'utf8' },
      );
      expect(r.signal).toBe('SIGXFSZ');
    } finally {
      repo.dispose();
    }
  });
});
