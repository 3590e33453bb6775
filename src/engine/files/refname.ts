/**
 * refname: git's reference-name rules, on byte-string names (one JS char per byte, see
 * `bytesToKey` in basics.ts).
 *
 * Facts (git refs.c, refs/packed-backend.c, refs/files-backend.c):
 * - `check_refname_format(name, REFNAME_ALLOW_ONELEVEL)` is the test both backends apply to
 *   every name they read; a name that fails it is "broken" (its object id is cleared) unless it
 *   is also not "safe", in which case git dies ("packed refname is dangerous" /
 *   "loose refname is dangerous").
 * - A root ref (refs.c `is_root_ref`) is a top-level name made of upper-case ASCII letters, `-`
 *   and `_` that ends in `_HEAD` or is one of HEAD, AUTO_MERGE, BISECT_EXPECTED_REV,
 *   NOTES_MERGE_PARTIAL, NOTES_MERGE_REF, MERGE_AUTOSTASH, and is not a pseudoref.
 * - The pseudorefs FETCH_HEAD and MERGE_HEAD are never listed by `for-each-ref`.
 */

/**
 * Byte disposition, as git classifies refname bytes:
 * 0 ok, 1 end of component ('/'), 2 '.', 3 '{', 4 forbidden (controls, DEL, SP, ':', '?', '[',
 * '\\', '^', '~'), 5 '*'. Bytes >= 0x80 are ok.
 */
const DISPOSITION = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) DISPOSITION[c] = 4;
DISPOSITION[0x7f] = 4;
for (const ch of ' :?[\\^~') DISPOSITION[ch.charCodeAt(0)] = 4;
DISPOSITION['/'.charCodeAt(0)] = 1;
DISPOSITION['.'.charCodeAt(0)] = 2;
DISPOSITION['{'.charCodeAt(0)] = 3;
DISPOSITION['*'.charCodeAt(0)] = 5;

/**
 * git's `check_refname_format(name, REFNAME_ALLOW_ONELEVEL)` (or without ALLOW_ONELEVEL when
 * `allowOneLevel` is false) on a byte-string name. Returns true if the name is valid.
 * Rejected: "@" alone; an empty component (leading, trailing or doubled '/'); a component that
 * starts with '.' or ends with ".lock"; ".." anywhere; "@{" anywhere; control bytes, DEL, SP,
 * ':', '?', '[', '\\', '^', '~', '*'; a name ending in '.'.
 * A NUL byte (impossible in a C string) is treated as forbidden.
 */
export function checkRefnameFormat(name: string, allowOneLevel = true): boolean {
  if (name === '@') return false;
  const n = name.length;
  let components = 0;
  let i = 0;
  for (;;) {
    const compStart = i;
    let last = 0;
    for (; i < n; i++) {
      const ch = name.charCodeAt(i) & 0xff;
      const d = DISPOSITION[ch];
      if (d === 1) break;
      if (d === 2 && last === 0x2e) return false; // ".."
      if (d === 3 && last === 0x40) return false; // "@{"
      if (d === 4 || d === 5) return false;
      last = ch;
    }
    const len = i - compStart;
    if (len === 0) return false; // empty component
    if (name.charCodeAt(compStart) === 0x2e) return false; // component starts with '.'
    if (len >= 5 && name.startsWith('.lock', i - 5)) return false;
    components++;
    if (i >= n) break;
    i++; // skip '/'
  }
  if (name.charCodeAt(n - 1) === 0x2e) return false; // ends with '.'
  if (!allowOneLevel && components < 2) return false;
  return true;
}

/** `checkRefnameFormat(name, true)` on bytes `b[start, end)` (no string needed). */
export function checkRefnameBytes(b: Uint8Array, start: number, end: number): boolean {
  const n = end - start;
  if (n === 1 && b[start] === 0x40) return false;
  let i = start;
  for (;;) {
    const compStart = i;
    let last = 0;
    for (; i < end; i++) {
      const ch = b[i];
      const d = DISPOSITION[ch];
      if (d === 1) break;
      if (d === 2 && last === 0x2e) return false;
      if (d === 3 && last === 0x40) return false;
      if (d === 4 || d === 5) return false;
      last = ch;
    }
    const len = i - compStart;
    if (len === 0) return false;
    if (b[compStart] === 0x2e) return false;
    if (
      len >= 5 &&
      b[i - 5] === 0x2e &&
      b[i - 4] === 0x6c &&
      b[i - 3] === 0x6f &&
      b[i - 2] === 0x63 &&
      b[i - 1] === 0x6b
    )
      return false;
    if (i >= end) break;
    i++;
  }
  return b[end - 1] !== 0x2e;
}

/**
 * `checkRefnameBytes(b, start, end)` when the components of `b[start, from)` are known valid
 * (`from` is `start` or just after a '/'; e.g. they are the same bytes as in a name already
 * checked): only the components from `from` on are looked at. The rules are per component
 * except "@" alone and a final '.', which depend only on the whole name's length and last byte.
 */
export function checkRefnameTail(b: Uint8Array, start: number, from: number, end: number): boolean {
  if (from <= start) return checkRefnameBytes(b, start, end);
  // Bytes before `from` end in '/': the name is not "@" alone, and a last component "@" is valid.
  if (end - from === 1 && b[from] === 0x40) return true;
  return checkRefnameBytes(b, from, end);
}

