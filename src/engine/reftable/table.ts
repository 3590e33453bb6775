/**
 * table: one reftable file. Header, footer, sections, the block walk, and full decoding of every
 * block and record (ref, index, obj, log) with structural checks. Keys are decoded by
 * reftable/record.ts `parseKeyHead`, restart tables checked and log blocks inflated by
 * reftable/block.ts; this module builds the columns.
 *
 * Source of the rules: git's Documentation/technical/reftable.adoc ("File format", "Header",
 * "Ref block format", "Index block format", "Obj block format", "Log block format", "Footer").
 * Record keys are byte strings (see basics.bytesToKey).
 */
import {
  type ByteSource,
  type InputFile,
  bytesToKey,
  FormatError,
  BudgetError,
  Budget,
  type Finding,
  u24,
  u32,
  u64Safe,
  crc32,
  cursor,
  getVarint,
  toHex,
} from '../basics.ts';
import {
  type BlockType,
  type SectionName,
  TYPE_OF,
  LETTER,
  MAGIC,
  HEADER_SIZE_V1,
  HEADER_SIZE_V2,
  MAX_HEADER_SIZE,
  HASH_ID_SHA1,
  HASH_ID_S256,
  HASH_SIZE_SHA1,
  HASH_SIZE_S256,
  headerSize,
  footerSize,
  BLOCK_HEADER_SIZE,
  KEY_BYTES_BASE,
  KEY_BYTES_PER_FILE_BYTE,
  MIN_OBJ_ID_LEN,
  MAX_INDEX_DEPTH,
  LOG_KEY_SUFFIX,
} from './constants.ts';
import { parseKeyHead, keyHead } from './record.ts';
import { checkedRestarts, inflateLogBlock, restartAt } from './block.ts';

export type { BlockType, SectionName } from './constants.ts';
export { adler32 } from './block.ts';
export { KEY_BYTES_BASE, KEY_BYTES_PER_FILE_BYTE } from './constants.ts';

/** Parsed file header (spec "Header"). Sizes in bytes. */
export interface TableHeader {
  version: 1 | 2;
  /** 0 = unaligned. */
  blockSize: number;
  minUpdateIndex: number;
  maxUpdateIndex: number;
  hashId: 'sha1' | 's256';
  /** Object id length in bytes: 20 or 32. */
  hashSize: number;
  /** 24 (v1) or 28 (v2). */
  headerSize: number;
  /** 68 (v1) or 72 (v2). */
  footerSize: number;
}

/** Parsed footer (spec "Footer"). Positions are absolute byte offsets, 0 = section absent. */
export interface TableFooter {
  refIndexPosition: number;
  objPosition: number;
  objIdLen: number;
  objIndexPosition: number;
  logPosition: number;
  logIndexPosition: number;
  crc: number;
}

/** One block as found in the file. */
export interface BlockInfo {
  /** Absolute offset of the block's start (0 for the first block, which shares bytes with the header). */
  offset: number;
  type: BlockType;
  section: SectionName;
  /** The block_len field: bytes from `offset` to the end of the restart count (inflated size for log blocks). */
  blockLen: number;
  restartCount: number;
  recordCount: number;
  /** NUL bytes after the block up to the next block (aligned files). */
  padding: number;
  /** Bytes the block occupies in the file: block_len + padding, or header + compressed stream for log blocks. */
  fileBytes: number;
  /** Offset of the restart table within the block, as `dump-reftable -b` prints it ("length"). */
  restartTableOffset: number;
  /** First and last key of the block (byte strings). */
  firstKey: string;
  lastKey: string;
}

/** Record counts by kind (the `records` of the analysis). */
export interface RecordCounts {
  /** Ref records with one object id (value type 1). */
  ref: number;
  /** Ref records with an object id and its peeled id (value type 2). */
  peeled: number;
  symref: number;
  /** Deletion records (value type 0). */
  tombstone: number;
  /** Log records of type 1 (update). */
  log: number;
  /** Log records of type 0 (deletion). */
  logDeletion: number;
  /** Obj records and index records, for completeness. */
  obj: number;
  index: number;
}

/**
 * Every ref record of a table in key order, column-wise (no object per record).
 * Key `i` is the bytes `keyBytes[keyStart[i], keyStart[i + 1])`; `name(i)` gives it as a byte
 * string and `names` all of them (built on first use: a million strings cost memory and time, so
 * the engine's own passes compare bytes). `types[i]` is the value type 0..3; object ids are at
 * `oids.subarray(i*hashSize, (i+1)*hashSize)` (zeros for tombstones and symrefs).
 */
export interface RefColumns {
  count: number;
  /** Concatenated key bytes. */
  keyBytes: Uint8Array;
  /** Start of each key in `keyBytes`; `count + 1` entries. */
  keyStart: Uint32Array;
  /** Key `i` as a byte string (one char per byte). */
  name(i: number): string;
  /** All keys as byte strings, materialised on first access and cached. */
  readonly names: string[];
  types: Uint8Array;
  updateIndex: Float64Array;
  oids: Uint8Array;
  /** Peeled ids for value type 2, keyed by record index. */
  peeled: Map<number, Uint8Array>;
  /** Symref targets (byte strings) for value type 3, keyed by record index. */
  targets: Map<number, string>;
  /** Index of the block (in `Table.blocks`) that holds each record. */
  block: Uint32Array;
  /**
   * Optional: a lower bound of the common prefix of key `i` and key `i - 1` (the record's prefix
   * length in its block, capped at 255; 0 at restart points and block starts). The merge uses it
   * to compare each key with the previous one from there.
   */
  lcp?: Uint8Array;
}

/** Bytes per section, summing `fileBytes` of its blocks. */
export type SectionBytes = Record<SectionName, number>;

/** One fully parsed table. */
export interface Table {
  /** File name (last path component), e.g. `0x000000000001-0x000000000002-b2b25b17.ref`. */
  name: string;
  /** Path as given (used in error messages). */
  path: string;
  fileSize: number;
  header: TableHeader;
  footer: TableFooter;
  blocks: BlockInfo[];
  counts: RecordCounts;
  sectionBytes: SectionBytes;
  refs: RefColumns;
  /** Depth of the ref index (0 = none, 1 = single level, …). */
  refIndexLevels: number;
  findings: Finding[];
  source: ByteSource;
}

/** Read the header at the start of `b`. Throws `FormatError` on bad magic, version or hash id. */
export function parseHeader(file: string, b: Uint8Array): TableHeader {
  if (b.length < HEADER_SIZE_V1)
    throw new FormatError(file, b.length, `a reftable header of ${HEADER_SIZE_V1} bytes (file too short)`);
  if (b[0] !== MAGIC[0] || b[1] !== MAGIC[1] || b[2] !== MAGIC[2] || b[3] !== MAGIC[3]) {
    throw new FormatError(file, 0, "magic 'REFT'");
  }
  const version = b[4];
  if (version !== 1 && version !== 2) throw new FormatError(file, 4, `version 1 or 2, found ${version}`);
  const blockSize = u24(b, 5);
  const minUpdateIndex = u64Safe(b, 8, file, 0, 'min_update_index');
  const maxUpdateIndex = u64Safe(b, 16, file, 0, 'max_update_index');
  let hashId: 'sha1' | 's256' = 'sha1';
  if (version === 2) {
    if (b.length < HEADER_SIZE_V2)
      throw new FormatError(file, b.length, `a version 2 header of ${HEADER_SIZE_V2} bytes`);
    const h = u32(b, HEADER_SIZE_V1);
    if (h === HASH_ID_SHA1) hashId = 'sha1';
    else if (h === HASH_ID_S256) hashId = 's256';
    else throw new FormatError(file, 24, "hash id 'sha1' or 's256'");
  }
  if (minUpdateIndex > maxUpdateIndex) {
    throw new FormatError(file, 8, `min_update_index (${minUpdateIndex}) ≤ max_update_index (${maxUpdateIndex})`);
  }
  return {
    version,
    blockSize,
    minUpdateIndex,
    maxUpdateIndex,
    hashId,
    hashSize: hashId === 'sha1' ? HASH_SIZE_SHA1 : HASH_SIZE_S256,
    headerSize: headerSize(version),
    footerSize: footerSize(version),
  };
}

/** Read and verify the footer (CRC-32, header copy). `fb` is the footer's bytes, at file offset `base`. */
export function parseFooter(file: string, h: TableHeader, head: Uint8Array, fb: Uint8Array, base: number): TableFooter {
  const hs = h.headerSize;
  const crcPos = h.footerSize - 4;
  const crc = u32(fb, crcPos);
  const actual = crc32(fb, 0, crcPos);
  if (crc !== actual) {
    throw new FormatError(file, base + crcPos, `footer CRC-32 ${hex8(actual)}, found ${hex8(crc)}`);
  }
  for (let i = 0; i < hs; i++) {
    if (fb[i] !== head[i]) throw new FormatError(file, base + i, 'footer to repeat the header byte for byte');
  }
  const objWord = u64Safe(fb, hs + 8, file, base, 'obj position');
  const f: TableFooter = {
    refIndexPosition: u64Safe(fb, hs, file, base, 'ref_index_position'),
    objPosition: Math.floor(objWord / 32),
    objIdLen: objWord % 32,
    objIndexPosition: u64Safe(fb, hs + 16, file, base, 'obj_index_position'),
    logPosition: u64Safe(fb, hs + 24, file, base, 'log_position'),
    logIndexPosition: u64Safe(fb, hs + 32, file, base, 'log_index_position'),
    crc,
  };
  for (const [k, name, rel] of FOOTER_FIELDS) {
    const v = f[k];
    if (v !== 0 && (v < hs || v >= base)) {
      throw new FormatError(file, base + hs + rel, `${name} 0 or inside the blocks [${hs}, ${base}), found ${v}`);
    }
  }
  if (f.objPosition && (f.objIdLen < MIN_OBJ_ID_LEN || f.objIdLen > h.hashSize)) {
    throw new FormatError(
      file,
      base + hs + 8,
      `obj_id_len between ${MIN_OBJ_ID_LEN} and ${h.hashSize}, found ${f.objIdLen}`,
    );
  }
  return f;
}

