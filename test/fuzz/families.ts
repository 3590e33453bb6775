/**
 * Fuzz families over every input refscope takes — tables, stacks, `tables.list`, packed-refs,
 * loose refs, writer arguments, share links — each a deterministic case generator (a seeded
 * mutator over the repository's fixtures: case `i` of seed `s` is always the same input) and an
 * oracle that runs the case through the engine's entry points and checks the contract:
 *
 * - nothing but the engine's own error (`FormatError`, a share link's `ShareLinkError` is one)
 *   escapes; the writer's documented refusal (`WriterError`) is counted apart;
 * - an error names a file and an offset (an integer, −1 for the whole file) on one line;
 * - the worker's session flow (`EngineSession.load`, then every question the page asks) never
 *   throws from `load`, and a link the session makes is a link the decoder opens.
 *
 * Used in-process by families.test.ts (a fixed-seed slice in `npm test`) and in worker threads
 * with a per-case deadline by pool.ts (`npm run fuzz`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync, inflateSync } from 'fflate';
import {
  FormatError,
  analyzeFiles,
  buildReport,
  analysisRefs,
  memorySource,
  openTable,
  type InputFile,
} from '../../src/engine/index.ts';
import { EngineSession } from '../../src/engine/session/index.ts';
import {
  decodeShare,
  reportFromShare,
  describeShare,
  shareLink,
  base64UrlEncode,
  base64UrlDecode,
  sharedSimulation,
  SIM_SHARE_MAGIC,
} from '../../src/engine/share/index.ts';
import { exportJson, exportMarkdown } from '../../src/engine/export.ts';
import { writeTable, WriterError, type RefRecordIn, type LogRecordIn } from '../../src/engine/reftable/writer.ts';

export const FAMILIES = ['table', 'stack', 'tables.list', 'packed-refs', 'loose', 'writer', 'share'] as const;
export type Family = (typeof FAMILIES)[number];

/** One input: files as dropped (path → bytes), or writer arguments, or a link text. */
export interface FuzzCase {
  family: Family;
  /** What was done to the seed, for the saved description. */
  desc: string;
  files?: { path: string; bytes: Uint8Array }[];
  writer?: { refs: RefRecordIn[]; logs: LogRecordIn[]; opts: Record<string, unknown> };
  link?: string;
  /** Also run the worker's whole session flow (one case in `DEEP_EVERY`: it is the slow part). */
  deep?: boolean;
}

/** One case in this many runs the whole session flow (share links made and opened included). */
export const DEEP_EVERY = 8;

/** The case broke the contract (anything but the engine's error escaped, or a promise was broken). */
export class Broken extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Broken';
  }
}

// ---------------------------------------------------------------------------------------------
// A seeded generator (xorshift32): small, fast, the same stream on every machine.

export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 0x9e3779b9;
  }
  next(): number {
    let x = this.s;
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    this.s = x;
    return x;
  }
  int(n: number): number {
    return n <= 0 ? 0 : this.next() % n;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }
  chance(p: number): boolean {
    return this.next() / 0x100000000 < p;
  }
}

/** The seed of case `index` of run `seed` (so one case is replayed without the ones before it). */
export function caseSeed(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

// ---------------------------------------------------------------------------------------------
// Seeds: the repository's fixtures

const FX = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');

interface Seeds {
  stacks: { fx: string; names: string[]; list: Uint8Array; tables: Map<string, Uint8Array> }[];
  packed: Uint8Array<ArrayBufferLike>[];
  loose: { path: string; bytes: Uint8Array }[][];
  links: string[];
}
let seeds: Seeds | null = null;

function readTree(root: string, rel = ''): { path: string; bytes: Uint8Array }[] {
  const out: { path: string; bytes: Uint8Array }[] = [];
  for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.name === 'truth') continue;
    if (e.isDirectory()) out.push(...readTree(root, p));
    else out.push({ path: p, bytes: new Uint8Array(fs.readFileSync(path.join(root, p))) });
  }
  return out;
}

