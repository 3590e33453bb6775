/**
 * `refscope refs <path>`: the live refs, one "<object id> <refname>" per line, byte-sorted:
 * exactly what `git for-each-ref --include-root-refs --format='%(objectname) %(refname)'` prints
 * on the same repository (symrefs show their target's id; dangling symrefs are left out).
 * `--json`: `refscope.refs/1`, the same list as objects (docs/cli.md).
 */
import { analysisRefs, refsLines, GENERATOR } from '../engine/index.ts';
import { writeOut, writeJson, type CommandSpec, type Context } from './common.ts';
import { loadPath } from './load.ts';

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

async function run(ctx: Context): Promise<number> {
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