/** Footer position fields: key, spec name, offset after the header copy. */
const FOOTER_FIELDS: [keyof TableFooter & `${string}Position`, string, number][] = [
  ['refIndexPosition', 'ref_index_position', 0],
  ['objPosition', 'obj_position', 8],
  ['objIndexPosition', 'obj_index_position', 16],
  ['logPosition', 'log_position', 24],
  ['logIndexPosition', 'log_index_position', 32],
];

function hex8(n: number): string {
  return '0x' + n.toString(16).padStart(8, '0');
}

/** Options for `openTable` (and `loadStack` / `analyzeFiles`, which pass them on). */
export interface OpenOptions {
  /** Decode log records (inflate log blocks). Default true. */
  logs?: boolean;
  /** Called with bytes done, for progress bars. */
  onProgress?: (bytesDone: number) => void;
  /**
   * Tables up to this many bytes are read into memory with one `read`; larger ones block by
   * block (never more than one block, or 16 KiB of a log block's compressed stream, at a time).
   * Default `WHOLE_READ_LIMIT`. 0 forces the sliced path.
   */
  wholeReadLimit?: number;
  /**
   * For a table read in slices (over `wholeReadLimit`): read the file this many bytes at a time
   * and serve the blocks from that window, instead of one read per block header, block and
   * padding (a million-ref table is some 19,000 reads otherwise). Default 0: one read per
   * block, never more than a block at a time.
   */
  readAhead?: number;
  /**
   * Build the ref columns (`Table.refs`). Default true. False checks every record exactly as
   * before but keeps nothing per record: `refs` is then empty (count 0) while `counts` and the
   * blocks are complete, for a caller that reads the ref blocks again itself (the CLI's `refs`
   * listing of a one-table stack: `refs.ts tableRefsLines`) and must not hold ~60 bytes per ref.
   */
  refColumns?: boolean;
  /**
   * Keep each ref's object id, peeled id, update index and block in the columns. Default true.
   * False leaves `refs.oids`, `refs.updateIndex` and `refs.block` empty and `refs.peeled` without
   * entries (every record is still checked and counted; keys, types, `lcp` and symref targets
   * are kept): for a caller that needs names and kinds only, such as the report of a one-table
   * stack (`refscope analyze`), 33 bytes per ref less.
   */
  ids?: boolean;
  /**
   * Time budget: a `Date.now()` time in ms. Past it, the analysis stops with a `BudgetError`
   * (a `FormatError`: file, offset where it stopped, "the analysis to finish before its
   * deadline"). Checked per block and every 65,536 records. Default: none.
   */
  deadline?: number;
  /**
   * Memory budget, as a number of decoded records (ref, index, obj and log records of every table
   * of the analysis together). More stops the analysis with a `BudgetError`. Default: none.
   */
  maxRecords?: number;
  /**
   * The repository's object format, when known (`extensions.objectFormat`): every table of a
   * stack must use it. Without it `loadStack` takes the first readable table's.
   */
  hashId?: 'sha1' | 's256';
  /**
   * Tables already parsed elsewhere (a helper worker, `tableFromTransfer`), by path: `loadStack`
   * takes these instead of parsing the file again, and counts their records in the budget.
   */
  preopened?: Map<string, Table>;
  /**
   * The budget state shared by the tables of one analysis. `loadStack` and `analyzeFiles` create
   * it from `deadline` and `maxRecords`; set it only to share one budget across several calls.
   */
  budget?: Budget;
}

/** A parsed table as plain data, to move between workers (see `tableToTransfer`). */
export interface TableTransfer {
  name: string;
  path: string;
  fileSize: number;
  header: TableHeader;
  footer: TableFooter;
  blocks: BlockInfo[];
  counts: RecordCounts;
  sectionBytes: SectionBytes;
  refIndexLevels: number;
  findings: Finding[];
  refs: {
    count: number;
    keyBytes: Uint8Array;
    keyStart: Uint32Array;
    types: Uint8Array;
    updateIndex: Float64Array;
    oids: Uint8Array;
    peeled: Map<number, Uint8Array>;
    targets: Map<number, string>;
    block: Uint32Array;
    lcp: Uint8Array | undefined;
  };
}

/**
 * `t` as plain data for `postMessage`, and the buffers of its columns to transfer (moved, not
 * copied). Everything but the byte source: the receiver gives its own to `tableFromTransfer`.
 */
export function tableToTransfer(t: Table): { table: TableTransfer; buffers: ArrayBuffer[] } {
  const r = t.refs;
  const refs: TableTransfer['refs'] = {
    count: r.count,
    keyBytes: r.keyBytes,
    keyStart: r.keyStart,
    types: r.types,
    updateIndex: r.updateIndex,
    oids: r.oids,
    peeled: r.peeled,
    targets: r.targets,
    block: r.block,
    lcp: r.lcp,
  };
  const buffers = new Set<ArrayBuffer>();
  for (const a of [r.keyBytes, r.keyStart, r.types, r.updateIndex, r.oids, r.block, r.lcp])
    if (a && a.buffer instanceof ArrayBuffer && a.buffer.byteLength > 0) buffers.add(a.buffer);
  const { source: _source, refs: _refs, ...rest } = t;
  void _source;
  void _refs;
  return { table: { ...rest, refs }, buffers: [...buffers] };
}

/** The table `tableToTransfer` sent, reading its bytes (later views, lazy values) from `source`. */
export function tableFromTransfer(x: TableTransfer, source: ByteSource): Table {
  const r = x.refs;
  const refs = new Columns(
    r.count,
    r.keyBytes,
    r.keyStart,
    r.types,
    r.updateIndex,
    r.oids,
    r.peeled,
    r.targets,
    r.block,
    r.lcp ?? new Uint8Array(r.count),
  );
  return { ...x, refs, source };
}

/** Size above which a table is read block by block instead of as one buffer (bytes). */
export const WHOLE_READ_LIMIT = 64 * 1024 * 1024;

/**
 * Open and fully parse one table: header, footer (CRC-32), every block and record.
 * Returns the table with its block list, record counts and ref records (columns).
 * Throws `FormatError` (file, offset, expectation) on the first structural error.
 * Tables up to `WHOLE_READ_LIMIT` are read into memory once; larger ones block by block.
 */
export function openTable(input: InputFile, opts: OpenOptions = {}): Table {
  const file = input.path;
  const src = input.source;
  const size = src.size;
  const head = src.read(0, Math.min(size, MAX_HEADER_SIZE));
  const h = parseHeader(file, head);
  if (size < h.headerSize + h.footerSize) {
    throw new FormatError(file, size, `at least ${h.headerSize + h.footerSize} bytes (header + footer), found ${size}`);
  }
  const footerBase = size - h.footerSize;
  const fb = src.read(footerBase, h.footerSize);
  if (fb.length !== h.footerSize) throw shortRead(file, footerBase, fb.length, h.footerSize);
  let footer: TableFooter;
  try {
    footer = parseFooter(file, h, head, fb, footerBase);
  } catch (e) {
    throw truncation(file, src, h, head) ?? e;
  }
  const budget = opts.budget ?? new Budget(opts.deadline, opts.maxRecords);
  budget.check(file, 0);
  let whole: Uint8Array | null = null;
  if (size <= (opts.wholeReadLimit ?? WHOLE_READ_LIMIT)) {
    whole = src.read(0, size);
    if (whole.length !== size) throw shortRead(file, 0, whole.length, size);
  }
  const p = new Parser(file, src, whole, h, footer, size, opts, budget);
  p.run();
  const name = file.split('/').pop() || file;
  return {
    name,
    path: file,
    fileSize: size,
    header: h,
    footer,
    blocks: p.blocks,
    counts: p.counts,
    sectionBytes: p.sectionBytes,
    refs: p.refsColumns(),
    refIndexLevels: p.refIndexLevels,
    findings: p.findings,
    source: src,
  };
}

/** What could be read of a table that does not open: the blocks before the first bad byte. */
export interface PartialTable {
  name: string;
  path: string;
  fileSize: number;
  /** Null when the header itself does not parse. */
  header: TableHeader | null;
  /** The blocks that parse, in file order, walked from the start without the footer. */
  blocks: BlockInfo[];
  /** Why the table does not open (as `openTable` throws it). */
  error: FormatError;
  /** The first problem the block walk met (where the readable blocks end), or null. */
  stop: FormatError | null;
  source: ByteSource;
}

