/**
 * packed: the `packed-refs` file read as git reads it (refs/packed-backend.c), with findings
 * for everything git rejects or treats specially, and an exact replay of git's binary search.
 *
 * File format (git writes exactly this): an optional header line
 * `# pack-refs with: peeled fully-peeled sorted \n`, then one line per ref
 * `<hex oid> SP <refname> LF`, each optionally followed by `^<hex peeled oid> LF`.
 * Object ids are 40 hex digits (SHA-1) or 64 (SHA-256), per the repository's hash.
 *
 * What git does with a file (facts from packed-backend.c, checked against git 2.39 runs):
 * - Load (every access, single lookups included): a first line starting with '#' must start with
 *   "# pack-refs with:" and end in LF, else git dies ("unexpected line" / "unterminated line").
 *   The last record (its ref line plus any '^' lines) must end in LF and be at least
 *   hexsz + 2 bytes long, else git dies. Without the `sorted` trait git then splits the file
 *   into records (a line plus at most one following '^' line), dies on any record line shorter
 *   than hexsz + 2 bytes, and sorts the records in memory if they are not strictly increasing.
 * - Lookup of one name (`packed_read_raw_ref`): a binary search over the bytes of the file
 *   (`find_reference_location`), see `bisectLookup`. With `sorted` in the header the bytes are
 *   the file itself, so an unsorted file makes lookups miss names that are in it.
 * - Iteration (for-each-ref, pack-refs, upload-pack): each record line must be
 *   `<hexsz hex digits><SP|TAB|CR><name>LF`, a following '^' line must be `^<hexsz hex>LF`;
 *   anything else (a stray or doubled '^' line, a CR before the LF of a '^' line, garbage) makes
 *   git die ("unexpected line in packed-refs"). A name that fails `check_refname_format` is
 *   "broken": for-each-ref warns "ignoring ref with broken name" and leaves it out; a broken
 *   name that is also not safe makes git die ("packed refname is dangerous").
 */
import { type Finding, bytesToKey, displayName, keyToBytes } from '../basics.ts';
import {
  checkRefnameBytes,
  checkRefnameTail,
  refnameIsSafe,
  isGitSpace,
  isHexDigit,
  listedByForEachRef,
} from './refname.ts';

/** Hash function of the object ids: SHA-1 (40 hex digits) or SHA-256 (64). */
export type HashKind = 'sha1' | 'sha256';

/** When git dies on a problem: on every access ("load"), only when iterating all refs ("iterate"), or never (null). */
export type GitDies = 'load' | 'iterate' | null;

/**
 * A finding in a packed-refs file (or a loose ref / reflog): `Finding` plus a stable `code`
 * (git's fsck message id where git has one: badPackedRefHeader, badPackedRefEntry,
 * packedRefEntryNotTerminated, packedRefUnsorted; refscope's own ids otherwise), the 1-based
 * `line` (0 when not about a line), and `gitDies`. Severity is 'error' exactly when git dies.
 * `offset` is the byte offset of the start of the line (or of the exact byte when stated).
 */
export interface FilesFinding extends Finding {
  code: string;
  line: number;
  gitDies: GitDies;
}

/** One ref line of a packed-refs file. */
export interface PackedRecord {
  /** Ref name as a byte string (bytes after the separator up to LF, CR included if present). */
  readonly name: string;
  /** Object id, lower-case hex (git accepts upper case and prints lower case). Read-only (a getter on parsed records). */
  readonly oid: string;
  /** Peeled object id from the following '^' line, lower-case hex, or null. Read-only (a getter). */
  readonly peeled: string | null;
  /** 1-based line number of the ref line. */
  readonly line: number;
  /** Byte offset of the start of the ref line. */
  readonly offset: number;
  /** Byte length of the record: the ref line, its LF, and its '^' line with LF if any. */
  readonly length: number;
  /** Name fails git's `check_refname_format`: git clears the oid and for-each-ref leaves it out. */
  readonly brokenName: boolean;
}

/**
 * Per-record columns (struct of arrays) filled by the parser; `PackedRefs.records` turns them
 * into objects on first access, so parsing a million-ref file allocates almost nothing per line.
 * Offsets fit 32 bits: a packed-refs file is read whole and is at most `PACKED_REFS_MAX_BYTES`.
 */
export interface Columns {
  n: number;
  /** Byte offset of the ref line. */
  off: Uint32Array;
  /** Offset of the ref line's LF (or end of file): the name is [off + hexsz + 1, lineEnd). */
  lineEnd: Uint32Array;
  /** Offset after the record (ref line, LF, '^' line and its LF). */
  recEnd: Uint32Array;
  /** 1-based line number. */
  line: Uint32Array;
  /** Offset of the peeled hex digits, 0 if none (a '^' line never starts the file). */
  peel: Uint32Array;
  /**
   * Bytes the name shares with the name of the record before it in the file (`LCP_UNKNOWN` when
   * not compared: the file was already found out of order).
   */
  lcp: Uint32Array;
  /**
   * Bit 0: broken name; bit 1: oid has upper-case digits; bit 2: peeled has; bit 3: the name is
   * the same as that of the record before it in the file, bit 4: greater (both set only where
   * `lcp` is known; neither with `lcp` known: smaller).
   */
  flags: Uint8Array;
}

/** `Columns.lcp` of a record whose name was not compared with the one before it. */
export const LCP_UNKNOWN = 0xffffffff;
/** `Columns.flags`: broken name. */
export const F_BROKEN = 1;
/** `Columns.flags`: same name as the record before it in the file. */
export const F_SAME_AS_PREV = 8;
/** `Columns.flags`: a name greater than that of the record before it (set only where `lcp` is known). */
export const F_AFTER_PREV = 16;

function newColumns(cap: number): Columns {
  return {
    n: 0,
    off: new Uint32Array(cap),
    lineEnd: new Uint32Array(cap),
    recEnd: new Uint32Array(cap),
    line: new Uint32Array(cap),
    peel: new Uint32Array(cap),
    lcp: new Uint32Array(cap),
    flags: new Uint8Array(cap),
  };
}

function growColumns(c: Columns): void {
  const cap = c.off.length * 2;
  const g = <T extends Uint32Array | Uint8Array>(a: T): T => {
    const b = new (a.constructor as new (n: number) => T)(cap);
    b.set(a);
    return b;
  };
  c.off = g(c.off);
  c.lineEnd = g(c.lineEnd);
  c.recEnd = g(c.recEnd);
  c.line = g(c.line);
  c.peel = g(c.peel);
  c.lcp = g(c.lcp);
  c.flags = g(c.flags);
}

/** What records are read from: the file's bytes and its columns. */
export interface RecSource {
  bytes: Uint8Array;
  hexsz: number;
  cols: Columns;
}

/** Lower-case hex of `len` bytes at `at` of `b` (ASCII hex digits, either case). */
function hexAt(b: Uint8Array, at: number, len: number, upper: boolean): string {
  const v = String.fromCharCode.apply(null, b.subarray(at, at + len) as unknown as number[]);
  return upper ? v.toLowerCase() : v;
}

/**
 * Work of the packed-refs code since the process started (tests read the difference around a
 * call): names decoded to strings (`recName`), finding messages built.
 */
export const packedWork = { namesDecoded: 0, messagesBuilt: 0 };