export function loadSeeds(): Seeds {
  if (seeds) return seeds;
  const stacks: Seeds['stacks'] = [];
  const dir = path.join(FX, 'reftable');
  for (const fx of fs.readdirSync(dir).sort()) {
    const rd = path.join(dir, fx, 'reftable');
    const list = new Uint8Array(fs.readFileSync(path.join(rd, 'tables.list')));
    const names = new TextDecoder().decode(list).trim().split('\n');
    const tables = new Map(names.map((n) => [n, new Uint8Array(fs.readFileSync(path.join(rd, n)))] as const));
    // The 1.7 MB table of tombstones-50k makes each case slow: its stack is left to the table family.
    if ([...tables.values()].reduce((s, b) => s + b.length, 0) > 1_000_000) continue;
    stacks.push({ fx, names, list, tables });
  }
  const packed: Uint8Array[] = [new Uint8Array(fs.readFileSync(path.join(FX, 'packed-refs/gitgit/packed-refs')))];
  const loose = [readTree(path.join(FX, 'files/basic')).map((f) => ({ path: `.git/${f.path}`, bytes: f.bytes }))];
  packed.push(loose[0].find((f) => f.path === '.git/packed-refs')!.bytes);
  const links: string[] = [];
  for (const s of stacks) {
    const a = analyzeFiles(filesOfStack(s));
    const r = buildReport(a);
    for (const withNames of [false, true]) {
      const l = shareLink(a, r, { withNames, simulation: simLayout() });
      if (l.ok) links.push(l.fragment);
    }
  }
  const hostile = path.join(FX, 'hostile/share-links');
  if (fs.existsSync(hostile)) {
    for (const f of fs.readdirSync(hostile).sort()) {
      const t = fs.readFileSync(path.join(hostile, f), 'utf8');
      const i = t.indexOf('#s=');
      if (i >= 0 && t.length < 20_000) links.push(t.slice(i).trim());
    }
  }
  seeds = { stacks, packed, loose, links };
  return seeds;
}

function filesOfStack(
  s: Seeds['stacks'][number],
  list: Uint8Array = s.list,
  swap?: { name: string; bytes: Uint8Array },
): InputFile[] {
  const files: InputFile[] = [{ path: 'reftable/tables.list', source: memorySource(list) }];
  for (const [n, b] of s.tables)
    files.push({ path: `reftable/${n}`, source: memorySource(swap && swap.name === n ? swap.bytes : b) });
  return files;
}

/** A simulation in the link's layout (share/simulation.ts), to be mutated. */
function simLayout(): unknown[] {
  return [
    SIM_SHARE_MAGIC,
    [1, 0, 1000, 1],
    [1, 1, 2],
    [0, 2, 10, 0],
    [
      [0, 1, 1.5, 10, 20, 30, 5, 2, 0, [3, 1.2, 1, 0.1]],
      [2, 1, 0.5, 10, 20, 30, 0, 2, 0, [3, 0.4]],
    ],
    [[0, 0, 1, 1.5, 0.2]],
    1000,
    [
      [0, 0.01, 0.5, 1],
      [2, 0.01, 0.4, 0.1],
    ],
  ];
}

// ---------------------------------------------------------------------------------------------
// Mutations

const EDGE = [0, 1, 0x7f, 0x80, 0xff, 0xfe, 0x0a, 0x00, 0x2f, 0x2e];

