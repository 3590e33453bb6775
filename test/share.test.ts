/**
 * Share links and exports (issue #7). Expected values come from git's truth files (refs.txt,
 * symrefs.txt, peeled.txt, recreate.stdin, tables.txt) or from hand computation (the fixture
 * recipes in fixtures/README.md, hand-escaped Markdown strings); equality with the sharer's own
 * report is checked on top (that report is itself checked against git's truth in reftable.test.ts).
 */
import { describe, it, expect, afterAll } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { deflateSync } from 'fflate';
import fc from 'fast-check';
import { writeTable, tableFileName } from '../src/engine/reftable/writer.ts';
import {
  analyzeFiles,
  analysisRefs,
  buildReport,
  namespaceOf,
  encodeVarint,
  getVarint,
  cursor,
  crc32,
  memorySource,
  textToKey,
  type Analysis,
  type Report,
} from '../src/engine/index.ts';
import {
  shareLink,
  encodeShare,
  decodeShare,
  describeShare,
  reportFromShare,
  syntheticStack,
  buildSharePayload,
  encodeSharePayload,
  base64UrlEncode,
  base64UrlDecode,
  ShareLinkError,
  shapePlan,
  shareFigures,
  MAX_LINK_CHARS,
  TYPICAL_LINK_CHARS,
  DEFAULT_SHARE_BASE,
  SHARED_LABEL,
  type SharePayload,
  SHARED_DIAGNOSIS_PREFIX,
  shareFragment,
  isSafeNamespace,
  MAX_BROWSER_SYNTHETIC_RECORDS,
  MAX_SHARED_REPORT_WINNERS,
  sharedSimulation,
  SIM_SHARE_MAGIC,
  FIX_LABELS,
  simulationFromDocument,
} from '../src/engine/share/index.ts';
import { simulate } from '../src/engine/simulate/index.ts';
import { MODEL_NAMES } from '../src/engine/simulate/models.ts';
import { exportJson, exportMarkdown, exportScript, mdCode, mdText } from '../src/engine/export.ts';
import { collectInput } from '../src/cli/node-input.ts';
import { REFTABLE_FIXTURES, fixtureAnalysis, fixturePath, reftableFixtures } from './lib/fixtures.ts';
import { refscope, withEnv } from './lib/cli.ts';
import { gitSkipReason, realGits } from './lib/realgit.ts';

const FX = REFTABLE_FIXTURES;
const fixtures = reftableFixtures();

// ---------------------------------------------------------------------------------------------
// truth files

function truthLines(fx: string, file: string): string[] {
  const p = path.join(FX, fx, 'truth', file);
  return fs.existsSync(p) ? fs.readFileSync(p, 'latin1').split('\n').filter(Boolean) : [];
}
/** Every ref name git printed for the fixture: refs.txt, symrefs.txt, peeled.txt, recreate.stdin. */
function truthNames(fx: string): string[] {
  const s = new Set<string>();
  for (const l of truthLines(fx, 'refs.txt')) s.add(l.split(' ')[1]);
  for (const l of truthLines(fx, 'symrefs.txt')) l.split(' ').forEach((x) => s.add(x));
  for (const l of truthLines(fx, 'peeled.txt')) s.add(l.split(' ')[0]);
  for (const l of truthLines(fx, 'recreate.stdin')) s.add(l.split(' ')[1]);
  return [...s];
}
/** Every object id git printed for the fixture. */
function truthOids(fx: string): string[] {
  const s = new Set<string>();
  for (const l of truthLines(fx, 'refs.txt')) s.add(l.split(' ')[0]);
  for (const l of truthLines(fx, 'peeled.txt'))
    l.split(' ')
      .slice(1)
      .forEach((x) => s.add(x));
  for (const l of truthLines(fx, 'recreate.stdin')) s.add(l.split(' ')[2]);
  return [...s].filter((x) => /^[0-9a-f]{40,64}$/.test(x));
}
/** Path components beyond the namespace (`namespaceOf`); for names outside refs/, the name. */
function components(name: string): string[] {
  const parts = name.split('/');
  return name.startsWith('refs/') ? parts.slice(2).filter(Boolean) : [name];
}

/** Every string (keys and values) in a JSON-able value. */
function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => strings(x, out));
  else if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      out.push(k);
      strings(x, out);
    }
  return out;
}

/** Leaks of names or object ids into a decoded payload and the link text (empty = none). */
function leaks(fx: string, p: SharePayload, link: string): string[] {
  const found: string[] = [];
  const names = truthNames(fx);
  const comps = new Set(names.flatMap(components));
  const strs = strings(p);
  // One search per name or component over all payload strings joined (no name holds a NUL), and
  // only on a hit the string that holds it: the same findings as trying each pair, without
  // 50,000 names times every string.
  const joined = strs.join('\0');
  const segs = new Set(strs.flatMap((s) => s.split('/')));
  for (const c of comps) {
    if (segs.has(c)) {
      for (const s of strs)
        if (s.split('/').includes(c))
          found.push(`component ${JSON.stringify(c)} in payload string ${JSON.stringify(s)}`);
    } else if (c.length >= 5 && joined.includes(c)) {
      for (const s of strs)
        if (s.includes(c)) found.push(`component ${JSON.stringify(c)} inside payload string ${JSON.stringify(s)}`);
    }
  }
  for (const n of names) {
    if (joined.includes(n)) found.push(`name ${n} in payload`);
    if (link.includes(n)) found.push(`name ${n} in link`);
  }
  // link text: components long enough not to occur by chance in base64 text
  for (const c of comps) if (c.length >= 8 && link.includes(c)) found.push(`component ${c} in link`);
  // object ids: any 8-hex-digit prefix, in the payload (as JSON) and in the link (any case)
  const prefixes = new Set(truthOids(fx).map((o) => o.slice(0, 8)));
  for (const [where, text] of [
    ['payload', JSON.stringify(p).toLowerCase()],
    ['link', link.toLowerCase()],
  ] as const) {
    for (const m of text.matchAll(/[0-9a-f]{8,}/g)) {
      for (let i = 0; i + 8 <= m[0].length; i++) {
        if (prefixes.has(m[0].slice(i, i + 8))) found.push(`object id prefix ${m[0].slice(i, i + 8)} in ${where}`);
      }
    }
  }
  return found;
}

const cache = new Map<string, { a: Analysis; r: Report }>();
function load(fx: string): { a: Analysis; r: Report } {
  let v = cache.get(fx);
  if (!v) {
    const a = fixtureAnalysis(fx);
    v = { a, r: buildReport(a) };
    cache.set(fx, v);
  }
  return v;
}

const lengths: { fx: string; plain: number; withNames: number }[] = [];
afterAll(() => {
  if (!lengths.length) return;
  const max = lengths.reduce((m, l) => (l.plain > m.plain ? l : m));
  const maxN = lengths.reduce((m, l) => (l.withNames > m.withNames ? l : m));
  console.log(
    `share link lengths (characters, base ${DEFAULT_SHARE_BASE} included):\n${lengths.map((l) => `  ${l.fx.padEnd(16)} ${String(l.plain).padStart(5)}  with names ${String(l.withNames).padStart(5)}`).join('\n')}\n  maximum: ${max.plain} (${max.fx}); with names ${maxN.withNames} (${maxN.fx})`,
  );
});

// ---------------------------------------------------------------------------------------------

