/**
 * workload: what the simulator replays. Two sources:
 * - `parseUpdateRefStdin`: the input of `git update-ref --stdin` (text, or `-z` NUL-separated),
 *   with git's grammar and transaction states (builtin/update-ref.c: `create`, `update`,
 *   `delete`, `verify`, `symref-*`, `option`, `start`, `prepare`, `commit`, `abort`).
 * - `parseWorkloadSpec` + `generateWorkload`: compact generated workloads (docs/simulator.md,
 *   "Workload specs"), e.g. `recreate`, `create:10000:refs/heads/new/`, `lookup:missing:1000`,
 *   `scan:refs/tags/`, `oid:100`.
 *
 * Names are byte strings (one char per byte, see basics.bytesToKey). Pure TypeScript.
 */
import { FormatError } from '../basics.ts';
import { checkRefnameFormat } from '../files/refname.ts';

/** New value of an update. */
export type NewValue = { kind: 'oid'; oid: string } | { kind: 'symref'; target: string } | { kind: 'delete' };

/** Old value an update checks. `zero` = the ref must not exist. */
export type OldValue = { kind: 'oid'; oid: string } | { kind: 'zero' } | { kind: 'symref'; target: string };

/** One ref update, as `ref_transaction_update` receives it. */
export interface RefUpdate {
  /** Command that produced it. */
  op: 'create' | 'update' | 'delete' | 'verify' | 'symref-create' | 'symref-update' | 'symref-delete' | 'symref-verify';
  ref: string;
  /** null for verify (no change). */
  newValue: NewValue | null;
  /** null: no old value given. */
  oldValue: OldValue | null;
  /** `option no-deref` was in effect. */
  noDeref: boolean;
  /**
   * Arguments that git resolves with `repo_get_oid` (new and old object ids as written): full
   * hex ids trigger the ambiguity check (six dwim ref reads) up to git 2.49; other revisions
   * (`main`, `HEAD~2`) are always resolved through the dwim rules.
   */
  oidArgs: string[];
}

/** One transaction: its updates and how it ended. */
export interface Transaction {
  updates: RefUpdate[];
  /** `commit` (explicit or at the end of input without `start`), `abort`, or `prepare` then abort. */
  end: 'commit' | 'abort';
  /** `prepare` ran (reads happen) before an abort. Committed transactions always prepare. */
  prepared: boolean;
}

/** A workload: ref updates in transactions, or reads. */
export type Workload =
  | { kind: 'updates'; description: string; transactions: Transaction[] }
  | { kind: 'lookups'; description: string; names: string[] }
  | { kind: 'scans'; description: string; prefixes: string[] }
  | { kind: 'objects'; description: string; oids: string[] };

/** Size of a workload in operations: ref updates, reads, scans or object lookups. */
export function workloadSize(w: Workload): number {
  switch (w.kind) {
    case 'updates':
      return w.transactions.reduce((s, t) => s + t.updates.length, 0);
    case 'lookups':
      return w.names.length;
    case 'scans':
      return w.prefixes.length;
    case 'objects':
      return w.oids.length;
  }
}

/** True if `s` is a full object id in hex (40 digits for SHA-1, 64 for SHA-256). */
export function isFullHex(s: string, hexLen: number): boolean {
  if (s.length !== hexLen) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))) return false;
  }
  return true;
}

/** Options of `parseUpdateRefStdin`. */
export interface StdinOptions {
  /** `-z`: NUL-terminated arguments. */
  z?: boolean;
  /** Hex digits of a full object id: 40 (SHA-1, default) or 64 (SHA-256). */
  hexLength?: number;
  /** File name for error messages. */
  file?: string;
}

