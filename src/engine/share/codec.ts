/**
 * share/codec: the payload as bytes (format version 1): `varint bodyLength, body, u32
 * CRC-32(body)`, every integer a reftable varint (basics.encodeVarint), the body laid out as
 * docs/share.md describes. Decoding trusts nothing: every count and index is checked against a
 * named bound before anything loops on it, and any failure is a `ShareLinkError`.
 */
import { crc32, encodeVarint, putVarint, getVarint, cursor, textToKey, displayName, type Finding } from '../basics.ts';
import { type SectionName } from '../reftable/table.ts';
import {
  MAX_EXAMPLES,
  MAX_EXAMPLE_BYTES,
  MAX_FINDINGS,
  MAX_FINDING_BYTES,
  MAX_GENERATOR_BYTES,
  MAX_NAMESPACES,
  MAX_NAMESPACE_BYTES,
  MAX_SHARE_ENTRIES,
  MAX_SIM_DEPTH,
  MAX_SIM_VALUES,
  MAX_INFLATED,
  MAX_SHARE_TABLES,
  SHARE_SCHEMA,
  SHARE_VERSION,
  ShareLinkError,
  damaged,
  futureVersion,
} from './limits.ts';
import {
  type RefKind,
  type ShareHiding,
  type ShareMeasured,
  type ShareNsRecords,
  type ShareOverlap,
  type SharePayload,
  type ShareTable,
  SECTIONS,
  NUM_FIELDS,
} from './payload.ts';
import { safeNamespaces, sanitizeSimulation } from './redact.ts';
import { checkMeasured, checkPayload } from './validate.ts';

class ByteWriter {
  buf = new Uint8Array(1024);
  n = 0;
  private ensure(k: number): void {
    if (this.n + k <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.n + k) cap *= 2;
    const b = new Uint8Array(cap);
    b.set(this.buf.subarray(0, this.n));
    this.buf = b;
  }
  varint(v: number): void {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`share payload: a non-negative integer, got ${v}`);
    // In place (at most 9 bytes for a safe integer): a link of thousands of tables writes
    // hundreds of thousands of varints.
    this.ensure(9);
    this.n = putVarint(this.buf, this.n, v);
  }
  /** A byte string (one char per byte). */
  str(s: string): void {
    this.varint(s.length);
    this.ensure(s.length);
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c > 0xff) throw new RangeError('share payload: strings are byte strings (use textToKey)');
      this.buf[this.n++] = c;
    }
  }
  bytes(): Uint8Array {
    return this.buf.slice(0, this.n);
  }
}

class ByteReader {
  pos = 0;
  constructor(private readonly b: Uint8Array) {}
  varint(what: string, max = Number.MAX_SAFE_INTEGER): number {
    const v = getVarint(this.b, this.pos, this.b.length);
    if (v === -1) throw damaged(`the data ends inside ${what}`);
    if (v === -2) throw damaged(`${what} is too large`);
    this.pos = cursor.pos;
    if (v > max) throw damaged(`${what} is ${v}, at most ${max} allowed`);
    return v;
  }
  str(what: string, max = 4096): string {
    const n = this.varint(`the length of ${what}`, max);
    if (this.pos + n > this.b.length) throw damaged(`the data ends inside ${what}`);
    let s = '';
    for (let i = 0; i < n; i++) s += String.fromCharCode(this.b[this.pos + i]);
    this.pos += n;
    return s;
  }
  get done(): boolean {
    return this.pos >= this.b.length;
  }
}

const KIND_CODE = { reftable: 0, files: 1, 'packed-refs': 2 } as const;
const KIND_NAME = ['reftable', 'files', 'packed-refs'] as const;
const SEVERITIES: Finding['severity'][] = ['warning', 'error', 'info'];