describe('share links from every fixture', () => {
  for (const fx of fixtures) {
    describe(fx, () => {
      it('has no ref name and no object id in the link or the decoded payload; with names it does', () => {
        const { a, r } = load(fx);
        const res = shareLink(a, r);
        expect(res.ok).toBe(true);
        if (!res.ok) return;
        const p = decodeShare(res.link);
        expect(p.withNames).toBe(false);
        expect(p.examples).toEqual([]);
        expect(leaks(fx, p, res.link)).toEqual([]);
        // the check can see names: a with-names link of a fixture with live refs leaks some
        const rn = shareLink(a, r, { withNames: true });
        expect(rn.ok).toBe(true);
        if (!rn.ok) return;
        const pn = decodeShare(rn.link);
        expect(pn.withNames).toBe(true);
        const live = truthLines(fx, 'refs.txt').map((l) => l.split(' ')[1]);
        for (const x of pn.examples) expect(live).toContain(x);
        if (live.length) expect(leaks(fx, pn, rn.link).length).toBeGreaterThan(0);
        lengths.push({ fx, plain: res.chars, withNames: rn.chars });
        expect(res.chars).toBeLessThan(TYPICAL_LINK_CHARS);
        expect(rn.chars).toBeLessThanOrEqual(MAX_LINK_CHARS);
      });

      it('round-trips: the shared report has the original figures and diagnosis', () => {
        const { a, r } = load(fx);
        const res = shareLink(a, r);
        if (!res.ok) throw new Error(res.error);
        const p = decodeShare(res.link);
        const s = reportFromShare(p);
        expect(s.input.description).toBe(SHARED_LABEL);
        expect(s.shared.label).toBe('shared report (no files)');
        expect(s.stack).toEqual(r.stack);
        // a diagnosis carried in the link is marked as the sharer's text
        expect(s.diagnosis).toBe(p.measured?.diagnosis ? SHARED_DIAGNOSIS_PREFIX + r.diagnosis : r.diagnosis);
        expect(s.tables.length).toBe(r.tables.length);
        s.tables.forEach((t, i) => {
          const o = r.tables[i];
          const pick = (x: typeof t) => ({
            fileSize: x.fileSize,
            version: x.version,
            hashId: x.hashId,
            blockSize: x.blockSize,
            min: x.minUpdateIndex,
            max: x.maxUpdateIndex,
            records: x.records,
            sectionBytes: x.sectionBytes,
            refIndexLevels: x.refIndexLevels,
            shadowed: x.shadowed,
            hidden: x.hiddenByTombstone,
            hiding: x.tombstonesHiding,
            winners: x.winners,
            blocks: x.blocks.length,
          });
          expect(pick(t)).toEqual(pick(o));
        });
        // against git's truth: table count and sizes (tables.txt)
        const tt = truthLines(fx, 'tables.txt');
        if (tt.length) expect(s.tables.map((t) => t.fileSize)).toEqual(tt.map((l) => Number(l.split(' ')[1])));
        // the share dialog's list says what is in the link
        const d = describeShare(decodeShare(res.link));
        expect(d.withNames).toBe(false);
        expect(d.contains).toContain('Ref names: none.');
        expect(d.omits).toContain('object ids (no hashes of any length)');
      });

      it('rebuilds a synthetic stack of the same shape', () => {
        const { r } = load(fx);
        const res = shareLink(load(fx).a, r);
        if (!res.ok) throw new Error(res.error);
        const syn = syntheticStack(decodeShare(res.link));
        const sa = analyzeFiles(syn.files);
        const sr = buildReport(sa);
        expect(sr.findings.filter((f) => f.severity === 'error')).toEqual([]);
        // git's truth: table count (tables.txt), and for-each-ref's line count (refs.txt)
        const tt = truthLines(fx, 'tables.txt');
        if (tt.length) expect(sr.tables.length).toBe(tt.length);
        expect(analysisRefs(sa).length).toBe(truthLines(fx, 'refs.txt').length);
        // the sharer's figures: live and tombstone counts, records by kind per table (equal, so within 1 %)
        expect(sr.tables.length).toBe(r.tables.length);
        expect(sr.stack!.live).toBe(r.stack!.live);
        expect(sr.stack!.tombstones).toBe(r.stack!.tombstones);
        expect(sr.stack!.tombstonesHiding).toBe(r.stack!.tombstonesHiding);
        expect(sr.stack!.namespaces).toEqual(r.stack!.namespaces);
        sr.tables.forEach((t, i) => {
          const o = r.tables[i];
          expect({ ...t.records, obj: 0, index: 0 }).toEqual({ ...o.records, obj: 0, index: 0 });
          expect([t.shadowed, t.hiddenByTombstone, t.tombstonesHiding, t.winners]).toEqual([
            o.shadowed,
            o.hiddenByTombstone,
            o.tombstonesHiding,
            o.winners,
          ]);
          expect([t.version, t.hashId, t.blockSize, t.minUpdateIndex, t.maxUpdateIndex]).toEqual([
            o.version,
            o.hashId,
            o.blockSize,
            o.minUpdateIndex,
            o.maxUpdateIndex,
          ]);
          // similar sizes: within 10 % (measured: within 6 % on every fixture table)
          expect(Math.abs(t.fileSize - o.fileSize) / o.fileSize).toBeLessThan(0.1);
        });
        expect((sr.stack!.compaction as { segment: unknown }).segment).toEqual(
          (r.stack!.compaction as { segment: unknown }).segment,
        );
      });

      it("repro script: one transaction per table with the report's record counts", () => {
        const { a, r } = load(fx);
        const script = exportScript(buildSharePayload(a, r));
        const parsed = parseScript(script);
        const tt = truthLines(fx, 'tables.txt');
        if (tt.length) expect(parsed.length).toBe(tt.length);
        expect(parsed.map((t) => t.counts)).toEqual(
          r.tables.map((t, i) => ({
            update: t.records.ref,
            peeled: t.records.peeled,
            // table 0: git init writes HEAD when the original has none
            symref: t.records.symref + (i === 0 && !parsed[0].headFromInit ? 1 : 0),
            delete: t.records.tombstone,
          })),
        );
        expect(scriptLeaks(fx, script)).toEqual([]);
      });
    });
  }
});

// ---------------------------------------------------------------------------------------------
// the repro script

interface ParsedTable {
  counts: { update: number; peeled: number; symref: number; delete: number };
  headFromInit: boolean;
}

/** Sum the records each transaction of a repro script writes (see exportScript). */
function parseScript(text: string): ParsedTable[] {
  const out: ParsedTable[] = [];
  let cur: ParsedTable | null = null;
  for (const line of text.split('\n')) {
    if (line === '{') {
      cur = { counts: { update: 0, peeled: 0, symref: 0, delete: 0 }, headFromInit: false };
      continue;
    }
    if (cur && /^\} \| "\$GIT" (-c \S+ )*update-ref --no-deref --stdin$/.test(line)) {
      out.push(cur);
      cur = null;
      continue;
    }
    if (!cur) continue;
    const t = line.trim();
    const kind = (c: string) => (c === 'dangling' ? 'symref' : c) as 'update';
    let m = /^refs (update|peeled|symref|dangling|delete) \S+ (\d+) (\d+) '[-x]*' \d+$/.exec(t);
    if (m) {
      cur.counts[kind(m[1])] += Number(m[3]);
      continue;
    }
    m = /^one (update|peeled|symref|dangling|delete) '[A-Z_]+' \d+$/.exec(t);
    if (m) {
      cur.counts[kind(m[1])] += 1;
      continue;
    }
    // git init's HEAD ends up in the first table (packed with the first transaction)
    if (t === '# HEAD (symref): written by git init above') {
      cur.counts.symref += 1;
      cur.headFromInit = true;
      continue;
    }
    if (t === "# + 1 symref: git init's HEAD (the original table has no HEAD symref)") {
      cur.counts.symref += 1;
      continue;
    }
    if (t.startsWith('#')) continue;
    throw new Error(`unexpected line in a transaction: ${line}`);
  }
  return out;
}

function scriptLeaks(fx: string, script: string): string[] {
  const found: string[] = [];
  for (const n of truthNames(fx)) if (n.startsWith('refs/') && script.includes(n)) found.push(n);
  // components as whole words of the script (the script's own words, e.g. "original", contain
  // some); left out: HEAD (the synthetic stack names its root symref HEAD, as git does) and
  // all-digit components (jgit-levels' refs/pull/1024/head: the script's figures are numbers too)
  const words = new Set(script.split(/[^A-Za-z0-9._-]+/));
  for (const c of new Set(truthNames(fx).flatMap(components))) {
    if (c.length >= 4 && c !== 'HEAD' && !/^\d+$/.test(c) && words.has(c)) found.push(c);
  }
  const prefixes = new Set(truthOids(fx).map((o) => o.slice(0, 8)));
  for (const m of script.matchAll(/[0-9a-f]{8,}/g))
    for (let i = 0; i + 8 <= m[0].length; i++) if (prefixes.has(m[0].slice(i, i + 8))) found.push(m[0]);
  return found;
}

