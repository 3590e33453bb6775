/**
 * estimate: a rough size of the same refs written as one reftable (Documentation/technical/reftable.adoc), until
 * refscope's own writer replaces it. Always marked `estimate: true`.
 *
 * Model (git's writer as described in Documentation/technical/reftable.adoc, simplified):
 * - one table, all refs at one update index (update_index_delta 0, one byte);
 * - ref records `varint prefix, varint (suffix_len << 3 | type), suffix, varint 0, value`
 *   (type 1: one id, 2: id + peeled id, 3: varint length + symref target);
 * - prefix compression against the previous key, restarting (prefix 0) every
 *   `restartInterval`-th record of a block and whenever the common prefix is empty;
 * - a record goes into the current block if `2 + 3 × restarts + record <= blockSize - used`,
 *   block header 4 bytes, the first block also holding the file header (24 bytes v1 / 28 v2);
 * - every block but the last one in the file padded to `blockSize`;
 * - a ref index (one record per ref block: last key → block offset) when there are more than 3
 *   ref blocks, with further levels while an index level has more than 3 blocks;
 * - the obj section (object id prefix → ref block offsets) and its index only when the ref
 *   index exists (as git does), object ids and peeled ids both indexed, `obj_id_len` = longest
 *   common prefix of adjacent distinct ids + 1 (at least 2);
 * - no log blocks (reflogs are not counted); footer 68 bytes (v1) / 72 (v2).
 */
import type { HashKind } from './packed.ts';
import { bytesToKey, keyToBytes, varintLength, commonPrefixLength } from '../basics.ts';

/** One ref to estimate: byte-string name, and its value. */
export interface EstimateRef {
  name: string;
  /** Object id hex (for 'oid' and 'peeled'). */
  oid?: string;
  /** Peeled id hex (for 'peeled'). */
  peeled?: string;
  /** Symref target byte string (for 'symref'). */
  target?: string;
}

/** Estimated reftable size. Sizes in bytes. */
export interface ReftableEstimate {
  estimate: true;
  blockSize: number;
  restartInterval: number;
  refs: number;
  /** Total file size. */
  bytes: number;
  /** Total blocks (ref + index + obj + obj index). */
  blocks: number;
  refBlocks: number;
  refIndexBlocks: number;
  objBlocks: number;
  objIndexBlocks: number;
  /** Bytes per object id prefix in the obj section (0 without obj section). */
  objIdLen: number;
  note: string;
}

/** Name bytes of one entry: `bytes[start, end)`. */
export interface EstimateName {
  bytes: Uint8Array;
  start: number;
  end: number;
}

/**
 * The refs to estimate as columns (`FilesRefList` is one): names stay in their bytes, ids are
 * read from them for the obj section, so a million refs cost arrays, not objects.
 */
export interface EstimateSource {
  readonly length: number;
  /** Name bytes of entry `k` (the object may be reused by the next call). */
  nameBytes(k: number): EstimateName;
  /** Entry `k - 1` against entry `k` (memcmp order) and the bytes their names share. */
  comparePrev(k: number): { c: number; lcp: number };
  /** 1: an object id, 2: an id and a peeled id, 3: a symref. */
  kind(k: number): 1 | 2 | 3;
  /** Byte length of a symref's target. */
  targetLength(k: number): number;
  /**
   * The id (`which` 0) or peeled id (1) of entry `k` as bytes, written to `out` at `at`; false
   * when it has none (a symref; no peeled id).
   */
  idBytes(k: number, which: 0 | 1, out: Uint8Array, at: number): boolean;
}

/** Hex digit values (-1: not one). */
export const HEX_VALUE = (() => {
  const t = new Int8Array(256).fill(-1);
  for (let i = 0; i < 10; i++) t[48 + i] = i;
  for (let i = 0; i < 6; i++) t[97 + i] = t[65 + i] = 10 + i;
  return t;
})();

/** The byte of two hex digits read as one big-endian 16-bit word (-1 entries: not hex). */
const HEX_PAIR = (() => {
  const t = new Int16Array(65536).fill(-1);
  for (let h = 0; h < 256; h++) {
    if (HEX_VALUE[h] < 0) continue;
    for (let l = 0; l < 256; l++) if (HEX_VALUE[l] >= 0) t[(h << 8) | l] = (HEX_VALUE[h] << 4) | HEX_VALUE[l];
  }
  return t;
})();