/** Commands and their argument counts (for -z reading), as update-ref.c's table. */
const COMMANDS: { name: string; args: number; state: State }[] = [
  { name: 'update', args: 3, state: 0 },
  { name: 'create', args: 2, state: 0 },
  { name: 'delete', args: 2, state: 0 },
  { name: 'verify', args: 2, state: 0 },
  { name: 'symref-update', args: 4, state: 0 },
  { name: 'symref-create', args: 2, state: 0 },
  { name: 'symref-delete', args: 2, state: 0 },
  { name: 'symref-verify', args: 2, state: 0 },
  { name: 'option', args: 1, state: 0 },
  { name: 'start', args: 0, state: 1 },
  { name: 'prepare', args: 0, state: 2 },
  { name: 'abort', args: 0, state: 3 },
  { name: 'commit', args: 0, state: 3 },
];
/** update-ref.c `enum update_refs_state`: OPEN, STARTED, PREPARED, CLOSED. */
type State = 0 | 1 | 2 | 3;

/** A C-quoted argument (text mode): `"…"` with \\ \" \a \b \f \n \r \t \v and 3-digit octal. */
function unquoteC(s: string, at: number, file: string, base: number): { value: string; end: number } {
  let i = at + 1;
  let out = '';
  const esc: Record<string, string> = {
    a: '\x07',
    b: '\b',
    f: '\f',
    n: '\n',
    r: '\r',
    t: '\t',
    v: '\v',
    '\\': '\\',
    '"': '"',
  };
  while (i < s.length) {
    const c = s[i];
    if (c === '"') return { value: out, end: i + 1 };
    if (c === '\\') {
      const d = s[i + 1];
      if (d === undefined) break;
      if (esc[d] !== undefined) {
        out += esc[d];
        i += 2;
        continue;
      }
      if (/[0-3]/.test(d) && /^[0-7]{2}$/.test(s.slice(i + 2, i + 4))) {
        out += String.fromCharCode(parseInt(s.slice(i + 1, i + 4), 8));
        i += 4;
        continue;
      }
      throw new FormatError(file, base + i, 'a valid C-quoted argument (\\\\, \\", \\n, \\t, \\ooo …)');
    }
    out += c;
    i++;
  }
  throw new FormatError(file, base + at, "a closing '\"' for the quoted argument");
}

function isSpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\v' || c === '\f' || c === '\r';
}

/** Updates one `--stdin` input may hold (the cap of generated workloads). */
export const MAX_STDIN_UPDATES = 200_000;
/** Transactions one `--stdin` input may hold (`start` … `commit` per update, as `:per-ref`). */
export const MAX_STDIN_TRANSACTIONS = 200_000;

/**
 * Parse `git update-ref --stdin` input (as a byte string: one char per byte). Follows git's
 * state machine: commands outside `start`…`commit` form one transaction committed at the end of
 * input; `start` opens a transaction, `prepare` runs the checks, `commit`/`abort` close it and
 * only `start` may follow; a transaction left open at the end of input is aborted.
 * Errors are `FormatError(file, offset, expected)` with git's message as the expectation; also
 * past MAX_STDIN_UPDATES updates or MAX_STDIN_TRANSACTIONS transactions (at the line that
 * crosses the limit).
 */