/** 1–4 byte-level edits of `b` (bit flips, byte sets, truncation, deletion, insertion, duplication, splices). */
export function mutateBytes(rng: Rng, b: Uint8Array, other?: Uint8Array): { bytes: Uint8Array; desc: string } {
  let out: Uint8Array = b.slice();
  const did: string[] = [];
  const k = 1 + rng.int(4);
  for (let i = 0; i < k; i++) {
    const at = rng.int(Math.max(1, out.length));
    switch (rng.int(8)) {
      case 0:
        if (out.length) {
          out[at] ^= 1 << rng.int(8);
          did.push(`flip@${at}`);
        }
        break;
      case 1:
        if (out.length) {
          out[at] = rng.pick(EDGE);
          did.push(`set@${at}=${out[at]}`);
        }
        break;
      case 2:
        out = out.slice(0, at);
        did.push(`truncate@${at}`);
        break;
      case 3: {
        const n = 1 + rng.int(16);
        out = Uint8Array.from([...out.subarray(0, at), ...out.subarray(at + n)]);
        did.push(`delete@${at}+${n}`);
        break;
      }
      case 4: {
        const n = 1 + rng.int(16);
        const ins = Uint8Array.from({ length: n }, () => (rng.chance(0.5) ? rng.pick(EDGE) : rng.int(256)));
        out = Uint8Array.from([...out.subarray(0, at), ...ins, ...out.subarray(at)]);
        did.push(`insert@${at}+${n}`);
        break;
      }
      case 5: {
        const n = 1 + rng.int(64);
        out = Uint8Array.from([...out.subarray(0, at + n), ...out.subarray(at, at + n), ...out.subarray(at + n)]);
        did.push(`dup@${at}+${n}`);
        break;
      }
      case 6:
        if (other && other.length) {
          const o = rng.int(other.length);
          const n = 1 + rng.int(64);
          out = Uint8Array.from([...out.subarray(0, at), ...other.subarray(o, o + n), ...out.subarray(at + n)]);
          did.push(`splice@${at}<-${o}+${n}`);
        }
        break;
      default:
        if (out.length > 4) {
          const v = [0xff, 0xff, 0xff, 0xff, 0x7f];
          for (let j = 0; j < v.length && at + j < out.length; j++) out[at + j] = v[j];
          did.push(`varint@${at}`);
        }
        break;
    }
  }
  return { bytes: out, desc: did.join(' ') };
}

const te = new TextEncoder();
const td = new TextDecoder();

/** Case `index` of family `family` for run `seed`. */
export function makeCase(family: Family, seed: number, index: number): FuzzCase {
  const c = makeCaseOf(family, seed, index);
  c.deep = Math.floor(index / FAMILIES.length) % DEEP_EVERY === 0;
  return c;
}

