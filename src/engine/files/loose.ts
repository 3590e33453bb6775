/**
 * loose: a files-backend git directory (refs/files-backend.c) as git reads it: loose refs under
 * `refs/`, root refs (HEAD, ORIG_HEAD, ...), `packed-refs`, reflogs under `logs/`, and the merged
 * view `git for-each-ref --include-root-refs` prints.
 *
 * Facts used (files-backend.c, refs.c, ref-filter.c; observed with git 2.39 where noted):
 * - Loose refs are the regular files below `refs/`; git skips every directory or file whose
 *   name starts with '.' or ends in ".lock". Root refs are the regular files at the top of the
 *   git directory whose name passes `is_root_ref` (FETCH_HEAD and MERGE_HEAD are pseudorefs and
 *   never listed; ORIG_HEAD, CHERRY_PICK_HEAD, REBASE_HEAD... are listed).
 * - A loose file is read whole, trailing whitespace (SP, TAB, LF, CR) removed. `ref:` + optional
 *   whitespace + target makes a symref; otherwise it must start with a full hex object id
 *   followed by the end or whitespace (anything may follow: FETCH_HEAD style). Anything else is
 *   broken. A null object id (all zeros) in a loose ref is broken too.
 * - Reading one name: the loose file if there is one (broken content is an error, not a
 *   fall-through), else the packed-refs lookup (`lookupPacked`, git's binary search).
 * - Symrefs are followed reading at most 5 names (SYMREF_MAXDEPTH): the 5th read must give an
 *   object id. A symref whose target is missing, broken, invalid or too deep is "broken"; a
 *   symref is itself listed with the object id it resolves to.
 * - The merged view overlays loose on packed: both sorted by name, on equal names the loose
 *   entry wins (even a broken one, which then hides the packed value). for-each-ref leaves out
 *   broken symrefs silently and other broken refs with a warning, lists refs whose object does
 *   not exist (not checked here). git 2.47 sorts the output by name; git 2.55 prints the merged
 *   iteration as it comes (ref-filter.c `can_do_iterative_format`), which differs when a
 *   packed-refs file says `sorted` and is not.
 * - Lock files: `packed-refs.lock` and `<ref>.lock` (files-backend.c `lock_raw_ref`,
 *   lockfile.c: created with O_EXCL) make git's writers fail; they are findings.
 */
import { type InputFile, FormatError, readAll, bytesToKey, keyToBytes, textToKey, firstUpperAscii } from '../basics.ts';
import {
  type FilesFinding,
  type HashKind,
  type PackedRefs,
  type PackedRecord,
  FindingSink,
  parsePackedRefs,
  lookupPacked,
  packedIterationOrder,
  packedOrder,
  packedHasName,
  stableSortByName,
  showName,
  recName,
  recOid,
  recPeeled,
  LCP_UNKNOWN,
  F_AFTER_PREV,
  F_BROKEN,
  F_SAME_AS_PREV,
  type ParsePackedOptions,
  type RecSource,
} from './packed.ts';
import {
  checkRefnameFormat,
  refnameIsSafe,
  isRootRefName,
  isPseudoRefName,
  isSharedRefName,
  listedByForEachRef,
  isGitSpace,
  isHexDigit,
} from './refname.ts';
import { hexBytesInto } from './estimate.ts';

/**
 * Read limits (docs/limits.md, "Read limits"): git reads these files whole, whatever their
 * size; refscope reads at most this much of each, and says so where that changes an answer.
 * - A loose ref: the first `LOOSE_REF_MAX_BYTES`. Exact for every file that starts with an
 *   object id and whitespace (the rest is ignored by git) or that is neither an id nor `ref:`
 *   (broken either way); a larger `ref:` file is reported broken ("too large to read").
 * - A reflog: `REFLOG_MAX_BYTES` parsed; beyond that its lines are counted in 1 MiB slices.
 * - `packed-refs`: `PACKED_REFS_MAX_BYTES` (the file is read whole into one buffer, its offsets
 *   kept in 32-bit columns: 2 GiB holds a forge's 20 million refs); a larger file is a
 *   FormatError.
 * - `config`: 1 MiB (`configSaysReftable`, `detectConfigHash`).
 */
export const LOOSE_REF_MAX_BYTES = 64 * 1024;
export const REFLOG_MAX_BYTES = 64 * 1024 * 1024;
export const PACKED_REFS_MAX_BYTES = 2 * 1024 * 1024 * 1024 - 1024;
const CONFIG_MAX_BYTES = 1024 * 1024;

/** A loose ref file's bytes, at most `LOOSE_REF_MAX_BYTES` (see there). */
function readLoose(f: InputFile): { bytes: Uint8Array; truncated: boolean } {
  const size = f.source.size;
  if (size <= LOOSE_REF_MAX_BYTES) return { bytes: readAll(f.source), truncated: false };
  return { bytes: f.source.read(0, LOOSE_REF_MAX_BYTES), truncated: true };
}

/** Max names read while resolving a symref (git's SYMREF_MAXDEPTH). */
export const FILES_SYMREF_MAXDEPTH = 5;

/** Parsed content of one loose ref file. */
export type LooseContent =
  { kind: 'oid'; oid: string } | { kind: 'symref'; target: string } | { kind: 'broken'; reason: string };

/** One loose ref (a file under refs/ or a root ref). Names are byte strings. */
export interface LooseRef {
  name: string;
  /** Input path (relative to the git directory). */
  path: string;
  /** A root ref (top-level file such as HEAD, ORIG_HEAD) rather than a file under refs/. */
  root: boolean;
  content: LooseContent;
  /** Object id it resolves to (lower-case hex), or null when broken. */
  resolved: string | null;
  /** git's REF_ISBROKEN: unreadable content, null oid, bad name, or a symref that does not resolve. */
  broken: boolean;
  /** Why it is broken (null if not). */
  brokenReason: string | null;
  /** Name fails `check_refname_format` (git's REF_BAD_NAME). */
  badName: boolean;
  /** A packed-refs record has the same name: this loose file hides it. */
  shadowsPacked: boolean;
}

/** Summary of one reflog file under logs/. */
export interface ReflogSummary {
  /** Ref name (byte string): the path below logs/. */
  name: string;
  path: string;
  /** Lines (entries) in the file, malformed ones included. */
  entries: number;
  /** Lines not of the form `<old> <new> <ident> <time> <tz>[\t<msg>]`. */
  malformed: number;
  /** The ref itself exists (loose or packed). */
  refExists: boolean;
  /** Unix timestamps (seconds) of the first and last well-formed entries, or null. */
  first: number | null;
  last: number | null;
}