export function parseUpdateRefStdin(input: string, opts: StdinOptions = {}): Transaction[] {
  const file = opts.file ?? '(stdin)';
  const z = !!opts.z;
  const term = z ? '\0' : '\n';
  const hexLen = opts.hexLength ?? 40;
  const txs: Transaction[] = [];
  let cur: RefUpdate[] = [];
  let prepared = false;
  let state: State = 0;
  let noDeref = false;
  let pos = 0;
  let updatesSeen = 0;

  for (;;) {
    if (pos >= input.length) break;
    const lineStart = pos;
    let lineEnd = input.indexOf(term, pos);
    if (lineEnd < 0) lineEnd = input.length;
    pos = lineEnd < input.length ? lineEnd + 1 : lineEnd;
    const line = input.slice(lineStart, lineEnd);
    if (line.length === 0) throw new FormatError(file, lineStart, 'a command (git: "empty command in input")');
    if (isSpace(line[0]))
      throw new FormatError(file, lineStart, 'a command at the start of the line (git: "whitespace before command")');
    let cmd: (typeof COMMANDS)[number] | null = null;
    for (const c of COMMANDS) {
      if (!line.startsWith(c.name)) continue;
      const after = line.length === c.name.length ? (c.args ? null : '') : line[c.name.length];
      if (c.args ? after === ' ' : after === '') {
        cmd = c;
        break;
      }
    }
    if (!cmd) {
      const word = line.split(/[ \0]/)[0];
      throw new FormatError(
        file,
        lineStart,
        `a command (create, update, delete, verify, symref-create, symref-update, symref-delete, symref-verify, option, start, prepare, commit, abort), found ${JSON.stringify(word.slice(0, 40))} (git: "unknown command")`,
      );
    }
    // Arguments: text mode splits the rest of the line; -z reads further NUL-terminated fields.
    const args: { v: string; at: number }[] = [];
    if (cmd.args) {
      const restAt = lineStart + cmd.name.length + 1;
      const rest = line.slice(cmd.name.length + 1);
      if (z) {
        args.push({ v: rest, at: restAt });
        for (let j = 1; j < cmd.args; j++) {
          if (pos >= input.length) break;
          const at = pos;
          let e = input.indexOf(term, pos);
          if (e < 0) e = input.length;
          pos = e < input.length ? e + 1 : e;
          args.push({ v: input.slice(at, e), at });
        }
      } else if (cmd.name === 'option') {
        args.push({ v: rest, at: restAt });
      } else {
        let i = 0;
        while (i <= rest.length) {
          if (rest[i] === '"') {
            const q = unquoteC(rest, i, file, restAt);
            if (q.end < rest.length && !isSpace(rest[q.end])) {
              throw new FormatError(
                file,
                restAt + q.end,
                'a space or the end of the line after the quoted argument (git: "unexpected character after quoted argument")',
              );
            }
            args.push({ v: q.value, at: restAt + i });
            i = q.end;
          } else {
            let j = i;
            while (j < rest.length && !isSpace(rest[j])) j++;
            args.push({ v: rest.slice(i, j), at: restAt + i });
            i = j;
          }
          if (i >= rest.length) break;
          if (rest[i] !== ' ')
            throw new FormatError(file, restAt + i, `a single space between arguments (git: "expected SP")`);
          i++;
          if (i === rest.length) {
            args.push({ v: '', at: restAt + i });
            break;
          }
        }
      }
    }
    // State machine.
    const target = cmd.state;
    if (state === 0 || state === 1) {
      if (state === 1 && target === 1)
        throw new FormatError(
          file,
          lineStart,
          'no second "start" inside a transaction (git: "cannot restart ongoing transaction")',
        );
      if (target >= state) state = target;
    } else if (state === 2) {
      if (target !== 3)
        throw new FormatError(
          file,
          lineStart,
          '"commit" or "abort" after "prepare" (git: "prepared transactions can only be closed")',
        );
      state = target;
    } else {
      if (target !== 1)
        throw new FormatError(file, lineStart, '"start" after a closed transaction (git: "transaction is closed")');
      state = 1;
    }
    const name = cmd.name;
    if (name === 'start') continue;
    if (name === 'prepare') {
      prepared = true;
      continue;
    }
    if (name === 'commit' || name === 'abort') {
      if (txs.length >= MAX_STDIN_TRANSACTIONS) {
        throw new FormatError(
          file,
          lineStart,
          `at most ${MAX_STDIN_TRANSACTIONS.toLocaleString('en-US')} transactions (the simulator's limit)`,
        );
      }
      txs.push({ updates: cur, end: name === 'commit' ? 'commit' : 'abort', prepared: name === 'commit' || prepared });
      cur = [];
      prepared = false;
      continue;
    }
    if (name === 'option') {
      const v = args[0]?.v ?? '';
      if (v !== 'no-deref')
        throw new FormatError(
          file,
          args[0]?.at ?? lineStart,
          `option "no-deref" (git: "option unknown: ${v.slice(0, 40)}")`,
        );
      noDeref = true;
      continue;
    }
    const u = parseUpdate(name as RefUpdate['op'], args, {
      file,
      z,
      hexLen,
      lineStart,
      lineEnd: lineStart + line.length,
      noDeref,
    });
    noDeref = false;
    if (++updatesSeen > MAX_STDIN_UPDATES) {
      throw new FormatError(
        file,
        lineStart,
        `at most ${MAX_STDIN_UPDATES.toLocaleString('en-US')} updates (the simulator's limit, as for generated workloads)`,
      );
    }
    cur.push(u);
  }
  if (state === 0) txs.push({ updates: cur, end: 'commit', prepared: true });
  else if (state === 1 || state === 2) txs.push({ updates: cur, end: 'abort', prepared });
  return txs;
}