/**
 * Read what parses of a table `openTable` refused with `error`: its blocks from the start, each
 * checked as `openTable` checks it, until the first one that does not parse, with sections
 * taken from the block types (the footer is not trusted). Never throws a `FormatError` (a budget
 * stop still ends the analysis).
 */
export function openPartial(input: InputFile, error: FormatError, opts: OpenOptions = {}): PartialTable {
  const file = input.path;
  const src = input.source;
  const size = src.size;
  const name = file.split('/').pop() || file;
  let h: TableHeader;
  const out: PartialTable = {
    name,
    path: file,
    fileSize: size,
    header: null,
    blocks: [],
    error,
    stop: null,
    source: src,
  };
  try {
    h = parseHeader(file, src.read(0, Math.min(size, MAX_HEADER_SIZE)));
  } catch (e) {
    if (!(e instanceof FormatError) || e instanceof BudgetError) throw e;
    out.stop = e;
    return out;
  }
  out.header = h;
  const budget = opts.budget ?? new Budget(opts.deadline, opts.maxRecords);
  const noFooter: TableFooter = {
    refIndexPosition: 0,
    objPosition: 0,
    objIdLen: 0,
    objIndexPosition: 0,
    logPosition: 0,
    logIndexPosition: 0,
    crc: 0,
  };
  const whole = size <= (opts.wholeReadLimit ?? WHOLE_READ_LIMIT) ? src.read(0, size) : null;
  // The blocks end where the footer would start; a footer cut short leaves less than that.
  const end =
    error instanceof TruncatedError
      ? error.footerAt >= 0
        ? error.footerAt
        : size
      : Math.max(h.headerSize, size - h.footerSize);
  // Nothing at or after the error's byte is walked: the block holding it is not decoded again
  // (a crafted block can cost seconds and its size in names), nor are the blocks after it (an
  // index chain of 100,000 levels refused at its 65th).
  const cap = error.offset > h.headerSize && error.offset < end ? error.offset : end;
  const p = new Parser(file, src, whole, h, noFooter, size, { ...opts, onProgress: undefined }, budget);
  try {
    const first = TYPE_OF[p.bytes(h.headerSize, 1)[0]];
    if (first) p.walkSection(first === 'index' ? 'ref' : first, 0, cap, true);
    if (cap < end) out.stop = error;
  } catch (e) {
    if (!(e instanceof FormatError) || e instanceof BudgetError) throw e;
    out.stop = cap < end ? error : e;
  }
  out.blocks = p.blocks;
  return out;
}

/**
 * A table cut short: the footer does not validate and the last footer-sized bytes do not start
 * with the header copy a footer begins with (spec "Footer"). `size` is what the file has;
 * `expectedSize` the size the table had when a footer's start (the header copy) is found cut in
 * the tail, else null ("footer missing").
 */
export class TruncatedError extends FormatError {
  constructor(
    file: string,
    readonly size: number,
    readonly expectedSize: number | null,
    readonly footerAt: number,
  ) {
    super(
      file,
      size,
      expectedSize !== null
        ? `a complete table: truncated: ${size.toLocaleString('en-US')} of ${expectedSize.toLocaleString('en-US')} bytes (the footer starting at ${footerAt} is cut)`
        : `a complete table: truncated: ${size.toLocaleString('en-US')} bytes and the footer missing (no footer at the end)`,
    );
    this.name = 'TruncatedError';
  }
}

/**
 * When a footer fails to validate: a `TruncatedError` if the file looks cut (its tail is not a
 * footer: it does not start with the header copy), else null (a damaged footer, reported as is).
 */
function truncation(file: string, src: ByteSource, h: TableHeader, head: Uint8Array): TruncatedError | null {
  const size = src.size;
  const tailAt = Math.max(0, size - h.footerSize);
  const tail = src.read(tailAt, size - tailAt);
  const hs = h.headerSize;
  const copyAt = (p: number): boolean => {
    for (let i = 0; i < hs && p + i < tail.length; i++) if (tail[p + i] !== head[i]) return false;
    return true;
  };
  // A footer whose CRC holds, or that starts with the magic, is a damaged footer, not a cut.
  if (tail.length === h.footerSize && crc32(tail, 0, h.footerSize - 4) === u32(tail, h.footerSize - 4)) return null;
  if (tail[0] === MAGIC[0] && tail[1] === MAGIC[1] && tail[2] === MAGIC[2] && tail[3] === MAGIC[3]) return null;
  // A footer cut short: its start (the header copy, at least the magic) in the tail.
  for (let p = 1; p + MAGIC.length <= tail.length; p++) {
    if (copyAt(p)) return new TruncatedError(file, size, tailAt + p + h.footerSize, tailAt + p);
  }
  return new TruncatedError(file, size, null, -1);
}

function shortRead(file: string, off: number, got: number, want: number): FormatError {
  return new FormatError(
    file,
    off + got,
    `${want} readable bytes at offset ${off}, got ${got} (the file changed while being read?)`,
  );
}

/**
 * Section boundaries from the footer: sorted starts, each section ends where the next begins.
 * The ref section, when the first block is a ref block, starts at 0. A log-only table (first
 * block a log block) has `log_position` 0 as git writes it, its log section then starts at 0
 * (git's reader: `log_offsets.is_present = first_block_typ == BLOCK_TYPE_LOG || offset > 0`).
 */
export function sectionRanges(
  h: TableHeader,
  f: TableFooter,
  size: number,
  firstType: number,
): { name: SectionName; start: number; end: number }[] {
  const starts: { name: SectionName; start: number }[] = [];
  const hasRefs = firstType === LETTER.ref;
  if (hasRefs) starts.push({ name: 'ref', start: 0 });
  else if (firstType === LETTER.log && !f.logPosition) starts.push({ name: 'log', start: 0 });
  if (f.refIndexPosition) starts.push({ name: 'refIndex', start: f.refIndexPosition });
  if (f.objPosition) starts.push({ name: 'obj', start: f.objPosition });
  if (f.objIndexPosition) starts.push({ name: 'objIndex', start: f.objIndexPosition });
  if (f.logPosition) starts.push({ name: 'log', start: f.logPosition });
  if (f.logIndexPosition) starts.push({ name: 'logIndex', start: f.logIndexPosition });
  starts.sort((a, b) => a.start - b.start);
  const end = size - h.footerSize;
  return starts.map((s, i) => ({ ...s, end: i + 1 < starts.length ? starts[i + 1].start : end }));
}

const INDEX_OF: Record<SectionName, SectionName> = {
  ref: 'refIndex',
  refIndex: 'refIndex',
  obj: 'objIndex',
  objIndex: 'objIndex',
  log: 'logIndex',
  logIndex: 'logIndex',
};
const EXPECTED_TYPE: Record<SectionName, BlockType> = {
  ref: 'ref',
  refIndex: 'index',
  obj: 'obj',
  objIndex: 'index',
  log: 'log',
  logIndex: 'index',
};

/**
 * The most the ref columns (or the key arena) may grow by in one step beyond 4× (64 MiB): enough
 * to go from the first few blocks straight to the predicted size for tables of up to about 1.7
 * million refs, without copying through intermediate sizes.
 */
const JUMP_BYTES = 64 * 1024 * 1024;

