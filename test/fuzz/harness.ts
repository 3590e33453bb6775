/**
 * Fuzz harness: seeds (the real fixtures' tables), byte mutations as plain data (so fast-check
 * can shrink and print them), and the oracle that runs one input through the engine's entry
 * points and checks the contract of issue #9:
 * - nothing but `FormatError` escapes `openTable`, `analyzeFiles`, `buildReport`, `analysisRefs`,
 *   `seekRef`, `refsForObject`;
 * - every rejection names the file and a byte offset inside it (an integer in [0, size]);
 * - (cases slower than `CASE_LIMIT_MS` are counted, not failed: time is the worker pool's limit);
 * - the sliced read path (`wholeReadLimit: 0`) gives the same answer as the whole-buffer path.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import fc from 'fast-check';
import {
  openTable,
  memorySource,
  analyzeFiles,
  buildReport,
  analysisRefs,
  seekRef,
  refsForObject,
  newCounters,
  FormatError,
  lowerBound,
  type Table,
  type InputFile,
  type ByteSource,
} from '../../src/engine/index.ts';

export const FX = path.join(__dirname, '../fixtures/reftable');
export const CASE_LIMIT_MS = 2000;

/** Runs requested with FUZZ_RUNS (npm run fuzz: 100,000), else the normal-test amount. */
export function fuzzRuns(normal: number): number {
  const v = Number(process.env.FUZZ_RUNS);
  return Number.isFinite(v) && v > 0 ? v : normal;
}

/** Interesting positions of one seed table, found by parsing it (it is valid). */
export interface Seed {
  fx: string;
  name: string;
  bytes: Uint8Array;
  /** Byte offsets and widths of length/count/position fields worth editing. */
  fields: [number, number][];
  /** Offsets where records start (restart points) — varint edits go there. */
  records: number[];
  /** Varint values worth editing ([offset, length]): update-index deltas, index positions, obj counts and positions. */
  values: [number, number][][];
  /** Block offsets (targets for index / obj position edits). */
  blocks: number[];
  refNames: string[];
  oids: string[];
  footerSize: number;
  headerSize: number;
}

export interface StackSeed {
  fx: string;
  list: Uint8Array;
  tables: Map<string, Uint8Array>;
  names: string[];
}

function u24(b: Uint8Array, o: number): number {
  return (b[o] << 16) | (b[o + 1] << 8) | b[o + 2];
}

export function loadSeeds(): { seeds: Seed[]; stacks: StackSeed[] } {
  const seeds: Seed[] = [];
  const stacks: StackSeed[] = [];
  for (const fx of fs.readdirSync(FX).sort()) {
    const dir = path.join(FX, fx, 'reftable');
    const listBytes = fs.readFileSync(path.join(dir, 'tables.list'));
    const names = listBytes.toString('utf8').trim().split('\n');
    const tables = new Map<string, Uint8Array>();
    for (const name of names) {
      const bytes = new Uint8Array(fs.readFileSync(path.join(dir, name)));
      tables.set(name, bytes);
      seeds.push(seedOf(fx, name, bytes));
    }
    stacks.push({ fx, list: new Uint8Array(listBytes), tables, names });
  }
  return { seeds, stacks };
}

/** Parse a valid table and note the positions worth mutating. */
export function seedOf(fx: string, name: string, bytes: Uint8Array): Seed {
  const t = openTable({ path: name, source: memorySource(bytes) });
  const hs = t.header.headerSize;
  const fields: [number, number][] = [
    [4, 1],
    [5, 3],
    [8, 8],
    [16, 8],
  ];
  if (hs === 28) fields.push([24, 4]);
  const fb = bytes.length - t.header.footerSize;
  for (let k = 0; k < 5; k++) fields.push([fb + hs + 8 * k, 8]);
  fields.push([bytes.length - 4, 4]);
  const records: number[] = [];
  const values: [number, number][][] = [[], [], []];
  for (const b of t.blocks) {
    const vs = values[b.type === 'ref' ? 0 : b.type === 'index' ? 1 : 2];
    if (b.type !== 'log' && vs.length < 4096)
      decodeValues(
        bytes,
        b.offset,
        b.offset === 0 ? hs : 0,
        b.offset + b.restartTableOffset,
        b.type,
        t.header.hashSize,
        vs,
      );
    const hdrAt = b.offset === 0 ? hs : b.offset;
    fields.push([hdrAt, 1], [hdrAt + 1, 3]);
    if (b.type === 'log') {
      fields.push([hdrAt + 4, 2]);
      continue;
    }
    fields.push([b.offset + b.blockLen - 2, 2]);
    for (let i = 0; i < b.restartCount && i < 64; i++) {
      const at = b.offset + b.restartTableOffset + 3 * i;
      fields.push([at, 3]);
      records.push(b.offset + u24(bytes, at));
    }
  }
  const hsz = t.header.hashSize;
  const oids: string[] = [];
  for (let i = 0; i < t.refs.count && oids.length < 8; i += Math.max(1, Math.floor(t.refs.count / 8))) {
    oids.push(Buffer.from(t.refs.oids.subarray(i * hsz, (i + 1) * hsz)).toString('hex'));
  }
  return {
    fx,
    name,
    bytes,
    fields,
    records,
    values: values.filter((v) => v.length),
    blocks: t.blocks.map((b) => b.offset),
    refNames: sample(t.refs.names, 16),
    oids,
    footerSize: t.header.footerSize,
    headerSize: hs,
  };
}

