/**
 * `refscope show <path> <refname>`: every record a reftable stack holds for one name, newest table
 * first (update_index, kind, which one git reads and what each shadows), and its reflog entries.
 * `--json`: `refscope.history/1` (docs/cli.md). Each table is read with one point seek.
 */
import { displayName, GENERATOR, type LogRecord } from '../engine/index.ts';
import { refHistory, type HistoryRecord, type RefHistory } from '../engine/history.ts';
import { EXIT_NOTHING, writeJson, type CommandSpec, type Context } from './common.ts';
import { loadPath, firstError } from './load.ts';
import { jsonName } from './refs-cmd.ts';

export const HISTORY_SCHEMA = 'refscope.history/1';

/** The `refscope.history/1` document of a history. */
export function historyDoc(h: RefHistory, input: { kind: string; description: string }) {
  return {
    schema: HISTORY_SCHEMA,
    generator: GENERATOR,
    input,
    ...jsonName(h.name),
    live: h.live,
    winner: h.records[0]?.table ?? null,
    tables: h.tables,
    tablesRead: h.tablesRead,
    records: h.records.map((r) => ({
      table: r.table,
      tableIndex: r.tableIndex,
      updateIndex: r.updateIndex,
      kind: r.kind,
      ...(r.oid !== undefined ? { oid: r.oid } : {}),
      ...(r.peeled !== undefined ? { peeled: r.peeled } : {}),
      ...(r.target !== undefined ? { target: displayName(r.target) } : {}),
      wins: r.wins,
      shadowedBy: r.shadowedBy,
      hides: r.hides,
    })),
    logs: h.logs.map((l) => ({
      table: l.table,
      tableIndex: l.tableIndex,
      updateIndex: l.updateIndex,
      type: l.type,
      wins: l.wins,
      ...(l.type === 'update'
        ? {
            oldId: l.oldId,
            newId: l.newId,
            name: l.name,
            email: l.email,
            time: l.time,
            tzOffset: l.tzOffset,
            message: l.message,
          }
        : {}),
    })),
    work: { seeks: h.seek.seeks, blocksRead: h.seek.indexBlocks + h.seek.leafBlocks, logBlocksRead: h.logBlocksRead },
  };
}

function kindText(r: HistoryRecord): string {
  if (r.kind === 'value') return r.oid!;
  if (r.kind === 'peeled') return `${r.oid} (peeled ${r.peeled})`;
  if (r.kind === 'symref') return `ref: ${displayName(r.target!)}`;
  return 'tombstone (deleted)';
}

function tz(n: number): string {
  const s = n < 0 ? '-' : '+';
  return s + String(Math.abs(n)).padStart(4, '0');
}

function logText(l: LogRecord & { table: string; wins: boolean }): string {
  const head = `  ${String(l.updateIndex).padStart(6)}  `;
  const tail = l.wins ? '' : `  (shadowed by a newer table's entry)`;
  if (l.type === 'deletion') return `${head}log deletion  ${l.table}${tail}`;
  const msg = l.message ? `  ${l.message.replace(/\n$/, '')}` : '';
  return `${head}${l.oldId} -> ${l.newId}  ${l.name} <${l.email}> ${l.time} ${tz(l.tzOffset ?? 0)}${msg}  ${l.table}${tail}`;
}

/** The text output: a state line, the records, the reflog. */
export function historyText(h: RefHistory): string {
  const name = displayName(h.name);
  const lines: string[] = [];
  const w = h.records[0];
  if (!w)
    lines.push(
      h.tablesRead === 1
        ? `${name}: no record in the one table`
        : `${name}: no record in ${h.tablesRead === 1 ? 'the one table' : `any of the ${h.tablesRead} tables`}`,
    );
  else if (w.kind === 'tombstone') lines.push(`${name}: deleted (the tombstone in ${w.table} wins)`);
  else lines.push(`${name}: ${kindText(w)} (from ${w.table})`);
  if (h.records.length) {
    lines.push(
      '',
      `records, newest first (${h.records.length} of ${h.tablesRead} ${h.tablesRead === 1 ? 'table' : 'tables'} ${h.records.length === 1 ? 'holds' : 'hold'} one):`,
    );
    for (const r of h.records) {
      const state = r.wins
        ? r.hides.length
          ? `wins, shadows ${r.hides.length} older ${r.hides.length === 1 ? 'record' : 'records'}`
          : 'wins'
        : `shadowed by ${r.shadowedBy}`;
      lines.push(`  ${String(r.updateIndex).padStart(6)}  ${r.kind.padEnd(9)}  ${r.table}  ${state}`);
      if (r.kind !== 'tombstone') lines.push(`          ${kindText(r)}`);
    }
  }
  lines.push(
    '',
    h.logs.length
      ? `reflog, newest first (${h.logs.length} ${h.logs.length === 1 ? 'entry' : 'entries'}):`
      : 'reflog: no entries',
  );
  for (const l of h.logs) lines.push(logText(l));
  return lines.join('\n') + '\n';
}

function run(ctx: Context): number {
  const a = loadPath(ctx.positionals[0], ctx);
  const err = firstError(a);
  const h = refHistory(a, ctx.positionals[1]);
  if (ctx.json) writeJson(historyDoc(h, { kind: a.input.kind, description: a.input.description }));
  else process.stdout.write(historyText(h));
  if (err) {
    process.stderr.write(`refscope: ${displayName(err.message)}\n`);
    return 3;
  }
  // Nothing of the name anywhere: exit 1, as `git show-ref <name>` does when no ref matches
  // (builtin/show-ref.c, cmd_show_ref_patterns), so a script can test for the name.
  return h.records.length === 0 && h.logs.length === 0 ? EXIT_NOTHING : 0;
}

export const showCommand: CommandSpec = {
  name: 'show',
  usage: '[options] <path> <refname>',
  summary:
    "A ref's history in a reftable stack: every record of the name in every table, newest first (update_index, kind, which one git reads and what it shadows), and its reflog entries.",
  args: { min: 2, max: 2 },
  options: {},
  schema: HISTORY_SCHEMA,
  details:
    'Exit code 1: the name has no record and no reflog entry in any table (what was found is still\n' +
    'printed), as `git show-ref <name>` exits 1 when no ref matches.',
  run,
};