describe('repro script', () => {
  it('structure: env variable before any git command, init with reftable, one pack-refs after the first transaction', () => {
    const { a, r } = load('nocompact-s2');
    const s = exportScript(buildSharePayload(a, r));
    const lines = s.split('\n');
    expect(lines[0]).toBe('#!/usr/bin/env bash');
    const env = lines.indexOf('GIT_TEST_REFTABLE_AUTOCOMPACTION=false');
    const exp = lines.indexOf('export GIT_TEST_REFTABLE_AUTOCOMPACTION');
    const init = lines.findIndex((l) => l.startsWith('"$GIT" init '));
    expect(env).toBeGreaterThan(0);
    expect(exp).toBeGreaterThan(env);
    expect(init).toBeGreaterThan(exp);
    expect(s).toContain('REF_FORMAT=${REF_FORMAT-reftable}');
    expect(lines[init]).toContain('--ref-format="$REF_FORMAT"');
    expect(lines[init]).toContain('--object-format=sha1');
    const firstTx = lines.findIndex((l) => l.includes('update-ref --no-deref --stdin'));
    const packs = lines.map((l, i) => (l.startsWith('"$GIT" pack-refs') ? i : -1)).filter((i) => i >= 0);
    expect(packs).toEqual([firstTx + 2]);
    expect(lines.filter((l) => /update-ref --no-deref --stdin$/.test(l)).length).toBe(19 + 0); // 19 tables (tables.txt)
    expect(truthLines('nocompact-s2', 'tables.txt').length).toBe(19);
  });

  it('recipe fixtures: table 1 creates n + 1 refs (HEAD from git init), table 2 deletes them; TIME_RECREATE re-creates n + 1', () => {
    // fixtures/README.md: n refs created in one transaction after a first branch and HEAD, then all deleted
    for (const [fx, n] of [
      ['recreate-1000', 1000],
      ['recreate-4000', 4000],
      ['tombstones-50k', 50000],
    ] as const) {
      const { a, r } = load(fx);
      const s = exportScript(buildSharePayload(a, r));
      const t = parseScript(s);
      expect(t.length).toBe(2);
      expect(t[0]).toEqual({ counts: { update: n + 1, peeled: 0, symref: 1, delete: 0 }, headFromInit: true });
      expect(t[1].counts).toEqual({ update: 0, peeled: 0, symref: 0, delete: n + 1 });
      const recreate = s.slice(s.indexOf('if [ "${TIME_RECREATE:-}" = 1 ]'));
      const total = [...recreate.matchAll(/refs update \S+ \d+ (\d+) /g)].reduce((x, m) => x + Number(m[1]), 0);
      expect(total).toBe(n + 1);
    }
  });

  it('basic-sha1: peeled records point at one annotated tag made with git mktag, symrefs use symref-update', () => {
    const { a, r } = load('basic-sha1');
    const s = exportScript(buildSharePayload(a, r));
    expect(s).toContain('"$GIT" mktag');
    // peeled.txt has 2 lines, symrefs.txt 2 (HEAD from git init + refs/remotes/origin/HEAD)
    const t = parseScript(s);
    expect(t[0].counts.peeled).toBe(truthLines('basic-sha1', 'peeled.txt').length);
    expect(t[0].counts.symref).toBe(truthLines('basic-sha1', 'symrefs.txt').length);
    expect(s).toMatch(/refs symref 'refs\/remotes\/remote-1\/r' \d+ 1 '[-x]*' 0/);
  });

  it('sha256 stacks get --object-format=sha256', () => {
    const { a, r } = load('basic-sha256');
    expect(exportScript(buildSharePayload(a, r))).toContain('--object-format=sha256');
  });

  it('smallblocks / jgit-levels: block size and restart interval from the blocks (256 / 3, 1024 / 4)', () => {
    // fixtures/README.md: smallblocks written with reftable.blockSize=256, restartInterval=3; jgit-levels block size 1024, interval 4
    const s1 = exportScript(buildSharePayload(load('smallblocks').a, load('smallblocks').r));
    expect(s1).toContain('"$GIT" config reftable.blockSize 256');
    expect(s1).toContain('"$GIT" config reftable.restartInterval 3');
    const s2 = exportScript(buildSharePayload(load('jgit-levels').a, load('jgit-levels').r));
    expect(s2).toContain('"$GIT" config reftable.blockSize 1024');
    expect(s2).toContain('"$GIT" config reftable.restartInterval 4');
  });

  const git = spawnSync('git', ['--version'], { encoding: 'utf8' });
  const hasGit = git.status === 0;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-share-'));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  // The newest git scripts/setup-git.sh built (the installed git may predate reftable).
  const reftableGit = gitSkipReason ? undefined : realGits().at(-1);

  // Dry run with the installed git's default (files) backend: the script's shell, awk, fast-import
  // and update-ref input are valid, and the refs it leaves are git's refs.txt in number and namespace.
  // Fixtures whose only symref is HEAD (symref-update needs git 2.46).
  for (const fx of ['recreate-1000', 'nocompact-s1', 'nocompact-s2', 'nocompact-s3', 'jgit-levels']) {
    it.skipIf(!hasGit)(
      `dry run (files backend, ${git.stdout?.trim()}): ${fx} leaves git's live refs per namespace`,
      () => {
        const { a, r } = load(fx);
        const file = path.join(tmp, `${fx}.sh`);
        fs.writeFileSync(file, exportScript(buildSharePayload(a, r)));
        const dir = path.join(tmp, `${fx}-files`);
        const run = spawnSync('bash', [file, dir], { encoding: 'utf8', env: { ...process.env, REF_FORMAT: '' } });
        expect(run.stderr).toBe('');
        expect(run.status).toBe(0);
        const refs = spawnSync('git', ['-C', dir, 'for-each-ref', '--format=%(refname)'], { encoding: 'utf8' })
          .stdout.split('\n')
          .filter(Boolean);
        const byNs = (names: string[]) =>
          names.reduce((m, x) => m.set(namespaceOf(x), (m.get(namespaceOf(x)) ?? 0) + 1), new Map<string, number>());
        const want = truthLines(fx, 'refs.txt')
          .map((l) => l.split(' ')[1])
          .filter((x) => x.startsWith('refs/'));
        expect(refs.length).toBe(want.length);
        expect(byNs(refs)).toEqual(byNs(want));
      },
      60_000,
    );
  }

  // The 1 % check of docs/share.md, with a reftable-capable real git.
  for (const fx of ['nocompact-s2', 'recreate-1000', 'basic-sha1']) {
    it.skipIf(!reftableGit)(
      `reftable git ${reftableGit?.version}: ${fx} rebuilt with the same table count and record counts within 1 %`,
      () => {
        const { a, r } = load(fx);
        const file = path.join(tmp, `${fx}-rt.sh`);
        fs.writeFileSync(file, exportScript(buildSharePayload(a, r)));
        const dir = path.join(tmp, `${fx}-reftable`);
        const run = spawnSync('bash', [file, dir], {
          encoding: 'utf8',
          env: { ...process.env, GIT: reftableGit!.git },
        });
        expect(run.stderr).toBe('');
        expect(run.status).toBe(0);
        const rr = buildReport(analyzeFiles(collectInput(path.join(dir, 'reftable'))));
        expect(rr.tables.length).toBe(r.tables.length);
        // docs/share.md: each of ref, peeled, symref, tombstone within 1 % (at most 1 record for small tables)
        rr.tables.forEach((t, i) => {
          for (const k of ['ref', 'peeled', 'symref', 'tombstone'] as const) {
            const want = r.tables[i].records[k];
            expect(Math.abs(t.records[k] - want), `table ${i} ${k}`).toBeLessThanOrEqual(
              Math.max(1, Math.floor(0.01 * want)),
            );
          }
        });
      },
      120_000,
    );
  }
});

// ---------------------------------------------------------------------------------------------
// malformed links

function reasonOf(f: () => unknown): string {
  try {
    f();
    return 'ok';
  } catch (e) {
    if (e instanceof ShareLinkError) return e.reason;
    throw e;
  }
}
function messageOf(f: () => unknown): string {
  try {
    f();
    return '';
  } catch (e) {
    return (e as Error).message;
  }
}
/** The body of framed payload bytes (`varint length, body, CRC-32`). */
function bodyOf(bytes: Uint8Array): Uint8Array {
  const n = getVarint(bytes, 0, bytes.length);
  return bytes.slice(cursor.pos, cursor.pos + n);
}
/** A link around raw payload bytes (valid or not), as encodeShare wraps them. */
function wrap(bytes: Uint8Array, version = 1): string {
  return `${DEFAULT_SHARE_BASE}#s=${version}.${base64UrlEncode(deflateSync(bytes))}`;
}
/** Payload bytes with a body and a correct length and CRC-32. */
function framed(body: Uint8Array): Uint8Array {
  const len = encodeVarint(body.length);
  const out = new Uint8Array(len.length + body.length + 4);
  out.set(len);
  out.set(body, len.length);
  const c = crc32(body);
  out.set([c >>> 24, (c >>> 16) & 0xff, (c >>> 8) & 0xff, c & 0xff], len.length + body.length);
  return out;
}

