/**
 * `git update-ref --stdin` input (text and -z) and workload specs. Expectations are written by
 * hand from git's documented grammar (Documentation/git-update-ref.adoc, builtin/update-ref.c):
 * text mode splits on single spaces, C-quoted arguments, an empty value means zero; -z separates
 * arguments by NUL, an empty <old-oid> means "not given", an empty <new-oid> in update means
 * zero; transactions: OPEN → start → prepare → commit/abort, with git's error messages.
 */
import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { FormatError, openTable, memorySource, mergeTables, type Stack } from '../src/engine/index.ts';
import { parseUpdateRefStdin, parseWorkloadSpec, SpecError, type RefUpdate } from '../src/engine/simulate/workload.ts';
import { Simulator } from '../src/engine/simulate/index.ts';

const A = '1'.repeat(40),
  B = '2'.repeat(40),
  C = 'c'.repeat(40),
  Z = '0'.repeat(40);

function upd(
  op: RefUpdate['op'],
  ref: string,
  newValue: RefUpdate['newValue'],
  oldValue: RefUpdate['oldValue'],
  oidArgs: string[],
  noDeref = false,
): RefUpdate {
  return { op, ref, newValue, oldValue, noDeref, oidArgs };
}

/** The FormatError a parse throws (offset and expectation). */
function failure(input: string, z = false): { offset: number; expected: string } {
  try {
    parseUpdateRefStdin(input, { z, file: 'in' });
  } catch (e) {
    expect(e).toBeInstanceOf(FormatError);
    const f = e as FormatError;
    expect(f.file).toBe('in');
    return { offset: f.offset, expected: f.expected };
  }
  throw new Error('no error');
}

