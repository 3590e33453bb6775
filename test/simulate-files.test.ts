/**
 * The files model on git.git's real packed-refs: what git's files backend does per update
 * (refs/files-backend.c, refs/packed-backend.c), counted. Expectations from git's behaviour:
 * one loose file written per created ref; deleting packed refs rewrites packed-refs once per
 * transaction (every record); a lookup is one lstat plus, when there is no loose file, one
 * binary search over the packed records.
 */
import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { memorySource } from '../src/engine/index.ts';
import { loadFilesRepo } from '../src/engine/files.ts';
import { Simulator } from '../src/engine/simulate/index.ts';

const FILE = path.join(__dirname, 'fixtures/packed-refs/gitgit/packed-refs');
const bytes = fs.readFileSync(FILE);
// Ref lines of the file, counted independently: not the header, not '^' peeled lines.
const lines = bytes
  .toString('latin1')
  .split('\n')
  .filter((l) => l && !l.startsWith('#') && !l.startsWith('^'));
const names = lines.map((l) => l.slice(41)).sort();
const sim = new Simulator({
  kind: 'files',
  repo: loadFilesRepo([{ path: 'packed-refs', source: memorySource(new Uint8Array(bytes)) }]),
  description: 'gitgit',
});

function files(stdin: string) {
  const r = sim.run(sim.parseStdin(stdin), { models: ['files'], fixes: false, curve: false }).results[0];
  expect(r.applicable).toBe(true);
  return r;
}

describe('files model', () => {
  it('creating 3 refs writes 3 loose files and touches packed-refs only to read', () => {
    const r = files(['a', 'b', 'c'].map((s) => `create refs/heads/sim-${s} ${'1'.repeat(40)}`).join('\n') + '\n');
    expect(r.counts!.looseWrites).toBe(3);
    expect(r.phases.find((p) => p.phase === 'write')!.counts.packedRecords).toBe(0);
    expect(r.errorCount).toBe(0);
  });

  it('deleting two packed refs in one transaction rewrites packed-refs once', () => {
    const r = files(`delete ${names[10]}\ndelete ${names[20]}\n`);
    const w = r.phases.find((p) => p.phase === 'write')!.counts;
    expect(w.packedRecords).toBe(names.length);
    // Two loose deletions (lock, unlink, reflog) + the packed-refs lock and rename.
    expect(w.looseWrites).toBe(3);
  });

  it('in two transactions, twice', () => {
    const r = files(`start\ndelete ${names[10]}\ncommit\nstart\ndelete ${names[20]}\ncommit\n`);
    expect(r.phases.find((p) => p.phase === 'write')!.counts.packedRecords).toBe(2 * names.length);
  });

  it('creating an existing ref is refused; a lookup costs one lstat and one binary search', () => {
    const r = files(`create ${names[0]} ${'1'.repeat(40)}\n`);
    expect(r.errorCount).toBe(1);
    const l = sim.run(sim.parseSpec('lookup:existing:100'), { models: ['files'], fixes: false, curve: false })
      .results[0];
    expect(l.counts!.looseReads).toBe(100);
    expect(l.counts!.packedProbes).toBe(100 * Math.ceil(Math.log2(names.length + 1)));
  });
});
