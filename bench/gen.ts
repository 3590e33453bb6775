/**
 * bench/gen: the large stacks of the benchmark, written with refscope's own writer
 * (src/engine/writer.ts, byte-identical to git's writer on every git-written fixture, see
 * test/writer.test.ts) into bench/out/.
 *
 * - `single/`: 1,000,000 refs in one table, git's layout (4 KiB blocks, restart interval 16, obj
 *   index), as `git pack-refs` would leave a forge's refs: HEAD, branches, tags (half annotated,
 *   with peeled ids), `refs/pull/N/head` and `/merge`, Gerrit's `refs/changes/NN/N/P`. SHA-1 ids.
 * - `stack10/`: the same refs as the 10 tables a sequence of transactions leaves after git's
 *   auto-compaction (geometric sizes, disjoint consecutive update-index ranges, oldest first); some
 *   refs were updated in a later transaction, so older tables hold their older values (shadowed).
 * - `tomb50k/`: the single table plus a newer table of 50,000 tombstones (the refs of 25,000 closed
 *   pull requests, deleted in one transaction).
 *
 * Everything is deterministic (seeded PRNG, ids are SHA-1 of a counter). A manifest records the
 * generator version; files are rebuilt when it changes or `--rebuild` is given.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  writeTableDetailed,
  tableFileName,
  type RefRecordIn,
  type WrittenTable,
} from '../src/engine/reftable/writer.ts';

export const GEN_VERSION = 4;
export const N_REFS = 1_000_000;
export const N_TOMBSTONES = 50_000;

/** Small deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let oidCounter = 0;
function newOid(): Uint8Array {
  return new Uint8Array(createHash('sha1').update(`object ${oidCounter++}`).digest());
}

/** One ref of the final state, with when it was created and (maybe) last rewritten. */
interface GenRef {
  name: string;
  type: 1 | 2 | 3;
  value?: Uint8Array;
  peeled?: Uint8Array;
  target?: string;
  /** Creation time in [0, 1). */
  born: number;
  /** Time of the last update in [born, 1), when it was rewritten later (its older value then sits in an older table). */
  updated: number | null;
  oldValue?: Uint8Array;
}

const WORDS = [
  'fix',
  'feat',
  'docs',
  'refactor',
  'perf',
  'ci',
  'build',
  'test',
  'chore',
  'deps',
  'api',
  'ui',
  'auth',
  'cache',
  'db',
  'infra',
];
const USERS = Array.from({ length: 2000 }, (_, i) => `user${(i * 7919) % 100000}`);

