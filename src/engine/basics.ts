/**
 * basics: byte sources, big-endian integers, varints, CRC-32, hex, and the one error type.
 *
 * Everything in `src/engine` is free of DOM and Node APIs: the worker, the CLI and the tests run
 * the same code. Integers in reftable are big-endian (spec: "network byte order").
 */

/**
 * A random-access source of bytes. Synchronous on purpose: in a worker a `Blob` is read with
 * `FileReaderSync`, in Node with `fs.readSync`, in memory by `subarray`. Large inputs (2 GiB and
 * more) are read in slices, never copied whole.
 */
export interface ByteSource {
  /** Total length in bytes. */
  readonly size: number;
  /** Bytes [offset, offset+length) clamped to the end. May return a view, do not mutate it. */
  read(offset: number, length: number): Uint8Array;
}

/** A `ByteSource` over bytes already in memory (no copy). */
export function memorySource(bytes: Uint8Array): ByteSource {
  return {
    size: bytes.length,
    read: (offset, length) => bytes.subarray(offset, Math.min(bytes.length, offset + length)),
  };
}

/**
 * One input file as the engine sees it: a path relative to what the user gave
 * (`/`-separated, e.g. `reftable/tables.list`, `packed-refs`, `refs/heads/main`) and its bytes.
 */
export interface InputFile {
  path: string;
  source: ByteSource;
}

/** Whole contents of a small file (tables.list, loose refs, HEAD, config) as bytes. */
export function readAll(src: ByteSource): Uint8Array {
  return src.read(0, src.size);
}

/**
 * The one error for bad input. `file` names the input file, `offset` is the byte offset in it
 * where the expectation failed (or -1 when the whole file is meant: printed as offset 0),
 * `expected` says what was expected. The CLI prints `refscope: <file>: offset <n>: expected
 * <what>` and exits 3.
 */
export class FormatError extends Error {
  constructor(
    public readonly file: string,
    public readonly offset: number,
    public readonly expected: string,
  ) {
    // `message` is always one line: control characters (a file name may hold a newline) are
    // escaped there; `file` and `expected` keep the raw text.
    super(oneLine(`${file}: offset ${offset < 0 ? 0 : offset}: expected ${expected}`));
    this.name = 'FormatError';
  }
}

/**
 * The analysis exceeded its time or record budget (`OpenOptions.deadline` / `maxRecords`).
 * A `FormatError` so that every caller that reports bad input reports this too (the CLI: exit 3,
 * one line), but a whole-analysis stop: `loadStack` does not treat it as one broken table.
 * `file`/`offset` say where the work stopped.
 */
export class BudgetError extends FormatError {
  constructor(file: string, offset: number, expected: string) {
    super(file, offset, expected);
    this.name = 'BudgetError';
  }
}

/**
 * Limits shared by every table of one analysis. `deadline` is a `Date.now()` time in ms;
 * `maxRecords` bounds the records decoded (ref, index, obj and log records, all tables together),
 * which bounds the memory the decoded columns take. Checked once per block and every 65,536
 * records inside a block.
 */
export class Budget {
  /** Records decoded so far. */
  records = 0;
  constructor(
    readonly deadline: number = Infinity,
    readonly maxRecords: number = Infinity,
  ) {}
  /** Throws `BudgetError` (at `file`, `offset`) when a limit is exceeded. */
  check(file: string, offset: number): void {
    if (this.records > this.maxRecords) {
      throw new BudgetError(
        file,
        offset,
        `at most ${this.maxRecords} records in this analysis (maxRecords budget); stopped here`,
      );
    }
    if (this.deadline !== Infinity && Date.now() > this.deadline) {
      throw new BudgetError(
        file,
        offset,
        `the analysis to finish before its deadline (time budget exceeded); stopped here after ${this.records} records`,
      );
    }
  }
}