let hexView: DataView | null = null;

/** `len` bytes of the hex digits at `from` of `hex` (a byte array) into `out` at `at`. */
export function hexBytesInto(hex: Uint8Array, from: number, len: number, out: Uint8Array, at: number): void {
  // Two digits a read: the file's bytes are read as 16-bit words through one DataView.
  let dv = hexView;
  if (!dv || dv.buffer !== hex.buffer || dv.byteOffset !== hex.byteOffset || dv.byteLength !== hex.byteLength)
    dv = hexView = new DataView(hex.buffer, hex.byteOffset, hex.byteLength);
  for (let i = 0; i < len; i++) out[at + i] = HEX_PAIR[dv.getUint16(from + 2 * i)];
}

/** `hexBytesInto` of a hex string. */
function hexStringInto(hex: string, len: number, out: Uint8Array, at: number): void {
  for (let i = 0; i < len; i++)
    out[at + i] = (HEX_VALUE[hex.charCodeAt(2 * i) & 255] << 4) | HEX_VALUE[hex.charCodeAt(2 * i + 1) & 255];
}

/**
 * Pack records into blocks the way the block writer does (see module comment), the records as
 * columns: key length, bytes shared with the key before, type and value length.
 */
function packBlocksCols(
  n: number,
  keyLen: ArrayLike<number>,
  lcp: ArrayLike<number>,
  type: ArrayLike<number>,
  valueLen: ArrayLike<number>,
  blockSize: number,
  restartInterval: number,
  firstHeader: number,
): { lens: number[]; last: number[]; recBlock: Int32Array } {
  const lens: number[] = [];
  const last: number[] = [];
  const recBlock = new Int32Array(n);
  let next = firstHeader + 4;
  let restarts = 0;
  let entries = 0;
  for (let i = 0; i < n; i++) {
    for (;;) {
      const prefix = entries % restartInterval === 0 ? 0 : lcp[i];
      const restart = prefix === 0;
      const suffix = keyLen[i] - prefix;
      const len = varintLength(prefix) + varintLength(suffix * 8 + type[i]) + suffix + valueLen[i];
      const rlen = restarts + (restart ? 1 : 0);
      if (2 + 3 * rlen + len > blockSize - next && entries > 0) {
        lens.push(next + 3 * restarts + 2);
        last.push(i - 1);
        next = 4;
        restarts = 0;
        entries = 0;
        continue;
      }
      next += len;
      if (restart) restarts++;
      entries++;
      recBlock[i] = lens.length;
      break;
    }
  }
  if (entries > 0) {
    lens.push(next + 3 * restarts + 2);
    last.push(n - 1);
  }
  return { lens, last, recBlock };
}

/** `packBlocksCols` of records with string keys (index levels: one key per block below). */
function packBlocks(recs: Rec[], blockSize: number, restartInterval: number, firstHeader: number): Packed {
  const n = recs.length;
  const keyLen = new Float64Array(n);
  const lcp = new Float64Array(n);
  const type = new Uint8Array(n);
  const valueLen = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    keyLen[i] = recs[i].key.length;
    lcp[i] = i > 0 ? commonPrefixLength(recs[i - 1].key, recs[i].key) : 0;
    type[i] = recs[i].type;
    valueLen[i] = recs[i].valueLen;
  }
  const p = packBlocksCols(n, keyLen, lcp, type, valueLen, blockSize, restartInterval, firstHeader);
  return { lens: p.lens, lastKeys: p.last.map((i) => recs[i].key), recBlock: p.recBlock };
}

interface Rec {
  key: string;
  type: number;
  /** Value bytes after the key (update index included for refs). */
  valueLen: number;
}

interface Packed {
  /** Raw byte length of each block (first block includes the file header). */
  lens: number[];
  /** Last key of each block. */
  lastKeys: string[];
  /** Block index each record landed in. */
  recBlock: Int32Array;
}

