/**
 * synthetic: stacks of the recreate kind written with refscope's own writer (writer.ts, byte-
 * compatible with git's), for extrapolation checks, the performance test and the curve's
 * validation. Shape, as the recreate-n fixtures: a base table (HEAD → refs/heads/main,
 * refs/heads/main, n refs) at update indexes 1–3, then a table of tombstones for main and
 * `deleted` of the n refs (all by default) at update index 4.
 */
import { memorySource } from '../basics.ts';
import { openTable, type Table } from '../table.ts';
import { mergeTables, type Stack, type MergedView } from '../stack.ts';
import { writeTable, tableFileName, type RefRecordIn } from '../writer.ts';
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
  for (let i = 0; i < n; i++) refs.push({ name: nameOf(i), oid: shape.peeled ? syntheticOid(3 * n + 7 + i) : syntheticOid(i), peeled: shape.peeled ? syntheticOid(i) : undefined });
  refs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const mainOid = syntheticOid(n + 1);
  const base: RefRecordIn[] = [
    { name: 'HEAD', updateIndex: 1, type: 3, target: 'refs/heads/main' },
    ...[...refs.map((r): RefRecordIn => (r.peeled
      ? { name: r.name, updateIndex: 3, type: 2, value: oidBytes(r.oid), peeled: oidBytes(r.peeled) }
      : { name: r.name, updateIndex: 3, type: 1, value: oidBytes(r.oid) })),
      { name: 'refs/heads/main', updateIndex: 2, type: 1, value: oidBytes(mainOid) } as RefRecordIn]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
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
