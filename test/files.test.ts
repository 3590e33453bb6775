/**
 * Tests for the files backend (src/engine/files.ts): packed-refs, loose refs, merged view.
 *
 * Every expected value comes from git's truth files (test/fixtures/.../truth) or from a hand
 * computation written next to it. Byte offsets: the header git writes,
 * "# pack-refs with: peeled fully-peeled sorted \n", is 17 ("# pack-refs with:") + 1 + 27 + 1 = 46
 * bytes; a ref line is 40 (oid) + 1 (SP) + len(name) + 1 (LF) bytes; a '^' line 1 + 40 + 1 = 42.
 */
import { describe, it, expect } from 'vitest';
import fs, { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { realGits, gitSkipReason, gitRepo } from './lib/realgit.ts';
import { collectInput } from '../src/cli/node-input.ts';
import { classifyInput } from '../src/engine/input.ts';
import { type InputFile, memorySource, textToKey, displayName } from '../src/engine/basics.ts';
import {
  parsePackedRefs,
  packedRefsForEachRef,
  peelCoverage,
  lookupPacked,
  loadFilesRepo,
  filesRefs,
  looseStats,
  packRefsAuto,
  packedRefsSection,
  filesRepoSection,
  estimateReftable,
  parseLooseContent,
  parseReflog,
  resolveName,
  checkRefnameFormat,
  isRootRefName,
  listedByForEachRef,
} from '../src/engine/files.ts';
import { log2u } from '../src/engine/files/loose.ts';

const FX = join(__dirname, 'fixtures');
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
/** A 40-digit object id made of one repeated hex digit. */
const O = (c: string): string => c.repeat(40);
const HDR = '# pack-refs with: peeled fully-peeled sorted \n'; // 46 bytes
const file = (path: string, content: string | Uint8Array): InputFile => ({
  path,
  source: memorySource(typeof content === 'string' ? enc(content) : content),
});
const lines = (refs: { name: string; oid: string }[]): string =>
  refs.map((r) => `${r.oid} ${displayName(r.name)}\n`).join('');

function loadDir(dir: string): InputFile[] {
  const out: InputFile[] = [];
  const walk = (d: string): void => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) {
        if (n !== 'truth') walk(p);
      } else
        out.push({
          path: relative(dir, p).split('\\').join('/'),
          source: memorySource(new Uint8Array(readFileSync(p))),
        });
    }
  };
  walk(dir);
  return out;
}

describe('git.git packed-refs (fixture)', () => {
  const dir = join(FX, 'packed-refs/gitgit');
  const bytes = new Uint8Array(readFileSync(join(dir, 'packed-refs')));
  const pr = parsePackedRefs('packed-refs', bytes);
  const truthRefs = readFileSync(join(dir, 'truth/refs.txt'), 'utf8');
  const truthPeeled = readFileSync(join(dir, 'truth/peeled.txt'), 'utf8').trim().split('\n');

  it('lists exactly what git for-each-ref lists', () => {
    expect(lines(packedRefsForEachRef(pr))).toBe(truthRefs);
    // Same through the files-repo path (a directory holding only packed-refs).
    const repo = loadFilesRepo([file('packed-refs', bytes)]);
    expect(repo.kind).toBe('packed-refs');
    expect(lines(filesRefs(repo))).toBe(truthRefs);
  });

  it('has the header, 4,294 refs and 1,008 peeled lines of the truth', () => {
    // The file has 5,303 lines: the header, then 5,302 lines = 4,294 ref lines (refs.txt has
    // 4,294 lines) + 1,008 '^' lines (peeled.txt has 1,008 lines).
    expect(pr.header).toBe('# pack-refs with: peeled fully-peeled sorted ');
    expect(pr.traits).toEqual(['peeled', 'fully-peeled', 'sorted']);
    expect(pr.lines).toBe(5302);
    expect(pr.recordCount).toBe(truthRefs.trim().split('\n').length);
    expect(pr.recordCount).toBe(4294);
    expect(pr.peeledCount).toBe(truthPeeled.length);
    expect(pr.peeledCount).toBe(1008);
    expect(pr.hash).toBe('sha1');
    expect(pr.sorted).toBe(true);
    expect(pr.duplicates).toEqual([]);
    expect(pr.unfoundByBinarySearch).toEqual([]);
    expect(pr.findings).toEqual([]);
    expect(pr.fatal).toBeNull();
  });

  it('has the peeled values of peeled.txt', () => {
    const got = pr.records.filter((r) => r.peeled !== null).map((r) => `${r.name} ${r.oid} ${r.peeled}`);
    expect(got).toEqual(truthPeeled);
  });

  it('peel coverage: fully-peeled, so no ref needs its object opened', () => {
    const tags = truthRefs.split('\n').filter((l) => l.includes(' refs/tags/')).length;
    const c = peelCoverage(pr);
    expect(c.refs).toBe(4294);
    expect(c.withPeeled).toBe(1008);
    expect(c.tags).toBe(tags);
    expect(c.tagsWithPeeled).toBe(1008);
    expect(c.tagsWithoutPeeled).toBe(tags - 1008);
    // Rule: with fully-peeled every ref is known (a missing '^' line means "does not peel").
    expect(c.mustOpen).toBe(0);
  });

  it('binary search replay over every name finds all of them (the file is sorted)', () => {
    const all = parsePackedRefs('packed-refs', bytes, { replay: 'always' });
    expect(all.unfoundByBinarySearch).toEqual([]);
    expect(all.bisect.lookups).toBe(4294);
    // Each lookup of a truth name gives the truth oid.
    for (const l of truthRefs.trim().split('\n')) {
      const [oid, name] = l.split(' ');
      expect(lookupPacked(pr, textToKey(name)).record?.oid).toBe(oid);
    }
  });
});