describe('malformed, truncated and future-version links', () => {
  const { a, r } = load('nocompact-s3');
  const good = shareLink(a, r);
  if (!good.ok) throw new Error(good.error);

  it('not a link', () => {
    for (const t of ['', 'hello', 'http://127.0.0.1:4173/', 'http://127.0.0.1:4173/#x=1']) {
      expect(reasonOf(() => decodeShare(t))).toBe('not-a-link');
    }
    expect(messageOf(() => decodeShare('http://127.0.0.1:4173/'))).toMatch(/^not a refscope share link/);
  });

  it('a newer version says so, with its number, before reading anything else', () => {
    expect(reasonOf(() => decodeShare('#s=2.AAAA'))).toBe('future-version');
    expect(messageOf(() => decodeShare('#s=2.AAAA'))).toContain('made by a newer refscope (version 2)');
    expect(messageOf(() => decodeShare('#s=17.garbage!'))).toContain('(version 17)');
    try {
      decodeShare('#s=3.x');
    } catch (e) {
      expect((e as ShareLinkError).linkVersion).toBe(3);
    }
    // version 2 inside a version-1 frame: also "newer"
    const body = bodyOf(encodeSharePayload(decodeShare(good.link)));
    expect(body[0]).toBe(1);
    body[0] = 2;
    expect(messageOf(() => decodeShare(wrap(framed(body))))).toContain('made by a newer refscope (version 2)');
  });

  it('every truncation of the link is "link is truncated"', () => {
    const data = good.fragment.length - '#s=1.'.length;
    for (let k = 1; k <= data; k++) {
      const cut = good.link.slice(0, good.link.length - k);
      expect(
        reasonOf(() => decodeShare(cut)),
        `cut ${k}`,
      ).toBe('truncated');
    }
    expect(messageOf(() => decodeShare(good.link.slice(0, -10)))).toMatch(/^link is truncated/);
  });

  it('damage: bad characters, a changed byte (checksum), trailing data, inconsistent counts', () => {
    expect(reasonOf(() => decodeShare(good.link.slice(0, 40) + '*' + good.link.slice(41)))).toBe('damaged');
    expect(messageOf(() => decodeShare('#s=1.AB*D'))).toMatch(/^link is damaged: character "\*"/);
    expect(reasonOf(() => decodeShare('#s=x.AAAA'))).toBe('damaged');
    const bytes = encodeSharePayload(decodeShare(good.link));
    const flipped = bytes.slice();
    flipped[10] ^= 1;
    expect(messageOf(() => decodeShare(wrap(flipped)))).toBe(
      'link is damaged: the checksum does not match (a character was changed)',
    );
    const longer = new Uint8Array(bytes.length + 1);
    longer.set(bytes);
    expect(reasonOf(() => decodeShare(wrap(longer)))).toBe('damaged');
    // a consistent frame around an inconsistent payload: one overridden record too many
    const p = decodeShare(good.link);
    const bad = { ...p, overlaps: p.overlaps.map((o, i) => (i === 0 ? { ...o, count: o.count + 1 } : o)) };
    expect(reasonOf(() => decodeShare(wrap(encodeSharePayload(bad))))).toBe('damaged');
    // a table index past the table count
    const bad2 = {
      ...p,
      nsRecords: [
        ...p.nsRecords,
        { table: p.tables.length + 3, ns: 0, kind: 1 as const, records: 1, winners: 1, dangling: 0 },
      ],
    };
    expect(reasonOf(() => decodeShare(wrap(encodeSharePayload(bad2))))).toBe('damaged');
  });

  it('fuzz: 3,000 random edits of links and of payload bytes only ever give a ShareLinkError or the same payload', () => {
    let seed = 12345;
    const rnd = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.#=';
    const original = decodeShare(good.link);
    const body = bodyOf(encodeSharePayload(original));
    const seen: Record<string, number> = {};
    for (let k = 0; k < 3000; k++) {
      let text: string;
      if (k % 2 === 0) {
        const f = good.link;
        const i = rnd(f.length);
        const op = rnd(3);
        text =
          op === 0
            ? f.slice(0, i) + chars[rnd(chars.length)] + f.slice(i + 1)
            : op === 1
              ? f.slice(0, i) + f.slice(i + 1)
              : f.slice(0, i) + chars[rnd(chars.length)] + f.slice(i);
      } else {
        // structure fuzz: valid frame and checksum around an edited body
        const b = body.slice();
        const edits = 1 + rnd(3);
        for (let e = 0; e < edits; e++) b[rnd(b.length)] = rnd(256);
        text = wrap(framed(b));
      }
      let reason: string;
      try {
        const p = decodeShare(text);
        reason = 'ok';
        if (k % 2 === 0) expect(p).toEqual(original);
        // whatever decodes must be usable: figures, description, report, plan
        shareFigures(p);
        describeShare(p);
        reportFromShare(p);
        try {
          shapePlan(p);
        } catch (e) {
          if (!(e instanceof ShareLinkError)) throw e;
        }
      } catch (e) {
        if (!(e instanceof ShareLinkError)) throw new Error(`edit ${k}: ${(e as Error).stack}`, { cause: e });
        reason = e.reason;
      }
      seen[reason] = (seen[reason] ?? 0) + 1;
    }
    expect(seen.damaged).toBeGreaterThan(1000);
    expect(seen.truncated).toBeGreaterThan(0);
  });

  it('base64url: RFC 4648 vectors without padding', () => {
    // RFC 4648 §10: "f" → "Zg", "fo" → "Zm8", "foo" → "Zm9v", "foob" → "Zm9vYg"; 0xfb 0xff → "-_8" in base64url
    const enc = (s: string) => base64UrlEncode(new TextEncoder().encode(s));
    expect(['', 'f', 'fo', 'foo', 'foob', 'fooba', 'foobar'].map(enc)).toEqual([
      '',
      'Zg',
      'Zm8',
      'Zm9v',
      'Zm9vYg',
      'Zm9vYmE',
      'Zm9vYmFy',
    ]);
    expect(base64UrlEncode(Uint8Array.from([0xfb, 0xff]))).toBe('-_8');
    expect(Array.from(base64UrlDecode('-_8'))).toEqual([0xfb, 0xff]);
    expect(reasonOf(() => base64UrlDecode('Zm9vY'))).toBe('truncated');
  });
});

// ---------------------------------------------------------------------------------------------

