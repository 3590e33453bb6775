/**
 * bench/gen-scale: the forge-scale inputs of the browser benchmark, written with refscope's own
 * writer in git's layout (4 KiB blocks, restart interval 16, obj index; SHA-1), into
 * bench/out/scale<N>/:
 *
 * - `single/reftable`: N refs in one table, as `git pack-refs --all` leaves a forge's refs:
 *   `refs/pull/<n>/head` and `/merge`, `refs/keep-around/<id>`, Gerrit's
 *   `refs/changes/NN/<change>/<patch set>`, branches, tags (some annotated, with peeled ids), HEAD.
 * - `stack20/reftable`: the same refs over 20 tables: 19 of geometric sizes (each about half the
 *   next older one, as git's auto-compaction leaves them; 3 % of the refs rewritten in a newer
 *   table, so the older value is shadowed), and a newest table of 100,000 tombstones (closed pull
 *   requests deleted in one transaction) — the input of the simulator's recreate workload.
 *
 *   node --max-old-space-size=12000 bin/run-ts.mjs bench/gen-scale.ts [--refs 10000000]
 *
 * Deterministic (seeded PRNG); a file `DONE` records what was written.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { RefRecordIn } from '../src/engine/reftable/writer.ts';
import { rng, writeStack } from './gen.ts';

export const TOMBSTONES = 100_000;
export const STACK_TABLES = 20;

export interface ScaleInput {
  single: string;
  stack20: string;
  refs: number;
  /** Live refs of the stack (refs minus the tombstoned ones). */
  stackLive: number;
  singleBytes: number;
  stackBytes: number;
}

function dirsOf(out: string, n: number) {
  const base = path.join(out, `scale${n >= 1e6 && n % 1e6 === 0 ? n / 1e6 + 'm' : n}`);
  return { base, single: path.join(base, 'single/reftable'), stack20: path.join(base, 'stack20/reftable') };
}