describe('files backend .git (fixture files/basic)', () => {
  const dir = join(FX, 'files/basic');
  const repo = loadFilesRepo(loadDir(dir));

  it('lists exactly what git for-each-ref --include-root-refs lists', () => {
    expect(repo.kind).toBe('gitdir');
    expect(lines(filesRefs(repo))).toBe(readFileSync(join(dir, 'truth/refs.txt'), 'utf8'));
    expect(repo.fatal).toBeNull();
  });

  it('loose vs packed', () => {
    const s = looseStats(repo);
    // Loose files: refs/heads/{master,only-loose,packed-then-loose}, refs/remotes/origin/{HEAD,main}
    // (5) and the root ref HEAD (1). Symrefs: HEAD, refs/remotes/origin/HEAD.
    expect(s.looseRefs).toBe(5);
    expect(s.rootRefs).toBe(1);
    expect(s.looseSymrefs).toBe(2);
    // packed-refs holds refs/heads/master and refs/heads/packed-then-loose, both also loose.
    expect(s.shadowingNames).toEqual(['refs/heads/master', 'refs/heads/packed-then-loose']);
    // packed-refs is 330 bytes: floor(330 / 100) = 3, log2u(3) = 1, 5 × 1 = 5 < 16 → limit 16.
    // Packable loose refs: master, only-loose, packed-then-loose, origin/main (4; no tags).
    expect(s.packRefsAuto).toMatchObject({
      packedRefsBytes: 330,
      limit: 16,
      candidatesAll: 4,
      candidatesTags: 0,
      wouldPack: false,
      wouldPackAll: false,
    });
  });

  it('reflogs: entries per ref (lines in the logs/ files)', () => {
    const counts = Object.fromEntries(repo.reflogs.map((r) => [r.name, r.entries]));
    expect(counts).toEqual({
      HEAD: 2,
      'refs/heads/master': 2,
      'refs/heads/only-loose': 1,
      'refs/heads/packed-then-loose': 2,
      'refs/remotes/origin/HEAD': 1,
      'refs/remotes/origin/main': 1,
    });
    expect(repo.reflogs.every((r) => r.malformed === 0 && r.refExists)).toBe(true);
    const master = parseReflog(new Uint8Array(readFileSync(join(dir, 'logs/refs/heads/master'))), 40).entries;
    expect(master[1]).toMatchObject({
      old: '9cd2bf1a48a4b5e413aaf9553c104d34db6fad2c',
      new: '1dbc592f5c08128226fc415b1a6dbf323f38a1da',
      ident: 'C O Mitter <committer@example.com>',
      timestamp: 1700000000,
      tz: '+0100',
      message: 'commit: two',
    });
  });

  it('JSON section', () => {
    const j = filesRepoSection(repo);
    expect(j).toMatchObject({
      present: true,
      traits: ['peeled', 'fully-peeled', 'sorted'],
      records: 4,
      peeled: 1,
      sorted: true,
      unfoundByBinarySearch: [],
      duplicates: [],
    });
    expect(j.loose?.reflogEntries).toBe(9); // 2 + 2 + 1 + 2 + 1 + 1
  });
});

describe('binary search replay (hand-built)', () => {
  // Header 46 bytes, then five 54-byte lines (names of 12 bytes) in the order b, d, c, a, e:
  // b [46,100) d [100,154) c [154,208) a [208,262) e [262,316); end 316.
  const body = ['b', 'd', 'c', 'a', 'e'].map((x) => `${O(x)} refs/heads/${x}\n`).join('');
  const pr = parsePackedRefs('packed-refs', enc(HDR + body));

  it('lists the names git cannot find', () => {
    // git's find_reference_location, mid = lo + (hi - lo) / 2, record = line containing mid:
    // a: 181→c > a, hi=154; 100→d > a, hi=100; 73→b > a, hi=46: missed (3 probes).
    // b: 181→c > b; 100→d > b; 73→b found (3).   c: 181→c found (1).
    // d: 181→c < d, lo=208; 262→e > d, hi=262; 235→a < d, lo=262=hi: missed (3).
    // e: 181→c < e, lo=208; 262→e found (2).
    // Distinct names in file order b, d, c, a, e → missed d, a. (git 2.39 agrees.)
    expect(pr.unfoundByBinarySearch).toEqual(['refs/heads/d', 'refs/heads/a']);
    expect(pr.bisect).toMatchObject({ over: 'file', replayedAll: true, lookups: 5, maxProbes: 3 });
    expect(pr.bisect.avgProbes).toBeCloseTo(12 / 5, 10);
    expect(lookupPacked(pr, 'refs/heads/a').record).toBeNull();
    expect(lookupPacked(pr, 'refs/heads/c')).toMatchObject({
      probes: 1,
      record: { name: 'refs/heads/c', oid: O('c'), line: 4, offset: 154 },
    });
  });

  it('reports sortedness as found', () => {
    expect(pr.claimsSorted).toBe(true);
    expect(pr.sorted).toBe(false);
    // c (line 4, offset 154) comes after d.
    expect(pr.firstUnsorted).toEqual({ line: 4, offset: 154, name: 'refs/heads/c', previous: 'refs/heads/d' });
    const f = pr.findings.find((x) => x.code === 'packedRefUnsorted')!;
    expect(f).toMatchObject({ severity: 'warning', line: 4, offset: 154, gitDies: null });
    const nf = pr.findings.filter((x) => x.code === 'packedRefNotFoundByBinarySearch').map((x) => [x.line, x.offset]);
    expect(nf).toEqual([
      [3, 100],
      [5, 208],
    ]); // d, a
    // for-each-ref iterates every line: all five are listed; git 2.55 in file order (it streams
    // the backend's order for the default sort), git 2.47 sorted by name.
    expect(packedRefsForEachRef(pr).map((r) => r.name)).toEqual(
      ['b', 'd', 'c', 'a', 'e'].map((x) => `refs/heads/${x}`),
    );
    expect(packedRefsForEachRef(pr, false, true).map((r) => r.name)).toEqual(
      ['a', 'b', 'c', 'd', 'e'].map((x) => `refs/heads/${x}`),
    );
  });

  it('without the sorted trait git sorts a copy: every name is found', () => {
    const un = parsePackedRefs('packed-refs', enc('# pack-refs with: peeled fully-peeled \n' + body));
    expect(un.claimsSorted).toBe(false);
    expect(un.sorted).toBe(false);
    expect(un.unfoundByBinarySearch).toEqual([]);
    expect(un.bisect.over).toBe('sorted-copy');
    expect(un.findings.find((x) => x.code === 'packedRefUnsorted')?.severity).toBe('info');
  });

  it('non-ASCII names: byte order, Unicode in JSON', () => {
    // é is C3 A9 (13-byte name, 55-byte line). Lines: é [46,101), a [101,155), b [155,209).
    // é: mid 127→a < é, lo=155; mid 182→b < é, lo=209=hi: missed. a: 127→a found.
    // b: 127→a < b, lo=155; 182→b found.
    const p = parsePackedRefs(
      'packed-refs',
      enc(HDR + `${O('1')} refs/heads/é\n${O('2')} refs/heads/a\n${O('3')} refs/heads/b\n`),
    );
    expect(p.unfoundByBinarySearch).toEqual([textToKey('refs/heads/é')]);
    const j = packedRefsSection(p);
    expect(j.unfoundByBinarySearch).toEqual(['refs/heads/é']);
    expect(j.firstUnsorted).toEqual({ line: 3, offset: 101, name: 'refs/heads/a', previous: 'refs/heads/é' });
    expect(j).toMatchObject({
      traits: ['peeled', 'fully-peeled', 'sorted'],
      records: 3,
      peeled: 0,
      sorted: false,
      duplicates: [],
      claimsSorted: true,
    });
  });
});

