/**
 * files-model: the `files` cost model (files backend: packed-refs + loose refs, git 2.50+), for
 * comparison when a packed-refs file or a files-backend `.git` is given (from files.ts).
 *
 * What git does (refs/files-backend.c, refs/packed-backend.c):
 * - reading a ref: lstat/open of the loose file; if there is none, a binary search in the
 *   mmap'd packed-refs (`sorted` trait; without it git parses and sorts the whole file on load);
 * - a transaction: per update a lock file `<ref>.lock` and a read of the ref; name conflicts of
 *   new refs checked once per transaction against packed-refs (a prefix search per ref, each
 *   leading directory once); commit: write each lock, rename it over the ref, append the reflog;
 *   deleting a packed ref rewrites packed-refs (every record) once per transaction;
 * - listing a prefix: readdir of the loose directories under it plus the packed records in range.
 * The counts go through the same `seconds()` as the reftable models (loose writes and reads,
 * packed probes and records have their own constants).
 */
import type { FilesRepo } from '../files.ts';
import { packedIterationOrder } from '../files.ts';
import { checkRefnameFormat } from '../files/refname.ts';
import { zeroPhases, totalOf, type Counts } from './counts.ts';
import { DWIM_RULES, leadingDirs } from './models.ts';
import { countObjectCheck, deadlineCheck, type RunResult, type RunOptions } from './run.ts';
import { lowerStr } from './state.ts';
import { isFullHex, workloadSize, type Workload } from './workload.ts';
import { prefixEnd } from './engine.ts';

/** What the files model needs from a files-backend repository. */
export interface FilesStore {
  /** Packed ref names, sorted. */
  packed: string[];
  /** packed-refs has the `sorted` trait (else git sorts it on every load). */
  packedSorted: boolean;
  /** Loose ref names. */
  loose: Set<string>;
  /** Directories under refs/ holding loose refs, with a trailing '/'. */
  looseDirs: string[];
  hexLength: number;
}

/** The store from a loaded files repository (files.ts `loadFilesRepo`). */
export function filesStoreFrom(repo: FilesRepo): FilesStore {
  const p = repo.packed;
  const packed = p ? packedIterationOrder(p).map((r) => r.name) : [];
  // Keep it strictly sorted (git's bisection assumes it; duplicates count once).
  packed.sort();
  const uniq = packed.filter((n, i) => i === 0 || packed[i - 1] !== n);
  return {
    packed: uniq,
    packedSorted: p ? p.claimsSorted : true,
    loose: new Set(repo.loose.map((l) => l.name)),
    looseDirs: repo.directories.slice(),
    hexLength: repo.hash === 'sha256' ? 64 : 40,
  };
}

/** Probes of a binary search over n records. */
function probes(n: number): number {
  return n > 0 ? Math.ceil(Math.log2(n + 1)) : 0;
}