/** One reflog entry (see `parseReflog`). */
export interface ReflogEntry {
  old: string;
  new: string;
  /** "Name <email>" as a byte string. */
  ident: string;
  timestamp: number;
  /** Time zone as written, e.g. "+0100". */
  tz: string;
  /** Message after the TAB (byte string), "" when there is none. */
  message: string;
  /** 1-based line and byte offset of the line. */
  line: number;
  offset: number;
}

/**
 * A files-backend repository (or a lone packed-refs file) as loaded by `loadFilesRepo`.
 * Engine-side: send `filesRefs` / `filesRepoSection` results across a worker boundary.
 */
export interface FilesRepo {
  /** 'packed-refs' when the input is a lone packed-refs file (no HEAD, no refs/). */
  kind: 'gitdir' | 'packed-refs';
  hash: HashKind;
  packed: PackedRefs | null;
  /** Loose refs and root refs, sorted by name (byte order). */
  loose: LooseRef[];
  /** Files that look like refs but are not taken (pseudorefs, ".lock", dot files). */
  ignored: { path: string; reason: string }[];
  reflogs: ReflogSummary[];
  /** Directories under refs/ that hold loose refs (with trailing '/'), sorted. */
  directories: string[];
  /** Findings on loose refs, reflogs and the merged view (packed-refs ones are in `packed`). */
  findings: FilesFinding[];
  findingCounts: Record<string, number>;
  /** First problem that makes git die (packed-refs or loose), or null. */
  fatal: FilesFinding | null;
  /** `packed-refs.lock` exists: git cannot rewrite packed-refs (see the `packedRefsLocked` finding). */
  packedRefsLocked: boolean;
  /** Internal: every input file by byte-string path, for raw reads. */
  readonly _files: Map<string, InputFile>;
  readonly _contents: Map<string, LooseContent>;
}

/** Options for `loadFilesRepo`. */
export interface LoadFilesOptions {
  /** Repository hash; default from `config` (extensions.objectFormat), else detected. */
  hash?: HashKind;
  /** Passed to `parsePackedRefs`. */
  packed?: Omit<ParsePackedOptions, 'hash'>;
}

/**
 * Parse a loose ref file's bytes as git's `parse_loose_ref_contents` does after trimming
 * trailing whitespace: `ref:` + whitespace + target → symref; `<hexsz hex digits>` followed by
 * the end or whitespace → object id (lower-cased); else broken. Content after a NUL byte is
 * ignored (git reads it as a C string).
 */
export function parseLooseContent(bytes: Uint8Array, hexsz: number): LooseContent {
  let end = bytes.length;
  const nul = bytes.indexOf(0);
  while (end > 0 && isGitSpace(bytes[end - 1])) end--;
  if (nul >= 0 && nul < end) end = nul;
  if (end >= 4 && bytes[0] === 0x72 && bytes[1] === 0x65 && bytes[2] === 0x66 && bytes[3] === 0x3a) {
    let p = 4;
    while (p < end && isGitSpace(bytes[p])) p++;
    return { kind: 'symref', target: bytesToKey(bytes, p, end) };
  }
  let h = 0;
  while (h < hexsz && h < end && isHexDigit(bytes[h])) h++;
  if (h === hexsz && (end === hexsz || isGitSpace(bytes[hexsz]))) {
    return { kind: 'oid', oid: bytesToKey(bytes, 0, hexsz).toLowerCase() };
  }
  return { kind: 'broken', reason: end === 0 ? 'empty file' : `not "ref: <name>" nor a ${hexsz}-digit object id` };
}

/**
 * Parse a reflog file: one entry per line,
 * `<old hex> SP <new hex> SP <name> <<email>> SP <unix time> SP <tz> [TAB <message>] LF`.
 * Malformed lines are skipped and counted in `malformed`.
 */
export function parseReflog(
  bytes: Uint8Array,
  hexsz: number,
): { entries: ReflogEntry[]; lines: number; malformed: number } {
  const entries: ReflogEntry[] = [];
  let pos = 0;
  let line = 0;
  let malformed = 0;
  const end = bytes.length;
  while (pos < end) {
    const eol = bytes.indexOf(0x0a, pos);
    const le = eol < 0 ? end : eol;
    line++;
    const e = parseReflogLine(bytes, pos, le, hexsz, line);
    if (e) entries.push(e);
    else malformed++;
    pos = eol < 0 ? end : eol + 1;
  }
  return { entries, lines: line, malformed };
}

function parseReflogLine(b: Uint8Array, s: number, e: number, hexsz: number, line: number): ReflogEntry | null {
  if (e - s < 2 * hexsz + 3) return null;
  for (let i = 0; i < hexsz; i++) if (!isHexDigit(b[s + i]) || !isHexDigit(b[s + hexsz + 1 + i])) return null;
  if (b[s + hexsz] !== 0x20 || b[s + 2 * hexsz + 1] !== 0x20) return null;
  const identStart = s + 2 * hexsz + 2;
  let tab = b.indexOf(0x09, identStart);
  if (tab < 0 || tab > e) tab = e;
  let gt = -1;
  for (let i = tab - 1; i >= identStart; i--)
    if (b[i] === 0x3e) {
      gt = i;
      break;
    }
  if (gt < 0 || b[gt + 1] !== 0x20) return null;
  const rest = bytesToKey(b, gt + 2, tab);
  const sp = rest.indexOf(' ');
  if (sp <= 0) return null;
  const ts = Number(rest.slice(0, sp));
  if (!Number.isFinite(ts)) return null;
  return {
    old: bytesToKey(b, s, s + hexsz).toLowerCase(),
    new: bytesToKey(b, s + hexsz + 1, s + 2 * hexsz + 1).toLowerCase(),
    ident: bytesToKey(b, identStart, gt + 1),
    timestamp: ts,
    tz: rest.slice(sp + 1),
    message: tab < e ? bytesToKey(b, tab + 1, e) : '',
    line,
    offset: s,
  };
}

function detectConfigHash(cfg: Uint8Array): HashKind | null {
  const text = bytesToKey(cfg, 0, cfg.length).toLowerCase();
  const m = /(^|\n)\s*objectformat\s*=\s*"?(sha1|sha256)"?/.exec(text);
  return m ? (m[2] as HashKind) : null;
}

/** Path component rule git applies when listing directories: no leading '.', no ".lock" suffix. */
function skippedComponent(c: string): boolean {
  return c.startsWith('.') || c.endsWith('.lock');
}