/** Name of record `i` as a byte string (one char per byte). */
export function recName(s: RecSource, i: number): string {
  packedWork.namesDecoded++;
  const start = s.cols.off[i] + s.hexsz + 1,
    end = s.cols.lineEnd[i];
  // A long name (a 64 MiB one is an attack input) through the engine's decoder, not char by char.
  return end - start < 4096 ? bytesToKey(s.bytes, start, end) : latin1String(s.bytes.subarray(start, end));
}

/** Object id of record `i`, lower-case hex. */
export function recOid(s: RecSource, i: number): string {
  return hexAt(s.bytes, s.cols.off[i], s.hexsz, (s.cols.flags[i] & 2) !== 0);
}

/** Peeled id of record `i`, lower-case hex, or null. */
export function recPeeled(s: RecSource, i: number): string | null {
  const p = s.cols.peel[i];
  return p === 0 ? null : hexAt(s.bytes, p, s.hexsz, (s.cols.flags[i] & 4) !== 0);
}

/**
 * `PackedRecord` as `records` materializes it: the name and object ids are decoded from the
 * file's bytes on access. `toJSON` gives the plain fields.
 */
class Rec implements PackedRecord {
  private _name: string | null = null;
  constructor(
    readonly _s: RecSource,
    readonly _i: number,
  ) {}
  get name(): string {
    return (this._name ??= recName(this._s, this._i));
  }
  get line(): number {
    return this._s.cols.line[this._i];
  }
  get offset(): number {
    return this._s.cols.off[this._i];
  }
  get length(): number {
    return this._s.cols.recEnd[this._i] - this._s.cols.off[this._i];
  }
  get brokenName(): boolean {
    return (this._s.cols.flags[this._i] & F_BROKEN) !== 0;
  }
  get oid(): string {
    return recOid(this._s, this._i);
  }
  get peeled(): string | null {
    return recPeeled(this._s, this._i);
  }
  toJSON(): Omit<PackedRecord, never> {
    return {
      name: this.name,
      oid: this.oid,
      peeled: this.peeled,
      line: this.line,
      offset: this.offset,
      length: this.length,
      brokenName: this.brokenName,
    };
  }
}

/** Peel state from the header (packed-backend.c `PEELED_NONE/TAGS/FULLY`). */
export type PeeledTrait = 'none' | 'peeled' | 'fully-peeled';

/** Statistics of the binary-search replay. Probes = iterations of git's bisection loop. */
export interface BisectStats {
  /** What the bisection ran over: the file's bytes (`sorted` in header) or git's in-memory sorted copy. */
  over: 'file' | 'sorted-copy' | 'none';
  /** True if every distinct record name was looked up; false if only a sample was (see `sampled`). */
  replayedAll: boolean;
  /** Number of lookups replayed. */
  lookups: number;
  /** True if `lookups` is an evenly spaced sample (the records were sorted, so all are found). */
  sampled: boolean;
  /** Mean and max probes per lookup over the replayed lookups (0 when none). */
  avgProbes: number;
  maxProbes: number;
  /** ceil(log2(records + 1)): probes of an ideal binary search over the records. */
  idealProbes: number;
}

/**
 * A parsed packed-refs file. All names are byte strings; display them with `displayName`.
 * An engine-side object: `records` are built lazily and read their names and ids from the
 * file's bytes (no string is made per line while parsing), so send `packedRefsSection` / `packedRefsForEachRef` results across a worker boundary, not this.
 */
export interface PackedRefs {
  file: string;
  /** File size in bytes. */
  size: number;
  hash: HashKind;
  /** Hex digits per object id: 40 or 64. */
  hexLength: number;
  /** Header line without LF as a byte string, or null if the file has none. */
  header: string | null;
  /** Traits in header order (empty strings from repeated spaces dropped), unknown ones included. */
  traits: string[];
  /** Traits git does not know (anything but peeled, fully-peeled, sorted); git ignores them. */
  unknownTraits: string[];
  peeledTrait: PeeledTrait;
  /** Header has the `sorted` trait (git then binary-searches the file as it is). */
  claimsSorted: boolean;
  /** Byte offset of the first byte after the header (0 without header). */
  start: number;
  /** Valid ref lines in file order (built on first access; `recordCount` does not build them). */
  readonly records: PackedRecord[];
  /** Number of valid ref lines. */
  recordCount: number;
  /** Records with a '^' line. */
  peeledCount: number;
  /** Lines (ref lines, '^' lines, garbage) after the header. */
  lines: number;
  /** Records are strictly increasing by name (git's own test: a duplicate makes it unsorted). */
  sorted: boolean;
  /** Records are non-decreasing by name (in order, repeated names allowed). */
  inOrder: boolean;
  /** First record that is not greater than the one before it, with that one's name. */
  firstUnsorted: { line: number; offset: number; name: string; previous: string } | null;
  /**
   * Names that appear more than once, each listed once, in order of first appearance; at most
   * `MAX_NAMES_LISTED` (`findingCounts.packedRefDuplicate` counts them all).
   */
  duplicates: string[];
  /**
   * Distinct names that git's binary search does not find although they are in the file; at
   * most `MAX_NAMES_LISTED` (`findingCounts.packedRefNotFoundByBinarySearch` counts them all).
   */
  unfoundByBinarySearch: string[];
  bisect: BisectStats;
  /** Findings, at most `maxFindingsPerCode` per code, in file order. */
  findings: FilesFinding[];
  /** Number of findings per code, including those not kept. */
  findingCounts: Record<string, number>;
  /** The first problem that makes git die: on load if any, else on iteration; null if none. */
  fatal: FilesFinding | null;
  /** Internal: bisection index (see `lookupPacked`). */
  readonly _bisect: BisectIndex;
  /** Internal: file bytes and record columns. */
  readonly _src: RecSource;
  readonly _bytes: Uint8Array;
  /** Internal: record `i` (from `records` if built, else a fresh view). */
  _record(i: number): PackedRecord;
}

/** Options for `parsePackedRefs`. */
export interface ParsePackedOptions {
  /** Hash of the repository. Default: detected from the first ref line (64 hex digits → sha256). */
  hash?: HashKind;
  /**
   * Binary-search replay: 'auto' (default) replays every distinct name unless the file is
   * sorted by git's bisection model, where all are provably found and a sample of 2048 lookups
   * gives the probe statistics; 'always' replays every name; 'never' skips statistics.
   */
  replay?: 'auto' | 'always' | 'never';
  /** Max findings kept per code (default 50); `findingCounts` has the totals. */
  maxFindingsPerCode?: number;
}

/**
 * Bisection index: the record starts git's `find_start_of_record` can land on.
 * `bounds[0]` is the first byte after the header; the others are the offsets of every line that
 * does not start with '^' (a byte after LF that is not '^'); `bounds[count] = end`.
 * The key of bound i is what `cmp_record_to_refname` compares: the file bytes
 * [keyStart[i], keyEnd[i]), i.e. from bounds[i] + hexsz + 1 up to the next LF (keyEnd -1 until
 * computed). `recs[i]` is the record index when bounds[i] starts a valid ref line, else -1.
 * For git's in-memory sorted copy (no `sorted` trait) the bounds are offsets in that virtual
 * copy and the keys are the records' names.
 */
interface BisectIndex {
  bounds: Float64Array;
  count: number;
  recs: Int32Array;
  keyStart: Float64Array;
  keyEnd: Float64Array;
  bytes: Uint8Array;
  /** Bucket table: bucket[k] = last bound index j with bounds[j] <= k × bucketUnit. */
  bucket?: Int32Array;
  bucketUnit?: number;
}

