/**
 * Reading stacks as git reads them, checked against real git (2.55): a stack mixing SHA-1 and
 * SHA-256 tables, table files not named `.ref`, ref names git refuses, tombstone counts of a
 * churn stack, and a truncated table. Expected values come from git's own output
 * (`for-each-ref`, `rev-parse`, `test-tool dump-reftable`) or from the files git wrote.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { realGits, gitRepo, run, type GitRepo } from './lib/realgit.ts';
import { memorySource } from '../src/engine/basics.ts';
import { collectInput } from '../src/cli/node-input.ts';
import { analyzeFiles, analysisRefs } from '../src/engine/analyze.ts';
import { buildReport } from '../src/engine/report.ts';
import { spawnSync } from 'node:child_process';
import { openTable, openPartial, TruncatedError } from '../src/engine/reftable/table.ts';
import { invalidRefNames } from '../src/engine/refs.ts';
import { decodeBlockDetail } from '../src/engine/blockdetail.ts';
import { RefsList } from '../src/engine/session/paging.ts';

const BIN = path.join(__dirname, '..', 'bin/refscope.mjs');
const g = realGits().find((x) => x.version === '2.55.0') ?? realGits()[0];
const skip = g ? null : 'no real git built (npm run setup:git)';

const refsOf = (r: GitRepo): string =>
  r.git(['for-each-ref', '--include-root-refs', '--format=%(objectname) %(refname)']);
const refscopeRefs = (gitDir: string): string =>
  analysisRefs(analyzeFiles(collectInput(gitDir)))
    .map((x) => `${x.oid} ${x.name}\n`)
    .join('');
const tableList = (r: GitRepo): string[] =>
  fs
    .readFileSync(path.join(r.gitDir, 'reftable', 'tables.list'), 'utf8')
    .trim()
    .split('\n');

/** Parse `dump-reftable -b` into [label, length, restarts] per block. */
function dumpBlocks(text: string): [string, number, number][] {
  const out: [string, number, number][] = [];
  let label = '';
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const lab = /^(ref|idx|obj|log):$/.exec(lines[i]);
    if (lab) label = lab[1];
    const len = /^\s+- length: (\d+)/.exec(lines[i]);
    if (len) out.push([label, +len[1], +/^\s+restarts: (\d+)/.exec(lines[i + 1])![1]]);
  }
  return out;
}
const LABEL = { ref: 'ref', index: 'idx', obj: 'obj', log: 'log' } as const;