/**
 * Load a files-backend git directory from its files (paths relative to the git directory:
 * `HEAD`, `packed-refs`, `refs/heads/x`, `logs/HEAD`, `ORIG_HEAD`, `config`, ...). A lone
 * `packed-refs` (no HEAD and nothing under refs/) gives `kind: 'packed-refs'`.
 * The hash is taken from `opts.hash`, else `config` (extensions.objectFormat), else packed-refs,
 * else the first loose ref with a 64-digit id, else SHA-1.
 * Never throws on bad content: problems are findings (`fatal` = first one git dies on).
 * Loose findings: `badRefContent` (warning: broken, for-each-ref warns "ignoring broken ref"),
 * `refMissingNewline` (info), `badRefName` (warning, broken) / `looseRefDangerousName` (error,
 * git dies "loose refname is dangerous"), `nullOidRef` (warning, broken), `danglingSymref`
 * (info: left out silently), `symrefTooDeep` (info), `badReferentName` (info),
 * `pseudorefIgnored` (info), `orphanReflog` (info), `badReflogEntry` (warning).
 */
export function loadFilesRepo(files: InputFile[], opts: LoadFilesOptions = {}): FilesRepo {
  const byPath = new Map<string, InputFile>();
  for (const f of files) {
    const p = f.path.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
    byPath.set(textToKey(p), f);
  }
  const sink = new FindingSink('(git dir)', 50);
  const ignored: FilesRepo['ignored'] = [];
  let packedLocked = false;
  /** A `<ref>.lock` file (files-backend.c lock_raw_ref creates it with O_EXCL). */
  const lockFinding = (ref: string, path: string) => {
    sink.add(
      'refLocked',
      'warning',
      0,
      -1,
      null,
      `${showName(ref)}.lock exists: every update or deletion of ${showName(ref)} fails ("cannot lock ref '${showName(ref)}': Unable to create '…/${showName(ref)}.lock': File exists."); for-each-ref skips the lock file and still lists the ref`,
      path,
    );
  };

  // Hash.
  let hash: HashKind | null = opts.hash ?? null;
  const cfg = byPath.get('config');
  if (!hash && cfg && cfg.source.size <= CONFIG_MAX_BYTES) hash = detectConfigHash(readAll(cfg.source));

  // packed-refs.
  const pf = byPath.get('packed-refs');
  let packed: PackedRefs | null = null;
  if (pf) {
    if (pf.source.size > PACKED_REFS_MAX_BYTES) {
      throw new FormatError(
        (pf as InputFile & { displayPath?: string }).displayPath ?? pf.path,
        0,
        `a packed-refs file of at most ${PACKED_REFS_MAX_BYTES.toLocaleString('en-US')} bytes (refscope's limit: it reads the file whole into one buffer), found ${pf.source.size.toLocaleString('en-US')} bytes`,
      );
    }
    // A file recognised by content keeps its own name in messages (input.ts classifyInput).
    const label = (pf as InputFile & { displayPath?: string }).displayPath ?? pf.path;
    packed = parsePackedRefs(label, readAll(pf.source), { ...opts.packed, ...(hash ? { hash } : {}) });
    if (!hash && packed.recordCount > 0) hash = packed.hash;
  }

  // Candidates: loose refs, root refs, reflogs.
  const refPaths: string[] = [];
  const rootPaths: string[] = [];
  const logPaths: string[] = [];
  for (const name of byPath.keys()) {
    if (name.startsWith('refs/')) {
      const comps = name.split('/');
      const bad = comps.find(skippedComponent);
      if (bad !== undefined) {
        ignored.push({
          path: byPath.get(name)!.path,
          reason: `git skips names starting with '.' or ending in ".lock" ("${bad}")`,
        });
        if (
          bad === comps[comps.length - 1] &&
          bad.endsWith('.lock') &&
          comps.slice(0, -1).every((c) => !skippedComponent(c))
        )
          lockFinding(name.slice(0, -5), byPath.get(name)!.path);
      } else refPaths.push(name);
    } else if (name.startsWith('logs/')) {
      if (!name.split('/').some(skippedComponent)) logPaths.push(name);
    } else if (!name.includes('/')) {
      if (name === 'packed-refs.lock') {
        packedLocked = true;
        sink.add(
          'packedRefsLocked',
          'warning',
          0,
          -1,
          null,
          'packed-refs.lock exists: git cannot rewrite packed-refs while it does. `git pack-refs` (and `pack-refs --auto` or `gc` when they would pack) and deleting a packed ref fail with "Unable to create \'…/packed-refs.lock\': File exists." after retrying for core.packedRefsTimeout (1 s by default); creating and updating loose refs still work; for-each-ref and lookups are not affected',
          byPath.get(name)!.path,
        );
      } else if (name.endsWith('.lock') && isRootRefName(name.slice(0, -5)))
        lockFinding(name.slice(0, -5), byPath.get(name)!.path);
      else if (isRootRefName(name)) rootPaths.push(name);
      else if (isPseudoRefName(name)) {
        ignored.push({
          path: byPath.get(name)!.path,
          reason: 'pseudoref: git for-each-ref never lists FETCH_HEAD or MERGE_HEAD',
        });
        sink.add(
          'pseudorefIgnored',
          'info',
          0,
          -1,
          null,
          `${name} is a pseudoref: for-each-ref does not list it`,
          byPath.get(name)!.path,
        );
      }
    }
  }
  const kind: FilesRepo['kind'] = refPaths.length === 0 && !byPath.has('HEAD') && pf ? 'packed-refs' : 'gitdir';

  if (!hash) {
    for (const n of [...rootPaths, ...refPaths]) {
      const b = readLoose(byPath.get(n)!).bytes;
      let h = 0;
      while (h < b.length && isHexDigit(b[h])) h++;
      if (h === 64) {
        hash = 'sha256';
        break;
      }
      if (h === 40) {
        hash = 'sha1';
        break;
      }
    }
  }
  const finalHash: HashKind = hash ?? 'sha1';
  const hexsz = finalHash === 'sha256' ? 64 : 40;

  const repo = {
    kind,
    hash: finalHash,
    packed,
    loose: [],
    ignored,
    reflogs: [],
    directories: [],
    findings: sink.findings,
    findingCounts: sink.counts,
    fatal: null,
  } as unknown as FilesRepo;
  // Internals are not enumerable: JSON / structured clone of a repo stays small.
  Object.defineProperties(repo, {
    _files: { value: byPath, enumerable: false },
    _contents: { value: new Map<string, LooseContent>(), enumerable: false },
  });

  // Loose entries, sorted by name (git's ref cache order = byte order of full names).
  // Whether packed-refs holds a name: a lookup each (no set of every packed name is built).
  const inPacked = (name: string): boolean => !!packed && packedHasName(packed, name);
  const dirs = new Set<string>();
  const names = [...rootPaths, ...refPaths].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const name of names) {
    const f = byPath.get(name)!;
    const { bytes, truncated } = readLoose(f);
    const content = contentOf(repo, name, hexsz)!;
    if (name.startsWith('refs/')) {
      for (let i = name.indexOf('/'); i >= 0; i = name.indexOf('/', i + 1)) dirs.add(name.slice(0, i + 1));
    }
    if (content.kind === 'broken') {
      sink.add(
        'badRefContent',
        'warning',
        0,
        -1,
        null,
        `${content.reason}: git treats the ref as broken (for-each-ref: "ignoring broken ref")`,
        f.path,
      );
    } else if (!truncated && bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a) {
      sink.add(
        'refMissingNewline',
        'info',
        0,
        bytes.length,
        null,
        'no LF at the end (git always writes one; accepted)',
        f.path,
      );
    }
    const res = resolveName(repo, name, hexsz);
    let broken = false;
    let reason: string | null = null;
    if (res.oid === null) {
      broken = true;
      reason = res.failure;
      if (content.kind === 'symref') {
        const code = res.failure.startsWith('too deep')
          ? 'symrefTooDeep'
          : res.failure.startsWith('invalid target')
            ? 'badReferentName'
            : 'danglingSymref';
        sink.add(
          code,
          'info',
          0,
          -1,
          null,
          `symref to "${showName(content.target)}" does not resolve (${res.failure}): for-each-ref leaves it out silently`,
          f.path,
        );
      }
    } else if (/^0+$/.test(res.oid)) {
      broken = true;
      reason = 'null object id';
      if (content.kind === 'symref')
        sink.add(
          'danglingSymref',
          'info',
          0,
          -1,
          null,
          'symref resolves to the null object id: git treats it as broken; for-each-ref leaves it out silently',
          f.path,
        );
      else
        sink.add(
          'nullOidRef',
          'warning',
          0,
          -1,
          null,
          'null object id (all zeros): git treats the ref as broken (for-each-ref: "ignoring broken ref")',
          f.path,
        );
    }
    let badName = false;
    if (!checkRefnameFormat(name)) {
      badName = true;
      if (!refnameIsSafe(name)) {
        sink.add(
          'looseRefDangerousName',
          'error',
          0,
          -1,
          'iterate',
          'a valid (or at least safe) ref name, found an invalid and unsafe one: git dies ("loose refname is dangerous") when listing refs',
          f.path,
        );
      } else {
        sink.add(
          'badRefName',
          'warning',
          0,
          -1,
          null,
          'invalid ref name: git treats it as broken (for-each-ref: "ignoring ref with broken name")',
          f.path,
        );
      }
      broken = true;
      reason = reason ?? 'invalid name';
    }
    repo.loose.push({
      name,
      path: f.path,
      root: !name.startsWith('refs/'),
      content,
      resolved: broken ? null : res.oid,
      broken,
      brokenReason: broken ? reason : null,
      badName,
      shadowsPacked: inPacked(name),
    });
  }
  repo.directories = [...dirs].sort();

  // Reflogs.
  const looseNames = new Set<string>(repo.loose.map((l) => l.name));
  const refExists = { has: (name: string) => looseNames.has(name) || inPacked(name) };
  for (const lp of logPaths.sort()) {
    const f = byPath.get(lp)!;
    const name = lp.slice(5);
    const r = f.source.size <= REFLOG_MAX_BYTES ? parseReflog(readAll(f.source), hexsz) : bigReflog(f, hexsz);
    const exists = refExists.has(name);
    repo.reflogs.push({
      name,
      path: f.path,
      entries: r.lines,
      malformed: r.malformed,
      refExists: exists,
      first: r.entries.length ? r.entries[0].timestamp : null,
      last: r.entries.length ? r.entries[r.entries.length - 1].timestamp : null,
    });
    if (r.malformed) sink.add('badReflogEntry', 'warning', 0, -1, null, `${r.malformed} malformed line(s)`, f.path);
    if (!exists) sink.add('orphanReflog', 'info', 0, -1, null, 'reflog of a ref that does not exist', f.path);
  }

  repo.fatal = packed?.fatal ?? sink.fatal;
  Object.defineProperty(repo, 'packedRefsLocked', { value: packedLocked, enumerable: true });
  return repo;
}