const HEADER_PREFIX = '# pack-refs with:';
const KNOWN_TRAITS = new Set(['peeled', 'fully-peeled', 'sorted']);

/**
 * The whole buffer as a byte string (one char per byte, true ISO-8859-1: TextDecoder('latin1')
 * is windows-1252 in browsers, which remaps 0x80-0x9F). Names and ids are then cheap slices.
 */
export function latin1String(b: Uint8Array): string {
  // Pure ASCII (the usual case): the UTF-8 decoder is the fastest and gives the same string.
  // windows-1252 (what browsers give for 'latin1') equals ISO-8859-1 except for 0x80-0x9F.
  const head = Math.min(b.length, (4 - (b.byteOffset & 3)) & 3);
  const words = Math.floor((b.length - head) / 4);
  const w32 = new Uint32Array(b.buffer, b.byteOffset + head, words);
  let high = 0;
  for (let i = 0; i < head; i++) high |= b[i];
  for (let i = head + 4 * words; i < b.length; i++) high |= b[i];
  high &= 0x80;
  for (let i = 0; i < words && !high; i++) high = w32[i] & 0x80808080;
  if (!high) return ASCII.decode(b);
  let c1 = false;
  for (let i = 0; i < b.length && !c1; i++) c1 = b[i] >= 0x80 && b[i] <= 0x9f;
  if (!c1) return LATIN1.decode(b);
  const w = new Uint16Array(b.length);
  w.set(b);
  return UTF16.decode(w);
}
const ASCII = new TextDecoder('utf-8');
const LATIN1 = new TextDecoder('latin1');
const UTF16 = new TextDecoder('utf-16le');

/** Hex digits from `pos` (at most up to `end`); sets `sawUpper` if any is 'A'-'F'. */
let sawUpper = false;
function hexRunU(b: Uint8Array, pos: number, end: number): number {
  let i = pos;
  let up = false;
  while (i < end) {
    const c = b[i];
    if ((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66)) i++;
    else if (c >= 0x41 && c <= 0x46) {
      up = true;
      i++;
    } else break;
  }
  sawUpper = up;
  return i - pos;
}

function hexRun(b: Uint8Array, pos: number, end: number): number {
  let i = pos;
  while (i < end && isHexDigit(b[i])) i++;
  return i - pos;
}

