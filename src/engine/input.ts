/**
 * input: decide what the user gave (a reftable directory, a `.git` directory or bare repository,
 * lone `.ref` files, a `packed-refs` file, a files-backend `.git`) from the paths alone.
 * Paths are `/`-separated and relative to what was dropped or named on the command line.
 */
import { FormatError, type InputFile, readAll } from './basics.ts';
import { isPerWorktreeRefName } from './files/refname.ts';

/** What kind of ref store the input is. */
export type InputKind = 'reftable' | 'files' | 'packed-refs' | 'empty';

/** The classified input. Paths inside `files` keep their original names. */
export interface ClassifiedInput {
  kind: InputKind;
  /** Prefix (ending in '/' or empty) of the git directory or reftable directory. */
  root: string;
  /** For reftable: the tables.list file, or null for lone tables. */
  tablesList: InputFile | null;
  /** For reftable: every `.ref` file under the reftable directory (or given alone). */
  tableFiles: InputFile[];
  /** For files / packed-refs: files relative to the git directory (paths rewritten, root stripped). */
  gitFiles: InputFile[];
  /** Human-readable description, e.g. "reftable stack (.git/reftable/tables.list)". */
  description: string;
  /**
   * A reftable worktree (`.git/worktrees/<name>` with `commondir`) given with its main
   * repository: `tablesList`/`tableFiles` are the worktree's own stack, these the main one's
   * (engine/worktree.ts merges them as git does). A files-backend worktree needs no such field:
   * its `gitFiles` are already the files git reads for it.
   */
  worktree?: { commonRoot: string; commonTablesList: InputFile; commonTableFiles: InputFile[] };
  /**
   * For reftable: the other files of the reftable directory (lock files such as
   * `tables.list.lock` and `<table>.lock`, stray files), paths as given.
   */
  reftableOther?: InputFile[];
  /**
   * For a reftable repository: the files of its git directory outside `reftable/` (the
   * placeholder `HEAD`, `refs/…`, `packed-refs`, `config`), paths relative to the git directory.
   */
  gitDirOther?: InputFile[];
}