describe('findings (hand-built byte cases)', () => {
  it('duplicates: git lists them twice', () => {
    // No header: git sorts the records (stably) and lists both b lines. (git 2.39 agrees.)
    const p = parsePackedRefs(
      'packed-refs',
      enc(`${O('1')} refs/heads/b\n${O('2')} refs/heads/a\n${O('3')} refs/heads/b\n`),
    );
    expect(p.duplicates).toEqual(['refs/heads/b']);
    expect(p.sorted).toBe(false);
    expect(lines(packedRefsForEachRef(p))).toBe(
      `${O('2')} refs/heads/a\n${O('1')} refs/heads/b\n${O('3')} refs/heads/b\n`,
    );
    // The second b is line 3, offset 54 + 54 = 108.
    expect(p.findings.find((f) => f.code === 'packedRefDuplicate')).toMatchObject({
      line: 3,
      offset: 108,
      severity: 'warning',
    });
    // A sorted file with a repeated name is not "sorted" by git's test (strictly increasing).
    const s = parsePackedRefs('packed-refs', enc(HDR + `${O('1')} refs/heads/a\n${O('2')} refs/heads/a\n`));
    expect(s.sorted).toBe(false);
    expect(s.duplicates).toEqual(['refs/heads/a']);
    expect(s.unfoundByBinarySearch).toEqual([]);
  });

  it('CR LF line endings: names are broken, git lists nothing', () => {
    // Header "# pack-refs with: peeled fully-peeled sorted \r\n" is 47 bytes; its last trait is
    // "\r" (unknown). Lines are 40 + 1 + 12 + CR + LF = 55 bytes: at 47 and 102.
    const p = parsePackedRefs(
      'packed-refs',
      enc(`# pack-refs with: peeled fully-peeled sorted \r\n${O('1')} refs/heads/m\r\n${O('2')} refs/heads/n\r\n`),
    );
    expect(p.unknownTraits).toEqual(['\r']);
    expect(p.claimsSorted).toBe(true);
    expect(p.records.map((r) => [r.name, r.brokenName])).toEqual([
      ['refs/heads/m\r', true],
      ['refs/heads/n\r', true],
    ]);
    expect(
      p.findings.filter((f) => f.code === 'packedRefCR').map((f) => [f.line, f.offset, f.severity, f.gitDies]),
    ).toEqual([
      [2, 47, 'warning', null],
      [3, 102, 'warning', null],
    ]);
    expect(p.fatal).toBeNull();
    expect(packedRefsForEachRef(p)).toEqual([]); // git: "warning: ignoring ref with broken name"
    // A CR before the LF of a '^' line makes git die when iterating.
    const q = parsePackedRefs(
      'packed-refs',
      enc(`# pack-refs with: peeled sorted \n${O('1')} refs/tags/v1\n^${O('2')}\r\n`),
    );
    // Header 33 bytes, ref line 54 → '^' line at 87, line 3.
    expect(q.fatal).toMatchObject({
      code: 'badPackedRefPeeled',
      line: 3,
      offset: 87,
      severity: 'error',
      gitDies: 'iterate',
    });
  });

  it('record without trailing newline: git dies on load', () => {
    const p = parsePackedRefs('packed-refs', enc(HDR + `${O('1')} refs/heads/m`));
    expect(p.fatal).toMatchObject({
      code: 'packedRefEntryNotTerminated',
      line: 2,
      offset: 46,
      severity: 'error',
      gitDies: 'load',
    });
    expect(p.fatal!.message).toContain('unterminated line');
    expect(filesRefs(loadFilesRepo([file('packed-refs', HDR + `${O('1')} refs/heads/m`)]))).toEqual([]);
    // With a '^' line last, git's message names the ref line: "unexpected line". The ref line
    // is 40 + 1 + 11 ("refs/tags/t") + 1 = 53 bytes, so the '^' line (line 3) starts at 99.
    const q = parsePackedRefs('packed-refs', enc(HDR + `${O('1')} refs/tags/t\n^${O('2')}`));
    expect(q.fatal).toMatchObject({ code: 'packedRefEntryNotTerminated', line: 3, offset: 99, gitDies: 'load' });
    expect(q.fatal!.message).toContain('unexpected line');
  });

  it('stray ^ line: dies when iterating (sorted) or on load (not sorted)', () => {
    // Header "# pack-refs with: peeled sorted \n" = 33 bytes; '^' line at 33 (line 2), ref at 75.
    const p = parsePackedRefs(
      'packed-refs',
      enc(`# pack-refs with: peeled sorted \n^${O('2')}\n${O('1')} refs/heads/m\n`),
    );
    expect(p.fatal).toMatchObject({
      code: 'packedRefStrayPeeled',
      line: 2,
      offset: 33,
      severity: 'error',
      gitDies: 'iterate',
    });
    // A lookup still works: bounds 33 and 75, end 129: mid 33 + 48 = 81 → line at 75 = refs/heads/m (1 probe).
    expect(lookupPacked(p, 'refs/heads/m')).toMatchObject({ probes: 1, record: { offset: 75 } });
    expect(p.unfoundByBinarySearch).toEqual([]);
    const q = parsePackedRefs('packed-refs', enc(`^${O('2')}\n${O('1')} refs/heads/m\n`));
    expect(q.fatal).toMatchObject({ code: 'packedRefStrayPeeled', line: 1, offset: 0, gitDies: 'load' });
  });

  it('doubled ^ line', () => {
    // Header 33; ref line (name 12) at 33, '^' at 87, second '^' at 129 (line 4).
    const p = parsePackedRefs(
      'packed-refs',
      enc(`# pack-refs with: peeled sorted \n${O('1')} refs/tags/v1\n^${O('2')}\n^${O('3')}\n`),
    );
    expect(p.fatal).toMatchObject({ code: 'packedRefDoubledPeeled', line: 4, offset: 129, gitDies: 'iterate' });
    expect(p.records[0].peeled).toBe(O('2'));
    expect(filesRefs(loadFilesRepo([file('packed-refs', p._bytes)]), { bestEffort: true })).toEqual([
      { name: 'refs/tags/v1', oid: O('1') },
    ]);
    const q = parsePackedRefs('packed-refs', enc(`${O('1')} refs/tags/v1\n^${O('2')}\n^${O('3')}\n`));
    expect(q.fatal).toMatchObject({ code: 'packedRefDoubledPeeled', line: 3, offset: 96, gitDies: 'load' });
  });

  it('malformed line: git dies ("unexpected line in packed-refs")', () => {
    // Header "# pack-refs with: sorted \n" = 26 bytes; ref line at 26 (54 bytes); garbage at 80.
    const p = parsePackedRefs(
      'packed-refs',
      enc(`# pack-refs with: sorted \n${O('1')} refs/heads/m\n${'x'.repeat(50)}\n`),
    );
    expect(p.fatal).toMatchObject({
      code: 'badPackedRefEntry',
      line: 3,
      offset: 80,
      severity: 'error',
      gitDies: 'iterate',
    });
    expect(filesRefs(loadFilesRepo([file('packed-refs', p._bytes)]))).toEqual([]);
    // An empty last line in a file without header: too short, and the last record → load.
    const q = parsePackedRefs('packed-refs', enc(`${O('1')} refs/heads/m\n\n`));
    expect(q.fatal).toMatchObject({ code: 'badPackedRefEntry', line: 2, offset: 54, gitDies: 'load' });
    // A 64-digit id in a SHA-1 file: hex continues where the separator should be.
    const r = parsePackedRefs('packed-refs', enc(HDR + `${O('1')} refs/heads/m\n${'a'.repeat(64)} refs/heads/n\n`), {
      hash: 'sha1',
    });
    expect(r.fatal).toMatchObject({ code: 'badPackedRefEntry', line: 3, offset: 100 });
  });

  it('unknown header: git dies on load', () => {
    const p = parsePackedRefs('packed-refs', enc(`# packed by me\n${O('1')} refs/heads/m\n`));
    expect(p.fatal).toMatchObject({
      code: 'badPackedRefHeader',
      line: 1,
      offset: 0,
      severity: 'error',
      gitDies: 'load',
    });
    const q = parsePackedRefs('packed-refs', enc(`# pack-refs with: peeled sorted shiny \n`));
    expect(q.unknownTraits).toEqual(['shiny']);
    expect(q.findings.map((f) => [f.code, f.severity])).toEqual([['packedRefUnknownTrait', 'info']]);
    expect(q.fatal).toBeNull();
  });

  it('TAB separator and upper-case hex are accepted', () => {
    const p = parsePackedRefs('packed-refs', enc(`${'A'.repeat(40)}\trefs/heads/m\n`));
    expect(p.records[0].oid).toBe('a'.repeat(40));
    expect(p.findings.map((f) => f.code).sort()).toEqual(['packedRefSeparator', 'packedRefUppercaseHex']);
    expect(p.fatal).toBeNull();
  });

  it('dangerous name makes git die', () => {
    // "refs/heads/../x" fails the refname check and escapes refs/ → "packed refname is dangerous".
    const p = parsePackedRefs('packed-refs', enc(`${O('1')} refs/heads/../x\n`));
    expect(p.fatal).toMatchObject({ code: 'packedRefDangerousName', gitDies: 'iterate' });
  });

  it('SHA-256 ids', () => {
    const a = 'a'.repeat(64),
      b = 'b'.repeat(64),
      c = 'c'.repeat(64);
    // Header 46; "refs/heads/main" line 64 + 1 + 15 + 1 = 81 at 46; tag line at 127 (64+1+12+1 = 78);
    // '^' line at 205; a SHA-1 line at 271 is malformed (hex stops at 40, no separator at 64).
    const text = HDR + `${a} refs/heads/main\n${b} refs/tags/v1\n^${c}\n${O('1')} refs/tags/v2\n`;
    const p = parsePackedRefs('packed-refs', enc(text));
    expect(p.hash).toBe('sha256');
    expect(p.hexLength).toBe(64);
    expect(p.records.map((r) => [r.name, r.oid, r.peeled, r.offset])).toEqual([
      ['refs/heads/main', a, null, 46],
      ['refs/tags/v1', b, c, 127],
    ]);
    expect(p.findings.map((f) => [f.code, f.line, f.offset])).toEqual([['badPackedRefEntry', 5, 271]]);
    const good = parsePackedRefs('packed-refs', enc(HDR + `${a} refs/heads/main\n${b} refs/tags/v1\n^${c}\n`));
    expect(good.fatal).toBeNull();
    expect(packedRefsForEachRef(good)).toEqual([
      { name: 'refs/heads/main', oid: a },
      { name: 'refs/tags/v1', oid: b },
    ]);
    expect(loadFilesRepo([file('packed-refs', good._bytes)]).hash).toBe('sha256');
  });
});