function makeCaseOf(family: Family, seed: number, index: number): FuzzCase {
  const rng = new Rng(caseSeed(seed, index));
  const S = loadSeeds();
  switch (family) {
    case 'table':
    case 'stack': {
      const s = rng.pick(S.stacks);
      const name = rng.pick(s.names);
      const other = s.tables.get(rng.pick(s.names));
      const m = mutateBytes(rng, s.tables.get(name)!, other);
      if (family === 'table')
        return { family, desc: `${s.fx}/${name}: ${m.desc}`, files: [{ path: `reftable/${name}`, bytes: m.bytes }] };
      const files = [
        { path: 'reftable/tables.list', bytes: s.list },
        ...[...s.tables].map(([n, b]) => ({ path: `reftable/${n}`, bytes: n === name ? m.bytes : b })),
      ];
      return { family, desc: `${s.fx} with ${name}: ${m.desc}`, files };
    }
    case 'tables.list': {
      const s = rng.pick(S.stacks);
      const lines = td.decode(s.list).trim().split('\n');
      const pool = [
        ...lines,
        '..',
        '../x.ref',
        '.',
        '',
        'a/b.ref',
        'x.ref\r',
        '\u0000',
        ' ',
        lines[0] + ' ',
        'tables.list',
        'reftable/' + lines[0],
      ];
      const n = rng.int(40);
      const out: string[] = [];
      for (let i = 0; i < n; i++) out.push(rng.chance(0.8) ? rng.pick(pool) : rng.pick(lines));
      // Repeated lines: the same table listed many times (each must be parsed once).
      if (rng.chance(0.2)) for (let i = 0; i < 200 + rng.int(800); i++) out.push(lines[0]);
      const list = te.encode(out.join('\n') + (rng.chance(0.7) ? '\n' : ''));
      return {
        family,
        desc: `${s.fx}: tables.list of ${out.length} lines`,
        files: [
          { path: 'reftable/tables.list', bytes: list },
          ...[...s.tables].map(([p, b]) => ({ path: `reftable/${p}`, bytes: b })),
        ],
      };
    }
    case 'packed-refs': {
      const seedBytes = rng.pick(S.packed);
      // Mutate a slice near the start most of the time (the header and first lines matter most).
      const m = mutateBytes(rng, rng.chance(0.7) ? seedBytes.subarray(0, 4096) : seedBytes);
      return { family, desc: `packed-refs: ${m.desc}`, files: [{ path: 'packed-refs', bytes: m.bytes }] };
    }
    case 'loose': {
      const tree = rng.pick(S.loose).map((f) => ({ ...f }));
      const i = rng.int(tree.length);
      const m = mutateBytes(rng, tree[i].bytes);
      tree[i] = { path: tree[i].path, bytes: m.bytes };
      let desc = `${tree[i].path}: ${m.desc}`;
      if (rng.chance(0.3)) {
        // A loose ref with a crafted name or content: long symref targets, loops, odd names.
        const kind = rng.int(4);
        const content =
          kind === 0
            ? `ref: refs/heads/${'x'.repeat(rng.int(12_000))}\n`
            : kind === 1
              ? 'ref: refs/heads/loop\n'
              : kind === 2
                ? 'ref: HEAD\n'
                : '0'.repeat(40 + rng.int(30)) + '\n';
        const name = rng.pick([
          '.git/refs/heads/loop',
          '.git/refs/heads/a..b',
          '.git/refs/heads/x.lock',
          `.git/refs/heads/${'n'.repeat(1 + rng.int(300))}`,
          '.git/HEAD',
          '.git/refs/tags/\u202e',
        ]);
        tree.push({ path: name, bytes: te.encode(content) });
        desc += `; + ${name.slice(0, 60)} = ${content.slice(0, 40).trim()}…`;
      }
      return { family, desc, files: tree };
    }
    case 'writer': {
      const nRefs = rng.int(30);
      const long = rng.chance(0.2);
      const names = new Set<string>();
      while (names.size < nRefs)
        names.add(`refs/heads/${long ? 'L'.repeat(rng.int(600)) : ''}${rng.int(1 << 20).toString(36)}`);
      const sorted = [...names].sort();
      const hs = rng.chance(0.3) ? 32 : 20;
      const refs: RefRecordIn[] = sorted.map((name, i) => {
        const type = rng.int(4) as 0 | 1 | 2 | 3;
        const oid = Uint8Array.from({ length: hs }, (_, k) => (i * 13 + k) & 255);
        return {
          name,
          updateIndex: 1 + rng.int(3),
          type,
          value: type === 1 || type === 2 ? oid : undefined,
          peeled: type === 2 ? oid : undefined,
          target: type === 3 ? 'refs/heads/' + 't'.repeat(rng.int(200)) : undefined,
        };
      });
      const logs: LogRecordIn[] = sorted.slice(0, rng.int(8)).map((name, i) => ({
        name,
        updateIndex: 3,
        type: 1,
        oldId: new Uint8Array(hs),
        newId: new Uint8Array(hs).fill(i + 1),
        committerName: rng.pick(['A U Thor', '', 'x'.repeat(300)]),
        email: 'a@example.com',
        time: 1_700_000_000,
        tzOffset: rng.pick([0, 60, -720, 5000]),
        message: rng.pick(['msg', '', 'two\nlines', 'x'.repeat(2000)]),
      }));
      const opts = {
        hashId: hs === 32 ? 's256' : 'sha1',
        blockSize: rng.pick([0, 1, 100, 256, 512, 1024, 4096, 65536, 1 << 24, -1, 3.5]),
        restartInterval: rng.pick([1, 2, 16, 65535, 0, 70000]),
        minUpdateIndex: 1,
        maxUpdateIndex: rng.pick([3, 0, 2 ** 53]),
        indexObjects: rng.chance(0.5),
        unpadded: rng.chance(0.2),
      };
      return {
        family,
        desc: `writer: ${refs.length} refs${long ? ' (long names)' : ''}, ${logs.length} logs, ${JSON.stringify(opts)}`,
        writer: { refs, logs, opts },
      };
    }
    case 'share': {
      const base = rng.pick(S.links);
      const m = /^#s=(\d+)\.(.*)$/.exec(base);
      if (!m) return { family, desc: 'share: seed as is', link: base };
      let raw: Uint8Array;
      try {
        raw = inflateSync(base64UrlDecode(m[2]));
      } catch {
        return { family, desc: 'share: seed as is', link: base };
      }
      const how = rng.int(4);
      if (how === 0) {
        // Text-level edits of the link itself.
        const t = m[2].split('');
        for (let k = 0; k < 1 + rng.int(3); k++) t[rng.int(t.length)] = rng.pick([...'AZaz09-_!.#= ']);
        return { family, desc: 'share: characters changed', link: `#s=${m[1]}.${t.join('')}` };
      }
      // Payload bytes (inflated), re-deflated; half of them with the length and CRC recomputed.
      const mb = mutateBytes(rng, raw);
      let bytes = mb.bytes;
      if (how >= 2) bytes = refit(bytes);
      return {
        family,
        desc: `share: payload ${mb.desc}${how >= 2 ? ' (length and CRC fixed)' : ''}`,
        link: `#s=1.${base64UrlEncode(deflateSync(bytes))}`,
      };
    }
  }
}