interface ParseCtx {
  file: string;
  z: boolean;
  hexLen: number;
  lineStart: number;
  lineEnd: number;
  noDeref: boolean;
}

/** Per-command parse state (module-level helpers instead of per-line closures). */
interface UpdateCtx {
  c: ParseCtx;
  op: string;
  name: string;
  args: { v: string; at: number }[];
  oidArgs: string[];
}

/**
 * The object id argument i: text mode: empty = zero; -z: empty = not given (unless
 * `allowEmptyAsZero`, update's <new-oid>). A revision (ref name, abbreviated id, HEAD~2…) is
 * kept as given (refscope cannot resolve it without the object database) and counts as non-zero.
 */
function oidArg(u: UpdateCtx, i: number, what: string, required: boolean, allowEmptyAsZero: boolean): string | null {
  const { c, op, name } = u;
  const a = u.args[i];
  if (!a) {
    if (required) throw new FormatError(c.file, c.lineEnd, `${what} (git: "${op} ${name}: missing ${what}")`);
    return null;
  }
  if (a.v === '') {
    if (!c.z || allowEmptyAsZero) return '0'.repeat(c.hexLen);
    if (required) throw new FormatError(c.file, a.at, `${what} (git: "${op} ${name}: missing ${what}")`);
    return null;
  }
  u.oidArgs.push(a.v);
  if (isFullHex(a.v, c.hexLen)) return a.v.toLowerCase();
  if (c.z && /\s/.test(a.v)) throw new FormatError(c.file, a.at, `${what} without spaces`);
  return a.v;
}

/** No argument after the n-th (git: "extra input"). */
function noExtra(u: UpdateCtx, n: number): void {
  if (u.args.length > n) {
    const a = u.args[n];
    throw new FormatError(
      u.c.file,
      a.at,
      `the end of the command (git: "${u.op} ${u.name}: extra input: ${a.v.slice(0, 40)}")`,
    );
  }
}

/** The all-zero object id. */
function isZeroOid(v: string | null, hexLen: number): boolean {
  if (v === null || v.length !== hexLen || v.charCodeAt(0) !== 48) return false;
  for (let i = 1; i < v.length; i++) if (v.charCodeAt(i) !== 48) return false;
  return true;
}

