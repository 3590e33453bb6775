/**
 * A ref's history (`refscope show`, src/engine/history.ts) against what real git wrote: a ref
 * created, updated and deleted in three transactions (three tables, auto-compaction off), an
 * annotated tag (a peeled record) and a symref. Every record is checked against
 * `test-tool dump-reftable -t` of each table, the winner against `dump-reftable -s` (the merged
 * view git reads, deletions suppressed) and the reflog against `git reflog`.
 */
import { describe, it, expect, afterAll } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { realGits, gitSkipReason, gitRepo, run, type GitRepo, type RealGit } from './lib/realgit.ts';
import { refscope } from './lib/cli.ts';
import { analyzeFiles } from '../src/engine/index.ts';
import { refHistory } from '../src/engine/history.ts';
import { collectInput } from '../src/cli/node-input.ts';
import { schemaErrors } from './lib/schema.ts';

interface Dumped {
  name: string;
  updateIndex: number;
  kind: string;
  oid?: string;
  peeled?: string;
  target?: string;
}

/** Whether any dump (the merged view or a table's) has a record of `name`. */
function dumpHas(merged: Dumped[], perTable: Dumped[][], name: string): boolean {
  return [merged, ...perTable].some((d) => d.some((x) => x.name === name));
}

/** Ref lines of `test-tool dump-reftable -t|-s` (t/helper/test-reftable.c dump_table). */
function parseDump(text: string): Dumped[] {
  const out: Dumped[] = [];
  for (const line of text.split('\n')) {
    const m = /^ref\{(.+)\((\d+)\) (.*)\}$/.exec(line);
    if (!m) continue;
    const d: Dumped = { name: m[1], updateIndex: Number(m[2]), kind: '' };
    const body = m[3];
    let v: RegExpExecArray | null;
    if (body === 'delete') d.kind = 'tombstone';
    else if ((v = /^val 1 ([0-9a-f]+)$/.exec(body))) Object.assign(d, { kind: 'value', oid: v[1] });
    else if ((v = /^val 2 ([0-9a-f]+)\(T ([0-9a-f]+)\)$/.exec(body)))
      Object.assign(d, { kind: 'peeled', oid: v[1], peeled: v[2] });
    else if ((v = /^=> (.+)$/.exec(body))) Object.assign(d, { kind: 'symref', target: v[1] });
    out.push(d);
  }
  return out;
}

/** The dumping test-tool: 2.47.3's (the newer helpers' `-t` crashes on some tables). */
function dumper(): RealGit {
  return realGits().find((g) => g.version === '2.47.3') ?? realGits()[0];
}

