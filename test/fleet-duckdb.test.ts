/**
 * The DuckDB queries docs/fleet.md gives for querying a fleet's shards run, as printed there, on
 * shards `refscope scan --shard K/N` wrote (Parquet and JSON Lines), and answer what the rows say.
 * The queries are taken from the document itself, so a query edited there is the one tested.
 * The repositories are made by a real git; the expected answers are computed here from the rows
 * (read back with hyparquet, an independent Parquet reader), not from DuckDB.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { gitEnv, gitSkipReason, realGits, run } from './lib/realgit.ts';
import { readScanFile, type FleetRow } from '../src/app/fleet/scanfile.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin/refscope.mjs');
const SLOW = 600_000;

/** The SQL statements of docs/fleet.md's `sql` blocks, each with the comment above it. */
function documentedQueries(): { title: string; sql: string }[] {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/fleet.md'), 'utf8');
  const blocks = [...doc.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]);
  const out: { title: string; sql: string }[] = [];
  for (const block of blocks)
    for (const stmt of block.split(';')) {
      const lines = stmt.trim().split('\n');
      const title = lines.find((l) => l.startsWith('--'))?.replace(/^--\s*/, '') ?? '';
      const sql = lines.filter((l) => !l.startsWith('--')).join('\n');
      if (sql.trim()) out.push({ title, sql });
    }
  return out;
}