/** Growable column storage for ref records. */
class RefBuilder {
  count = 0;
  keys: Uint8Array;
  keyLen = 0;
  keyStart: Uint32Array;
  types: Uint8Array;
  upd: Float64Array;
  oids: Uint8Array;
  block: Uint32Array;
  lcp: Uint8Array;
  peeled = new Map<number, Uint8Array>();
  targets = new Map<number, string>();
  /** Peeled ids are views into shared chunks (one ArrayBuffer per 4,096 ids, not one per id). */
  peeledChunk = new Uint8Array(0);
  peeledAt = 0;
  /**
   * `capacity`: records to allocate up front (at least 16). `ids` false: no id, update index or
   * block columns (`OpenOptions.ids`); they stay empty.
   */
  constructor(
    public hashSize: number,
    capacity: number,
    readonly ids = true,
  ) {
    const cap = Math.max(16, capacity);
    const idCap = ids ? cap : 0;
    this.types = new Uint8Array(cap);
    this.keyStart = new Uint32Array(cap + 1);
    this.keys = new Uint8Array(Math.max(1024, cap * 16));
    this.upd = new Float64Array(idCap);
    this.block = new Uint32Array(idCap);
    this.lcp = new Uint8Array(cap);
    this.oids = new Uint8Array(idCap * hashSize);
  }
  /** Bytes the record columns take per record (the key arena aside). */
  get recordBytes(): number {
    return 1 + 4 + 1 + (this.ids ? 8 + 4 + this.hashSize : 0);
  }
  /**
   * Grow the record columns, to `predicted` records (the parser's estimate from the part of the
   * ref section read so far) but by at least a quarter, and in one step to at most 4× what they
   * hold, 2^18 records, or `JUMP_BYTES` of columns when the ref section (`sectionBytes`, real
   * bytes of the input) is large enough to need them. A damaged file claiming a huge ref section
   * thus gets at most that before its records fill what it got.
   */
  grow(need: number, predicted: number, sectionBytes: number): void {
    const old = this.types.length;
    const bound = Math.max(old * 4, 1 << 18, Math.floor(Math.min(2 * sectionBytes, JUMP_BYTES) / this.recordBytes));
    const cap = Math.max(need, Math.min(bound, Math.max(Math.ceil(old * 1.25), predicted)));
    const n = this.count;
    const t = new Uint8Array(cap);
    t.set(this.types.subarray(0, n));
    this.types = t;
    const ks = new Uint32Array(cap + 1);
    ks.set(this.keyStart.subarray(0, n + 1));
    this.keyStart = ks;
    const lc = new Uint8Array(cap);
    lc.set(this.lcp.subarray(0, n));
    this.lcp = lc;
    if (!this.ids) return;
    const u = new Float64Array(cap);
    u.set(this.upd.subarray(0, n));
    this.upd = u;
    const bl = new Uint32Array(cap);
    bl.set(this.block.subarray(0, n));
    this.block = bl;
    const o = new Uint8Array(cap * this.hashSize);
    o.set(this.oids.subarray(0, n * this.hashSize));
    this.oids = o;
  }
  /** Grow the key arena to hold at least `need` bytes (to `predicted`, bounded as `grow` is). */
  growKeys(need: number, predicted: number, sectionBytes: number, limit = Infinity): void {
    const old = this.keys.length;
    const bound = Math.max(old * 4, 1 << 23, Math.min(2 * sectionBytes, JUMP_BYTES));
    // Never past the table's name budget (`KEY_BYTES_*`): a bomb is refused at the budget, not
    // after allocating a multiple of it.
    const cap = Math.min(
      Math.max(need + 4096, Math.min(bound, Math.max(Math.ceil(old * 1.25), predicted))),
      Math.max(need, limit),
    );
    const k = new Uint8Array(cap);
    k.set(this.keys.subarray(0, this.keyLen));
    this.keys = k;
  }
  /** Record `i`'s peeled id: bytes [pos, pos + hashSize) of `blk`, copied. */
  addPeeled(i: number, blk: Uint8Array, pos: number): void {
    const hs = this.hashSize;
    if (this.peeledAt + hs > this.peeledChunk.length) {
      this.peeledChunk = new Uint8Array(4096 * hs);
      this.peeledAt = 0;
    }
    const c = this.peeledChunk,
      at = this.peeledAt;
    for (let j = 0; j < hs; j++) c[at + j] = blk[pos + j];
    this.peeled.set(i, c.subarray(at, at + hs));
    this.peeledAt = at + hs;
  }
  /**
   * Drop unused capacity so the table does not keep it alive: more than an eighth of the record
   * columns, more than a quarter of the key arena (whose size is harder to predict: key lengths
   * differ between namespaces, and a copy of it costs about 0.5 ms per MB).
   */
  trim(): void {
    const n = this.count,
      hs = this.hashSize;
    if (this.types.length - n > this.types.length >> 3) {
      this.types = this.types.slice(0, n);
      this.keyStart = this.keyStart.slice(0, n + 1);
      if (this.ids) {
        this.upd = this.upd.slice(0, n);
        this.block = this.block.slice(0, n);
        this.oids = this.oids.slice(0, n * hs);
      }
      this.lcp = this.lcp.slice(0, n);
    }
    if (this.keys.length - this.keyLen > this.keys.length >> 2) this.keys = this.keys.slice(0, this.keyLen);
  }
}

/**
 * `bytesToKey` that always makes a flat string. Appending char by char makes a rope (a cons
 * string) as soon as the key reaches 13 characters: a million ref names then take about 320
 * bytes each instead of about 40, and every later comparison flattens them. One
 * `String.fromCharCode` call over the bytes makes the flat string directly.
 */
export function keyString(b: Uint8Array, start: number, end: number): string {
  const n = end - start;
  if (n < 13) {
    let s = '';
    for (let i = start; i < end; i++) s += String.fromCharCode(b[i]);
    return s;
  }
  if (n <= 8192) return String.fromCharCode.apply(null, b.subarray(start, end) as unknown as number[]);
  return bytesToKey(b, start, end);
}

/** `RefColumns` over a builder's arrays (see the interface). */
class Columns implements RefColumns {
  private cache: string[] | null = null;
  constructor(
    readonly count: number,
    readonly keyBytes: Uint8Array,
    readonly keyStart: Uint32Array,
    readonly types: Uint8Array,
    readonly updateIndex: Float64Array,
    readonly oids: Uint8Array,
    readonly peeled: Map<number, Uint8Array>,
    readonly targets: Map<number, string>,
    readonly block: Uint32Array,
    readonly lcp: Uint8Array,
  ) {}
  name(i: number): string {
    if (this.cache) return this.cache[i];
    return keyString(this.keyBytes, this.keyStart[i], this.keyStart[i + 1]);
  }
  get names(): string[] {
    if (!this.cache) {
      const out = new Array<string>(this.count);
      const kb = this.keyBytes,
        ks = this.keyStart;
      for (let i = 0; i < this.count; i++) out[i] = keyString(kb, ks[i], ks[i + 1]);
      this.cache = out;
    }
    return this.cache;
  }
}

/** Scratch buffer for the key being decoded (grows to the longest key seen). */
let scratchKey = new Uint8Array(4096);

/** Canonical order of the sections in a file (spec "File format"). */
const SECTION_RANK: Record<SectionName, number> = { ref: 0, refIndex: 1, obj: 2, objIndex: 3, log: 4, logIndex: 5 };
/** The footer field naming each section's start (the ref section has none: it starts at 0). */
const SECTION_FIELD: Record<SectionName, [string, number]> = {
  ref: ['first block type', -1],
  refIndex: ['ref_index_position', 0],
  obj: ['obj_position', 8],
  objIndex: ['obj_index_position', 16],
  log: ['log_position', 24],
  logIndex: ['log_index_position', 32],
};
/** Records decoded between two budget checks inside one block. */
const BUDGET_STRIDE = 0xffff;
/** The platform's byte order (typed arrays use it). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Blocks walked between two progress calls. */
const PROGRESS_BLOCKS = 64;

/**
 * The key walk of one index, obj or log block (spec "Blocks": each key is `prefix_length` bytes
 * of the previous key plus a suffix; restart points start a full key): decodes each record's key
 * into `kb[0, klen)` with every check git's reader makes or relies on (reftable/block.c
 * `block_iter_next`, reftable/record.c `reftable_decode_key`) and leaves `pos` at the record's
 * value, for the caller to decode and move past. Ref blocks have their own tight loop
 * (`Parser.decodeRefBlock`) with the same checks and messages.
 */
class KeyWalk {
  /** Where the next record starts (the caller sets it after decoding the value). */
  pos: number;
  /** Records whose key has been decoded. */
  n = 0;
  /** The current key: `kb[0, klen)` (a shared scratch buffer, grown as needed). */
  kb = scratchKey;
  klen = 0;
  /** The current record's start and value type. */
  recStart = 0;
  valueType = 0;
  private ri = 0;
  private nextRestart: number;

  constructor(
    readonly file: string,
    readonly blk: Uint8Array,
    readonly base: number,
    first: number,
    readonly rt: number,
    readonly rc: number,
  ) {
    this.pos = first;
    this.nextRestart = restartAt(blk, rt, 0);
  }

  /** Decode the next record's key; false at the restart table. Throws `FormatError` on a bad key. */
  next(): boolean {
    const { file, blk, base, rt } = this;
    if (this.pos >= rt) return false;
    const recStart = this.pos;
    this.recStart = recStart;
    let pos = parseKeyHead(blk, recStart, rt);
    if (pos < 0) throw varintError(file, base + keyHead.errorAt, pos);
    const prefix = keyHead.prefix,
      slen = keyHead.suffixLen;
    const klen = this.klen;
    this.valueType = keyHead.valueType;
    if (prefix > klen)
      throw new FormatError(file, base + recStart, `prefix length ≤ previous key length ${klen}, found ${prefix}`);
    if (recStart === this.nextRestart) {
      if (prefix !== 0)
        throw new FormatError(file, base + recStart, `prefix length 0 at a restart point, found ${prefix}`);
      this.ri++;
      this.nextRestart = this.ri < this.rc ? restartAt(blk, rt, this.ri) : -1;
    } else if (this.n === 0) {
      throw new FormatError(file, base + recStart, 'the first record of a block at a restart point');
    } else if (this.nextRestart !== -1 && recStart > this.nextRestart) {
      throw new FormatError(
        file,
        base + rt + 3 * this.ri,
        `restart offset ${this.ri} at a record boundary, found ${this.nextRestart}`,
      );
    }
    if (pos + slen > rt)
      throw new FormatError(file, base + pos, `key suffix of ${slen} bytes inside the records (${rt - pos} left)`);
    let kb = this.kb;
    // New key = previous key[0, prefix) + suffix; it must sort after the previous key, which
    // (sharing the prefix) is decided by the suffix against the previous key's rest.
    if (this.n > 0) {
      const rest = klen - prefix;
      const m = slen < rest ? slen : rest;
      let c = 0;
      for (let j = 0; j < m; j++) {
        c = blk[pos + j] - kb[prefix + j];
        if (c !== 0) break;
      }
      if (c === 0) c = slen - rest;
      if (c <= 0)
        throw new FormatError(file, base + recStart, 'keys strictly increasing (this key after the previous one)');
    }
    if (prefix + slen > kb.length) {
      const bigger = new Uint8Array(Math.max(kb.length * 2, prefix + slen));
      bigger.set(kb.subarray(0, prefix));
      scratchKey = this.kb = kb = bigger;
    }
    for (let j = 0; j < slen; j++) kb[prefix + j] = blk[pos + j];
    this.klen = prefix + slen;
    pos += slen;
    this.pos = pos;
    this.n++;
    return true;
  }