/** Show a byte string in a message: Unicode, with CR/LF/controls escaped. */
export function showName(k: string): string {
  // eslint-disable-next-line no-control-regex
  return displayName(k).replace(/[\x00-\x1f\x7f]/g, (c) =>
    c === '\r'
      ? '\\r'
      : c === '\n'
        ? '\\n'
        : c === '\t'
          ? '\\t'
          : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

/** A finding collector with per-code caps and counts. */
export class FindingSink {
  readonly findings: FilesFinding[] = [];
  readonly counts: Record<string, number> = {};
  fatalLoad: FilesFinding | null = null;
  fatalIterate: FilesFinding | null = null;
  constructor(
    readonly file: string,
    readonly cap = 50,
  ) {}
  /**
   * Count a finding, and keep it while its code is under the cap. `message` may be a function:
   * it is then called only for a finding that is kept (or is the first fatal one), so a problem
   * on a million lines costs a count per line, not a message per line.
   */
  add(
    code: string,
    severity: Finding['severity'],
    line: number,
    offset: number,
    gitDies: GitDies,
    message: string | (() => string),
    file = this.file,
  ): void {
    const n = (this.counts[code] = (this.counts[code] ?? 0) + 1);
    const fatal = (gitDies === 'load' && !this.fatalLoad) || (gitDies === 'iterate' && !this.fatalIterate);
    if (n > this.cap && !fatal) return;
    packedWork.messagesBuilt++;
    const text = typeof message === 'string' ? message : message();
    const f: FilesFinding = {
      severity: gitDies ? 'error' : severity,
      file,
      offset,
      line,
      code,
      gitDies,
      message: text,
    };
    if (n <= this.cap) this.findings.push(f);
    if (gitDies === 'load' && !this.fatalLoad) this.fatalLoad = f;
    if (gitDies === 'iterate' && !this.fatalIterate) this.fatalIterate = f;
  }
  /** Whether a finding of `code` added now would be kept (under the cap). */
  keeps(code: string): boolean {
    return (this.counts[code] ?? 0) < this.cap;
  }
  get fatal(): FilesFinding | null {
    return this.fatalLoad ?? this.fatalIterate;
  }
}

/**
 * Parse a packed-refs file (single pass over the bytes, no per-line regex).
 *
 * Returns the header, traits (unknown ones kept), every valid ref line as a `PackedRecord` (name
 * as a byte string, oid/peeled lower-case hex, 1-based line, byte offset), sortedness as found,
 * duplicates, the names git's binary search would miss, and findings. Never throws on bad
 * content: everything is a finding, with `gitDies` saying whether git would die on load (every
 * command), only when iterating all refs, or not at all. Findings (codes):
 * - `badPackedRefHeader` (error, load): a first line starting with '#' that does not start with
 *   "# pack-refs with:" ("unknown header"); (warning) "# pack-refs with:" without the space git
 *   writes (git reads it; `git refs verify` flags it).
 * - `packedRefUnterminatedHeader` (error, load): header without LF.
 * - `packedRefUnknownTrait` (info): a trait git ignores.
 * - `packedRefEntryNotTerminated` (error, load): the file does not end in LF (a record without
 *   trailing newline).
 * - `badPackedRefEntry` (error): a line that is not `<oid><SP><name>` (die "unexpected line";
 *   on load when the file has no `sorted` trait and the line is shorter than hexsz + 2 bytes, or
 *   when it is the file's last record and too short; otherwise on iteration).
 * - `packedRefStrayPeeled` (error): a '^' line with no ref line above it; `packedRefDoubledPeeled`
 *   (error): a second '^' line for one ref. Both die on iteration when the header says `sorted`
 *   (lookups still work), on load otherwise (git's record split makes the '^' line a short record).
 * - `badPackedRefPeeled` (error, iterate): a '^' line that is not `^<hexsz hex>LF`, including CR LF.
 * - `packedRefCR` (warning): a ref line ending in CR LF: git reads the name with the CR, a broken
 *   name (for-each-ref: "warning: ignoring ref with broken name"); the ref is invisible.
 * - `packedRefBrokenName` (warning): any other name failing `check_refname_format`;
 *   `packedRefDangerousName` (error, iterate): a broken name that is not safe.
 * - `packedRefSeparator` (info): TAB or CR instead of SP after the oid (git accepts any isspace).
 * - `packedRefUppercaseHex` (info): upper-case hex digits (accepted, printed lower case).
 * - `packedRefUnsorted`: records not strictly increasing (warning with `sorted` in the header:
 *   lookups can miss; info without: git's load finds them out of order and sorts a copy; never
 *   reported for a file already in order, which git only checks).
 * - `packedRefNotFoundByBinarySearch` (warning): one per name git's lookup misses.
 * - `packedRefDuplicate` (warning): a name seen before; for-each-ref lists every line, a lookup
 *   answers the line git's binary search lands on (named in the message).
 */
export function parsePackedRefs(file: string, bytes: Uint8Array, opts: ParsePackedOptions = {}): PackedRefs {
  const sink = new FindingSink(file, opts.maxFindingsPerCode ?? 50);
  const end = bytes.length;
  let pos = 0;
  let lineNo = 0;
  let header: string | null = null;
  const traits: string[] = [];
  let headerOk = true;
  /** The next LF at or after `p`, or -1 (the engine's own `indexOf`, not a loop per byte). */
  const nextLF = (p: number): number => bytes.indexOf(0x0a, p);

  // --- header -----------------------------------------------------------------------------
  if (end > 0 && bytes[0] === 0x23) {
    lineNo = 1;
    let eol = nextLF(0);
    const hdrEnd = eol < 0 ? end : eol;
    if (eol < 0) {
      sink.add(
        'packedRefUnterminatedHeader',
        'error',
        1,
        0,
        'load',
        `an LF at the end of the header line, found the end of the file: git dies ("unterminated line in packed-refs")`,
      );
      headerOk = false;
      eol = end - 1;
    }
    const prefixOk = hdrEnd >= HEADER_PREFIX.length && bytesToKey(bytes, 0, HEADER_PREFIX.length) === HEADER_PREFIX;
    if (!prefixOk) {
      // The line is not quoted (nor decoded): a file that is not a packed-refs file at all starts
      // like this.
      sink.add(
        'badPackedRefHeader',
        'error',
        1,
        0,
        'load',
        `a first line starting with '#' to start with "${HEADER_PREFIX}", found another line of ${hdrEnd.toLocaleString('en-US')} bytes starting with '#': git dies ("unexpected line in packed-refs")`,
      );
      headerOk = false;
    }
    header = bytesToKey(bytes, 0, hdrEnd);
    if (prefixOk) {
      if (!header.startsWith(HEADER_PREFIX + ' ')) {
        sink.add(
          'badPackedRefHeader',
          'warning',
          1,
          0,
          null,
          `header lacks the space after "${HEADER_PREFIX}"; git reads the traits, \`git refs verify\` reports badPackedRefHeader`,
        );
      }
      for (const t of header.slice(HEADER_PREFIX.length).split(' ')) if (t !== '') traits.push(t);
    }
    pos = eol + 1;
  }
  const start = Math.min(pos, end);
  const unknownTraits = traits.filter((t) => !KNOWN_TRAITS.has(t));
  for (const t of unknownTraits) {
    sink.add('packedRefUnknownTrait', 'info', 1, 0, null, `unknown trait "${showName(t)}": git ignores it`);
  }
  const peeledTrait: PeeledTrait = traits.includes('fully-peeled')
    ? 'fully-peeled'
    : traits.includes('peeled')
      ? 'peeled'
      : 'none';
  const claimsSorted = traits.includes('sorted');

  // --- hash --------------------------------------------------------------------------------
  let hash: HashKind = opts.hash ?? 'sha1';
  if (!opts.hash) {
    let p = start;
    while (p < end && bytes[p] === 0x5e) {
      const e = nextLF(p);
      p = e < 0 ? end : e + 1;
    }
    if (p < end && hexRun(bytes, p, Math.min(end, p + 65)) === 64) hash = 'sha256';
  }
  const hexsz = hash === 'sha256' ? 64 : 40;

  // --- lines -------------------------------------------------------------------------------
  const cols = newColumns(Math.max(16, Math.min(1 << 22, Math.ceil((end - start) / (hexsz + 20)))));
  let boundsArr = new Float64Array(cols.off.length);
  let recsArr = new Int32Array(cols.off.length);
  let nb = 0;
  const pushBound = (off: number, rec: number): void => {
    if (nb === boundsArr.length) {
      const nbArr = new Float64Array(nb * 2);
      nbArr.set(boundsArr);
      boundsArr = nbArr;
      const nr = new Int32Array(nb * 2);
      nr.set(recsArr);
      recsArr = nr;
    }
    boundsArr[nb] = off;
    recsArr[nb] = rec;
    nb++;
  };
  // bounds[0] is always `start` (git's `lo` starts there even if that line is a '^' line).
  let firstBoundPending = true;

  let peeledCount = 0;
  let lines = 0;
  /** Previous line: 0 none, 1 ref line, 2 ref line + '^', 3 malformed, 4 malformed/stray + '^'. */
  let prev = 0;
  let sorted = true;
  let nondecreasing = true;
  let firstUnsortedAt = -1;
  let lastNameStart = -1;
  let lastNameEnd = -1;
  let lastLineStart = start;
  let lastLineNo = lineNo;
  let malformedBounds = 0;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  /** `refnameIsSafe` of the last broken name. */
  let lastSafe = true;

  while (pos < end) {
    const lineStart = pos;
    const eolIdx = nextLF(pos);
    const lineEnd = eolIdx < 0 ? end : eolIdx;
    lineNo++;
    lines++;
    lastLineStart = lineStart;
    lastLineNo = lineNo;
    pos = eolIdx < 0 ? end : eolIdx + 1;

    if (bytes[lineStart] === 0x5e /* ^ */) {
      if (firstBoundPending) {
        pushBound(lineStart, -1);
        malformedBounds++;
        firstBoundPending = false;
      }
      const dies: GitDies = claimsSorted ? 'iterate' : 'load';
      const when = claimsSorted ? ' when iterating refs; single lookups still work' : ' on load';
      if (prev === 0) {
        sink.add(
          'packedRefStrayPeeled',
          'error',
          lineNo,
          lineStart,
          dies,
          `a ref line before each '^' line, found a '^' line with no ref line above it: git dies ("unexpected line in packed-refs")${when}`,
        );
      } else if (prev === 2 || prev === 4) {
        sink.add(
          'packedRefDoubledPeeled',
          'error',
          lineNo,
          lineStart,
          dies,
          `at most one '^' line per ref, found a second one for the ref above: git dies ("unexpected line in packed-refs")${when}`,
        );
      } else if (prev === 1) {
        const r = cols.n - 1;
        if (lineEnd - lineStart === hexsz + 1 && hexRunU(bytes, lineStart + 1, lineEnd) === hexsz) {
          cols.peel[r] = lineStart + 1;
          if (sawUpper) cols.flags[r] |= 4;
          peeledCount++;
        } else {
          const cr = lineEnd > lineStart && bytes[lineEnd - 1] === 0x0d;
          sink.add(
            'badPackedRefPeeled',
            'error',
            lineNo,
            lineStart,
            'iterate',
            cr
              ? `a '^' line of '^' + ${hexsz} hex digits + LF, found one ending in CR LF: git dies ("unexpected line in packed-refs") when iterating refs`
              : `a '^' line of '^' + ${hexsz} hex digits + LF, found a '^' line of another shape: git dies ("unexpected line in packed-refs") when iterating refs`,
          );
        }
        cols.recEnd[r] = pos;
        prev = 2;
        continue;
      }
      // prev 3 (after a malformed line, already reported): the '^' line belongs to it.
      prev = 4;
      continue;
    }

    // A ref line (or garbage).
    const lineLen = lineEnd - lineStart;
    let valid = lineLen >= hexsz + 2;
    let hr = 0;
    if (valid) {
      hr = hexRunU(bytes, lineStart, lineStart + hexsz);
      valid = hr === hexsz && isGitSpace(bytes[lineStart + hexsz]);
    }
    if (!valid) {
      pushBound(lineStart, -1);
      malformedBounds++;
      firstBoundPending = false;
      const dies: GitDies = !claimsSorted && lineLen < hexsz + 2 ? 'load' : 'iterate';
      let why: string;
      if (lineLen === 0) why = 'an empty line';
      else if (hexsz === 40 && hexRun(bytes, lineStart, Math.min(lineEnd, lineStart + 64)) >= 64)
        why = `an object id of more than 40 hex digits (the file is read as SHA-1)`;
      else if (lineLen < hexsz + 2)
        why = `a line of ${lineLen} byte${lineLen === 1 ? '' : 's'}, shorter than ${hexsz + 2}`;
      else if (hr !== hexsz) why = `a line that does not start with ${hexsz} hex digits`;
      else why = `no whitespace after the ${hexsz}-digit object id`;
      sink.add(
        'badPackedRefEntry',
        'error',
        lineNo,
        lineStart,
        dies,
        `a ref line "<${hexsz} hex digits> <name>", found ${why}: git dies ("unexpected line in packed-refs") ${dies === 'load' ? 'on load' : 'when iterating refs'}`,
      );
      prev = 3;
      continue;
    }

    const r = cols.n;
    if (r === cols.off.length) growColumns(cols);
    let flags = sawUpper ? 2 : 0;
    const nameStart = lineStart + hexsz + 1;
    if (sawUpper)
      sink.add(
        'packedRefUppercaseHex',
        'info',
        lineNo,
        lineStart,
        null,
        'object id in upper-case hex: git accepts it and prints it in lower case',
      );
    const sep = bytes[lineStart + hexsz];
    if (sep !== 0x20) {
      sink.add(
        'packedRefSeparator',
        'info',
        lineNo,
        lineStart + hexsz,
        null,
        `${sep === 0x09 ? 'TAB' : 'CR'} between object id and name: git accepts any whitespace there, writes a space`,
      );
    }
    // Order against the name before (git's own check, packed-backend.c sort_snapshot), and the
    // bytes both share: a sorted file of a million names sharing a long prefix is compared once.
    let lcp = LCP_UNKNOWN;
    if (lastNameStart >= 0 && nondecreasing) {
      const la = lastNameEnd - lastNameStart;
      const lb = lineEnd - nameStart;
      const m = la < lb ? la : lb;
      const k = sharedBytes(bytes, dv, lastNameStart, nameStart, m);
      lcp = k;
      const c = k < m ? bytes[lastNameStart + k] - bytes[nameStart + k] : la - lb;
      if (c >= 0 && sorted) {
        sorted = false;
        firstUnsortedAt = r;
      }
      if (c > 0) nondecreasing = false;
      if (c === 0) flags |= F_SAME_AS_PREV;
      else if (c < 0) flags |= F_AFTER_PREV;
    }
    // The ref-name checks (check_refname_format). A name equal to the one before has its verdict;
    // one sharing a prefix with a valid name before it is checked from the first component that
    // is not wholly in that prefix (the components before it are the same bytes, each valid).
    let brokenName: boolean;
    const prevValid = r > 0 && lcp !== LCP_UNKNOWN && (cols.flags[r - 1] & F_BROKEN) === 0;
    if (flags & F_SAME_AS_PREV) {
      brokenName = (cols.flags[r - 1] & F_BROKEN) !== 0;
    } else if (prevValid && lcp > 0) {
      let from = nameStart + lcp - 1;
      while (from > nameStart && bytes[from] !== 0x2f) from--;
      brokenName =
        bytes[from] === 0x2f
          ? !checkRefnameTail(bytes, nameStart, from + 1, lineEnd)
          : !checkRefnameBytes(bytes, nameStart, lineEnd);
    } else brokenName = !checkRefnameBytes(bytes, nameStart, lineEnd);
    if (brokenName) {
      const nameOf = () => bytesToKey(bytes, nameStart, lineEnd);
      // The same name as the line before has its verdict (no string per repeated line).
      const safe: boolean = flags & F_SAME_AS_PREV ? lastSafe : refnameIsSafe(nameOf());
      lastSafe = safe;
      if (!safe) {
        sink.add(
          'packedRefDangerousName',
          'error',
          lineNo,
          lineStart,
          'iterate',
          () =>
            `a valid (or at least safe) ref name, found "${showName(nameOf())}", invalid and unsafe: git dies ("packed refname is dangerous") when iterating refs`,
        );
      } else if (bytes[lineEnd - 1] === 0x0d) {
        sink.add(
          'packedRefCR',
          'warning',
          lineNo,
          lineStart,
          null,
          () =>
            `line ends in CR LF: git reads the name as "${showName(nameOf())}", a broken name; for-each-ref warns "ignoring ref with broken name" and leaves the ref out`,
        );
      } else {
        sink.add(
          'packedRefBrokenName',
          'warning',
          lineNo,
          lineStart,
          null,
          () =>
            `invalid ref name "${showName(nameOf())}": git treats the ref as broken; for-each-ref warns "ignoring ref with broken name" and leaves it out`,
        );
      }
      flags |= F_BROKEN;
    }
    cols.off[r] = lineStart;
    cols.lineEnd[r] = lineEnd;
    cols.recEnd[r] = pos;
    cols.line[r] = lineNo;
    cols.peel[r] = 0;
    cols.lcp[r] = lcp;
    cols.flags[r] = flags;
    cols.n = r + 1;
    pushBound(lineStart, r);
    firstBoundPending = false;
    lastNameStart = nameStart;
    lastNameEnd = lineEnd;
    prev = 1;
  }
  const n = cols.n;
  const src: RecSource = { bytes, hexsz, cols };
  const nameAt = (i: number): string => recName(src, i);

  // --- git's verify_buffer_safe: last record ends in LF and is >= hexsz + 2 bytes -----------
  if (headerOk && start < end) {
    // find_start_of_record(start, eof - 1): back to a byte after LF that is not '^'.
    let p = end - 1;
    while (p > start && (bytes[p - 1] !== 0x0a || bytes[p] === 0x5e)) p--;
    if (bytes[end - 1] !== 0x0a) {
      const unterminated = nextLF(p) < 0;
      sink.add(
        'packedRefEntryNotTerminated',
        'error',
        lastLineNo,
        lastLineStart,
        'load',
        `an LF at the end of the file, found a last line without one: git dies ("${unterminated ? 'unterminated' : 'unexpected'} line in packed-refs") on load`,
      );
    } else if (end - p < hexsz + 2) {
      const f = sink.findings.find((x) => x.offset === p && x.code === 'badPackedRefEntry');
      if (f) {
        f.gitDies = 'load';
        f.message = f.message.replace('when iterating refs', 'on load (it is the last record)');
        if (!sink.fatalLoad) sink.fatalLoad = f;
      } else {
        sink.add(
          'badPackedRefEntry',
          'error',
          0,
          p,
          'load',
          `a last record of at least ${hexsz + 2} bytes, found a shorter one: git dies ("unexpected line in packed-refs") on load`,
        );
      }
    }
  }

  // --- sortedness, duplicates ------------------------------------------------------------------
  let firstUnsorted: PackedRefs['firstUnsorted'] = null;
  if (!sorted) {
    const i = firstUnsortedAt;
    firstUnsorted = { line: cols.line[i], offset: cols.off[i], name: nameAt(i), previous: nameAt(i - 1) };
    const fu = firstUnsorted;
    if (claimsSorted) {
      sink.add(
        'packedRefUnsorted',
        'warning',
        fu.line,
        fu.offset,
        null,
        `header says "sorted" but "${showName(fu.name)}" is not greater than "${showName(fu.previous)}" on the line before: git's binary search runs over the file as it is and can miss refs`,
      );
    } else {
      sink.add(
        'packedRefUnsorted',
        'info',
        fu.line,
        fu.offset,
        null,
        `records are not strictly increasing ("${showName(fu.name)}" after "${showName(fu.previous)}"): without the "sorted" trait git checks the order on every load and, finding it out of order, sorts a copy of the whole file in memory`,
      );
    }
  }
  const duplicates: string[] = [];
  // first[i]: index of the first record with the same name (i itself for a first occurrence).
  // In a file in order a repeated name is on the lines right after its first one: no hashing.
  const first = sorted ? null : nondecreasing ? adjacentFirsts(cols) : firstOccurrences(bytes, cols, hexsz);
  /** Per repeated name (its first record): how many lines, and the first lines to show. */
  const dupLines = new Map<number, { count: number; lines: number[]; at: number }>();
  if (first) {
    for (let i = 0; i < n; i++) {
      const f = first[i];
      if (f === i) continue;
      let d = dupLines.get(f);
      if (!d) {
        dupLines.set(f, (d = { count: 1, lines: [cols.line[f]], at: i }));
        if (duplicates.length < MAX_NAMES_LISTED) duplicates.push(nameAt(f));
      }
      d.count++;
      if (d.lines.length <= MAX_DUPLICATE_LINES_SHOWN) d.lines.push(cols.line[i]);
    }
  }

  // --- bisection index ---------------------------------------------------------------------------
  const idx: BisectIndex = claimsSorted
    ? fileIndex(finishBounds(boundsArr, nb, end), nb, recsArr.subarray(0, nb), cols, bytes, hexsz)
    : sortedCopyIndex(n, !nondecreasing, cols, bytes, hexsz);
  boundsArr = recsArr = null as unknown as Float64Array & Int32Array;

  let recordsCache: PackedRecord[] | null = null;
  const pr = {
    file,
    size: end,
    hash,
    hexLength: hexsz,
    header,
    traits,
    unknownTraits,
    peeledTrait,
    claimsSorted,
    start,
    get records(): PackedRecord[] {
      if (!recordsCache) {
        recordsCache = new Array(n);
        for (let i = 0; i < n; i++) recordsCache[i] = new Rec(src, i);
      }
      return recordsCache;
    },
    recordCount: n,
    peeledCount,
    lines,
    sorted,
    inOrder: nondecreasing,
    firstUnsorted,
    duplicates,
    unfoundByBinarySearch: [] as string[],
    bisect: {
      over: 'none',
      replayedAll: false,
      lookups: 0,
      sampled: false,
      avgProbes: 0,
      maxProbes: 0,
      idealProbes: Math.ceil(Math.log2(n + 1)),
    } as BisectStats,
    findings: sink.findings,
    findingCounts: sink.counts,
    fatal: null as FilesFinding | null,
  } as unknown as PackedRefs;
  // Internals are not enumerable: JSON / structured clone of `pr` does not copy the file's bytes.
  Object.defineProperties(pr, {
    _bisect: { value: idx, enumerable: false },
    _src: { value: src, enumerable: false },
    _bytes: { value: bytes, enumerable: false },
    _record: {
      value: (i: number): PackedRecord => (recordsCache ? recordsCache[i] : new Rec(src, i)),
      enumerable: false,
    },
  });

  // --- replay ---------------------------------------------------------------------------------------
  const mode = opts.replay ?? 'auto';
  if (mode !== 'never' && n > 0) {
    // Without the trait git checks the order first and sorts a copy only when it is not strictly
    // increasing (packed-backend.c sort_snapshot); otherwise it searches the file itself.
    pr.bisect.over = claimsSorted || sorted ? 'file' : 'sorted-copy';
    // Record indices to look up: every distinct name, or an evenly spaced sample.
    const lookups: number[] = [];
    let all: boolean;
    if (mode === 'always' || (claimsSorted && (malformedBounds > 0 || !nondecreasing))) {
      for (let i = 0; i < n; i++) if (!first || first[i] === i) lookups.push(i);
      all = true;
    } else {
      // Sorted by the bisection model (or git's sorted copy): every name is found; sample the cost.
      const step = Math.max(1, Math.ceil(n / 2048));
      for (let i = 0; i < n; i += step) if (!first || first[i] === i) lookups.push(i);
      all = step === 1;
      pr.bisect.sampled = !all;
    }
    if (lookups.length > 4096) buildBuckets(idx);
    let total = 0;
    let max = 0;
    for (const i of lookups) {
      const r = bisectIndex(idx, bytes, cols.off[i] + hexsz + 1, cols.lineEnd[i]);
      total += r.probes;
      if (r.probes > max) max = r.probes;
      if (r.index < 0) {
        if (pr.unfoundByBinarySearch.length < MAX_NAMES_LISTED) pr.unfoundByBinarySearch.push(nameAt(i));
        sink.add(
          'packedRefNotFoundByBinarySearch',
          'warning',
          cols.line[i],
          cols.off[i],
          null,
          () =>
            `git's binary search over the file does not find "${showName(nameAt(i))}" (the file is not sorted although its header says so): lookups of this ref fail`,
        );
      }
    }
    pr.bisect.replayedAll = all;
    pr.bisect.lookups = lookups.length;
    pr.bisect.avgProbes = lookups.length ? total / lookups.length : 0;
    pr.bisect.maxProbes = max;
  }
  // Duplicates: iteration (for-each-ref) yields every line; a lookup (rev-parse, update-ref's
  // old-value check) answers the one line git's binary search lands on, replayed here.
  // One finding per repeated name, at its second line (a name on a million lines is one finding
  // listing its first lines, not a million findings each joining a million line numbers).
  for (const [f, d] of dupLines) {
    const i = d.at;
    sink.add('packedRefDuplicate', 'warning', cols.line[i], cols.off[i], null, () => {
      const nm = nameAt(i);
      const shown = d.lines.slice(0, MAX_DUPLICATE_LINES_SHOWN);
      const lines =
        d.count <= MAX_DUPLICATE_LINES_SHOWN
          ? shown.join(', ')
          : `${shown.join(', ')} and ${(d.count - MAX_DUPLICATE_LINES_SHOWN).toLocaleString('en-US')} more`;
      const hit = lookupPacked(pr, nm).record;
      const lookup = hit
        ? `git's lookup (rev-parse) answers line ${hit.line} (${hit.oid})`
        : "git's lookup (rev-parse) finds none of them";
      void f;
      return `"${showName(nm)}" appears more than once (lines ${lines}): for-each-ref lists every line; ${lookup}`;
    });
  }
  pr.fatal = sink.fatal;
  // Keep findings in file order (the per-code passes above appended out of order).
  pr.findings.sort((a, b) => (a.line || Infinity) - (b.line || Infinity) || a.offset - b.offset);
  return pr;
}

/** Names `duplicates` and `unfoundByBinarySearch` list at most (the finding counts have all). */
export const MAX_NAMES_LISTED = 1000;

/** Line numbers a duplicate finding lists before "and N more". */
const MAX_DUPLICATE_LINES_SHOWN = 10;

/** `firstOccurrences` of a file in order: a repeated name is on the lines right after its first. */
function adjacentFirsts(cols: Columns): Int32Array {
  const first = new Int32Array(cols.n);
  for (let i = 0; i < cols.n; i++) first[i] = i > 0 && cols.flags[i] & F_SAME_AS_PREV ? first[i - 1] : i;
  return first;
}

/**
 * For each record, the index of the first record with the same name bytes (open addressing on
 * an FNV-1a hash of the name bytes; no strings are made).
 */
function firstOccurrences(b: Uint8Array, cols: Columns, hexsz: number): Int32Array {
  const n = cols.n;
  let size = 16;
  while (size < 2 * n) size *= 2;
  const mask = size - 1;
  const table = new Int32Array(size).fill(-1);
  const first = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const s0 = cols.off[i] + hexsz + 1;
    const e0 = cols.lineEnd[i];
    let h = 0x811c9dc5;
    for (let k = s0; k < e0; k++) h = Math.imul(h ^ b[k], 0x01000193);
    let slot = h & mask;
    for (;;) {
      const j = table[slot];
      if (j < 0) {
        table[slot] = i;
        first[i] = i;
        break;
      }
      const s1 = cols.off[j] + hexsz + 1;
      if (compareRange(b, s1, cols.lineEnd[j], s0, e0) === 0) {
        first[i] = j;
        break;
      }
      slot = (slot + 1) & mask;
    }
  }
  return first;
}

/**
 * How many of the `m` bytes at `a` and at `b` of `bytes` are the same from the start, four at a
 * time (a DataView reads a word at any offset: consecutive names are seldom equally aligned).
 */
function sharedBytes(bytes: Uint8Array, dv: DataView, a: number, b: number, m: number): number {
  let k = 0;
  while (k + 4 <= m && dv.getUint32(a + k, true) === dv.getUint32(b + k, true)) k += 4;
  while (k < m && bytes[a + k] === bytes[b + k]) k++;
  return k;
}

/** memcmp-style comparison of b[a0, a1) and b[b0, b1), shorter prefix first. */
function compareRange(b: Uint8Array, a0: number, a1: number, b0: number, b1: number): number {
  const la = a1 - a0;
  const lb = b1 - b0;
  const m = la < lb ? la : lb;
  for (let i = 0; i < m; i++) {
    const d = b[a0 + i] - b[b0 + i];
    if (d !== 0) return d;
  }
  return la - lb;
}

function finishBounds(arr: Float64Array, n: number, end: number): Float64Array {
  const out = new Float64Array(n + 1);
  out.set(arr.subarray(0, n));
  out[n] = end;
  return out;
}

/** The index over the file's own bytes (header says `sorted`). */
function fileIndex(
  bounds: Float64Array,
  count: number,
  recs: Int32Array,
  cols: Columns,
  bytes: Uint8Array,
  hexsz: number,
): BisectIndex {
  const end = bounds[count];
  const keyStart = new Float64Array(count);
  const keyEnd = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    keyStart[i] = Math.min(bounds[i] + hexsz + 1, end);
    keyEnd[i] = recs[i] >= 0 ? cols.lineEnd[recs[i]] : -1;
  }
  return { bounds, count, recs, keyStart, keyEnd, bytes };
}

