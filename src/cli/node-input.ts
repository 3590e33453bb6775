/**
 * Node side of input: turn a path on disk into engine `InputFile`s (lazy, sliced reads).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ByteSource, InputFile } from '../engine/basics.ts';

/** A `ByteSource` over a file on disk, read with `fs.readSync` in slices. */
export function fileSource(file: string): ByteSource {
  const size = fs.statSync(file).size;
  let fd: number | null = null;
  return {
    size,
    read(offset: number, length: number): Uint8Array {
      const n = Math.max(0, Math.min(length, size - offset));
      const buf = new Uint8Array(n);
      if (n === 0) return buf;
      if (fd === null) fd = fs.openSync(file, 'r');
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
 * Collect the input files under `p`: the file itself (with its sibling `.ref` files for a
 * `tables.list`), or every file below the directory, skipping object storage; a working tree is
 * read through its `.git` directory. Paths are relative to `p` (just the name for a file).
 */
export function collectInput(p: string): InputFile[] {
  const st = fs.statSync(p);
  if (st.isFile()) {
    // A tables.list names its tables: take the .ref files beside it too.
    if (path.basename(p) === 'tables.list') {
      const dir = path.dirname(p);
      return fs.readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isFile() && (e.name === 'tables.list' || e.name.endsWith('.ref')))
        .map((e) => ({ path: e.name, source: fileSource(path.join(dir, e.name)) }));
    }
    return [{ path: path.basename(p), source: fileSource(p) }];
  }
  // A working tree: its repository is the .git directory (not whatever else the tree holds).
  const dotGit = path.join(p, '.git');
  if (fs.existsSync(dotGit) && fs.statSync(dotGit).isDirectory()) p = dotGit;
  const out: InputFile[] = [];
  const walk = (dir: string, rel: string, depth: number) => {
    if (depth > 32) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (SKIP.has(e.name) && (rel === '' || rel === '.git')) continue;
        walk(full, r, depth + 1);
      } else if (e.isFile()) {
        out.push({ path: r, source: fileSource(full) });
      }
    }
  };
  walk(p, '', 0);
  return out;
}
