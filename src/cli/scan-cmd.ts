/**
 * `refscope scan <root>... [--jobs N] [--shard K/N] [--out results.parquet|results.jsonl]`: every
 * repository under the roots (scan/discover.ts), each analysed by the same engine as
 * `refscope analyze` plus one simulated workload per git model (scan/row.ts), on N worker threads
 * (scan/pool.ts), one row per repository (schemas/scan-row.schema.json) into a Parquet or JSON
 * Lines file (scan/output.ts). Resumable: rows are journalled in `<out>.progress` as they complete
 * and a scan started again with the same arguments skips them. It never writes into a repository:
 * an `--out` inside one is refused. docs/fleet.md says how to run it per storage node and query
 * the shards with DuckDB.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  UsageError,
  intOption,
  flag,
  str,
  writeJson,
  version,
  factorOption,
  FACTOR_OPTION,
  type CommandSpec,
  type Context,
} from './common.ts';
import { discover, shardOf, type FoundRepository, type SkippedPath } from './scan/discover.ts';
import { runPool, isScanWorker, workerLoop } from './scan/pool.ts';
import {
  formatOf,
  jsonLine,
  parquetBytes,
  readJournal,
  writeWhole,
  Journal,
  type JournalHeader,
} from './scan/output.ts';
import { SCAN_ROW_SCHEMA, type ScanRow } from './scan/row.ts';

export const SCAN_SCHEMA = 'refscope.scan/1';

const fmt = (n: number): string => n.toLocaleString('en-US');

/** `K/N` → { k, n }, 1 ≤ K ≤ N ≤ 1,000,000. */
function parseShard(v: string | undefined): { k: number; n: number } | null {
  if (v === undefined) return null;
  const m = /^([0-9]{1,7})\/([0-9]{1,7})$/.exec(v);
  const k = m ? Number(m[1]) : NaN;
  const n = m ? Number(m[2]) : NaN;
  if (!m || k < 1 || n < 1 || k > n || n > 1_000_000)
    throw new UsageError(`--shard takes K/N with 1 ≤ K ≤ N (e.g. 2/8), found ${JSON.stringify(v)}`);
  return { k, n };
}

/** Rows in the scan's order: root by root (as given), then by path. */
function sortRows(rows: ScanRow[], roots: string[]): ScanRow[] {
  const at = new Map(roots.map((r, i) => [r, i]));
  return rows.sort(
    (a, b) => (at.get(a.root) ?? 0) - (at.get(b.root) ?? 0) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
  );
}

function keyOf(root: string, rel: string): string {
  return `${root}\0${rel}`;
}