/**
 * The in-memory copy git makes without `sorted`: records stably sorted by name, back to back.
 * `needSort` false: the records are already non-decreasing (the stable sort keeps them as they
 * are). Names are compared in the file's bytes (memcmp order), no string per record.
 */
function sortedCopyIndex(n: number, needSort: boolean, cols: Columns, bytes: Uint8Array, hexsz: number): BisectIndex {
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  if (needSort) {
    const s = hexsz + 1;
    const sortedOrder = Array.from(order).sort(
      (a, b) => compareRange(bytes, cols.off[a] + s, cols.lineEnd[a], cols.off[b] + s, cols.lineEnd[b]) || a - b,
    );
    order.set(sortedOrder);
  }
  const bounds = new Float64Array(n + 1);
  const recs = new Int32Array(n);
  const keyStart = new Float64Array(n);
  const keyEnd = new Float64Array(n);
  let off = 0;
  for (let i = 0; i < n; i++) {
    const r = order[i];
    bounds[i] = off;
    recs[i] = r;
    keyStart[i] = cols.off[r] + hexsz + 1;
    keyEnd[i] = cols.lineEnd[r];
    off += cols.recEnd[r] - cols.off[r];
  }
  bounds[n] = off;
  return { bounds, count: n, recs, keyStart, keyEnd, bytes };
}

