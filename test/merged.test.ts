/**
 * reftable/merged.ts: a table named on several lines of tables.list. git opens a reader per line
 * and merges them all (reftable/stack.c reftable_stack_reload_once, reftable/merged.c); the
 * reference here is that literal merge, made by giving every line its own Table object parsed
 * from the same bytes, against which the bulk accounting of repeated Table objects must agree.
 */
import { describe, expect, it } from 'vitest';
import { mergeTables, type MergedView } from '../src/engine/reftable/merged.ts';
import type { Table } from '../src/engine/reftable/table.ts';
import { fixtureTable } from './lib/fixtures.ts';
import fs from 'node:fs';
import path from 'node:path';
import { reftableDir } from './lib/fixtures.ts';

const FX = 'nocompact-s2';
const names = fs
  .readFileSync(path.join(reftableDir(FX), 'tables.list'), 'utf8')
  .trim()
  .split('\n');
const shared = names.map((n) => fixtureTable(FX, n));

/** The list `order` (indexes into tables.list) once with shared Table objects, once with one object per line. */
function both(order: number[]): { bulk: MergedView; literal: MergedView } {
  const bulk = mergeTables(order.map((i) => shared[i]));
  const literal = mergeTables(order.map((i) => fixtureTable(FX, names[i])));
  return { bulk, literal };
}

function figures(m: MergedView, skipOver: Set<number> = new Set()) {
  return {
    count: m.count,
    table: [...m.table],
    rec: [...m.rec],
    live: m.live,
    tombstones: m.tombstones,
    tombstonesHiding: m.tombstonesHiding,
    shadowed: m.shadowed,
    winners: m.winners,
    hiddenByTombstone: m.hiddenByTombstone,
    tombstonesHidingBy: m.tombstonesHidingBy,
    allTombstones: m.allTombstones,
    tombstonesBy: m.tombstonesBy,
    winningTombstonesBy: m.winningTombstonesBy,
    tombstonesOverOlderBy: m.tombstonesOverOlderBy!.map((v, i) => (skipOver.has(i) ? null : v)),
  };
}

describe('mergeTables with a table repeated in tables.list', () => {
  it('the fixture has tombstones, so the tombstone figures are exercised', () => {
    expect(shared.reduce((a, t) => a + t.counts.tombstone, 0)).toBeGreaterThan(0);
    expect(new Set(shared).size).toBe(names.length);
  });

  it('copies next to each other: every figure equals the literal merge of every line', () => {
    const n = names.length;
    const order = [0, 0, 1, 2, 2, 2, ...Array.from({ length: n - 3 }, (_, i) => i + 3), n - 1, n - 1];
    const { bulk, literal } = both(order);
    expect(figures(bulk)).toEqual(figures(literal));
  });

  it('copies apart: every figure but tombstones over older records equals the literal merge', () => {
    const n = names.length;
    const order = [1, 0, 1, 3, 2, 1, ...Array.from({ length: n - 4 }, (_, i) => i + 4), 3];
    const { bulk, literal } = both(order);
    // Tombstones over an older record are counted against the other tables and the table's own
    // copies only: positions 0 and 3 (oldest copies) and those between a copy and its newest copy
    // may count fewer than the literal merge. Never more.
    const skip = new Set(order.map((_, i) => i));
    expect(figures(bulk, skip)).toEqual(figures(literal, skip));
    bulk.tombstonesOverOlderBy!.forEach((v, i) => expect(v).toBeLessThanOrEqual(literal.tombstonesOverOlderBy![i]));
  });

  it('one table on 1,000 lines: the view of the table itself, every older copy shadowed', () => {
    const t: Table = shared[names.length - 1];
    const m = mergeTables(Array.from({ length: 1000 }, () => t));
    const alone = mergeTables([t]);
    expect(m.count).toBe(alone.count);
    expect(m.live).toBe(alone.live);
    expect(m.shadowed.slice(0, 999).every((v) => v === t.refs.count)).toBe(true);
    expect(m.winners[999]).toBe(t.refs.count);
    expect([...m.table].every((i) => i === 999)).toBe(true);
  });
});