describe('peel coverage rules (hand-built)', () => {
  // x: no '^', y (remote) with '^', tags/a without, tags/b with.
  const body = `${O('1')} refs/heads/x\n${O('2')} refs/remotes/y\n^${O('3')}\n${O('4')} refs/tags/a\n${O('5')} refs/tags/b\n^${O('6')}\n`;
  it('peeled only: refs outside refs/tags/ without a ^ line must be opened', () => {
    const c = peelCoverage(parsePackedRefs('p', enc('# pack-refs with: peeled \n' + body)));
    // known: y (^), tags/a (peeled trait + tag), tags/b (^); open: heads/x.
    expect(c).toMatchObject({
      refs: 4,
      withPeeled: 2,
      tags: 2,
      tagsWithPeeled: 1,
      tagsWithoutPeeled: 1,
      known: 3,
      mustOpen: 1,
    });
  });
  it('no traits: every ref without a ^ line must be opened', () => {
    expect(peelCoverage(parsePackedRefs('p', enc(body)))).toMatchObject({ known: 2, mustOpen: 2 });
  });
  it('fully-peeled: none', () => {
    expect(peelCoverage(parsePackedRefs('p', enc('# pack-refs with: peeled fully-peeled \n' + body)))).toMatchObject({
      known: 4,
      mustOpen: 0,
    });
  });
});

