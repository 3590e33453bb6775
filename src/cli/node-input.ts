/**
 * Node side of input: turn a path on disk into engine `InputFile`s (lazy, sliced reads).
 */
import fs from 'node:fs';
import path from 'node:path';
import { FormatError, type ByteSource, type InputFile } from '../engine/basics.ts';

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
  fd = fs.openSync(file, 'r');
  open.set(file, fd);
  return fd;
}

/**
 * A `ByteSource` over a file on disk, read with `fs.readSync` in slices. Descriptors are shared
 * through a small LRU (64 open at most), so a stack of 50,000 tables does not run out of them.
 */
export function fileSource(file: string): ByteSource {
  const size = fs.statSync(file).size;
  return {
    size,
    read(offset: number, length: number): Uint8Array {
      const n = Math.max(0, Math.min(length, size - offset));
      const buf = new Uint8Array(n);
      if (n === 0) return buf;
      const fd = fdFor(file);
      let got = 0;
      while (got < n) {
        const r = fs.readSync(fd, buf, got, n - got, offset + got);
        if (r <= 0) break;
        got += r;
      }
      return got === n ? buf : buf.subarray(0, got);
    },
  };
}

/** Directories of a git dir that never hold refs (skipped when walking). */
const SKIP = new Set(['objects', 'hooks', 'lfs', 'modules', 'worktrees', 'rr-cache', 'info', 'branches']);

/**
 * Collect the input files under `p`: the file itself (with its sibling `.ref` and `.lock` files for a
 * `tables.list`), or every file below the directory, skipping object storage; a working tree is
 * read through its `.git` directory. Paths are relative to `p` (just the name for a file).
 */
export function collectInput(p: string): InputFile[] {
  const st = fs.statSync(p);
  if (!st.isFile() && !st.isDirectory()) throw new FormatError(p, 0, 'a regular file or a directory (this is a device, socket or pipe)');
  if (st.isFile()) {
    // A tables.list names its tables: take the .ref files beside it too.
    if (path.basename(p) === 'tables.list') {
      const dir = path.dirname(p);
      // git opens whatever tables.list names, `.ref` or not (reftable/stack.c stack_filename).
      const listed = new Set(st.size <= 64 * 1048576 ? fs.readFileSync(p, 'utf8').split('\n') : []);
      return fs.readdirSync(dir)
        .filter((n) => (n === 'tables.list' || n.endsWith('.ref') || n.endsWith('.lock') || listed.has(n)) && isFile(path.join(dir, n)))
        .map((n) => ({ path: n, source: fileSource(path.join(dir, n)) }));
    }
    return [{ path: path.basename(p), source: fileSource(p) }];
  }
  // A working tree: its repository is the .git directory (not whatever else the tree holds).
  const dotGit = path.join(p, '.git');
  if (fs.existsSync(dotGit) && fs.statSync(dotGit).isDirectory()) p = dotGit;
  const out: InputFile[] = [];
  const walk = (dir: string, rel: string, depth: number) => {
    if (depth > MAX_DEPTH) throw new FormatError(dir, 0, `directories nested at most ${MAX_DEPTH} deep`);
    for (const name of fs.readdirSync(dir)) {
      const full = path.join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      let st: fs.Stats;
      try {
        st = fs.statSync(full); // follows symlinks, as git does for tables and refs
      } catch {
        continue; // a dangling symlink: not a file
      }
      if (st.isDirectory()) {
        if (SKIP.has(name) && (rel === '' || rel === '.git')) continue;
        walk(full, r, depth + 1);
      } else if (st.isFile()) {
        out.push({ path: r, source: fileSource(full) });
      }
    }
  };
  walk(p, '', 0);
  return out;
}

/** Deepest directory nesting walked (git itself has no limit; refs 40 levels deep occur). */
const MAX_DEPTH = 256;

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}
