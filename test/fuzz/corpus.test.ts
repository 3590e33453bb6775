/**
 * Replays the minimized inputs the fuzzer found (test/fuzz/corpus/manifest.json): each must keep
 * the contract (nothing but FormatError, file and offset, under the time limit) and give exactly
 * the outcome recorded there. Add a crasher: save its bytes next to the manifest, add an entry
 * with what it broke and the outcome it must have now.
 */
import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { checkTable, checkStack, loadSeeds, timed } from './harness.ts';
import { analyzeFiles, memorySource, type InputFile } from '../../src/engine/index.ts';

interface Entry {
  file: string;
  kind: 'table' | 'tables.list';
  stack?: string;
  found: string;
  expect: 'ok' | string | string[];
}
const DIR = path.join(__dirname, 'corpus');
const entries: Entry[] = JSON.parse(fs.readFileSync(path.join(DIR, 'manifest.json'), 'utf8'));

describe('fuzz corpus', () => {
  it('every corpus file is in the manifest', () => {
    const listed = new Set(entries.map((e) => e.file));
    expect(fs.readdirSync(DIR).filter((f) => f !== 'manifest.json' && !listed.has(f))).toEqual([]);
  });
  for (const e of entries) {
    it(`${e.file}: ${e.found.slice(0, 80)}…`, () => {
      const bytes = new Uint8Array(fs.readFileSync(path.join(DIR, e.file)));
      if (e.kind === 'table') {
        const out = timed(
          () => e.file,
          () => checkTable(e.file, bytes, { names: [], oids: [] }, true),
        );
        expect(out.ok ? 'ok' : out.message).toBe(e.expect);
        return;
      }
      const st = loadSeeds().stacks.find((s) => s.fx === e.stack)!;
      timed(
        () => e.file,
        () => checkStack(st, null, bytes),
      );
      const files: InputFile[] = [{ path: 'reftable/tables.list', source: memorySource(bytes) }];
      for (const [name, b] of st.tables) files.push({ path: `reftable/${name}`, source: memorySource(b) });
      expect(analyzeFiles(files).stack!.broken.map((b) => b.error.message)).toEqual(e.expect);
    });
  }
});
