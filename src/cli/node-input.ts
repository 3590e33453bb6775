/**
 * Node side of input: turn a path on disk into engine `InputFile`s (lazy, sliced reads), without
 * ever reading outside the input directory, and capped reads for inputs that are streams.
 *
 * Symbolic links (docs/limits.md, "Symbolic links", says what git does and where refscope
 * differs):
 * - git's loose-ref walk follows symlinks (refs/files-backend.c `loose_fill_ref_dir` asks
 *   dir.c `get_dtype(..., follow_symlink=1)`, i.e. `stat`): a link to a directory is walked as a
 *   directory, a link to a regular file is read as a ref, a dangling link is not listed. refscope
 *   walks the same links as long as their target is inside the input directory and is not one of
 *   the directories the walk is already inside (a loop, told by device and inode numbers).
 * - A link whose text is a ref name (`refs/...`, valid by `check_refname_format`) is a symref in
 *   git without reading its target (files-backend.c `read_ref_internal`, "Follow normalized
 *   symlinks by hand"); refscope gives the engine `ref: <text>` for it.
 * - A link to anything outside the input, or a loop, ends the run with a one-line FormatError
 *   (exit 3) naming the link: git would follow it (outside the repository, or, for a loop, until
 *   the path exceeds PATH_MAX: with two such links it never ends).
 */
import fs from 'node:fs';
import path from 'node:path';
import { FormatError, type ByteSource, type InputFile } from '../engine/basics.ts';
import { checkRefnameFormat } from '../engine/files/refname.ts';

/** Open file descriptors, most recently used last; at most `MAX_OPEN` stay open. */
const open = new Map<string, number>();
const MAX_OPEN = 64;
function fdFor(file: string): number {
  let fd = open.get(file);
  if (fd !== undefined) {
    open.delete(file);
    open.set(file, fd);
    return fd;
  }
  if (open.size >= MAX_OPEN) {
    const [oldest, ofd] = open.entries().next().value as [string, number];
    open.delete(oldest);
    fs.closeSync(ofd);
  }
  fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const st = fs.fstatSync(fd);
  if (!st.isFile()) {
    // Swapped for a FIFO or device after the walk looked at it: never block or read a stream.
    fs.closeSync(fd);
    throw new FormatError(file, 0, `a regular file, found ${kindOf(st)}`);
  }
  open.set(file, fd);
  return fd;
}

/** What kind of file system object `st` is, in words (for errors: never the file's bytes). */
export function kindOf(st: fs.Stats | fs.Dirent): string {
  if (st.isFile()) return 'a regular file';
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'a special file';
}

/**
 * A `ByteSource` over a regular file on disk, read with `fs.readSync` in slices. Its size is
 * fixed when it is made (reads never go past it, so a file that grows cannot make a read grow).
 * Descriptors are shared through a small LRU (64 open at most), so a stack of 50,000 tables
 * does not run out of them. Anything but a regular file is refused (a FIFO would block, a device
 * never ends).
 */
export function fileSource(file: string, name = file, lazy = false): ByteSource {
  const src = new FileSource(file, name);
  // `lazy`: the walk already knows it is a regular file (its directory entry says so); the size
  // is taken when first asked for, so a table the analysis never opens (a stack refused for its
  // number of tables) costs no `stat`.
  if (!lazy) void src.size;
  return src;
}

/** `fileSource`'s reader: one object per file (a walk may make 100,000 of them). */
class FileSource implements ByteSource {
  private known = -1;
  constructor(
    /** The file on disk. */
    readonly diskPath: string,
    private readonly name: string,
  ) {}
  get size(): number {
    if (this.known < 0) {
      const st = fs.statSync(this.diskPath);
      if (!st.isFile()) throw new FormatError(this.name, 0, `a regular file, found ${kindOf(st)}`);
      this.known = st.size;
    }
    return this.known;
  }
  read(offset: number, length: number): Uint8Array {
    const n = Math.max(0, Math.min(length, this.size - offset));
    const buf = new Uint8Array(n);
    if (n === 0) return buf;
    const fd = fdFor(this.diskPath);
    let got = 0;
    while (got < n) {
      const r = fs.readSync(fd, buf, got, n - got, offset + got);
      if (r <= 0) break;
      got += r;
    }
    return got === n ? buf : buf.subarray(0, got);
  }
}

/**
 * The file on disk a source of `collectInput` reads (undefined for the in-memory `ref: <text>`
 * of a symlinked symref): `scripts/hostile-session.mjs` hands the worker the files as a drop
 * hands it Blobs, to be read when the engine asks, not before.
 */
export function diskPathOf(src: ByteSource): string | undefined {
  return src instanceof FileSource ? src.diskPath : undefined;
}