describe('update-ref --stdin, text mode', () => {
  it('create, update, delete, verify: one implicit transaction committed at the end', () => {
    const txs = parseUpdateRefStdin(
      `create refs/heads/a ${A}\nupdate refs/heads/b ${B} ${A}\ndelete refs/heads/c\nverify refs/heads/d\n`,
    );
    expect(txs).toEqual([
      {
        end: 'commit',
        prepared: true,
        updates: [
          upd('create', 'refs/heads/a', { kind: 'oid', oid: A }, { kind: 'zero' }, [A]),
          upd('update', 'refs/heads/b', { kind: 'oid', oid: B }, { kind: 'oid', oid: A }, [B, A]),
          upd('delete', 'refs/heads/c', { kind: 'delete' }, null, []),
          upd('verify', 'refs/heads/d', null, { kind: 'zero' }, []),
        ],
      },
    ]);
  });

  it('update with a zero new value deletes; verify with an old value checks it; an upper-case id is lower-cased', () => {
    const txs = parseUpdateRefStdin(`update refs/heads/a ${Z}\nverify refs/heads/b ${C.toUpperCase()}\n`);
    expect(txs[0].updates).toEqual([
      upd('update', 'refs/heads/a', { kind: 'delete' }, null, [Z]),
      upd('verify', 'refs/heads/b', null, { kind: 'oid', oid: C }, [C.toUpperCase()]),
    ]);
  });

  it('an empty old value (trailing space) means zero: the ref must not exist', () => {
    const txs = parseUpdateRefStdin(`update refs/heads/a ${A} \n`);
    expect(txs[0].updates[0].oldValue).toEqual({ kind: 'zero' });
  });

  it('C-quoted ref names ("\\157" is o); a revision instead of an id is kept for the dwim reads', () => {
    const txs = parseUpdateRefStdin(`create "refs/heads/f\\157o" ${A}\nupdate refs/heads/x main~2\n`);
    expect(txs[0].updates[0].ref).toBe('refs/heads/foo');
    expect(txs[0].updates[1]).toEqual(upd('update', 'refs/heads/x', { kind: 'oid', oid: 'main~2' }, null, ['main~2']));
  });

  it('option no-deref applies to the next command only', () => {
    const txs = parseUpdateRefStdin(`option no-deref\nupdate HEAD ${A}\nupdate HEAD ${B}\n`);
    expect(txs[0].updates.map((u) => u.noDeref)).toEqual([true, false]);
  });

  it('symref commands: create, update with an old target or an old id, delete, verify', () => {
    const txs = parseUpdateRefStdin(
      `symref-create refs/heads/s refs/heads/main\nsymref-update HEAD refs/heads/b ref refs/heads/a\nsymref-update refs/x refs/heads/c oid ${A}\nsymref-delete refs/heads/s\nsymref-verify HEAD refs/heads/b\n`,
    );
    expect(txs[0].updates).toEqual([
      upd('symref-create', 'refs/heads/s', { kind: 'symref', target: 'refs/heads/main' }, { kind: 'zero' }, [], false),
      upd(
        'symref-update',
        'HEAD',
        { kind: 'symref', target: 'refs/heads/b' },
        { kind: 'symref', target: 'refs/heads/a' },
        [],
        true,
      ),
      upd('symref-update', 'refs/x', { kind: 'symref', target: 'refs/heads/c' }, { kind: 'oid', oid: A }, [A], true),
      upd('symref-delete', 'refs/heads/s', { kind: 'delete' }, null, [], true),
      upd('symref-verify', 'HEAD', null, { kind: 'symref', target: 'refs/heads/b' }, [], true),
    ]);
  });

  it('transactions: start…commit, start…abort, prepare then abort, left open at the end (aborted)', () => {
    const txs = parseUpdateRefStdin(
      `start\ncreate refs/heads/a ${A}\ncommit\nstart\ncreate refs/heads/b ${A}\nabort\nstart\ncreate refs/heads/c ${A}\nprepare\nabort\nstart\ncreate refs/heads/d ${A}\n`,
    );
    expect(txs.map((t) => [t.updates.map((u) => u.ref), t.end, t.prepared])).toEqual([
      [['refs/heads/a'], 'commit', true],
      [['refs/heads/b'], 'abort', false],
      [['refs/heads/c'], 'abort', true],
      [['refs/heads/d'], 'abort', false],
    ]);
  });

  it('"start" after updates upgrades the open transaction; commit closes it', () => {
    const txs = parseUpdateRefStdin(`create refs/heads/a ${A}\nstart\ncreate refs/heads/b ${A}\ncommit\n`);
    expect(txs.map((t) => t.updates.length)).toEqual([2]);
  });

  it('errors, with the byte offset git would point at', () => {
    const line1 = `create refs/heads/a ${A}\n`; // 61 bytes
    expect(line1.length).toBe(61);
    expect(failure(`${line1}foo bar\n`)).toMatchObject({ offset: 61 });
    expect(failure(`${line1}foo bar\n`).expected).toContain('unknown command');
    expect(failure(` create refs/heads/a ${A}\n`)).toMatchObject({ offset: 0 });
    expect(failure(`${line1}\n`).expected).toContain('empty command');
    expect(failure(`${line1}\n`).offset).toBe(61);
    // "create refs/heads/a " is 20 bytes: the zero id starts there.
    expect(failure(`create refs/heads/a ${Z}\n`)).toMatchObject({ offset: 20 });
    expect(failure(`create refs/heads/a ${Z}\n`).expected).toContain('zero <new-oid>');
    // Missing new value: at the end of the line (19).
    expect(failure('create refs/heads/a\n')).toMatchObject({ offset: 19 });
    expect(failure(`create refs/heads/a..b ${A}\n`)).toMatchObject({ offset: 7 });
    expect(failure(`create refs/heads/a..b ${A}\n`).expected).toContain('invalid ref format');
    // "update refs/heads/a " + 40 + " " + 40 + " " = 102: the extra argument.
    expect(failure(`update refs/heads/a ${A} ${B} extra\n`)).toMatchObject({ offset: 102 });
    expect(failure(`delete refs/heads/a ${Z}\n`).expected).toContain('zero <old-oid>');
    expect(failure('option foo\n')).toMatchObject({ offset: 7 });
    expect(failure('start\nstart\n')).toMatchObject({ offset: 6 });
    expect(failure('start\nstart\n').expected).toContain('cannot restart ongoing transaction');
    expect(failure(`commit\ncreate refs/heads/a ${A}\n`)).toMatchObject({ offset: 7 });
    expect(failure(`commit\ncreate refs/heads/a ${A}\n`).expected).toContain('transaction is closed');
    expect(failure(`start\nprepare\ncreate refs/heads/a ${A}\n`).expected).toContain(
      'prepared transactions can only be closed',
    );
    expect(failure('create "refs/heads/a\n').expected).toContain('closing');
    // Two spaces: git reads an empty argument between them, which text mode takes as the zero id.
    expect(failure(`create refs/heads/a  ${A}\n`)).toMatchObject({ offset: 20 });
    expect(failure(`create refs/heads/a  ${A}\n`).expected).toContain('zero <new-oid>');
    expect(failure(`create refs/heads/a\t${A}\n`).expected).toContain('single space');
  });
});