describe('payload options', () => {
  it("simulation results: only the simulator's numbers-only layout travels; any other value is left out", () => {
    const { a, r } = load('basic-sha1');
    // Arbitrary JSON (names in it or not) never reaches a link, with names or without.
    const arbitrary = {
      gitVersion: '2.50',
      ms: [1.5, 2],
      slowest: 'refs/heads/master',
      master: 3,
      note: 'topic',
      id: '9cd2bf1a48a4',
      ok: true,
    };
    for (const withNames of [false, true]) {
      const res = shareLink(a, r, { simulation: arbitrary, withNames });
      if (!res.ok) throw new Error(res.error);
      expect(decodeShare(res.link).simulation).toBeNull();
    }
    // The layout: magic, workload [code, kind, operations, transactions], options, input, one model
    // (git-2.49 = MODEL_NAMES[0], applicable, 1.5 s, counts, phases [reads, 1.2 s]), no fixes, no curve.
    const layout = [
      SIM_SHARE_MAGIC,
      [1, 0, 1000, 1],
      [1, 1, 2],
      [0, 2, 3, 0],
      [[0, 1, 1.5, 10, 20, 30, 0, 2, 0, [3, 1.2]]],
      [],
      null,
      null,
    ];
    const res = shareLink(a, r, { simulation: layout });
    if (!res.ok) throw new Error(res.error);
    const p = decodeShare(res.link);
    expect(p.simulation).toEqual(layout);
    expect(leaks('basic-sha1', p, res.link)).toEqual([]);
    const d = sharedSimulation(reportFromShare(p).shared.simulation)!;
    expect(d.result.workload.description).toBe('re-create the 1,000 refs that tombstones hide, one transaction');
    expect(d.result.results.map((m) => [m.model, m.seconds, m.seeks])).toEqual([[MODEL_NAMES[0], 1.5, 10]]);
  });

  it('remote names are replaced unless with names (tombstones-50k: origin and bk2204 in recreate.stdin)', () => {
    const { a, r } = load('tombstones-50k');
    const res = shareLink(a, r);
    const rn = shareLink(a, r, { withNames: true });
    if (!res.ok || !rn.ok) throw new Error('link');
    expect(decodeShare(res.link).namespaces).toEqual([
      '(root)',
      'refs/heads',
      'refs/remotes/remote-1',
      'refs/remotes/remote-2',
      'refs/tags',
    ]);
    expect(decodeShare(rn.link).namespaces).toEqual([
      '(root)',
      'refs/heads',
      'refs/remotes/bk2204',
      'refs/remotes/origin',
      'refs/tags',
    ]);
  });

  it('with names, example names shrink until the link fits 8,000 characters', () => {
    const { a, r } = load('jgit-levels');
    const res = shareLink(a, r, { withNames: true, exampleNames: 5000 });
    expect(res.ok).toBe(true);
    if (!res.ok) return;
    expect(res.chars).toBeLessThanOrEqual(MAX_LINK_CHARS);
    const p = decodeShare(res.link);
    expect(p.examples.length).toBeGreaterThan(20);
    expect(p.examples.length).toBeLessThan(5000);
  });

  it('a payload too large for a link is an error result pointing to the file export', () => {
    const { a, r } = load('nocompact-s3');
    const p = buildSharePayload(a, r);
    // 3,000 tables of pseudo-random sizes: too many figures for 8,000 characters
    let seed = 7;
    const rnd = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed;
    };
    const tables = Array.from({ length: 3000 }, (_, i) => ({
      ...p.tables[i % p.tables.length],
      fileSize: 100 + (rnd() % 1_000_000),
      keyBytes: rnd() % 100_000,
    }));
    const big: SharePayload = { ...p, tables, nsRecords: [], overlaps: [], hiding: [], measured: null };
    const res = encodeShare(big);
    expect(res.ok).toBe(false);
    if (res.ok) return;
    expect(res.chars).toBeGreaterThan(MAX_LINK_CHARS);
    expect(res.error).toContain('use the file export');
  });

  it("a stack with an unreadable table: its size only; figures, diagnosis and synthetic stack as the sharer's", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-broken-'));
    try {
      fs.cpSync(path.join(FX, 'nocompact-s2/reftable'), dir, { recursive: true });
      const names = fs.readFileSync(path.join(dir, 'tables.list'), 'utf8').trim().split('\n');
      const f = path.join(dir, names[5]);
      const b = fs.readFileSync(f);
      b[0] = 0x58; // magic 'XEFT'
      fs.writeFileSync(f, b);
      const a = analyzeFiles(collectInput(dir));
      const r = buildReport(a);
      expect(r.tables[5].error).not.toBeNull();
      const res = shareLink(a, r);
      if (!res.ok) throw new Error(res.error);
      const p = decodeShare(res.link);
      expect(p.tables[5]).toMatchObject({ unreadable: true, fileSize: 300, version: null }); // tables.txt: 300 bytes
      const s = reportFromShare(p);
      expect(s.stack).toEqual(r.stack);
      let d = r.diagnosis;
      r.tables.forEach((t, i) => {
        d = d.split(t.name).join(s.tables[i].name);
      });
      expect(s.diagnosis).toBe(p.measured?.diagnosis ? SHARED_DIAGNOSIS_PREFIX + d : d);
      expect(s.diagnosis).toContain('1 table could not be read');
      const sr = buildReport(analyzeFiles(syntheticStack(p).files));
      expect(sr.tables.map((t) => !!t.error)).toEqual(r.tables.map((t) => !!t.error));
      expect(sr.stack!.live).toBe(r.stack!.live);
      expect(exportScript(p)).toContain('# table 6 of 19: unreadable in the original (300 bytes): not reproduced');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a files-backend payload (live refs per namespace) round-trips', () => {
    const p: SharePayload = {
      schema: 'refscope.share/1',
      version: 1,
      generator: 'refscope 0.1.0',
      kind: 'packed-refs',
      withNames: false,
      factor: 2,
      namespaces: ['refs/heads', 'refs/tags'],
      tables: [],
      nsRecords: [],
      overlaps: [],
      hiding: [],
      liveByNs: [3, 5],
      findings: { warnings: 1, errors: 0, infos: 0, messages: null },
      examples: [],
      simulation: null,
      measured: null,
    };
    const res = encodeShare(p);
    if (!res.ok) throw new Error(res.error);
    const q = decodeShare(res.link);
    expect(q).toEqual(p);
    const rep = reportFromShare(q);
    expect(rep.stack).toBeNull();
    expect(rep.shared.namespaces).toEqual([
      { name: 'refs/heads', live: 3 },
      { name: 'refs/tags', live: 5 },
    ]);
    expect(analysisRefs(analyzeFiles(syntheticStack(q).files)).length).toBe(8);
    expect(describeShare(q).summary).toBe('packed-refs file: 8 live refs');
  });

  // packed-refs/gitgit and files/basic: only when analyzeFiles reads the files backend
  const filesSupported = (() => {
    try {
      analyzeFiles(collectInput(path.join(__dirname, 'fixtures/files/basic')));
      return true;
    } catch {
      return false;
    }
  })();
  for (const [dir, fx] of [
    ['packed-refs/gitgit', 'gitgit'],
    ['files/basic', 'basic'],
  ] as const) {
    it.skipIf(!filesSupported)(`${dir}: no names or object ids in the link`, () => {
      const a = analyzeFiles(collectInput(path.join(__dirname, 'fixtures', dir)));
      const res = shareLink(a, buildReport(a));
      if (!res.ok) throw new Error(res.error);
      const p = decodeShare(res.link);
      const root = path.join(__dirname, 'fixtures', dir);
      const names = fs
        .readFileSync(path.join(root, 'truth/refs.txt'), 'latin1')
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' ')[1]);
      const strs = strings(p);
      for (const n of names)
        for (const c of components(n)) expect(strs.some((s) => s.split('/').includes(c))).toBe(false);
      expect(shareFigures(p).live).toBe(names.length);
      void fx;
    });
  }
});

// ---------------------------------------------------------------------------------------------

