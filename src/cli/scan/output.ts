/**
 * Where the rows of `refscope scan` go: a Parquet file (hyparquet-writer, pure JavaScript, bundled
 * into the CLI) or JSON Lines, written whole at the end through a temporary file and a rename, and
 * the journal `<out>.progress` (JSON Lines, one row appended as each repository is done) that
 * makes an interrupted scan resumable. The journal's first line names the scan (roots, shard);
 * a journal of another scan is refused rather than mixed in.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { ROW_COLUMNS, SCAN_ROW_SCHEMA, type ScanRow } from './row.ts';

export const JOURNAL_SCHEMA = 'refscope.scan-journal/1';

/** Columns that hold text, truth values and fractions; every other column is a count (INT64). */
const STRING_COLUMNS = new Set([
  'root',
  'path',
  'layout',
  'backend',
  'autoSegment',
  'findingCodes',
  'unreadableReason',
  'workload',
  'estimateNote',
  'error',
]);
const BOOLEAN_COLUMNS = new Set(['bare', 'gitReadable']);
function columnType(name: string): 'STRING' | 'BOOLEAN' | 'DOUBLE' | 'INT64' {
  if (STRING_COLUMNS.has(name) || name.endsWith('Fix')) return 'STRING';
  if (BOOLEAN_COLUMNS.has(name)) return 'BOOLEAN';
  if (name === 'tombstoneShare' || name.endsWith('Seconds') || name.endsWith('Gain')) return 'DOUBLE';
  return 'INT64';
}

/** `parquet` for a `.parquet` name, else JSON Lines. */
export function formatOf(out: string): 'parquet' | 'jsonl' {
  return /\.parquet$/i.test(out) ? 'parquet' : 'jsonl';
}

/** The rows as a Parquet file's bytes (one row group per 100,000 rows; key-value metadata names the schema). */
export function parquetBytes(rows: ScanRow[], generator: string): Uint8Array {
  const columnData = ROW_COLUMNS.map((name) => {
    const type = columnType(name);
    const data = rows.map((r) => {
      const v = r[name as keyof ScanRow] as unknown;
      if (v === null || v === undefined) return null;
      return type === 'INT64' ? BigInt(v as number) : v;
    });
    return { name, type, data, nullable: true };
  });
  const buf = parquetWriteBuffer({
    columnData,
    rowGroupSize: 100_000,
    kvMetadata: [{ key: 'refscope.schema', value: SCAN_ROW_SCHEMA }],
    createdBy: generator,
  } as Parameters<typeof parquetWriteBuffer>[0]);
  return new Uint8Array(buf);
}

/** One row as its JSON Lines line. */
export function jsonLine(r: ScanRow): string {
  return JSON.stringify(r) + '\n';
}

/** Write `bytes` to `file` through a temporary file and a rename (a reader never sees half a file). */
export function writeWhole(file: string, bytes: Uint8Array | string): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, bytes);
  fs.renameSync(tmp, file);
}

/** What identifies a scan in its journal: resuming with other roots or another shard is refused. */
export interface JournalHeader {
  journal: typeof JOURNAL_SCHEMA;
  roots: string[];
  shard: string | null;
}

/** The journal of `out`: rows already done (a half-written last line is dropped). */
export function readJournal(file: string, header: JournalHeader): { rows: ScanRow[]; mismatch: string | null } {
  if (!fs.existsSync(file)) return { rows: [], mismatch: null };
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  let head: JournalHeader | null;
  try {
    head = JSON.parse(lines[0]) as JournalHeader;
  } catch {
    head = null;
  }
  if (!head || head.journal !== JOURNAL_SCHEMA)
    return { rows: [], mismatch: 'its first line is not a scan journal header' };
  if (JSON.stringify(head.roots) !== JSON.stringify(header.roots) || head.shard !== header.shard)
    return {
      rows: [],
      mismatch: `it is the journal of a scan of ${head.roots.join(' ')}${head.shard ? ` --shard ${head.shard}` : ''}`,
    };
  const rows: ScanRow[] = [];
  for (const l of lines.slice(1)) {
    if (!l) continue;
    try {
      rows.push(JSON.parse(l) as ScanRow);
    } catch {
      // the line being written when the scan was stopped: that repository is scanned again
    }
  }
  return { rows, mismatch: null };
}

/** An open journal: rows are appended one line each as they complete. */
export class Journal {
  private fd: number;
  constructor(
    readonly file: string,
    header: JournalHeader,
    fresh: boolean,
  ) {
    if (fresh) fs.writeFileSync(file, JSON.stringify(header) + '\n');
    else {
      // A half-written last line would glue onto the next row: end it first.
      const text = fs.readFileSync(file, 'utf8');
      if (text.length && !text.endsWith('\n')) fs.appendFileSync(file, '\n');
    }
    this.fd = fs.openSync(file, 'a');
  }
  add(r: ScanRow): void {
    fs.writeSync(this.fd, jsonLine(r));
  }
  close(remove: boolean): void {
    fs.closeSync(this.fd);
    if (remove) fs.rmSync(this.file, { force: true });
  }
}