/** Compare the key of bound i with target bytes t[t0, t1) (memcmp order, prefix first). */
function cmpKey(idx: BisectIndex, i: number, t: Uint8Array, t0: number, t1: number): number {
  let ke = idx.keyEnd[i];
  const ks = idx.keyStart[i];
  if (ke < 0) {
    ke = idx.bytes.indexOf(0x0a, ks);
    if (ke < 0) ke = idx.bytes.length;
    idx.keyEnd[i] = ke;
  }
  const b = idx.bytes;
  const la = ke - ks;
  const lb = t1 - t0;
  const m = la < lb ? la : lb;
  for (let k = 0; k < m; k++) {
    const d = b[ks + k] - t[t0 + k];
    if (d !== 0) return d;
  }
  return la - lb;
}

/**
 * Replay of git's `find_reference_location(snapshot, refname, mustexist=1)` (packed-backend.c)
 * over the bisection index: `lo`/`hi` are byte offsets (start of data, end of file);
 * `mid = lo + (hi - lo) / 2` (integer division); the record containing `mid` starts at the last
 * byte <= mid that follows an LF and is not '^' (or at `lo`); its name (bytes from record start
 * + hexsz + 1 to LF) is compared to `refname` byte by byte, a name that is a prefix of the
 * other being smaller; on "less" `lo` moves to the next record start after `mid` (or `hi`), on
 * "greater" `hi` moves to the record start, on "equal" the record is found. One probe = one
 * iteration. Returns the bound index found (-1 if not) and the probe count.
 */