function varintAt(b: Uint8Array, pos: number): [number, number] {
  let c = b[pos++];
  let v = c & 0x7f;
  while (c & 0x80) {
    c = b[pos++];
    v = (v + 1) * 128 + (c & 0x7f);
  }
  return [v, pos];
}
/** Positions and lengths of the value varints of a (valid) ref, index or obj block's records. */
function decodeValues(
  b: Uint8Array,
  base: number,
  hoff: number,
  rt: number,
  type: string,
  hs: number,
  out: [number, number][],
): void {
  let pos = base + hoff + 4;
  while (pos < rt) {
    let sw;
    [, pos] = varintAt(b, pos);
    [sw, pos] = varintAt(b, pos);
    const vt = sw & 7;
    pos += (sw - vt) / 8;
    const start = pos;
    let v;
    if (type === 'index') {
      [, pos] = varintAt(b, pos);
      out.push([start, pos - start]);
      continue;
    }
    if (type === 'ref') {
      [, pos] = varintAt(b, pos);
      out.push([start, pos - start]);
      if (vt === 1) pos += hs;
      else if (vt === 2) pos += 2 * hs;
      else if (vt === 3) {
        [v, pos] = varintAt(b, pos);
        pos += v;
      }
      continue;
    }
    let cnt = vt;
    if (cnt === 0) {
      const s0 = pos;
      [cnt, pos] = varintAt(b, pos);
      out.push([s0, pos - s0]);
    }
    for (let i = 0; i < cnt; i++) {
      const s0 = pos;
      [, pos] = varintAt(b, pos);
      out.push([s0, pos - s0]);
    }
  }
}