/** `EstimateSource` of plain refs (sorted by byte order of names here). */
function arraySource(refs: EstimateRef[]): EstimateSource {
  const sorted = refs.slice().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const bytes = sorted.map((r) => keyToBytes(r.name));
  const cur: EstimateName = { bytes: new Uint8Array(0), start: 0, end: 0 };
  return {
    length: sorted.length,
    nameBytes(k) {
      cur.bytes = bytes[k];
      cur.end = bytes[k].length;
      return cur;
    },
    comparePrev(k) {
      const a = sorted[k - 1].name,
        b = sorted[k].name;
      const l = commonPrefixLength(a, b);
      return { c: a < b ? -1 : a > b ? 1 : 0, lcp: l };
    },
    kind: (k) => (sorted[k].target !== undefined ? 3 : sorted[k].peeled ? 2 : 1),
    targetLength: (k) => sorted[k].target?.length ?? 0,
    idBytes: (k, which, out, at) => {
      const hex = which === 0 ? sorted[k].oid : sorted[k].peeled;
      if (!hex) return false;
      hexStringInto(hex, hex.length >> 1, out, at);
      return true;
    },
  };
}

/**
 * Estimate the size of `refs` (any order; sorted here by byte order of names, duplicates
 * dropped) as one reftable with `blockSize` (default 4096) and `restartInterval` (default 16).
 * See the module comment for the model; the result is marked `estimate: true`.
 */
export function estimateReftable(
  refs: EstimateRef[],
  hash: HashKind,
  opts: { blockSize?: number; restartInterval?: number } = {},
): ReftableEstimate {
  return estimateReftableOf(arraySource(refs), hash, opts);
}

/** Work of `estimateReftableOf` since the process started (tests count it). */
export const estimateWork = { entries: 0, sorted: 0, nameBytesCompared: 0 };

/**
 * `estimateReftable` of refs given as columns, in any order (a source not in byte order of names
 * is sorted by index; one in order, as git's iteration gives them, is not). Work and memory:
 * a few typed arrays per ref; the obj section's ids are deduplicated by hashing their bytes and
 * sorted by a radix sort.
 */