/**
 * A reflog over `REFLOG_MAX_BYTES`: the first `REFLOG_MAX_BYTES` parsed (first entry, malformed
 * lines there), every line counted in 1 MiB slices; the last entry is that of the parsed part.
 */
function bigReflog(f: InputFile, hexsz: number): ReturnType<typeof parseReflog> {
  const head = f.source.read(0, REFLOG_MAX_BYTES);
  const cut = head.lastIndexOf(0x0a) + 1;
  const r = parseReflog(head.subarray(0, cut), hexsz);
  let lines = r.lines;
  const size = f.source.size;
  let last = 0x0a;
  for (let off = cut; off < size; off += 1 << 20) {
    const b = f.source.read(off, Math.min(1 << 20, size - off));
    if (b.length === 0) break;
    for (let i = 0; i < b.length; i++) if (b[i] === 0x0a) lines++;
    last = b[b.length - 1];
  }
  if (last !== 0x0a) lines++;
  return { entries: r.entries, lines, malformed: r.malformed };
}

function contentOf(repo: FilesRepo, name: string, hexsz: number): LooseContent | null {
  let c = repo._contents.get(name);
  if (c) return c;
  const f = repo._files.get(name);
  if (!f) return null;
  const { bytes, truncated } = readLoose(f);
  c = parseLooseContent(bytes, hexsz);
  if (truncated && c.kind === 'symref') {
    c = {
      kind: 'broken',
      reason: `a "ref:" file of ${f.source.size.toLocaleString('en-US')} bytes, more than refscope reads (${LOOSE_REF_MAX_BYTES.toLocaleString('en-US')}); git reads it whole`,
    };
  }
  repo._contents.set(name, c);
  return c;
}