describe.skipIf(gitSkipReason)('docs/fleet.md: the DuckDB queries over scan shards', () => {
  let tmp: string;
  let results: string;
  let conn: DuckDBConnection;
  const shards: { file: string; rows: FleetRow[] }[] = [];
  const queries = documentedQueries();
  const query = (title: string) => {
    const q = queries.find((x) => x.title.startsWith(title));
    if (!q) throw new Error(`docs/fleet.md has no query titled "${title}…"`);
    return q.sql.replaceAll("'results/", `'${results}/`);
  };
  const all = (): FleetRow[] => shards.flatMap((s) => s.rows.map((r) => ({ ...r, filename: s.file })));

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-duckdb-'));
    const git = realGits().find((x) => x.version === '2.55.0') ?? realGits()[0];
    const home = path.join(tmp, 'home');
    fs.mkdirSync(home);
    fs.writeFileSync(path.join(home, '.gitconfig'), '[init]\n\tdefaultBranch = main\n[core]\n\tfsync = none\n');
    const env = gitEnv(home, { GIT_TEST_REFTABLE_AUTOCOMPACTION: 'false' });
    const tree = path.join(tmp, 'storage');
    const g = (cwd: string, args: string[], input?: string) => run(git.git, args, { cwd, env, input }).stdout;
    // Repositories of distinct sizes, so that no two predicted times tie and the order is one.
    const specs: [string, 'reftable' | 'files', number, number][] = [
      ['a.git', 'reftable', 30, 0],
      ['b.git', 'reftable', 120, 90],
      ['c.git', 'reftable', 60, 20],
      ['d.git', 'files', 45, 5],
      ['e.git', 'reftable', 80, 40],
      ['f.git', 'files', 15, 0],
      ['g.git', 'reftable', 40, 10],
    ];
    for (const [name, format, n, deletes] of specs) {
      const repo = path.join(tree, name);
      g(tmp, ['init', '-q', '--bare', `--ref-format=${format}`, repo]);
      const blob = g(repo, ['hash-object', '-w', '--stdin'], 'x').trim();
      const t = g(repo, ['mktree'], `100644 blob ${blob}\tf\n`).trim();
      const c = g(repo, ['commit-tree', '-m', 'c', t]).trim();
      const names = Array.from({ length: n }, (_, i) => `refs/heads/b${i}`);
      g(repo, ['update-ref', '--stdin'], names.map((r) => `create ${r} ${c}\n`).join(''));
      if (deletes)
        g(
          repo,
          ['update-ref', '--stdin'],
          names
            .slice(0, deletes)
            .map((r) => `delete ${r}\n`)
            .join(''),
        );
    }
    // One repository git cannot read: its newest table cut in half.
    const list = path.join(tree, 'g.git', 'reftable', 'tables.list');
    const newest = fs.readFileSync(list, 'utf8').trim().split('\n').pop()!;
    const cut = path.join(tree, 'g.git', 'reftable', newest);
    fs.truncateSync(cut, Math.floor(fs.statSync(cut).size / 2));

    results = path.join(tmp, 'results');
    fs.mkdirSync(results);
    for (const k of [1, 2]) {
      for (const ext of ['parquet', 'jsonl']) {
        const file = path.join(results, `node-${k}.${ext}`);
        const r = spawnSync(process.execPath, [BIN, 'scan', tree, '--shard', `${k}/2`, '--out', file], {
          encoding: 'utf8',
          timeout: SLOW,
        });
        expect(r.status, r.stderr).toBe(0);
        if (ext === 'parquet')
          shards.push({ file, rows: await readScanFile(file, new Uint8Array(fs.readFileSync(file))) });
      }
    }
    expect(all().length).toBe(specs.length);
    expect(shards.every((s) => s.rows.length > 0)).toBe(true);
    conn = await (await DuckDBInstance.create(':memory:')).connect();
  }, SLOW);
  afterAll(() => {
    conn?.closeSync();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  const rowsOf = async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJson();

  it('the document has the four queries', () => {
    expect(queries.map((q) => q.title)).toEqual([
      'the ten worst repositories: longest predicted time of the workload on the oldest git model',
      'what git cannot read at all, and why',
      'compaction debt per node',
      'how often each finding occurs',
    ]);
  });

  it('the ten worst: every repository (fewer than ten), longest predicted time first', async () => {
    const got = await rowsOf(query('the ten worst'));
    const seconds = (r: FleetRow) => (r.git249Seconds ?? r.filesSeconds) as number | null;
    // Every repository once, in the order of their predicted seconds (longest first, none last);
    // repositories of equal seconds may come in either order.
    const key = (r: Record<string, unknown>) => `${String(r.filename)} ${String(r.path)}`;
    const byKey = new Map(all().map((r) => [key(r), seconds(r)]));
    expect(got.map(key).sort()).toEqual([...byKey.keys()].sort());
    const order = (x: number | null) => (x === null ? -1 : x);
    const shown = got.map((r) => order(byKey.get(key(r)) ?? null));
    expect(shown).toEqual([...shown].sort((x, y) => y - x));
    expect(new Set(shown).size).toBeGreaterThan(2);
    const b = got.find((r) => r.path === 'b.git')!;
    const row = all().find((r) => r.path === 'b.git')!;
    expect(Number(b.refs)).toBe(row.refs);
    expect(Number(b.tables)).toBe(row.tables);
    expect(Number(b.tomb_pct)).toBeCloseTo(Math.round((row.tombstoneShare as number) * 1000) / 10, 6);
  });

  it('what git cannot read: exactly the repository with the cut table, with its reason', async () => {
    const got = await rowsOf(query('what git cannot read'));
    expect(got.map((r) => r.path)).toEqual(['g.git']);
    expect(got[0].unreadableReason).toBe(all().find((r) => r.path === 'g.git')!.unreadableReason);
    expect(String(got[0].unreadableReason)).not.toBe('');
  });

  it('compaction debt per node: the sums of each shard file', async () => {
    const got = await rowsOf(query('compaction debt per node'));
    const want = shards.map((s) => ({
      filename: s.file,
      repositories: s.rows.length,
      debt_bytes: s.rows.reduce((a, r) => a + ((r.debtBytes as number) ?? 0), 0),
      debt_tables: s.rows.reduce((a, r) => a + ((r.debtTables as number) ?? 0), 0),
    }));
    const norm = (r: Record<string, unknown>) => ({
      filename: r.filename,
      repositories: Number(r.repositories),
      debt_bytes: Number(r.debt_bytes),
      debt_tables: Number(r.debt_tables),
    });
    expect(got.map(norm).sort((a, b) => String(a.filename).localeCompare(String(b.filename)))).toEqual(
      want.sort((a, b) => a.filename.localeCompare(b.filename)),
    );
  });

  it('how often each finding occurs: the codes of every row, counted', async () => {
    const got = await rowsOf(query('how often each finding occurs'));
    const count = new Map<string, number>();
    for (const r of all())
      for (const c of String(r.findingCodes ?? '')
        .split(',')
        .filter(Boolean))
        count.set(c, (count.get(c) ?? 0) + 1);
    expect(count.size).toBeGreaterThan(0);
    expect(new Map(got.map((r) => [String(r.code), Number(r.repositories)]))).toEqual(count);
  });

  it('JSON Lines shards answer the same, read with the read_json call the document gives', async () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs/fleet.md'), 'utf8');
    const call = /`(read_json\('results\/\*\.jsonl'[^`]*\))`/.exec(doc)?.[1];
    expect(call).toBeDefined();
    for (const title of ['the ten worst', 'what git cannot read', 'compaction debt per node']) {
      const pq = query(title);
      const js = pq
        .replace(/read_parquet\('[^']*', filename = true\)/, call!.replace(/\)$/, ', filename = true)'))
        .replaceAll("'results/", `'${results}/`);
      const strip = (rows: Record<string, unknown>[]) =>
        rows.map((r) => JSON.stringify({ ...r, filename: String(r.filename ?? '').replace(/\.(parquet|jsonl)$/, '') }));
      expect(strip(await rowsOf(js)).sort()).toEqual(strip(await rowsOf(pq)).sort());
    }
  });
});