describe('files backend .git (hand-built)', () => {
  // packed-refs (393 bytes, header 46): alpha [46,104) hidden [104,163) shadowed [163,224)
  // tags/zeta [224,280) heads/beta [280,337) tags/null [337,393): claims sorted, beta is not.
  const packed =
    HDR +
    [
      [O('1'), 'refs/heads/alpha'],
      [O('2'), 'refs/heads/hidden'],
      [O('3'), 'refs/heads/shadowed'],
      [O('4'), 'refs/tags/zeta'],
      [O('5'), 'refs/heads/beta'],
      [O('0'), 'refs/tags/null'],
    ]
      .map(([o, n]) => `${o} ${n}\n`)
      .join('');
  const files = [
    file('packed-refs', packed),
    file('HEAD', 'ref: refs/heads/main\n'),
    file('ORIG_HEAD', O('9') + '\n'),
    file('FETCH_HEAD', O('9') + '\t\tbranch x of y\n'),
    file('config', '[core]\n\trepositoryformatversion = 0\n'),
    file('refs/heads/main', O('8') + '\n'),
    file('refs/heads/hidden', 'garbage\n'),
    file('refs/heads/shadowed', O('7') + '\n'),
    file('refs/heads/.dot', O('1') + '\n'),
    file('refs/heads/x.lock', O('1') + '\n'),
    file('refs/heads/s1', 'ref: refs/heads/s2\n'),
    file('refs/heads/s2', 'ref: refs/heads/s3\n'),
    file('refs/heads/s3', 'ref: refs/heads/s4\n'),
    file('refs/heads/s4', 'ref: refs/heads/s5\n'),
    file('refs/heads/s5', 'ref: refs/heads/main\n'),
    file('refs/heads/tobeta', 'ref: refs/heads/beta\n'),
    file('refs/heads/dangling', 'ref: refs/heads/nothere\n'),
    file('refs/heads/nullloose', O('0') + '\n'),
    file(
      'logs/HEAD',
      `${O('0')} ${O('8')} A U Thor <a@example.com> 1700000000 +0000\tcommit (initial): x\nnot a reflog line\n`,
    ),
  ];
  const repo = loadFilesRepo(files);

  it('merged view equals git for-each-ref --include-root-refs (computed by hand)', () => {
    // - HEAD → refs/heads/main (O8); ORIG_HEAD listed (root ref), FETCH_HEAD not (pseudoref).
    // - hidden: loose content is garbage → broken, hides the packed value (O2).
    // - shadowed: loose O7 hides packed O3.
    // - s1 reads s1..s5 (5 symrefs, SYMREF_MAXDEPTH) → too deep, left out; s2..s5 reach main.
    // - tobeta → refs/heads/beta: git's binary search misses beta (46..393: mid 219 → shadowed >
    //   beta, hi=163; mid 104 → hidden > beta, hi=104; mid 75 → alpha < beta, lo=104=hi), so
    //   tobeta dangles and is left out; beta itself is listed (iteration reads every line).
    // - dangling, nullloose (null id) left out; packed tags/null (null id) is listed.
    // - .dot and x.lock are skipped as git skips them.
    // (git 2.39 prints the same refs/ lines, sorted; HEAD and ORIG_HEAD resolved with rev-parse.)
    expect(lines(filesRefs(repo, { sortByName: true }))).toBe(
      [
        `${O('8')} HEAD`,
        `${O('9')} ORIG_HEAD`,
        `${O('1')} refs/heads/alpha`,
        `${O('5')} refs/heads/beta`,
        `${O('8')} refs/heads/main`,
        `${O('8')} refs/heads/s2`,
        `${O('8')} refs/heads/s3`,
        `${O('8')} refs/heads/s4`,
        `${O('8')} refs/heads/s5`,
        `${O('7')} refs/heads/shadowed`,
        `${O('0')} refs/tags/null`,
        `${O('4')} refs/tags/zeta`,
      ].join('\n') + '\n',
    );
    // git 2.55 prints the merged iteration as it comes: loose refs in name order overlaid on the
    // packed records in file order; after the last loose ref (tobeta < tags/zeta) the packed
    // records zeta, beta, null follow in file order.
    expect(lines(filesRefs(repo))).toBe(
      [
        `${O('8')} HEAD`,
        `${O('9')} ORIG_HEAD`,
        `${O('1')} refs/heads/alpha`,
        `${O('8')} refs/heads/main`,
        `${O('8')} refs/heads/s2`,
        `${O('8')} refs/heads/s3`,
        `${O('8')} refs/heads/s4`,
        `${O('8')} refs/heads/s5`,
        `${O('7')} refs/heads/shadowed`,
        `${O('4')} refs/tags/zeta`,
        `${O('5')} refs/heads/beta`,
        `${O('0')} refs/tags/null`,
      ].join('\n') + '\n',
    );
    expect(repo.fatal).toBeNull();
  });

  it('binary search misses zeta and beta in its packed-refs', () => {
    // zeta: 219 → shadowed < zeta, lo=224; 308 → beta < zeta, lo=337; 365 → null < zeta, lo=393.
    // Probes: alpha 3, hidden 2, shadowed 1, zeta 3, beta 3, null 3 = 15 over 6 lookups.
    expect(repo.packed!.unfoundByBinarySearch).toEqual(['refs/tags/zeta', 'refs/heads/beta']);
    expect(repo.packed!.bisect.avgProbes).toBeCloseTo(15 / 6, 10);
    expect(resolveName(repo, 'refs/heads/tobeta').oid).toBeNull();
    expect(resolveName(repo, 'refs/heads/s2').chain).toEqual([
      'refs/heads/s2',
      'refs/heads/s3',
      'refs/heads/s4',
      'refs/heads/s5',
      'refs/heads/main',
    ]);
    expect(resolveName(repo, 'refs/heads/s1').oid).toBeNull();
  });

  it('loose refs, ignored files, findings', () => {
    expect(repo.ignored.map((i) => i.path).sort()).toEqual(['FETCH_HEAD', 'refs/heads/.dot', 'refs/heads/x.lock']);
    const byName = Object.fromEntries(repo.loose.map((l) => [l.name, l]));
    expect(byName['refs/heads/hidden']).toMatchObject({
      broken: true,
      shadowsPacked: true,
      content: { kind: 'broken' },
    });
    expect(byName['refs/heads/s1']).toMatchObject({ broken: true, resolved: null });
    const codes = repo.findings.map((f) => `${f.code} ${f.file}`).sort();
    expect(codes).toEqual([
      'badRefContent refs/heads/hidden',
      'badReflogEntry logs/HEAD',
      'danglingSymref refs/heads/dangling',
      'danglingSymref refs/heads/tobeta',
      'nullOidRef refs/heads/nullloose',
      'pseudorefIgnored FETCH_HEAD',
      'refLocked refs/heads/x.lock',
      'symrefTooDeep refs/heads/s1',
    ]);
    expect(repo.reflogs).toMatchObject([
      { name: 'HEAD', entries: 2, malformed: 1, refExists: true, first: 1700000000 },
    ]);
  });

  it('loose vs packed statistics', () => {
    const s = looseStats(repo);
    // Packable (non-root, object id, not broken, shared): main, shadowed → 2; tags: 0.
    // packed-refs 393 bytes: floor(393/100) = 3 → log2u 1 → 5 → limit 16.
    expect(s.packRefsAuto).toMatchObject({
      packedRefsBytes: 393,
      limit: 16,
      candidatesAll: 2,
      candidatesTags: 0,
      wouldPack: false,
    });
    expect(s.shadowingNames).toEqual(['refs/heads/hidden', 'refs/heads/shadowed']);
    expect(s).toMatchObject({ looseRefs: 11, rootRefs: 2, looseSymrefs: 8, looseBroken: 5 });
    // Files: 11 under refs/ + HEAD + ORIG_HEAD; one directory (refs/, refs/heads/) pair.
    expect(s.lookupCost.loose).toMatchObject({ files: 13, directories: 2, readdirsToList: 2 + 1 + 3 });
    expect(s.lookupCost.packed).toMatchObject({ mode: 'binary-search', records: 6, bytesOnLoad: 393, maxProbes: 3 });
  });

  it('JSON section', () => {
    const j = filesRepoSection(repo);
    expect(j).toMatchObject({
      present: true,
      records: 6,
      peeled: 0,
      sorted: false,
      claimsSorted: true,
      unfoundByBinarySearch: ['refs/tags/zeta', 'refs/heads/beta'],
      duplicates: [],
      gitDies: null,
    });
    expect(j.loose).toMatchObject({ looseRefs: 11, shadowing: 2, reflogs: 1, reflogEntries: 2 });
    expect(j.reftableEstimate.estimate).toBe(true);
    expect(JSON.parse(JSON.stringify(j))).toEqual(j);
  });
});

