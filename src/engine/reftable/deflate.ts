/**
 * The one deflater for log blocks. git compresses each log block with zlib at level 9
 * (reftable/writer.c `writer_flush_nonempty_block`, `deflateInit(..., 9)`). Readers depend only
 * on the inflated bytes, but a table's size (and so the compaction rule's input) depends on the
 * compressed ones. fflate's level 9 inflates to the same block and is usually byte-identical to
 * zlib's stream, sometimes a byte longer (on git-written workloads: 1 byte in some log blocks).
 * Node's bundled zlib is no better here: it is Chromium's fork, whose match finder differs from
 * the zlib git links against, and on the same workloads its tables were ~100 bytes longer.
 */
import { zlibSync } from 'fflate';

/** Compress one log block's records and restart table into a zlib stream (level 9). */
export function deflateLogBlock(raw: Uint8Array): Uint8Array {
  return zlibSync(raw, { level: 9 });
}