export function estimateReftableOf(
  src: EstimateSource,
  hash: HashKind,
  opts: { blockSize?: number; restartInterval?: number } = {},
): ReftableEstimate {
  const blockSize = opts.blockSize ?? 4096;
  const R = opts.restartInterval ?? 16;
  const hs = hash === 'sha256' ? 32 : 20;
  const header = hash === 'sha256' ? 28 : 24;
  const footer = hash === 'sha256' ? 72 : 68;
  const n = src.length;
  estimateWork.entries += n;

  // Byte order of names, then the first of each name.
  let inOrder = true;
  for (let k = 1; k < n && inOrder; k++) if (src.comparePrev(k).c > 0) inOrder = false;
  let order: Int32Array | null = null;
  const cmpEntries = (a: number, b: number): number => {
    const x = src.nameBytes(a);
    const xb = x.bytes,
      xs = x.start,
      xe = x.end;
    const y = src.nameBytes(b);
    return compareRange(xb, xs, xe, y.bytes, y.start, y.end) || a - b;
  };
  if (!inOrder) {
    estimateWork.sorted += n;
    order = Int32Array.from(Array.from({ length: n }, (_, i) => i).sort(cmpEntries));
  }
  const at = (u: number): number => (order ? order[u] : u);
  /** Bytes entry at(u - 1) and at(u) share, and whether they are equal. */
  const prevOf = (u: number): { c: number; lcp: number } => {
    if (!order) return src.comparePrev(u);
    const x = src.nameBytes(order[u - 1]);
    const xb = x.bytes,
      xs = x.start,
      xe = x.end;
    const y = src.nameBytes(order[u]);
    let i = 0;
    const m = Math.min(xe - xs, y.end - y.start);
    while (i < m && xb[xs + i] === y.bytes[y.start + i]) i++;
    return { c: i === m && xe - xs === y.end - y.start ? 0 : 1, lcp: i };
  };
  const uniq = new Int32Array(n);
  const keyLen = new Float64Array(n);
  const lcp = new Float64Array(n);
  const type = new Uint8Array(n);
  const valueLen = new Float64Array(n);
  let m = 0;
  for (let u = 0; u < n; u++) {
    let l = 0;
    if (u > 0) {
      const p = prevOf(u);
      if (p.c === 0) continue;
      l = p.lcp;
    }
    const k = at(u);
    const nb = src.nameBytes(k);
    const kind = src.kind(k);
    uniq[m] = k;
    keyLen[m] = nb.end - nb.start;
    lcp[m] = m > 0 ? l : 0;
    type[m] = kind;
    if (kind === 3) {
      const t = src.targetLength(k);
      valueLen[m] = 1 + varintLength(t) + t;
    } else valueLen[m] = kind === 2 ? 1 + 2 * hs : 1 + hs;
    m++;
  }
  if (m === 0) {
    return {
      estimate: true,
      blockSize,
      restartInterval: R,
      refs: 0,
      bytes: header + footer,
      blocks: 0,
      refBlocks: 0,
      refIndexBlocks: 0,
      objBlocks: 0,
      objIndexBlocks: 0,
      objIdLen: 0,
      note: 'empty table: header + footer',
    };
  }
  const allLens: number[] = [];
  const ref = packBlocksCols(m, keyLen, lcp, type, valueLen, blockSize, R, header);
  for (const l of ref.lens) allLens.push(l);
  const nameOf = (k: number): string => {
    const nb = src.nameBytes(k);
    return bytesToKey(nb.bytes, nb.start, nb.end);
  };

  // Index levels over a section whose blocks start at `firstOffset` (all padded).
  const indexLevels = (lastKeys: string[], firstOffset: number): number => {
    let blocks = 0;
    let keys = lastKeys;
    let offsets = keys.map((_, i) => firstOffset + i * blockSize);
    let at = firstOffset + keys.length * blockSize;
    while (keys.length > 3) {
      const recs = keys.map((k, i) => ({ key: k, type: 0, valueLen: varintLength(offsets[i]) }));
      const p = packBlocks(recs, blockSize, R, 0);
      for (const l of p.lens) allLens.push(l);
      blocks += p.lens.length;
      keys = p.lastKeys;
      offsets = keys.map((_, i) => at + i * blockSize);
      at += p.lens.length * blockSize;
    }
    return blocks;
  };

  let refIndexBlocks = 0;
  let objBlocks = 0;
  let objIndexBlocks = 0;
  let objIdLen = 0;
  if (ref.lens.length > 3) {
    refIndexBlocks = indexLevels(
      ref.last.map((u) => nameOf(uniq[u])),
      0,
    );
    // Obj section: id → ref block offsets. Ids are hashed on their bytes (open addressing); per
    // distinct id its block count, last block and the varint bytes of its offset deltas.
    const cap = 2 * m;
    const ids = new Uint8Array((cap + 1) * hs);
    const idView = new DataView(ids.buffer);
    let size = 16;
    while (size < 2 * cap) size *= 2;
    const mask = size - 1;
    const table = new Int32Array(size).fill(-1);
    const blockCount = new Float64Array(cap);
    const lastBlock = new Float64Array(cap);
    const deltaBytes = new Float64Array(cap);
    let d = 0;
    for (let u = 0; u < m; u++) {
      const block = ref.recBlock[u];
      for (let which: 0 | 1 = 0; which < 2; which++) {
        if (which === 1 && type[u] !== 2) break;
        // Written at slot d: kept there when new, overwritten by the next id when not.
        if (!src.idBytes(uniq[u], which as 0 | 1, ids, d * hs)) continue;
        const o = d * hs;
        // The id's words, each mixed in, then murmur3's finalizer (fmix32): crafted ids that
        // differ in a few bytes still spread over the table.
        let h = 0;
        for (let i = 0; i + 4 <= hs; i += 4) {
          h = Math.imul(h ^ idView.getUint32(o + i, true), 0x9e3779b1);
          h ^= h >>> 16;
        }
        h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
        h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
        h ^= h >>> 16;
        let slot = h & mask;
        for (;;) {
          const j = table[slot];
          if (j < 0) {
            table[slot] = d;
            blockCount[d] = 1;
            lastBlock[d] = block;
            deltaBytes[d] = varintLength(block * blockSize);
            d++;
            break;
          }
          const jo = j * hs;
          let i = 0;
          while (i < hs && ids[jo + i] === ids[o + i]) i++;
          if (i === hs) {
            if (lastBlock[j] !== block) {
              deltaBytes[j] += varintLength((block - lastBlock[j]) * blockSize);
              lastBlock[j] = block;
              blockCount[j]++;
            }
            break;
          }
          slot = (slot + 1) & mask;
        }
      }
    }
    const ord = sortIds(ids, d, hs);
    const idLcp = new Float64Array(d);
    let maxCommon = 0;
    for (let i = 1; i < d; i++) {
      const a0 = ord[i - 1] * hs,
        b0 = ord[i] * hs;
      let l = 0;
      while (l < hs && ids[a0 + l] === ids[b0 + l]) l++;
      idLcp[i] = l;
      if (l > maxCommon) maxCommon = l;
    }
    objIdLen = Math.max(2, maxCommon + 1);
    const oKeyLen = new Float64Array(d).fill(objIdLen);
    const oType = new Uint8Array(d);
    const oValue = new Float64Array(d);
    for (let i = 0; i < d; i++) {
      const j = ord[i];
      const c = blockCount[j];
      oType[i] = c < 8 ? c : 0;
      oValue[i] = (c < 8 ? 0 : varintLength(c)) + deltaBytes[j];
      idLcp[i] = Math.min(idLcp[i], objIdLen);
    }
    const objStart = (ref.lens.length + refIndexBlocks) * blockSize;
    const obj = packBlocksCols(d, oKeyLen, idLcp, oType, oValue, blockSize, R, 0);
    for (const l of obj.lens) allLens.push(l);
    objBlocks = obj.lens.length;
    const idKey = (i: number): string => bytesToKey(ids, ord[i] * hs, ord[i] * hs + objIdLen);
    objIndexBlocks = indexLevels(
      obj.last.map((i) => idKey(i)),
      objStart,
    );
  }
  const blocks = allLens.length;
  const bytes = (blocks - 1) * blockSize + allLens[blocks - 1] + footer;
  return {
    estimate: true,
    blockSize,
    restartInterval: R,
    refs: m,
    bytes,
    blocks,
    refBlocks: ref.lens.length,
    refIndexBlocks,
    objBlocks,
    objIndexBlocks,
    objIdLen,
    note: 'estimate: one table, one update index, no reflogs; a real writer replaces it',
  };
}