describe('pack-refs --auto (hand-built)', () => {
  // packed-refs: header 46 + 185 lines of 54 bytes = 46 + 9,990 = 10,036 bytes.
  // floor(10036 / 100) = 100, log2u(100) = 6 (64 <= 100 < 128), 5 × 6 = 30 → limit 30.
  // Names "refs/h/00000".."refs/h/00184" are 12 bytes: lines of 40 + 1 + 12 + 1 = 54 bytes.
  const packed =
    HDR + Array.from({ length: 185 }, (_, i) => `${O('1')} refs/h/${String(i).padStart(5, '0')}\n`).join('');
  const mk = (tags: number): InputFile[] => [
    file('packed-refs', packed),
    file('HEAD', 'ref: refs/heads/main\n'),
    ...Array.from({ length: tags }, (_, i) => file(`refs/tags/t${String(i).padStart(2, '0')}`, O('2') + '\n')),
    file('refs/tags/sym', 'ref: refs/tags/t00\n'), // symref: not packed
    file('refs/bisect/bad', O('3') + '\n'), // per-worktree: not packed
    file('refs/heads/main', O('3') + '\n'),
  ];
  it('limit from the packed-refs size', () => {
    expect(packed.length).toBe(10036);
    expect(log2u(100)).toBe(6);
    expect(log2u(0)).toBe(0);
    expect(log2u(1)).toBe(0);
    const a = packRefsAuto(loadFilesRepo(mk(30)));
    expect(a).toMatchObject({ limit: 30, candidatesTags: 30, candidatesAll: 31, wouldPack: true, wouldPackAll: true });
    const b = packRefsAuto(loadFilesRepo(mk(29)));
    expect(b).toMatchObject({ limit: 30, candidatesTags: 29, candidatesAll: 30, wouldPack: false, wouldPackAll: true });
  });
});