/** The forge's refs (final state), sorted by name (byte order). Exactly `N_REFS` records. */
export function forgeRefs(): GenRef[] {
  oidCounter = 0;
  const r = rng(0x5eed);
  const refs: GenRef[] = [];
  const pullHeads: Uint8Array[] = [];
  // Pull requests: head for every one, merge for about two thirds; numbers grow with time.
  const PULLS = 300_000;
  let merges = 0;
  for (let n = 1; n <= PULLS; n++) {
    const born = (n - 1 + r()) / PULLS;
    const head = newOid();
    pullHeads.push(head);
    const rewritten = r() < 0.03;
    refs.push({
      name: `refs/pull/${n}/head`,
      type: 1,
      value: head,
      born,
      updated: rewritten ? born + (1 - born) * r() : null,
      oldValue: rewritten ? newOid() : undefined,
    });
    if (merges < 200_000 && (n % 3 !== 0 || n > 290_000)) {
      merges++;
      refs.push({ name: `refs/pull/${n}/merge`, type: 1, value: newOid(), born, updated: null });
    }
  }
  // Branches: a few long-lived ones, release branches, many topic branches (a third at a PR head).
  refs.push({ name: 'HEAD', type: 3, target: 'refs/heads/main', born: 0, updated: null });
  const branchNames = new Set<string>(['refs/heads/main', 'refs/heads/develop', 'refs/heads/gh-pages']);
  for (let maj = 1; maj <= 40; maj++)
    for (let min = 0; min < 25; min++) branchNames.add(`refs/heads/release/${maj}.${min}`);
  while (branchNames.size < 40_000) {
    const u = USERS[Math.floor(r() * USERS.length)];
    const w = WORDS[Math.floor(r() * WORDS.length)];
    branchNames.add(
      r() < 0.2
        ? `refs/heads/dependabot/npm_and_yarn/${w}-${Math.floor(r() * 5000)}`
        : `refs/heads/${u}/${w}-${Math.floor(r() * 100000)}`,
    );
  }
  for (const name of branchNames) {
    const value = r() < 0.5 ? pullHeads[Math.floor(r() * pullHeads.length)] : newOid();
    const born = r();
    const busy = name === 'refs/heads/main' || name === 'refs/heads/develop' || r() < 0.05;
    refs.push({
      name,
      type: 1,
      value,
      born: busy ? 0 : born,
      updated: busy ? 0.999 * r() + (name === 'refs/heads/main' ? 0.001 : 0) : null,
      oldValue: busy ? newOid() : undefined,
    });
  }
  // Tags: releases and nightlies, half annotated (tag object + peeled commit).
  const tagNames: string[] = [];
  for (let maj = 0; maj < 40; maj++)
    for (let min = 0; min < 50; min++) for (let p = 0; p < 15; p++) tagNames.push(`refs/tags/v${maj}.${min}.${p}`);
  for (let d = 0; tagNames.length < 60_000; d++)
    tagNames.push(`refs/tags/nightly/${2000 + Math.floor(d / 1000)}-${String(d % 1000).padStart(3, '0')}`);
  for (const name of tagNames) {
    const born = r();
    // Tags point at commits of the history, which merged pull requests' heads often are.
    const commit = r() < 0.7 ? pullHeads[Math.floor(r() * pullHeads.length)] : newOid();
    if (r() < 0.5) refs.push({ name, type: 2, value: newOid(), peeled: commit, born, updated: null });
    else refs.push({ name, type: 1, value: commit, born, updated: null });
  }
  // Gerrit changes: refs/changes/<last two digits>/<change>/<patch set>, filling up to N_REFS.
  let change = 1;
  const CHANGES = 100_000;
  while (refs.length < N_REFS) {
    const sets = 1 + Math.floor(r() * 7);
    const born = ((change - 1 + r()) / CHANGES) * 0.98;
    for (let p = 1; p <= sets && refs.length < N_REFS; p++) {
      refs.push({
        name: `refs/changes/${String(change % 100).padStart(2, '0')}/${change}/${p}`,
        type: 1,
        value: newOid(),
        born: Math.min(0.9999, born + p * 0.0001),
        updated: null,
      });
    }
    change++;
  }
  refs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return refs;
}

/** Transactions: refs born (or rewritten) close in time commit together, about 5 refs each. */
export const TRANSACTIONS = 200_000;
function txOf(t: number): number {
  return 1 + Math.min(TRANSACTIONS - 1, Math.floor(t * TRANSACTIONS));
}

/** Records of the single packed table: every ref at its last update's transaction. */
export function singleRecords(refs: GenRef[]): RefRecordIn[] {
  return refs.map((g) => ({
    name: g.name,
    type: g.type,
    value: g.value,
    peeled: g.peeled,
    target: g.target,
    updateIndex: txOf(g.updated ?? g.born),
  }));
}

/**
 * Update-index boundaries of the 10 tables: the sizes git's auto-compaction leaves (each table
 * about half the size of the next older one), oldest first.
 */
export function stackBounds(): number[] {
  const frac = [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.0156, 0.0078, 0.0039, 0.002, 0.00135];
  const total = frac.reduce((a, b) => a + b, 0);
  const bounds = [1];
  let acc = 0;
  for (const f of frac) {
    acc += f / total;
    bounds.push(
      Math.min(TRANSACTIONS + 1, Math.max(bounds[bounds.length - 1] + 1, 1 + Math.round(acc * TRANSACTIONS))),
    );
  }
  bounds[bounds.length - 1] = TRANSACTIONS + 1;
  return bounds; // table i holds transactions [bounds[i], bounds[i+1])
}

/** The 10 tables' records (oldest first): a ref sits in the table of its creation, and of its last rewrite. */
export function stackRecords(refs: GenRef[]): { min: number; max: number; records: RefRecordIn[] }[] {
  const b = stackBounds();
  const out = b.slice(0, -1).map((lo, i) => ({ min: lo, max: b[i + 1] - 1, records: [] as RefRecordIn[] }));
  const tableOf = (tx: number): number => {
    let i = 0;
    while (i + 1 < out.length && tx >= b[i + 1]) i++;
    return i;
  };
  for (const g of refs) {
    const bornTx = txOf(g.born);
    const last = g.updated === null ? null : txOf(g.updated);
    const lastTable = last === null ? -1 : tableOf(last);
    const bornTable = tableOf(bornTx);
    if (last !== null && lastTable !== bornTable) {
      out[bornTable].records.push({ name: g.name, type: 1, value: g.oldValue, updateIndex: bornTx });
    }
    const tx = last ?? bornTx;
    out[tableOf(tx)].records.push({
      name: g.name,
      type: g.type,
      value: g.value,
      peeled: g.peeled,
      target: g.target,
      updateIndex: tx,
    });
  }
  return out; // names stay sorted: refs are iterated in name order
}