/**
 * Resolve `name` (byte string) as git's `refs_resolve_ref_unsafe(name, RESOLVE_REF_READING)`
 * does on a files backend: check the name, then read up to 5 names (loose file, else packed-refs
 * lookup), following symrefs. Returns the object id or null with the reason, and the names read.
 */
export function resolveName(
  repo: FilesRepo,
  name: string,
  hexsz = repo.hash === 'sha256' ? 64 : 40,
): { oid: string | null; failure: string; chain: string[] } {
  const chain: string[] = [];
  if (!checkRefnameFormat(name)) return { oid: null, failure: 'invalid name', chain };
  let cur = name;
  for (let depth = 0; depth < FILES_SYMREF_MAXDEPTH; depth++) {
    chain.push(cur);
    const c = contentOf(repo, cur, hexsz);
    if (c) {
      if (c.kind === 'broken') return { oid: null, failure: `"${showName(cur)}" is broken`, chain };
      if (c.kind === 'oid') return { oid: c.oid, failure: '', chain };
      if (!checkRefnameFormat(c.target)) return { oid: null, failure: `invalid target "${showName(c.target)}"`, chain };
      cur = c.target;
      continue;
    }
    const hit = repo.packed ? lookupPacked(repo.packed, cur).record : null;
    if (hit) return { oid: hit.oid, failure: '', chain };
    const inFile = !!repo.packed && packedHasName(repo.packed, cur);
    return {
      oid: null,
      failure: inFile
        ? `"${showName(cur)}" is in packed-refs but git's binary search misses it`
        : `"${showName(cur)}" does not exist`,
      chain,
    };
  }
  return { oid: null, failure: `too deep (more than ${FILES_SYMREF_MAXDEPTH - 1} symref hops)`, chain };
}

/** One entry of the merged (loose over packed) iteration, before for-each-ref's filtering. */
export interface MergedEntry {
  name: string;
  source: 'loose' | 'packed';
  loose: LooseRef | null;
  packed: PackedRecord | null;
}

/**
 * git's overlay of loose refs on packed refs (`overlay_ref_iterator`): both inputs in their
 * iteration order (loose sorted by name; packed in file order with `sorted`, else sorted), at
 * each step the smaller name is taken; on equal names the loose entry is taken and the packed
 * one dropped. With a packed file that claims `sorted` but is not, a loose ref can fail to hide
 * its packed twin, exactly as in git.
 */
export function mergedEntries(repo: FilesRepo, includeRootRefs: boolean): MergedEntry[] {
  const front = includeRootRefs ? repo.loose : repo.loose.filter((l) => !l.root);
  const back = repo.packed ? packedIterationOrder(repo.packed) : [];
  const out: MergedEntry[] = [];
  let i = 0;
  let j = 0;
  while (i < front.length || j < back.length) {
    if (i >= front.length) {
      const p = back[j++];
      out.push({ name: p.name, source: 'packed', loose: null, packed: p });
    } else if (j >= back.length || front[i].name < back[j].name) {
      const l = front[i++];
      out.push({ name: l.name, source: 'loose', loose: l, packed: null });
    } else if (front[i].name > back[j].name) {
      const p = back[j++];
      out.push({ name: p.name, source: 'packed', loose: null, packed: p });
    } else {
      j++;
      const l = front[i++];
      out.push({ name: l.name, source: 'loose', loose: l, packed: null });
    }
  }
  return out;
}

/** Options for `filesRefs`. */
export interface FilesRefsOptions {
  /** `--include-root-refs`; default true for a git directory, false for a lone packed-refs. */
  includeRootRefs?: boolean;
  /** Return the refs even when git would die (default false: git prints nothing then). */
  bestEffort?: boolean;
  /**
   * Sort the output by name, as git 2.47 does. Default false: git 2.55's order, the merged
   * iteration as it comes (ref-filter.c `can_do_iterative_format`), which differs only when a
   * packed-refs file says `sorted` and is not.
   */
  sortByName?: boolean;
}

/**
 * The refs `git for-each-ref --include-root-refs --format='%(objectname) %(refname)'` prints
 * (for a lone packed-refs file: `git for-each-ref` of a repository holding only that file):
 * the merged iteration (`mergedEntries`), broken entries left out (dangling symrefs silently,
 * others with git's warning), names for-each-ref does not list left out (pseudorefs; root refs
 * without `includeRootRefs`), symrefs with the id they resolve to, in git 2.55's order (see
 * `FilesRefsOptions.sortByName`).
 * Names are byte strings, oids lower-case hex. Empty when git dies (see `repo.fatal`) unless
 * `bestEffort`. One object per ref: for a large packed-refs file use `filesRefList`.
 */
export function filesRefs(repo: FilesRepo, opts: FilesRefsOptions = {}): { name: string; oid: string }[] {
  const list = filesRefList(repo, opts);
  const out: { name: string; oid: string }[] = new Array(list.length);
  for (let k = 0; k < list.length; k++) out[k] = { name: list.name(k), oid: list.oid(k) };
  return opts.sortByName ? stableSortByName(out) : out;
}

/** Name bytes of one entry of a `FilesRefList`: `bytes[start, end)`. */
export interface NameBytes {
  bytes: Uint8Array;
  start: number;
  end: number;
}

/**
 * The refs `filesRefs` lists (in git 2.55's order, `sortByName` aside), as columns: an entry is
 * a packed-refs record (its name and ids stay in the file's bytes, decoded for the entries asked
 * for) or a loose ref. A million packed refs are an `Int32Array` here, not a million objects.
 */
export class FilesRefList {
  /** Entry k: packed record index (>= 0), or -1 - (index in `loose`). */
  private readonly ent: Int32Array;
  readonly length: number;
  private readonly src: RecSource | null;
  private readonly loose: { ref: LooseRef; bytes: Uint8Array }[];
  private readonly cur: NameBytes = { bytes: new Uint8Array(0), start: 0, end: 0 };

  /** Entries are in byte order of names (repeats allowed): git's iteration of a file in order. */
  readonly inOrder: boolean;

  constructor(ent: Int32Array, src: RecSource | null, loose: { ref: LooseRef; bytes: Uint8Array }[], inOrder: boolean) {
    this.ent = ent;
    this.length = ent.length;
    this.src = src;
    this.loose = loose;
    this.inOrder = inOrder;
  }

