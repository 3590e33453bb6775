/**
 * Finding the repositories under the roots of `refscope scan`: bare or not, either backend,
 * forge layouts (GitLab's hashed storage `@hashed/ab/cd/<sha256>.git`, `*.wiki.git`) included.
 *
 * A directory is a git directory when it has the files git's own test asks for
 * (setup.c `is_git_directory`: a `HEAD` file, a `refs/` directory and an `objects/` directory, or
 * a `commondir` file instead of `objects/`); a reftable repository has the same three (git writes
 * a placeholder `refs/heads` file there, refs/reftable-backend.c) plus `reftable/`. A directory
 * with a `.git` directory is a repository with a work tree. Once a repository is found the walk
 * does not go into it (its objects and refs are the analysis' business, and a work tree is not
 * walked for nested repositories). Symbolic links are never followed: a link to a directory is
 * listed as skipped with the reason, so that nothing is left out without a word; a directory
 * that cannot be read is listed the same way.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';

/** One repository found: where it is and how it is laid out. */
export interface FoundRepository {
  /** Index of its root in the roots given. */
  rootIndex: number;
  /** The root, as an absolute path. */
  root: string;
  /** Path relative to the root, `/`-separated; `.` for the root itself. */
  rel: string;
  /** The git directory (the repository itself when bare, else its `.git`). */
  gitDir: string;
  bare: boolean;
  /** `gitlab-hashed` (`@hashed/ab/cd/<sha256>.git`), `wiki` (`*.wiki.git`), or null; told by the whole path, so a root inside `@hashed/` still counts. */
  layout: 'gitlab-hashed' | 'wiki' | null;
}

/** Something the walk did not go into, and why. */
export interface SkippedPath {
  path: string;
  reason: string;
}

/** Most directories one scan walks (a storage node of 10^6 repositories has a few million). */
export const MAX_WALK_DIRECTORIES = 50_000_000;

function isFile(p: string): boolean {
  try {
    return fs.lstatSync(p).isFile();
  } catch {
    return false;
  }
}
function isDir(p: string): boolean {
  try {
    return fs.lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** setup.c `is_git_directory`, by the files that exist (their contents are the analysis' job). */
export function isGitDirectory(dir: string): boolean {
  return (
    isFile(path.join(dir, 'HEAD')) &&
    isDir(path.join(dir, 'refs')) &&
    (isDir(path.join(dir, 'objects')) || isFile(path.join(dir, 'commondir')))
  );
}

const HASHED = /\/@hashed\/[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{64}\.git$/;

function layoutOf(dir: string): FoundRepository['layout'] {
  if (HASHED.test(dir)) return 'gitlab-hashed';
  if (dir.endsWith('.wiki.git')) return 'wiki';
  return null;
}

/**
 * Every repository under `roots`, in a deterministic order (root by root, then by path in byte
 * order of the names), and what was skipped. `onFound` is called as the walk goes (progress).
 */
export function discover(
  roots: string[],
  onFound?: (n: number) => void,
): { repositories: FoundRepository[]; skipped: SkippedPath[] } {
  const repositories: FoundRepository[] = [];
  const skipped: SkippedPath[] = [];
  let dirs = 0;
  roots.forEach((given, rootIndex) => {
    const root = path.resolve(given);
    let realRoot = root;
    try {
      realRoot = fs.realpathSync(root);
    } catch {
      // reported below, where the root is read
    }
    const walk = (dir: string, rel: string, ancestors: Set<string>): void => {
      if (++dirs > MAX_WALK_DIRECTORIES) {
        skipped.push({ path: dir, reason: `more than ${MAX_WALK_DIRECTORIES} directories walked (refscope's limit)` });
        return;
      }
      const dotGit = path.join(dir, '.git');
      if (isGitDirectory(dir)) {
        repositories.push({ rootIndex, root, rel: rel || '.', gitDir: dir, bare: true, layout: layoutOf(dir) });
        onFound?.(repositories.length);
        return;
      }
      if (isDir(dotGit) && isGitDirectory(dotGit)) {
        repositories.push({ rootIndex, root, rel: rel || '.', gitDir: dotGit, bare: false, layout: layoutOf(dir) });
        onFound?.(repositories.length);
        return;
      }
      if (isFile(dotGit)) {
        // A linked worktree or a submodule's checkout: its refs live in the repository its
        // `gitdir:` line names, which is scanned where it lies (if under a root).
        skipped.push({
          path: dir,
          reason: 'a .git file (linked worktree or submodule checkout): its repository is scanned where it lies',
        });
        return;
      }
      let names: fs.Dirent[];
      try {
        names = fs.readdirSync(dir, { withFileTypes: true });
      } catch (e) {
        skipped.push({ path: dir, reason: `cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})` });
        return;
      }
      names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const d of names) {
        const full = path.join(dir, d.name);
        const r = rel ? `${rel}/${d.name}` : d.name;
        if (d.isSymbolicLink()) {
          let target = 'something that does not exist';
          try {
            const st = fs.statSync(full);
            if (!st.isDirectory()) continue; // a link to a file is nobody's repository
            const real = fs.realpathSync(full);
            target =
              real === realRoot || real.startsWith(realRoot + path.sep)
                ? 'a directory inside the root'
                : 'a directory outside the root';
          } catch {
            // dangling
          }
          skipped.push({ path: full, reason: `a symbolic link to ${target}: scan never follows links` });
          continue;
        }
        if (!d.isDirectory()) continue;
        let key: string;
        try {
          const st = fs.statSync(full);
          key = `${st.dev}:${st.ino}`;
        } catch (e) {
          skipped.push({ path: full, reason: `cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})` });
          continue;
        }
        if (ancestors.has(key)) {
          skipped.push({ path: full, reason: 'a directory that contains itself (a bind mount): not walked again' });
          continue;
        }
        const next = new Set(ancestors);
        next.add(key);
        walk(full, r, next);
      }
    };
    let st: fs.Stats;
    try {
      st = fs.statSync(root);
    } catch (e) {
      skipped.push({ path: root, reason: `the root cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})` });
      return;
    }
    if (!st.isDirectory()) {
      skipped.push({ path: root, reason: 'the root is not a directory' });
      return;
    }
    walk(root, '', new Set([`${st.dev}:${st.ino}`]));
  });
  return { repositories, skipped };
}

/**
 * Which shard (1..n) a repository belongs to: a hash of its path relative to its root, so the
 * same repository lands in the same shard on every run and on every machine that mounts the
 * storage under another root; the shards partition the set.
 */
export function shardOf(rel: string, n: number): number {
  const h = createHash('sha256').update(rel, 'utf8').digest();
  return (h.readUInt32BE(0) % n) + 1;
}