describe.skipIf(skip)('reading stacks as git 2.55 does', () => {
  it('a stack mixing SHA-1 and SHA-256 tables: git sees no refs; refscope names the table, offset and both hashes', () => {
    const s1 = gitRepo(g!, { hash: 'sha1' });
    const s2 = gitRepo(g!, { hash: 'sha256' });
    try {
      s1.git(['commit', '-q', '--allow-empty', '-m', 'x']);
      s1.git(['pack-refs', '--all']);
      s2.git(['commit', '-q', '--allow-empty', '-m', 'x']);
      s2.git(['pack-refs', '--all']);
      const t1 = tableList(s1)[0];
      const dir = path.join(s2.gitDir, 'reftable');
      fs.copyFileSync(path.join(s1.gitDir, 'reftable', t1), path.join(dir, t1));
      fs.appendFileSync(path.join(dir, 'tables.list'), `${t1}\n`);
      // git refuses the stack (reftable/merged.c reftable_merged_table_new): nothing resolves.
      expect(s2.gitResult(['rev-parse', '--verify', 'HEAD']).status).not.toBe(0);
      expect(refsOf(s2)).toBe('');
      const a = analyzeFiles(collectInput(s2.gitDir));
      const b = a.stack!.broken.find((x) => x.name === t1)!;
      expect(b).toBeDefined();
      // A SHA-1 repository writes version 1 tables: the version byte (offset 4) says SHA-1.
      expect(fs.readFileSync(path.join(dir, t1))[4]).toBe(1);
      expect(b.error.message).toContain(`${t1}: offset 4: expected hash id 's256'`);
      expect(b.error.message).toContain("found 'sha1'");
    } finally {
      s1.dispose();
      s2.dispose();
    }
  });

  it('tables.list naming a file that does not end in .ref: git reads it, so does refscope', () => {
    const r = gitRepo(g!);
    try {
      r.git(['commit', '-q', '--allow-empty', '-m', 'x']);
      r.git(['update-ref', 'refs/tags/t1', 'HEAD']);
      const dir = path.join(r.gitDir, 'reftable');
      const names = tableList(r);
      const renamed = names.map((n, i) => (i === 0 ? n.replace(/\.ref$/, '.table') : n));
      fs.renameSync(path.join(dir, names[0]), path.join(dir, renamed[0]));
      fs.writeFileSync(path.join(dir, 'tables.list'), renamed.join('\n') + '\n');
      const want = refsOf(r);
      expect(want).toContain('refs/heads/main');
      expect(refscopeRefs(r.gitDir)).toBe(want);
      // Empty lines: git skips them (reftable/basics.c parse_names), so does refscope.
      fs.writeFileSync(path.join(dir, 'tables.list'), '\n' + renamed.join('\n\n') + '\n\n');
      expect(refsOf(r)).toBe(want);
      expect(refscopeRefs(r.gitDir)).toBe(want);
      // Also when the tables.list file itself is given.
      expect(
        analysisRefs(analyzeFiles(collectInput(path.join(dir, 'tables.list'))))
          .map((x) => `${x.oid} ${x.name}\n`)
          .join(''),
      ).toBe(want);
    } finally {
      r.dispose();
    }
  });

  it('a ref name git refuses (refs/heads/bogus..name) is left out of refs and returned as a finding', () => {
    const r = gitRepo(g!);
    try {
      r.git(['commit', '-q', '--allow-empty', '-m', 'x']);
      r.git(['update-ref', 'refs/heads/bogus.xname', 'HEAD']);
      r.git(['update-ref', 'refs/tags/ok', 'HEAD']);
      r.git(['pack-refs', '--all']);
      const t = tableList(r)[0];
      const p = path.join(r.gitDir, 'reftable', t);
      const b = fs.readFileSync(p);
      const at = b.indexOf('bogus.xname');
      expect(at).toBeGreaterThan(0);
      b[at + 6] = 0x2e; // "bogus..name": same length, same order among the keys
      fs.writeFileSync(p, b);
      const res = r.gitResult(['for-each-ref', '--include-root-refs', '--format=%(objectname) %(refname)']);
      expect(res.stderr).toContain('ignoring ref with broken name refs/heads/bogus..name');
      expect(res.stdout).not.toContain('bogus');
      expect(refscopeRefs(r.gitDir)).toBe(res.stdout);
      const a = analyzeFiles(collectInput(r.gitDir));
      const bad = invalidRefNames(a.stack!.tables, a.merged!);
      expect(bad.map((x) => [x.name, x.table, x.gitDies])).toEqual([['refs/heads/bogus..name', t, false]]);
      expect(bad[0].why).toContain('".."');
      // The finding (report, analyze text and JSON, the Overview's table row) quotes git's own
      // warning line and sits on the table that holds the name.
      const gitWarning = /ignoring ref with broken name .*/.exec(res.stderr)![0];
      const found = buildReport(a).findings.filter((f) => f.message.includes(gitWarning));
      expect(found.map((f) => [path.basename(f.file), f.severity])).toEqual([[t, 'warning']]);
      expect(found[0].message).toContain('for-each-ref');
      const cli = (args: string[]) =>
        spawnSync(process.execPath, [BIN, 'analyze', r.gitDir, ...args], { encoding: 'utf8' });
      const text = cli([]);
      expect(text.status).toBe(0);
      expect(text.stdout).toContain(gitWarning);
      const json = cli(['--json']);
      expect(
        (JSON.parse(json.stdout) as { findings: { message: string }[] }).findings.filter((f) =>
          f.message.includes(gitWarning),
        ).length,
      ).toBe(1);
    } finally {
      r.dispose();
    }
  });

  it('a 12-table churn stack (one branch created and deleted in turn): 6 tombstones, 1 winning', () => {
    const r = gitRepo(g!, { env: { GIT_TEST_REFTABLE_AUTOCOMPACTION: 'false' } });
    try {
      r.git(['commit', '-q', '--allow-empty', '-m', 'x']);
      r.git(['pack-refs', '--all']);
      for (let i = 0; i < 6; i++) {
        r.git(['update-ref', 'refs/heads/churn', 'HEAD']);
        r.git(['update-ref', '-d', 'refs/heads/churn']);
      }
      const names = tableList(r);
      expect(names.length).toBe(13); // the packed base + 12
      // Tombstones per table from git's own dump: `ref{refs/heads/churn(N) delete}` lines. (The
      // 2.55 build's `dump-reftable -t` crashes on a lone table; 2.47.3's prints it.)
      const dir = path.join(r.gitDir, 'reftable');
      const dumper = realGits().find((x) => x.version.startsWith('2.47'))!;
      const perTable = names.map(
        (n) =>
          (
            run(dumper.testTool, ['dump-reftable', '-t', path.join(dir, n)], { cwd: r.dir, env: r.env }).stdout.match(
              /\) delete\}/g,
            ) ?? []
          ).length,
      );
      expect(perTable.reduce((x, y) => x + y, 0)).toBe(6);
      const a = analyzeFiles(collectInput(r.gitDir));
      expect(a.merged!.allTombstones).toBe(6);
      expect(a.merged!.tombstones).toBe(1);
      expect(a.merged!.tombstonesBy).toEqual(perTable);
      // Every deletion table deletes the create below it: none is "a deletion table with nothing under it".
      expect(a.findings.filter((f) => f.message.includes('nothing under it'))).toEqual([]);
    } finally {
      r.dispose();
    }
  });

  it('a truncated table: "truncated: N of M bytes", and the blocks before the cut still read', () => {
    const r = gitRepo(g!, { config: { 'reftable.blockSize': '1024' } });
    try {
      r.git(['commit', '-q', '--allow-empty', '-m', 'x']);
      let input = '';
      for (let i = 0; i < 300; i++) input += `create refs/heads/b${String(i).padStart(4, '0')} HEAD\n`;
      r.git(['update-ref', '--stdin'], input);
      r.git(['pack-refs', '--all']);
      const t = tableList(r)[0];
      const p = path.join(r.gitDir, 'reftable', t);
      const whole = new Uint8Array(fs.readFileSync(p));
      const truth = dumpBlocks(r.testTool(['dump-reftable', '-b', p]));
      const M = whole.length;
      const fsz = whole[4] === 1 ? 68 : 72;
      // Cut inside the footer: the size it had is known from the footer's start.
      const cut1 = whole.subarray(0, M - 20);
      let e: unknown;
      try {
        openTable({ path: t, source: memorySource(cut1) });
      } catch (x) {
        e = x;
      }
      expect(e).toBeInstanceOf(TruncatedError);
      expect((e as Error).message).toContain(
        `truncated: ${(M - 20).toLocaleString('en-US')} of ${M.toLocaleString('en-US')} bytes`,
      );
      const part1 = openPartial({ path: t, source: memorySource(cut1) }, e as TruncatedError);
      expect(part1.blocks.map((b) => [LABEL[b.type], b.restartTableOffset, b.restartCount])).toEqual(truth);
      // Cut in the middle of the ref blocks: footer missing; the whole blocks before the cut read.
      const cutAt = 3 * 1024 + 500;
      const cut2 = whole.subarray(0, cutAt);
      let e2: unknown;
      try {
        openTable({ path: t, source: memorySource(cut2) });
      } catch (x) {
        e2 = x;
      }
      expect(e2).toBeInstanceOf(TruncatedError);
      expect((e2 as Error).message).toContain(
        `truncated: ${cutAt.toLocaleString('en-US')} bytes and the footer missing`,
      );
      const part2 = openPartial({ path: t, source: memorySource(cut2) }, e2 as TruncatedError);
      expect(part2.blocks.map((b) => [LABEL[b.type], b.restartTableOffset, b.restartCount])).toEqual(truth.slice(0, 3));
      expect(part2.stop?.offset).toBeGreaterThanOrEqual(3 * 1024);
      // The hex view decodes the readable blocks: the first holds HEAD, then git's first branch.
      const firstBranch = r.git(['for-each-ref', '--format=%(refname)', 'refs/heads/']).split('\n')[0];
      const detail = decodeBlockDetail({ ...part2, header: part2.header! }, 0);
      expect(detail.error).toBeNull();
      expect(detail.records.slice(0, 2).map((x) => x.key)).toEqual(['HEAD', firstBranch]);
      // And in a stack: the broken table carries what could be read.
      fs.writeFileSync(p, cut2);
      const a = analyzeFiles(collectInput(r.gitDir));
      const b = a.stack!.broken[0];
      expect(b.error).toBeInstanceOf(TruncatedError);
      expect(b.partial!.blocks.length).toBe(3);
      expect(fsz).toBeGreaterThan(0);
      // The app's block map and hex view (the session's paging) show those blocks, as
      // refscope's reading: three whole 1024-byte blocks, readable up to byte 3 × 1024.
      const list = new RefsList(a);
      const L = list.tableBlocks(0)!;
      expect(L.error!.expected).toContain(`truncated: ${cutAt.toLocaleString('en-US')} bytes`);
      expect(L.blocks.map((x) => [LABEL[x.type], x.offset])).toEqual([
        [truth[0][0], 0],
        [truth[1][0], 1024],
        [truth[2][0], 2048],
      ]);
      expect(L.readable!.upTo).toBe(3 * 1024);
      expect(L.sections.at(-1)).toEqual({ name: 'unread', start: 3 * 1024, end: cutAt });
      expect(
        list
          .blockDetail(0, 0)!
          .records.slice(0, 2)
          .map((x) => x.key),
      ).toEqual(['HEAD', firstBranch]);
      expect(list.blockDetail(0, 3)).toBeNull();
    } finally {
      r.dispose();
    }
  });
});
