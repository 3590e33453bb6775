/**
 * The stored fuzz crashers (test/fixtures/hostile/fuzz and fuzz-found: the files as dropped,
 * `manifest.json` naming them), the markup stacks, the damaged inputs and the stored attacks
 * through the web app's session flow, in process: `load` answers (a report, or the engine's error with a file and an offset, never a
 * defect of file '(engine)'), the page's questions answer or throw the engine's error, and a link
 * the session makes opens. Work, not time: the session's own record budget bounds each case.
 */
import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { EngineSession } from '../src/engine/session/index.ts';
import { FormatError, memorySource, type InputFile } from '../src/engine/index.ts';

const HOSTILE = path.join(__dirname, 'fixtures/hostile');

function filesOfCase(dir: string): InputFile[] {
  const manifest = path.join(dir, 'manifest.json');
  if (fs.existsSync(manifest)) {
    return (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { path: string; savedAs: string }[]).map((f) => {
      let saved = path.join(dir, f.savedAs);
      // A `.git` directory is stored as `dot-git`.
      if (!fs.existsSync(saved)) saved = path.join(dir, f.savedAs.replace(/(^|\/)\.git\//, '$1dot-git/'));
      return { path: f.path, source: memorySource(new Uint8Array(fs.readFileSync(saved))) };
    });
  }
  const out: InputFile[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name === 'dot-git' ? '.git' : e.name}` : e.name === 'dot-git' ? '.git' : e.name;
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else out.push({ path: r, source: memorySource(new Uint8Array(fs.readFileSync(path.join(d, e.name)))) });
    }
  };
  walk(fs.existsSync(path.join(dir, 'input')) ? path.join(dir, 'input') : dir, '');
  return out;
}

/** An answer, or the engine's error that is not a defect below the session. */
function ask<T>(f: () => T): T | null {
  try {
    return f();
  } catch (e) {
    expect(e).toBeInstanceOf(FormatError);
    expect((e as FormatError).file).not.toBe('(engine)');
    expect((e as FormatError).message).not.toMatch(/[\r\n]/);
    return null;
  }
}

const cases = [
  ...['fuzz', 'fuzz-found'].flatMap((fam) =>
    fs
      .readdirSync(path.join(HOSTILE, fam))
      .filter((n) => fs.statSync(path.join(HOSTILE, fam, n)).isDirectory())
      .sort()
      .map((n) => `${fam}/${n}`),
  ),
  'markup/direct',
  'markup/out',
  'markup/packed-refs',
  // the damaged inputs and the stored attacks, as a drop hands them to the page
  ...['damage', 'attacks'].flatMap((fam) =>
    fs
      .readdirSync(path.join(HOSTILE, fam))
      .filter((n) => fs.statSync(path.join(HOSTILE, fam, n)).isDirectory())
      .sort()
      .map((n) => `${fam}/${n}`),
  ),
];

describe('stored hostile cases through the session flow', () => {
  it('the cases are all there', () => {
    expect(cases.filter((c) => c.startsWith('fuzz/'))).toHaveLength(40);
    expect(cases.filter((c) => c.startsWith('damage/'))).toHaveLength(6);
    expect(cases).toEqual(expect.arrayContaining(['attacks/index-65', 'attacks/list-1000-same']));
  });
  for (const c of cases) {
    it(
      c,
      () => {
        const dir = path.join(HOSTILE, c);
        const files = fs.statSync(dir).isDirectory()
          ? filesOfCase(dir)
          : [{ path: 'packed-refs', source: memorySource(new Uint8Array(fs.readFileSync(dir))) }];
        const s = new EngineSession();
        const res = s.load(files);
        if (res.error) {
          expect(res.error.file).not.toBe('');
          expect(res.error.file).not.toBe('(engine)');
          expect(Number.isInteger(res.error.offset)).toBe(true);
        }
        if (!res.report) {
          expect(res.error).not.toBeNull();
          return;
        }
        ask(() => s.refsPage({ filter: '', mode: 'prefix', includeTombstones: true, offset: 0, limit: 100 }));
        for (let i = 0; i < Math.min(3, res.report.tables.length); i++) {
          ask(() => s.tableBlocks(i));
          ask(() => s.blockDetail(i, 0));
        }
        ask(() => s.compaction({ factor: 2, k: 3, txSize: 150 }));
        ask(() => s.exportAs('md'));
        ask(() => s.exportAs('json'));
        for (const withNames of [false, true]) {
          const sh = ask(() => s.share({ withNames, base: 'http://127.0.0.1:4173/' }));
          if (sh && sh.ok) expect(new EngineSession().openShare(sh.link)).toMatchObject({ ok: true });
        }
      },
      120_000,
    );
  }
});