/** Markdown text with its code spans removed (a run of n backticks up to the next run of exactly n). */
function stripCodeSpans(md: string): string {
  let out = '';
  let i = 0;
  while (i < md.length) {
    if (md[i] === '\\' && md[i + 1] === '`') {
      out += md.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (md[i] !== '`') {
      out += md[i++];
      continue;
    }
    let n = 0;
    while (md[i + n] === '`') n++;
    let j = i + n;
    let close = -1;
    while (j < md.length) {
      if (md[j] === '`') {
        let k = 0;
        while (md[j + k] === '`') k++;
        if (k === n) {
          close = j;
          break;
        }
        j += k;
      } else j++;
    }
    if (close < 0) {
      out += md.slice(i, i + n);
      i += n;
      continue;
    }
    i = close + n;
  }
  return out;
}

describe('exports', () => {
  it('JSON is the refscope.report/1 document', () => {
    const { r } = load('basic-sha1');
    expect(JSON.parse(exportJson(r))).toEqual(JSON.parse(JSON.stringify(r)));
  });

  it('Markdown escapes, by hand', () => {
    expect(mdText('<b>*x*</b> & [a](b) | `c` ~d~ $e$ _f_ \\')).toBe(
      '&lt;b&gt;\\*x\\*&lt;/b&gt; &amp; \\[a\\](b) \\| \\`c\\` \\~d\\~ \\$e\\$ \\_f\\_ \\\\',
    );
    expect(mdText('# title')).toBe('\\# title');
    expect(mdText('12. item')).toBe('12\\. item');
    // the line break becomes the text \u{a}; its backslash is escaped like any other
    expect(mdText('a\nb')).toBe('a\\\\u{a}b');
    expect(mdCode('plain')).toBe('`plain`');
    expect(mdCode('a`b')).toBe('``a`b``');
    expect(mdCode('`x')).toBe('`` `x ``');
    expect(mdCode('x|y')).toBe('`x\\|y`');
    expect(mdCode('x|y', false)).toBe('`x|y`');
    expect(mdCode('<img src=x>')).toBe('`<img src=x>`');
  });

  it('Markdown with hostile names renders them inert', () => {
    const { r } = load('basic-sha1');
    const evil = '<img src=x onerror=alert(1)>*em*[link](javascript:alert(1))|`tick`';
    const rep: Report = {
      ...r,
      input: { kind: 'reftable', description: '[click](http://evil.example/)\n# injected heading' },
      tables: r.tables.map((t, i) => (i === 0 ? { ...t, name: evil } : t)),
      findings: [
        {
          severity: 'warning',
          file: 'reftable/<script>',
          offset: 3,
          message: 'record "refs/heads/<script>alert(1)</script>" is odd\n- injected item',
        },
      ],
      diagnosis: `${r.diagnosis} Table ${evil} could not be read.`,
    };
    const md = exportMarkdown(rep);
    // outside code spans: no raw HTML, no link or image syntax, no emphasis markers
    const outside = stripCodeSpans(md);
    expect(outside).not.toMatch(/<[a-z/]/i);
    expect(outside).not.toMatch(/(^|[^\\])\]\(/);
    expect(outside).not.toMatch(/(^|[^\\*])\*em/);
    // hostile text never starts a line (no injected heading or list item)
    expect(md.split('\n').some((l) => l.startsWith('# injected') || l.startsWith('- injected'))).toBe(false);
    // table rows keep their column count: 15 unescaped pipes per row of the tables table
    const row = md.split('\n').find((l) => l.startsWith('| 0 | '))!;
    expect(row.replace(/\\\|/g, '').split('|').length - 1).toBe(15);
    expect(row).toContain(mdCode(evil));
  });

  it('Markdown of a shared report says so', () => {
    const { a, r } = load('recreate-1000');
    const res = shareLink(a, r);
    if (!res.ok) throw new Error(res.error);
    const md = exportMarkdown(reportFromShare(decodeShare(res.link)));
    expect(md).toContain('shared report (no files)');
    expect(md).toContain('| live refs | 1 |');
    expect(md).toContain('| winning tombstones | 1,001 |');
  });
});

// ---------------------------------------------------------------------------------------------

describe('CLI', () => {
  // No state file of a `refscope serve` running elsewhere on the machine: the default base.
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-state-'));
  afterAll(() => fs.rmSync(state, { recursive: true, force: true }));
  const run = async (argv: string[]) => {
    const r = await withEnv({ REFSCOPE_STATE_DIR: state }, () => refscope(argv));
    return { code: r.code, out: r.stdout, err: r.stderr };
  };
  // recreate-1000 (fixtures/README.md): two tables, 1,001 refs created and then deleted.
  const fx = path.join(FX, 'recreate-1000/reftable');

  it('share prints the link; --base and --with-names', async () => {
    const r1 = await run(['share', fx]);
    expect(r1.code).toBe(0);
    expect(r1.out).toMatch(/^http:\/\/127\.0\.0\.1:4173\/#s=1\.[A-Za-z0-9_-]+\n$/);
    expect(r1.err).toContain('Ref names: none.');
    expect(decodeShare(r1.out.trim()).tables.length).toBe(2);
    const r2 = await run(['share', fx, '--base', 'https://example.org/refscope/#old', '--with-names']);
    expect(r2.out.startsWith('https://example.org/refscope/#s=1.')).toBe(true);
    expect(decodeShare(r2.out.trim()).withNames).toBe(true);
    expect((await run(['share'])).code).toBe(2);
  });

  it('export json | md | script, from files and from a link', async () => {
    const j = await run(['export', fx, '--format', 'json']);
    expect(j.code).toBe(0);
    expect(JSON.parse(j.out).schema).toBe('refscope.report/1');
    const m = await run(['export', fx, '--format', 'md']);
    expect(m.out.startsWith('# refscope report\n')).toBe(true);
    const s = await run(['export', fx, '--format', 'script']);
    expect(s.out.startsWith('#!/usr/bin/env bash\n')).toBe(true);
    const link = (await run(['share', fx])).out.trim();
    const fromLink = await run(['export', link, '--format', 'md']);
    expect(fromLink.code).toBe(0);
    expect(fromLink.out).toContain('shared report (no files)');
    // A file holding the link reads as the link (a link can be longer than one argument may be).
    const held = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-link-'));
    fs.writeFileSync(path.join(held, 'link.txt'), link + '\n');
    const fromFile = await run(['export', path.join(held, 'link.txt'), '--format', 'md']);
    expect([fromFile.code, fromFile.out]).toEqual([0, fromLink.out]);
    fs.rmSync(held, { recursive: true });
    const scriptFromLink = await run(['export', link, '--format', 'script']);
    expect(parseScript(scriptFromLink.out).map((t) => t.counts.delete)).toEqual([0, 1001]);
    const bad = await run(['export', link.slice(0, -20), '--format', 'md']);
    expect(bad.code).toBe(3);
    expect(bad.err).toMatch(
      /^refscope: \(link\): offset 0: expected a refscope share link \(link is (truncated|damaged)[^\n]*\)\n$/,
    );
    expect((await run(['export', fx, '--format', 'pdf'])).code).toBe(2);
  });
});

// ---------------------------------------------------------------------------------------------

describe('hostile links (security review: script injection, count bombs, measured extras)', () => {
  /** A link of basic-sha1's payload with one change (as the tester's mklink.mts makes them). */
  function mutated(change: (p: SharePayload) => void, fx = 'basic-sha1'): string {
    const { a, r } = load(fx);
    const p = structuredClone(buildSharePayload(a, r));
    change(p);
    return DEFAULT_SHARE_BASE + shareFragment(p);
  }
  /** Decode a link and use it as the app does; a ShareLinkError (damaged / too-large) or a result (hangs are the fuzz harness's per-case deadline). */
  function bounded(link: string, synthetic = false): string {
    let outcome = 'ok';
    try {
      const p = decodeShare(link);
      reportFromShare(p);
      describeShare(p);
      if (synthetic) syntheticStack(p);
    } catch (e) {
      if (!(e instanceof ShareLinkError)) throw e;
      expect(['damaged', 'too-large']).toContain(e.reason);
      outcome = e.reason;
    }
    return outcome;
  }
  const HOSTILE_NS = [
    'refs/$(touch /tmp/refscope-pwned)',
    'refs/`touch /tmp/refscope-pwned`',
    'refs/a;touch /tmp/refscope-pwned',
    'refs/a\ntouch /tmp/refscope-pwned',
    "refs/it's",
    'refs/"q"',
    'refs/a b',
    'refs/a|b',
    'refs/a&b',
    'refs/$HOME',
    'refs/..',
    'refs/x.lock',
    'refs/.hidden',
    'refs/a\\b',
    'refs/heads/x/y',
    '$(id)',
    '',
    'refs/',
    'refs//x',
  ];
  /** Every line of a script that carries a payload value: only quoted names and plain integers. */
  function checkScriptLines(script: string): void {
    for (const line of script.split('\n').map((l) => l.trim())) {
      if (line.startsWith('refs ') && !line.startsWith('refs()'))
        expect(line).toMatch(/^refs (update|peeled|symref|dangling|delete) '[A-Za-z0-9._/-]+' \d+ \d+ '[-x]*' \d+$/);
      if (line.startsWith('one ')) expect(line).toMatch(/^one (update|peeled|symref|dangling|delete) '[A-Z_]+' \d+$/);
      if (line.startsWith('NC=')) expect(line).toMatch(/^NC=\d+$/);
      if (line.startsWith('TARGET=')) expect(line).toMatch(/^TARGET='[A-Za-z0-9._/-]+'$/);
    }
  }

  it('namespace names: validated at decode (else refs/other-N) and quoted in the script', () => {
    expect(isSafeNamespace('refs/heads')).toBe(true);
    expect(isSafeNamespace('refs/remotes/origin')).toBe(true);
    expect(isSafeNamespace('(root)')).toBe(true);
    for (const ns of HOSTILE_NS) {
      expect(isSafeNamespace(ns)).toBe(false);
      const link = mutated((p) => {
        p.namespaces[1] = ns;
      });
      const p = decodeShare(link);
      expect(p.namespaces).toEqual(['(root)', 'refs/other-1', 'refs/remotes/remote-1', 'refs/tags']);
      const script = exportScript(p);
      expect(script).not.toContain('refscope-pwned');
      if (/[^A-Za-z0-9._/-]/.test(ns)) expect(script).not.toContain(ns);
      checkScriptLines(script);
      expect(spawnSync('bash', ['-n'], { input: script }).status).toBe(0);
      // a payload built in memory (never decoded) gets the same treatment
      const { a, r } = load('basic-sha1');
      const q = structuredClone(buildSharePayload(a, r));
      q.namespaces[1] = ns;
      const s2 = exportScript(q);
      expect(s2).not.toContain('refscope-pwned');
      checkScriptLines(s2);
    }
    // a replacement never collides with a real refs/other-N
    const p = decodeShare(
      mutated((x) => {
        x.namespaces[1] = 'refs/other-1';
        x.namespaces[2] = 'refs/$(id)';
      }),
    );
    expect(p.namespaces).toEqual(['(root)', 'refs/other-1', 'refs/other-2', 'refs/tags']);
    expect(
      reasonOf(() =>
        decodeShare(
          mutated((x) => {
            x.namespaces[2] = x.namespaces[1];
          }),
        ),
      ),
    ).toBe('damaged');
  });

  it("distinctOids (the script's NC loop) is at most the table's values and 10,000,000", () => {
    expect(
      reasonOf(() =>
        decodeShare(
          mutated((p) => {
            for (const t of p.tables) t.distinctOids = 2 ** 50;
          }),
        ),
      ),
    ).toBe('damaged');
    expect(
      reasonOf(() =>
        decodeShare(
          mutated((p) => {
            p.tables[0].distinctOids += 100;
          }),
        ),
      ),
    ).toBe('damaged');
    const { a, r } = load('basic-sha1');
    const q = structuredClone(buildSharePayload(a, r));
    q.tables[0].distinctOids = 1e12;
    expect(() => exportScript(q)).toThrow(ShareLinkError);
    const ok = exportScript(decodeShare(mutated(() => {})));
    expect(ok).toMatch(/^NC=\d+$/m);
  });

  it('count bombs decode to "damaged" / "too-large"', () => {
    const last = (p: SharePayload) => p.nsRecords.find((e) => e.table === p.tables.length - 1)!;
    const bombs: [string, (p: SharePayload) => void][] = [
      [
        'sectionBlocks 2^40',
        (p) => {
          p.tables[0].sectionBlocks.ref = 2 ** 40;
        },
      ],
      [
        'sectionBlocks 1e8',
        (p) => {
          p.tables[0].sectionBlocks.ref = 1e8;
        },
      ],
      [
        'section bytes past the file',
        (p) => {
          p.tables[0].sectionBytes.log = p.tables[0].fileSize + 1;
        },
      ],
      [
        'winners +1e9',
        (p) => {
          const e = last(p);
          e.records += 1e9;
          e.winners += 1e9;
        },
      ],
      [
        'winners +5e6',
        (p) => {
          const e = last(p);
          e.records += 5e6;
          e.winners += 5e6;
        },
      ],
      [
        'winners +3e7',
        (p) => {
          const e = last(p);
          e.records += 3e7;
          e.winners += 3e7;
        },
      ],
      [
        'winners +3e7, huge file',
        (p) => {
          const e = last(p);
          e.records += 3e7;
          e.winners += 3e7;
          p.tables[p.tables.length - 1].fileSize = 2 ** 45;
        },
      ],
      [
        'logs 2^40',
        (p) => {
          for (const t of p.tables) t.logs = 2 ** 40;
        },
      ],
      [
        'logs 6e7, huge file',
        (p) => {
          p.tables[0].logs = 6e7;
          p.tables[0].fileSize = 2 ** 45;
        },
      ],
      [
        'obj records',
        (p) => {
          p.tables[0].objRecords = 2 ** 40;
        },
      ],
      [
        'index records',
        (p) => {
          p.tables[0].indexRecords = 2 ** 40;
        },
      ],
      [
        'blocks 3e6, huge files',
        (p) => {
          for (const t of p.tables) {
            t.fileSize = 2 ** 45;
            t.sectionBlocks.ref = 3e6;
          }
        },
      ],
    ];
    for (const [what, change] of bombs) expect([what, bounded(mutated(change), true)]).not.toEqual([what, 'ok']);
    // 100,000+ tables: refused by the decoder
    const many = mutated((p) => {
      const t = p.tables[0];
      p.tables = Array.from({ length: 100_001 }, () => structuredClone(t));
      p.nsRecords = [];
      p.overlaps = [];
      p.hiding = [];
    });
    expect(['damaged', 'too-large']).toContain(reasonOf(() => decodeShare(many)));
  });

  // The crafted links of the security review and the decoder fuzz crashers, stored in the
  // repository (test/e2e/links.test.ts opens the same files in the browser). Whatever a link
  // holds, decoding and using it ends in a ShareLinkError or a report, a synthetic stack and a
  // repro script whose every payload line is a quoted name or a plain integer.
  const stored = ['share-links', 'share-fuzz'].flatMap((dir) =>
    fs
      .readdirSync(fixturePath('hostile', dir))
      .filter((f) => f.endsWith('.txt'))
      .sort()
      .map((f) => {
        const text = fs.readFileSync(fixturePath('hostile', dir, f), 'utf8');
        return { name: `${dir}/${f}`, link: DEFAULT_SHARE_BASE + text.slice(text.indexOf('#s=')).split(/\s/)[0] };
      }),
  );
  // What these links are by construction (their names): broken link text, a deflate bomb, an
  // unknown version, or more tables than a link may carry; none may decode.
  const BROKEN_BY_NAME =
    /^share-links\/(bad-base64|deflate-bomb|empty-data|not-deflate|truncated|version-|inner-version-|tables-100k)/;

  it('the stored crafted links are in the repository', () => {
    expect(stored.length).toBeGreaterThanOrEqual(60);
    expect(stored.filter((c) => BROKEN_BY_NAME.test(c.name)).length).toBe(10);
  });

  for (const c of stored) {
    it(`stored ${c.name}: a ShareLinkError, or a bounded report, synthetic stack and quoted script`, () => {
      let p: SharePayload;
      try {
        p = decodeShare(c.link);
        reportFromShare(p);
        describeShare(p);
        syntheticStack(p);
      } catch (e) {
        if (!(e instanceof ShareLinkError)) throw e;
        return;
      }
      expect(BROKEN_BY_NAME.test(c.name), 'a broken link decoded').toBe(false);
      expect(p.namespaces.every(isSafeNamespace)).toBe(true);
      if (p.kind !== 'reftable') return;
      let script: string;
      try {
        script = exportScript(p);
      } catch (e) {
        if (!(e instanceof ShareLinkError)) throw e;
        return;
      }
      checkScriptLines(script);
    });
  }

  it('plausible but large: the report is bounded, the synthetic stack refuses past 5,000,000 records', () => {
    const big = (n: number) =>
      mutated((p) => {
        const t = p.tables.length - 1;
        const e = p.nsRecords.find((x) => x.table === t)!;
        e.records += n;
        e.winners += n;
        p.tables[t].fileSize = 2 ** 40;
      });
    const link = big(1_000_000);
    expect(link.length).toBeLessThan(400);
    const p = decodeShare(link);
    expect(reportFromShare(p).stack!.live).toBe(1_000_000 + 9);
    // too many winners for a shared report: refused (and no link is made for such a stack)
    const huge = decodeShare(big(MAX_SHARED_REPORT_WINNERS));
    expect(reasonOf(() => reportFromShare(huge))).toBe('too-large');
    const enc = encodeShare(huge);
    expect(enc.ok).toBe(false);
    // the browser's synthetic stack: refused past MAX_BROWSER_SYNTHETIC_RECORDS, pointing to the script
    const logs = decodeShare(
      mutated((x) => {
        x.tables[0].fileSize = 2 ** 40;
        x.tables[0].logs = MAX_BROWSER_SYNTHETIC_RECORDS;
      }),
    );
    let err: unknown;
    try {
      syntheticStack(logs);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ShareLinkError);
    expect((err as ShareLinkError).reason).toBe('too-large');
    expect((err as ShareLinkError).message).toContain('too large to rebuild in the browser; use the repro script');
    // unreadable tables are zero bytes of their size: bounded too
    const unread = decodeShare(
      mutated((x) => {
        x.tables[0] = {
          ...x.tables[0],
          unreadable: true,
          version: null,
          hashId: null,
          fileSize: 2 ** 40,
          blockSize: 0,
          minUpdateIndex: 0,
          maxUpdateIndex: 0,
          logs: 0,
          logDeletions: 0,
          objRecords: 0,
          indexRecords: 0,
          refIndexLevels: 0,
          keyBytes: 0,
          distinctOids: 0,
          restartInterval: 16,
          sectionBytes: { ref: 0, refIndex: 0, obj: 0, objIndex: 0, log: 0, logIndex: 0 },
          sectionBlocks: { ref: 0, refIndex: 0, obj: 0, objIndex: 0, log: 0, logIndex: 0 },
        };
        x.nsRecords = x.nsRecords.filter((e) => e.table !== 0);
        x.overlaps = x.overlaps.filter((o) => o.older !== 0);
        x.measured = null;
      }),
    );
    expect(reasonOf(() => syntheticStack(unread))).toBe('too-large');
  });

  it('measured extras: segments within the tables, numbers finite and non-negative, known fields only', () => {
    const withMeasured = (m: unknown) =>
      mutated((p) => {
        p.measured = m as SharePayload['measured'];
      });
    const bad = [
      { compaction: { segment: { start: 99, end: 1e9 } }, compactionAbsent: [], diagnosis: null },
      { compaction: { segment: { start: 1, end: 0 } }, compactionAbsent: [], diagnosis: null },
      {
        compaction: { byRecords: { values: [1, 2], segment: { start: 0, end: 2 }, reasons: [] } },
        compactionAbsent: [],
        diagnosis: null,
      },
      {
        compaction: { afterAuto: { tables: -5, bytes: 1, records: 1, newTableBytes: 1, newTableRecords: 1 } },
        compactionAbsent: [],
        diagnosis: null,
      },
      {
        compaction: {
          afterPackRefs: { tables: 1, bytes: 'x<img src=x>', records: 1, newTableBytes: 1, newTableRecords: 1 },
        },
        compactionAbsent: [],
        diagnosis: null,
      },
      {
        compaction: { afterPackRefs: { tables: 3, bytes: 1, records: 1, newTableBytes: 1, newTableRecords: 1 } },
        compactionAbsent: [],
        diagnosis: null,
      },
      { compaction: { bySize: { values: [-1, 2], reasons: [] } }, compactionAbsent: [], diagnosis: null },
      { compaction: { factor: 1 }, compactionAbsent: [], diagnosis: null },
      { compaction: { polluted: 1 }, compactionAbsent: [], diagnosis: null },
      { compaction: {}, compactionAbsent: ['__proto__'], diagnosis: null },
      { compaction: JSON.parse('{"__proto__":{"polluted":1}}'), compactionAbsent: [], diagnosis: null },
      { compaction: {}, compactionAbsent: [], diagnosis: 'x'.repeat(5000) },
    ];
    for (const m of bad)
      expect([JSON.stringify(m).slice(0, 80), reasonOf(() => decodeShare(withMeasured(m)))]).toEqual([
        JSON.stringify(m).slice(0, 80),
        'damaged',
      ]);
    // valid extras are kept
    const good = {
      compaction: {
        segment: { start: 0, end: 1 },
        afterAuto: { tables: 1, bytes: 900, records: 18, newTableBytes: 900, newTableRecords: 18 },
      },
      compactionAbsent: [],
      diagnosis: null,
    };
    const c = reportFromShare(decodeShare(withMeasured(good))).stack!.compaction as unknown as Record<string, unknown>;
    expect(c.segment).toEqual({ start: 0, end: 1 });
    // a carried diagnosis is marked as the sharer's text, never shown as refscope's own
    const own = reportFromShare(
      decodeShare(
        mutated((p) => {
          p.measured = null;
        }),
      ),
    ).diagnosis;
    const d = reportFromShare(
      decodeShare(withMeasured({ compaction: {}, compactionAbsent: [], diagnosis: 'Everything is fine, run rm -rf.' })),
    ).diagnosis;
    expect(d).toBe(SHARED_DIAGNOSIS_PREFIX + 'Everything is fine, run rm -rf.');
    expect(d).not.toBe(own);
  });
});

// ---------------------------------------------------------------------------------------------
// A link refscope makes, refscope opens

describe('every link refscope makes opens', () => {
  const oid = (i: number) => Uint8Array.from({ length: 20 }, (_, k) => (i * 37 + k * 11 + 1) & 255);
  /** A stack of `tables` written tables (refs as given) and `unreadable` tables of garbage bytes. */
  function stackOf(
    refs: { name: string; type: 0 | 1 | 3; target?: string }[][],
    unreadable: number,
  ): { a: Analysis; r: Report } {
    const files: { path: string; source: ReturnType<typeof memorySource> }[] = [];
    const names: string[] = [];
    refs.forEach((list, t) => {
      const recs = [...list]
        .sort((x, y) => (x.name < y.name ? -1 : 1))
        .map((x, i) => ({
          name: x.name,
          updateIndex: t + 1,
          type: x.type,
          value: x.type === 1 ? oid(i) : undefined,
          target: x.target,
        }));
      const bytes = writeTable(recs, [], { minUpdateIndex: t + 1, maxUpdateIndex: t + 1, blockSize: 65536 });
      const name = tableFileName(t + 1, t + 1, t);
      names.push(name);
      files.push({ path: `reftable/${name}`, source: memorySource(bytes) });
    });
    for (let k = 0; k < unreadable; k++) {
      const name = tableFileName(1000 + k, 1000 + k, k);
      names.push(name);
      files.push({
        path: `reftable/${name}`,
        source: memorySource(new Uint8Array([0x52, 0x45, 0x46, 0x54, 9, k & 255])),
      });
    }
    files.push({
      path: 'reftable/tables.list',
      source: memorySource(new TextEncoder().encode(names.map((x) => x + '\n').join(''))),
    });
    const a = analyzeFiles(files);
    return { a, r: buildReport(a) };
  }
  /** The link opens (decode and rebuild), or no link is made at all: never a link that fails to open. */
  function opens(a: Analysis, r: Report, withNames: boolean): boolean {
    const res = shareLink(a, r, { withNames });
    if (!res.ok) return false;
    const p = decodeShare(res.link);
    reportFromShare(p);
    return true;
  }

  it('a 10 KB symref target (a finding over 8,192 bytes): the link opens, the finding cut with a mark', () => {
    const enc = (s: string) => memorySource(new TextEncoder().encode(s));
    // A files-backend HEAD pointing at a 10,000-byte name: its finding quotes the target (twice).
    const a = analyzeFiles([
      { path: '.git/HEAD', source: enc('ref: refs/heads/' + 'x'.repeat(10_000) + '\n') },
      { path: '.git/refs/heads/main', source: enc('1111111111111111111111111111111111111111\n') },
      { path: '.git/config', source: enc('[core]\n\trepositoryformatversion = 0\n') },
    ]);
    const r = buildReport(a);
    expect(r.findings.some((f) => f.message.length > 8192)).toBe(true);
    const res = shareLink(a, r, { withNames: true });
    if (!res.ok) throw new Error(res.error);
    const p = decodeShare(res.link);
    // messages are byte strings (UTF-8 bytes as chars): the cut mark is its three bytes
    const long = p.findings.messages!.find((m) => m.message.endsWith(textToKey('…')));
    expect(long).toBeDefined();
    expect(long!.message.length).toBeLessThanOrEqual(8192);
    expect(opens(a, r, false)).toBe(true);
  });

  it('260 unreadable tables (a diagnosis over 4,000 characters): the link opens, the diagnosis cut with a mark', () => {
    const { a, r } = stackOf([[{ name: 'refs/heads/main', type: 1 }]], 260);
    expect(r.tables.filter((t) => t.error).length).toBe(260);
    for (const withNames of [false, true]) {
      const res = shareLink(a, r, { withNames });
      if (!res.ok) throw new Error(res.error);
      const rep = reportFromShare(decodeShare(res.link));
      expect(rep.tables.length).toBe(261);
      if (rep.diagnosis.startsWith(SHARED_DIAGNOSIS_PREFIX))
        expect(rep.diagnosis.length).toBeLessThanOrEqual(SHARED_DIAGNOSIS_PREFIX.length + 4000);
    }
  });

  it('every fixture, with and without names', () => {
    for (const fx of fixtures) {
      const { a, r } = load(fx);
      for (const withNames of [false, true])
        expect(opens(a, r, withNames) || !shareLink(a, r, { withNames }).ok, `${fx} ${withNames}`).toBe(true);
    }
  });

  it('generated stacks: long names and targets, many namespaces, unreadable tables (fixed seed)', () => {
    const seg = fc.stringMatching(/^[a-z0-9._-]{1,12}$/);
    const name = fc.oneof(
      fc.tuple(fc.constantFrom('heads', 'tags', 'remotes/o', 'x-ns', 'weird'), seg).map(([ns, s]) => `refs/${ns}/${s}`),
      fc.tuple(seg, fc.nat({ max: 12_000 })).map(([s, k]) => `refs/${s}/${'y'.repeat(k)}`),
    );
    const ref = fc
      .record({ name, type: fc.constantFrom(0 as const, 1 as const, 3 as const), k: fc.nat({ max: 12_000 }) })
      .map((x) => ({ name: x.name, type: x.type, target: x.type === 3 ? 'refs/heads/' + 'z'.repeat(x.k) : undefined }));
    const table = fc.uniqueArray(ref, { selector: (x) => x.name, minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(
        fc.array(table, { minLength: 1, maxLength: 5 }),
        fc.nat({ max: 40 }),
        fc.boolean(),
        (tables, unreadable, withNames) => {
          const { a, r } = stackOf(tables, unreadable);
          const res = shareLink(a, r, { withNames });
          if (!res.ok) return; // no link at all (too long): the file export is offered instead
          reportFromShare(decodeShare(res.link));
        },
      ),
      { numRuns: 60, seed: 20261201 },
    );
  });
});

describe('simulation results in a link', () => {
  it("the link layout carries the simulator's fix labels and numbers (CLI and app alike)", () => {
    const { a } = load('recreate-1000');
    const result = simulate(a, 'recreate');
    // Every fix label the simulator gives is the engine's label for that fix code.
    for (const f of result.fixes) expect(FIX_LABELS[f.fix], f.fix).toBe(f.label);
    const layout = simulationFromDocument(JSON.parse(JSON.stringify(result)), 'recreate')!;
    expect(layout).not.toBeNull();
    const d = sharedSimulation(layout)!;
    expect(d.result.results.map((m) => m.model)).toEqual(result.results.map((m) => m.model));
    expect(d.result.workload.operations).toBe(result.workload.operations);
    // A layout with absurd figures comes back clamped: finite curve values, bounded seconds.
    const absurd = structuredClone(layout) as unknown[];
    (absurd[7] as unknown[][]).forEach((s) => {
      s[3] = 1.5e308;
    });
    (absurd[4] as unknown[][]).forEach((m) => {
      m[2] = 1e308;
    });
    const c = sharedSimulation(absurd)!;
    for (const s of c.result.curve!.series)
      for (const v of [...s.sameShape, ...s.fixedStack]) expect(Number.isFinite(v) && v <= 1e12).toBe(true);
    for (const m of c.result.results) expect(m.seconds === null || m.seconds <= 1e12).toBe(true);
    // Not the simulator's document: nothing travels.
    expect(simulationFromDocument({ schema: 'x' })).toBeNull();
  });
});
