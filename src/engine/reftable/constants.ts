/**
 * constants: the numbers of the reftable format, stated once.
 *
 * Source: git's Documentation/technical/reftable.adoc ("Header", "Footer", "Block types",
 * "Ref block format", "Log block format", "Obj block format", "Index block format") and
 * reftable/basics.h / reftable/constants.h in git's tree. Every other module takes them from here.
 */

/** 'REFT', the first four bytes of a table (spec "Header"). */
export const MAGIC = [0x52, 0x45, 0x46, 0x54] as const;

/** Offset of the version byte after the magic; a version 2 header's hash id follows the v1 header. */
export const VERSION_OFFSET = 4;
/** Header bytes per format version: v1 has no hash id, v2 appends a 4-byte one. */
export const HEADER_SIZE_V1 = 24;
export const HEADER_SIZE_V2 = 28;
/** Footer bytes per version: the header copy, five u64 positions and a CRC-32. */
export const FOOTER_SIZE_V1 = 68;
export const FOOTER_SIZE_V2 = 72;
/** Largest header any version has: read this much to parse one. */
export const MAX_HEADER_SIZE = HEADER_SIZE_V2;
export function headerSize(version: 1 | 2): number {
  return version === 1 ? HEADER_SIZE_V1 : HEADER_SIZE_V2;
}
export function footerSize(version: 1 | 2): number {
  return version === 1 ? FOOTER_SIZE_V1 : FOOTER_SIZE_V2;
}

/** Hash ids of a version 2 header ("sha1" and "s256" in ASCII, big-endian u32). */
export const HASH_ID_SHA1 = 0x73686131;
export const HASH_ID_S256 = 0x73323536;
export const HASH_SIZE_SHA1 = 20;
export const HASH_SIZE_S256 = 32;

/** Block type letters (spec "Block types"). */
export const BLOCK_REF = 0x72; // 'r'
export const BLOCK_INDEX = 0x69; // 'i'
export const BLOCK_OBJ = 0x6f; // 'o'
export const BLOCK_LOG = 0x67; // 'g'

/** Block type names as the engine uses them. */
export type BlockType = 'ref' | 'index' | 'obj' | 'log';
/** Which section a block belongs to. An index block is in `refIndex`, `objIndex` or `logIndex`. */
export type SectionName = 'ref' | 'refIndex' | 'obj' | 'objIndex' | 'log' | 'logIndex';

export const TYPE_OF: Readonly<Record<number, BlockType>> = {
  [BLOCK_REF]: 'ref',
  [BLOCK_INDEX]: 'index',
  [BLOCK_OBJ]: 'obj',
  [BLOCK_LOG]: 'log',
};
export const LETTER: Readonly<Record<BlockType, number>> = {
  ref: BLOCK_REF,
  index: BLOCK_INDEX,
  obj: BLOCK_OBJ,
  log: BLOCK_LOG,
};

/** A block starts with its type letter and a 3-byte block_len. */
export const BLOCK_HEADER_SIZE = 4;
/** Each restart point is a 3-byte offset; the table ends with a 2-byte restart count. */
export const RESTART_ENTRY_SIZE = 3;
export const RESTART_COUNT_SIZE = 2;
/** block_len and restart offsets are 24-bit. */
export const MAX_BLOCK_SIZE = (1 << 24) - 1;

/** Ref record value types (spec "Ref block format"). */
export const REF_DELETION = 0;
export const REF_VAL1 = 1;
export const REF_VAL2 = 2;
export const REF_SYMREF = 3;
/** Log record value types (spec "Log block format"). */
export const LOG_DELETION = 0;
export const LOG_UPDATE = 1;
/** A log key ends in NUL and an 8-byte reversed update index. */
export const LOG_KEY_SUFFIX = 9;

/**
 * Index levels followed at most. git stops nowhere (its index blocks only point backwards, so it
 * ends); 64 levels of 2 keys each would index more records than 2^53.
 */
export const MAX_INDEX_DEPTH = 64;

/**
 * Most distinct tables one stack may name (however often `tables.list` repeats a name: a repeated
 * line costs a small constant, see `loadStack`). Every table costs its open, header, footer,
 * blocks and a report entry; git's auto-compaction keeps a stack to a few dozen tables
 * (reftable/stack.c `reftable_stack_auto_compact`), and git itself maps every table it reads
 * (reftable/stack.c `reftable_stack_reload_once` opens each name; reftable/blocksource.c maps
 * the file), so a stack of more than about 65,000 tables does not load in git on a default Linux
 * (`vm.max_map_count` is 65,530). 2,000 tiny tables take refscope about 1 s of CPU in every
 * command and the worker (docs/limits.md); 5,000 took 2–3 s, over the contract's 2 s.
 */
export const MAX_STACK_TABLES = 2_000;

/** obj_id_len bounds (spec "Footer": "obj_id_len ... at least 2"). */
export const MIN_OBJ_ID_LEN = 2;

/**
 * Bound on the bytes of all ref names of one table: 16 MiB plus 8 bytes per file byte. Git's
 * tables hold up to about 4 name bytes per file byte (tombstone tables; the fixtures); prefix
 * compression lets a crafted table expand quadratically, and this bound, known from the file's
 * size before any record is read, refuses it before the names are allocated. Twice git's ratio,
 * not more: a 16 MiB block whose keys each extend the last by a byte is refused with 151 MB of
 * names held, and the process stays under 512 MiB.
 */
export const KEY_BYTES_BASE = 16 * 1048576;
export const KEY_BYTES_PER_FILE_BYTE = 8;

/** Compressed bytes fed to the log-block inflater at once (bounds one step's output). */
export const INFLATE_SLICE = 16384;
