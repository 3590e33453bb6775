/**
 * Real compaction and conversion (src/engine/reftable/compact.ts, src/cli/compact-cmd.ts):
 * - nocompact-s1..s3: the segment git's rule picks, compacted, gives a table of exactly the size
 *   git's `git pack-refs --auto` wrote (truth/after-pack-refs-auto.txt), and the same refs;
 * - every fixture: `compactAll` (git pack-refs) keeps the merged view (truth/refs.txt);
 * - a hand-built three-table stack: tombstones and log deletions dropped only when the segment
 *   starts at the base table; every expected count written out by hand below;
 * - conversion of packed-refs and a files-backend .git equals their truth/refs.txt;
 * - JGit reads the written tables back with the same refs as refscope;
 * - the report's `afterPackRefs` / `afterAuto`, the zip, and the CLI.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { unzipSync } from 'fflate';
import {
  analyzeFiles,
  buildReport,
  loadStack,
  mergeTables,
  listRefs,
  memorySource,
  openTable,
  toHex,
  fromHex,
  type InputFile,
  type Stack,
  type Table,
} from '../src/engine/index.ts';
import { collectInput } from '../src/cli/node-input.ts';
import { gitAutoCompaction } from '../src/engine/reftable/auto-compaction.ts';
import { writeTable, tableFileName, type RefRecordIn, type LogRecordIn } from '../src/engine/reftable/writer.ts';
import {
  compactSegment,
  compactAll,
  compactAuto,
  convertFilesToReftable,
  stackFiles,
  stackFilesAfter,
  tableLogRecords,
  zipStack,
  type StackFile,
} from '../src/engine/reftable/compact.ts';
import { loadFilesRepo, parsePackedRefs } from '../src/engine/files.ts';
import { classifyInput } from '../src/engine/input.ts';
import { jgit } from './jgit.ts';
import { refscope } from './lib/cli.ts';
import { REFTABLE_FIXTURES, fixtureAnalysis, reftableFixtures } from './lib/fixtures.ts';

const ROOT = path.join(__dirname, '..');
const FX = REFTABLE_FIXTURES;
const FIXTURES = reftableFixtures();
const truthRefs = (dir: string): string => fs.readFileSync(path.join(dir, 'truth/refs.txt'), 'latin1');

/** A reftable fixture's stack as the CLI reads it from disk. */
function loadFixture(fx: string): Stack {
  return fixtureAnalysis(fx).stack!;
}
/** A stack from files in memory (`tables.list` + tables). */
function stackOf(files: StackFile[]): Stack {
  const list = files.find((f) => f.name === 'tables.list')!;
  const inputs: InputFile[] = files
    .filter((f) => f !== list)
    .map((f) => ({ path: `reftable/${f.name}`, source: memorySource(f.bytes) }));
  return loadStack({ path: 'reftable/tables.list', source: memorySource(list.bytes) }, inputs);
}
/** `refscope refs` of a stack: `<oid> <name>\n` lines. */
function refsOf(st: Stack): string {
  return listRefs(st.tables, mergeTables(st.tables))
    .map((r) => `${r.oid} ${r.name}\n`)
    .join('');
}
function tableOf(bytes: Uint8Array, name = 'new.ref'): Table {
  return openTable({ path: name, source: memorySource(bytes) });
}
/** JGit's `debug-read-reftable` lines for a table as refscope reads it (tombstones hidden). */
function jgitLinesOf(t: Table): string[] {
  const out: string[] = [];
  const hs = t.header.hashSize;
  for (let i = 0; i < t.refs.count; i++) {
    const type = t.refs.types[i];
    const name = t.refs.names[i];
    if (type === 1) out.push(`${toHex(t.refs.oids, i * hs, (i + 1) * hs)}\t${name}`);
    else if (type === 2)
      out.push(`${toHex(t.refs.oids, i * hs, (i + 1) * hs)}\t${name}`, `^${toHex(t.refs.peeled.get(i)!)}`);
    else if (type === 3) out.push(`${t.refs.targets.get(i)}\t${name}`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// git's own compaction: nocompact-s1..s3
// ---------------------------------------------------------------------------------------------
describe('compactSegment reproduces git pack-refs --auto (nocompact-s1..s3)', () => {
  const SIZES: Record<string, number> = { 'nocompact-s1': 24666, 'nocompact-s2': 3691, 'nocompact-s3': 6679 };
  for (const fx of Object.keys(SIZES)) {
    it(`${fx}: table of exactly git's size, same tables.list, same refs`, () => {
      const dir = path.join(FX, fx);
      const st = loadFixture(fx);
      const sizes = st.tables.map((t) => t!.fileSize);
      const seg = gitAutoCompaction(
        sizes,
        st.tables.map((t) => t!.header.version),
      ).segment!;
      const res = compactSegment(st, seg, { random: 0 });
      const after = fs
        .readFileSync(path.join(dir, 'truth/after-pack-refs-auto.txt'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split(' '));
      expect(Number(after[0][1])).toBe(SIZES[fx]);
      expect(res.bytes.length).toBe(SIZES[fx]);
      expect(res.empty).toBe(false);
      expect(res.dropsDeletions).toBe(true);
      // same name up to git's random suffix, and the rest of tables.list unchanged
      expect(res.name.slice(0, 30)).toBe(after[0][0].slice(0, 30));
      expect(res.names.map((n) => n.slice(0, 30))).toEqual(after.map((l) => l[0].slice(0, 30)));
      expect(res.names.slice(1)).toEqual(after.slice(1).map((l) => l[0]));
      expect(res.tablesList).toBe(res.names.map((n) => n + '\n').join(''));
      const t = tableOf(res.bytes, res.name);
      expect(t.counts.tombstone).toBe(0);
      expect(res.stats.refsOut).toBe(t.refs.count);
      expect(refsOf(stackOf(stackFilesAfter(st, res)))).toBe(truthRefs(dir));
      // compactAuto picks the same segment
      expect(compactAuto(st, { random: 0 })!.bytes).toEqual(res.bytes);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// git pack-refs on every fixture
// ---------------------------------------------------------------------------------------------
describe('compactAll keeps the merged view of every fixture', () => {
  for (const fx of FIXTURES) {
    it(`${fx}: refs after compactAll equal truth/refs.txt`, () => {
      const st = loadFixture(fx);
      const res = compactAll(st, { random: 0x1234 });
      const files = stackFilesAfter(st, res);
      const after = stackOf(files);
      expect(after.broken).toEqual([]);
      expect(refsOf(after)).toBe(truthRefs(path.join(FX, fx)));
      if (st.tables.length === 1) {
        expect(res.changed).toBe(false);
        expect(res.names).toEqual(st.names);
        return;
      }
      expect(res.segment).toEqual({ start: 0, end: st.tables.length - 1 });
      expect(res.names).toEqual(res.empty ? [] : [res.name]);
      const t = after.tables[0]!;
      expect(t.counts.tombstone + t.counts.logDeletion).toBe(0);
      expect(t.header.hashId).toBe(st.tables[0]!.header.hashId);
      expect(t.header.blockSize).toBe(4096);
      expect(t.header.minUpdateIndex).toBe(st.tables[0]!.header.minUpdateIndex);
      expect(t.header.maxUpdateIndex).toBe(st.tables[st.tables.length - 1]!.header.maxUpdateIndex);
      expect(res.name).toBe(tableFileName(t.header.minUpdateIndex, t.header.maxUpdateIndex, 0x1234));
      // every reflog entry survives (no fixture has log deletions)
      const logsIn = st.tables.reduce((s, x) => s + x!.counts.log, 0);
      expect(t.counts.log).toBe(logsIn);
    });
  }

  it('basic-sha1: log records are copied field for field (byte strings, ids, time zone)', () => {
    const st = loadFixture('basic-sha1');
    const res = compactAll(st, { random: 0 });
    const before = st.tables.flatMap((t) => tableLogRecords(t!));
    const after = tableLogRecords(tableOf(res.bytes));
    const key = (l: LogRecordIn) => `${l.name} ${l.updateIndex}`;
    const norm = (l: LogRecordIn) => ({ ...l, oldId: l.oldId && toHex(l.oldId), newId: l.newId && toHex(l.newId) });
    const order = (a: LogRecordIn, b: LogRecordIn) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : b.updateIndex - a.updateIndex;
    expect(after.map(key)).toEqual(before.slice().sort(order).map(key));
    const byKey = new Map(before.map((l) => [key(l), norm(l)]));
    for (const l of after) expect(norm(l)).toEqual(byKey.get(key(l)));
    expect(after.some((l) => l.tzOffset === 100)).toBe(true);
  });

  it('tombstones-50k: pack-refs leaves the single live record (tombstones and what they hid dropped)', () => {
    const st = loadFixture('tombstones-50k');
    const res = compactAll(st, { random: 0 });
    expect(res.stats.tombstonesDropped).toBe(50001);
    expect(res.stats.shadowedRefs).toBe(50001);
    expect(res.stats.refsOut).toBe(1);
    expect(res.bytes.length).toBe(126);
  });

  it('a stack of one table is left alone, as git does', () => {
    const st = loadFixture('smallblocks');
    const res = compactAll(st);
    expect(res.changed).toBe(false);
    expect(res.bytes.length).toBe(st.tables[0]!.fileSize);
    expect(stackFilesAfter(st, res)).toEqual(stackFiles(st));
  });
});

// ---------------------------------------------------------------------------------------------
// hand-built three-table stack: where deletions are dropped
// ---------------------------------------------------------------------------------------------
const id = (c: string): Uint8Array => fromHex(c.repeat(40))!;
const log = (name: string, updateIndex: number, newId?: string): LogRecordIn =>
  newId === undefined
    ? { name, updateIndex, type: 0 }
    : {
        name,
        updateIndex,
        type: 1,
        oldId: id('0'),
        newId: id(newId),
        committerName: 'C O Mitter',
        email: 'c@example.com',
        time: 1700000000 + updateIndex,
        tzOffset: -230,
        message: `update ${name}\n`,
      };

/**
 * T0 (update index 1): refs/heads/a, refs/heads/b, refs/heads/c, refs/tags/t (peeled); logs
 *   (a,1) (b,1) (c,1).
 * T1 (2): tombstones refs/heads/b and refs/heads/x (x is in no older table), refs/heads/d = 4..;
 *   logs: deletion (b,1), update (d,2).
 * T2 (3): tombstone refs/heads/c, refs/heads/d = 5.. (shadows T1's d); logs: deletion (c,1),
 *   update (d,3), deletion (d,2) (shadows T1's update (d,2)).
 */
function handStack(): Stack {
  const w = (refs: RefRecordIn[], logs: LogRecordIn[], min: number): StackFile => ({
    name: tableFileName(min, min, min),
    bytes: writeTable(refs, logs, { minUpdateIndex: min, maxUpdateIndex: min }),
  });
  const t0 = w(
    [
      { name: 'refs/heads/a', updateIndex: 1, type: 1, value: id('1') },
      { name: 'refs/heads/b', updateIndex: 1, type: 1, value: id('2') },
      { name: 'refs/heads/c', updateIndex: 1, type: 1, value: id('3') },
      { name: 'refs/tags/t', updateIndex: 1, type: 2, value: id('6'), peeled: id('1') },
    ],
    [log('refs/heads/a', 1, '1'), log('refs/heads/b', 1, '2'), log('refs/heads/c', 1, '3')],
    1,
  );
  const t1 = w(
    [
      { name: 'refs/heads/b', updateIndex: 2, type: 0 },
      { name: 'refs/heads/d', updateIndex: 2, type: 1, value: id('4') },
      { name: 'refs/heads/x', updateIndex: 2, type: 0 },
    ],
    [log('refs/heads/b', 1), log('refs/heads/d', 2, '4')],
    2,
  );
  const t2 = w(
    [
      { name: 'refs/heads/c', updateIndex: 3, type: 0 },
      { name: 'refs/heads/d', updateIndex: 3, type: 1, value: id('5') },
    ],
    [log('refs/heads/c', 1), log('refs/heads/d', 3, '5'), log('refs/heads/d', 2)],
    3,
  );
  return stackOf([
    t0,
    t1,
    t2,
    { name: 'tables.list', bytes: new TextEncoder().encode([t0, t1, t2].map((t) => t.name + '\n').join('')) },
  ]);
}
const LIVE = `${'1'.repeat(40)} refs/heads/a\n${'5'.repeat(40)} refs/heads/d\n${'6'.repeat(40)} refs/tags/t\n`;
const logKeys = (t: Table) =>
  tableLogRecords(t).map((l) => `${l.type ? 'u' : 'd'} ${l.name.slice(11)}@${l.updateIndex}`);

describe('deletions: dropped only when the segment starts at the base table', () => {
  it('the hand-built stack reads as intended', () => {
    const st = handStack();
    expect(st.broken).toEqual([]);
    expect(refsOf(st)).toBe(LIVE);
  });

  it('segment 1..2 (above the base): tombstones and log deletions are carried forward', () => {
    const st = handStack();
    const res = compactSegment(st, { start: 1, end: 2 }, { random: 7 });
    expect(res.dropsDeletions).toBe(false);
    // refs: b (T1 tombstone), c (T2 tombstone), d (T2, shadows T1's d), x (T1 tombstone)
    expect(res.stats).toEqual({
      tablesIn: 2,
      bytesIn: st.tables[1]!.fileSize + st.tables[2]!.fileSize,
      refsIn: 5,
      logsIn: 5,
      shadowedRefs: 1,
      shadowedLogs: 1,
      tombstonesDropped: 0,
      logDeletionsDropped: 0,
      tombstonesKept: 3,
      logDeletionsKept: 3,
      refsOut: 4,
      logsOut: 4,
    });
    // the spec's rule could drop x (no table below has it) and (d,2) (not in T0's logs)
    expect(res.specDroppable).toEqual({ tombstones: 1, logDeletions: 1 });
    const t = tableOf(res.bytes);
    expect([...t.refs.names]).toEqual(['refs/heads/b', 'refs/heads/c', 'refs/heads/d', 'refs/heads/x']);
    expect([...t.refs.types]).toEqual([0, 0, 1, 0]);
    expect([...t.refs.updateIndex]).toEqual([2, 3, 3, 2]);
    expect(t.counts.tombstone).toBe(3);
    expect(t.counts.logDeletion).toBe(3);
    expect(logKeys(t)).toEqual(['d b@1', 'd c@1', 'u d@3', 'd d@2']);
    expect([t.header.minUpdateIndex, t.header.maxUpdateIndex]).toEqual([2, 3]);
    expect(res.name).toBe('0x000000000002-0x000000000003-00000007.ref');
    expect(res.names).toEqual([st.names[0], res.name]);
    // merged view unchanged: T0's b and c stay hidden
    expect(refsOf(stackOf(stackFilesAfter(st, res)))).toBe(LIVE);
  });

  it("segment 1..2 with the spec's rule: also drops the deletions no older table needs", () => {
    const st = handStack();
    const res = compactSegment(st, { start: 1, end: 2 }, { random: 7, dropDeletions: 'spec' });
    expect(res.stats.tombstonesDropped).toBe(1);
    expect(res.stats.logDeletionsDropped).toBe(1);
    expect(res.stats.refsOut).toBe(3);
    expect(res.stats.logsOut).toBe(3);
    const t = tableOf(res.bytes);
    expect([...t.refs.names]).toEqual(['refs/heads/b', 'refs/heads/c', 'refs/heads/d']);
    expect(logKeys(t)).toEqual(['d b@1', 'd c@1', 'u d@3']);
    expect(refsOf(stackOf(stackFilesAfter(st, res)))).toBe(LIVE);
  });

  it('segment 0..2 (from the base): every tombstone and log deletion is dropped', () => {
    const st = handStack();
    const res = compactSegment(st, { start: 0, end: 2 }, { random: 7 });
    expect(res.dropsDeletions).toBe(true);
    expect(res.specDroppable).toEqual({ tombstones: 0, logDeletions: 0 });
    expect(res.stats).toMatchObject({
      refsIn: 9,
      logsIn: 8,
      shadowedRefs: 3,
      shadowedLogs: 3,
      tombstonesDropped: 3,
      logDeletionsDropped: 3,
      tombstonesKept: 0,
      logDeletionsKept: 0,
      refsOut: 3,
      logsOut: 2,
    });
    const t = tableOf(res.bytes);
    expect([...t.refs.names]).toEqual(['refs/heads/a', 'refs/heads/d', 'refs/tags/t']);
    expect([...t.refs.types]).toEqual([1, 1, 2]);
    expect(logKeys(t)).toEqual(['u a@1', 'u d@3']);
    expect(res.names).toEqual(['0x000000000001-0x000000000003-00000007.ref']);
    expect(refsOf(stackOf(stackFilesAfter(st, res)))).toBe(LIVE);
    // compactAll is the same compaction
    expect(compactAll(st, { random: 7 }).bytes).toEqual(res.bytes);
  });

  it('segment 0..1: T1 merged into the base, T2 untouched', () => {
    const st = handStack();
    const res = compactSegment(st, { start: 0, end: 1 }, { random: 7 });
    expect(res.stats).toMatchObject({ tombstonesDropped: 2, logDeletionsDropped: 1, refsOut: 4, logsOut: 3 });
    expect([...tableOf(res.bytes).refs.names]).toEqual(['refs/heads/a', 'refs/heads/c', 'refs/heads/d', 'refs/tags/t']);
    expect(res.names).toEqual([res.name, st.names[2]]);
    expect(refsOf(stackOf(stackFilesAfter(st, res)))).toBe(LIVE);
  });

  it('everything cancelled out: git lists no table', () => {
    const a = writeTable([{ name: 'refs/heads/a', updateIndex: 1, type: 1, value: id('1') }], [], {
      minUpdateIndex: 1,
      maxUpdateIndex: 1,
    });
    const b = writeTable([{ name: 'refs/heads/a', updateIndex: 2, type: 0 }], [], {
      minUpdateIndex: 2,
      maxUpdateIndex: 2,
    });
    const st = stackOf([
      { name: 'a.ref', bytes: a },
      { name: 'b.ref', bytes: b },
      { name: 'tables.list', bytes: new TextEncoder().encode('a.ref\nb.ref\n') },
    ]);
    const res = compactAll(st, { random: 1 });
    expect(res.empty).toBe(true);
    expect(res.bytes.length).toBe(92); // header + footer
    expect(res.names).toEqual([]);
    expect(res.tablesList).toBe('');
    expect(stackFilesAfter(st, res).map((f) => f.name)).toEqual(['tables.list']);
  });

  it('rejects a segment outside the stack and an unreadable table', () => {
    const st = handStack();
    expect(() => compactSegment(st, { start: 2, end: 1 })).toThrow(RangeError);
    expect(() => compactSegment(st, { start: 0, end: 3 })).toThrow(RangeError);
    const broken = {
      ...st,
      tables: [st.tables[0], null, st.tables[2]],
      broken: [{ name: st.names[1], path: st.names[1], fileSize: 1, error: new Error('x') as never }],
    };
    expect(() => compactSegment(broken, { start: 1, end: 2 })).toThrow();
    expect(compactSegment(broken, { start: 2, end: 2 }).stats.refsOut).toBe(2);
  });
});

// ---------------------------------------------------------------------------------------------
// conversion
// ---------------------------------------------------------------------------------------------
describe('convertFilesToReftable', () => {
  const PR = path.join(__dirname, 'fixtures/packed-refs/gitgit');
  const FB = path.join(__dirname, 'fixtures/files/basic');

  it('packed-refs/gitgit: refs equal truth, 1,008 peeled values from ^ lines, update index 1', () => {
    const pr = parsePackedRefs('packed-refs', new Uint8Array(fs.readFileSync(path.join(PR, 'packed-refs'))));
    const res = convertFilesToReftable(pr, { random: 0 });
    expect(res.refs).toEqual({ direct: 4294 - 1008, peeled: 1008, symref: 0 });
    expect(res.unpeeled).toBe(0); // fully-peeled header: a missing ^ line means "not a tag"
    expect(res.skipped).toEqual([]);
    expect([res.minUpdateIndex, res.maxUpdateIndex]).toEqual([1, 1]);
    expect(res.name).toBe('0x000000000001-0x000000000001-00000000.ref');
    const st = stackOf([
      { name: res.name, bytes: res.bytes },
      { name: 'tables.list', bytes: new TextEncoder().encode(res.tablesList) },
    ]);
    expect(refsOf(st)).toBe(truthRefs(PR));
    // peeled values equal truth/peeled.txt (<ref> <tag object> <peeled object>)
    const t = st.tables[0]!;
    const peeled = new Map<string, string>();
    for (let i = 0; i < t.refs.count; i++)
      if (t.refs.types[i] === 2) peeled.set(t.refs.names[i], toHex(t.refs.peeled.get(i)!));
    const truth = fs
      .readFileSync(path.join(PR, 'truth/peeled.txt'), 'latin1')
      .trim()
      .split('\n')
      .map((l) => l.split(' '));
    expect(peeled.size).toBe(truth.length);
    for (const [name, , p] of truth) expect(peeled.get(name)).toBe(p);
  });

  it('files/basic: loose over packed, symrefs, reflogs with one update index each', () => {
    const files = collectInput(FB);
    const repo = loadFilesRepo(classifyInput(files).gitFiles);
    const res = convertFilesToReftable(repo, { random: 0 });
    const st = stackOf([
      { name: res.name, bytes: res.bytes },
      { name: 'tables.list', bytes: new TextEncoder().encode(res.tablesList) },
    ]);
    expect(refsOf(st)).toBe(truthRefs(FB));
    const t = st.tables[0]!;
    // HEAD -> refs/heads/master, refs/remotes/origin/HEAD -> refs/remotes/origin/main
    expect(res.refs).toEqual({ direct: 5, peeled: 1, symref: 2 });
    expect(t.refs.targets.get(t.refs.names.indexOf('HEAD'))).toBe('refs/heads/master');
    expect([...t.refs.updateIndex].every((u) => u === 1)).toBe(true);
    // 9 reflog lines in logs/ (HEAD 2, master 2, only-loose 1, packed-then-loose 2, origin/HEAD 1, origin/main 1)
    expect(res.logs).toBe(9);
    expect([t.header.minUpdateIndex, t.header.maxUpdateIndex]).toEqual([1, 9]);
    const logs = tableLogRecords(t);
    expect(logs.map((l) => `${l.name}@${l.updateIndex}`)).toEqual([
      'HEAD@2',
      'HEAD@1',
      'refs/heads/master@4',
      'refs/heads/master@3',
      'refs/heads/only-loose@5',
      'refs/heads/packed-then-loose@7',
      'refs/heads/packed-then-loose@6',
      'refs/remotes/origin/HEAD@8',
      'refs/remotes/origin/main@9',
    ]);
    const head = logs[0];
    expect(toHex(head.oldId!)).toBe('9cd2bf1a48a4b5e413aaf9553c104d34db6fad2c');
    expect(toHex(head.newId!)).toBe('1dbc592f5c08128226fc415b1a6dbf323f38a1da');
    expect([head.committerName, head.email, head.time, head.tzOffset, head.message]).toEqual([
      'C O Mitter',
      'committer@example.com',
      1700000000,
      100,
      'commit: two\n',
    ]);
    expect(convertFilesToReftable(repo, { noReflog: true, random: 0 }).logs).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------
// JGit reads the written tables (SHA-1 only: JGit 4.11 reads v1)
// ---------------------------------------------------------------------------------------------
describe.skipIf(!jgit.available)('JGit reads compacted and converted tables', () => {
  // Every table is written first and JGit reads them all in one JVM (its start costs about a CPU
  // second); each test then compares its own table's JGit lines with refscope's.
  const tables = new Map<string, Uint8Array>();
  let read: Map<string, string[]>;
  beforeAll(() => {
    for (const fx of FIXTURES.filter((f) => f !== 'basic-sha256')) {
      const res = compactAll(loadFixture(fx), { random: 0 });
      if (res.changed) tables.set(`${fx}: compactAll`, res.bytes);
    }
    tables.set('hand-built', compactSegment(handStack(), { start: 1, end: 2 }).bytes);
    tables.set('nocompact-s3 auto', compactAuto(loadFixture('nocompact-s3'))!.bytes);
    const pr = parsePackedRefs(
      'packed-refs',
      new Uint8Array(fs.readFileSync(path.join(__dirname, 'fixtures/packed-refs/gitgit/packed-refs'))),
    );
    tables.set('gitgit converted', convertFilesToReftable(pr).bytes);
    const repo = loadFilesRepo(classifyInput(collectInput(path.join(__dirname, 'fixtures/files/basic'))).gitFiles);
    tables.set('files/basic converted', convertFilesToReftable(repo).bytes);
    const lines = jgit.readReftables([...tables.values()]);
    read = new Map([...tables.keys()].map((k, i) => [k, lines[i]]));
  });
  const check = (key: string) => {
    const t = tableOf(tables.get(key)!);
    expect(t.header.version).toBe(1);
    expect(read.get(key)).toEqual(jgitLinesOf(t));
  };
  for (const fx of FIXTURES.filter((f) => f !== 'basic-sha256')) {
    it(`${fx}: compactAll`, () => {
      if (tables.has(`${fx}: compactAll`)) check(`${fx}: compactAll`);
    });
  }
  it('hand-built stack, segment above the base (tombstones carried)', () => check('hand-built'));
  it('nocompact-s3: the auto segment', () => check('nocompact-s3 auto'));
  it('packed-refs/gitgit converted', () => check('gitgit converted'));
  it('files/basic converted', () => check('files/basic converted'));
});

// ---------------------------------------------------------------------------------------------
// report, zip
// ---------------------------------------------------------------------------------------------
describe('report: stack.compaction.afterPackRefs / afterAuto', () => {
  const report = (fx: string) =>
    buildReport(analyzeFiles(collectInput(path.join(FX, fx, 'reftable')))).stack!.compaction!;

  it("nocompact-s1: afterAuto's table has git's size; afterPackRefs is one table", () => {
    const c = report('nocompact-s1') as unknown as Record<
      string,
      { tables: number; bytes: number; records: number; newTableBytes: number; newTableRecords: number }
    >;
    expect(c.afterAuto.newTableBytes).toBe(24666);
    expect(c.afterAuto.tables).toBe(3);
    expect(c.afterAuto.bytes).toBe(24666 + 304 + 139);
    expect(c.afterPackRefs.tables).toBe(1);
    const all = compactAll(loadFixture('nocompact-s1'), { random: 0 });
    expect(c.afterPackRefs.bytes).toBe(all.bytes.length);
    expect(c.afterPackRefs.records).toBe(all.stats.refsOut + all.stats.logsOut);
  });

  it('tombstones-50k: pack-refs leaves one table of one record; no auto segment', () => {
    const c = report('tombstones-50k') as unknown as Record<string, unknown>;
    expect(c.afterPackRefs).toEqual({ tables: 1, bytes: 126, records: 1, newTableBytes: 126, newTableRecords: 1 });
    expect(c.afterAuto).toBeNull();
    expect(c.afterSkipped).toBeUndefined();
  });
});

describe('zipStack', () => {
  it('holds reftable/ with tables.list and the tables, bytes unchanged', () => {
    const st = handStack();
    const files = stackFilesAfter(st, compactSegment(st, { start: 1, end: 2 }, { random: 7 }));
    const z = unzipSync(zipStack(files, { mtime: new Date('2024-01-01T00:00:00Z') }));
    expect(Object.keys(z).sort()).toEqual(['reftable/', ...files.map((f) => `reftable/${f.name}`)].sort());
    expect(z['reftable/'].length).toBe(0); // the folder entry
    for (const f of files) expect(z[`reftable/${f.name}`]).toEqual(f.bytes);
    expect(() => zipStack([{ name: '../x', bytes: new Uint8Array(1) }])).toThrow(RangeError);
  });
});

// ---------------------------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------------------------
describe('CLI: compact and convert', () => {
  let tmp = '';
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-compact-'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  /** `node bin/refscope.mjs …` as a process: once for compact and once for convert. */
  const spawned = (...args: string[]) => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/refscope.mjs'), ...args], {
      cwd: ROOT,
      encoding: 'latin1',
      timeout: 120_000,
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  /** The same CLI in this process (test/lib/cli.ts): no Node start per call. */
  const run = (...args: string[]) => refscope(args);
  const sizes = (dir: string) =>
    fs
      .readFileSync(path.join(dir, 'tables.list'), 'utf8')
      .trim()
      .split('\n')
      .map((n) => fs.statSync(path.join(dir, n)).size);

  it("compact --auto nocompact-s1: git's table, the two newer tables copied, same refs", async () => {
    const out = path.join(tmp, 's1');
    const r = spawned('compact', path.join(FX, 'nocompact-s1/reftable'), '--out', out, '--auto');
    expect(r.code).toBe(0);
    expect(Buffer.from(r.stdout, 'latin1').toString('utf8')).toMatch(/compacted tables 0–13/);
    expect(sizes(path.join(out, 'reftable'))).toEqual([24666, 304, 139]);
    for (const n of fs.readFileSync(path.join(out, 'reftable/tables.list'), 'utf8').trim().split('\n').slice(1)) {
      expect(fs.readFileSync(path.join(out, 'reftable', n))).toEqual(
        fs.readFileSync(path.join(FX, 'nocompact-s1/reftable', n)),
      );
    }
    const refs = await run('refs', out);
    expect(refs.code).toBe(0);
    expect(refs.stdout).toBe(truthRefs(path.join(FX, 'nocompact-s1')));
  });

  it('compact --auto with nothing to compact copies the stack', async () => {
    const out = path.join(tmp, 'basic-auto');
    const r = await run('compact', path.join(FX, 'basic-sha1'), '--out', out, '--auto');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^nothing to compact/);
    for (const n of fs.readdirSync(path.join(FX, 'basic-sha1/reftable'))) {
      expect(fs.readFileSync(path.join(out, 'reftable', n))).toEqual(
        fs.readFileSync(path.join(FX, 'basic-sha1/reftable', n)),
      );
    }
  });

  for (const fx of ['basic-sha256', 'recreate-1000', 'nocompact-s3']) {
    it(`compact (--all) ${fx} into <out>/reftable: one table, same refs`, async () => {
      const out = path.join(tmp, `all-${fx}`, 'reftable');
      const r = await run('compact', path.join(FX, fx), '--out', out, '--all');
      expect(r.code).toBe(0);
      expect(fs.readFileSync(path.join(out, 'tables.list'), 'utf8').trim().split('\n')).toHaveLength(1);
      expect((await run('refs', out)).stdout).toBe(truthRefs(path.join(FX, fx)));
    });
  }

  it('convert packed-refs/gitgit and files/basic: refs equal truth', async () => {
    for (const [src, truth] of [
      [
        path.join(__dirname, 'fixtures/packed-refs/gitgit/packed-refs'),
        path.join(__dirname, 'fixtures/packed-refs/gitgit'),
      ],
      [path.join(__dirname, 'fixtures/files/basic'), path.join(__dirname, 'fixtures/files/basic')],
    ]) {
      const out = path.join(tmp, `convert-${path.basename(truth)}`);
      const r = spawned('convert', src, '--out', out, '--block-size', '1024', '--restart-interval', '4');
      expect(r.code, r.stderr).toBe(0);
      const t = tableOf(
        new Uint8Array(
          fs.readFileSync(
            path.join(out, 'reftable', fs.readFileSync(path.join(out, 'reftable/tables.list'), 'utf8').trim()),
          ),
        ),
      );
      expect(t.header.blockSize).toBe(1024);
      expect((await run('refs', out)).stdout).toBe(fs.readFileSync(path.join(truth, 'truth/refs.txt'), 'latin1'));
    }
  });

  it('usage errors exit 2; damaged input exits 3 with one line', async () => {
    const code = async (...args: string[]) => (await run(...args)).code;
    expect(await code('compact', path.join(FX, 'basic-sha1'), '--out', path.join(tmp, 'u1'), '--auto', '--all')).toBe(
      2,
    );
    expect(await code('compact', path.join(FX, 'basic-sha1'))).toBe(2);
    expect(await code('compact', path.join(FX, 'basic-sha1'), '--out', path.join(tmp, 'u2'), '--factor', '3')).toBe(2);
    expect(await code('compact', path.join(FX, 'basic-sha1'), '--out', path.join(FX, 'basic-sha1'))).toBe(2); // not empty
    expect(await code('convert', path.join(FX, 'basic-sha1'), '--out', path.join(tmp, 'u3'))).toBe(2); // already reftable
    expect(await code('compact', path.join(__dirname, 'fixtures/files/basic'), '--out', path.join(tmp, 'u4'))).toBe(2);
    // a table with a bad footer CRC
    const dir = path.join(tmp, 'damaged', 'reftable');
    fs.mkdirSync(dir, { recursive: true });
    for (const f of fs.readdirSync(path.join(FX, 'basic-sha1/reftable')))
      fs.copyFileSync(path.join(FX, 'basic-sha1/reftable', f), path.join(dir, f));
    const victim = fs.readFileSync(path.join(dir, 'tables.list'), 'utf8').trim().split('\n')[0];
    fs.chmodSync(path.join(dir, victim), 0o644);
    const b = fs.readFileSync(path.join(dir, victim));
    b[b.length - 1] ^= 0xff;
    fs.writeFileSync(path.join(dir, victim), b);
    const r = await run('compact', dir, '--out', path.join(tmp, 'u5'));
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^refscope: (reftable\/)?0x[0-9a-fx-]+\.ref: offset \d+: [^\n]+\n$/);
    expect(fs.existsSync(path.join(tmp, 'u5'))).toBe(false);
  });
});
