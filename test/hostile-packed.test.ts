/**
 * Large packed-refs files: 100,000 lines of one long name, and 100,000 distinct long names sharing
 * a 180-byte prefix (the hostile set's million-line files, a tenth of them). Each test counts the
 * work (names decoded to strings, finding messages built, links verified), never the time: a
 * string or a message per line, or a second verification of one link, fails them.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { memorySource, type InputFile } from '../src/engine/basics.ts';
import { analyzeFiles } from '../src/engine/analyze.ts';
import { buildReport } from '../src/engine/report.ts';
import {
  filesRefList,
  filesRefs,
  loadFilesRepo,
  packedWork,
  parsePackedRefs,
  MAX_NAMES_LISTED,
} from '../src/engine/files.ts';
import { shareLink } from '../src/engine/share/build.ts';
import { verifyWork } from '../src/engine/share/link.ts';
import { EngineSession } from '../src/engine/session/index.ts';
import { collectInput } from '../src/cli/node-input.ts';
import { realGits, gitSkipReason, gitRepo } from './lib/realgit.ts';

const HDR = '# pack-refs with: peeled fully-peeled sorted \n';
const LINES = 100_000;
const enc = (s: string) => new TextEncoder().encode(s);
const file = (p: string, bytes: Uint8Array): InputFile => ({ path: p, source: memorySource(bytes) });

/** `lines` lines of one 200-byte name, as make.ts's packed-1m-same writes them (a tenth). */
function sameName(oid = 'a'.repeat(40), lines = LINES): { text: string; name: string } {
  const name = 'refs/heads/' + 'n'.repeat(189);
  return { text: HDR + `${oid} ${name}\n`.repeat(lines), name };
}

/** `LINES` distinct names under a 180-byte prefix, in order (make.ts's packed-1m-distinct, a tenth). */
function distinctNames(oid?: string, lines = LINES): { text: string; names: string[] } {
  const pre = 'refs/heads/' + 'p'.repeat(180) + '/';
  const names: string[] = [];
  const out: string[] = [HDR];
  for (let i = 0; i < lines; i++) {
    const n = pre + i.toString().padStart(7, '0');
    names.push(n);
    out.push(`${oid ?? i.toString(16).padStart(40, '0')} ${n}\n`);
  }
  return { text: out.join(''), names };
}

describe('packed-refs of 100,000 lines: work per line is a count, not a string', () => {
  it('one name on every line: one duplicate finding, a handful of names decoded', () => {
    const { text, name } = sameName();
    const before = { ...packedWork };
    const pr = parsePackedRefs('packed-refs', enc(text));
    // By hand: the header is line 1, the name on lines 2..100,001; the finding, at line 3, lists
    // the first ten lines and the 99,990 others as a count.
    expect(pr.recordCount).toBe(LINES);
    expect(pr.duplicates).toEqual([name]);
    expect(pr.findingCounts.packedRefDuplicate).toBe(1);
    const dup = pr.findings.find((f) => f.code === 'packedRefDuplicate')!;
    expect(dup.line).toBe(3);
    expect(dup.message).toContain('(lines 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 99,990 more)');
    // The name decoded for the duplicate list, the first line out of order and the line before
    // it, and the finding's message: 4 (one per line would be 100,000).
    expect(packedWork.namesDecoded - before.namesDecoded).toBeLessThanOrEqual(4);
    expect(packedWork.messagesBuilt - before.messagesBuilt).toBeLessThanOrEqual(3);
  });

  it('the same file through the analysis, the report and a link with names', () => {
    const { text } = sameName();
    const before = packedWork.namesDecoded;
    const a = analyzeFiles([file('packed-refs', enc(text))]);
    const r = buildReport(a);
    const link = shareLink(a, r, { withNames: true });
    expect(link.ok).toBe(true);
    // Every line is listed (for-each-ref lists repeated names), each a count in the namespace mix.
    expect(filesRefList(a.files!).length).toBe(LINES);
    expect((r.packedRefs as { namespaces?: Record<string, number> }).namespaces).toEqual({ 'refs/heads': LINES });
    // A few names (examples, the duplicate), not one per line.
    expect(packedWork.namesDecoded - before).toBeLessThan(64);
  });

  it('distinct names sharing a prefix: names decoded are bounded by the estimate’s blocks', () => {
    const { text } = distinctNames();
    const before = packedWork.namesDecoded;
    const s = new EngineSession();
    const res = s.load([file('packed-refs', enc(text))]);
    expect(res.refCount).toBe(LINES);
    const page = s.refsPage({
      filter: 'refs/heads/p',
      mode: 'prefix',
      includeTombstones: false,
      offset: 99_990,
      limit: 20,
    });
    expect(page.total).toBe(LINES);
    expect(page.rows.map((x) => x.name.slice(-7))).toEqual(
      Array.from({ length: 10 }, (_, i) => String(99_990 + i).padStart(7, '0')),
    );
    const est = (s.report()!.packedRefs as unknown as { reftableEstimate: { refs: number; refBlocks: number } })
      .reftableEstimate;
    expect(est.refs).toBe(LINES);
    // The estimate decodes the last name of each ref block (for its index); the session's report,
    // a binary search (17 probes) and the page's rows add a few dozen. Not one per line.
    expect(packedWork.namesDecoded - before).toBeLessThan(2 * est.refBlocks + 200);
  });

  it('a file out of order under "sorted": the names git misses are listed up to the cap, all counted', () => {
    // Names in descending order: git's binary search over the file finds some and misses others.
    const out = [HDR];
    const n = 3000;
    for (let i = n - 1; i >= 0; i--) out.push(`${'b'.repeat(40)} refs/heads/${String(i).padStart(5, '0')}\n`);
    const pr = parsePackedRefs('packed-refs', enc(out.join('')));
    const missed = pr.findingCounts.packedRefNotFoundByBinarySearch;
    expect(missed).toBeGreaterThan(MAX_NAMES_LISTED);
    expect(pr.unfoundByBinarySearch.length).toBe(MAX_NAMES_LISTED);
    expect(pr.findings.filter((f) => f.code === 'packedRefNotFoundByBinarySearch').length).toBe(50);
  });

  it('a link with names made of a large stack is verified once', () => {
    const dir = path.join(__dirname, 'fixtures/hostile/attacks/list-1000-same/reftable');
    const files = collectInput(dir);
    const a = analyzeFiles(files);
    const r = buildReport(a);
    for (const withNames of [false, true]) {
      const v = verifyWork.links;
      const link = shareLink(a, r, { withNames });
      expect(link.ok).toBe(true);
      // One link handed out, one decode and rebuild (the smallest try is only measured).
      expect(verifyWork.links - v).toBe(1);
    }
  });
});