/** The 50,000 refs the tombstone table deletes: all refs of closed pull requests 100,001…, until 50,000. */
export function tombstoneRecords(refs: GenRef[]): RefRecordIn[] {
  const out: RefRecordIn[] = [];
  const pulls = refs
    .filter((g) => g.name.startsWith('refs/pull/'))
    .map((g) => ({ g, n: Number(g.name.split('/')[2]) }));
  pulls.sort((a, b) => a.n - b.n || (a.g.name < b.g.name ? -1 : 1));
  for (const { g, n } of pulls) {
    if (n <= 100_000) continue;
    if (out.length === N_TOMBSTONES) break;
    out.push({ name: g.name, type: 0, updateIndex: TRANSACTIONS + 1 });
  }
  // A transaction of git's has one update index; the last PR may leave one ref of two: keep it exact.
  out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return out;
}

export interface BuiltStacks {
  single: string;
  stack10: string;
  tomb50k: string;
  /** The single table's file. */
  singleTable: string;
  /** Layout of the single table as written (block list). */
  singleLayout: WrittenTable['blocks'];
  rebuilt: boolean;
  buildMs: number;
}

/** Write `tables` (git's layout: 4 KiB blocks, restart interval 16, obj index) and their tables.list into `dir`. */
export function writeStack(
  dir: string,
  tables: { min: number; max: number; records: RefRecordIn[]; rand: number }[],
): { names: string[]; layouts: WrittenTable[] } {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const names: string[] = [];
  const layouts: WrittenTable[] = [];
  for (const t of tables) {
    const w = writeTableDetailed(t.records, [], {
      minUpdateIndex: t.min,
      maxUpdateIndex: t.max,
      blockSize: 4096,
      restartInterval: 16,
      indexObjects: true,
    });
    const name = tableFileName(t.min, t.max, t.rand);
    fs.writeFileSync(path.join(dir, name), w.bytes);
    names.push(name);
    layouts.push({ ...w, bytes: new Uint8Array(0) });
  }
  fs.writeFileSync(path.join(dir, 'tables.list'), names.map((n) => n + '\n').join(''));
  return { names, layouts };
}

/** Build (or reuse) the three stacks under `outDir`. */
export function buildStacks(outDir: string, rebuild = false): BuiltStacks {
  const manifestPath = path.join(outDir, 'manifest.json');
  const dirs = {
    single: path.join(outDir, 'single/reftable'),
    stack10: path.join(outDir, 'stack10/reftable'),
    tomb50k: path.join(outDir, 'tomb50k/reftable'),
  };
  if (!rebuild && fs.existsSync(manifestPath)) {
    try {
      const m = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
      if (
        m.version === GEN_VERSION &&
        [dirs.single, dirs.stack10, dirs.tomb50k].every((d) => fs.existsSync(path.join(d, 'tables.list')))
      ) {
        return {
          ...dirs,
          singleTable: path.join(dirs.single, m.singleTable),
          singleLayout: m.singleLayout,
          rebuilt: false,
          buildMs: m.buildMs,
        };
      }
    } catch {
      /* rebuild */
    }
  }
  const t0 = performance.now();
  fs.mkdirSync(outDir, { recursive: true });
  const refs = forgeRefs();
  const single = singleRecords(refs);
  const maxTx = TRANSACTIONS;
  const a = writeStack(dirs.single, [{ min: 1, max: maxTx, records: single, rand: 0x5151e001 }]);
  const st = stackRecords(refs);
  writeStack(
    dirs.stack10,
    st.map((t, i) => ({ ...t, rand: 0x10ab0000 + i })),
  );
  const tomb = tombstoneRecords(refs);
  // (c): the single table plus the tombstone table (the base is the very same file).
  writeStack(dirs.tomb50k, [
    { min: 1, max: maxTx, records: single, rand: 0x5151e001 },
    { min: maxTx + 1, max: maxTx + 1, records: tomb, rand: 0x70b50000 },
  ]);
  const buildMs = performance.now() - t0;
  const singleLayout = a.layouts[0].blocks;
  fs.writeFileSync(
    manifestPath,
    JSON.stringify({ version: GEN_VERSION, singleTable: a.names[0], singleLayout, buildMs }),
  );
  return { ...dirs, singleTable: path.join(dirs.single, a.names[0]), singleLayout, rebuilt: true, buildMs };
}