function bisectIndex(idx: BisectIndex, t: Uint8Array, t0: number, t1: number): { index: number; probes: number } {
  const B = idx.bounds;
  const bucket = idx.bucket;
  const unit = idx.bucketUnit ?? 1;
  let li = 0;
  let hiI = idx.count;
  let probes = 0;
  while (li !== hiI) {
    probes++;
    const lo = B[li];
    const mid = lo + Math.floor((B[hiI] - lo) / 2);
    // r = last index in [li, hiI) with B[r] <= mid (find_start_of_record).
    let r: number;
    if (bucket) {
      r = bucket[Math.floor(mid / unit)];
      if (r < li) r = li;
      while (r + 1 < hiI && B[r + 1] <= mid) r++;
    } else {
      let a = li;
      let z = hiI - 1;
      while (a < z) {
        const m = (a + z + 1) >>> 1;
        if (B[m] <= mid) a = m;
        else z = m - 1;
      }
      r = a;
    }
    const c = cmpKey(idx, r, t, t0, t1);
    if (c < 0) li = r + 1;
    else if (c > 0) hiI = r;
    else return { index: r, probes };
  }
  return { index: -1, probes };
}

/**
 * Speed-up for many lookups: bucket[k] = last bound index j with bounds[j] <= k × unit, unit a
 * power of two giving about two buckets per bound. Same result as the binary search it replaces.
 */
function buildBuckets(idx: BisectIndex): void {
  const B = idx.bounds;
  const n = idx.count;
  const end = B[n];
  let unit = 1;
  while (n > 0 && unit * 4 * n <= end) unit *= 2;
  const size = Math.floor(end / unit) + 1;
  const bucket = new Int32Array(size);
  let j = 0;
  for (let k = 0, o = 0; k < size; k++, o += unit) {
    while (j + 1 < n && B[j + 1] <= o) j++;
    bucket[k] = j;
  }
  idx.bucket = bucket;
  idx.bucketUnit = unit;
}

