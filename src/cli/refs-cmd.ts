/**
 * `refscope refs <path>`: the live refs, one "<object id> <refname>" per line, byte-sorted:
 * exactly what `git for-each-ref --include-root-refs --format='%(objectname) %(refname)'` prints
 * on the same repository (symrefs show their target's id; dangling symrefs are left out).
 * `--json`: `refscope.refs/1`, the same list as objects (docs/cli.md).
 */
// The engine's modules themselves, not its index: the index brings the report, the simulator and
// the writer into the code `refs` loads at start.
import { memorySource } from '../engine/basics.ts';
import { analysisRefs } from '../engine/analyze.ts';
import { classifyInput } from '../engine/input.ts';
import { loadStack } from '../engine/reftable/stack.ts';
import type { Table } from '../engine/reftable/table.ts';
import { refsLines, tableRefsLines } from '../engine/refs.ts';
import { GENERATOR } from '../engine/version.ts';
import { writeOut, writeJson, type CommandSpec, type Context } from './common.ts';
import { inputFiles, loadPath, oneTableOf, CLI_READ_AHEAD } from './load.ts';
import { watchTables } from './progress.ts';

export const REFS_SCHEMA = 'refscope.refs/1';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const lossy = new TextDecoder('utf-8');

/** A byte-string ref name as JSON: the UTF-8 text, plus its bytes in hex when they are not UTF-8. */
export function jsonName(name: string): { name: string; nameHex?: string } {
  const bytes = Uint8Array.from(name, (c) => c.charCodeAt(0));
  try {
    return { name: utf8.decode(bytes) };
  } catch {
    return { name: lossy.decode(bytes), nameHex: Buffer.from(bytes).toString('hex') };
  }
}

/** Largest table the one-table path reads into memory whole (see `oneTable`). */
const WHOLE_TABLE = 1 << 30;

/**
 * The table of a stack of exactly one table (what `git pack-refs` and `git gc` leave), opened
 * without ref columns; null for anything else (several tables, a worktree, packed-refs,
 * standard input), which takes the general path. The table is checked whole before a line is
 * printed, as on the general path (a damaged table lists nothing, as git refuses a damaged
 * stack); then its ref blocks are read a second time to write the listing (refs.ts
 * `tableRefsLines`), so nothing per ref is held: the merged view of a single table is the table
 * itself. (Holding the records of the first pass instead, until the table is accepted, was
 * measured slower: a million refs hold 34 MB, and writing and reading them back costs more
 * than decoding the blocks again.)
 */
function oneTable(ctx: Context): Table | null {
  const p = ctx.positionals[0];
  if (!p || p === '-') return null;
  const input = classifyInput(inputFiles(p));
  const table = oneTableOf(input);
  if (!table) return null;
  // Without columns nothing large sits beside the file's bytes: a table up to `WHOLE_TABLE` is
  // read with one read and both passes work on that buffer (as git maps the file); a larger
  // one is read a window at a time.
  const whole = table.source.size <= WHOLE_TABLE;
  const tableFiles = input.tableFiles.map((f) =>
    whole && f === table ? { path: f.path, source: memorySource(f.source.read(0, f.source.size)) } : f,
  );
  const watched = watchTables(tableFiles, ctx.progress);
  let stack;
  try {
    stack = loadStack(input.tablesList, watched.files, {
      logs: false,
      refColumns: false,
      wholeReadLimit: whole ? WHOLE_TABLE : 0,
      readAhead: CLI_READ_AHEAD,
      deadline: ctx.deadline,
      onProgress: watched.onBytes,
    });
  } finally {
    ctx.progress.done();
  }
  const err = stack.broken[0]?.error;
  if (err) throw err;
  return stack.tables.length === 1 ? stack.tables[0] : null;
}

async function run(ctx: Context): Promise<number> {
  if (!ctx.json) {
    const t = oneTable(ctx);
    if (t) {
      const it = tableRefsLines(t, { reuse: true });
      for (let c = it.next(); c; c = it.next()) await writeOut(c);
      return 0;
    }
  }
  const a = loadPath(ctx.positionals[0], ctx, { logs: false });
  const err = a.stack?.broken[0]?.error;
  if (err) throw err;
  if (ctx.json) {
    const refs = analysisRefs(a).map((r) => ({ ...jsonName(r.name), oid: r.oid }));
    writeJson({
      schema: REFS_SCHEMA,
      generator: GENERATOR,
      input: { kind: a.input.kind, description: a.input.description },
      count: refs.length,
      refs,
    });
    return 0;
  }
  if (a.stack && a.merged) {
    // Chunk by chunk as the merged iteration fills them: the listing is never held whole, and
    // one buffer serves every chunk (each is written out before the next is made).
    const it = refsLines(a.stack.tables, a.merged, { reuse: true });
    for (let c = it.next(); c; c = it.next()) await writeOut(c);
    return 0;
  }
  // Names are byte strings: write them as raw bytes.
  const chunks: string[] = [];
  for (const r of analysisRefs(a)) chunks.push(`${r.oid} ${r.name}\n`);
  await writeOut(Buffer.from(chunks.join(''), 'latin1'));
  return 0;
}

export const refsCommand: CommandSpec = {
  name: 'refs',
  usage: '[options] <path>',
  summary:
    'The live refs, one "<object id> <refname>" per line, byte-sorted, as git for-each-ref --include-root-refs prints them.',
  args: { min: 1, max: 1 },
  options: {},
  schema: REFS_SCHEMA,
  run,
};
