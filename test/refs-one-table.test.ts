/**
 * The listing of a stack of one table read straight from its ref blocks (refs.ts
 * `tableRefsLines` on a table opened with `refColumns: false`, what `refscope refs` does for such
 * a stack): the same bytes git prints.
 *
 * - Engine: every fixture stack compacted into one table by git (`git pack-refs --all` on a copy)
 *   and listed in chunks of every size from 1 byte up equals git's `for-each-ref
 *   --include-root-refs --format='%(objectname) %(refname)'` on it.
 * - CLI: a repository each real git writes with symrefs (HEAD, a chain, a dangling one), peeled
 *   tags, a root ref, a name git refuses (patched into the table) and long names, packed into
 *   one table: `refscope refs` prints exactly git's listing (stdout byte for byte).
 * - The lean open keeps nothing per ref but counts and checks every record: its counts and
 *   blocks equal the full open's, and a damaged ref block is refused by both with the same error.
 */
import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import {
  openTable,
  tableRefsLines,
  memorySource,
  checkRefnameAfter,
  FormatError,
  type Table,
} from '../src/engine/index.ts';
import { checkRefnameBytes } from '../src/engine/files/refname.ts';
import { realGits, gitRepo, gitSkipReason, type GitRepo } from './lib/realgit.ts';

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'bin/refscope.mjs');
const FX = path.join(ROOT, 'test/fixtures/reftable');

const gitList = (r: GitRepo): string =>
  r.git(['for-each-ref', '--include-root-refs', '--format=%(objectname) %(refname)']);
const onlyTable = (r: GitRepo): string => {
  const dir = path.join(r.gitDir, 'reftable');
  const names = fs.readFileSync(path.join(dir, 'tables.list'), 'utf8').trim().split('\n');
  expect(names).toHaveLength(1);
  return path.join(dir, names[0]);
};
const lean = (file: string): Table =>
  openTable({ path: file, source: memorySource(new Uint8Array(fs.readFileSync(file))) }, { refColumns: false });
const listed = (t: Table, chunkBytes?: number, reuse = false): string => {
  const it = tableRefsLines(t, { chunkBytes, reuse });
  let s = '';
  for (let c = it.next(); c; c = it.next()) s += Buffer.from(c).toString('latin1');
  return s;
};

describe.skipIf(gitSkipReason)('one table listed from its blocks equals git', () => {
  const g = realGits()[realGits().length - 1];

  it('every fixture packed into one table by git, in chunks of every size', () => {
    for (const fx of fs.readdirSync(FX)) {
      const src = path.join(FX, fx, 'reftable');
      if (!fs.existsSync(path.join(src, 'tables.list'))) continue;
      const r = gitRepo(g, { bare: true, hash: fx.includes('sha256') ? 'sha256' : 'sha1' });
      try {
        const dst = path.join(r.gitDir, 'reftable');
        fs.rmSync(dst, { recursive: true });
        fs.cpSync(src, dst, { recursive: true });
        r.git(['pack-refs', '--all']);
        const want = gitList(r);
        const t = lean(onlyTable(r));
        expect(t.refs.count, fx).toBe(0); // nothing kept per ref
        expect(listed(t), fx).toBe(want);
        for (const n of [1, 7, 100, 4096]) expect(listed(t, n, n === 100), `${fx}, chunks of ${n}`).toBe(want);
      } finally {
        r.dispose();
      }
    }
  });

  for (const gv of realGits()) {
    it(`refscope refs on a one-table stack git ${gv.version} wrote prints git's listing`, () => {
      const r = gitRepo(gv, { bare: true, config: { 'reftable.blockSize': '512' } });
      try {
        const tree = r.git(['hash-object', '-t', 'tree', '-w', '--stdin'], '').trim();
        const c1 = r.git(['commit-tree', tree, '-m', 'one'], '').trim();
        const c2 = r.git(['commit-tree', tree, '-p', c1, '-m', 'two'], '').trim();
        const lines: string[] = [`update refs/heads/main ${c1}`];
        for (let i = 0; i < 300; i++)
          lines.push(`update refs/heads/topic/${'x'.repeat(i % 90)}${i} ${i % 2 ? c1 : c2}`);
        for (let i = 0; i < 40; i++) lines.push(`update refs/pull/${i}/head ${c2}`);
        lines.push(`update refs/heads/bogus-name ${c1}`);
        lines.push(`update CHERRY_PICK_HEAD ${c2}`);
        r.git(['update-ref', '--stdin'], lines.join('\n') + '\n');
        r.git(['tag', '-a', '-m', 'tag', 'v1', c1]);
        r.git(['tag', '-a', '-m', 'tag', 'v2', c2]);
        r.git(['symbolic-ref', 'HEAD', 'refs/heads/main']);
        r.git(['symbolic-ref', 'refs/heads/alias', 'HEAD']); // a chain: alias → HEAD → main
        r.git(['symbolic-ref', 'refs/heads/dangling', 'refs/heads/nowhere']);
        r.git(['pack-refs', '--all']);
        // A name git refuses, patched into the table: "bogus-name" → "bogus..me" (same order).
        const file = onlyTable(r);
        const b = fs.readFileSync(file);
        const at = b.indexOf('bogus-name');
        expect(at).toBeGreaterThan(0);
        b.write('..', at + 5, 'latin1');
        fs.writeFileSync(file, b);
        const res = r.gitResult(['for-each-ref', '--include-root-refs', '--format=%(objectname) %(refname)']);
        expect(res.stderr).toContain('ignoring ref with broken name');
        expect(res.stdout).toContain(`${c1} HEAD\n`);
        expect(res.stdout).toContain(`${c1} refs/heads/alias\n`);
        expect(res.stdout).not.toContain('dangling');
        const ours = spawnSync(process.execPath, [BIN, 'refs', r.gitDir], { maxBuffer: 1 << 26 });
        expect(ours.stderr.toString()).toBe('');
        expect(ours.status).toBe(0);
        expect(ours.stdout.toString('latin1')).toBe(res.stdout);
        expect(listed(lean(file), 64)).toBe(res.stdout);
      } finally {
        r.dispose();
      }
    });
  }
});