/**
 * git's `refname_is_safe`: a name under "refs/" whose remainder is non-empty, does not start or
 * end with '/', and has no empty, "." or ".." component (git compares it with its normalized
 * path); or a non-empty name made only of 'A'-'Z' and '_'.
 */
export function refnameIsSafe(name: string): boolean {
  if (name.startsWith('refs/')) {
    const rest = name.slice(5);
    if (rest.length === 0 || rest[0] === '/' || rest[rest.length - 1] === '/') return false;
    for (const c of rest.split('/')) if (c === '' || c === '.' || c === '..') return false;
    return true;
  }
  if (name.length === 0) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (!((c >= 0x41 && c <= 0x5a) || c === 0x5f)) return false;
  }
  return true;
}

const IRREGULAR_ROOT = new Set([
  'HEAD',
  'AUTO_MERGE',
  'BISECT_EXPECTED_REV',
  'NOTES_MERGE_PARTIAL',
  'NOTES_MERGE_REF',
  'MERGE_AUTOSTASH',
]);

/** git's `is_pseudo_ref`: exactly FETCH_HEAD or MERGE_HEAD. */
export function isPseudoRefName(name: string): boolean {
  return name === 'FETCH_HEAD' || name === 'MERGE_HEAD';
}

/** git's `is_root_ref_syntax`: only 'A'-'Z', '-' and '_' (the empty string passes). */
function rootRefSyntax(name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (!((c >= 0x41 && c <= 0x5a) || c === 0x2d || c === 0x5f)) return false;
  }
  return true;
}

/**
 * git's `is_root_ref` (refs.c): root-ref syntax, not a pseudoref, and either ending in "_HEAD" or
 * one of HEAD, AUTO_MERGE, BISECT_EXPECTED_REV, NOTES_MERGE_PARTIAL, NOTES_MERGE_REF,
 * MERGE_AUTOSTASH. ORIG_HEAD, CHERRY_PICK_HEAD, REBASE_HEAD... are root refs; FETCH_HEAD and
 * MERGE_HEAD are not (pseudorefs).
 */
export function isRootRefName(name: string): boolean {
  if (!rootRefSyntax(name) || isPseudoRefName(name)) return false;
  return name.endsWith('_HEAD') || IRREGULAR_ROOT.has(name);
}

/**
 * git's `parse_worktree_ref(...) == REF_WORKTREE_SHARED`: false for per-worktree names
 * (refs/bisect/, refs/worktree/, refs/rewritten/, and root-ref-syntax names such as HEAD) and
 * for names of other worktrees' such refs (main-worktree/HEAD, worktrees/<id>/refs/bisect/x; see
 * `worktreeRefType`). `git pack-refs` only packs shared refs.
 */
export function isSharedRefName(name: string): boolean {
  return worktreeRefType(name) === 'shared';
}

/** refs.c `is_per_worktree_ref`: refs/worktree/, refs/bisect/, refs/rewritten/. */
export function isPerWorktreeRefName(name: string): boolean {
  return name.startsWith('refs/worktree/') || name.startsWith('refs/bisect/') || name.startsWith('refs/rewritten/');
}

/** refs.c `is_current_worktree_ref`: root ref syntax (HEAD, ORIG_HEAD, …) or a per-worktree prefix. */
function isCurrentWorktreeRef(name: string): boolean {
  return rootRefSyntax(name) || isPerWorktreeRefName(name);
}

/**
 * refs.c `parse_worktree_ref`: whose ref a name is. 'current' (this worktree's: HEAD and other
 * root refs, refs/worktree|bisect|rewritten/…), 'main' (`main-worktree/<current-kind name>`),
 * 'other' (`worktrees/<name>/<current-kind name>`, or `worktrees/<name>` alone), else 'shared'
 * (every worktree sees the same ref, stored in the main repository).
 */
export function worktreeRefType(name: string): 'current' | 'main' | 'other' | 'shared' {
  if (name.startsWith('worktrees/')) {
    const rest = name.slice('worktrees/'.length);
    const slash = rest.indexOf('/');
    if (slash < 0) return 'other';
    if (isCurrentWorktreeRef(rest.slice(slash + 1))) return 'other';
  }
  if (name.startsWith('main-worktree/') && isCurrentWorktreeRef(name.slice('main-worktree/'.length))) return 'main';
  return isCurrentWorktreeRef(name) ? 'current' : 'shared';
}

/**
 * The `for-each-ref` kind filter (ref-filter.c `ref_kind_from_refname`): returns true if a ref
 * named `name` is listed by `git for-each-ref` (`includeRootRefs` = `--include-root-refs`).
 * Pseudorefs (FETCH_HEAD, MERGE_HEAD) are never listed; HEAD and other root refs only with
 * `--include-root-refs`; every other name (refs/..., or a one-level name such as "foo" found in
 * packed-refs) is listed.
 */
export function listedByForEachRef(name: string, includeRootRefs: boolean): boolean {
  if (name.startsWith('refs/heads/') || name.startsWith('refs/remotes/') || name.startsWith('refs/tags/')) return true;
  if (name === 'HEAD') return includeRootRefs;
  if (isPseudoRefName(name)) return false;
  if (isRootRefName(name)) return includeRootRefs;
  return true;
}

/** git's `isspace` (its own ctype table): SP, TAB, LF, CR. */
export function isGitSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/** True if `c` is an ASCII hex digit (either case; git's `get_oid_hex` accepts both). */
export function isHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}
