/**
 * stack: `tables.list`, the tables it names, and the merged view git sees.
 *
 * Rules (spec "Stack" / "Update transactions", git's reftable/merged.c behaviour):
 * tables are listed oldest first; for each key the record of the newest table that has the key
 * wins; a winning deletion (tombstone) hides every older record of that key. Tables not listed
 * are garbage (reported as a warning, not read).
 */
import { type InputFile, FormatError, BudgetError, Budget, type Finding, readAll } from '../basics.ts';
import { type Table, type PartialTable, openTable, openPartial, type OpenOptions } from './table.ts';
import { HEADER_SIZE_V1, MAX_STACK_TABLES, VERSION_OFFSET } from './constants.ts';

/** A table that could not be parsed: the rest of the stack is still analysed. */
export interface BrokenTable {
  name: string;
  path: string;
  fileSize: number;
  error: FormatError;
  /**
   * What refscope could still read of it (not what git sees: git refuses the table): the blocks
   * before the first bad byte, for the block map and hex view. Absent for a missing file.
   */
  partial?: PartialTable;
}

/** A loaded stack: the tables in `tables.list` order (oldest first). */
export interface Stack {
  /** Path of `tables.list`, or '' for a lone table. */
  listPath: string;
  /** Names as listed. */
  names: string[];
  /** Parsed tables, same order as `names`; a broken one is `null` (see `broken`). */
  tables: (Table | null)[];
  broken: BrokenTable[];
  findings: Finding[];
}

const SAFE_NAME = /^[^/\\]+$/;

/**
 * Parse `tables.list`: one table file name per line (LF-terminated; empty lines are skipped, as
 * git does). Throws `FormatError` for an unsafe name (containing `/`, `\\` or equal to
 * `.`/`..`) or a missing final newline (git: REFTABLE_FORMAT_ERROR).
 */
export function parseTablesList(path: string, bytes: Uint8Array): string[] {
  return parseTablesListAt(path, bytes).names;
}

const utf8 = new TextDecoder();

/** The error for a `tables.list` naming more than `MAX_STACK_TABLES` distinct tables (line `i` is the first past it). */
function tooManyTables(path: string, offset: number, lines: number, i: number): FormatError {
  return new FormatError(
    path,
    offset,
    `a stack of at most ${MAX_STACK_TABLES.toLocaleString('en-US')} distinct tables (refscope's limit, MAX_STACK_TABLES; git's auto-compaction keeps a stack to a few dozen), found more: line ${(i + 1).toLocaleString('en-US')} of ${lines.toLocaleString('en-US')} names table ${(MAX_STACK_TABLES + 1).toLocaleString('en-US')}`,
  );
}
/** `parseTablesList` with the byte offset of each line (for errors and warnings about a name). */
function parseTablesListAt(path: string, bytes: Uint8Array): { names: string[]; offsets: number[]; empty: number[] } {
  const names: string[] = [];
  const offsets: number[] = [];
  const empty: number[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0x0a) continue;
    const name = utf8.decode(bytes.subarray(start, i));
    // git skips empty lines (reftable/basics.c parse_names keeps only non-empty ones).
    if (!name) {
      empty.push(start);
      start = i + 1;
      continue;
    }
    if (!SAFE_NAME.test(name) || name === '.' || name === '..') {
      throw new FormatError(path, start, `a plain file name (no '/', no '..'), found ${JSON.stringify(name)}`);
    }
    names.push(name);
    offsets.push(start);
    start = i + 1;
  }
  if (start !== bytes.length) throw new FormatError(path, start, 'a newline at the end of the last line');
  return { names, offsets, empty };
}

/**
 * Load a stack. `list` is the `tables.list` file (or null for a set of lone `.ref` files, taken in
 * update-index order); `files` maps a file name to its input. Tables named but missing and tables
 * that fail to parse are reported in `broken`; `.ref` files present but not listed are warnings.
 */