  /** After the last record: every restart offset was a record boundary. */
  finish(): void {
    if (this.ri !== this.rc)
      throw new FormatError(
        this.file,
        this.base + this.rt + 3 * this.ri,
        `restart offset ${this.ri} at a record boundary, found ${this.nextRestart}`,
      );
  }
}

/** The block walk and record decoder for one table. */
class Parser {
  blocks: BlockInfo[] = [];
  counts: RecordCounts = { ref: 0, peeled: 0, symref: 0, tombstone: 0, log: 0, logDeletion: 0, obj: 0, index: 0 };
  sectionBytes: SectionBytes = { ref: 0, refIndex: 0, obj: 0, objIndex: 0, log: 0, logIndex: 0 };
  findings: Finding[] = [];
  refIndexLevels = 0;
  rb: RefBuilder;
  /** Offsets of ref blocks (for checking index and obj positions). */
  refBlockOffsets = new Set<number>();
  /** Ref blocks so far, and whether block i starts at i × block size (git's padded layout). */
  refBlockCount = 0;
  refAligned = true;
  /** The ref section's byte range (for the column capacity estimates). */
  refStart = 0;
  refEnd = 0;
  blockTypeAt = new Map<number, BlockType>();
  sectionAt = new Map<number, SectionName>();
  /** Index of each block in `blocks`, by offset. */
  blockAt = new Map<number, number>();
  /** Per index block (by offset): its records' block positions, file offsets and keys. */
  indexChildren = new Map<number, { pos: number[]; at: number[]; keyOk: boolean[] }>();
  /** Height of each index block walked so far (by offset), for the depth bound during the walk. */
  indexHeight = new Map<number, number>();

  constructor(
    readonly file: string,
    readonly src: ByteSource,
    readonly whole: Uint8Array | null,
    readonly h: TableHeader,
    readonly f: TableFooter,
    readonly size: number,
    readonly opts: OpenOptions,
    readonly budget: Budget,
  ) {
    this.rb = new RefBuilder(h.hashSize, 0);
    this.lean = opts.refColumns === false;
    this.readAhead = whole ? 0 : Math.max(0, opts.readAhead ?? 0);
  }

  /** `OpenOptions.refColumns` false: the columns hold one block's records at a time. */
  readonly lean: boolean;
  /** Key bytes of the blocks before the current one, in lean mode (for the name budget). */
  leanKeyBytes = 0;
  /** `OpenOptions.readAhead`, and the window of the file it last read (at file offset `winAt`). */
  readonly readAhead: number;
  win: Uint8Array | null = null;
  winAt = 0;

  /** Bytes [off, off+len) of the file (clamped to its end), from the whole buffer or a slice read. */
  bytes(off: number, len: number): Uint8Array {
    const want = Math.max(0, Math.min(len, this.size - off));
    if (!this.whole && want <= this.readAhead) {
      // From the read-ahead window, reading the next one when the bytes are not all in it. A
      // window is never reused: views of an older one stay valid.
      let w = this.win;
      if (!w || off < this.winAt || off + want > this.winAt + w.length) {
        const n = Math.min(this.readAhead, this.size - off);
        w = this.src.read(off, n);
        if (w.length < want) throw shortRead(this.file, off, w.length, want);
        this.win = w;
        this.winAt = off;
      }
      return w.subarray(off - this.winAt, off - this.winAt + want);
    }
    const b = this.whole ? this.whole.subarray(off, off + want) : this.src.read(off, want);
    if (b.length !== want) throw shortRead(this.file, off, b.length, want);
    return b;
  }

  refsColumns(): RefColumns {
    if (this.lean) this.rb = new RefBuilder(this.h.hashSize, 0);
    const r = this.rb;
    r.trim();
    const n = r.count;
    return new Columns(
      n,
      r.keys.subarray(0, r.keyLen),
      r.keyStart.subarray(0, n + 1),
      r.types.subarray(0, n),
      r.upd.subarray(0, n),
      r.oids.subarray(0, n * r.hashSize),
      r.peeled,
      r.targets,
      r.block.subarray(0, n),
      r.lcp.subarray(0, n),
    );
  }

  run(): void {
    const { h, f, size, file } = this;
    const footerBase = size - h.footerSize;
    const firstType = this.bytes(h.headerSize, 1)[0];
    const sections = sectionRanges(h, f, size, firstType);
    if (sections.length === 0 && footerBase > h.headerSize) {
      throw new FormatError(
        file,
        h.headerSize,
        `block type 'r' or 'g' after the header, found 0x${firstType.toString(16)}`,
      );
    }
    if (sections.length && sections[0].start !== 0 && sections[0].start !== h.headerSize) {
      const [name, rel] = SECTION_FIELD[sections[0].name];
      throw new FormatError(
        file,
        footerBase + h.headerSize + rel,
        `the first section (${name}) to start right after the header at ${h.headerSize}, found ${sections[0].start}`,
      );
    }
    const present = new Set(sections.map((s) => s.name));
    for (const [idx, leaf] of [
      ['refIndex', 'ref'],
      ['objIndex', 'obj'],
      ['logIndex', 'log'],
    ] as [SectionName, SectionName][]) {
      if (present.has(idx) && !present.has(leaf)) {
        const [name, rel] = SECTION_FIELD[idx];
        throw new FormatError(file, footerBase + h.headerSize + rel, `${name} 0 when the table has no ${leaf} section`);
      }
    }
    for (let i = 1; i < sections.length; i++) {
      if (SECTION_RANK[sections[i].name] < SECTION_RANK[sections[i - 1].name]) {
        const [name, rel] = SECTION_FIELD[sections[i].name];
        throw new FormatError(
          file,
          footerBase + h.headerSize + rel,
          `sections in the order ref, ref index, obj, obj index, log, log index (${name} ${sections[i].start} is after ${SECTION_FIELD[sections[i - 1].name][0]} ${sections[i - 1].start})`,
        );
      }
    }
    // The ref columns start small and grow to the size predicted from the part of the ref section
    // read so far (`predict`, at most 4× per step: a damaged file claiming a huge ref section does
    // not allocate for it before its blocks are read). Starting small also makes the first growths
    // happen while the decoder still runs unoptimized, so its optimized code is not thrown away
    // when a growth happens later.
    const refSection = sections.find((s) => s.name === 'ref');
    if (refSection) {
      // At most 4,096 records up front (one per 8 bytes of a smaller ref section: a tiny table
      // listed 200,000 times must not allocate 200,000 × 4,096 records).
      this.rb = new RefBuilder(
        h.hashSize,
        Math.min(4096, Math.ceil((refSection.end - refSection.start) / 8)),
        !this.lean && this.opts.ids !== false,
      );
      this.refStart = refSection.start;
      this.refEnd = refSection.end;
    }
    for (const s of sections) {
      if (s.end <= s.start) throw new FormatError(file, s.start, `section ${s.name} to be non-empty`);
      this.walkSection(s.name, s.start, s.end);
      this.opts.onProgress?.(s.end);
    }
    this.checkIndexes(sections);
  }

  /**
   * `free`: no footer says where sections start (a partial read of a damaged table): a block of
   * another leaf type starts that type's section, an index block the current section's index.
   */
  walkSection(section: SectionName, start: number, end: number, free = false): void {
    const { h, file } = this;
    let want = EXPECTED_TYPE[section];
    let off = start;
    let prevLastKey: string | null = null;
    const onProgress = this.opts.onProgress;
    let sinceProgress = 0;
    while (off < end) {
      this.budget.check(file, off);
      // Progress every PROGRESS_BLOCKS blocks (about 256 KiB of 4 KiB blocks): a big section
      // must not leave a progress bar still for long.
      if (onProgress && ++sinceProgress === PROGRESS_BLOCKS) {
        sinceProgress = 0;
        onProgress(off);
      }
      const hdrAt = off === 0 ? h.headerSize : off;
      if (hdrAt + 4 > end)
        throw new FormatError(file, hdrAt, `a 4-byte block header before ${section} section end ${end}`);
      const bh = this.bytes(hdrAt, 4);
      const type = TYPE_OF[bh[0]];
      if (type === 'index' && want !== 'index' && off > start) {
        // Lower index levels sit between the leaf blocks and the root that the footer names
        // (git and JGit write them so): from here on the blocks are this section's index.
        section = INDEX_OF[section];
        want = 'index';
      }
      if (free && type && type !== want && type !== 'index') {
        section = type;
        want = type;
        prevLastKey = null;
      }
      if (type !== want) {
        throw new FormatError(
          file,
          hdrAt,
          `block type '${String.fromCharCode(LETTER[want])}' (${want}) in the ${section} section, found 0x${bh[0].toString(16)}`,
        );
      }
      const blockLen = u24(bh, 1);
      let info: BlockInfo;
      if (type === 'log') {
        info = this.logBlock(off, hdrAt, blockLen, end, section);
      } else {
        if (blockLen < hdrAt - off + 4 + 2)
          throw new FormatError(file, hdrAt + 1, `block_len ≥ ${hdrAt - off + 6}, found ${blockLen}`);
        if (h.blockSize && blockLen > h.blockSize)
          throw new FormatError(file, hdrAt + 1, `block_len ≤ block size ${h.blockSize}, found ${blockLen}`);
        if (off + blockLen > end)
          throw new FormatError(
            file,
            hdrAt + 1,
            `block_len within the ${section} section (ends at ${end}), found ${blockLen}`,
          );
        const blk = this.bytes(off, blockLen);
        info = this.decodeBlock(blk, off, hdrAt - off, blockLen, type, section);
        // Padding: NUL bytes up to the next block (aligned) or none (unaligned).
        let next = off + blockLen;
        const limit = h.blockSize ? Math.min(end, off + h.blockSize) : end;
        if (h.blockSize && next < limit) {
          const pad = this.bytes(next, limit - next);
          let k = 0;
          while (k < pad.length && pad[k] === 0) k++;
          next += k;
        }
        info.padding = next - off - blockLen;
        info.fileBytes = next - off;
      }
      if (type !== 'index' && prevLastKey !== null && !(prevLastKey < info.firstKey)) {
        throw new FormatError(
          file,
          type === 'log' ? hdrAt : hdrAt + 4,
          `keys increasing across blocks (this block's first key after the previous block's last key)`,
        );
      }
      prevLastKey = info.lastKey;
      this.blockAt.set(off, this.blocks.length);
      this.blocks.push(info);
      this.blockTypeAt.set(off, type);
      this.sectionAt.set(off, info.section);
      if (type === 'ref') {
        this.refBlockOffsets.add(off);
        if (off !== this.refBlockCount * h.blockSize) this.refAligned = false;
        this.refBlockCount++;
      }
      this.sectionBytes[section] += info.fileBytes;
      off += info.fileBytes;
    }
  }