/** An in-memory `ByteSource` (the `ref: <target>` content given for a symlink symref). */
function bytesSource(b: Uint8Array): ByteSource {
  return { size: b.length, read: (o, l) => b.slice(Math.max(0, o), Math.max(0, Math.min(b.length, o + l))) };
}

/** Directories of a git dir that never hold refs (skipped when walking). */
const SKIP = new Set(['objects', 'hooks', 'lfs', 'modules', 'worktrees', 'rr-cache', 'info', 'branches']);

/** Deepest directory nesting walked (git itself has no limit but PATH_MAX; refs 40 levels deep occur). */
export const MAX_DEPTH = 256;
/** Most directories one walk enters (symlinked directories count each time they are entered). */
export const MAX_DIRECTORIES = 100_000;
/** Most files one walk collects (loose refs, tables, reflogs together). */
export const MAX_FILES = 2_000_000;
/**
 * Largest `tables.list` taken (it is read whole): 64 MiB is 1.5 million lines of git's
 * 43-byte table names; git itself keeps stacks to a few dozen tables.
 */
export const MAX_TABLES_LIST_BYTES = 64 * 1024 * 1024;

/**
 * Files whose kind matters to git: not regular means git fails or blocks on them (a FIFO named
 * `packed-refs` blocks `open`, a directory named `tables.list` cannot be read), so refscope
 * refuses them rather than leaving them out.
 */
function mustBeRegular(name: string): boolean {
  return (
    name === 'tables.list' ||
    name === 'packed-refs' ||
    name === 'HEAD' ||
    name === 'config' ||
    name === 'commondir' ||
    name.endsWith('.ref')
  );
}

/** Where the walk is: the input's real path (links must stay inside it). */
interface WalkRoot {
  real: string;
}

function inside(root: WalkRoot, real: string): boolean {
  return real === root.real || real.startsWith(root.real.endsWith(path.sep) ? root.real : root.real + path.sep);
}

function devIno(st: fs.Stats): string {
  return `${st.dev}:${st.ino}`;
}

/** The text of a symlink as a byte string (one char per byte), for the ref-name check. */
function linkText(full: string): string {
  return fs.readlinkSync(full, { encoding: 'buffer' }).toString('latin1');
}

/**
 * Collect the input files under `p`: the file itself (with its sibling `.ref` and `.lock` files for a
 * `tables.list`), or every file below the directory, skipping object storage; a working tree is
 * read through its `.git` directory (or the directory a `.git` file's `gitdir:` line names).
 * Paths are relative to `p` (just the name for a file). Symbolic links: see the module comment.
 * Throws `FormatError` for a link out of the input, a loop, a non-regular `tables.list`,
 * `packed-refs`, `HEAD`, `config` or table, and past `MAX_DEPTH` / `MAX_DIRECTORIES` / `MAX_FILES`.
 */
export function collectInput(p: string): InputFile[] {
  const lst = fs.lstatSync(p);
  const st = lst.isSymbolicLink() ? fs.statSync(p) : lst;
  if (!st.isFile() && !st.isDirectory())
    throw new FormatError(p, 0, `a regular file or a directory, found ${kindOf(st)}`);
  if (st.isFile()) {
    // A tables.list names its tables: take the .ref files beside it too. The directory is then
    // the input: tables.list itself must not lead out of it either.
    if (path.basename(p) === 'tables.list') {
      const dir = path.dirname(p);
      const root: WalkRoot = { real: fs.realpathSync(dir) };
      // git opens whatever tables.list names, `.ref` or not (reftable/stack.c stack_filename);
      // the names are read only from a regular file, never through a link.
      const listed = new Set(lst.isFile() && st.size <= 64 * 1048576 ? fs.readFileSync(p, 'utf8').split('\n') : []);
      const out: InputFile[] = [];
      for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
        const n = d.name;
        if (n !== 'tables.list' && !n.endsWith('.ref') && !n.endsWith('.lock') && !listed.has(n)) continue;
        const f = entry(root, childPath(dir, n), n, n, undefined, d);
        if (f && f !== 'dir') out.push(f);
      }
      return out;
    }
    return [{ path: path.basename(p), source: fileSource(p, path.basename(p)) }];
  }
  // A working tree: its repository is the .git directory (not whatever else the tree holds).
  p = gitDirOf(p);
  const out: InputFile[] = [];
  let dirs = 0;
  let root: WalkRoot = { real: fs.realpathSync(p) };
  const walk = (dir: string, rel: string, depth: number, ancestors: Set<string>) => {
    if (depth > MAX_DEPTH) throw new FormatError(rel || dir, 0, `directories nested at most ${MAX_DEPTH} deep`);
    if (++dirs > MAX_DIRECTORIES)
      throw new FormatError(
        rel || dir,
        0,
        `at most ${MAX_DIRECTORIES.toLocaleString('en-US')} directories in one input (refscope's limit; symlinked directories count each time they are entered)`,
      );
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      const name = d.name;
      const full = childPath(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      const e = entry(root, full, r, name, ancestors, d);
      if (e === null) continue;
      if (e === 'dir') {
        if (SKIP.has(name) && depth === 0) continue;
        const key = devIno(fs.statSync(full));
        if (ancestors.has(key)) {
          // Only a bind mount gets here (links are caught in `entry`): a loop all the same.
          throw new FormatError(r, 0, 'a directory tree without loops, found a directory that contains itself');
        }
        const next = new Set(ancestors);
        next.add(key);
        walk(full, r, depth + 1, next);
        continue;
      }
      out.push(e);
      if (out.length > MAX_FILES)
        throw new FormatError(
          r,
          0,
          `at most ${MAX_FILES.toLocaleString('en-US')} files in one input (refscope's limit)`,
        );
    }
  };
  walk(p, '', 0, new Set([devIno(fs.statSync(p))]));
  // A worktree's git directory (`.git/worktrees/<name>`) names the main repository in
  // `commondir`: git reads the shared refs there (worktree.c, setup.c get_common_dir). Its
  // files are given under the relative path from here (`../../reftable/tables.list`), which
  // engine/input.ts recognises from the same `commondir` line.
  const common = commonDirOf(p, out);
  if (common) {
    root = { real: fs.realpathSync(common.dir) };
    walk(common.dir, common.prefix.replace(/\/$/, ''), 0, new Set([devIno(fs.statSync(common.dir))]));
  }
  return out;
}

