/**
 * `refscope diff <a> <b>`: what changed from snapshot `a` to snapshot `b` of a repository's ref
 * storage (src/engine/diff.ts): tables added, removed and merged, ref records dropped and written,
 * refs created, updated and deleted, tombstones, bytes and compaction debt, and whether the change
 * was a compaction. `--json`: `refscope.diff/1` (docs/cli.md).
 */
import { displayName, GENERATOR, readLogs, sizeText } from '../engine/index.ts';
import { diffAnalyses, type DiffRecord, type DiffRef, type DiffTable, type StackDiff } from '../engine/diff.ts';
import { writeJson, type CommandSpec, type Context } from './common.ts';
import { loadPath, firstError } from './load.ts';
import { jsonName } from './refs-cmd.ts';

export const DIFF_SCHEMA = 'refscope.diff/1';

const ref = (r: DiffRef) => ({
  ...jsonName(r.name),
  ...(r.before !== undefined ? { before: displayName(r.before) } : {}),
  ...(r.after !== undefined ? { after: displayName(r.after) } : {}),
});
const rec = (r: DiffRecord) => ({ ...jsonName(r.name), updateIndex: r.updateIndex, kind: r.kind, table: r.table });

/** The `refscope.diff/1` document. */
export function diffDoc(d: StackDiff, inputs: { kind: string; description: string }[]) {
  return {
    schema: DIFF_SCHEMA,
    generator: GENERATOR,
    before: { input: inputs[0], ...d.before },
    after: { input: inputs[1], ...d.after },
    compaction: d.compaction,
    unrelated: d.unrelated,
    writes: d.writes,
    tablesAdded: d.tablesAdded,
    tablesRemoved: d.tablesRemoved,
    tablesKept: d.tablesKept,
    merges: d.merges,
    refs: {
      created: d.refsCreated.map(ref),
      updated: d.refsUpdated.map(ref),
      deleted: d.refsDeleted.map(ref),
    },
    records: { dropped: d.recordsDropped.map(rec), written: d.recordsWritten.map(rec) },
    tombstonesAdded: d.tombstonesAdded,
    tombstonesDropped: d.tombstonesDropped,
    logsDropped: d.logsDropped,
    logsWritten: d.logsWritten,
  };
}

/** `n thing` or `n things`. */
const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

const range = (t: DiffTable) => `${t.minUpdateIndex}–${t.maxUpdateIndex}`;

/** The text output. */
export function diffText(d: StackDiff): string {
  const L: string[] = [];
  const what = d.unrelated
    ? `the stacks look unrelated (${d.unrelated}); the figures below compare two different stacks, not one stack's change`
    : d.compaction
      ? d.writes
        ? 'new transactions and a compaction'
        : 'a compaction'
      : d.writes
        ? 'new transactions'
        : 'no new transaction';
  L.push(`change: ${what}`);
  L.push(
    `tables: ${d.before.tables} -> ${d.after.tables} (${d.tablesAdded.length} added, ${d.tablesRemoved.length} removed, ${d.tablesKept} kept)`,
  );
  L.push(`bytes: ${sizeText(d.before.bytes)} -> ${sizeText(d.after.bytes)}`);
  L.push(
    `live refs: ${d.before.liveRefs} -> ${d.after.liveRefs}; tombstones: ${d.before.tombstones} -> ${d.after.tombstones}`,
  );
  const seg = (s: { start: number; end: number } | null) => (s ? `tables ${s.start}–${s.end}` : 'nothing');
  L.push(
    `compaction debt: ${d.before.debt.droppableRecords} -> ${d.after.debt.droppableRecords} records pack-refs would drop; auto-compaction would merge ${seg(d.before.debt.segment)} -> ${seg(d.after.debt.segment)}`,
  );
  for (const m of d.merges) {
    L.push(`merged: ${m.from.map((t) => `${t.name} (${range(t)})`).join(', ')}`);
    L.push(`  into ${m.table.name} (${range(m.table)})`);
  }
  for (const t of d.tablesAdded)
    if (!d.merges.some((m) => m.table.name === t.name)) L.push(`added: ${t.name} (${range(t)})`);
  const merged = new Set(d.merges.flatMap((m) => m.from.map((t) => t.name)));
  for (const t of d.tablesRemoved) if (!merged.has(t.name)) L.push(`removed: ${t.name} (${range(t)})`);
  L.push(
    `records: ${d.recordsDropped.length} dropped (${count(d.tombstonesDropped, 'tombstone')}), ${d.recordsWritten.length} written (${count(d.tombstonesAdded, 'tombstone')}); log records: ${d.logsDropped} dropped, ${d.logsWritten} written`,
  );
  for (const r of d.recordsDropped)
    L.push(`  dropped ${r.kind} ${displayName(r.name)} (update_index ${r.updateIndex}, ${r.table})`);
  for (const r of d.refsCreated) L.push(`created ${displayName(r.name)} ${displayName(r.after!)}`);
  for (const r of d.refsUpdated)
    L.push(`updated ${displayName(r.name)} ${displayName(r.before!)} -> ${displayName(r.after!)}`);
  for (const r of d.refsDeleted) L.push(`deleted ${displayName(r.name)} (was ${displayName(r.before!)})`);
  return L.join('\n') + '\n';
}

/** A table's log record keys (name NUL update_index), for counting log records dropped and written. */
export const logKeysOf = (t: Parameters<typeof readLogs>[0]) =>
  readLogs(t).map((l) => `${l.refname}\0${l.updateIndex}`);

function run(ctx: Context): number {
  const a = loadPath(ctx.positionals[0], ctx);
  const b = loadPath(ctx.positionals[1], ctx);
  const d = diffAnalyses(a, b, logKeysOf);
  const inputs = [a, b].map((x) => ({ kind: x.input.kind, description: x.input.description }));
  if (ctx.json) writeJson(diffDoc(d, inputs));
  else process.stdout.write(diffText(d));
  if (d.unrelated)
    process.stderr.write(
      `refscope: warning: ${displayName(ctx.positionals[0])} and ${displayName(ctx.positionals[1])} look unrelated: ${displayName(d.unrelated)}\n`,
    );
  const err = firstError(a) ?? firstError(b);
  if (err) {
    process.stderr.write(`refscope: ${displayName(err.message)}\n`);
    return 3;
  }
  return 0;
}

export const diffCommand: CommandSpec = {
  name: 'diff',
  usage: '[options] <a> <b>',
  summary:
    'What changed from snapshot <a> to snapshot <b> of the same ref storage: tables added, removed and merged, records dropped and written, refs created, updated and deleted, bytes and compaction debt, and whether it was a compaction.',
  args: { min: 2, max: 2 },
  options: {},
  schema: DIFF_SCHEMA,
  run,
};