async function run(ctx: Context): Promise<number> {
  if (isScanWorker()) return workerLoop();
  const roots = ctx.positionals.map((r) => path.resolve(r));
  for (const r of ctx.positionals) if (!fs.existsSync(r)) throw new UsageError(`no such directory: ${r}`);
  const jobs = intOption(ctx, 'jobs', 1, 1024) ?? Math.max(1, os.availableParallelism());
  const shardText = str(ctx, 'shard');
  const shard = parseShard(shardText);
  const out = str(ctx, 'out');
  const factor = factorOption(ctx);
  const estimates = !flag(ctx, 'no-estimates');
  const format = out ? formatOf(out) : 'jsonl';

  ctx.progress.step();
  const found = discover(roots, (n) => ctx.progress.update(() => `finding repositories: ${fmt(n)}`));
  const all = found.repositories;
  const mine = shard ? all.filter((f) => shardOf(f.rel, shard.n) === shard.k) : all;
  const skipped: SkippedPath[] = found.skipped;
  // Say so when nothing was found: a folder of bare reftable/ directories is no repository (git's
  // setup.c is_git_directory wants HEAD, refs/ and objects/).
  if (!all.length)
    process.stderr.write(
      `refscope: scan: no repository under ${roots.map((r) => JSON.stringify(r)).join(', ')} (a repository is a directory with HEAD, refs/ and objects/, or one holding such a .git)\n`,
    );

  let journal: Journal | null = null;
  let done: ScanRow[] = [];
  let resumed = 0;
  if (out) {
    const outAbs = path.resolve(out);
    // Never write into a repository: not the result, not its journal.
    const inRepo = all.find((f) => {
      const dir = f.rel === '.' ? f.root : path.join(f.root, f.rel);
      return outAbs.startsWith(dir + path.sep);
    });
    if (inRepo)
      throw new UsageError(
        `--out ${out} is inside the repository ${path.join(inRepo.root, inRepo.rel)}: scan never writes into a repository`,
      );
    if (!fs.existsSync(path.dirname(outAbs))) throw new UsageError(`--out: no such directory: ${path.dirname(out)}`);
    const header: JournalHeader = { journal: 'refscope.scan-journal/1', roots, shard: shardText ?? null };
    const jfile = `${outAbs}.progress`;
    const j = readJournal(jfile, header);
    if (j.mismatch)
      throw new UsageError(`${jfile}: ${j.mismatch}; remove it to start this scan afresh, or run the same scan again`);
    const wanted = new Set(mine.map((f) => keyOf(f.root, f.rel)));
    const seen = new Set<string>();
    done = j.rows.filter((r) => {
      const k = keyOf(r.root, r.path);
      if (!wanted.has(k) || seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    resumed = done.length;
    journal = new Journal(jfile, header, !fs.existsSync(jfile));
  }
  const doneKeys = new Set(done.map((r) => keyOf(r.root, r.path)));
  const todo: FoundRepository[] = mine.filter((f) => !doneKeys.has(keyOf(f.root, f.rel)));

  ctx.progress.step();
  const start = Date.now();
  let scanned = 0;
  const rows = [...done];
  try {
    await runPool(todo, jobs, { budgetMs: ctx.budgetMs, factor, estimates }, (row) => {
      journal?.add(row);
      rows.push(row);
      scanned++;
      ctx.progress.update(() => {
        const rate = scanned / Math.max(0.001, (Date.now() - start) / 1000);
        return `scanning: ${fmt(rows.length)} of ${fmt(mine.length)} repositories${resumed ? ` (${fmt(resumed)} resumed)` : ''}, ${rate.toFixed(1)}/s`;
      });
    });
  } catch (e) {
    journal?.close(false);
    throw e;
  }
  ctx.progress.done();
  sortRows(rows, roots);

  const generator = `refscope ${version()}`;
  if (out) {
    const outAbs = path.resolve(out);
    writeWhole(outAbs, format === 'parquet' ? parquetBytes(rows, generator) : rows.map(jsonLine).join(''));
    journal!.close(true);
  }
  const summary = {
    schema: SCAN_SCHEMA,
    generator,
    rowSchema: SCAN_ROW_SCHEMA,
    roots,
    shard: shard ? { k: shard.k, n: shard.n } : null,
    jobs,
    out: out ? path.resolve(out) : null,
    format,
    found: all.length,
    repositories: mine.length,
    scanned,
    resumed,
    errors: rows.filter((r) => r.error !== null).length,
    unreadable: rows.filter((r) => r.gitReadable === false).length,
    skipped,
    seconds: Math.round((Date.now() - start) / 10) / 100,
  };
  if (ctx.json) writeJson(out ? summary : { ...summary, rows });
  else if (!out) process.stdout.write(rows.map(jsonLine).join(''));
  else {
    process.stdout.write(
      `refscope scan: ${fmt(mine.length)} repositories${shard ? ` (shard ${shard.k}/${shard.n} of ${fmt(all.length)})` : ''}: ${fmt(scanned)} scanned, ${fmt(resumed)} resumed, ${fmt(summary.errors)} not analysed, ${fmt(summary.unreadable)} git cannot read → ${out}\n`,
    );
    for (const s of skipped) process.stdout.write(`skipped: ${s.path}: ${s.reason}\n`);
  }
  return 0;
}

export const scanCommand: CommandSpec = {
  name: 'scan',
  usage: '<root>... [--jobs N] [--shard K/N] [--out results.parquet|results.jsonl] [options]',
  summary:
    'Find every repository under the roots (bare or not, either backend, forge layouts) and write one row per repository: refs, tables, bytes, tombstones, compaction debt, locks, findings, whether git can read it, and the estimate of one workload per git model with its fix (docs/fleet.md).',
  args: { min: 1, max: 100_000 },
  options: {
    jobs: { type: 'string', short: 'j', value: 'N', help: 'worker threads (default: the number of cores)' },
    shard: {
      type: 'string',
      value: 'K/N',
      help: 'only the repositories of shard K of N (a hash of the path relative to its root): N runs partition the set',
    },
    out: {
      type: 'string',
      value: '<file>',
      help: 'write the rows to <file>: Parquet for .parquet, else JSON Lines; resumable through <file>.progress (default: JSON Lines on standard output)',
    },
    factor: FACTOR_OPTION,
    'no-estimates': { type: 'boolean', help: 'leave out the simulated workload (faster)' },
  },
  schema: SCAN_SCHEMA,
  details:
    '--budget bounds reading each repository and its simulation, each. A repository refscope cannot analyse still gets its row, with error set; directories not walked (symbolic links, unreadable ones) are listed as skipped.',
  run,
};