describe('update-ref --stdin -z', () => {
  it('NUL-separated arguments; an empty <old-oid> is "not given", an empty update <new-oid> is zero', () => {
    const input = `create refs/heads/a\0${A}\0update refs/heads/b\0${B}\0\0update refs/heads/c\0\0${A}\0delete refs/heads/d\0\0verify refs/heads/e\0${A}\0`;
    const txs = parseUpdateRefStdin(input, { z: true });
    expect(txs[0].updates).toEqual([
      upd('create', 'refs/heads/a', { kind: 'oid', oid: A }, { kind: 'zero' }, [A]),
      upd('update', 'refs/heads/b', { kind: 'oid', oid: B }, null, [B]),
      upd('update', 'refs/heads/c', { kind: 'delete' }, { kind: 'oid', oid: A }, [A]),
      upd('delete', 'refs/heads/d', { kind: 'delete' }, null, []),
      upd('verify', 'refs/heads/e', null, { kind: 'oid', oid: A }, [A]),
    ]);
  });

  it('ref names may hold spaces in -z mode only if git accepts them (it does not)', () => {
    // "create " is 7 bytes: the ref name starts there.
    expect(failure(`create refs/heads/a b\0${A}\0`, true)).toMatchObject({ offset: 7 });
  });

  it('start/commit as NUL-terminated commands; a missing new value at the end of input', () => {
    const txs = parseUpdateRefStdin(`start\0create refs/heads/a\0${A}\0commit\0`, { z: true });
    expect(txs).toEqual([
      {
        end: 'commit',
        prepared: true,
        updates: [upd('create', 'refs/heads/a', { kind: 'oid', oid: A }, { kind: 'zero' }, [A])],
      },
    ]);
    expect(failure('create refs/heads/a\0', true).expected).toContain('missing <new-oid>');
  });

  it('SHA-256 ids: 64 hex digits are full ids, 40 are a revision', () => {
    const h = 'ab'.repeat(32);
    const txs = parseUpdateRefStdin(`create refs/heads/a ${h}\n`, { hexLength: 64 });
    expect(txs[0].updates[0].newValue).toEqual({ kind: 'oid', oid: h });
  });
});

describe('workload specs', () => {
  it('parses the documented forms', () => {
    expect(parseWorkloadSpec('recreate')).toEqual({ kind: 'recreate', perRef: false });
    expect(parseWorkloadSpec('recreate:per-ref')).toEqual({ kind: 'recreate', perRef: true });
    expect(parseWorkloadSpec('create:10000:refs/heads/new/')).toEqual({
      kind: 'create',
      n: 10000,
      prefix: 'refs/heads/new/',
      perRef: false,
    });
    expect(parseWorkloadSpec('delete-all:per-ref')).toEqual({ kind: 'delete-all', perRef: true });
    expect(parseWorkloadSpec('lookup:missing:1000')).toEqual({ kind: 'lookup', which: 'missing', n: 1000 });
    expect(parseWorkloadSpec('lookup:names:refs/heads/a:HEAD')).toEqual({
      kind: 'lookup-names',
      names: ['refs/heads/a', 'HEAD'],
    });
    expect(parseWorkloadSpec('scan:refs/tags/')).toEqual({ kind: 'scan', prefix: 'refs/tags/', n: 1 });
    expect(parseWorkloadSpec('scan:refs/tags/:5')).toEqual({ kind: 'scan', prefix: 'refs/tags/', n: 5 });
    expect(parseWorkloadSpec('oid:7')).toEqual({ kind: 'oid', n: 7 });
    expect(parseWorkloadSpec('lookup:oid:7')).toEqual({ kind: 'oid', n: 7 });
  });

  it('rejects malformed specs', () => {
    for (const s of [
      '',
      'bogus',
      'create:abc:refs/x',
      'create:0:refs/x/',
      'create:5',
      'create:5:refs/a..b',
      'lookup:weird:5',
      'recreate:twice',
      'lookup:missing',
    ]) {
      expect(() => parseWorkloadSpec(s), s).toThrow(SpecError);
    }
  });

  it("recreate on recreate-1000 re-creates exactly what git's truth/recreate.stdin re-creates (plus refs/heads/main)", () => {
    const dir = path.join(__dirname, 'fixtures/reftable/recreate-1000/reftable');
    const tables = fs
      .readFileSync(path.join(dir, 'tables.list'), 'utf8')
      .trim()
      .split('\n')
      .map((n) => openTable({ path: n, source: memorySource(fs.readFileSync(path.join(dir, n))) }));
    const stack: Stack = { listPath: '', names: tables.map((t) => t.name), tables, broken: [], findings: [] };
    const sim = new Simulator({ kind: 'reftable', stack, merged: mergeTables(tables), description: '' });
    const w = sim.parseSpec('recreate');
    if (w.kind !== 'updates') throw new Error('updates expected');
    const got = new Map(
      w.transactions[0].updates.map((u) => [u.ref, u.newValue?.kind === 'oid' ? u.newValue.oid : null]),
    );
    const truth = fs
      .readFileSync(path.join(dir, '../truth/recreate.stdin'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' '));
    expect(truth.length).toBe(1000);
    for (const [, ref, oid] of truth) expect(got.get(ref), ref).toBe(oid);
    expect(got.size).toBe(1001);
    expect(got.has('refs/heads/main')).toBe(true);
  });
});