function parseUpdate(op: RefUpdate['op'], args: { v: string; at: number }[], c: ParseCtx): RefUpdate {
  const { file } = c;
  const ref = args[0];
  if (!ref || ref.v === '')
    throw new FormatError(file, ref?.at ?? c.lineStart, `a <ref> after "${op}" (git: "${op}: missing <ref>")`);
  if (!checkRefnameFormat(ref.v, true))
    throw new FormatError(file, ref.at, `a valid ref name (git: "invalid ref format: ${ref.v.slice(0, 60)}")`);
  const name = ref.v;
  const oidArgs: string[] = [];
  const u: UpdateCtx = { c, op, name, args, oidArgs };
  const hl = c.hexLen;
  switch (op) {
    case 'create': {
      const nv = oidArg(u, 1, '<new-oid>', true, false)!;
      if (isZeroOid(nv, hl))
        throw new FormatError(file, args[1].at, `a non-zero <new-oid> (git: "create ${name}: zero <new-oid>")`);
      noExtra(u, 2);
      return {
        op,
        ref: name,
        newValue: { kind: 'oid', oid: nv },
        oldValue: { kind: 'zero' },
        noDeref: c.noDeref,
        oidArgs,
      };
    }
    case 'update': {
      const nv = oidArg(u, 1, '<new-oid>', true, true)!;
      const ov = oidArg(u, 2, '<old-oid>', false, false);
      noExtra(u, 3);
      return {
        op,
        ref: name,
        newValue: isZeroOid(nv, hl) ? { kind: 'delete' } : { kind: 'oid', oid: nv },
        oldValue: ov === null ? null : isZeroOid(ov, hl) ? { kind: 'zero' } : { kind: 'oid', oid: ov },
        noDeref: c.noDeref,
        oidArgs,
      };
    }
    case 'delete': {
      const ov = oidArg(u, 1, '<old-oid>', false, false);
      if (ov !== null && isZeroOid(ov, hl))
        throw new FormatError(file, args[1].at, `a non-zero <old-oid> (git: "delete ${name}: zero <old-oid>")`);
      noExtra(u, 2);
      return {
        op,
        ref: name,
        newValue: { kind: 'delete' },
        oldValue: ov === null ? null : { kind: 'oid', oid: ov },
        noDeref: c.noDeref,
        oidArgs,
      };
    }
    case 'verify': {
      const ov = oidArg(u, 1, '<old-oid>', false, false);
      noExtra(u, 2);
      return {
        op,
        ref: name,
        newValue: null,
        oldValue: ov === null || isZeroOid(ov, hl) ? { kind: 'zero' } : { kind: 'oid', oid: ov },
        noDeref: c.noDeref,
        oidArgs,
      };
    }
    case 'symref-create': {
      const t = args[1];
      if (!t || t.v === '')
        throw new FormatError(
          file,
          t?.at ?? c.lineEnd,
          `<new-target> (git: "symref-create ${name}: missing <new-target>")`,
        );
      if (!checkRefnameFormat(t.v, true)) throw new FormatError(file, t.at, `a valid <new-target> ref name`);
      noExtra(u, 2);
      return {
        op,
        ref: name,
        newValue: { kind: 'symref', target: t.v },
        oldValue: { kind: 'zero' },
        noDeref: c.noDeref,
        oidArgs,
      };
    }
    case 'symref-update': {
      const t = args[1];
      if (!t || t.v === '')
        throw new FormatError(
          file,
          t?.at ?? c.lineEnd,
          `<new-target> (git: "symref-update ${name}: missing <new-target>")`,
        );
      if (!checkRefnameFormat(t.v, true)) throw new FormatError(file, t.at, `a valid <new-target> ref name`);
      let old: OldValue | null = null;
      const kind = args[2];
      if (kind && kind.v !== '') {
        const v = args[3];
        if (kind.v === 'ref') {
          if (!v || v.v === '') throw new FormatError(file, v?.at ?? c.lineEnd, `<old-target> after "ref"`);
          old = { kind: 'symref', target: v.v };
        } else if (kind.v === 'oid') {
          const ov = oidArg(u, 3, '<old-oid>', true, false)!;
          old = isZeroOid(ov, hl) ? { kind: 'zero' } : { kind: 'oid', oid: ov };
        } else {
          throw new FormatError(
            file,
            kind.at,
            `"ref" or "oid" before the old value (git: "symref-update ${name}: invalid arg '${kind.v.slice(0, 20)}' for old value")`,
          );
        }
        noExtra(u, 4);
      } else noExtra(u, c.z ? 4 : 2);
      return { op, ref: name, newValue: { kind: 'symref', target: t.v }, oldValue: old, noDeref: true, oidArgs };
    }
    case 'symref-delete':
    case 'symref-verify': {
      const t = args[1];
      const old: OldValue | null =
        t && t.v !== '' ? { kind: 'symref', target: t.v } : op === 'symref-verify' ? { kind: 'zero' } : null;
      noExtra(u, 2);
      return {
        op,
        ref: name,
        newValue: op === 'symref-delete' ? { kind: 'delete' } : null,
        oldValue: old,
        noDeref: true,
        oidArgs,
      };
    }
  }
}