describe('loose ref content and names', () => {
  it('parses loose files as git does', () => {
    expect(parseLooseContent(enc(O('a') + '\n'), 40)).toEqual({ kind: 'oid', oid: O('a') });
    expect(parseLooseContent(enc(O('A') + ' extra\n'), 40)).toEqual({ kind: 'oid', oid: O('a') });
    expect(parseLooseContent(enc('ref:\trefs/heads/x \n'), 40)).toEqual({ kind: 'symref', target: 'refs/heads/x' });
    expect(parseLooseContent(enc(O('a') + 'b\n'), 40).kind).toBe('broken');
    expect(parseLooseContent(enc(''), 40).kind).toBe('broken');
  });
  it('refname rules', () => {
    for (const ok of ['refs/heads/x', 'HEAD', 'foo', 'refs/heads/é', 'refs/heads/a.b'])
      expect(checkRefnameFormat(textToKey(ok)), ok).toBe(true);
    for (const bad of [
      '@',
      'refs/heads/x\r',
      'refs//x',
      'refs/heads/.x',
      'refs/heads/x.lock',
      'refs/heads/a..b',
      'refs/heads/a@{b',
      'refs/heads/x.',
      'refs/heads/a b',
      'refs/heads/*',
      '/refs/x',
      'refs/x/',
    ])
      expect(checkRefnameFormat(bad), bad).toBe(false);
    expect(
      [
        'HEAD',
        'ORIG_HEAD',
        'CHERRY_PICK_HEAD',
        'AUTO_MERGE',
        'FETCH_HEAD',
        'MERGE_HEAD',
        'COMMIT_EDITMSG',
        'config',
      ].map(isRootRefName),
    ).toEqual([true, true, true, true, false, false, false, false]);
    expect(['HEAD', 'ORIG_HEAD', 'FETCH_HEAD', 'foo', 'refs/x'].map((n) => listedByForEachRef(n, false))).toEqual([
      false,
      false,
      false,
      true,
      true,
    ]);
    expect(['HEAD', 'ORIG_HEAD', 'FETCH_HEAD'].map((n) => listedByForEachRef(n, true))).toEqual([true, true, false]);
  });
});

describe('reftable estimate', () => {
  it('two refs: one 92-byte block + footer (hand computed; JGit 4.11 writes 160 bytes too)', () => {
    // Block: header 24 + block header 4 = 28; "refs/heads/a": prefix 0 (restart), suffix 12:
    // 1 + 1 + 12 + (1 update-index delta + 20 id) = 35; "refs/heads/b": prefix 11, suffix 1:
    // 1 + 1 + 1 + 21 = 24; restart table 1 × 3 + 2 → block_len 28 + 35 + 24 + 5 = 92; + footer 68.
    const e = estimateReftable(
      [
        { name: 'refs/heads/a', oid: O('1') },
        { name: 'refs/heads/b', oid: O('2') },
      ],
      'sha1',
    );
    expect(e).toMatchObject({ estimate: true, bytes: 160, blocks: 1, refBlocks: 1, refIndexBlocks: 0, objBlocks: 0 });
  });
  it('git.git refs are within 5% of what JGit writes', () => {
    // JGit 4.11 `debug-write-reftable --block-size 4096 --restart-interval 16` on the 4,294
    // "<oid> <name>" lines of this packed-refs (no peeled values) wrote 168,118 bytes.
    const pr = parsePackedRefs('packed-refs', new Uint8Array(readFileSync(join(FX, 'packed-refs/gitgit/packed-refs'))));
    const e = estimateReftable(
      pr.records.map((r) => ({ name: r.name, oid: r.oid })),
      'sha1',
    );
    expect(Math.abs(e.bytes - 168118) / 168118).toBeLessThan(0.05);
  });
});

describe('performance', () => {
  it('parses a 1,000,000-ref packed-refs, replaying a bounded sample of lookups (work counted, not timed)', () => {
    // Built byte by byte (no million temporary strings left on the heap while timing).
    const n = 1_000_000;
    const refLine = enc(`${O('a')} refs/pull/0000000/head\n`); // 64 bytes; digits at 51..57
    const peelLine = enc(`^${O('b')}\n`); // 42 bytes
    const hdr = enc(HDR);
    const bytes = new Uint8Array(hdr.length + n * refLine.length + (n / 5) * peelLine.length);
    bytes.set(hdr, 0);
    let o = hdr.length;
    for (let i = 0; i < n; i++) {
      bytes.set(refLine, o);
      for (let d = 6, v = i; d >= 0; d--, v = Math.floor(v / 10)) bytes[o + 51 + d] = 0x30 + (v % 10);
      o += refLine.length;
      if (i % 5 === 0) {
        bytes.set(peelLine, o);
        o += peelLine.length;
      }
    }
    const pr = parsePackedRefs('packed-refs', bytes);
    expect(pr.recordCount).toBe(n);
    expect(pr.peeledCount).toBe(n / 5);
    expect(pr.sorted).toBe(true);
    expect(pr.lines).toBe(n + n / 5);
    expect(pr.records[123456].name).toBe('refs/pull/0123456/head');
    // A sorted file: every name is provably found, so the replay samples every ceil(n / 2048)th
    // record (489) instead of searching a million names: 2,045 lookups.
    expect(pr.bisect).toMatchObject({ sampled: true, replayedAll: false, lookups: Math.ceil(n / Math.ceil(n / 2048)) });
  });
});

describe('sorted claim, duplicates, order (hand-built)', () => {
  it('no "sorted" trait but in order: git only checks, so no sort is claimed', () => {
    // packed-backend.c sort_snapshot walks the records once and sorts only when one is not
    // greater than the one before it.
    const inOrder = parsePackedRefs(
      'packed-refs',
      enc('# pack-refs with: peeled \n' + ['a', 'b', 'c'].map((x) => `${O(x)} refs/heads/${x}\n`).join('')),
    );
    expect(inOrder.sorted).toBe(true);
    expect(inOrder.findings.filter((f) => f.code === 'packedRefUnsorted')).toEqual([]);
    expect(inOrder.bisect.over).toBe('file');
    expect(packedRefsSection(inOrder).lookupCost.packed).toMatchObject({ mode: 'binary-search', sortComparisons: 0 });
    // Out of order: the claim is made, and the cost is a sort (3 × ceil(log2 3) = 6 comparisons).
    const out = parsePackedRefs(
      'packed-refs',
      enc('# pack-refs with: peeled \n' + ['b', 'a', 'c'].map((x) => `${O(x)} refs/heads/${x}\n`).join('')),
    );
    expect(out.findings.find((f) => f.code === 'packedRefUnsorted')!.message).toMatch(/sorts a copy/);
    expect(packedRefsSection(out).lookupCost.packed).toMatchObject({ mode: 'sort-on-load', sortComparisons: 6 });
  });
  it('a packed-refs file is recognised by its content under another name', async () => {
    const { classifyInput } = await import('../src/engine/input.ts');
    const body = `${HDR}${O('1')} refs/heads/a\n`;
    for (const name of ['backup.packed-refs', 'packed-refs.bak', 'refs-dump.txt']) {
      const c = classifyInput([file(name, body)]);
      expect(c.kind).toBe('packed-refs');
      const repo = loadFilesRepo(c.gitFiles);
      expect(repo.packed!.file).toBe(name);
      expect(filesRefs(repo)).toEqual([{ name: 'refs/heads/a', oid: O('1') }]);
    }
    // Without a header: a first line "<40 hex> refs/…".
    expect(classifyInput([file('dump', `${O('2')} refs/tags/v1\n`)]).kind).toBe('packed-refs');
    expect(classifyInput([file('notes.txt', 'hello\n')]).kind).toBe('empty');
  });
});