  /** The first entry whose name is not below `key` (bytes), entries `[from, to)`; needs `inOrder`. */
  lowerBound(key: Uint8Array, from = 0, to = this.length): number {
    let lo = from,
      hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const x = this.nameBytes(mid);
      const la = x.end - x.start;
      const m = la < key.length ? la : key.length;
      let c = 0;
      for (let i = 0; i < m && c === 0; i++) c = x.bytes[x.start + i] - key[i];
      if (c === 0) c = la - key.length;
      if (c < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Whether entry `k`'s name is `key` (bytes). */
  nameEquals(k: number, key: Uint8Array): boolean {
    const x = this.nameBytes(k);
    if (x.end - x.start !== key.length) return false;
    for (let i = 0; i < key.length; i++) if (x.bytes[x.start + i] !== key[i]) return false;
    return true;
  }

  /** Whether entry `k`'s name contains `needle` (bytes, non-empty). */
  nameIncludes(k: number, needle: Uint8Array): boolean {
    const x = this.nameBytes(k);
    const b = x.bytes;
    const nl = needle.length,
      first = needle[0];
    const last = x.end - nl;
    outer: for (let p = x.start; p <= last; p++) {
      if (b[p] !== first) continue;
      for (let j = 1; j < nl; j++) if (b[p + j] !== needle[j]) continue outer;
      return true;
    }
    return false;
  }

  /**
   * Entries whose name has an ASCII upper-case letter, in entry order, or null when there are
   * more than `limit`. Packed names are found by one pass over the file's bytes, four at a time.
   */
  upperCaseEntries(limit: number): number[] | null {
    const out: number[] = [];
    const src = this.src;
    if (src) {
      const cols = src.cols;
      const rev = new Int32Array(cols.n).fill(-1);
      for (let k = 0; k < this.length; k++) if (this.ent[k] >= 0) rev[this.ent[k]] = k;
      let r = 0;
      const b = src.bytes;
      for (let j = firstUpperAscii(b, 0); j >= 0 && r < cols.n; j = firstUpperAscii(b, j + 1)) {
        while (r < cols.n && cols.recEnd[r] <= j) r++;
        if (r >= cols.n) break;
        const ns = cols.off[r] + src.hexsz + 1;
        if (j < ns || j >= cols.lineEnd[r]) continue;
        if (rev[r] >= 0) {
          if (out.length >= limit) return null;
          out.push(rev[r]);
        }
        j = cols.lineEnd[r];
      }
    }
    for (let k = 0; k < this.length; k++) {
      const e = this.ent[k];
      if (e < 0 && /[A-Z]/.test(this.loose[-1 - e].ref.name)) {
        if (out.length >= limit) return null;
        out.push(k);
      }
    }
    return out.sort((x, y) => x - y);
  }

  /** Name of entry `k` (byte string). */
  name(k: number): string {
    const e = this.ent[k];
    return e >= 0 ? recName(this.src!, e) : this.loose[-1 - e].ref.name;
  }

  /** Object id of entry `k` (lower-case hex; a loose symref's: the id it resolves to). */
  oid(k: number): string {
    const e = this.ent[k];
    return e >= 0 ? recOid(this.src!, e) : this.loose[-1 - e].ref.resolved!;
  }

  /** The peeled id of a packed entry, or null. */
  peeled(k: number): string | null {
    const e = this.ent[k];
    return e >= 0 ? recPeeled(this.src!, e) : null;
  }

  /** As a reftable would hold entry `k` (`EstimateSource`): 1 an id, 2 an id and a peeled id, 3 a symref. */
  kind(k: number): 1 | 2 | 3 {
    const e = this.ent[k];
    if (e >= 0) return this.src!.cols.peel[e] !== 0 ? 2 : 1;
    return this.loose[-1 - e].ref.content.kind === 'symref' ? 3 : 1;
  }

  /** Byte length of a loose symref's target (0 otherwise). */
  targetLength(k: number): number {
    const l = this.looseRef(k);
    return l && l.content.kind === 'symref' ? l.content.target.length : 0;
  }

  /** `EstimateSource.idBytes`: a packed record's ids are read from the file's hex digits. */
  idBytes(k: number, which: 0 | 1, out: Uint8Array, at: number): boolean {
    const e = this.ent[k];
    if (e >= 0) {
      const s = this.src!;
      const from = which === 0 ? s.cols.off[e] : s.cols.peel[e];
      if (from === 0 && which === 1) return false;
      hexBytesInto(s.bytes, from, s.hexsz >> 1, out, at);
      return true;
    }
    if (which === 1 || this.kind(k) === 3) return false;
    const hex = this.oid(k);
    for (let i = 0; i < hex.length >> 1; i++) out[at + i] = parseInt(hex.substr(2 * i, 2), 16);
    return true;
  }

  /** The loose ref of entry `k`, or null for a packed one. */
  looseRef(k: number): LooseRef | null {
    const e = this.ent[k];
    return e >= 0 ? null : this.loose[-1 - e].ref;
  }

  /** The name bytes of entry `k` (the object returned is reused by the next call). */
  nameBytes(k: number): NameBytes {
    const e = this.ent[k];
    const c = this.cur;
    if (e >= 0) {
      const s = this.src!;
      c.bytes = s.bytes;
      c.start = s.cols.off[e] + s.hexsz + 1;
      c.end = s.cols.lineEnd[e];
    } else {
      c.bytes = this.loose[-1 - e].bytes;
      c.start = 0;
      c.end = c.bytes.length;
    }
    return c;
  }

  /**
   * Entry `k - 1` against entry `k` in memcmp order (negative: k - 1 is smaller) and the bytes
   * their names share. Two packed records one after the other in the file were compared by the
   * parser: that answer is taken, not the bytes again.
   */
  comparePrev(k: number): { c: number; lcp: number } {
    const a = this.ent[k - 1],
      b = this.ent[k];
    if (a >= 0 && b === a + 1) {
      const cols = this.src!.cols;
      const l = cols.lcp[b];
      if (l !== LCP_UNKNOWN) {
        const f = cols.flags[b];
        return { c: f & F_SAME_AS_PREV ? 0 : f & F_AFTER_PREV ? -1 : 1, lcp: l };
      }
    }
    const x = this.nameBytes(k - 1);
    const xb = x.bytes,
      xs = x.start,
      xe = x.end;
    const y = this.nameBytes(k);
    const la = xe - xs,
      lb = y.end - y.start;
    const m = la < lb ? la : lb;
    let i = 0;
    while (i < m && xb[xs + i] === y.bytes[y.start + i]) i++;
    return { c: i < m ? xb[xs + i] - y.bytes[y.start + i] : la - lb, lcp: i };
  }
}

/** `filesRefList` of a lone packed-refs file (root refs left out, as for-each-ref there), git dying or not. */
export function packedRefList(pr: PackedRefs): FilesRefList {
  const repo = { kind: 'packed-refs', packed: pr, loose: [], fatal: null } as unknown as FilesRepo;
  return filesRefList(repo, { includeRootRefs: false, bestEffort: true });
}

const REFS_PREFIX = [0x72, 0x65, 0x66, 0x73, 0x2f]; // "refs/"

/**
 * `filesRefs` as a `FilesRefList` (names and ids decoded only for the entries asked for).
 * `opts.sortByName` is not applied (the list is in git 2.55's order).
 */
export function filesRefList(repo: FilesRepo, opts: FilesRefsOptions = {}): FilesRefList {
  // One list per repository and options: the analysis, the report, the share link and the
  // refs view all walk the same refs.
  const key = `${opts.includeRootRefs ?? ''}/${opts.bestEffort ? 1 : 0}`;
  let lists = listCache.get(repo);
  if (!lists) listCache.set(repo, (lists = new Map()));
  let l = lists.get(key);
  if (!l) lists.set(key, (l = buildRefList(repo, opts)));
  return l;
}

const listCache = new WeakMap<FilesRepo, Map<string, FilesRefList>>();

function buildRefList(repo: FilesRepo, opts: FilesRefsOptions): FilesRefList {
  const pr = repo.packed;
  const src = pr ? pr._src : null;
  if (repo.fatal && !opts.bestEffort) return new FilesRefList(new Int32Array(0), src, [], true);
  const includeRoot = opts.includeRootRefs ?? repo.kind === 'gitdir';
  const front = (includeRoot ? repo.loose : repo.loose.filter((l) => !l.root)).map((ref) => ({
    ref,
    bytes: keyToBytes(ref.name),
  }));
  const back = pr ? packedOrder(pr) : new Int32Array(0);
  const ent = new Int32Array(front.length + back.length);
  let n = 0;
  const cols = src?.cols;
  const bytes = src?.bytes;
  const hexsz = src?.hexsz ?? 40;
  /** A packed record for-each-ref lists: a valid name, under refs/ or else by git's kind rules. */
  const packedListed = (r: number): boolean => {
    if (cols!.flags[r] & F_BROKEN) return false;
    const s0 = cols!.off[r] + hexsz + 1;
    if (cols!.lineEnd[r] - s0 > 5) {
      let refs = true;
      for (let j = 0; j < 5 && refs; j++) refs = bytes![s0 + j] === REFS_PREFIX[j];
      if (refs) return true;
    }
    return listedByForEachRef(recName(src!, r), includeRoot);
  };
  const looseListed = (l: LooseRef): boolean =>
    listedByForEachRef(l.name, includeRoot) && !l.broken && l.resolved !== null;
  const cmpLoosePacked = (lb: Uint8Array, r: number): number => {
    const s0 = cols!.off[r] + hexsz + 1;
    const e0 = cols!.lineEnd[r];
    const lbn = e0 - s0;
    const m = lb.length < lbn ? lb.length : lbn;
    for (let k = 0; k < m; k++) {
      const d = lb[k] - bytes![s0 + k];
      if (d !== 0) return d;
    }
    return lb.length - lbn;
  };
  let i = 0;
  let j = 0;
  while (i < front.length || j < back.length) {
    if (i >= front.length) {
      const r = back[j++];
      if (packedListed(r)) ent[n++] = r;
      continue;
    }
    const c = j >= back.length ? -1 : cmpLoosePacked(front[i].bytes, back[j]);
    if (c > 0) {
      const r = back[j++];
      if (packedListed(r)) ent[n++] = r;
    } else {
      // On equal names the loose entry is taken and the packed one dropped (overlay_ref_iterator).
      if (c === 0) j++;
      if (looseListed(front[i].ref)) ent[n++] = -1 - i;
      i++;
    }
  }
  // Loose refs are sorted; packed ones are in iteration order, in byte order unless the file
  // says `sorted` and is not: so is their merge.
  const inOrder = !pr || !pr.claimsSorted || pr.inOrder;
  return new FilesRefList(n === ent.length ? ent : ent.slice(0, n), src, front, inOrder);
}

function startsWithRefs(b: Uint8Array, start: number, end: number): boolean {
  if (end - start < 5) return false;
  for (let j = 0; j < 5; j++) if (b[start + j] !== REFS_PREFIX[j]) return false;
  return true;
}

function slashAt(b: Uint8Array, from: number, end: number): number {
  for (let j = from; j < end; j++) if (b[j] === 0x2f) return j;
  return -1;
}

/** refs.ts `namespaceOf` on a name's bytes, for `prefixCounts`: `refs/<x>`, the whole name, or -1 for `(root)`. */
export function namespaceEnd(b: Uint8Array, start: number, end: number): number {
  if (!startsWithRefs(b, start, end)) return -1;
  const j = slashAt(b, start + 5, end);
  return j < 0 ? end : j;
}

/** share/redact.ts `shareNamespaceOf` on a name's bytes (`refs/remotes/<remote>` kept apart), for `prefixCounts`. */
export function shareNamespaceEnd(b: Uint8Array, start: number, end: number): number {
  const j = namespaceEnd(b, start, end);
  if (j < 0 || j === end) return j;
  if (j - start === 12 && b[start + 5] === 0x72 && bytesToKey(b, start, j) === 'refs/remotes') {
    const k = slashAt(b, start + 13, end);
    if (k > start + 13) return k;
  }
  return j;
}

/**
 * Entries per name prefix: `cut(bytes, start, end)` gives where the prefix of a name ends, or -1
 * for names counted under `other`. A prefix is decoded only where it differs from the entry
 * before's (a million names under a few namespaces make a few strings).
 */
export function prefixCounts(
  list: FilesRefList,
  cut: (b: Uint8Array, start: number, end: number) => number,
  other: string,
): Map<string, number> {
  const counts = new Map<string, number>();
  let pb: Uint8Array | null = null,
    ps = 0,
    pe = 0;
  let key = '';
  let run = 0;
  const flush = () => {
    if (run) counts.set(key, (counts.get(key) ?? 0) + run);
    run = 0;
  };
  for (let k = 0; k < list.length; k++) {
    const x = list.nameBytes(k);
    const c = cut(x.bytes, x.start, x.end);
    if (c < 0) {
      if (key !== other || pb !== null) {
        flush();
        pb = null;
        key = other;
      }
    } else {
      let same = pb !== null && pe - ps === c - x.start;
      for (let i = 0; same && i < c - x.start; i++) same = pb![ps + i] === x.bytes[x.start + i];
      if (!same) {
        flush();
        key = bytesToKey(x.bytes, x.start, c);
        pb = x.bytes;
        ps = x.start;
        pe = c;
      }
    }
    run++;
  }
  flush();
  return counts;
}

/** `git pack-refs --auto` decision (files-backend.c `should_pack_refs`). */
export interface PackRefsAuto {
  /** packed-refs size in bytes (0 when absent). */
  packedRefsBytes: number;
  /** max(16, 5 × log2u(packedRefsBytes / 100)), integer division, log2u = floor(log2), log2u(0) = 0. */
  limit: number;
  /** Loose refs `git pack-refs --auto` would pack (default include pattern refs/tags/*). */
  candidatesTags: number;
  /** Loose refs `git pack-refs --auto --all` would pack (what `git maintenance`/`gc --auto` run). */
  candidatesAll: number;
  /** candidatesTags >= limit. */
  wouldPack: boolean;
  /** candidatesAll >= limit. */
  wouldPackAll: boolean;
  /** The rule, for reports. */
  rule: string;
  /** `packed-refs.lock` exists: where git would pack, it fails instead ("Unable to create … File exists."). */
  locked: boolean;
}

/** Lookup cost model for the files backend. */
export interface FilesLookupCost {
  packed: {
    /**
     * 'binary-search' over the file (header has `sorted`, or the records are already strictly
     * increasing: git checks and searches the file itself), 'sort-on-load' (no `sorted` and out of
     * order or with duplicates: git sorts a copy on every load, packed-backend.c sort_snapshot), or 'none'.
     */
    mode: 'binary-search' | 'sort-on-load' | 'none';
    records: number;
    /** Bytes git reads or maps on load (the whole file). */
    bytesOnLoad: number;
    /** Probes per lookup from the bisection replay (see `BisectStats`). */
    avgProbes: number;
    maxProbes: number;
    idealProbes: number;
    /** For 'sort-on-load': comparisons of a merge sort, n × ceil(log2 n), on every load. */
    sortComparisons: number;
  };
  loose: {
    /** Loose ref files (root refs included). */
    files: number;
    /** Directories below refs/ holding them. */
    directories: number;
    /** opendir/readdir calls to list all loose refs: every directory, the git dir top level, plus refs/bisect/, refs/rewritten/, refs/worktree/ which git always tries. */
    readdirsToList: number;
    /** System calls to read one name: lstat + open/read of the loose file; on a miss, lstat then the packed lookup. */
    syscallsPerLookup: number;
  };
}

/** Loose vs packed statistics ("Loose vs packed"). */
export interface LooseStats {
  looseRefs: number;
  rootRefs: number;
  looseSymrefs: number;
  looseBroken: number;
  /** Loose refs whose name is also in packed-refs (they shadow it). */
  shadowing: number;
  shadowingNames: string[];
  packRefsAuto: PackRefsAuto;
  lookupCost: FilesLookupCost;
}

/** floor(log2(n)) for n >= 1, 0 for 0 (git's `log2u`). */
export function log2u(n: number): number {
  let l = 0;
  n = Math.floor(n);
  while (n >= 2) {
    n = Math.floor(n / 2);
    l++;
  }
  return l;
}

/**
 * Decide `git pack-refs --auto` as files-backend.c `should_pack_refs` does: limit =
 * max(16, 5 × log2u(floor(packed-refs bytes / 100))); count loose refs under refs/ that git
 * would pack (shared, i.e. not refs/bisect|worktree|rewritten/; not symrefs; not broken; matching
 * the include pattern: refs/tags/* by default, * with --all; objects assumed present); pack if the
 * count reaches the limit.
 */
export function packRefsAuto(repo: FilesRepo): PackRefsAuto {
  const bytes = repo.packed ? repo.packed.size : 0;
  const limit = Math.max(16, 5 * log2u(Math.floor(bytes / 100)));
  let tags = 0;
  let all = 0;
  for (const l of repo.loose) {
    if (l.root || l.broken || l.content.kind !== 'oid' || !isSharedRefName(l.name)) continue;
    all++;
    if (l.name.startsWith('refs/tags/')) tags++;
  }
  return {
    packedRefsBytes: bytes,
    limit,
    candidatesTags: tags,
    candidatesAll: all,
    wouldPack: tags >= limit,
    wouldPackAll: all >= limit,
    rule:
      `pack when loose refs to pack >= max(16, 5 × floor(log2(floor(${bytes} / 100)))) = ${limit}` +
      (repo.packedRefsLocked
        ? '; packed-refs.lock exists, so where git would pack it fails instead ("Unable to create \'…/packed-refs.lock\': File exists.")'
        : ''),
    locked: !!repo.packedRefsLocked,
  };
}

/** Loose vs packed statistics and lookup cost (see `LooseStats`, `FilesLookupCost`). */
export function looseStats(repo: FilesRepo): LooseStats {
  const p = repo.packed;
  const n = p ? p.recordCount : 0;
  const shadowingNames = repo.loose.filter((l) => l.shadowsPacked).map((l) => l.name);
  const perWorktree = ['refs/bisect/', 'refs/rewritten/', 'refs/worktree/'].filter(
    (d) => !repo.directories.includes(d),
  ).length;
  return {
    looseRefs: repo.loose.filter((l) => !l.root).length,
    rootRefs: repo.loose.filter((l) => l.root).length,
    looseSymrefs: repo.loose.filter((l) => l.content.kind === 'symref').length,
    looseBroken: repo.loose.filter((l) => l.broken).length,
    shadowing: shadowingNames.length,
    shadowingNames,
    packRefsAuto: packRefsAuto(repo),
    lookupCost: {
      packed: {
        mode: !p || n === 0 ? 'none' : p.claimsSorted || p.sorted ? 'binary-search' : 'sort-on-load',
        records: n,
        bytesOnLoad: p ? p.size : 0,
        avgProbes: p ? p.bisect.avgProbes : 0,
        maxProbes: p ? p.bisect.maxProbes : 0,
        idealProbes: p ? p.bisect.idealProbes : 0,
        sortComparisons: p && !p.claimsSorted && !p.sorted && n > 1 ? n * Math.ceil(Math.log2(n)) : 0,
      },
      loose: {
        files: repo.loose.length,
        directories: repo.directories.length,
        readdirsToList: repo.directories.length + 1 + perWorktree,
        syscallsPerLookup: 2,
      },
    },
  };
}
