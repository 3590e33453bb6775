/**
 * synthetic: stacks of the recreate kind written with refscope's own writer (writer.ts, byte-
 * compatible with git's), for extrapolation checks, the performance test and the curve's
 * validation. Shape, as the recreate-n fixtures: a base table (HEAD → refs/heads/main,
 * refs/heads/main, n refs) at update indexes 1–3, then a table of tombstones for main and
 * `deleted` of the n refs (all by default) at update index 4.
 */
import { memorySource } from '../basics.ts';
import { openTable, type Table } from '../reftable/table.ts';
import { type Stack } from '../reftable/stack.ts';
import { mergeTables, type MergedView } from '../reftable/merged.ts';
import { writeTable, tableFileName, type RefRecordIn } from '../reftable/writer.ts';
import { syntheticOid } from './workload.ts';

/** What to build. */
export interface RecreateShape {
  /** Refs in the base table (besides HEAD and main). */
  refs: number;
  /** How many of them the tombstone table deletes (spread evenly); default all. */
  deleted?: number;
  /** Name of ref i; default `refs/heads/ref-<i>`. */
  name?: (i: number) => string;
  /** Write the refs as annotated tags (value + peeled id, value type 2), as a clone's tags are. */
  peeled?: boolean;
}

/** A built stack, ready for `SimStore`. */
export interface BuiltStack {
  stack: Stack;
  merged: MergedView;
  /** `create <name> <oid>` lines re-creating the deleted refs (recreate.stdin). */
  recreateStdin: string;
}

function oidBytes(hex: string): Uint8Array {
  const b = new Uint8Array(hex.length / 2);
  for (let i = 0; i < b.length; i++) b[i] = parseInt(hex.substr(2 * i, 2), 16);
  return b;
}

function table(name: string, bytes: Uint8Array): Table {
  return openTable({ path: name, source: memorySource(bytes) }, { logs: false });
}

/** Build a recreate-shaped stack in memory. */
export function buildRecreateStack(shape: RecreateShape): BuiltStack {
  const n = shape.refs;
  const del = Math.min(n, shape.deleted ?? n);
  const nameOf = shape.name ?? ((i: number) => `refs/heads/ref-${i}`);
  const refs: { name: string; oid: string; peeled?: string }[] = [];
  // A peeled ref's value is its tag object; the peeled id is the commit.
  for (let i = 0; i < n; i++)
    refs.push({
      name: nameOf(i),
      oid: shape.peeled ? syntheticOid(3 * n + 7 + i) : syntheticOid(i),
      peeled: shape.peeled ? syntheticOid(i) : undefined,
    });
  refs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const mainOid = syntheticOid(n + 1);
  const base: RefRecordIn[] = [
    { name: 'HEAD', updateIndex: 1, type: 3, target: 'refs/heads/main' },
    ...[
      ...refs.map((r): RefRecordIn =>
        r.peeled
          ? { name: r.name, updateIndex: 3, type: 2, value: oidBytes(r.oid), peeled: oidBytes(r.peeled) }
          : { name: r.name, updateIndex: 3, type: 1, value: oidBytes(r.oid) },
      ),
      { name: 'refs/heads/main', updateIndex: 2, type: 1, value: oidBytes(mainOid) } as RefRecordIn,
    ].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  ];
  const gone = new Set<number>();
  for (let k = 0; k < del; k++) gone.add(Math.floor(((k + 0.5) * n) / del));
  const tomb: RefRecordIn[] = [{ name: 'refs/heads/main', updateIndex: 4, type: 0 }];
  const lines: string[] = [];
  refs.forEach((r, i) => {
    if (!gone.has(i)) return;
    tomb.push({ name: r.name, updateIndex: 4, type: 0 });
    lines.push(`create ${r.name} ${r.oid}\n`);
  });
  tomb.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const t0 = table(tableFileName(1, 3, 1), writeTable(base, [], { minUpdateIndex: 1, maxUpdateIndex: 3 }));
  const t1 = table(tableFileName(4, 4, 2), writeTable(tomb, [], { minUpdateIndex: 4, maxUpdateIndex: 4 }));
  const tables = [t0, t1];
  const stack: Stack = { listPath: '', names: tables.map((t) => t.name), tables, broken: [], findings: [] };
  return { stack, merged: mergeTables(tables), recreateStdin: lines.join('') };
}

