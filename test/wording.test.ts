/**
 * Words the user reads: no internal names in the outputs, the sample menu's figures equal to what
 * the files hold, singular for one, and Markdown whose code spans stay code spans.
 */
import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { analyzeFiles, buildReport, memorySource, type InputFile } from '../src/engine/index.ts';
import { exportMarkdown, mdProse } from '../src/engine/export.ts';
import { stackSvg } from '../src/app/lib/svg.ts';
import { FIXTURES, fixturePath } from './lib/fixtures.ts';

const ROOT = path.resolve(__dirname, '..');

function filesUnder(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) filesUnder(p, out);
    else if (/\.(ts|tsx|css|json|html)$/.test(e.name)) out.push(p);
  }
  return out;
}

function inputOf(dir: string): InputFile[] {
  const out: InputFile[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(p, r);
      else out.push({ path: r, source: memorySource(new Uint8Array(fs.readFileSync(p))) } as InputFile);
    }
  };
  walk(dir, '');
  return out;
}

const lines = (p: string) => fs.readFileSync(p, 'utf8').split('\n').filter(Boolean).length;

describe('no internal words', () => {
  it('no source file names the project notes', () => {
    const hits = filesUnder(path.join(ROOT, 'src')).filter((f) => /CONTEXT\.md/.test(fs.readFileSync(f, 'utf8')));
    expect(hits).toEqual([]);
  });

  it('text the CLI prints does not send the reader to an app view', () => {
    // The diagnosis is printed by `refscope analyze` as well as shown in the app.
    const files = [path.join(ROOT, 'src/engine/diagnosis.ts'), ...filesUnder(path.join(ROOT, 'src/cli'))];
    const hits = files.filter((f) => /(see|open) the Simulator/i.test(fs.readFileSync(f, 'utf8')));
    expect(hits).toEqual([]);
  });
});

describe('the sample menu says what the page shows', () => {
  const index = JSON.parse(fs.readFileSync(path.join(ROOT, 'public/samples/index.json'), 'utf8')) as {
    samples: { name: string; description: string; files: string[] }[];
  };
  const desc = (name: string) => index.samples.find((s) => s.name === name)!.description;
  const num = (s: string, what: RegExp) => {
    const m = new RegExp(`([\\d,]+) ${what.source}`).exec(s);
    return m ? Number(m[1].replace(/,/g, '')) : null;
  };

  it("git.git's packed-refs: refs and peeled values as git lists them", () => {
    const d = desc('gitgit-packed-refs');
    const truth = fixturePath('packed-refs/gitgit/truth');
    // refs.txt is `git for-each-ref` on the repository; peeled.txt its `^` lines.
    expect(num(d, /refs/)).toBe(lines(path.join(truth, 'refs.txt')));
    expect(num(d, /peeled values/)).toBe(lines(path.join(truth, 'peeled.txt')));
    // and the page's "N records (M peeled values)" line reads the same figures
    const a = analyzeFiles(inputOf(path.join(ROOT, 'public/samples/gitgit-packed-refs')));
    const p = buildReport(a).packedRefs as { records: number; peeled: number };
    expect([p.records, p.peeled]).toEqual([num(d, /refs/), num(d, /peeled values/)]);
  });

  it('table counts are the lines of tables.list', () => {
    for (const name of ['basic-sha1', 'nocompact-s1']) {
      const n = num(desc(name), /tables/);
      expect(n, name).toBe(lines(path.join(ROOT, 'public/samples', name, 'reftable/tables.list')));
    }
  });

  it('the 50,000 tombstones are the refs git created and deleted', () => {
    // recreate.stdin re-creates every ref the deleting transaction removed, one line each
    expect(num(desc('tombstones-50k'), /refs created/)).toBe(
      lines(path.join(FIXTURES, 'reftable/tombstones-50k/truth/recreate.stdin')),
    );
  });
});

describe('singular for one', () => {
  it("the stack picture's subtitle", () => {
    const r = buildReport(analyzeFiles(inputOf(fixturePath('reftable/basic-sha1'))));
    const one = { ...r, tables: r.tables.slice(0, 1), stack: { ...r.stack!, tables: 1, live: 1, tombstones: 1 } };
    const { svg } = stackSvg(one, [null]);
    expect(svg).toContain('1 table ·');
    expect(svg).toContain('· 1 live ref · 1 tombstone ·');
  });
});

describe('Markdown prose keeps its code spans', () => {
  it('by hand', () => {
    expect(mdProse('Run `git pack-refs` now.')).toBe('Run `git pack-refs` now.');
    expect(mdProse('a *b* `x|y` <c>')).toBe('a \\*b\\* `x|y` &lt;c&gt;');
    expect(mdProse('`a`b`')).toBe('`a`b\\`');
    expect(mdProse('# x `y`')).toBe('\\# x `y`');
    expect(mdProse('x `<img src=q>` y')).toBe('x `<img src=q>` y');
  });

  it("the diagnosis of a report: git's commands as code, not literal backticks", () => {
    const r = buildReport(analyzeFiles(inputOf(fixturePath('reftable/recreate-1000'))));
    expect(r.diagnosis).toContain('`git update-ref --stdin`');
    const md = exportMarkdown(r);
    const para = md.split('\n## Diagnosis\n\n')[1].split('\n')[0];
    expect(para).toContain(' `git update-ref --stdin` ');
    expect(para).not.toContain('\\`');
  });
});

describe('namespace breakdown of a packed-refs file', () => {
  it("git.git: the namespaces of git for-each-ref's list, in the report and in analyze's text", async () => {
    const truth = fs
      .readFileSync(fixturePath('packed-refs/gitgit/truth/refs.txt'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.slice(l.indexOf(' ') + 1));
    // by hand: the first two components of each name, "(root)" outside refs/
    const want: Record<string, number> = {};
    for (const name of truth) {
      const ns = name.startsWith('refs/') ? name.split('/').slice(0, 2).join('/') : '(root)';
      want[ns] = (want[ns] ?? 0) + 1;
    }
    const r = buildReport(analyzeFiles(inputOf(fixturePath('packed-refs/gitgit'))));
    expect((r.packedRefs as { namespaces: Record<string, number> }).namespaces).toEqual(want);
    const pull = want['refs/pull'];
    expect(Math.round((100 * pull) / truth.length)).toBe(76);
    const { formatReport } = await import('../src/cli/format.ts');
    expect(formatReport(r)).toContain(`refs/pull ${pull.toLocaleString('en-US')} (76 %)`);
  });
});
