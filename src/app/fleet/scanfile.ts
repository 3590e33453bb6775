/**
 * Reading a `refscope scan` result (schemas/scan-row.schema.json) from its bytes: Parquet (through
 * hyparquet, loaded only when such a file is opened) or JSON Lines. Pure: the page and the tests use
 * it alike. Errors name the file, the byte offset and what was expected, as everywhere else.
 */
import { FormatError } from '../../engine/basics.ts';

/** A row as the fleet view uses it: the row's fields, numbers as numbers. */
export type FleetRow = Record<string, string | number | boolean | null>;

/** The schema a scan file's rows follow. */
export const ROW_SCHEMA = 'refscope.scan-row/1';

/** Parquet files start (and end) with these four bytes. */
function isParquet(b: Uint8Array): boolean {
  return b.length >= 8 && b[0] === 0x50 && b[1] === 0x41 && b[2] === 0x52 && b[3] === 0x31;
}

/** Does this file look like a scan result (by name and first bytes), before it is read whole? */
export function looksLikeScanFile(name: string, head: Uint8Array): boolean {
  if (/\.parquet$/i.test(name)) return isParquet(head);
  if (/\.jsonl$/i.test(name) || /\.ndjson$/i.test(name)) {
    const text = new TextDecoder().decode(head.subarray(0, 4096));
    return /^\{"root":/.test(text) || text.trim() === '';
  }
  return false;
}

function plain(v: unknown): string | number | boolean | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  return String(v);
}

/** The rows of a scan file. Throws FormatError naming `name` when it is not one. */
export async function readScanFile(name: string, bytes: Uint8Array): Promise<FleetRow[]> {
  if (isParquet(bytes)) {
    const { parquetMetadata, parquetReadObjects } = await import('hyparquet');
    const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    let meta;
    try {
      meta = parquetMetadata(ab);
    } catch (e) {
      throw new FormatError(name, Math.max(0, bytes.length - 8), `a Parquet footer (${(e as Error).message})`);
    }
    const schema = meta.key_value_metadata?.find((k) => k.key === 'refscope.schema')?.value;
    if (schema !== ROW_SCHEMA)
      throw new FormatError(
        name,
        Math.max(0, bytes.length - 8),
        `a refscope scan result (key-value metadata refscope.schema = ${ROW_SCHEMA}), found ${schema ? JSON.stringify(schema) : 'none'}`,
      );
    const objs = (await parquetReadObjects({ file: ab, metadata: meta })) as Record<string, unknown>[];
    return objs.map((o) => {
      const r: FleetRow = {};
      for (const [k, v] of Object.entries(o)) r[k] = plain(v);
      return r;
    });
  }
  const text = new TextDecoder().decode(bytes);
  const rows: FleetRow[] = [];
  let offset = 0;
  for (const line of text.split('\n')) {
    const at = offset;
    offset += new TextEncoder().encode(line).length + 1;
    if (!line.trim()) continue;
    let o: unknown;
    try {
      o = JSON.parse(line);
    } catch {
      throw new FormatError(name, at, 'a JSON object per line (a refscope scan row)');
    }
    if (
      !o ||
      typeof o !== 'object' ||
      typeof (o as FleetRow).root !== 'string' ||
      typeof (o as FleetRow).path !== 'string'
    )
      throw new FormatError(name, at, 'a refscope scan row (an object with root and path)');
    rows.push(o as FleetRow);
  }
  return rows;
}
