/**
 * Case-only ref name collisions on a table with many names holding capitals (past the point where
 * refscope stops looking each one up and hashes every name instead): the groups are those a hand
 * count of the names gives. Small cases against real git are in report-findings.test.ts.
 */
import { describe, it, expect } from 'vitest';
import { analyzeFiles, memorySource } from '../src/engine/index.ts';
import { writeTable, type RefRecordIn } from '../src/engine/reftable/writer.ts';

const id = new Uint8Array(20).fill(0xab);

function findingsOf(names: string[]): string[] {
  const refs: RefRecordIn[] = [...names].sort().map((name) => ({ name, updateIndex: 1, type: 1, value: id }));
  const bytes = writeTable(refs, [], { hashId: 'sha1', minUpdateIndex: 1, maxUpdateIndex: 1 });
  const a = analyzeFiles([
    {
      path: 'reftable/tables.list',
      source: memorySource(new TextEncoder().encode('0x000000000001-0x000000000001-00000000.ref\n')),
    },
    { path: 'reftable/0x000000000001-0x000000000001-00000000.ref', source: memorySource(bytes) },
  ]);
  return a.findings.filter((f) => /differ only in case/.test(f.message)).map((f) => f.message);
}

describe('case-only collisions with many capitalised names', () => {
  it('20,000 names with capitals, 3 groups among them', () => {
    const names: string[] = [];
    for (let i = 0; i < 20_000; i++) names.push(`refs/heads/Topic-${String(i).padStart(5, '0')}`);
    // Hand-made groups: a lower-case twin, an upper-case twin, and a pair of capitalised names.
    names.push('refs/heads/topic-00007', 'refs/heads/TOPIC-00042', 'refs/tags/V1', 'refs/tags/v1');
    const f = findingsOf(names);
    expect(f).toHaveLength(1);
    expect(f[0]).toMatch(
      /^3 groups of ref names differ only in case \("refs\/heads\/TOPIC-00042" vs "refs\/heads\/Topic-00042"; "refs\/heads\/Topic-00007" vs "refs\/heads\/topic-00007"; "refs\/tags\/V1" vs "refs\/tags\/v1"\)/,
    );
  });

  it('none when no two names differ only in case', () => {
    const names: string[] = [];
    for (let i = 0; i < 20_000; i++) names.push(`refs/heads/Topic-${i}`);
    expect(findingsOf(names)).toEqual([]);
  });
});