/** Build (or reuse) the inputs for `n` refs under `out`. */
export function buildScale(out: string, n: number, log: (s: string) => void = () => {}): ScaleInput {
  const d = dirsOf(out, n);
  const done = path.join(d.base, 'DONE');
  if (fs.existsSync(done)) return JSON.parse(fs.readFileSync(done, 'utf8')) as ScaleInput;
  const t0 = Date.now();
  const r = rng(0x10f0);
  const hs = 20;
  // Object ids: one arena, random bytes (unique with overwhelming odds); views per record.
  const ids = new Uint8Array((n + (n >> 3) + 16) * hs);
  for (let i = 0; i < ids.length; i += 4) {
    const v = (r() * 4294967296) >>> 0;
    ids[i] = v;
    ids[i + 1] = v >>> 8;
    ids[i + 2] = v >>> 16;
    ids[i + 3] = v >>> 24;
  }
  let idAt = 0;
  const oid = () => ids.subarray(idAt * hs, ++idAt * hs);
  const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  type G = { name: string; type: 1 | 2 | 3; value?: Uint8Array; peeled?: Uint8Array; target?: string };
  const refs: G[] = [];
  refs.push({ name: 'HEAD', type: 3, target: 'refs/heads/main' });
  for (const b of ['main', 'develop', 'gh-pages']) refs.push({ name: `refs/heads/${b}`, type: 1, value: oid() });
  const branches = Math.floor(n * 0.004);
  for (let i = 0; i < branches; i++) refs.push({ name: `refs/heads/user${i % 997}/topic-${i}`, type: 1, value: oid() });
  const tags = Math.floor(n * 0.006);
  for (let i = 0; i < tags; i++) {
    const name = `refs/tags/v${Math.floor(i / 1000)}.${Math.floor(i / 10) % 100}.${i % 10}`;
    if (i % 2) refs.push({ name, type: 2, value: oid(), peeled: oid() });
    else refs.push({ name, type: 1, value: oid() });
  }
  const keep = Math.floor(n * 0.2);
  for (let i = 0; i < keep; i++) {
    const v = oid();
    refs.push({ name: `refs/keep-around/${hex(v)}`, type: 1, value: v });
  }
  // Pull requests: head for each, merge for two thirds, until 65 % of the refs.
  let pr = 0;
  const pullTarget = Math.floor(n * 0.65);
  while (refs.length < pullTarget + keep + tags + branches + 4) {
    pr++;
    refs.push({ name: `refs/pull/${pr}/head`, type: 1, value: oid() });
    if (pr % 3) refs.push({ name: `refs/pull/${pr}/merge`, type: 1, value: oid() });
  }
  let change = 0;
  while (refs.length < n) {
    change++;
    const sets = 1 + (change % 5);
    for (let p = 1; p <= sets && refs.length < n; p++)
      refs.push({
        name: `refs/changes/${String(change % 100).padStart(2, '0')}/${change}/${p}`,
        type: 1,
        value: oid(),
      });
  }
  refs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  log(`   ${n.toLocaleString('en-US')} refs generated (${((Date.now() - t0) / 1000).toFixed(1)} s)`);

  // Table of each ref in the stack: geometric (table 0 the oldest, about half of everything).
  const T = STACK_TABLES - 1;
  const tableOf = (): number => {
    const x = r();
    let t = 0,
      lim = 0.5;
    while (t < T - 1 && x > lim) {
      t++;
      lim += 0.5 ** (t + 1);
    }
    return t;
  };
  const born = new Uint8Array(refs.length);
  const rewritten = new Uint8Array(refs.length).fill(255);
  for (let i = 0; i < refs.length; i++) {
    born[i] = tableOf();
    if (r() < 0.03 && born[i] < T - 1) rewritten[i] = born[i] + 1 + Math.floor(r() * (T - 1 - born[i]));
  }
  const write = (dir: string, tables: { min: number; max: number; records: RefRecordIn[] }[]): number => {
    const { names } = writeStack(
      dir,
      tables.map((t, k) => ({ ...t, rand: 0x1000 + k })),
    );
    let bytes = 0;
    names.forEach((name, k) => {
      const size = fs.statSync(path.join(dir, name)).size;
      bytes += size;
      log(
        `   ${name}: ${tables[k].records.length.toLocaleString('en-US')} records, ${size.toLocaleString('en-US')} bytes`,
      );
    });
    return bytes;
  };
  const rec = (g: G, updateIndex: number): RefRecordIn => ({
    name: g.name,
    type: g.type,
    value: g.value,
    peeled: g.peeled,
    target: g.target,
    updateIndex,
  });
  const singleBytes = write(d.single, [
    {
      min: 1,
      max: T,
      records: refs.map((g, i) => rec(g, 1 + (rewritten[i] === 255 ? born[i] : rewritten[i]))),
    },
  ]);
  // The stack: older values where a ref was rewritten later, then the tombstones.
  const tables = Array.from({ length: T }, (_, k) => ({ min: k + 1, max: k + 1, records: [] as RefRecordIn[] }));
  for (let i = 0; i < refs.length; i++) {
    const g = refs[i];
    if (rewritten[i] !== 255) {
      tables[born[i]].records.push({ name: g.name, type: 1, value: oid(), updateIndex: born[i] + 1 });
      tables[rewritten[i]].records.push(rec(g, rewritten[i] + 1));
    } else tables[born[i]].records.push(rec(g, born[i] + 1));
  }
  const tomb: RefRecordIn[] = [];
  for (const g of refs) {
    if (tomb.length === Math.min(TOMBSTONES, n >> 4)) break;
    if (g.name.startsWith('refs/pull/')) tomb.push({ name: g.name, type: 0, updateIndex: T + 1 });
  }
  const stackBytes = write(d.stack20, [...tables, { min: T + 1, max: T + 1, records: tomb }]);
  const res: ScaleInput = {
    single: d.single,
    stack20: d.stack20,
    refs: n,
    stackLive: n - tomb.length,
    singleBytes,
    stackBytes,
  };
  fs.writeFileSync(done, JSON.stringify(res, null, 2));
  log(`   written in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return res;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('gen-scale.ts')) {
  const i = process.argv.indexOf('--refs');
  const n = i > 0 ? Number(process.argv[i + 1]) : 10_000_000;
  const out = path.join(path.dirname(new URL(import.meta.url).pathname), 'out');
  const res = buildScale(out, n, console.log);
  console.log(JSON.stringify(res));
}