/** A stack of the given tables (each a list of records, written by refscope's writer), oldest first. */
export function buildStack(tables: RefRecordIn[][]): { stack: Stack; merged: MergedView } {
  let ui = 1;
  const ts = tables.map((recs, i) => {
    const lo = ui;
    const hi = Math.max(lo, ...recs.map((r) => r.updateIndex));
    ui = hi + 1;
    const sorted = [...recs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return table(tableFileName(lo, hi, i + 1), writeTable(sorted, [], { minUpdateIndex: lo, maxUpdateIndex: hi }));
  });
  const stack: Stack = { listPath: '', names: ts.map((t) => t.name), tables: ts, broken: [], findings: [] };
  return { stack, merged: mergeTables(ts) };
}

/**
 * The recorded real-git workloads (bench/realgit-timings.ts, measured/real-gits.json) rebuilt
 * for the simulator: the store as git had it before the timed step and the step's
 * `update-ref --stdin` input. Refs are `refs/heads/br-<i>` at distinct ids (`syntheticOid(i)`:
 * the bench's are real commits; the ref store's work does not depend on which ids), HEAD a symref
 * to refs/heads/main, main at its own id.
 *
 * Reftable, as git leaves it (auto-compaction after each commit merges the small tables):
 * - `create` (and its variants): one table {HEAD, main}; n creates (`per-ref`: each in its own
 *   transaction; `same-object`: every ref at one id);
 * - `delete`: one table {HEAD, main, n refs}; n + 1 deletes with their old ids;
 * - `recreate`: that table plus one of n + 1 tombstones (the recreate-n fixtures' shape); n creates;
 * - `recreate-packed`: after `git pack-refs`: one table {HEAD}; n creates.
 * Files: loose refs under refs/heads, HEAD; `delete-packed` deletes n + 1 packed refs;
 * `recreate`, `recreate-after-packed-delete` create n loose refs in a store without them.
 */
export function measuredCaseInput(
  backend: 'reftable' | 'files',
  workload: string,
  step: string,
  n: number,
): {
  input:
    | { kind: 'reftable'; stack: Stack; merged: MergedView; description: string }
    | { kind: 'files'; files: { path: string; bytes: Uint8Array }[]; description: string };
  stdin: string;
} {
  const name = (i: number) => `refs/heads/br-${i}`;
  const oid = (i: number) => (workload === 'same-object' ? syntheticOid(0) : syntheticOid(i));
  const mainOid = syntheticOid(10_000_000);
  const creates = Array.from({ length: n }, (_, i) => `create ${name(i)} ${oid(i)}\n`);
  const stdin =
    step === 'delete' || step === 'delete-packed'
      ? [
          ...Array.from({ length: n }, (_, i) => `delete ${name(i)} ${oid(i)}\n`),
          `delete refs/heads/main ${mainOid}\n`,
        ].join('')
      : workload === 'per-ref'
        ? creates.map((l) => `start\n${l}commit\n`).join('')
        : creates.join('');
  const description = `${backend} ${workload} ${step} n=${n}`;
  if (backend === 'files') {
    const enc = (s: string) => new TextEncoder().encode(s);
    const files: { path: string; bytes: Uint8Array }[] = [{ path: 'HEAD', bytes: enc('ref: refs/heads/main\n') }];
    if (step === 'delete') {
      files.push({ path: 'refs/heads/main', bytes: enc(mainOid + '\n') });
      for (let i = 0; i < n; i++) files.push({ path: name(i), bytes: enc(oid(i) + '\n') });
    } else if (step === 'delete-packed') {
      const lines = [
        { n: 'refs/heads/main', o: mainOid },
        ...Array.from({ length: n }, (_, i) => ({ n: name(i), o: oid(i) })),
      ]
        .sort((a, b) => (a.n < b.n ? -1 : a.n > b.n ? 1 : 0))
        .map((r) => `${r.o} ${r.n}\n`);
      files.push({
        path: 'packed-refs',
        bytes: enc('# pack-refs with: peeled fully-peeled sorted \n' + lines.join('')),
      });
    } else if (step === 'recreate-after-packed-delete') {
      files.push({ path: 'packed-refs', bytes: enc('# pack-refs with: peeled fully-peeled sorted \n') });
    } else if (step === 'create' || step === 'create-loose') {
      files.push({ path: 'refs/heads/main', bytes: enc(mainOid + '\n') });
    }
    return { input: { kind: 'files', files, description }, stdin };
  }
  const hex = (h: string) => oidBytes(h);
  const head: RefRecordIn = { name: 'HEAD', updateIndex: 1, type: 3, target: 'refs/heads/main' };
  const main: RefRecordIn = { name: 'refs/heads/main', updateIndex: 2, type: 1, value: hex(mainOid) };
  const refs = (ui: number): RefRecordIn[] =>
    Array.from({ length: n }, (_, i) => ({ name: name(i), updateIndex: ui, type: 1 as const, value: hex(oid(i)) }));
  let tables: RefRecordIn[][];
  if (step === 'delete') tables = [[head, main, ...refs(3)]];
  else if (step === 'recreate') {
    tables = [
      [head, main, ...refs(3)],
      [
        { name: 'refs/heads/main', updateIndex: 4, type: 0 },
        ...Array.from({ length: n }, (_, i): RefRecordIn => ({ name: name(i), updateIndex: 4, type: 0 })),
      ],
    ];
  } else if (step === 'recreate-packed') tables = [[{ ...head, updateIndex: 4 }]];
  else tables = [[head, main]];
  const b = buildStack(tables);
  return { input: { kind: 'reftable', ...b, description }, stdin };
}