/** The payload as bytes: `varint length, body, u32 CRC-32(body)` (docs/share.md). */
export function encodeSharePayload(p: SharePayload): Uint8Array {
  const w = new ByteWriter();
  let flags = 0;
  if (p.withNames) flags |= 1;
  if (p.simulation !== null && p.simulation !== undefined) flags |= 2;
  if (p.findings.messages) flags |= 4;
  if (p.liveByNs) flags |= 8;
  if (p.measured) flags |= 16;
  w.varint(SHARE_VERSION);
  w.varint(flags);
  w.varint(KIND_CODE[p.kind]);
  w.str(textToKey(p.generator));
  w.varint(p.factor);
  w.varint(p.namespaces.length);
  for (const ns of p.namespaces) w.str(ns);
  const n = p.tables.length;
  w.varint(n);
  // column-major: each field for every table, so deflate sees runs of similar values
  for (const f of NUM_FIELDS) for (const t of p.tables) w.varint(t[f]);
  for (const t of p.tables) w.varint(t.maxUpdateIndex - t.minUpdateIndex);
  // bit 4: a copy of an earlier table (the same file on another line of tables.list), the
  // distance back to it above the flag bits
  p.tables.forEach((t, i) =>
    w.varint(
      (t.version ?? 0) |
        (t.hashId === 's256' ? 4 : 0) |
        (t.unreadable ? 8 : 0) |
        (t.copyOf !== undefined ? 16 + 32 * (i - 1 - t.copyOf) : 0),
    ),
  );
  for (const s of SECTIONS) for (const t of p.tables) w.varint(t.sectionBytes[s]);
  for (const s of SECTIONS) for (const t of p.tables) w.varint(t.sectionBlocks[s]);
  w.varint(p.nsRecords.length);
  let prev = 0;
  for (const e of p.nsRecords) {
    w.varint(e.table - prev);
    prev = e.table;
    w.varint(e.ns);
    w.varint(e.kind);
    w.varint(e.records);
    w.varint(e.winners);
    if (e.kind === 3) w.varint(e.dangling);
  }
  w.varint(p.overlaps.length);
  prev = 0;
  for (const e of p.overlaps) {
    w.varint(e.older - prev);
    prev = e.older;
    w.varint(e.newer - e.older);
    w.varint(e.ns);
    w.varint(e.count);
    w.varint(e.tombstones);
  }
  w.varint(p.hiding.length);
  prev = 0;
  for (const e of p.hiding) {
    w.varint(e.table - prev);
    prev = e.table;
    w.varint(e.ns);
    w.varint(e.count);
  }
  if (p.liveByNs) for (const v of p.liveByNs) w.varint(v);
  w.varint(p.findings.warnings);
  w.varint(p.findings.errors);
  w.varint(p.findings.infos);
  if (p.findings.messages) {
    w.varint(p.findings.messages.length);
    for (const f of p.findings.messages) {
      w.varint(SEVERITIES.indexOf(f.severity));
      w.str(f.message);
    }
  }
  w.varint(p.examples.length);
  for (const x of p.examples) w.str(x);
  if (flags & 2) w.str(textToKey(JSON.stringify(p.simulation)));
  if (flags & 16) w.str(textToKey(JSON.stringify(p.measured)));
  const body = w.bytes();
  const len = encodeVarint(body.length);
  const out = new Uint8Array(len.length + body.length + 4);
  out.set(len, 0);
  out.set(body, len.length);
  const c = crc32(body);
  const o = len.length + body.length;
  out[o] = c >>> 24;
  out[o + 1] = (c >>> 16) & 0xff;
  out[o + 2] = (c >>> 8) & 0xff;
  out[o + 3] = c & 0xff;
  return out;
}