  /** Restart table bounds and checks (block.ts `checkedRestarts`). Returns [restartCount, restartTableStart(rel)]. */
  restarts(blk: Uint8Array, base: number, firstRec: number, blockLen: number): [number, number] {
    return checkedRestarts(this.file, blk, base, firstRec, blockLen);
  }

  /** Estimated final value of `x` (records or key bytes so far) when `at` bytes of the ref section are done. */
  predict(x: number, at: number): number {
    const done = Math.max(1, at - this.refStart);
    const total = Math.max(done, this.refEnd - this.refStart);
    return Math.ceil(((x * total) / done) * 1.03) + 1024;
  }

  /** The record budget, checked inside big blocks. */
  spend(n: number, at: number): void {
    this.budget.records += n;
    this.budget.check(this.file, at);
  }

  /**
   * Decode every record of a ref, index or obj block. `blk` holds the block's block_len bytes
   * (for the first block, from file byte 0). `hoff` is the block header's offset within `blk`.
   */
  decodeBlock(
    blk: Uint8Array,
    base: number,
    hoff: number,
    blockLen: number,
    type: BlockType,
    section: SectionName,
  ): BlockInfo {
    if (type === 'ref') return this.decodeRefBlock(blk, base, hoff, blockLen, section);
    if (type === 'obj') return this.decodeObjBlock(blk, base, hoff, blockLen, section);
    const file = this.file;
    const firstRec = hoff + 4;
    const [rc, rt] = this.restarts(blk, base, firstRec, blockLen);
    const kw = new KeyWalk(file, blk, base, firstRec, rt, rc);
    let firstKey = '';
    // Index blocks only here (ref and obj blocks have their own loops).
    const children = { pos: [] as number[], at: [] as number[], keyOk: [] as boolean[] };
    let height = 1;
    let spent = 0;
    while (kw.next()) {
      const recStart = kw.recStart;
      if (kw.n - 1 - spent === BUDGET_STRIDE) {
        this.spend(kw.n - 1 - spent, base + recStart);
        spent = kw.n - 1;
      }
      let pos = kw.pos;
      const vtype = kw.valueType;
      const kb = kw.kb,
        klen = kw.klen;
      if (kw.n === 1) firstKey = keyString(kb, 0, klen);
      if (children) {
        if (vtype !== 0) throw new FormatError(file, base + recStart, `index record value type 0, found ${vtype}`);
        const bp = getVarint(blk, pos, rt);
        if (bp < 0) throw varintError(file, base + pos, bp);
        if (bp === base)
          throw new FormatError(file, base + pos, `index position pointing at another block, not itself (${bp})`);
        children.pos.push(bp);
        children.at.push(base + pos);
        // The depth bound, checked as the blocks are walked (a lower level is always earlier):
        // an index of 100,000 levels stops at its 65th, not after all of them are decoded.
        const below = this.sectionAt.get(bp) === section ? this.indexHeight.get(bp) : undefined;
        if (below !== undefined && below + 1 > height) {
          height = below + 1;
          if (height > MAX_INDEX_DEPTH)
            throw new FormatError(file, base + pos, `index depth ≤ ${MAX_INDEX_DEPTH} levels`);
        }
        // Whether the key is the last key of the block it points at, compared now in bytes (the
        // block, always earlier in the file, is parsed): no string per index record, so an
        // index block whose keys prefix compression blows up holds nothing.
        const ci = this.blockAt.get(bp);
        const lk = ci === undefined ? null : this.blocks[ci].lastKey;
        let same = lk !== null && lk.length === klen;
        for (let j = 0; same && j < klen; j++) same = lk!.charCodeAt(j) === kb[j];
        children.keyOk.push(same);
        pos = cursor.pos;
        this.counts.index++;
      }
      kw.pos = pos;
    }
    kw.finish();
    const n = kw.n;
    this.spend(n - spent, base);
    if (children) {
      this.indexChildren.set(base, children);
      this.indexHeight.set(base, height);
    }
    return {
      offset: base,
      type,
      section,
      blockLen,
      restartCount: rc,
      recordCount: n,
      padding: 0,
      fileBytes: blockLen,
      // One string when the block has one record (tiny blocks: the key once, not twice).
      restartTableOffset: rt,
      firstKey,
      lastKey: n === 1 ? firstKey : keyString(kw.kb, 0, kw.klen),
    };
  }

  /**
   * `decodeBlock` for an obj block: the key checks of `KeyWalk` in the same order with the same
   * messages, and the obj record's positions, in one loop over locals (a table of a million refs has
   * about a million obj records, one per distinct object id: the walk's per-record field traffic
   * was a third of the table's decoding). The key is decoded into the shared scratch buffer, which
   * only the order check reads.
   */
  decodeObjBlock(blk: Uint8Array, base: number, hoff: number, blockLen: number, section: SectionName): BlockInfo {
    const file = this.file;
    const firstRec = hoff + 4;
    const [rc, rt] = this.restarts(blk, base, firstRec, blockLen);
    // Obj positions must start ref blocks: in git's padded layout block i starts at i × block
    // size, an arithmetic test; otherwise the set of ref block offsets.
    const bs = this.h.blockSize;
    const aligned = this.refAligned && bs > 0;
    const refLimit = this.refBlockCount * bs;
    const offsets = this.refBlockOffsets;
    let kb = scratchKey;
    let klen = 0;
    let pos = firstRec;
    let n = 0,
      ri = 0,
      spent = 0;
    let firstKey = '';
    let nextRestart = restartAt(blk, rt, 0);
    while (pos < rt) {
      const recStart = pos;
      if (n - spent === BUDGET_STRIDE) {
        this.spend(n - spent, base + recStart);
        spent = n;
      }
      pos = parseKeyHead(blk, pos, rt);
      if (pos < 0) throw varintError(file, base + keyHead.errorAt, pos);
      const prefix = keyHead.prefix,
        slen = keyHead.suffixLen;
      const vtype = keyHead.valueType;
      if (prefix > klen)
        throw new FormatError(file, base + recStart, `prefix length ≤ previous key length ${klen}, found ${prefix}`);
      if (recStart === nextRestart) {
        if (prefix !== 0)
          throw new FormatError(file, base + recStart, `prefix length 0 at a restart point, found ${prefix}`);
        ri++;
        nextRestart = ri < rc ? restartAt(blk, rt, ri) : -1;
      } else if (n === 0) {
        throw new FormatError(file, base + recStart, 'the first record of a block at a restart point');
      } else if (nextRestart !== -1 && recStart > nextRestart) {
        throw new FormatError(
          file,
          base + rt + 3 * ri,
          `restart offset ${ri} at a record boundary, found ${nextRestart}`,
        );
      }
      if (pos + slen > rt)
        throw new FormatError(file, base + pos, `key suffix of ${slen} bytes inside the records (${rt - pos} left)`);
      // New key = previous key[0, prefix) + suffix; it must sort after the previous key, which
      // (sharing the prefix) is decided by the suffix against the previous key's rest.
      if (n > 0) {
        const rest = klen - prefix;
        const m = slen < rest ? slen : rest;
        let c = slen - rest;
        for (let j = 0; j < m; j++) {
          const d = blk[pos + j] - kb[prefix + j];
          if (d !== 0) {
            c = d;
            break;
          }
        }
        if (c <= 0)
          throw new FormatError(file, base + recStart, 'keys strictly increasing (this key after the previous one)');
      }
      if (prefix + slen > kb.length) {
        const bigger = new Uint8Array(Math.max(kb.length * 2, prefix + slen));
        bigger.set(kb.subarray(0, prefix));
        scratchKey = kb = bigger;
      }
      for (let j = 0; j < slen; j++) kb[prefix + j] = blk[pos + j];
      klen = prefix + slen;
      pos += slen;
      n++;
      if (n === 1) firstKey = keyString(kb, 0, klen);
      // The value: value type holds cnt_3; 0 means a varint cnt_large follows.
      let cnt = vtype;
      if (cnt === 0) {
        cnt = getVarint(blk, pos, rt);
        if (cnt < 0) throw varintError(file, base + pos, cnt);
        pos = cursor.pos;
      }
      let last = 0;
      for (let k = 0; k < cnt; k++) {
        // Positions take 3–4 bytes: a varint of at most 5 bytes well inside the records is read
        // inline, anything else by getVarint (with its exact errors).
        const vpos = pos;
        let d = -1;
        if (pos + 5 <= rt) {
          let b = blk[pos];
          let q = pos + 1;
          d = b & 0x7f;
          while (b & 0x80 && q < pos + 5) {
            b = blk[q++];
            d = (d + 1) * 128 + (b & 0x7f);
          }
          if (b & 0x80) d = -1;
          else pos = q;
        }
        if (d < 0) {
          d = getVarint(blk, pos, rt);
          if (d < 0) throw varintError(file, base + pos, d);
          pos = cursor.pos;
        }
        const p = k === 0 ? d : last + d;
        if (aligned ? p % bs !== 0 || p >= refLimit : !offsets.has(p)) {
          throw new FormatError(file, base + vpos, `obj position at the start of a ref block, found ${p}`);
        }
        last = p;
      }
    }
    this.counts.obj += n;
    if (ri !== rc)
      throw new FormatError(
        file,
        base + rt + 3 * ri,
        `restart offset ${ri} at a record boundary, found ${nextRestart}`,
      );
    this.spend(n - spent, base);
    return {
      offset: base,
      type: 'obj',
      section,
      blockLen,
      restartCount: rc,
      recordCount: n,
      padding: 0,
      fileBytes: blockLen,
      restartTableOffset: rt,
      firstKey,
      lastKey: n === 1 ? firstKey : keyString(kb, 0, klen),
    };
  }