describe.skipIf(gitSkipReason)('packed-refs order, duplicates and locks, as real git reads them', () => {
  for (const g of realGits()) {
    it(`git ${g.version}: a header that says sorted over unsorted records, a duplicate, lock files`, () => {
      const repo = gitRepo(g, { format: 'files' });
      try {
        for (const m of ['one', 'two', 'three']) repo.git(['commit', '-q', '--allow-empty', '-m', m]);
        const [a, b, c] = ['HEAD~2', 'HEAD~1', 'HEAD'].map((r) => repo.git(['rev-parse', r]).trim());
        repo.git(['branch', 'loose']);
        fs.rmSync(join(repo.gitDir, 'refs/heads/main'));
        // zeta before alpha under "sorted"; refs/tags/dup twice (a, then b).
        fs.writeFileSync(
          join(repo.gitDir, 'packed-refs'),
          `${HDR}${c} refs/heads/main\n${a} refs/heads/zeta\n${b} refs/heads/alpha\n${a} refs/tags/dup\n${b} refs/tags/dup\n`,
        );
        const want = repo.git(['for-each-ref', '--include-root-refs', '--format=%(objectname) %(refname)']);
        const files = collectInput(repo.gitDir);
        const frepo = loadFilesRepo(classifyInput(files).gitFiles);
        // git 2.47 sorts for-each-ref's output; 2.55 and later stream the iteration order.
        const sorted = g.version.startsWith('2.47.');
        expect(lines(filesRefs(frepo, { sortByName: sorted }))).toBe(want);
        if (!sorted) {
          const r = spawnSync(process.execPath, [join(__dirname, '..', 'bin/refscope.mjs'), 'refs', repo.gitDir], {
            encoding: 'latin1',
          });
          expect(r.stdout).toBe(want);
        }
        // The duplicate: the finding names the value git's lookup answers.
        const answer = repo.git(['rev-parse', 'refs/tags/dup']).trim();
        const dup = frepo.packed!.findings.find((f) => f.code === 'packedRefDuplicate')!;
        expect(dup.message).toContain(`(${answer})`);
        expect(dup.message).toContain('lines 5, 6');
        // Lock files: what git says, and that refscope reports both.
        fs.writeFileSync(join(repo.gitDir, 'refs/heads/loose.lock'), '');
        fs.writeFileSync(join(repo.gitDir, 'packed-refs.lock'), '');
        const upd = repo.gitResult(['update-ref', 'refs/heads/loose', c]);
        expect(upd.status).not.toBe(0);
        expect(upd.stderr).toContain("cannot lock ref 'refs/heads/loose'");
        expect(upd.stderr).toMatch(/loose\.lock': File exists\./);
        const del = repo.gitResult(['update-ref', '-d', 'refs/heads/zeta']);
        expect(del.status).not.toBe(0);
        expect(del.stderr).toMatch(/packed-refs\.lock': File exists\./);
        expect(repo.gitResult(['pack-refs', '--all']).status).not.toBe(0);
        // Creating a loose ref still works, and for-each-ref still lists the locked ref.
        expect(repo.gitResult(['update-ref', 'refs/heads/fresh', c]).status).toBe(0);
        expect(repo.git(['for-each-ref', '--format=%(refname)', 'refs/heads/loose'])).toBe('refs/heads/loose\n');
        const locked = loadFilesRepo(classifyInput(collectInput(repo.gitDir)).gitFiles);
        const codes = locked.findings.map((f) => `${f.code} ${f.file}`);
        expect(codes).toEqual(
          expect.arrayContaining(['refLocked refs/heads/loose.lock', 'packedRefsLocked packed-refs.lock']),
        );
        expect(locked.findings.find((f) => f.code === 'refLocked')!.message).toContain(
          "cannot lock ref 'refs/heads/loose'",
        );
        expect(locked.packedRefsLocked).toBe(true);
        expect(packRefsAuto(locked).locked).toBe(true);
      } finally {
        repo.dispose();
      }
    });
  }
});

describe('read limits on loose refs (hand-built)', () => {
  it('a loose ref larger than 64 KiB: an id and whitespace first is exact, a big "ref:" file is broken', () => {
    // git reads the whole file; after the id and one whitespace byte anything may follow
    // (parse_loose_ref_contents), so the first 64 KiB decide it.
    const big = new Uint8Array(100_000).fill(0x78); // 'x'
    big.set(enc(`${O('c')} `), 0);
    const symref = new Uint8Array(100_000).fill(0x20);
    symref.set(enc('ref: refs/heads/main'), 0);
    const repo = loadFilesRepo([
      file('HEAD', 'ref: refs/heads/main\n'),
      file('refs/heads/main', `${O('a')}\n`),
      file('refs/heads/big', big),
      file('refs/heads/bigsym', symref),
    ]);
    const byName = Object.fromEntries(repo.loose.map((l) => [l.name, l]));
    expect(byName['refs/heads/big']).toMatchObject({ broken: false, resolved: O('c') });
    expect(byName['refs/heads/bigsym']).toMatchObject({ broken: true, content: { kind: 'broken' } });
    expect((byName['refs/heads/bigsym'].content as { reason: string }).reason).toMatch(
      /a "ref:" file of 100,000 bytes, more than refscope reads \(65,536\)/,
    );
  });
});