/**
 * Indices of the `d` ids of `hs` bytes in `ids`, in byte order of the ids. The bytes all ids
 * share at the start are skipped; the next four are a key sorted as numbers (a typed array's own
 * sort of key × 2^21 + index), and only ids equal on those are compared byte by byte. Past 2^21
 * ids, a least-significant-byte-first radix sort.
 */
function sortIds(ids: Uint8Array, d: number, hs: number): Int32Array {
  let common = hs;
  for (let i = 1; i < d && common > 0; i++) {
    let l = 0;
    while (l < common && ids[i * hs + l] === ids[l]) l++;
    common = l;
  }
  const ord = new Int32Array(d);
  if (d < 1 << 21) {
    const keys = new Float64Array(d);
    for (let i = 0; i < d; i++) {
      let k = 0;
      for (let j = common; j < common + 4; j++) k = k * 256 + (j < hs ? ids[i * hs + j] : 0);
      keys[i] = k * 2097152 + i;
    }
    keys.sort();
    for (let i = 0; i < d; i++) ord[i] = keys[i] % 2097152;
    // Runs equal on the key: byte order of the rest.
    const keyOf = (i: number) => Math.floor(keys[i] / 2097152);
    for (let i = 0; i < d;) {
      let j = i + 1;
      while (j < d && keyOf(j) === keyOf(i)) j++;
      if (j - i > 1) {
        const run = Array.from(ord.subarray(i, j)).sort((x, y) => {
          for (let b = common + 4; b < hs; b++) {
            const c = ids[x * hs + b] - ids[y * hs + b];
            if (c) return c;
          }
          return 0;
        });
        ord.set(run, i);
      }
      i = j;
    }
    return ord;
  }
  let a = ord;
  for (let i = 0; i < d; i++) a[i] = i;
  let t = new Int32Array(d);
  const count = new Int32Array(257);
  for (let byte = hs - 1; byte >= common; byte--) {
    count.fill(0);
    for (let i = 0; i < d; i++) count[ids[a[i] * hs + byte] + 1]++;
    for (let c = 0; c < 256; c++) count[c + 1] += count[c];
    for (let i = 0; i < d; i++) t[count[ids[a[i] * hs + byte]]++] = a[i];
    const x = a;
    a = t;
    t = x;
  }
  return a;
}

/** memcmp order of a[a0, a1) and b[b0, b1), shorter prefix first. */
function compareRange(a: Uint8Array, a0: number, a1: number, b: Uint8Array, b0: number, b1: number): number {
  estimateWork.nameBytesCompared++;
  const la = a1 - a0,
    lb = b1 - b0;
  const m = la < lb ? la : lb;
  for (let i = 0; i < m; i++) {
    const d = a[a0 + i] - b[b0 + i];
    if (d !== 0) return d;
  }
  return la - lb;
}