export function loadStack(list: InputFile | null, refFiles: InputFile[], opts: OpenOptions = {}): Stack {
  const byName = new Map(refFiles.map((f) => [f.path.split('/').pop()!, f]));
  const findings: Finding[] = [];
  // One budget for every table of the stack (see OpenOptions.deadline / maxRecords).
  const budget = opts.budget ?? new Budget(opts.deadline, opts.maxRecords);
  let names: string[];
  let lineAt: number[] = [];
  if (list) {
    // 64 MiB of names is over a million tables: more is not a stack git could have written.
    if (list.source.size > 64 * 1048576)
      throw new FormatError(
        list.path,
        64 * 1048576,
        `a tables.list of at most 64 MiB (this one has ${list.source.size.toLocaleString('en-US')} bytes)`,
      );
    let empty: number[];
    ({ names, offsets: lineAt, empty } = parseTablesListAt(list.path, readAll(list.source)));
    if (empty.length) {
      findings.push({
        severity: 'info',
        file: list.path,
        offset: empty[0],
        message: `${empty.length} empty line${empty.length === 1 ? '' : 's'} (git skips them)`,
      });
    }
    // A name on several lines: git (reftable/stack.c reftable_stack_reload_once) opens it once
    // per line and merges the copies like any tables; not an error. One warning per name.
    const listed = new Map<string, { repeat: number; count: number }>();
    names.forEach((n, i) => {
      const e = listed.get(n);
      if (!e) {
        // Refused before any table is opened (`MAX_STACK_TABLES`), at the first line past it.
        if (listed.size === MAX_STACK_TABLES) throw tooManyTables(list.path, lineAt[i], names.length, i);
        listed.set(n, { repeat: -1, count: 1 });
      } else if (e.count++ === 1) e.repeat = i;
    });
    for (const [n, e] of listed) {
      if (e.count < 2) continue;
      findings.push({
        severity: 'warning',
        file: list.path,
        offset: lineAt[e.repeat],
        message: `table ${JSON.stringify(n)} is listed ${e.count} times (git opens it once per line and merges the copies: the refs do not change, every read pays for each copy)`,
      });
    }
    for (const n of byName.keys()) {
      if (!listed.has(n) && n.endsWith('.ref')) {
        findings.push({
          severity: 'warning',
          file: byName.get(n)!.path,
          offset: -1,
          message: 'table file not listed in tables.list (garbage git would delete on the next compaction)',
        });
      }
    }
  } else {
    names = [...byName.keys()].filter((n) => n.endsWith('.ref')).sort();
    if (names.length > MAX_STACK_TABLES) {
      const n = names[MAX_STACK_TABLES];
      throw new FormatError(
        byName.get(n)!.path,
        0,
        `at most ${MAX_STACK_TABLES.toLocaleString('en-US')} tables in one stack (refscope's limit, MAX_STACK_TABLES), found ${names.length.toLocaleString('en-US')} .ref files`,
      );
    }
  }
  const tables: (Table | null)[] = [];
  const broken: BrokenTable[] = [];
  let done = 0;
  // Each distinct table is parsed once; a repeated line gets the same table (or stays broken).
  const opened = new Map<string, Table | null>();
  names.forEach((n, i) => {
    const again = opened.get(n);
    if (again !== undefined) {
      tables.push(again);
      return;
    }
    const f = byName.get(n);
    if (!f) {
      // Only reachable with a list: lone tables are named after the files themselves.
      const e = new FormatError(
        list ? list.path : n,
        lineAt[i] ?? 0,
        `table file ${JSON.stringify(n)} named in tables.list to exist`,
      );
      broken.push({ name: n, path: n, fileSize: 0, error: e });
      tables.push(null);
      opened.set(n, null);
      return;
    }
    try {
      const base = done;
      const pre = opts.preopened?.get(f.path);
      if (pre) {
        const c = pre.counts;
        budget.records += c.ref + c.peeled + c.symref + c.tombstone + c.log + c.logDeletion + c.obj + c.index;
        budget.check(f.path, 0);
        opts.onProgress?.(base + f.source.size);
      }
      const t =
        pre ??
        openTable(f, {
          ...opts,
          budget,
          onProgress: opts.onProgress ? (b) => opts.onProgress!(base + b) : undefined,
        });
      tables.push(t);
      opened.set(n, t);
      for (const w of t.findings) findings.push(w);
    } catch (e) {
      // A budget stop ends the whole analysis; any other format error breaks this table only.
      if (!(e instanceof FormatError) || e instanceof BudgetError) throw e;
      broken.push({
        name: n,
        path: f.path,
        fileSize: f.source.size,
        error: e,
        partial: openPartial(f, e, { ...opts, budget }),
      });
      tables.push(null);
      opened.set(n, null);
    }
    done += f.source.size;
  });
  // One hash for the whole stack: git's reftable/merged.c `reftable_merged_table_new` refuses a
  // stack with a table whose hash id differs from the stack's (REFTABLE_FORMAT_ERROR, the stack
  // does not load). The stack's hash is the repository's object format; without it, the first
  // readable table's.
  const first = tables.find((t) => t);
  const want = opts.hashId ?? first?.header.hashId;
  if (want) {
    const refused = new Set<Table>();
    tables.forEach((t, i) => {
      if (!t || t.header.hashId === want) return;
      if (refused.has(t)) {
        tables[i] = null;
        return;
      }
      refused.add(t);
      const from = opts.hashId ? "the repository's object format" : `that of the stack's first table ${first!.name}`;
      const at = t.header.version === 2 ? HEADER_SIZE_V1 : VERSION_OFFSET;
      const found = t.header.version === 2 ? `'${t.header.hashId}'` : "'sha1' (a version 1 table is always SHA-1)";
      const e = new FormatError(
        t.path,
        at,
        `hash id '${want}' as every table of the stack (${from}), found ${found}; git refuses the stack`,
      );
      broken.push({ name: names[i], path: t.path, fileSize: t.fileSize, error: e });
      tables[i] = null;
    });
  }
  if (!list) {
    // Lone tables: order by update index, as they would be listed.
    const order = tables
      .map((t, i) => i)
      .sort((a, b) => (tables[a]?.header.minUpdateIndex ?? 0) - (tables[b]?.header.minUpdateIndex ?? 0));
    names = order.map((i) => names[i]);
    const t2 = order.map((i) => tables[i]);
    for (let i = 0; i < t2.length; i++) tables[i] = t2[i];
  }
  // Update-index continuity: each table's min should be the previous max + 1; overlaps are suspect
  // (git accepts them). Records outside their own table's range are rejected by `openTable`.
  let prev: Table | null = null;
  for (const t of tables) {
    if (!t) continue;
    if (prev && prev !== t) {
      if (t.header.minUpdateIndex <= prev.header.maxUpdateIndex) {
        findings.push({
          severity: 'warning',
          file: t.path,
          offset: 8,
          message: `update-index range ${t.header.minUpdateIndex}..${t.header.maxUpdateIndex} overlaps the older table ${prev.name} (${prev.header.minUpdateIndex}..${prev.header.maxUpdateIndex})`,
        });
      }
    }
    prev = t;
  }
  return { listPath: list?.path ?? '', names, tables, broken, findings };
}
