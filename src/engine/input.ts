/**
 * input: decide what the user gave (a reftable directory, a `.git` directory or bare repository,
 * lone `.ref` files, a `packed-refs` file, a files-backend `.git`) from the paths alone.
 * Paths are `/`-separated and relative to what was dropped or named on the command line.
 */
import { type InputFile, readAll } from './basics.ts';

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
}

function dirOf(p: string): string {
  const i = p.lastIndexOf('/');
  return i < 0 ? '' : p.slice(0, i + 1);
}
function baseOf(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/**
 * Classify a set of files. Rules, first match wins:
 * 1. a `tables.list` (shallowest) → reftable stack in its directory;
 * 2. `.ref` files → lone tables (ordered by update index);
 * 3. a `packed-refs`, or `HEAD` with a `refs/` directory → files backend, rooted at that directory;
 * 4. nothing recognised → `empty`.
 * A git `config` saying `refStorage = reftable` without a `reftable/` directory is reported by the caller.
 */
export function classifyInput(files: InputFile[]): ClassifiedInput {
  const norm = files.map((f) => ({ ...f, path: f.path.replace(/^\.?\//, '').replace(/\\/g, '/') }));
  const depth = (p: string) => p.split('/').length;
  const lists = norm.filter((f) => baseOf(f.path) === 'tables.list').sort((a, b) => depth(a.path) - depth(b.path));
  if (lists.length) {
    const list = lists[0];
    const dir = dirOf(list.path);
    const tableFiles = norm.filter((f) => dirOf(f.path) === dir && f.path.endsWith('.ref'));
    return {
      kind: 'reftable', root: dir, tablesList: list, tableFiles, gitFiles: [],
      description: `reftable stack (${list.path})`,
    };
  }
  const refs = norm.filter((f) => f.path.endsWith('.ref'));
  if (refs.length) {
    return { kind: 'reftable', root: '', tablesList: null, tableFiles: refs, gitFiles: [], description: `${refs.length} reftable file(s) without tables.list` };
  }
  const packed = norm.filter((f) => baseOf(f.path) === 'packed-refs').sort((a, b) => depth(a.path) - depth(b.path));
  const heads = norm.filter((f) => baseOf(f.path) === 'HEAD' && norm.some((g) => g.path.startsWith(dirOf(f.path) + 'refs/')))
    .sort((a, b) => depth(a.path) - depth(b.path));
  const rootFile = heads[0] ?? packed[0];
  if (rootFile) {
    const root = dirOf(rootFile.path);
    const gitFiles = norm.filter((f) => f.path.startsWith(root)).map((f) => ({ ...f, path: f.path.slice(root.length) }));
    const isLone = !heads.length && gitFiles.length === 1;
    return {
      kind: isLone ? 'packed-refs' : 'files', root, tablesList: null, tableFiles: [], gitFiles,
      description: isLone ? `packed-refs file (${rootFile.path})` : `files backend (${root || './'})`,
    };
  }
  return { kind: 'empty', root: '', tablesList: null, tableFiles: [], gitFiles: [], description: 'no reftable, packed-refs or .git files found' };
}

/** True if a git `config` file's bytes set `extensions.refStorage = reftable`. */
export function configSaysReftable(config: InputFile | undefined): boolean {
  if (!config) return false;
  const text = new TextDecoder().decode(readAll(config.source));
  return /^\s*refstorage\s*=\s*reftable\s*$/im.test(text);
}
