/**
 * `refscope analyze` on a stack of one table keeps no object ids (`OpenOptions.ids: false`: no
 * id, update index or block columns), and its report is the one the full columns give.
 *
 * - Each table of every reftable fixture (tables git wrote), alone in a `tables.list` of one
 *   line: the ids-less analysis has empty id columns, the ref blocks git's `dump-reftable -b`
 *   lists for the table (`truth/blocks/`, where the fixture has it) and the byte-for-byte same
 *   `analyze --json` document as the analysis with every column.
 * - The CLI on such a stack prints that same document (it takes the ids-less path), and on a
 *   stack of two tables keeps the ids (its compaction replays them).
 */
import { describe, it, expect, afterAll } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { collectInput } from '../src/cli/node-input.ts';
import { analyzeFiles, buildReport, reportJson, type Analysis } from '../src/engine/index.ts';
import { refscope } from './lib/cli.ts';

const FX = path.join(__dirname, 'fixtures/reftable');

/** One-table stacks made of each table of each fixture (in a temporary directory). */
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-one-table-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function oneTableStacks(): { name: string; dir: string }[] {
  const out: { name: string; dir: string }[] = [];
  for (const fx of fs.readdirSync(FX)) {
    const list = path.join(FX, fx, 'reftable/tables.list');
    if (!fs.existsSync(list)) continue;
    for (const t of fs.readFileSync(list, 'utf8').trim().split('\n')) {
      const dir = path.join(root, `${fx}-${t}`, 'reftable');
      fs.mkdirSync(dir, { recursive: true });
      fs.copyFileSync(path.join(FX, fx, 'reftable', t), path.join(dir, t));
      fs.writeFileSync(path.join(dir, 'tables.list'), t + '\n');
      out.push({ name: `${fx}/${t}`, dir });
    }
  }
  return out;
}

const json = (a: Analysis) => reportJson(buildReport(a));

describe('analyze on a stack of one table', () => {
  const stacks = oneTableStacks();

  it('keeps no ids and reports what the full columns report', () => {
    expect(stacks.length).toBeGreaterThan(20);
    for (const s of stacks) {
      const lean = analyzeFiles(collectInput(s.dir), { ids: false });
      const full = analyzeFiles(collectInput(s.dir));
      const t = lean.stack!.tables[0]!;
      expect(t.refs.oids.length, s.name).toBe(0);
      expect(t.refs.updateIndex.length, s.name).toBe(0);
      expect(t.refs.count, s.name).toBe(full.stack!.tables[0]!.refs.count);
      expect(t.refs.count).toBeGreaterThan(0);
      expect(json(lean), s.name).toBe(json(full));
    }
  });

  it("reads the ref blocks git's dump-reftable -b lists", () => {
    let checked = 0;
    for (const fx of fs.readdirSync(FX)) {
      const dumps = path.join(FX, fx, 'truth/blocks');
      if (!fs.existsSync(dumps)) continue;
      for (const s of stacks.filter((x) => x.name.startsWith(`${fx}/`))) {
        const t = analyzeFiles(collectInput(s.dir), { ids: false }).stack!.tables[0]!;
        const dump = path.join(dumps, `${t.name}.txt`);
        if (!fs.existsSync(dump)) continue;
        // The "ref:" section of git's dump: "- length: N" and "restarts: N" per block.
        const text = fs.readFileSync(dump, 'utf8');
        const ref = text.slice(text.indexOf('\nref:\n'), text.search(/\n(?:idx|obj|log):\n/) >>> 0);
        const want = [...ref.matchAll(/- length: (\d+)\n\s+restarts: (\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
        const got = t.blocks.filter((b) => b.type === 'ref').map((b) => [b.restartTableOffset, b.restartCount]);
        expect(want.length, `${fx} ${t.name}`).toBeGreaterThan(0);
        expect(got, `${fx} ${t.name}`).toEqual(want);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(3);
  });

  it('the CLI prints that report; a stack of two tables keeps its ids', async () => {
    for (const s of stacks.slice(0, 6)) {
      const r = await refscope(['analyze', '--json', s.dir]);
      expect(r.code, s.name).toBe(0);
      // (stdout is captured as a byte string: its UTF-8 bytes.)
      expect(Buffer.from(r.stdout, 'latin1').toString('utf8'), s.name).toBe(
        json(analyzeFiles(collectInput(s.dir))) + '\n',
      );
    }
    // Two tables: the compaction after `git pack-refs` is computed from the records' ids and
    // update indexes (it would fail without them).
    const two = path.join(FX, 'recreate-1000');
    const r = await refscope(['analyze', '--json', two]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).stack.compaction.afterPackRefs).not.toBeNull();
  });
});