/** Decode and check payload bytes (the inflated link data). Throws `ShareLinkError`. */
export function decodeSharePayload(bytes: Uint8Array): SharePayload {
  const lenV = getVarint(bytes, 0, bytes.length);
  if (lenV === -1)
    throw new ShareLinkError('truncated', 'link is truncated: the data ends before its length field', SHARE_VERSION);
  if (lenV === -2) throw damaged('the length field is not a number');
  const start = cursor.pos;
  if (start + lenV + 4 > bytes.length) {
    throw new ShareLinkError(
      'truncated',
      `link is truncated: it says ${lenV + 4} bytes of data follow, ${bytes.length - start} do`,
      SHARE_VERSION,
    );
  }
  if (start + lenV + 4 < bytes.length)
    throw damaged(`${bytes.length - start - lenV - 4} unexpected bytes after the data`);
  const body = bytes.subarray(start, start + lenV);
  const o = start + lenV;
  const want = ((bytes[o] << 24) >>> 0) + ((bytes[o + 1] << 16) | (bytes[o + 2] << 8) | bytes[o + 3]);
  if (crc32(body) !== want) throw damaged('the checksum does not match (a character was changed)');
  const r = new ByteReader(body);
  const version = r.varint('the format version');
  if (version !== SHARE_VERSION) {
    if (version > SHARE_VERSION) throw futureVersion(version);
    throw damaged(`format version ${version} inside a version ${SHARE_VERSION} link`);
  }
  const flags = r.varint('the flags', 31);
  const kindCode = r.varint('the input kind', 2);
  const generator = displayName(r.str('the generator', MAX_GENERATOR_BYTES));
  const factor = r.varint('the geometric factor', 255);
  if (factor < 2) throw damaged(`geometric factor ${factor} (2..255)`);
  const nNs = r.varint('the namespace count', MAX_NAMESPACES);
  const rawNamespaces: string[] = [];
  for (let i = 0; i < nNs; i++) rawNamespaces.push(r.str('a namespace', MAX_NAMESPACE_BYTES));
  if (new Set(rawNamespaces).size !== nNs) throw damaged('a namespace appears twice');
  // names outside [A-Za-z0-9._/-] (or not valid in git) never reach synthetic names or the script
  const namespaces = safeNamespaces(rawNamespaces);
  const n = r.varint('the table count', MAX_SHARE_TABLES);
  const cols: Record<string, number[]> = {};
  for (const f of NUM_FIELDS) {
    const col: number[] = [];
    for (let i = 0; i < n; i++) col.push(r.varint(`table ${i} ${f}`));
    cols[f] = col;
  }
  const spans: number[] = [];
  for (let i = 0; i < n; i++) spans.push(r.varint(`table ${i} update-index range`));
  const tflags: number[] = [];
  for (let i = 0; i < n; i++) tflags.push(r.varint(`table ${i} flags`, i === 0 ? 15 : 31 + 32 * (i - 1)));
  const sb: Record<string, number[]> = {};
  for (const s of SECTIONS) {
    const c: number[] = [];
    for (let i = 0; i < n; i++) c.push(r.varint(`table ${i} ${s} bytes`));
    sb[s] = c;
  }
  const sk: Record<string, number[]> = {};
  for (const s of SECTIONS) {
    const c: number[] = [];
    for (let i = 0; i < n; i++) c.push(r.varint(`table ${i} ${s} blocks`));
    sk[s] = c;
  }
  const tables: ShareTable[] = [];
  for (let i = 0; i < n; i++) {
    const fl = tflags[i];
    const v = fl & 3;
    if (v === 3) throw damaged(`table ${i}: format version 3`);
    const unreadable = (fl & 8) !== 0;
    if (!unreadable && v === 0) throw damaged(`table ${i}: no format version`);
    const t: ShareTable = {
      fileSize: cols.fileSize[i],
      version: v === 0 ? null : (v as 1 | 2),
      hashId: v === 0 ? null : fl & 4 ? 's256' : 'sha1',
      unreadable,
      blockSize: cols.blockSize[i],
      minUpdateIndex: cols.minUpdateIndex[i],
      maxUpdateIndex: cols.minUpdateIndex[i] + spans[i],
      logs: cols.logs[i],
      logDeletions: cols.logDeletions[i],
      objRecords: cols.objRecords[i],
      indexRecords: cols.indexRecords[i],
      sectionBytes: Object.fromEntries(SECTIONS.map((s) => [s, sb[s][i]])) as Record<SectionName, number>,
      sectionBlocks: Object.fromEntries(SECTIONS.map((s) => [s, sk[s][i]])) as Record<SectionName, number>,
      refIndexLevels: cols.refIndexLevels[i],
      restartInterval: cols.restartInterval[i],
      keyBytes: cols.keyBytes[i],
      distinctOids: cols.distinctOids[i],
    };
    if (fl & 16) t.copyOf = i - 1 - Math.floor(fl / 32);
    else if (fl > 15) throw damaged(`table ${i}: flags ${fl}`);
    if (!Number.isSafeInteger(t.maxUpdateIndex)) throw damaged(`table ${i}: update index too large`);
    if (t.blockSize >= 1 << 24) throw damaged(`table ${i}: block size ${t.blockSize}`);
    if (t.restartInterval < 1 || t.restartInterval > 65535)
      throw damaged(`table ${i}: restart interval ${t.restartInterval}`);
    tables.push(t);
  }
  const nsRecords: ShareNsRecords[] = [];
  let prev = 0;
  const nRec = r.varint('the namespace record count', MAX_SHARE_ENTRIES);
  for (let k = 0; k < nRec; k++) {
    const table = prev + r.varint('a table index', n);
    prev = table;
    const ns = r.varint('a namespace index', Math.max(0, nNs - 1));
    const kind = r.varint('a record kind', 3) as RefKind;
    const records = r.varint('a record count');
    const winners = r.varint('a winner count');
    const dangling = kind === 3 ? r.varint('a dangling symref count') : 0;
    nsRecords.push({ table, ns, kind, records, winners, dangling });
  }
  const overlaps: ShareOverlap[] = [];
  prev = 0;
  const nOv = r.varint('the overlap count', MAX_SHARE_ENTRIES);
  for (let k = 0; k < nOv; k++) {
    const older = prev + r.varint('a table index', n);
    prev = older;
    const newer = older + r.varint('a table distance', n);
    const ns = r.varint('a namespace index', Math.max(0, nNs - 1));
    const count = r.varint('an overlap count');
    const tombstones = r.varint('an overlap tombstone count');
    overlaps.push({ newer, older, ns, count, tombstones });
  }
  const hiding: ShareHiding[] = [];
  prev = 0;
  const nHid = r.varint('the hiding count', MAX_SHARE_ENTRIES);
  for (let k = 0; k < nHid; k++) {
    const table = prev + r.varint('a table index', n);
    prev = table;
    const ns = r.varint('a namespace index', Math.max(0, nNs - 1));
    const count = r.varint('a hiding count');
    hiding.push({ table, ns, count });
  }
  let liveByNs: number[] | null = null;
  if (flags & 8) {
    liveByNs = [];
    for (let i = 0; i < nNs; i++) liveByNs.push(r.varint('a live ref count'));
  }
  const warnings = r.varint('the warning count');
  const errors = r.varint('the error count');
  const infos = r.varint('the info count');
  let messages: SharePayload['findings']['messages'] = null;
  if (flags & 4) {
    messages = [];
    const k = r.varint('the finding count', MAX_FINDINGS);
    for (let i = 0; i < k; i++) {
      const sev = SEVERITIES[r.varint('a finding severity', 2)];
      messages.push({ severity: sev, message: r.str('a finding', MAX_FINDING_BYTES) });
    }
  }
  const examples: string[] = [];
  const nEx = r.varint('the example count', MAX_EXAMPLES);
  for (let i = 0; i < nEx; i++) examples.push(r.str('an example name', MAX_EXAMPLE_BYTES));
  let simulation: unknown = null;
  if (flags & 2) {
    const text = displayName(r.str('the simulation results', MAX_INFLATED));
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      throw damaged('the simulation results are not JSON');
    }
    checkJsonBounds(v, 'the simulation results');
    // Non-finite numbers, prototype keys and the like never leave the decoder.
    simulation = sanitizeSimulation(v, true).value;
  }
  let measured: ShareMeasured | null = null;
  if (flags & 16) {
    let m: unknown;
    try {
      m = JSON.parse(displayName(r.str('the measured figures', MAX_INFLATED)));
    } catch {
      throw damaged('the measured figures are not JSON');
    }
    checkJsonBounds(m, 'the measured figures');
    const mm = m as ShareMeasured;
    if (
      !mm ||
      typeof mm !== 'object' ||
      !mm.compaction ||
      typeof mm.compaction !== 'object' ||
      Array.isArray(mm.compaction) ||
      !Array.isArray(mm.compactionAbsent) ||
      !mm.compactionAbsent.every((x) => typeof x === 'string') ||
      !(mm.diagnosis === null || typeof mm.diagnosis === 'string')
    ) {
      throw damaged('the measured figures have the wrong shape');
    }
    measured = { compaction: mm.compaction, compactionAbsent: mm.compactionAbsent, diagnosis: mm.diagnosis };
  }
  if (measured) checkMeasured(measured, n);
  if (!r.done) throw damaged('unexpected bytes at the end');
  const p: SharePayload = {
    schema: SHARE_SCHEMA,
    version,
    generator,
    kind: KIND_NAME[kindCode],
    withNames: (flags & 1) !== 0,
    factor,
    namespaces,
    tables,
    nsRecords,
    overlaps,
    hiding,
    liveByNs,
    findings: { warnings, errors, infos, messages },
    examples,
    simulation,
    measured,
  };
  checkPayload(p);
  return p;
}

/**
 * A parsed JSON value is at most `MAX_SIM_DEPTH` deep and holds at most `MAX_SIM_VALUES` values
 * (checked without recursion, so a deeply nested value cannot exhaust the stack here or later
 * when it is cloned to the page).
 */
function checkJsonBounds(v: unknown, what: string): void {
  const stack: [unknown, number][] = [[v, 0]];
  let values = 0;
  while (stack.length) {
    const [x, depth] = stack.pop()!;
    if (++values > MAX_SIM_VALUES) throw damaged(`${what} hold more than ${MAX_SIM_VALUES} values`);
    if (x === null || typeof x !== 'object') continue;
    if (depth >= MAX_SIM_DEPTH) throw damaged(`${what} are nested more than ${MAX_SIM_DEPTH} levels deep`);
    for (const y of Array.isArray(x) ? x : Object.values(x)) stack.push([y, depth + 1]);
    if (stack.length > MAX_SIM_VALUES) throw damaged(`${what} hold more than ${MAX_SIM_VALUES} values`);
  }
}