function sample<T>(a: T[], n: number): T[] {
  if (a.length <= n) return [...a];
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(a[Math.floor((i * a.length) / n)]);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Mutations

export type Mutation =
  | { k: 'flip'; at: number; bit: number }
  | { k: 'set'; at: number; v: number }
  | { k: 'truncate'; at: number }
  | { k: 'delete'; at: number; n: number }
  | { k: 'insert'; at: number; bytes: number[] }
  | { k: 'splice'; at: number; from: number; n: number; donor: number; insert: boolean }
  | { k: 'field'; f: number; v: number }
  | { k: 'varint'; r: number; n: number; last: number }
  | { k: 'value'; r: number; v: number; target: number };

const INTERESTING = [
  0,
  1,
  2,
  3,
  4,
  7,
  8,
  0x7f,
  0x80,
  0xff,
  0x100,
  0xfff,
  0x1000,
  0xffff,
  0x10000,
  0xffffff,
  0x1000000,
  2 ** 31,
  2 ** 32 - 1,
  2 ** 53 - 1,
  2 ** 53,
  -1,
];

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ k: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant('set' as const),
      at: fc.nat(),
      v: fc.oneof(fc.constantFrom(0, 0xff, 0x7f, 0x80, 0x72, 0x69, 0x6f, 0x67), fc.integer({ min: 0, max: 255 })),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('truncate' as const), at: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({ k: fc.constant('delete' as const), at: fc.nat(), n: fc.integer({ min: 1, max: 64 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('insert' as const),
      at: fc.nat(),
      bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 16 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant('splice' as const),
      at: fc.nat(),
      from: fc.nat(),
      n: fc.integer({ min: 1, max: 512 }),
      donor: fc.nat(),
      insert: fc.boolean(),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      k: fc.constant('field' as const),
      f: fc.nat(),
      v: fc.oneof(
        fc.constantFrom(...INTERESTING),
        fc.integer({ min: -8, max: 8 }).map((d) => 1e9 + d),
        fc.nat(),
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant('varint' as const),
      r: fc.nat(),
      n: fc.integer({ min: 1, max: 12 }),
      last: fc.integer({ min: 0, max: 255 }),
    }),
  },
  // A value varint set to: a block's offset (target ≥ 0), or a number (target −1: v).
  {
    weight: 4,
    arbitrary: fc.record({
      k: fc.constant('value' as const),
      r: fc.nat(),
      v: fc.oneof(fc.constantFrom(0, 1, 127, 128, 2 ** 31, 2 ** 53 - 1), fc.nat()),
      target: fc.integer({ min: -1, max: 1000 }),
    }),
  },
);

function encodeVarint(v: number): number[] {
  const out = [v % 128];
  v = Math.floor(v / 128);
  while (v > 0) {
    v -= 1;
    out.unshift(0x80 | (v % 128));
    v = Math.floor(v / 128);
  }
  return out;
}

function putBE(b: Uint8Array, at: number, width: number, v: number): void {
  for (let i = width - 1; i >= 0; i--) {
    if (at + i < b.length) b[at + i] = v & 255;
    v = Math.floor(v / 256);
  }
}
function readBE(b: Uint8Array, at: number, width: number): number {
  let v = 0;
  for (let i = 0; i < width; i++) v = v * 256 + (b[at + i] ?? 0);
  return v;
}

/**
 * Apply mutations to a copy of `seed.bytes`. Field values ≥ 1e9 − 8 mean "original + delta"
 * (off-by-a-few edits of lengths and positions); -1 means all ones. `fixCrc` recomputes the
 * footer CRC (and `copyHeader` copies the header into the footer) so that deeper checks run.
 */
export function mutate(seed: Seed, muts: Mutation[], donors: Seed[], fixCrc: boolean, copyHeader: boolean): Uint8Array {
  let b: Uint8Array = Uint8Array.from(seed.bytes);
  for (const m of muts) {
    const len = b.length;
    switch (m.k) {
      case 'flip':
        if (len) b[m.at % len] ^= 1 << m.bit;
        break;
      case 'set':
        if (len) b[m.at % len] = m.v;
        break;
      case 'truncate':
        b = b.slice(0, m.at % (len + 1));
        break;
      case 'delete': {
        const at = m.at % (len + 1);
        b = concat(b.subarray(0, at), b.subarray(Math.min(len, at + m.n)));
        break;
      }
      case 'insert': {
        const at = m.at % (len + 1);
        b = concat(b.subarray(0, at), Uint8Array.from(m.bytes), b.subarray(at));
        break;
      }
      case 'splice': {
        const d = donors[m.donor % donors.length].bytes;
        const from = m.from % d.length;
        const piece = d.subarray(from, Math.min(d.length, from + m.n));
        const at = m.at % (len + 1);
        b = m.insert
          ? concat(b.subarray(0, at), piece, b.subarray(at))
          : concat(b.subarray(0, at), piece, b.subarray(Math.min(len, at + piece.length)));
        break;
      }
      case 'field': {
        const [at, width] = seed.fields[m.f % seed.fields.length];
        if (at >= len) break;
        let v = m.v;
        if (v === -1) v = 2 ** (8 * width) - 1;
        else if (v >= 1e9 - 8 && v <= 1e9 + 8) v = readBE(b, at, width) + (v - 1e9);
        putBE(b, at, width, Math.max(0, v));
        break;
      }
      case 'value': {
        if (!seed.values.length) break;
        const vs = seed.values[m.r % seed.values.length];
        const [at, n] = vs[Math.floor(m.r / 3) % vs.length];
        if (at + n > len) break;
        const v = m.target >= 0 && seed.blocks.length ? seed.blocks[m.target % seed.blocks.length] : m.v;
        b = concat(b.subarray(0, at), Uint8Array.from(encodeVarint(v)), b.subarray(at + n));
        break;
      }
      case 'varint': {
        if (!seed.records.length) break;
        const at = seed.records[m.r % seed.records.length] + (m.r % 3);
        for (let i = 0; i < m.n && at + i < len; i++) b[at + i] = i === m.n - 1 ? m.last : 0x80 | (b[at + i] & 0x7f);
        break;
      }
    }
  }
  const fsz = b.length >= 5 && b[4] === 2 ? 72 : 68;
  if (copyHeader && b.length >= fsz + 28) b.set(b.subarray(0, fsz === 72 ? 28 : 24), b.length - fsz);
  if (fixCrc && b.length >= fsz) putBE(b, b.length - 4, 4, zlib.crc32(b.subarray(b.length - fsz, b.length - 4)));
  return b;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Oracle

/** A violation of the contract: the message says which, with the input's description. */
export class ContractViolation extends Error {}

function checkRejection(e: unknown, file: string, size: number, what: string): FormatError {
  if (!(e instanceof FormatError)) {
    const err = e as Error;
    throw new ContractViolation(
      `${what}: ${err?.name ?? typeof e} escaped (not a FormatError): ${err?.message}\n${err?.stack ?? ''}`,
    );
  }
  if (e.file !== file)
    throw new ContractViolation(
      `${what}: error names file ${JSON.stringify(e.file)}, expected ${JSON.stringify(file)}: ${e.message}`,
    );
  if (!Number.isInteger(e.offset) || e.offset < 0 || e.offset > size) {
    throw new ContractViolation(`${what}: error offset ${e.offset} outside [0, ${size}]: ${e.message}`);
  }
  if (!e.expected || /undefined|NaN/.test(e.expected))
    throw new ContractViolation(`${what}: unclear message: ${e.message}`);
  return e;
}

/** What one table did: 'ok' with a digest of the result, or the error message. */
export type Outcome = { ok: true; digest: string } | { ok: false; message: string };

function digest(t: Table): string {
  return JSON.stringify([
    t.blocks.map((b) => [b.offset, b.type, b.blockLen, b.fileBytes, b.recordCount]),
    t.refs.count,
    t.counts,
    t.findings.length,
  ]);
}

/** Sliced source over `b` that also asserts no single read is larger than `max` bytes. */
function slicedSource(b: Uint8Array, max: number): ByteSource {
  return {
    size: b.length,
    read(off: number, len: number): Uint8Array {
      if (len > max) throw new ContractViolation(`sliced path read ${len} bytes at once (limit ${max})`);
      return b.subarray(off, Math.min(b.length, off + len));
    },
  };
}

/**
 * Open `bytes` as table `file` (whole-buffer path; with `sliced` also the sliced path, which must
 * agree), then exercise lookups on an accepted table. Throws `ContractViolation` on a breach.
 */
export function checkTable(
  file: string,
  bytes: Uint8Array,
  probes: { names: string[]; oids: string[] },
  sliced: boolean,
): Outcome {
  let out: Outcome;
  let t: Table | null = null;
  try {
    t = openTable({ path: file, source: memorySource(bytes) });
    out = { ok: true, digest: digest(t) };
  } catch (e) {
    out = { ok: false, message: checkRejection(e, file, bytes.length, 'openTable').message };
    if (process.env.FUZZ_STATS) {
      const k = (e as FormatError).expected.replace(/0x[0-9a-f]+|\d+/g, 'N').replace(/"[^"]*"/g, 'S');
      stats.messages.set(k, (stats.messages.get(k) ?? 0) + 1);
    }
  }
  if (sliced) {
    let out2: Outcome;
    try {
      // Blocks are at most 16 MiB (u24); log streams are fed 16 KiB at a time.
      out2 = {
        ok: true,
        digest: digest(openTable({ path: file, source: slicedSource(bytes, 1 << 24) }, { wholeReadLimit: 0 })),
      };
    } catch (e) {
      if (e instanceof ContractViolation) throw e;
      out2 = { ok: false, message: checkRejection(e, file, bytes.length, 'openTable (sliced)').message };
    }
    if (JSON.stringify(out) !== JSON.stringify(out2)) {
      throw new ContractViolation(`whole and sliced reads disagree: ${JSON.stringify(out)} vs ${JSON.stringify(out2)}`);
    }
  }
  if (t) checkLookups(t, probes);
  return out;
}

/** Point reads on an accepted table: no exception, results inside the table, exact hits real. */
export function checkLookups(t: Table, probes: { names: string[]; oids: string[] }): void {
  const c = newCounters();
  const names = t.refs.names;
  const wants = [...probes.names, '', '\xff\xff', 'refs/', 'refs/heads/zzzz', ...names.slice(0, 3), ...names.slice(-2)];
  for (const w of wants) {
    let r;
    try {
      r = seekRef(t, w, c);
    } catch (e) {
      throw new ContractViolation(
        `seekRef(${JSON.stringify(w)}) threw on an accepted table: ${(e as Error)?.stack ?? e}`,
      );
    }
    if (!Number.isInteger(r.index) || r.index < 0 || r.index > t.refs.count)
      throw new ContractViolation(`seekRef(${JSON.stringify(w)}) index ${r.index} outside [0, ${t.refs.count}]`);
    if (r.exact && names[r.index] !== w)
      throw new ContractViolation(
        `seekRef(${JSON.stringify(w)}) says exact at ${r.index}, which holds ${JSON.stringify(names[r.index])}`,
      );
    // On a table whose indexes are intact the answer is the sorted position (checked loosely: a
    // damaged-but-accepted index may send git's lookup elsewhere, which is what git would do).
    void lowerBound;
  }
  const hs = t.header.hashSize;
  for (const oid of [...probes.oids, '00'.repeat(hs), 'zz'.repeat(hs), '']) {
    let r: number[];
    try {
      r = refsForObject(t, oid, c);
    } catch (e) {
      throw new ContractViolation(`refsForObject(${oid}) threw on an accepted table: ${(e as Error)?.stack ?? e}`);
    }
    for (const i of r)
      if (!Number.isInteger(i) || i < 0 || i >= t.refs.count)
        throw new ContractViolation(`refsForObject(${oid}) gave index ${i}`);
  }
}

/** Run a whole stack (one table replaced by `bytes`, or a replaced tables.list) through analyze → report → refs. */
export function checkStack(
  stack: StackSeed,
  replace: { name: string; bytes: Uint8Array } | null,
  list: Uint8Array | null,
): void {
  const files: InputFile[] = [{ path: 'reftable/tables.list', source: memorySource(list ?? stack.list) }];
  for (const [name, b] of stack.tables)
    files.push({
      path: `reftable/${name}`,
      source: memorySource(replace && replace.name === name ? replace.bytes : b),
    });
  const sizes = new Map(files.map((f) => [f.path, f.source.size]));
  let a;
  try {
    a = analyzeFiles(files);
  } catch (e) {
    if (!(e instanceof FormatError)) throw new ContractViolation(`analyzeFiles: ${(e as Error)?.stack ?? e}`);
    // Only tables.list itself can make the whole analysis fail.
    checkRejection(e, 'reftable/tables.list', sizes.get('reftable/tables.list')!, 'analyzeFiles');
    return;
  }
  for (const b of a.stack!.broken) {
    const size = sizes.get(b.error.file);
    if (size === undefined) throw new ContractViolation(`broken table error names an unknown file ${b.error.file}`);
    checkRejection(b.error, b.error.file, size, 'analyzeFiles (broken table)');
  }
  try {
    const r = buildReport(a);
    JSON.stringify(r);
    if (a.stack!.broken.length && !r.stack!.incomplete) throw new ContractViolation('report not marked incomplete');
    analysisRefs(a);
  } catch (e) {
    if (e instanceof ContractViolation) throw e;
    throw new ContractViolation(`buildReport/analysisRefs: ${(e as Error)?.stack ?? e}`);
  }
}

/** Time one case and fail it beyond `CASE_LIMIT_MS`. */
export function timed<T>(what: () => string, f: () => T): T {
  const t0 = performance.now();
  const r = f();
  const ms = performance.now() - t0;
  stats.cases++;
  if (ms > stats.maxMs) {
    stats.maxMs = ms;
    stats.slowest = what().slice(0, 300);
  }
  // Recorded, never asserted: a busy machine stretches any case. Hangs are the worker pool's
  // business (pool.ts: a deadline per case in a worker thread, `npm run fuzz`).
  if (ms > CASE_LIMIT_MS) stats.slow++;
  return r;
}
export const stats = {
  cases: 0,
  slow: 0,
  maxMs: 0,
  slowest: '',
  accepted: 0,
  rejected: 0,
  messages: new Map<string, number>(),
};
