/**
 * `refscope watch <path>`: follow a live reftable stack and print one event per new `tables.list`
 * state or lock-file change (src/engine/watch.ts): tables appended, auto-compactions with the
 * segment git merged, lock files, records and tombstone ratio, alerts. `--json`: JSON Lines, one
 * `refscope.watch/1` document per event. Polls the directory (`--interval`, default 100 ms); only
 * tables new to a state are read. Ends on Ctrl+C (SIGINT) or SIGTERM with exit 0, after `--count`
 * events, at once with `--once`, or after `--budget` seconds when given.
 */
import fs from 'node:fs';
import path from 'node:path';
import { displayName, GENERATOR, memorySource, type InputFile } from '../engine/index.ts';
import { StackWatcher, type WatchEvent, type WatchSnapshot } from '../engine/watch.ts';
import { UsageError, type CommandSpec, type Context } from './common.ts';

export const WATCH_SCHEMA = 'refscope.watch/1';

/** The reftable directory of a path: itself, `<path>/reftable`, or `<path>/.git/reftable`. */
export function reftableDir(p: string): string {
  for (const d of [p, path.join(p, 'reftable'), path.join(p, '.git', 'reftable')]) {
    if (fs.existsSync(path.join(d, 'tables.list'))) return d;
  }
  if (path.basename(p) === 'tables.list' && fs.existsSync(p)) return path.dirname(p);
  throw new UsageError(`${p}: no reftable directory (tables.list) there, in reftable/ or in .git/reftable/`);
}

function readOrNull(file: string): Uint8Array | null {
  try {
    return new Uint8Array(fs.readFileSync(file));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** One look at the directory. */
export function nodeSnapshot(dir: string): WatchSnapshot {
  let entries: string[];
  try {
    entries = fs.readdirSync(dir);
  } catch {
    entries = [];
  }
  return {
    list: readOrNull(path.join(dir, 'tables.list')),
    entries,
    table(name: string): InputFile | null {
      const b = readOrNull(path.join(dir, name));
      return b ? { path: path.join(dir, name), source: memorySource(b) } : null;
    },
  };
}

/** The `refscope.watch/1` document of an event. */
export function watchDoc(ev: WatchEvent, dir: string, time: string) {
  return { schema: WATCH_SCHEMA, generator: GENERATOR, dir, time, ...ev };
}

const pct = (x: number) => `${Math.round(x * 1000) / 10} %`;

/** One event as text lines. */
export function watchText(ev: WatchEvent, time: string): string {
  const L = [
    `${time}  #${ev.seq}  ${ev.tables.length} tables, ${ev.records} records, ${ev.tombstones} tombstones (${pct(ev.tombstoneRatio)})`,
  ];
  for (const n of ev.appended) L.push(`  appended ${n}`);
  for (const c of ev.compactions)
    L.push(
      `  compacted tables ${c.segment.start}–${c.segment.end} (${c.from.length}) into ${c.into ?? 'nothing (every record cancelled out)'}`,
    );
  for (const l of ev.locks.appeared) L.push(`  lock appeared: ${l}`);
  for (const l of ev.locks.disappeared) L.push(`  lock gone: ${l}`);
  for (const a of ev.alerts) L.push(`  alert: ${a}`);
  return L.join('\n') + '\n';
}

async function run(ctx: Context): Promise<number> {
  const dir = reftableDir(ctx.positionals[0]);
  const once = ctx.values.once === true;
  const count = ctx.values.count === undefined ? Infinity : Number(ctx.values.count);
  if (count !== Infinity && (!Number.isInteger(count) || count < 1))
    throw new UsageError('--count: a whole number of events, at least 1');
  const interval = ctx.values.interval === undefined ? 100 : Number(ctx.values.interval);
  if (!Number.isInteger(interval) || interval < 10 || interval > 60000)
    throw new UsageError('--interval: milliseconds between looks, 10..60000');
  const until = ctx.values.budget === undefined ? Infinity : ctx.deadline;
  const w = new StackWatcher();
  let stop = false;
  const onSignal = () => {
    stop = true;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let events = 0;
  try {
    for (;;) {
      const ev = w.step(nodeSnapshot(dir));
      if (ev) {
        const time = new Date().toISOString();
        process.stdout.write(
          ctx.json ? JSON.stringify(watchDoc(ev, displayName(dir), time)) + '\n' : watchText(ev, time),
        );
        events++;
      }
      if (once || events >= count || stop || Date.now() >= until) return 0;
      await new Promise((r) => setTimeout(r, interval));
      if (stop) return 0;
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export const watchCommand: CommandSpec = {
  name: 'watch',
  usage: '[options] <path>',
  summary:
    'Follow a live reftable stack: one event per new tables.list state or lock-file change (tables appended, auto-compactions and their segment, lock files, records and tombstone ratio, alerts). Ctrl+C ends it.',
  args: { min: 1, max: 1 },
  options: {
    once: { type: 'boolean', help: 'print the current state and exit' },
    count: { type: 'string', value: 'N', help: 'exit after N events' },
    interval: { type: 'string', value: 'MS', help: 'milliseconds between looks at tables.list (default 100)' },
  },
  schema: WATCH_SCHEMA,
  run,
};