describe.skipIf(gitSkipReason)('refscope show: a ref across the tables real git wrote', () => {
  const repos: GitRepo[] = [];
  afterAll(() => repos.forEach((r) => r.dispose()));

  for (const g of realGits()) {
    it(`git ${g.version}: each record, the winner and the reflog equal git's`, async () => {
      const r = gitRepo(g, { env: { GIT_TEST_REFTABLE_AUTOCOMPACTION: 'false' } });
      repos.push(r);
      r.git(['commit', '-q', '--allow-empty', '-m', 'one']);
      r.git(['commit', '-q', '--allow-empty', '-m', 'two']);
      const c1 = r.git(['rev-parse', 'HEAD~1']).trim();
      const c2 = r.git(['rev-parse', 'HEAD']).trim();
      r.git(['update-ref', '-m', 'create topic', 'refs/heads/topic', c1]);
      r.git(['update-ref', '-m', 'move topic', 'refs/heads/topic', c2]);
      r.git(['update-ref', '-d', 'refs/heads/topic']);
      r.git(['tag', '-a', '-m', 'tag', 'v1', c1]);
      r.git(['symbolic-ref', 'refs/heads/alias', 'refs/heads/main']);
      r.git(['update-ref', '-m', 'main back', 'refs/heads/main', c1]);
      const dir = path.join(r.gitDir, 'reftable');
      const list = fs.readFileSync(path.join(dir, 'tables.list'), 'utf8').trim().split('\n');
      const d = dumper();
      const perTable = list.map((t) =>
        parseDump(run(d.testTool, ['dump-reftable', '-t', path.join(dir, t)], { cwd: r.dir, env: r.env }).stdout),
      );
      const merged = parseDump(run(d.testTool, ['dump-reftable', '-s', dir], { cwd: r.dir, env: r.env }).stdout);
      const a = analyzeFiles(collectInput(r.gitDir));

      for (const name of ['refs/heads/topic', 'refs/tags/v1', 'refs/heads/alias', 'refs/heads/main', 'HEAD']) {
        const want = list
          .map((t, i) => ({ t, i, rec: perTable[i].find((x) => x.name === name) }))
          .filter((x) => x.rec)
          .reverse();
        const h = refHistory(a, name);
        expect(h.seek.seeks, `${name}: one seek per table`).toBe(list.length);
        expect(
          h.records.map((x) => [x.table, x.updateIndex, x.kind, x.oid, x.peeled, x.target]),
          name,
        ).toEqual(want.map((w) => [w.t, w.rec!.updateIndex, w.rec!.kind, w.rec!.oid, w.rec!.peeled, w.rec!.target]));
        const inMerged = merged.find((x) => x.name === name);
        expect(h.live, `${name} live as git's merged view says`).toBe(!!inMerged);
        if (inMerged) expect(h.records[0]).toMatchObject({ wins: true, updateIndex: inMerged.updateIndex });
        expect(h.records.filter((x) => x.wins).length).toBe(want.length ? 1 : 0);
        h.records.forEach((x, i) => expect(x.hides).toEqual(want.slice(i + 1).map((w) => w.t)));
      }

      // The deleted ref: three tables, the tombstone newest, hiding the two values git wrote.
      const topic = refHistory(a, 'refs/heads/topic');
      expect(topic.records.map((x) => [x.kind, x.oid])).toEqual([
        ['tombstone', undefined],
        ['value', c2],
        ['value', c1],
      ]);
      expect(topic.records[0].hides).toEqual([topic.records[1].table, topic.records[2].table]);

      // The reflog of main as git prints it (newest first): new id and message.
      const reflog = r
        .git(['reflog', 'show', '--format=%H%x09%gs', 'refs/heads/main'])
        .trim()
        .split('\n')
        .map((l) => l.split('\t'));
      const main = refHistory(a, 'refs/heads/main');
      const shown = main.logs.filter((l) => l.wins && l.type === 'update');
      expect(shown.map((l) => [l.newId, l.message!.replace(/\n$/, '')])).toEqual(reflog);

      // The CLI: the same records, and its document validates against schemas/history.schema.json.
      const cli = await refscope(['show', '--json', r.gitDir, 'refs/heads/topic']);
      expect(cli.stderr).toBe('');
      expect(cli.code).toBe(0);
      const doc = JSON.parse(cli.stdout);
      expect(schemaErrors('history', doc)).toEqual([]);
      expect(doc.live).toBe(false);
      expect(doc.records.map((x: { kind: string }) => x.kind)).toEqual(['tombstone', 'value', 'value']);
      const text = await refscope(['show', r.gitDir, 'refs/heads/topic']);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain('deleted (the tombstone in');

      // A name no table holds: git's show-ref finds nothing (exit 1), and so does show.
      const never = 'refs/heads/never-written';
      expect(r.gitResult(['show-ref', never]).status).toBe(1);
      expect(dumpHas(merged, perTable, never)).toBe(false);
      const none = await refscope(['show', r.gitDir, never]);
      expect(none.code).toBe(1);
      expect(none.stderr).toBe('');
      expect(none.stdout).toContain(`${never}: no record in any of the ${list.length} tables`);
    });
  }

  it('packed-refs input: one line naming the input and what was expected', async () => {
    const fx = path.join(__dirname, 'fixtures', 'packed-refs');
    const first = fs.readdirSync(fx).sort()[0];
    const res = await refscope(['show', path.join(fx, first, 'packed-refs'), 'refs/heads/main']);
    expect(res.code).toBe(3);
    expect(res.stderr).toMatch(/^refscope: .*offset 0: expected a reftable stack/);
  });
});