/** Lines of the real-git comparison: the listing is exact per line, so a fifth of the size shows it. */
const GIT_LINES = 20_000;

describe.skipIf(gitSkipReason)('packed-refs of 20,000 long lines as real git lists them', () => {
  for (const g of realGits()) {
    it(`git ${g.version}: for-each-ref of 20,000 distinct names and of one name on 20,000 lines`, () => {
      const repo = gitRepo(g, { format: 'files' });
      try {
        repo.git(['commit', '-q', '--allow-empty', '-m', 'one']);
        const oid = repo.git(['rev-parse', 'HEAD']).trim();
        fs.rmSync(path.join(repo.gitDir, 'refs/heads/main'));
        for (const text of [distinctNames(oid, GIT_LINES).text, sameName(oid, GIT_LINES).text]) {
          fs.writeFileSync(path.join(repo.gitDir, 'packed-refs'), text);
          const want = repo.git(['for-each-ref', '--format=%(objectname) %(refname)']);
          const got = filesRefs(loadFilesRepo([file('packed-refs', enc(text))]));
          expect(got.length).toBe(want.split('\n').length - 1);
          expect(got.map((x) => `${x.oid} ${x.name}\n`).join('')).toBe(want);
        }
      } finally {
        repo.dispose();
      }
    });
  }
});

describe.skipIf(gitSkipReason)(
  'a name checked from the component it does not share with the valid name before it',
  () => {
    // Each name shares a prefix with the valid name on the line before; the verdicts are real git's
    // `check-ref-format --allow-onelevel`, asked for each name alone.
    const names = [
      'refs/heads/a/b',
      'refs/heads/a/b.lock',
      'refs/heads/a/c',
      'refs/heads/a/c/..x',
      'refs/heads/a/d',
      'refs/heads/a/d.',
      'refs/heads/a/e',
      'refs/heads/a/e/@',
      'refs/heads/a/f',
      'refs/heads/a/f@{x',
      'refs/heads/a/g',
      'refs/heads/a/g//h',
      'refs/heads/a/h',
      'refs/heads/a/h/.x',
    ];
    const g = realGits()[0];
    it.skipIf(!g)(`matches git ${g?.version}'s check-ref-format on every line`, () => {
      const repo = gitRepo(g!, { format: 'files' });
      try {
        const want = names.map((n) => repo.gitResult(['check-ref-format', '--allow-onelevel', n]).status !== 0);
        const pr = parsePackedRefs('packed-refs', enc(HDR + names.map((n) => `${'c'.repeat(40)} ${n}\n`).join('')));
        expect(pr.records.map((r) => r.brokenName)).toEqual(want);
        expect(want.filter(Boolean).length).toBe(6);
      } finally {
        repo.dispose();
      }
    });
  },
);