/**
 * The main repository of a worktree git directory: the directory its `commondir` file names
 * (relative to it, as git writes it, or absolute), with the prefix its files get (the relative
 * path, `/`-separated, ending in '/'). Null when there is no usable `commondir`, or it names
 * the directory itself.
 */
function commonDirOf(p: string, files: InputFile[]): { dir: string; prefix: string } | null {
  const f = files.find((x) => x.path === 'commondir');
  if (!f || f.source.size > 4096) return null;
  const line = Buffer.from(f.source.read(0, f.source.size))
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (!line) return null;
  const dir = path.resolve(p, line);
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch {
    return null;
  }
  if (!st.isDirectory()) return null;
  const rel = path.relative(p, dir).split(path.sep).join('/');
  if (rel === '' || !rel.startsWith('..')) return null;
  return { dir, prefix: rel + '/' };
}

/**
 * One directory entry: an `InputFile`, 'dir' (walk it), or null (left out, as git leaves it out
 * of its listing: a dangling link, a FIFO/socket/device under an ordinary name).
 */
function entry(
  root: WalkRoot,
  full: string,
  rel: string,
  name: string,
  ancestors?: Set<string>,
  dirent?: fs.Dirent,
): InputFile | 'dir' | null {
  // A regular file as its directory entry says (d_type), other than tables.list (whose size is
  // checked here): no `lstat` now, its size is taken when the analysis first needs it. A walk of
  // 100,000 table files is then one `readdir`, not 200,000 `stat` calls.
  if (dirent?.isFile() && name !== 'tables.list') return { path: rel, source: fileSource(full, rel, true) };
  let st: fs.Stats | fs.Dirent =
    dirent && !dirent.isSymbolicLink() && !dirent.isFile() && kindKnown(dirent) ? dirent : fs.lstatSync(full);
  if (st.isSymbolicLink()) {
    const text = linkText(full);
    let target: fs.Stats;
    try {
      target = fs.statSync(full);
    } catch {
      // Dangling (or a link loop the kernel gives up on): git's stat fails and it lists nothing.
      if (mustBeRegular(name))
        throw new FormatError(rel, 0, `${name} to be a regular file, found a symbolic link that leads nowhere`);
      return null;
    }
    // git: a link whose text is a ref name is a symref, its target is not read. It is listed
    // only when stat() found a regular file there (then get_dtype says DT_REG).
    if (
      target.isFile() &&
      text.startsWith('refs/') &&
      checkRefnameFormat(text) &&
      (name === 'HEAD' || !mustBeRegular(name))
    ) {
      return { path: rel, source: bytesSource(Uint8Array.from(Buffer.from(`ref: ${text}\n`, 'latin1'))) };
    }
    const real = fs.realpathSync(full);
    if (!inside(root, real)) {
      throw new FormatError(
        rel,
        0,
        `files and directories inside the input, found a symbolic link to ${kindOf(target)} outside it: refscope does not follow it (git would)`,
      );
    }
    if (target.isDirectory() && ancestors?.has(devIno(target))) {
      throw new FormatError(
        rel,
        0,
        "a directory tree without loops, found a symbolic link to a directory that contains it: git's loose-ref walk would follow it until the path passes PATH_MAX (with two such links it never ends)",
      );
    }
    st = target;
  }
  if (st.isDirectory()) {
    if (mustBeRegular(name) && name !== 'HEAD' && name !== 'config' && name !== 'commondir')
      throw new FormatError(rel, 0, `${name} to be a regular file, found a directory`);
    return 'dir';
  }
  if (st.isFile()) {
    if (name === 'tables.list' && (st as fs.Stats).size > MAX_TABLES_LIST_BYTES) {
      throw new FormatError(
        rel,
        MAX_TABLES_LIST_BYTES,
        `a tables.list of at most ${MAX_TABLES_LIST_BYTES.toLocaleString('en-US')} bytes (refscope's limit: it is read whole), found ${(st as fs.Stats).size.toLocaleString('en-US')} bytes`,
      );
    }
    return { path: rel, source: fileSource(full, rel) };
  }
  if (mustBeRegular(name)) throw new FormatError(rel, 0, `${name} to be a regular file, found ${kindOf(st)}`);
  return null;
}