// C0 controls (newlines, ESC), DEL and the Unicode line/paragraph separators. C1 controls are
// left alone: in a byte string (see `bytesToKey`) they are UTF-8 continuation bytes.
const CONTROL = /[\p{Cc}\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
/**
 * A size in words, binary units, as the report, the terminal and the app write it:
 * "9,876 bytes" (under 10 KiB), "45.9 KiB", "1.97 MiB", "3.00 GiB".
 */
export function sizeText(n: number): string {
  if (n < 10_240) return `${n.toLocaleString('en-US')} byte${n === 1 ? '' : 's'}`;
  if (n < 1_048_576) return `${(n / 1024).toFixed(1)} KiB`;
  return n < 1_073_741_824 ? `${(n / 1048576).toFixed(2)} MiB` : `${(n / 1073741824).toFixed(2)} GiB`;
}

/** `s` with every character that could break a line or a terminal escaped as `\xNN` / `\uNNNN`. */
export function oneLine(s: string): string {
  return s.replace(CONTROL, (c) => {
    const n = c.charCodeAt(0);
    return n < 0x100 ? '\\x' + n.toString(16).padStart(2, '0') : '\\u' + n.toString(16).padStart(4, '0');
  });
}

/** A warning: something git accepts but that is suspect. Same addressing as `FormatError`. */
export interface Finding {
  severity: 'warning' | 'error' | 'info';
  file: string;
  offset: number;
  message: string;
}

export function u16(b: Uint8Array, o: number): number {
  return (b[o] << 8) | b[o + 1];
}
export function u24(b: Uint8Array, o: number): number {
  return (b[o] << 16) | (b[o + 1] << 8) | b[o + 2];
}
export function u32(b: Uint8Array, o: number): number {
  return ((b[o] << 24) >>> 0) + ((b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]);
}
/**
 * Big-endian u64 as a JS number. Values ≥ 2^53 lose precision; callers that need exactness
 * (positions, update indexes) check against `Number.MAX_SAFE_INTEGER` themselves via `u64Safe`.
 */
export function u64(b: Uint8Array, o: number): number {
  return u32(b, o) * 4294967296 + u32(b, o + 4);
}
/** u64 that must fit in 2^53, else `FormatError`. */
export function u64Safe(b: Uint8Array, o: number, file: string, base: number, what: string): number {
  const hi = u32(b, o);
  if (hi >= 0x200000) throw new FormatError(file, base + o, `${what} below 2^53`);
  return hi * 4294967296 + u32(b, o + 4);
}

export function putU16(b: Uint8Array, o: number, v: number): void {
  b[o] = (v >>> 8) & 0xff;
  b[o + 1] = v & 0xff;
}
export function putU24(b: Uint8Array, o: number, v: number): void {
  b[o] = (v >>> 16) & 0xff;
  b[o + 1] = (v >>> 8) & 0xff;
  b[o + 2] = v & 0xff;
}
export function putU32(b: Uint8Array, o: number, v: number): void {
  b[o] = (v >>> 24) & 0xff;
  b[o + 1] = (v >>> 16) & 0xff;
  b[o + 2] = (v >>> 8) & 0xff;
  b[o + 3] = v & 0xff;
}
export function putU64(b: Uint8Array, o: number, v: number): void {
  putU32(b, o, Math.floor(v / 4294967296));
  putU32(b, o + 4, v >>> 0);
}

/**
 * Varint cursor result holder: decoding functions write the position after the varint here,
 * to avoid allocating a tuple per varint on hot paths.
 */
export const cursor = { pos: 0 };

/**
 * Decode a reftable varint (the pack ofs-delta encoding, spec "Varint encoding") at `pos`,
 * not reading at or past `end`. Sets `cursor.pos` after it and returns the value.
 * Returns -1 if the varint does not end before `end`, -2 if its value exceeds 2^53 - 1.
 */
export function getVarint(b: Uint8Array, pos: number, end: number): number {
  if (pos >= end) return -1;
  let c = b[pos++];
  let v = c & 0x7f;
  while (c & 0x80) {
    if (pos >= end) return -1;
    c = b[pos++];
    v = (v + 1) * 128 + (c & 0x7f);
    if (v > Number.MAX_SAFE_INTEGER) return -2;
  }
  cursor.pos = pos;
  return v;
}

/** Bytes of `v` (0 ≤ v < 2^53) as a reftable varint (spec "Varint encoding"), without encoding it. */
export function varintLength(v: number): number {
  if (v < 128) return 1;
  if (v < 16512) return 2; // 128 + 128^2
  if (v < 2113664) return 3; // + 128^3
  if (v < 270549120) return 4; // + 128^4
  let n = 1;
  v = Math.floor(v / 128);
  while (v > 0) {
    v -= 1;
    n++;
    v = Math.floor(v / 128);
  }
  return n;
}

/** Length of the common prefix of two byte strings (the prefix a reftable record shares). */
export function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Encode `v` (0 ≤ v < 2^53) as a reftable varint; returns the bytes. */
export function encodeVarint(v: number): Uint8Array {
  const tmp: number[] = [v % 128];
  v = Math.floor(v / 128);
  while (v > 0) {
    v -= 1;
    tmp.push(0x80 | (v % 128));
    v = Math.floor(v / 128);
  }
  tmp.reverse();
  return Uint8Array.from(tmp);
}

/** Write varint `v` into `b` at `o`; returns the new offset. */
export function putVarint(b: Uint8Array, o: number, v: number): number {
  // Non-allocating: the writer's per-record hot path calls it for every varint.
  if (v < 128) {
    b[o] = v;
    return o + 1;
  }
  const n = varintLength(v);
  let p = o + n - 1;
  b[p] = v % 128;
  v = Math.floor(v / 128);
  while (v > 0) {
    v -= 1;
    b[--p] = 0x80 | (v % 128);
    v = Math.floor(v / 128);
  }
  return o + n;
}

let crcTable: Int32Array | null = null;
/** CRC-32 (zlib / IEEE 802.3 polynomial 0xEDB88320), as the reftable footer uses. */
export function crc32(b: Uint8Array, start = 0, end = b.length): number {
  if (!crcTable) {
    crcTable = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c;
    }
  }
  let c = -1;
  for (let i = start; i < end; i++) c = crcTable[(c ^ b[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

const HEX = '0123456789abcdef';
const HEX2: string[] = [];
for (let i = 0; i < 256; i++) HEX2.push(HEX[i >> 4] + HEX[i & 15]);
/** Lower-case hex of `b[start, end)`. */
export function toHex(b: Uint8Array, start = 0, end = b.length): string {
  let s = '';
  for (let i = start; i < end; i++) s += HEX2[b[i]];
  return s;
}
/** Parse hex into bytes; returns null if not even-length lower/upper hex. */
export function fromHex(s: string): Uint8Array | null {
  if (s.length % 2) return null;
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) {
    const v = parseInt(s.substr(i * 2, 2), 16);
    if (Number.isNaN(v) || !/^[0-9a-fA-F]{2}$/.test(s.substr(i * 2, 2))) return null;
    out[i] = v;
  }
  return out;
}

/**
 * Keys (ref names) are kept as "byte strings": one JS char per byte (latin1), so that `<` on them
 * is git's byte order (memcmp) exactly. `displayName` turns one into proper Unicode for output.
 */
export function bytesToKey(b: Uint8Array, start: number, end: number): string {
  if (end - start < 64) {
    let s = '';
    for (let i = start; i < end; i++) s += String.fromCharCode(b[i]);
    return s;
  }
  // Not TextDecoder('latin1'): browsers decode that as windows-1252, remapping 0x80-0x9F.
  let s = '';
  for (let i = start; i < end; i += 8192) {
    s += String.fromCharCode.apply(null, b.subarray(i, Math.min(end, i + 8192)) as unknown as number[]);
  }
  return s;
}
const utf8 = new TextDecoder('utf-8', { fatal: false });
/** Byte string (one char per byte) → bytes. */
export function keyToBytes(k: string): Uint8Array {
  const out = new Uint8Array(k.length);
  for (let i = 0; i < k.length; i++) out[i] = k.charCodeAt(i);
  return out;
}
/**
 * Byte string → Unicode text (UTF-8 decoded; invalid sequences become U+FFFD). A string with a
 * character above U+00FF is not a byte string (e.g. an error message with '≥'): returned as is.
 */
export function displayName(k: string): string {
  // Fast path: pure ASCII is its own UTF-8.
  let high = false;
  for (let i = 0; i < k.length; i++) {
    const c = k.charCodeAt(i);
    if (c > 0xff) return k;
    if (c > 0x7f) high = true;
  }
  if (!high) return k;
  const text = utf8.decode(keyToBytes(k));
  // Direction controls would let a name reorder what is shown around it (U+202E makes
  // "gnp.exe" read "exe.png"): show them as visible code points instead.
  return BIDI.test(text)
    ? text.replace(BIDI_ALL, (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`)
    : text;
}
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const BIDI_ALL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** Unicode text → byte string (UTF-8 encoded). */
export function textToKey(s: string): string {
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0x7f) {
      const b = new TextEncoder().encode(s);
      return bytesToKey(b, 0, b.length);
    }
  }
  return s;
}
/** Compare two byte arrays as memcmp, shorter-is-smaller. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/**
 * `n.toLocaleString('en-US')` (digits grouped by commas), without Intl for whole numbers: the
 * compaction reasons format two numbers per table, and Intl costs microseconds per call, which a
 * stack of thousands of tables multiplies.
 */
export function groupDigits(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const s = String(Math.abs(n));
  if (s.length <= 3) return n < 0 ? '-' + s : s;
  let out = s.slice(0, s.length % 3 || 3);
  for (let i = out.length; i < s.length; i += 3) out += ',' + s.slice(i, i + 3);
  return n < 0 ? '-' + out : out;
}

/**
 * Index of the first byte of `b` at or after `from` that is an upper-case ASCII letter, or -1.
 * Four bytes at a time where the buffer allows (the "has a byte between m and n" word test of
 * Sean Anderson's Bit Twiddling Hacks): a million ref names are 25 MB to look through.
 */
export function firstUpperAscii(b: Uint8Array, from: number): number {
  const isUpper = (c: number) => c >= 0x41 && c <= 0x5a;
  let j = from;
  const end = b.length;
  while (j < end && (b.byteOffset + j) & 3) if (isUpper(b[j++])) return j - 1;
  if (j >= end) return -1;
  const words = new Uint32Array(b.buffer, b.byteOffset + j, (end - j) >> 2);
  for (let w = 0; w < words.length; w++) {
    const x = words[w];
    const t = x & 0x7f7f7f7f;
    if ((0xdadadada - t) & ~x & (t + 0x3f3f3f3f) & 0x80808080) {
      for (let k = j + 4 * w, e = k + 4; k < e; k++) if (isUpper(b[k])) return k;
    }
  }
  for (j += 4 * words.length; j < end; j++) if (isUpper(b[j])) return j;
  return -1;
}