/** Decode bytes (a file's contents) to the byte-string form the parser takes. */
export function bytesToLatin1(b: Uint8Array): string {
  let s = '';
  const CH = 8192;
  for (let i = 0; i < b.length; i += CH)
    s += String.fromCharCode.apply(null, b.subarray(i, Math.min(b.length, i + CH)) as unknown as number[]);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Workload specs

/** A parsed `--workload` spec (docs/simulator.md "Workload specs"). */
export type WorkloadSpec =
  | { kind: 'recreate'; perRef: boolean }
  | { kind: 'create'; n: number; prefix: string; perRef: boolean }
  | { kind: 'delete-all'; perRef: boolean }
  | { kind: 'lookup'; which: 'existing' | 'missing' | 'tombstoned'; n: number }
  | { kind: 'lookup-names'; names: string[] }
  | { kind: 'scan'; prefix: string; n: number }
  | { kind: 'oid'; n: number };

/** Thrown for a malformed spec (the CLI turns it into a usage error). */
export class SpecError extends Error {}

// Generated workloads are capped so that one command cannot run for minutes (the chart goes to 10^5).
const MAX_N = 200_000;

function count(s: string | undefined, what: string): number {
  if (s === undefined || !/^[0-9]+$/.test(s))
    throw new SpecError(`${what}: a count (a positive integer), found ${JSON.stringify(s ?? '')}`);
  const n = Number(s);
  if (n < 1 || n > MAX_N) throw new SpecError(`${what}: a count between 1 and ${MAX_N}, found ${n}`);
  return n;
}

/**
 * Parse a workload spec. Grammar (fields separated by ':', which no ref name can contain):
 * - `recreate[:per-ref]`: re-create every ref a winning tombstone hides, with the value it hides.
 * - `create:<n>:<prefix>[:per-ref]`: create `<prefix>0` … `<prefix><n-1>`.
 * - `delete-all[:per-ref]`: delete every live ref under `refs/`.
 * - `lookup:existing|missing|tombstoned:<n>`: n point reads of such names, spread evenly over the stack.
 * - `lookup:names:<name>[:<name>…]`: point reads of the given names.
 * - `scan:<prefix>[:<n>]`: a prefix scan (`git for-each-ref <prefix>`), n times (default 1).
 * - `oid:<n>` (or `lookup:oid:<n>`): n lookups by object id of values the stack holds.
 * `:per-ref` makes each ref update its own transaction (`start`/`commit` around each); the
 * default is one transaction for all.
 */
export function parseWorkloadSpec(spec: string): WorkloadSpec {
  const f = spec.split(':');
  const perRef = (rest: string[]): boolean => {
    if (rest.length === 0) return false;
    if (rest.length === 1 && (rest[0] === 'per-ref' || rest[0] === 'one')) return rest[0] === 'per-ref';
    throw new SpecError(
      `unexpected ${JSON.stringify(rest.join(':'))} in workload ${JSON.stringify(spec)} (expected nothing, ":per-ref" or ":one")`,
    );
  };
  switch (f[0]) {
    case 'recreate':
      return { kind: 'recreate', perRef: perRef(f.slice(1)) };
    case 'delete-all':
      return { kind: 'delete-all', perRef: perRef(f.slice(1)) };
    case 'create': {
      const n = count(f[1], 'create');
      const prefix = f[2] ?? '';
      if (!prefix) throw new SpecError('create: a ref name prefix, e.g. create:1000:refs/heads/new/');
      if (!checkRefnameFormat(prefix + '0', true))
        throw new SpecError(`create: ${JSON.stringify(prefix)} + a number is not a valid ref name`);
      return { kind: 'create', n, prefix, perRef: perRef(f.slice(3)) };
    }
    case 'lookup': {
      const which = f[1];
      if (which === 'names') {
        const names = f.slice(2).filter((x) => x !== '');
        if (!names.length) throw new SpecError('lookup:names: at least one ref name');
        return { kind: 'lookup-names', names };
      }
      if (which === 'oid') return { kind: 'oid', n: count(f[2], 'lookup:oid') };
      if (which !== 'existing' && which !== 'missing' && which !== 'tombstoned') {
        throw new SpecError(
          `lookup: existing, missing, tombstoned, oid or names, found ${JSON.stringify(which ?? '')}`,
        );
      }
      if (f.length > 3)
        throw new SpecError(`unexpected ${JSON.stringify(f.slice(3).join(':'))} in ${JSON.stringify(spec)}`);
      return { kind: 'lookup', which, n: count(f[2], `lookup:${which}`) };
    }
    case 'scan': {
      const prefix = f[1] ?? '';
      if (f.length > 3)
        throw new SpecError(`unexpected ${JSON.stringify(f.slice(3).join(':'))} in ${JSON.stringify(spec)}`);
      return { kind: 'scan', prefix, n: f[2] === undefined ? 1 : count(f[2], 'scan') };
    }
    case 'oid':
      return { kind: 'oid', n: count(f[1], 'oid') };
    default:
      throw new SpecError(
        `unknown workload ${JSON.stringify(f[0])}: recreate, create:<n>:<prefix>, delete-all, lookup:existing|missing|tombstoned:<n>, lookup:names:<name>…, scan:<prefix>, oid:<n>`,
      );
  }
}

/** A record's value (object id or symref target). */
export interface FactValue {
  oid: string | null;
  target: string | null;
}

/** What a generator needs to know about the stack (from the simulator's store). Names are sorted. */
export interface StackFacts {
  /** Names of the live refs in the merged view. */
  liveNames(): readonly string[];
  /** Value of live ref i (of `liveNames()`). */
  liveValue(i: number): FactValue;
  /** Names of the winning tombstones. */
  tombstoneNames(): readonly string[];
  /** The value of the record tombstone i hides (null if it hides nothing). */
  hiddenValue(i: number): FactValue | null;
  /** Every key of the merged view (live refs and tombstones), sorted. */
  keys(): readonly string[];
  /** Object id hex length (40 or 64). */
  hexLength: number;
  /** True if `name` is a key of the merged view (live or tombstone). */
  has(name: string): boolean;
}

/** Deterministic pseudo object id number i (FNV-1a + xorshift), `hexLength` hex digits, never zero. */
export function syntheticOid(i: number, hexLength = 40): string {
  let h = 0x811c9dc5 ^ i;
  let out = '';
  while (out.length < hexLength) {
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
    h = Math.imul(h ^ (h >>> 12), 0x297a2d39);
    h ^= h >>> 15;
    out += (h >>> 0).toString(16).padStart(8, '0');
  }
  out = out.slice(0, hexLength);
  return /^0+$/.test(out) ? '1' + out.slice(1) : out;
}

/** `n` indexes spread evenly over [0, m) (m > 0), repeating when n > m. */
function spread(n: number, m: number): number[] {
  const out: number[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = n <= m ? Math.floor(((i + 0.5) * m) / n) : i % m;
  return out;
}

function wrap(updates: RefUpdate[], perRef: boolean): Transaction[] {
  if (!perRef) return [{ updates, end: 'commit', prepared: true }];
  return updates.map((u) => ({ updates: [u], end: 'commit' as const, prepared: true }));
}

/** Turn a spec into a workload for the given stack. Throws `SpecError` when it cannot apply. */
export function generateWorkload(spec: WorkloadSpec, facts: StackFacts): Workload {
  const hexLen = facts.hexLength;
  switch (spec.kind) {
    case 'recreate': {
      const ups: RefUpdate[] = [];
      const tn = facts.tombstoneNames();
      for (let i = 0; i < tn.length; i++) {
        const hidden = facts.hiddenValue(i);
        if (!hidden) continue;
        if (hidden.target !== null) {
          ups.push({
            op: 'symref-create',
            ref: tn[i],
            newValue: { kind: 'symref', target: hidden.target },
            oldValue: { kind: 'zero' },
            noDeref: true,
            oidArgs: [],
          });
        } else {
          const oid = hidden.oid ?? syntheticOid(ups.length, hexLen);
          ups.push({
            op: 'create',
            ref: tn[i],
            newValue: { kind: 'oid', oid },
            oldValue: { kind: 'zero' },
            noDeref: false,
            oidArgs: [oid],
          });
        }
      }
      return {
        kind: 'updates',
        description: `re-create the ${ups.length.toLocaleString('en-US')} ref${ups.length === 1 ? '' : 's'} that tombstones hide${spec.perRef ? ', one transaction per ref' : ', one transaction'}`,
        transactions: wrap(ups, spec.perRef),
      };
    }
    case 'create': {
      const ups: RefUpdate[] = [];
      for (let i = 0; i < spec.n; i++) {
        const oid = syntheticOid(i, hexLen);
        ups.push({
          op: 'create',
          ref: spec.prefix + i,
          newValue: { kind: 'oid', oid },
          oldValue: { kind: 'zero' },
          noDeref: false,
          oidArgs: [oid],
        });
      }
      return {
        kind: 'updates',
        description: `create ${spec.n.toLocaleString('en-US')} refs ${spec.prefix}0…${spec.prefix}${spec.n - 1}${spec.perRef ? ', one transaction per ref' : ', one transaction'}`,
        transactions: wrap(ups, spec.perRef),
      };
    }
    case 'delete-all': {
      const ups: RefUpdate[] = facts
        .liveNames()
        .filter((n) => n.startsWith('refs/'))
        .map((n) => ({
          op: 'delete' as const,
          ref: n,
          newValue: { kind: 'delete' as const },
          oldValue: null,
          noDeref: false,
          oidArgs: [],
        }));
      return {
        kind: 'updates',
        description: `delete all ${ups.length.toLocaleString('en-US')} refs under refs/${spec.perRef ? ', one transaction per ref' : ', one transaction'}`,
        transactions: wrap(ups, spec.perRef),
      };
    }
    case 'lookup': {
      let names: string[];
      if (spec.which === 'existing') {
        const live = facts.liveNames();
        if (!live.length) throw new SpecError('lookup:existing: the stack has no live refs');
        names = spread(spec.n, live.length).map((i) => live[i]);
      } else if (spec.which === 'tombstoned') {
        const t = facts.tombstoneNames();
        if (!t.length) throw new SpecError('lookup:tombstoned: the stack has no tombstones');
        names = spread(spec.n, t.length).map((i) => t[i]);
      } else {
        // Missing names placed right after existing keys (`<key>-x`: '-' sorts before digits and
        // letters), so they land where real lookups of absent names land.
        const all = facts.keys();
        const keys = all.length ? all : ['refs/heads/missing'];
        names = spread(spec.n, keys.length).map((i, j) => {
          let k = `${keys[i]}-x${spec.n > keys.length ? j : ''}`;
          while (facts.has(k)) k += 'x';
          return k;
        });
      }
      return {
        kind: 'lookups',
        description: `${spec.n.toLocaleString('en-US')} reads of ${spec.which} ref names`,
        names,
      };
    }
    case 'lookup-names':
      return {
        kind: 'lookups',
        description: `${spec.names.length.toLocaleString('en-US')} reads of given ref names`,
        names: spec.names,
      };
    case 'scan':
      return {
        kind: 'scans',
        description: `${spec.n > 1 ? `${spec.n.toLocaleString('en-US')} × ` : ''}for-each-ref ${spec.prefix || '(all refs)'}`,
        prefixes: new Array(spec.n).fill(spec.prefix),
      };
    case 'oid': {
      const m = facts.liveNames().length;
      const oids: string[] = [];
      if (m) {
        // Evenly spread live refs; a symref (no object id) is replaced by the next ref that has one.
        for (const i of spread(spec.n, m)) {
          for (let j = 0; j < m; j++) {
            const v = facts.liveValue((i + j) % m);
            if (v.oid) {
              oids.push(v.oid);
              break;
            }
          }
        }
      }
      if (!oids.length) throw new SpecError('oid: the stack has no refs with an object id');
      return { kind: 'objects', description: `${spec.n.toLocaleString('en-US')} lookups by object id`, oids };
    }
  }
}