function dirOf(p: string): string {
  const i = p.lastIndexOf('/');
  return i < 0 ? '' : p.slice(0, i + 1);
}
/** `dirOf(p) === dir`, without making the substring. */
function inDir(p: string, dir: string): boolean {
  return p.startsWith(dir) && p.indexOf('/', dir.length) < 0;
}
function baseOf(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/**
 * Refuse an input that holds several repositories or stacks at the shallowest level (a folder of
 * repositories, the parent of several stacks): picking one would show a report of something the
 * user did not name. `places` are sorted shallowest first; `what` names one of them.
 */
function oneAtTop(places: string[], what: string): void {
  const depth = (p: string) => p.split('/').length;
  const top = places.filter((p) => depth(p) === depth(places[0])).sort();
  if (top.length < 2) return;
  const shown = top
    .slice(0, 3)
    .map((p) => p || '.')
    .join(', ');
  // The folder that holds them all (their longest common directory), or the input itself.
  let common = top[0];
  for (const p of top) while (!p.startsWith(common)) common = dirOf(common.replace(/\/$/, ''));
  const parent = common.replace(/\/$/, '') || 'the given folder';
  throw new FormatError(
    parent,
    0,
    `one ${what}, found ${top.length} side by side (${shown}${top.length > 3 ? ', …' : ''}): give one of them`,
  );
}

/**
 * A `HEAD` that is a reflog (`logs/HEAD`: "<old id> <new id> <name> …" lines), as when the
 * `logs/` folder itself is given: not a repository's HEAD ("ref: …" or one object id).
 */
function isReflog(f: InputFile): boolean {
  let head: Uint8Array;
  try {
    head = f.source.read(0, 160);
  } catch {
    return false;
  }
  let t = '';
  for (let i = 0; i < head.length; i++) t += String.fromCharCode(head[i]);
  return /^(?:[0-9a-f]{40}|[0-9a-f]{64}) (?:[0-9a-f]{40}|[0-9a-f]{64}) /.test(t);
}

/**
 * Classify a set of files. Rules, first match wins:
 * 1. a git directory: the shallowest directory holding a `HEAD` file together with a `config`,
 *    a `packed-refs`, a `reftable/tables.list`, a `commondir` (a worktree: see `worktreeOf`) or
 *    files under `refs/` (never one inside `logs/`,
 *    whose `logs/HEAD` sits next to `logs/refs/`, nor one whose `HEAD` is a reflog: the `logs/`
 *    folder given on its own). With `reftable/tables.list` it is a reftable
 *    repository; otherwise the files backend rooted there (an unborn or fully packed repository
 *    is valid and may have no ref files at all);
 * 2. a `tables.list` (shallowest) → reftable stack in its directory;
 * 3. `.ref` files → lone tables (ordered by update index);
 * 4. a `packed-refs` file (shallowest) → that file alone;
 * 5. a file that is a packed-refs file by its content (`looksLikePackedRefs`): one whose name
 *    contains `packed-refs` (`backup.packed-refs`, `packed-refs.bak`), else, in an input of at
 *    most 16 files, any file → that file alone, read as packed-refs (its name kept for messages);
 * 6. nothing recognised → `empty`.
 * A git `config` saying `refStorage = reftable` without a `reftable/` directory is reported by the caller.
 */
export function classifyInput(files: InputFile[]): ClassifiedInput {
  // A path that needs no change keeps its object (a drop of 100,000 tables is not copied).
  const norm = files.map((f) => {
    const p = f.path;
    if (p.charCodeAt(0) !== 0x2e && p.charCodeAt(0) !== 0x2f && !p.includes('\\')) return f;
    return {
      ...f,
      path: p
        .replace(/^(\.\/)+/, '')
        .replace(/^\//, '')
        .replace(/\\/g, '/'),
    };
  });
  const depth = (p: string) => p.split('/').length;
  const byPath = new Map(norm.map((f) => [f.path, f]));
  const inLogs = (dir: string) => dir.split('/').includes('logs');
  const gitDirs = norm
    .filter((f) => baseOf(f.path) === 'HEAD' && !inLogs(dirOf(f.path)) && !isReflog(f))
    .map((f) => dirOf(f.path))
    .filter(
      (d) =>
        byPath.has(d + 'config') ||
        byPath.has(d + 'packed-refs') ||
        byPath.has(d + 'reftable/tables.list') ||
        byPath.has(d + 'commondir') ||
        norm.some((g) => g.path.startsWith(d + 'refs/')),
    )
    .sort((a, b) => depth(a) - depth(b));
  const reftableAt = (dir: string, list: InputFile, what: string, gitDir?: string): ClassifiedInput => {
    // git opens whatever tables.list names, `.ref` or not (reftable/stack.c stack_filename).
    // The names are read only when a file not ending in `.ref` asks (a stack of `.ref` files,
    // however many, does not parse its tables.list here).
    let listed: Set<string> | null = null;
    const isTable = (f: InputFile) =>
      f.path.endsWith('.ref') || (f !== list && (listed ??= listedNames(list)).has(baseOf(f.path)));
    const tableFiles: InputFile[] = [];
    const reftableOther: InputFile[] = [];
    for (const f of norm) {
      if (!inDir(f.path, dir)) continue;
      if (isTable(f)) tableFiles.push(f);
      else if (f !== list) reftableOther.push(f);
    }
    return {
      kind: 'reftable',
      root: dir,
      tablesList: list,
      tableFiles,
      gitFiles: [],
      description: `${what} (${list.path})`,
      reftableOther,
      ...(gitDir !== undefined
        ? {
            gitDirOther: norm
              .filter((f) => f.path.startsWith(gitDir) && !f.path.startsWith(dir))
              .map((f) => ({ ...f, path: f.path.slice(gitDir.length) })),
          }
        : {}),
    };
  };
  if (gitDirs.length) {
    oneAtTop(gitDirs, 'repository');
    const root = gitDirs[0];
    const wt = worktreeOf(root, norm, byPath);
    if (wt) return wt;
    const list = byPath.get(root + 'reftable/tables.list');
    if (list) return reftableAt(root + 'reftable/', list, 'reftable repository', root);
    if (!configSaysReftable(byPath.get(root + 'config'))) {
      const gitFiles = norm
        .filter((f) => f.path.startsWith(root))
        .map((f) => ({ ...f, path: f.path.slice(root.length) }));
      return {
        kind: 'files',
        root,
        tablesList: null,
        tableFiles: [],
        gitFiles,
        description: `files backend (${root ? root.replace(/\/$/, '') : '.git directory'})`,
      };
    }
  }
  const lists = norm.filter((f) => baseOf(f.path) === 'tables.list').sort((a, b) => depth(a.path) - depth(b.path));
  if (lists.length) {
    oneAtTop(
      lists.map((f) => dirOf(f.path)),
      'reftable stack',
    );
    return reftableAt(dirOf(lists[0].path), lists[0], 'reftable stack');
  }
  const refs = norm.filter((f) => f.path.endsWith('.ref'));
  if (refs.length) {
    return {
      kind: 'reftable',
      root: '',
      tablesList: null,
      tableFiles: refs,
      gitFiles: [],
      description: `${refs.length} reftable file(s) without tables.list`,
    };
  }
  const packed = norm.filter((f) => baseOf(f.path) === 'packed-refs').sort((a, b) => depth(a.path) - depth(b.path));
  if (packed.length) {
    oneAtTop(
      packed.map((f) => f.path),
      'packed-refs file',
    );
    const f = packed[0];
    return {
      kind: 'packed-refs',
      root: dirOf(f.path),
      tablesList: null,
      tableFiles: [],
      gitFiles: [{ ...f, path: 'packed-refs' }],
      description: `packed-refs file (${f.path})`,
    };
  }
  const sniffed = norm
    .filter((f) => baseOf(f.path).includes('packed-refs'))
    .sort((a, b) => depth(a.path) - depth(b.path));
  const byContent = [...sniffed, ...(norm.length <= 16 ? norm.filter((f) => !sniffed.includes(f)) : [])].find(
    looksLikePackedRefs,
  );
  if (byContent) {
    const f = byContent;
    // Read as `packed-refs` (what the files backend looks for), reported under its own name.
    const asPacked = Object.assign({ path: 'packed-refs', source: f.source }, { displayPath: f.path });
    return {
      kind: 'packed-refs',
      root: dirOf(f.path),
      tablesList: null,
      tableFiles: [],
      gitFiles: [asPacked],
      description: `packed-refs file, recognised by its content (${f.path})`,
    };
  }
  return {
    kind: 'empty',
    root: '',
    tablesList: null,
    tableFiles: [],
    gitFiles: [],
    description: 'no reftable, packed-refs or .git files found',
  };
}

/**
 * A packed-refs file by its first bytes: the header git writes (`# pack-refs with:`), or a
 * first line `<40 or 64 hex digits> SP refs/…`.
 */
export function looksLikePackedRefs(f: InputFile): boolean {
  let head: Uint8Array;
  try {
    head = f.source.read(0, 128);
  } catch {
    return false;
  }
  let t = '';
  for (let i = 0; i < head.length; i++) t += String.fromCharCode(head[i]);
  return t.startsWith('# pack-refs with:') || /^(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64}) refs\//.test(t);
}

/**
 * A worktree's git directory (`root` holds `commondir`) with its main repository's files under
 * the path `commondir` names, relative to `root` (`../../reftable/tables.list`: the CLI gives
 * them so). Reftable: the two stacks (see `ClassifiedInput.worktree`). Files backend: the files
 * git reads for this worktree (refs/files-backend.c `files_ref_path`): root refs (HEAD,
 * ORIG_HEAD, …), `refs/{bisect,worktree,rewritten}/` and their reflogs from the worktree, every
 * other ref, `packed-refs`, `config` and reflog from the main repository. Null if `root` is not
 * a worktree or its main repository is not in the input (the worktree alone is then read as is).
 */
function worktreeOf(root: string, norm: InputFile[], byPath: Map<string, InputFile>): ClassifiedInput | null {
  const cd = byPath.get(root + 'commondir');
  if (!cd || cd.source.size > 4096) return null;
  const line = new TextDecoder().decode(readAll(cd.source)).replace(/\r?\n$/, '');
  let prefix: string | null = null;
  if (line && !line.startsWith('/')) prefix = normalizeDir(root + line);
  if (prefix === null || !byPath.has(prefix + 'HEAD')) {
    // An absolute commondir: its files are under the shortest "../…" directory holding a HEAD.
    const heads = norm
      .map((f) => f.path)
      .filter((p) => /^(\.\.\/)+HEAD$/.test(p))
      .sort((a, b) => a.length - b.length);
    prefix = heads.length ? heads[0].slice(0, -4) : null;
  }
  if (prefix === null || prefix === root || !byPath.has(prefix + 'HEAD')) return null;
  const common = prefix;
  const ownList = byPath.get(root + 'reftable/tables.list');
  const commonList = byPath.get(common + 'reftable/tables.list');
  if (ownList && commonList) {
    const refsIn = (dir: string, list: InputFile) => {
      const listed = listedNames(list);
      return norm.filter((f) => dirOf(f.path) === dir && (f.path.endsWith('.ref') || listed.has(baseOf(f.path))));
    };
    return {
      kind: 'reftable',
      root: root + 'reftable/',
      tablesList: ownList,
      tableFiles: refsIn(root + 'reftable/', ownList),
      gitFiles: [],
      description: `reftable worktree (${ownList.path}) with its main repository's stack (${commonList.path})`,
      worktree: {
        commonRoot: common,
        commonTablesList: commonList,
        commonTableFiles: refsIn(common + 'reftable/', commonList),
      },
    };
  }
  if (ownList || commonList) return null;
  const gitFiles: InputFile[] = [];
  const perWorktree = (rel: string) =>
    !rel.includes('/') ||
    isPerWorktreeRefName(rel) ||
    (rel.startsWith('logs/') && (!rel.slice(5).includes('/') || isPerWorktreeRefName(rel.slice(5))));
  for (const f of norm) {
    if (f.path.startsWith(common)) {
      const rel = f.path.slice(common.length);
      if (rel === 'packed-refs' || rel === 'config')
        gitFiles.push(Object.assign({ path: rel, source: f.source }, { displayPath: f.path }));
      else if ((rel.startsWith('refs/') || rel.startsWith('logs/refs/')) && !perWorktree(rel))
        gitFiles.push({ path: rel, source: f.source });
    } else if (f.path.startsWith(root)) {
      const rel = f.path.slice(root.length);
      if (
        rel.startsWith('refs/') || rel.startsWith('logs/')
          ? perWorktree(rel)
          : !rel.includes('/') && rel !== 'packed-refs' && rel !== 'config'
      ) {
        gitFiles.push({ path: rel, source: f.source });
      }
    }
  }
  return {
    kind: 'files',
    root,
    tablesList: null,
    tableFiles: [],
    gitFiles,
    description: `files-backend worktree (${root ? root.replace(/\/$/, '') : '.'}) with its main repository (${common.replace(/\/$/, '')})`,
  };
}

/** `a/b/../c` → `a/c/`, keeping leading `..` (paths relative to the input). */
function normalizeDir(p: string): string {
  const out: string[] = [];
  for (const c of p.split('/')) {
    if (c === '' || c === '.') continue;
    if (c === '..' && out.length && out[out.length - 1] !== '..') out.pop();
    else out.push(c);
  }
  return out.length ? out.join('/') + '/' : '';
}

/** Names on the lines of a `tables.list` (empty for one too big to be a stack's; checked later by the stack). */
function listedNames(list: InputFile): Set<string> {
  const out = new Set<string>();
  if (list.source.size > 64 * 1048576) return out;
  let bytes: Uint8Array;
  try {
    bytes = readAll(list.source);
  } catch {
    return out;
  }
  const text = new TextDecoder().decode(bytes);
  for (const line of text.split('\n')) if (line && line !== 'tables.list') out.add(line);
  return out;
}

/** True if a git `config` file's bytes set `extensions.refStorage = reftable`. */
export function configSaysReftable(config: InputFile | undefined): boolean {
  if (!config || config.source.size > 1048576) return false;
  const text = new TextDecoder().decode(readAll(config.source));
  return /^\s*refstorage\s*=\s*reftable\s*$/im.test(text);
}