  /**
   * `decodeBlock` for a ref block: the same checks in the same order with the same messages,
   * in one tight loop that decodes each key straight into the key arena (the previous key is the
   * arena's last one) and keeps the columns in locals. Single-byte varints (almost all prefix,
   * suffix and update-index fields) are read inline.
   */
  decodeRefBlock(blk: Uint8Array, base: number, hoff: number, blockLen: number, section: SectionName): BlockInfo {
    const file = this.file;
    const firstRec = hoff + 4;
    const [rc, rt] = this.restarts(blk, base, firstRec, blockLen);
    const blockIndex = this.blocks.length;
    const rb = this.rb;
    const lean = this.lean;
    /** No ids in the columns: in lean mode, and without `OpenOptions.ids`. */
    const skipIds = lean || !rb.ids;
    if (lean) {
      // One block's records at a time: the columns and key arena restart at every block.
      rb.count = 0;
      rb.keyLen = 0;
      rb.peeled.clear();
      rb.targets.clear();
    }
    const prior = this.leanKeyBytes;
    // Prefix compression lets a small file spell out huge keys: bound the names held (in lean
    // mode those of all blocks together, as if they were held).
    const keyBudget = KEY_BYTES_BASE + KEY_BYTES_PER_FILE_BYTE * this.size;
    const hs = this.h.hashSize;
    const minUpd = this.h.minUpdateIndex;
    const maxUpd = this.h.maxUpdateIndex;
    // Room for every record this block can hold (each takes at least 3 bytes): the columns grow
    // here, once per block at most, never inside the record loop.
    const most = Math.floor((rt - firstRec) / 3) + 1;
    if (rb.count + most > rb.types.length)
      rb.grow(rb.count + most, this.predict(rb.count, base) + most, this.refEnd - this.refStart);
    const keyStart = rb.keyStart,
      types = rb.types,
      updCol = rb.upd,
      blockCol = rb.block,
      lcpCol = rb.lcp,
      oids = rb.oids;
    const oids32 = new Uint32Array(oids.buffer, oids.byteOffset, oids.length >> 2);
    let keys = rb.keys;
    let room = lean ? Math.min(keys.length, keyBudget - prior) : keys.length;
    // Object ids are copied four bytes at a time: read unaligned from the block in the
    // platform's byte order, written to a 32-bit view of the ids column (i × hs is a multiple of 4).
    // The shared part of a key is copied the same way inside the arena.
    let kdv = new DataView(keys.buffer, keys.byteOffset, keys.length);
    const bdv = new DataView(blk.buffer, blk.byteOffset, blk.length);
    const words = hs >> 2;
    let i = rb.count;
    let at = rb.keyLen;
    /** Start of the previous key of this block in the arena, and its length (0 before the first). */
    let ps = at,
      klen = 0;
    let pos = firstRec;
    let n = 0,
      ri = 0,
      spent = 0;
    let nRef = 0,
      nPeeled = 0,
      nSymref = 0,
      nTomb = 0;
    let nextRestart = restartAt(blk, rt, 0);
    while (pos < rt) {
      const recStart = pos;
      if (n - spent === BUDGET_STRIDE) {
        this.spend(n - spent, base + recStart);
        spent = n;
      }
      pos = parseKeyHead(blk, pos, rt);
      if (pos < 0) throw varintError(file, base + keyHead.errorAt, pos);
      const prefix = keyHead.prefix,
        vtype = keyHead.valueType,
        slen = keyHead.suffixLen;
      if (prefix > klen)
        throw new FormatError(file, base + recStart, `prefix length ≤ previous key length ${klen}, found ${prefix}`);
      if (recStart === nextRestart) {
        if (prefix !== 0)
          throw new FormatError(file, base + recStart, `prefix length 0 at a restart point, found ${prefix}`);
        ri++;
        nextRestart = ri < rc ? restartAt(blk, rt, ri) : -1;
      } else if (n === 0) {
        throw new FormatError(file, base + recStart, 'the first record of a block at a restart point');
      } else if (nextRestart !== -1 && recStart > nextRestart) {
        throw new FormatError(
          file,
          base + rt + 3 * ri,
          `restart offset ${ri} at a record boundary, found ${nextRestart}`,
        );
      }
      if (pos + slen > rt)
        throw new FormatError(file, base + pos, `key suffix of ${slen} bytes inside the records (${rt - pos} left)`);
      // New key = previous key[0, prefix) + suffix; it must sort after the previous key, which
      // (sharing the prefix) is decided by the suffix against the previous key's rest.
      if (n > 0) {
        const rest = klen - prefix;
        const m = slen < rest ? slen : rest;
        let c = slen - rest;
        for (let j = 0; j < m; j++) {
          const d = blk[pos + j] - keys[ps + prefix + j];
          if (d !== 0) {
            c = d;
            break;
          }
        }
        if (c <= 0)
          throw new FormatError(file, base + recStart, 'keys strictly increasing (this key after the previous one)');
      }
      const len = prefix + slen;
      if (at + len > room) {
        const budget = keyBudget;
        if (prior + at + len > budget) {
          throw new FormatError(
            file,
            base + recStart,
            `ref names of at most ${budget.toLocaleString('en-US')} bytes in all for a ${this.size.toLocaleString('en-US')}-byte table (prefix compression expands to more)`,
          );
        }
        rb.keyLen = at;
        rb.growKeys(
          at + len,
          lean ? at + len : this.predict(at, base + pos),
          this.refEnd - this.refStart,
          budget - prior,
        );
        keys = rb.keys;
        room = lean ? Math.min(keys.length, keyBudget - prior) : keys.length;
        kdv = new DataView(keys.buffer, keys.byteOffset, keys.length);
      }
      let j0 = 0;
      for (; j0 + 4 <= prefix; j0 += 4) kdv.setUint32(at + j0, kdv.getUint32(ps + j0));
      for (; j0 < prefix; j0++) keys[at + j0] = keys[ps + j0];
      let j1 = 0;
      for (const o = at + prefix; j1 + 4 <= slen; j1 += 4) kdv.setUint32(o + j1, bdv.getUint32(pos + j1));
      for (const o = at + prefix; j1 < slen; j1++) keys[o + j1] = blk[pos + j1];
      pos += slen;
      ps = at;
      klen = len;
      n++;
      if (vtype > 3) throw new FormatError(file, base + recStart, `ref value type 0..3, found ${vtype}`);
      const dpos = pos;
      let delta = pos < rt ? blk[pos] : 0x80;
      if (delta < 0x80) pos++;
      else {
        delta = getVarint(blk, pos, rt);
        if (delta < 0) throw varintError(file, base + dpos, delta);
        pos = cursor.pos;
      }
      const upd = minUpd + delta;
      if (upd > maxUpd)
        throw new FormatError(
          file,
          base + dpos,
          `update_index within the table's range ${minUpd}..${maxUpd}, found ${upd}`,
        );
      at += len;
      keyStart[i + 1] = at;
      types[i] = vtype;
      if (!skipIds) {
        updCol[i] = upd;
        blockCol[i] = blockIndex;
      }
      lcpCol[i] = prefix < 255 ? prefix : 255;
      if (vtype === 1 || vtype === 2) {
        if (pos + hs * vtype > rt)
          throw new FormatError(
            file,
            base + pos,
            `${vtype === 2 ? 'object id and peeled id' : 'object id'} of ${hs * vtype} bytes inside the records (${rt - pos} left)`,
          );
        const o = i * words;
        if (skipIds) {
          // Nothing kept: the id is read again from the block by whoever needs it.
        } else if (LITTLE_ENDIAN) for (let w = 0; w < words; w++) oids32[o + w] = bdv.getUint32(pos + 4 * w, true);
        else for (let w = 0; w < words; w++) oids32[o + w] = bdv.getUint32(pos + 4 * w, false);
        pos += hs;
        if (vtype === 2) {
          if (!skipIds) rb.addPeeled(i, blk, pos);
          pos += hs;
          nPeeled++;
        } else nRef++;
      } else if (vtype === 3) {
        const tl = getVarint(blk, pos, rt);
        if (tl < 0) throw varintError(file, base + pos, tl);
        pos = cursor.pos;
        if (pos + tl > rt)
          throw new FormatError(file, base + pos, `symref target of ${tl} bytes inside the records (${rt - pos} left)`);
        let t = '';
        for (let k = 0; k < tl; k++) t += String.fromCharCode(blk[pos + k]);
        rb.targets.set(i, t);
        pos += tl;
        nSymref++;
      } else nTomb++;
      i++;
    }
    rb.count = i;
    rb.keyLen = at;
    if (lean) this.leanKeyBytes += at;
    const c = this.counts;
    c.ref += nRef;
    c.peeled += nPeeled;
    c.symref += nSymref;
    c.tombstone += nTomb;
    if (ri !== rc)
      throw new FormatError(
        file,
        base + rt + 3 * ri,
        `restart offset ${ri} at a record boundary, found ${nextRestart}`,
      );
    this.spend(n - spent, base);
    const first = rb.keyStart[i - n];
    const fk = keyString(keys, first, rb.keyStart[i - n + 1]);
    return {
      offset: base,
      type: 'ref',
      section,
      blockLen,
      restartCount: rc,
      recordCount: n,
      padding: 0,
      fileBytes: blockLen,
      restartTableOffset: rt,
      firstKey: fk,
      lastKey: n === 1 ? fk : keyString(keys, ps, ps + klen),
    };
  }