describe('the lean open checks what the full open checks', () => {
  const file = path.join(
    FX,
    'smallblocks/reftable',
    fs.readFileSync(path.join(FX, 'smallblocks/reftable/tables.list'), 'utf8').trim(),
  );
  const bytes = new Uint8Array(fs.readFileSync(file));
  it('same counts and blocks, no columns', () => {
    const full = openTable({ path: file, source: memorySource(bytes) });
    const t = lean(file);
    expect(t.counts).toEqual(full.counts);
    expect(t.blocks).toEqual(full.blocks);
    expect(t.refs.count).toBe(0);
    expect(full.refs.count).toBe(full.counts.ref + full.counts.peeled + full.counts.symref + full.counts.tombstone);
  });
  it('a key out of order in a later ref block: the same error from both', () => {
    const full = openTable({ path: file, source: memorySource(bytes) });
    const b = full.blocks.filter((x) => x.type === 'ref')[3];
    const bad = bytes.slice();
    // The first key's suffix of the fourth ref block (after the block header, a one-byte
    // prefix length and a two-byte suffix length), its first byte lowered: the key now sorts
    // before the third block's last key.
    bad[b.offset + 4 + 1 + 2] = 0x20;
    const err = (o: object) => {
      try {
        openTable({ path: 'x.ref', source: memorySource(bad) }, o);
      } catch (e) {
        return (e as FormatError).message;
      }
      return 'accepted';
    };
    expect(err({})).toMatch(/keys increasing/);
    expect(err({ refColumns: false })).toBe(err({}));
  });
});

describe('checkRefnameAfter', () => {
  it('agrees with checkRefnameBytes on every key whose shared start passed it', () => {
    // Names from the bytes git's rules are about, each against the one before it in sorted order.
    // Components of a few letters joined by '/', one in seven with a byte or sequence git refuses
    // somewhere (or an empty component): about half the names pass.
    const bad = ['.', '@', '{', '.lock', ' ', '~', '..', '@{', '', 'x.', '*'];
    let seed = 12345;
    const rnd = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const names = new Set<string>();
    for (let i = 0; i < 30000; i++) {
      const parts: string[] = [];
      for (let k = rnd(4) + 1; k > 0; k--) {
        let c = '';
        for (let l = rnd(3) + 1; l > 0; l--) c += 'abc'[rnd(3)];
        if (rnd(7) === 0) {
          const at = rnd(c.length + 1);
          c = c.slice(0, at) + bad[rnd(bad.length)] + c.slice(at);
        }
        parts.push(c);
      }
      names.add((rnd(2) ? 'refs/' : '') + parts.join('/'));
    }
    const sorted = [...names].sort();
    const enc = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
    let checked = 0;
    for (let i = 1; i < sorted.length; i++) {
      const a = enc(sorted[i - 1]),
        b = enc(sorted[i]);
      if (!checkRefnameBytes(a, 0, a.length)) continue;
      let shared = 0;
      while (shared < a.length && shared < b.length && a[shared] === b[shared]) shared++;
      for (const s of [shared, Math.min(shared, 3)]) {
        expect(checkRefnameAfter(b, 0, b.length, s), `${sorted[i - 1]} → ${sorted[i]}`).toBe(
          checkRefnameBytes(b, 0, b.length),
        );
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });
});