/**
 * Look `refname` (byte string) up the way git's packed backend does (`packed_read_raw_ref`):
 * binary search over the file's bytes when the header says `sorted`, over git's sorted
 * in-memory copy otherwise. Returns the record found, or null (not found, or found on a line
 * that is not a valid ref line, where git would die reading its oid), and the probe count.
 */
export function lookupPacked(pr: PackedRefs, refname: string): { record: PackedRecord | null; probes: number } {
  if (pr._bisect.count === 0) return { record: null, probes: 0 };
  const t = keyToBytes(refname);
  const r = bisectIndex(pr._bisect, t, 0, t.length);
  if (r.index < 0) return { record: null, probes: r.probes };
  const ri = pr._bisect.recs[r.index];
  return { record: ri >= 0 ? pr._record(ri) : null, probes: r.probes };
}

/** Record indices in the order git's packed iterator yields them (see `packedIterationOrder`). */
export function packedOrder(pr: PackedRefs): Int32Array {
  if (!pr.claimsSorted) return pr._bisect.recs;
  const out = new Int32Array(pr.recordCount);
  for (let i = 0; i < out.length; i++) out[i] = i;
  return out;
}

/**
 * Whether a record of the file is named `name` (byte string), whether git's lookup finds it or
 * not: a binary search where it is exact (the file in order, or git's sorted copy), else one pass
 * over the names' bytes.
 */
export function packedHasName(pr: PackedRefs, name: string): boolean {
  if (pr.recordCount === 0) return false;
  const t = keyToBytes(name);
  const idx = pr._bisect;
  const r = bisectIndex(idx, t, 0, t.length);
  if (r.index >= 0 && idx.recs[r.index] >= 0) return true;
  // Exact: git's sorted copy, or a file the replay found every name of (in order: `sampled`).
  const b = pr.bisect;
  if (!pr.claimsSorted || b.sampled || (b.replayedAll && !pr.findingCounts.packedRefNotFoundByBinarySearch))
    return false;
  const { cols, bytes, hexsz } = pr._src;
  for (let i = 0; i < cols.n; i++) {
    const at = cols.off[i] + hexsz + 1;
    if (cols.lineEnd[i] - at === t.length && sameBytes(bytes, at, t)) return true;
  }
  return false;
}

function sameBytes(b: Uint8Array, at: number, t: Uint8Array): boolean {
  for (let k = 0; k < t.length; k++) if (b[at + k] !== t[k]) return false;
  return true;
}

/**
 * The records in the order git's packed iterator yields them: file order with the `sorted`
 * trait, git's stable in-memory sort by name otherwise.
 */
export function packedIterationOrder(pr: PackedRefs): PackedRecord[] {
  if (pr.claimsSorted) return pr.records;
  const idx = pr._bisect;
  const out: PackedRecord[] = new Array(idx.count);
  for (let i = 0; i < idx.count; i++) out[i] = pr.records[idx.recs[i]];
  return out;
}

/**
 * Peel coverage (the mailing-list case 4, the ref advertisement). Over refs git lists (broken names
 * excluded). Rule implemented (packed-backend.c `next_record`/`REF_KNOWS_PEELED`): git knows a
 * ref's peeled value without opening its object when
 * - the ref has a '^' line (whatever the traits say), or
 * - the header has `fully-peeled` (no '^' line then means "not peelable"), or
 * - the header has `peeled` and the ref is under refs/tags/.
 * Every other ref (without traits: every ref lacking a '^' line; with only `peeled`: refs outside
 * refs/tags/ lacking one) makes the advertisement open its object to peel it: `mustOpen`.
 */
export interface PeelCoverage {
  /** Refs considered (records with valid names). */
  refs: number;
  /** Refs with a '^' line. */
  withPeeled: number;
  /** Refs under refs/tags/. */
  tags: number;
  tagsWithPeeled: number;
  tagsWithoutPeeled: number;
  /** Refs whose peeled value git knows from the file (see rule). */
  known: number;
  /** Refs the ref advertisement must open objects for. */
  mustOpen: number;
  peeledTrait: PeeledTrait;
  /** The rule in one sentence, for reports. */
  rule: string;
}

const TAGS = [...'refs/tags/'].map((c) => c.charCodeAt(0));

/** Compute `PeelCoverage` for a packed-refs file (see the interface for the rule). */
export function peelCoverage(pr: PackedRefs): PeelCoverage {
  let refs = 0,
    withPeeled = 0,
    tags = 0,
    tagsWithPeeled = 0,
    known = 0;
  const { cols, hexsz } = pr._src;
  const b = pr._bytes;
  for (let i = 0; i < cols.n; i++) {
    if (cols.flags[i] & 1) continue;
    refs++;
    const ns = cols.off[i] + hexsz + 1;
    let isTag = cols.lineEnd[i] - ns > TAGS.length;
    for (let k = 0; isTag && k < TAGS.length; k++) isTag = b[ns + k] === TAGS[k];
    if (isTag) tags++;
    if (cols.peel[i] !== 0) {
      withPeeled++;
      if (isTag) tagsWithPeeled++;
      known++;
    } else if (pr.peeledTrait === 'fully-peeled' || (pr.peeledTrait === 'peeled' && isTag)) {
      known++;
    }
  }
  const rule =
    pr.peeledTrait === 'fully-peeled'
      ? 'fully-peeled: a ref without a ^ line is known not to peel; no object is opened'
      : pr.peeledTrait === 'peeled'
        ? 'peeled: refs/tags/* without a ^ line are known not to peel; other refs without a ^ line have their object opened'
        : 'no peel trait: every ref without a ^ line has its object opened';
  return {
    refs,
    withPeeled,
    tags,
    tagsWithPeeled,
    tagsWithoutPeeled: tags - tagsWithPeeled,
    known,
    mustOpen: refs - known,
    peeledTrait: pr.peeledTrait,
    rule,
  };
}

/**
 * `git for-each-ref --format='%(objectname) %(refname)'` of a repository holding only this
 * packed-refs file (no loose refs): the records in git's iteration order, broken names left out
 * (git warns), names for-each-ref does not list left out (HEAD and root refs unless
 * `includeRootRefs`, FETCH_HEAD/MERGE_HEAD always). A null object id is listed as is.
 * Order: git 2.55 prints the iteration order as it comes (ref-filter.c
 * `can_do_iterative_format`: the default sort by refname is taken to be the backend's order),
 * so a file whose header says `sorted` but is not comes out in file order; git 2.47 sorts the
 * output by name (`sortByName`: a stable sort, duplicates in iteration order).
 * This is what git prints when it does not die; check `pr.fatal` for whether it does.
 */
export function packedRefsForEachRef(
  pr: PackedRefs,
  includeRootRefs = false,
  sortByName = false,
): { name: string; oid: string }[] {
  const out: { name: string; oid: string }[] = [];
  for (const r of packedIterationOrder(pr)) {
    if (r.brokenName || !listedByForEachRef(r.name, includeRootRefs)) continue;
    out.push({ name: r.name, oid: r.oid });
  }
  return sortByName ? stableSortByName(out) : out;
}

/** Stable sort by byte-string name (for-each-ref's default `refname` key). */
export function stableSortByName<T extends { name: string }>(a: T[]): T[] {
  let sorted = true;
  for (let i = 1; i < a.length && sorted; i++) if (a[i].name < a[i - 1].name) sorted = false;
  if (sorted) return a;
  return a
    .map((v, i) => ({ v, i }))
    .sort((x, y) => (x.v.name < y.v.name ? -1 : x.v.name > y.v.name ? 1 : x.i - y.i))
    .map((x) => x.v);
}