  /**
   * Inflate (block.ts `inflateLogBlock`, capped at block_len) and decode one log block. Errors
   * inside the inflated bytes are reported at the block header, with the inflated offset.
   */
  logBlock(off: number, hdrAt: number, blockLen: number, end: number, section: SectionName): BlockInfo {
    const file = this.file;
    const hl = hdrAt - off + BLOCK_HEADER_SIZE;
    const r = inflateLogBlock(
      (o, n) => this.bytes(o, n),
      off,
      hl,
      blockLen,
      end,
      section,
      (at) => this.budget.check(file, at),
    );
    if (r.error) throw new FormatError(file, r.error.offset, r.error.expected);
    let info: BlockInfo;
    try {
      info = this.decodeLog(r.block, off, hl, blockLen, section);
    } catch (e) {
      if (!(e instanceof FormatError) || e instanceof BudgetError) throw e;
      throw new FormatError(file, hdrAt, `${e.expected} (at byte ${e.offset - off} of the inflated log block)`);
    }
    info.fileBytes = r.streamEnd - off;
    return info;
  }

  /** Decode the records of an inflated log block. Error offsets are `base` + inflated offsets. */
  decodeLog(blk: Uint8Array, base: number, hl: number, blockLen: number, section: SectionName): BlockInfo {
    const file = this.file;
    const [rc, rt] = this.restarts(blk, base, hl, blockLen);
    // The key is kept as bytes (no string per record): long keys must not make this quadratic.
    const kw = new KeyWalk(file, blk, base, hl, rt, rc);
    let firstKey = '',
      spent = 0;
    const hs = this.h.hashSize;
    while (kw.next()) {
      const recStart = kw.recStart;
      if (kw.n - 1 - spent === BUDGET_STRIDE) {
        this.spend(kw.n - 1 - spent, base);
        spent = kw.n - 1;
      }
      let pos = kw.pos;
      const vtype = kw.valueType;
      const kb = kw.kb,
        klen = kw.klen;
      if (klen < LOG_KEY_SUFFIX || kb[klen - LOG_KEY_SUFFIX] !== 0) {
        throw new FormatError(file, base + recStart, 'log key: refname, NUL, 8-byte reversed update index');
      }
      if (kw.n === 1) firstKey = bytesToKey(kb, 0, klen);
      if (vtype === 0) this.counts.logDeletion++;
      else if (vtype === 1) {
        this.counts.log++;
        if (pos + 2 * hs > rt)
          throw new FormatError(
            file,
            base + pos,
            `old and new object ids (${2 * hs} bytes) inside the records (${rt - pos} left)`,
          );
        pos += 2 * hs;
        for (let k = 0; k < 2; k++) {
          // name, email
          const l = getVarint(blk, pos, rt);
          if (l < 0) throw varintError(file, base + pos, l);
          if (cursor.pos + l > rt)
            throw new FormatError(
              file,
              base + pos,
              `log ${k ? 'email' : 'name'} of ${l} bytes inside the records (${rt - cursor.pos} left)`,
            );
          pos = cursor.pos + l;
        }
        const t = getVarint(blk, pos, rt);
        if (t < 0) throw varintError(file, base + pos, t);
        if (cursor.pos + 2 > rt)
          throw new FormatError(file, base + cursor.pos, 'log tz_offset (2 bytes) inside the records');
        pos = cursor.pos + 2; // time, tz offset
        const ml = getVarint(blk, pos, rt);
        if (ml < 0) throw varintError(file, base + pos, ml);
        if (cursor.pos + ml > rt)
          throw new FormatError(
            file,
            base + pos,
            `log message of ${ml} bytes inside the records (${rt - cursor.pos} left)`,
          );
        pos = cursor.pos + ml;
      } else throw new FormatError(file, base + recStart, `log value type 0 or 1, found ${vtype}`);
      kw.pos = pos;
    }
    kw.finish();
    const n = kw.n;
    this.spend(n - spent, base);
    return {
      offset: base,
      type: 'log',
      section,
      blockLen,
      restartCount: rc,
      recordCount: n,
      padding: 0,
      fileBytes: 0,
      restartTableOffset: rt,
      firstKey,
      lastKey: n === 1 ? firstKey : bytesToKey(kw.kb, 0, kw.klen),
    };
  }

  /**
   * Every index position points at a block of the section it indexes or at a lower index block
   * of the same index (multi-level), never forwards (so no cycles), at most 64 levels deep.
   * An index key that is not the last key of the block it points at is a warning: git does not
   * check it, but its lookups through that index then miss refs.
   */
  checkIndexes(sections: { name: SectionName; start: number; end: number }[]): void {
    const file = this.file;
    for (const s of sections) {
      if (s.name !== 'refIndex' && s.name !== 'objIndex' && s.name !== 'logIndex') continue;
      const leaf: BlockType = s.name === 'refIndex' ? 'ref' : s.name === 'objIndex' ? 'obj' : 'log';
      let levels = 1;
      let keyWarned = false;
      // Levels by block, in file order: a lower index block (always earlier) is done first.
      const height = new Map<number, number>();
      for (const b of this.blocks) {
        if (b.section !== s.name || b.type !== 'index') continue;
        const ch = this.indexChildren.get(b.offset)!;
        let hgt = 1;
        for (let i = 0; i < ch.pos.length; i++) {
          const c = ch.pos[i];
          const t = this.blockTypeAt.get(c);
          if (t === 'index' && this.sectionAt.get(c) === s.name) {
            if (c >= b.offset)
              throw new FormatError(
                file,
                ch.at[i],
                `index position pointing back to a ${leaf} block or a lower index block (no cycles), found ${c} (this block is at ${b.offset})`,
              );
            hgt = Math.max(hgt, 1 + height.get(c)!);
            if (hgt > MAX_INDEX_DEPTH) throw new FormatError(file, ch.at[i], `index depth ≤ ${MAX_INDEX_DEPTH} levels`);
          } else if (t !== leaf) {
            throw new FormatError(
              file,
              ch.at[i],
              `index position at the start of a ${leaf} block${leaf === 'log' ? '' : ' or a lower index block'}, found ${c}${t ? ` (a ${t} block)` : ''}`,
            );
          }
          if (!keyWarned && !ch.keyOk[i]) {
            keyWarned = true;
            this.findings.push({
              severity: 'warning',
              file,
              offset: ch.at[i],
              message: `index key equal to the last key of the block it points at (${c}); git's lookups through this ${s.name} can miss records`,
            });
          }
        }
        height.set(b.offset, hgt);
        levels = Math.max(levels, hgt);
      }
      if (s.name === 'refIndex') this.refIndexLevels = levels;
    }
  }
}

function varintError(file: string, at: number, code: number): FormatError {
  return new FormatError(file, at, code === -2 ? 'a varint below 2^53' : 'a varint that ends inside the block');
}

/** Hex object id of ref record `i` of `cols` (hash size `hs` bytes). */
export function oidHex(cols: RefColumns, i: number, hs: number): string {
  return toHex(cols.oids, i * hs, (i + 1) * hs);
}
