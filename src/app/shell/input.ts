/**
 * Getting files in: drops (folders walked with `webkitGetAsEntry`), file inputs, the File System
 * Access pickers (browser-fs-access), and the built-in samples (fetched from the app's own origin,
 * relative to the page, so any base path works).
 */
import { directoryOpen, fileOpen, supported as fsAccessSupported } from 'browser-fs-access';
import type { WorkerInput } from './engine.ts';

/** Directories of a git dir that never hold refs (skipped when walking), as the CLI does. */
const SKIP = new Set(['objects', 'hooks', 'lfs', 'modules', 'worktrees', 'rr-cache', 'info', 'branches']);

/** Most files taken from one drop (a guard against dropping a home directory). */
export const MAX_FILES = 200_000;

/** Whether a directory at `path` (`/`-separated, relative to what was dropped) should be skipped. */
export function skipDir(path: string): boolean {
  const parts = path.split('/').filter(Boolean);
  const name = parts[parts.length - 1];
  if (!name || !SKIP.has(name)) return false;
  // Only at the top of a git directory: the dropped folder itself, or inside a `.git`/`*.git` folder.
  if (parts.length <= 2) return true;
  const parent = parts[parts.length - 2];
  return parent === '.git' || parent.endsWith('.git');
}

/** Normalise a file's path: `/`-separated, no leading `/`. */
function clean(p: string): string {
  return p.replace(/\\/g, '/').replace(/^\/+/, '');
}

/** Files from an `<input type=file>` (with or without `webkitdirectory`) or a picker. */
export function inputsFromFiles(files: Iterable<File>): WorkerInput[] {
  const out: WorkerInput[] = [];
  const all = Array.from(files);
  // A work tree: keep only what is under its .git directory.
  const gitDirs = new Set<string>();
  for (const f of all) {
    const p = clean(f.webkitRelativePath || f.name);
    const i = p.indexOf('/.git/');
    if (i >= 0) gitDirs.add(p.slice(0, i + 1));
  }
  for (const f of all) {
    const path = clean(f.webkitRelativePath || f.name);
    if (gitDirs.size && ![...gitDirs].some((d) => path.startsWith(d + '.git/'))) continue;
    const dirs = path.split('/').slice(0, -1);
    let skip = false;
    for (let i = 1; i <= dirs.length && !skip; i++) skip = skipDir(dirs.slice(0, i).join('/'));
    if (!skip) out.push({ path, blob: f });
    if (out.length >= MAX_FILES) break;
  }
  return out;
}

interface Pending {
  entries: FileSystemEntry[];
  files: File[];
}

/**
 * Take what a drop carries. Must run synchronously inside the `drop` handler: the browser empties
 * the DataTransfer once the handler returns. Walk the result with `walkDrop`.
 */
export function takeDrop(dt: DataTransfer): Pending {
  const entries: FileSystemEntry[] = [];
  const files: File[] = [];
  const items = dt.items ? Array.from(dt.items) : [];
  for (const item of items) {
    if (item.kind !== 'file') continue;
    const e = typeof item.webkitGetAsEntry === 'function' ? item.webkitGetAsEntry() : null;
    if (e) entries.push(e);
    else {
      const f = item.getAsFile();
      if (f) files.push(f);
    }
  }
  if (!items.length && dt.files) files.push(...Array.from(dt.files));
  return { entries, files };
}

function readAllEntries(dir: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = dir.createReader();
  const all: FileSystemEntry[] = [];
  return new Promise((resolve, reject) => {
    const next = () =>
      reader.readEntries((batch) => {
        if (!batch.length) resolve(all);
        else {
          all.push(...batch);
          next();
        }
      }, reject);
    next();
  });
}

function fileOf(e: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => e.file(resolve, reject));
}

/** Walk the dropped entries (folders recursively, skipping object storage) into worker inputs. */
export async function walkDrop(p: Pending): Promise<WorkerInput[]> {
  const out: WorkerInput[] = p.files.map((f) => ({ path: clean(f.webkitRelativePath || f.name), blob: f }));
  const walk = async (e: FileSystemEntry, depth: number): Promise<void> => {
    if (out.length >= MAX_FILES || depth > 256) return;
    const path = clean(e.fullPath || e.name);
    if (e.isFile) {
      out.push({ path, blob: await fileOf(e as FileSystemFileEntry) });
    } else if (e.isDirectory) {
      if (depth > 0 && skipDir(path)) return;
      const children = await readAllEntries(e as FileSystemDirectoryEntry);
      // A work tree: only its .git directory holds refs.
      const git = children.find((c) => c.isDirectory && c.name === '.git');
      for (const c of git ? [git] : children) await walk(c, depth + 1);
    }
  };
  for (const e of p.entries) await walk(e, 0);
  return out;
}

/** True when the File System Access pickers are available (Chromium); otherwise file inputs are used. */
export const pickersSupported = fsAccessSupported;

function isAbort(e: unknown): boolean {
  return e instanceof DOMException && e.name === 'AbortError';
}

/** Show the file picker; null when the user cancels. */
export async function pickFiles(): Promise<WorkerInput[] | null> {
  try {
    const files = await fileOpen({ multiple: true, description: 'reftable tables, tables.list, packed-refs' });
    return inputsFromFiles(files);
  } catch (e) {
    if (isAbort(e)) return null;
    throw e;
  }
}

/** Show the folder picker (object storage is not entered); null when the user cancels. */
export async function pickFolder(): Promise<WorkerInput[] | null> {
  try {
    const files = await directoryOpen({ recursive: true, skipDirectory: (d) => SKIP.has(d.name) });
    return inputsFromFiles(files.filter((f): f is File => f instanceof File));
  } catch (e) {
    if (isAbort(e)) return null;
    throw e;
  }
}

/** A built-in sample as listed in `samples/index.json`. */
export interface SampleInfo {
  name: string;
  title: string;
  description: string;
  /** Paths relative to `samples/<name>/`. */
  files: string[];
  default?: boolean;
  /** An engine capability the sample needs (e.g. 'filesBackend'). */
  requires?: string;
}

function samplesBase(): URL {
  return new URL('samples/', document.baseURI);
}

/** The list of built-in samples. */
export async function fetchSamples(): Promise<SampleInfo[]> {
  const r = await fetch(new URL('index.json', samplesBase()));
  if (!r.ok) throw new Error(`samples/index.json: HTTP ${r.status}`);
  const j = (await r.json()) as { samples: SampleInfo[] };
  return j.samples;
}

/** Fetch a sample's files as ArrayBuffers (to be transferred to the worker). */
export async function fetchSample(s: SampleInfo): Promise<WorkerInput[]> {
  const base = new URL(`${encodeURIComponent(s.name)}/`, samplesBase());
  return Promise.all(
    s.files.map(async (path) => {
      const r = await fetch(new URL(path.split('/').map(encodeURIComponent).join('/'), base));
      if (!r.ok) throw new Error(`samples/${s.name}/${path}: HTTP ${r.status}`);
      return { path, buffer: await r.arrayBuffer() };
    }),
  );
}
