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
import { varintLength, commonPrefixLength } from '../basics.ts';

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

/** Pack records into blocks the way the block writer does (see module comment). */
function packBlocks(recs: Rec[], blockSize: number, restartInterval: number, firstHeader: number): Packed {
  const lens: number[] = [];
  const lastKeys: string[] = [];
  const recBlock = new Int32Array(recs.length);
  let next = firstHeader + 4;
  let restarts = 0;
  let entries = 0;
  let lastKey = '';
  for (let i = 0; i < recs.length; i++) {
    const r = recs[i];
    for (;;) {
      const last = entries % restartInterval === 0 ? '' : lastKey;
      const prefix = commonPrefixLength(last, r.key);
      const restart = prefix === 0;
      const suffix = r.key.length - prefix;
      const n = varintLength(prefix) + varintLength(suffix * 8 + r.type) + suffix + r.valueLen;
      const rlen = restarts + (restart ? 1 : 0);
      if (2 + 3 * rlen + n > blockSize - next && entries > 0) {
        lens.push(next + 3 * restarts + 2);
        lastKeys.push(lastKey);
        next = 4;
        restarts = 0;
        entries = 0;
        lastKey = '';
        continue;
      }
      next += n;
      if (restart) restarts++;
      entries++;
      lastKey = r.key;
      recBlock[i] = lens.length;
      break;
    }
  }
  if (entries > 0) {
    lens.push(next + 3 * restarts + 2);
    lastKeys.push(lastKey);
  }
  return { lens, lastKeys, recBlock };
}

function hexToKey(hex: string): string {
  let s = '';
  for (let i = 0; i < hex.length; i += 2) s += String.fromCharCode(parseInt(hex.substr(i, 2), 16));
  return s;
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
  const blockSize = opts.blockSize ?? 4096;
  const R = opts.restartInterval ?? 16;
  const hs = hash === 'sha256' ? 32 : 20;
  const header = hash === 'sha256' ? 28 : 24;
  const footer = hash === 'sha256' ? 72 : 68;

  const sorted = refs.slice().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const uniq: EstimateRef[] = [];
  for (const r of sorted) if (!uniq.length || uniq[uniq.length - 1].name !== r.name) uniq.push(r);

  const refRecs: Rec[] = uniq.map((r) => {
    if (r.target !== undefined)
      return { key: r.name, type: 3, valueLen: 1 + varintLength(r.target.length) + r.target.length };
    if (r.peeled) return { key: r.name, type: 2, valueLen: 1 + 2 * hs };
    return { key: r.name, type: 1, valueLen: 1 + hs };
  });
  const allLens: number[] = [];
  const ref = packBlocks(refRecs, blockSize, R, header);
  allLens.push(...ref.lens);
  if (refRecs.length === 0) {
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

  // Index levels over a section whose blocks start at `firstOffset` (all padded).
  const indexLevels = (lastKeys: string[], firstOffset: number): number => {
    let blocks = 0;
    let keys = lastKeys;
    let offsets = keys.map((_, i) => firstOffset + i * blockSize);
    let at = firstOffset + keys.length * blockSize;
    while (keys.length > 3) {
      const recs = keys.map((k, i) => ({ key: k, type: 0, valueLen: varintLength(offsets[i]) }));
      const p = packBlocks(recs, blockSize, R, 0);
      allLens.push(...p.lens);
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
    refIndexBlocks = indexLevels(ref.lastKeys, 0);
    // Obj section: id → ref block offsets.
    const ids = new Map<string, number[]>();
    const add = (hex: string | undefined, block: number): void => {
      if (!hex) return;
      const k = hexToKey(hex);
      const l = ids.get(k);
      if (!l) ids.set(k, [block]);
      else if (l[l.length - 1] !== block) l.push(block);
    };
    for (let i = 0; i < uniq.length; i++) {
      add(uniq[i].oid, ref.recBlock[i]);
      add(uniq[i].peeled, ref.recBlock[i]);
    }
    const keys = [...ids.keys()].sort();
    let maxCommon = 0;
    for (let i = 1; i < keys.length; i++) maxCommon = Math.max(maxCommon, commonPrefixLength(keys[i - 1], keys[i]));
    objIdLen = Math.max(2, maxCommon + 1);
    const objRecs: Rec[] = keys.map((k) => {
      const blocks = ids.get(k)!;
      let v = blocks.length < 8 ? 0 : varintLength(blocks.length);
      let prev = 0;
      for (const b of blocks) {
        v += varintLength(b * blockSize - prev);
        prev = b * blockSize;
      }
      return { key: k.slice(0, objIdLen), type: blocks.length < 8 ? blocks.length : 0, valueLen: v };
    });
    const objStart = (ref.lens.length + refIndexBlocks) * blockSize;
    const obj = packBlocks(objRecs, blockSize, R, 0);
    allLens.push(...obj.lens);
    objBlocks = obj.lens.length;
    objIndexBlocks = indexLevels(obj.lastKeys, objStart);
  }
  const blocks = allLens.length;
  const bytes = (blocks - 1) * blockSize + allLens[blocks - 1] + footer;
  return {
    estimate: true,
    blockSize,
    restartInterval: R,
    refs: uniq.length,
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
