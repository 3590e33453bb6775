/**
 * The comparison link (src/engine/share/compare-link.ts): a diff of two stacks git wrote (the
 * fixtures nocompact-s1 and nocompact-s2, two repositories) survives the link unchanged; ref names
 * travel only when asked for; damaged, cut and hostile links are refused with ShareLinkError.
 * The figures themselves are checked against git in test/e2e/workbench.test.ts.
 */
import { describe, it, expect } from 'vitest';
import { deflateSync } from 'fflate';
import { fixtureAnalysis } from './lib/fixtures.ts';
import { diffAnalyses } from '../src/engine/diff.ts';
import { base64UrlEncode } from '../src/engine/share/base64url.ts';
import { ShareLinkError } from '../src/engine/share/limits.ts';
import { compareLink, compareShare, decodeCompareShare, MAX_COMPARE_NAMES } from '../src/engine/share/compare-link.ts';

const d = diffAnalyses(fixtureAnalysis('reftable/nocompact-s1'), fixtureAnalysis('reftable/nocompact-s2'));
const cValue = (doc: unknown) => `1.${base64UrlEncode(deflateSync(new TextEncoder().encode(JSON.stringify(doc))))}`;

describe('comparison link', () => {
  it('carries the shape and no ref name unless asked', () => {
    const p = compareShare(d);
    const r = compareLink(p, 'http://127.0.0.1:4173/app/#/overview');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.link).toMatch(/^http:\/\/127\.0\.0\.1:4173\/app\/#\/compare\?c=1\./);
    const back = decodeCompareShare(r.link);
    expect(back).toEqual(p);
    expect(back.names).toBeUndefined();
    expect(back.added.length).toBe(d.tablesAdded.length);
    expect(back.removed.length).toBe(d.tablesRemoved.length);
    expect(back.refs.created).toBe(d.refsCreated.length);
    // No name of either stack is in the decoded data.
    const text = JSON.stringify(back);
    for (const x of [...d.refsCreated, ...d.refsDeleted, ...d.refsUpdated]) expect(text).not.toContain(x.name);
    for (const t of [...d.tablesAdded, ...d.tablesRemoved]) expect(text).not.toContain(t.name);
  });

  it('with names: the first names of each list, as the diff has them', () => {
    const p = compareShare(d, undefined, { names: true });
    const back = decodeCompareShare(compareLink(p).ok ? (compareLink(p) as { link: string }).link : '');
    expect(back.names!.created).toEqual(d.refsCreated.slice(0, MAX_COMPARE_NAMES).map((r) => r.name));
    expect(back.names!.deleted).toEqual(d.refsDeleted.slice(0, MAX_COMPARE_NAMES).map((r) => r.name));
  });

  it('refuses damaged, cut, future and hostile links with ShareLinkError', () => {
    const good = compareShare(d);
    const r = compareLink(good);
    const link = r.ok ? r.link : '';
    const cases: [string, string][] = [
      [link.slice(0, link.length - 30), 'cut'],
      ['#/compare?c=1.', 'empty'],
      ['#/compare?c=2.AAAA', 'future'],
      ['#/compare?x=1', 'no c='],
      ['#/compare?c=1.@@@@', 'bad base64'],
      [`#/compare?c=${cValue({ ...good, kept: -1 })}`, 'negative'],
      [`#/compare?c=${cValue({ ...good, merges: [{ into: 999999, from: [0] }] })}`, 'merge out of range'],
      [`#/compare?c=${cValue({ ...good, added: [[5, 1, 0, 0]] })}`, 'backwards range'],
      [`#/compare?c=${cValue({ ...good, before: { ...good.before, kind: '<script>' } })}`, 'kind'],
      [`#/compare?c=${cValue({ ...good, names: { created: [1], updated: [], deleted: [] } })}`, 'name'],
      [`#/compare?c=${cValue([])}`, 'not an object'],
      ['#/compare?c=' + '1.' + 'A'.repeat(200_000), 'too long'],
    ];
    for (const [text, what] of cases) {
      let err: unknown = null;
      try {
        decodeCompareShare(text);
      } catch (e) {
        err = e;
      }
      expect(err, what).toBeInstanceOf(ShareLinkError);
    }
  });
});