/**
 * `path.join(dir, name)` for a name read from `dir` (no separator in it, never `.` or `..`):
 * without `path.normalize`, a third of the walk's time for a directory of 100,000 tables.
 */
function childPath(dir: string, name: string): string {
  return dir.endsWith(path.sep) ? dir + name : dir + path.sep + name;
}

/** Whether a directory entry's type is known (some file systems give DT_UNKNOWN: then `lstat`). */
function kindKnown(d: fs.Dirent): boolean {
  return d.isDirectory() || d.isFIFO() || d.isSocket() || d.isCharacterDevice() || d.isBlockDevice();
}

/**
 * The git directory of a working tree: `<p>/.git` when it is a directory, the directory named by
 * `gitdir: <path>` when `<p>/.git` is a file (a linked worktree or a submodule; git's own
 * indirection, followed like `commondir`), else `p` itself.
 */
function gitDirOf(p: string): string {
  const dotGit = path.join(p, '.git');
  let st: fs.Stats;
  try {
    st = fs.statSync(dotGit);
  } catch {
    return p;
  }
  if (st.isDirectory()) return dotGit;
  if (!st.isFile() || st.size > 4096) return p;
  const m = /^gitdir: *(.+?)\s*$/.exec(fs.readFileSync(dotGit, 'utf8'));
  if (!m) return p;
  const target = path.resolve(p, m[1]);
  return fs.existsSync(target) && fs.statSync(target).isDirectory() ? target : p;
}

/** Largest `--stdin` input read (`simulate`): 200,000 updates of ~300 bytes fit well below it. */
export const MAX_STDIN_BYTES = 64 * 1024 * 1024;

/**
 * Read a whole input that may be a stream (`-` for standard input, a FIFO, `/dev/stdin`, a
 * process substitution) or a regular file, at most `max` bytes. A regular file larger than
 * `max` is refused before reading; a stream (pipe, socket, character device) is read in 1 MiB
 * chunks and refused as soon as it passes `max` (so `/dev/zero` stops at `max`, not at the end of
 * memory). Directories and block devices are refused. Errors are `FormatError`s naming the input.
 */
export function readInputCapped(file: string, max = MAX_STDIN_BYTES, what = 'input'): Uint8Array {
  const label = file === '-' ? '(stdin)' : file;
  const fd = file === '-' ? 0 : fs.openSync(file, 'r');
  try {
    const st = fs.fstatSync(fd);
    if (st.isDirectory() || st.isBlockDevice())
      throw new FormatError(label, 0, `${what} in a regular file, a pipe or a socket, found ${kindOf(st)}`);
    if (st.isFile() && st.size > max)
      throw new FormatError(
        label,
        max,
        `${what} of at most ${max.toLocaleString('en-US')} bytes (refscope's limit), found ${st.size.toLocaleString('en-US')} bytes`,
      );
    const chunks: Buffer[] = [];
    let total = 0;
    const chunk = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      let n: number;
      try {
        n = fs.readSync(fd, chunk, 0, chunk.length, null);
      } catch (e) {
        // A non-blocking standard input with nothing yet: wait a little and try again.
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
          continue;
        }
        if ((e as NodeJS.ErrnoException).code === 'EOF') break;
        throw e;
      }
      if (n <= 0) break;
      total += n;
      if (total > max)
        throw new FormatError(
          label,
          max,
          `${what} of at most ${max.toLocaleString('en-US')} bytes (refscope's limit), found more (a stream that does not end, such as /dev/zero, stops here)`,
        );
      chunks.push(Buffer.from(chunk.subarray(0, n)));
    }
    return new Uint8Array(Buffer.concat(chunks, total));
  } finally {
    if (fd !== 0) fs.closeSync(fd);
  }
}
