/**
 * `refscope watch` (src/engine/watch.ts, src/cli/watch-cmd.ts) on a repository a real git writes
 * to while it runs: the CLI runs as its own process (`node bin/refscope.mjs watch --json`), the
 * test runs one git command at a time and waits for the event of the state git left. Checked
 * against git: every `tables.list` state git left is an event, in order; each auto-compaction
 * names the tables that left git's list and the table git wrote; only tables new to a state are
 * read; each line validates against schemas/watch.schema.json; SIGINT ends it with exit 0.
 */
import { describe, it, expect, afterAll } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { realGits, gitSkipReason, gitRepo, type GitRepo } from './lib/realgit.ts';
import { schemaErrors } from './lib/schema.ts';
import { StackWatcher } from '../src/engine/watch.ts';
import { nodeSnapshot } from '../src/cli/watch-cmd.ts';

const BIN = path.join(__dirname, '..', 'bin', 'refscope.mjs');

interface Ev {
  seq: number;
  tables: string[];
  appended: string[];
  compactions: { from: string[]; into: string | null }[];
  tablesRead: number;
}

describe.skipIf(gitSkipReason)('refscope watch: a stack real git writes to', () => {
  const repos: GitRepo[] = [];
  afterAll(() => repos.forEach((r) => r.dispose()));
  const g = realGits()[realGits().length - 1];

  it(`git ${g?.version}: each tables.list state in order, auto-compactions with git's tables`, async () => {
    const r = gitRepo(g);
    repos.push(r);
    r.git(['commit', '-q', '--allow-empty', '-m', 'one']);
    const oid = r.git(['rev-parse', 'HEAD']).trim();
    const dir = path.join(r.gitDir, 'reftable');
    const list = () => fs.readFileSync(path.join(dir, 'tables.list'), 'utf8').trim().split('\n');
    const child = spawn(process.execPath, [BIN, 'watch', '--json', '--interval', '20', r.dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const events: Ev[] = [];
    const docs: unknown[] = [];
    let buf = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const doc = JSON.parse(line);
        docs.push(doc);
        events.push(doc as Ev);
      }
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
    /** Wait until an event shows exactly `want` (the state git left). */
    const seen = async (want: string[], what: string) => {
      for (let k = 0; k < 600; k++) {
        if (events.some((e) => e.tables.join() === want.join())) return;
        await new Promise((res) => setTimeout(res, 25));
      }
      throw new Error(`no event for ${what}: ${JSON.stringify(want)}; stderr ${err}`);
    };
    try {
      const states: string[][] = [list()];
      await seen(states[0], 'the first state');
      // One transaction per step; git auto-compacts after each one (reftable/stack.c).
      for (let k = 0; k < 6; k++) {
        r.git(['update-ref', `refs/heads/w${k}`, oid]);
        states.push(list());
        await seen(states[states.length - 1], `update ${k}`);
      }
      r.git(
        ['update-ref', '--stdin'],
        Array.from({ length: 50 }, (_, i) => `create refs/tags/t${i} ${oid}\n`).join(''),
      );
      states.push(list());
      await seen(states[states.length - 1], 'a batch');
      r.git(['update-ref', '--stdin'], Array.from({ length: 50 }, (_, i) => `delete refs/tags/t${i}\n`).join(''));
      states.push(list());
      await seen(states[states.length - 1], 'deleting the batch');

      // Every state git left is an event, in git's order.
      let at = 0;
      for (const s of states) {
        const i = events.findIndex((e, j) => j >= at && e.tables.join() === s.join());
        expect(i, `state ${JSON.stringify(s)} after event ${at}`).toBeGreaterThanOrEqual(at);
        at = i;
      }
      // Each compaction git did (names leaving its list) is in the events with git's new table.
      let compactions = 0;
      for (let k = 1; k < states.length; k++) {
        const gone = states[k - 1].filter((n) => !states[k].includes(n));
        if (!gone.length) continue;
        compactions++;
        const fresh = states[k].filter((n) => !states[k - 1].includes(n));
        const into = events.flatMap((e) => e.compactions).find((c) => gone.every((n) => c.from.includes(n)));
        expect(into, `compaction of ${gone.join(', ')}`).toBeDefined();
        expect(fresh).toContain(into!.into);
      }
      expect(compactions, 'git auto-compacted at least once').toBeGreaterThan(0);
      // Only new tables are read: each event parses the tables not in the event before.
      for (let k = 1; k < events.length; k++) {
        const fresh = events[k].tables.filter((n) => !events[k - 1].tables.includes(n));
        expect(events[k].tablesRead, `event ${events[k].seq}`).toBe(fresh.length);
      }
      for (const d of docs) expect(schemaErrors('watch', d)).toEqual([]);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    expect(err).toBe('');
  });

  it('--once prints one event and exits', async () => {
    const r = gitRepo(g);
    repos.push(r);
    const child = spawn(process.execPath, [BIN, 'watch', '--once', r.gitDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
    expect(code).toBe(0);
    const list = fs
      .readFileSync(path.join(r.gitDir, 'reftable', 'tables.list'), 'utf8')
      .trim()
      .split('\n');
    expect(out).toMatch(new RegExp(`#1  ${list.length} tables`));
  });

  it('a lock file left beside tables.list is an event when it appears and when it goes; git then refuses to write', () => {
    const r = gitRepo(g);
    repos.push(r);
    r.git(['commit', '-q', '--allow-empty', '-m', 'one']);
    const dir = path.join(r.gitDir, 'reftable');
    const w = new StackWatcher();
    expect(w.step(nodeSnapshot(dir))!.locks.present).toEqual([]);
    expect(w.step(nodeSnapshot(dir))).toBeNull();
    // What a writer that died holding the lock leaves (reftable/stack.c reftable_stack_new_addition).
    fs.writeFileSync(path.join(dir, 'tables.list.lock'), '');
    const on = w.step(nodeSnapshot(dir))!;
    expect(on.locks.appeared).toEqual(['tables.list.lock']);
    expect(on.tablesRead).toBe(0);
    expect(r.gitResult(['update-ref', 'refs/heads/x', 'HEAD']).status, 'git refuses while it exists').not.toBe(0);
    fs.rmSync(path.join(dir, 'tables.list.lock'));
    expect(w.step(nodeSnapshot(dir))!.locks.disappeared).toEqual(['tables.list.lock']);
    r.git(['update-ref', 'refs/heads/x', 'HEAD']);
    const next = w.step(nodeSnapshot(dir))!;
    const list = fs.readFileSync(path.join(dir, 'tables.list'), 'utf8').trim().split('\n');
    expect(next.tables).toEqual(list);
  });
});