/** Recompute the length prefix and CRC of mutated payload bytes (so the checks past them are reached). */
function refit(b: Uint8Array): Uint8Array {
  // The body is whatever follows the first varint up to the last 4 bytes.
  let i = 0;
  while (i < b.length && b[i] & 0x80) i++;
  const body = b.subarray(Math.min(b.length, i + 1), Math.max(i + 1, b.length - 4));
  const len: number[] = [];
  let v = body.length;
  len.unshift(v & 0x7f);
  while ((v >>= 7) > 0) {
    v--;
    len.unshift(0x80 | (v & 0x7f));
  }
  const crc = crc32(body);
  return Uint8Array.from([...len, ...body, crc >>> 24, (crc >>> 16) & 255, (crc >>> 8) & 255, crc & 255]);
}

function crc32(b: Uint8Array): number {
  let c = ~0;
  for (let i = 0; i < b.length; i++) {
    c ^= b[i];
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

// ---------------------------------------------------------------------------------------------
// The oracle

export type Outcome = 'accepted' | 'rejected' | 'writer-refused';

/** Run `f`; the engine's error is a clean rejection, anything else breaks the contract. */
function clean<T>(what: string, f: () => T): { ok: true; value: T } | { ok: false } {
  try {
    return { ok: true, value: f() };
  } catch (e) {
    if (e instanceof FormatError) {
      if (typeof e.file !== 'string' || !Number.isInteger(e.offset) || e.offset < -1)
        throw new Broken(`${what}: FormatError without a file and offset (${e.message})`);
      if (/[\n\r]/.test(e.message)) throw new Broken(`${what}: an error message on more than one line`);
      // The session turns a defect below it into an error of file '(engine)': caught, but a defect.
      if (e.file === '(engine)') throw new Broken(`${what}: a defect reached the session: ${e.message.slice(0, 300)}`);
      return { ok: false };
    }
    throw new Broken(`${what}: ${(e as Error)?.name ?? typeof e}: ${String((e as Error)?.message ?? e).slice(0, 300)}`);
  }
}

function inputFiles(c: FuzzCase): InputFile[] {
  return (c.files ?? []).map((f) => ({ path: f.path, source: memorySource(f.bytes) }));
}

/** The worker's session flow: load never throws; every question answers or throws the engine's error; its links open. */
function sessionFlow(files: InputFile[]): Outcome {
  const s = new EngineSession();
  let res;
  try {
    res = s.load(files);
  } catch (e) {
    throw new Broken(`EngineSession.load threw ${(e as Error)?.name}: ${String((e as Error)?.message).slice(0, 300)}`);
  }
  // An error the load reports must be the engine's own (a file and an offset), not a defect below.
  for (const err of [res.error].filter((x) => x !== null))
    if (!err.file || err.file === '(engine)' || !Number.isInteger(err.offset))
      throw new Broken(`EngineSession.load reported a defect: ${String(err.message).slice(0, 300)}`);
  if (!res.report) return 'rejected';
  clean('refsPage', () => s.refsPage({ filter: '', mode: 'prefix', includeTombstones: true, offset: 0, limit: 50 }));
  clean('refsPage substring', () =>
    s.refsPage({ filter: 'a', mode: 'substring', includeTombstones: false, offset: 0, limit: 50 }),
  );
  for (let i = 0; i < Math.min(3, res.report.tables.length); i++) {
    clean('tableBlocks', () => s.tableBlocks(i));
    clean('blockDetail', () => s.blockDetail(i, 0));
  }
  clean('compaction', () => s.compaction({ factor: 2, k: 3, txSize: 150 }));
  clean('exportAs md', () => s.exportAs('md'));
  clean('exportAs json', () => s.exportAs('json'));
  for (const withNames of [false, true]) {
    const sh = clean('share', () => s.share({ withNames, base: 'http://127.0.0.1:4173/' }));
    if (sh.ok && sh.value?.ok) {
      // A link refscope makes, refscope opens.
      const opened = new EngineSession().openShare(sh.value.link);
      if (!opened.ok) throw new Broken(`a link the session made is refused: ${opened.message}`);
    }
  }
  return 'accepted';
}

/** Run one case through the engine and check the contract. Throws `Broken` when it is broken. */
export function runCase(c: FuzzCase): Outcome {
  switch (c.family) {
    case 'table': {
      const f = c.files![0];
      const t = clean('openTable', () => openTable({ path: f.path, source: memorySource(f.bytes) }));
      if (!t.ok) return 'rejected';
      return c.deep ? sessionFlow(inputFiles(c)) : 'accepted';
    }
    case 'stack':
    case 'tables.list':
    case 'packed-refs':
    case 'loose': {
      if (c.deep) return sessionFlow(inputFiles(c));
      const a = clean('analyzeFiles', () => analyzeFiles(inputFiles(c)));
      if (!a.ok) return 'rejected';
      clean('buildReport', () => buildReport(a.value));
      clean('analysisRefs', () => analysisRefs(a.value));
      return 'accepted';
    }
    case 'writer': {
      const w = c.writer!;
      let bytes: Uint8Array;
      try {
        bytes = writeTable(w.refs, w.logs, w.opts as never);
      } catch (e) {
        if (
          e instanceof WriterError ||
          e instanceof FormatError ||
          (e instanceof RangeError && /block size|restart|update index|geometric/i.test(e.message))
        )
          return 'writer-refused';
        throw new Broken(`writeTable: ${(e as Error)?.name}: ${String((e as Error)?.message).slice(0, 300)}`);
      }
      // What the writer writes, the reader reads back, with every ref.
      const t = clean('openTable of a written table', () => openTable({ path: 'w.ref', source: memorySource(bytes) }));
      if (!t.ok) throw new Broken('the reader refuses a table the writer wrote');
      if (t.value.refs.count !== w.refs.length)
        throw new Broken(`the written table has ${t.value.refs.count} refs, ${w.refs.length} were given`);
      return 'accepted';
    }
    case 'share': {
      const p = clean('decodeShare', () => decodeShare(c.link!));
      if (!p.ok) return 'rejected';
      const r = clean('reportFromShare', () => reportFromShare(p.value));
      clean('describeShare', () => describeShare(p.value));
      if (r.ok) {
        clean('exportMarkdown', () => exportMarkdown(r.value));
        clean('exportJson', () => exportJson(r.value));
        // What the page is sent must survive the structured clone to the page.
        try {
          structuredClone(r.value);
        } catch (e) {
          throw new Broken(`the rebuilt report cannot be sent to the page: ${(e as Error).message}`);
        }
        const d = sharedSimulation(p.value.simulation);
        if (d?.result.curve) {
          for (const s of d.result.curve.series) {
            for (const v of [...s.sameShape, ...s.fixedStack])
              if (!Number.isFinite(v)) throw new Broken('a shared curve value is not finite');
          }
        }
      }
      const opened = c.deep || r.ok ? new EngineSession().openShare(c.link!) : { ok: true as const };
      if (r.ok && !opened.ok) throw new Broken(`openShare refuses a link decodeShare accepts: ${opened.message}`);
      return r.ok ? 'accepted' : 'rejected';
    }
  }
}

/** Files of a case written under `dir` (and its description), for the integrator to replay. */
export function saveCase(dir: string, c: FuzzCase, seed: number, index: number, what: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'desc.txt'), `${what}\nfamily ${c.family}, seed ${seed}, case ${index}: ${c.desc}\n`);
  if (c.link) fs.writeFileSync(path.join(dir, 'link.txt'), c.link + '\n');
  if (c.writer)
    fs.writeFileSync(
      path.join(dir, 'writer.json'),
      JSON.stringify(c.writer, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v), 1),
    );
  for (const f of c.files ?? []) {
    const p = path.join(
      dir,
      'input',
      f.path
        .replace(/^\.git\//, 'dot-git/')
        .replace(/\.\.(\/|$)/g, '__$1')
        .replace(/\p{Cc}/gu, (c) => (c < ' ' ? '_' : c)),
    );
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, f.bytes);
  }
}
