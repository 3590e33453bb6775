/**
 * `refscope refs <path>`: the live refs, one "<object id> <refname>" per line, byte-sorted:
 * exactly what `git for-each-ref --include-root-refs --format='%(objectname) %(refname)'` prints
 * on the same repository (symrefs show their target's id; dangling symrefs are left out).
 * `--json`: `refscope.refs/1`, the same list as objects (docs/cli.md).
 */
import {
  analysisRefs,
  classifyInput,
  loadStack,
  refsLines,
  oneTableLines,
  memorySource,
  GENERATOR,
} from '../engine/index.ts';
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

/** Largest table the one-table path reads with one read (see `oneTable`). */
const WHOLE_TABLE = 1 << 30;

/** Bytes of records the one-table path may always hold (see `oneTable`). */
const MIN_HELD = 8 * 1048576;

/**
 * The listing of a stack of exactly one table (what `git pack-refs` and `git gc` leave); null
 * for anything else (several tables, a worktree, packed-refs, standard input), which takes the
 * general path. The table is read with one read (up to `WHOLE_TABLE`, as git maps the file;
 * a larger one a window of `CLI_READ_AHEAD` bytes at a time) and one pass over it checks it as
 * the general path does and holds each listed record as it goes (refs.ts `oneTableLines`: its
 * id and name), writing nothing until the whole table is accepted: a damaged table lists
 * nothing, as git refuses a damaged stack. At most 2× the table's size (or `MIN_HELD`) is held
 * (ids are held as offsets in the file read whole: a million refs hold 1.2× their table); past that the remaining ref blocks are listed by a
 * second read. Nothing else per ref is kept: the merged view of a single table is the table.
 */
function oneTable(ctx: Context): { next(): Uint8Array | null } | null {
  const p = ctx.positionals[0];
  if (!p || p === '-') return null;
  const input = classifyInput(inputFiles(p));
  const table = oneTableOf(input);
  if (!table) return null;
  const list = input.tablesList;
  const bytes = table.source.size <= WHOLE_TABLE ? table.source.read(0, table.source.size) : null;
  const whole = bytes !== null && bytes.length === table.source.size;
  const files = input.tableFiles.map((f) => (whole && f === table ? { path: f.path, source: memorySource(bytes) } : f));
  const watched = watchTables(files, ctx.progress);
  try {
    return oneTableLines(
      (onRefBlock) => {
        const stack = loadStack(list, watched.files, {
          logs: false,
          refColumns: false,
          onRefBlock,
          wholeReadLimit: whole ? WHOLE_TABLE : 0,
          readAhead: CLI_READ_AHEAD,
          deadline: ctx.deadline,
          onProgress: watched.onBytes,
        });
        const err = stack.broken[0]?.error;
        if (err) throw err;
        if (stack.tables.length !== 1 || !stack.tables[0]) throw new Error('one table expected');
        return stack.tables[0];
      },
      { bufferBytes: Math.max(MIN_HELD, 2 * table.source.size), reuse: true, file: whole ? bytes : undefined },
    );
  } finally {
    ctx.progress.done();
  }
}

async function run(ctx: Context): Promise<number> {
  if (!ctx.json) {
    const it = oneTable(ctx);
    if (it) {
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