/** Run the files model on a workload. */
export function runFiles(store: FilesStore, w: Workload, opts: RunOptions = {}): RunResult {
  const P = zeroPhases();
  const errors: string[] = [];
  let errorCount = 0;
  const err = (m: string) => {
    errorCount++;
    if (errors.length < 20) errors.push(m);
  };
  const warn = opts.warnAmbiguousRefs ?? true;
  const loose = new Set(store.loose);
  // Loose refs by leading directory ("refs/", "refs/heads/", …) so that "is there a ref under
  // <prefix>/" and "how many loose refs under <prefix>" cost a map lookup, not a pass over every
  // loose ref (a per-ref workload would otherwise be quadratic in the simulator, not in git).
  const underDir = new Map<string, Set<string>>();
  const dirsOf = (name: string): string[] => leadingDirs(name).map((d) => d + '/');
  const addLoose = (name: string) => {
    if (loose.has(name)) return;
    loose.add(name);
    for (const d of dirsOf(name)) {
      let set = underDir.get(d);
      if (!set) underDir.set(d, (set = new Set()));
      set.add(name);
    }
  };
  const dropLoose = (name: string) => {
    if (!loose.delete(name)) return;
    for (const d of dirsOf(name)) {
      const set = underDir.get(d);
      set?.delete(name);
      if (set && set.size === 0) underDir.delete(d);
    }
  };
  for (const name of store.loose) {
    loose.delete(name);
    addLoose(name);
  }
  const checked = new Set<string>();
  /** Loose refs whose names start with `prefix` (a directory prefix ending in "/": from the index). */
  const looseUnder = (prefix: string): Iterable<string> => {
    if (prefix.endsWith('/')) return underDir.get(prefix) ?? [];
    if (prefix === '') return loose;
    return [...loose].filter((l) => l.startsWith(prefix));
  };
  const deletedPacked = new Set<string>();
  const packed = store.packed;
  let packedLoaded = false;
  P.startup.processes = 1;

  const loadPacked = (c: Counts) => {
    if (packedLoaded) return;
    packedLoaded = true;
    if (!store.packedSorted) c.packedRecords += packed.length;
  };
  const inPacked = (name: string): boolean => {
    const i = lowerStr(packed, name);
    return i < packed.length && packed[i] === name && !deletedPacked.has(name);
  };
  const exists = (name: string, c: Counts): boolean => {
    c.looseReads++;
    if (loose.has(name)) return true;
    loadPacked(c);
    c.packedProbes += probes(packed.length);
    return inPacked(name);
  };
  const prefixHas = (prefix: string, c: Counts): string | null => {
    loadPacked(c);
    c.packedProbes += probes(packed.length);
    c.looseReads++;
    const i = lowerStr(packed, prefix);
    for (let j = i; j < packed.length && packed[j].startsWith(prefix); j++)
      if (!deletedPacked.has(packed[j])) return packed[j];
    for (const l of looseUnder(prefix)) return l;
    return null;
  };

  const tick = deadlineCheck(opts, workloadSize(w), 'files');
  let done = 0;
  if (w.kind === 'lookups') {
    for (const n of w.names) {
      tick(done++);
      exists(n, P.lookups);
    }
  } else if (w.kind === 'scans') {
    for (const prefix of w.prefixes) {
      tick(done++);
      const c = P.scans;
      loadPacked(c);
      c.looseReads += 1 + store.looseDirs.filter((d) => d.startsWith(prefix)).length;
      c.packedProbes += probes(packed.length);
      const end = prefixEnd(prefix);
      const a = lowerStr(packed, prefix);
      const b = end === null ? packed.length : lowerStr(packed, end);
      c.packedRecords += b - a;
      let listed = 0;
      for (let j = a; j < b; j++) if (!deletedPacked.has(packed[j]) && !loose.has(packed[j])) listed++;
      // Loose refs under refs/ that the prefix selects (for-each-ref lists refs/ only).
      const sel = prefix.startsWith('refs/') ? prefix : 'refs/'.startsWith(prefix) ? 'refs/' : null;
      if (sel !== null && sel.endsWith('/')) listed += underDir.get(sel)?.size ?? 0;
      else if (sel !== null) for (const l of looseUnder(sel)) if (l.startsWith('refs/')) listed++;
      c.refsListed += listed;
    }
  } else if (w.kind === 'objects') {
    // No object index: every lookup by object id lists all refs.
    for (let i = 0; i < w.oids.length; i++) {
      tick(done++);
      const c = P.objects;
      c.objectLookups++;
      loadPacked(c);
      c.packedRecords += packed.length;
      c.looseReads += loose.size + store.looseDirs.length;
    }
  } else {
    for (const tx of w.transactions) {
      tick(done);
      done += Math.max(1, tx.updates.length);
      for (const u of tx.updates) {
        for (const arg of u.oidArgs) {
          if (isFullHex(arg, store.hexLength)) continue; // 2.50+: no ambiguity check for full ids
          const base = /^[^~^:@]*/.exec(arg)![0] || 'HEAD';
          for (const rule of DWIM_RULES) {
            const name = rule.replace('%s', base);
            if (!checkRefnameFormat(name, true)) continue;
            if (exists(name, P.parse) && !warn) break;
          }
        }
      }
      P.transaction.transactions++;
      if (!tx.prepared) continue;
      const c = P.reads;
      const newRefs: string[] = [];
      const writes: { name: string; del: boolean }[] = [];
      for (const u of tx.updates) {
        const ex = exists(u.ref, c);
        countObjectCheck(u, checked, c);
        const expectsExisting = u.oldValue !== null && u.oldValue.kind !== 'zero';
        if (!ex) {
          if (expectsExisting) {
            err(`cannot lock ref '${u.ref}': unable to resolve reference '${u.ref}'`);
            continue;
          }
          newRefs.push(u.ref);
          if (u.newValue && u.newValue.kind !== 'delete') writes.push({ name: u.ref, del: false });
          continue;
        }
        if (u.oldValue?.kind === 'zero') {
          err(`cannot lock ref '${u.ref}': reference already exists`);
          continue;
        }
        if (u.newValue) writes.push({ name: u.ref, del: u.newValue.kind === 'delete' });
      }
      // Batched availability check against packed-refs and loose directories.
      const dirs = new Set<string>();
      for (const ref of newRefs.sort()) {
        for (const d of leadingDirs(ref)) {
          if (dirs.has(d)) continue;
          dirs.add(d);
          if (exists(d, P.availability)) err(`'${d}' exists; cannot create '${ref}'`);
        }
        const hit = prefixHas(ref + '/', P.availability);
        if (hit) err(`'${hit}' exists; cannot create '${ref}'`);
      }
      if (tx.end !== 'commit') continue;
      let rewritePacked = false;
      for (const wr of writes) {
        P.write.updates++;
        P.write.looseWrites++;
        if (opts.reflogs && !wr.del) P.write.reflogWrites++;
        if (!wr.del) P.write.valueWrites++;
        if (wr.del) {
          dropLoose(wr.name);
          if (inPacked(wr.name)) {
            deletedPacked.add(wr.name);
            rewritePacked = true;
          }
        } else addLoose(wr.name);
      }
      if (rewritePacked) {
        P.write.packedRecords += packed.length;
        P.write.looseWrites++;
      }
    }
  }
  return { phases: P, total: totalOf(P), errors, errorCount, tablesAfter: 0 };
}
