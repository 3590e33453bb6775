/**
 * run: one model's plan for a workload, on a `SimEngine` (fast or literal). The plan is what
 * git does per version (models.ts); the engine counts the work of each read, scan and write.
 *
 * `update-ref --stdin`, per transaction (refs/reftable-backend.c `reftable_be_transaction_prepare`
 * and `_finish`, refs.c `refs_verify_refname(s)_available`):
 * 1. parse: every object id argument through `repo_get_oid` (dwim reads, see models.ts);
 * 2. prepare: read HEAD; for each update read the ref; a ref that does not exist (and is not
 *    expected to) gets the name-availability check (per ref ≤ 2.49, batched after the loop from
 *    2.50); updating HEAD's referent adds a log-only HEAD update, read once more;
 * 3. commit: write one table with the queued records (deletions also seek the reflog), then
 *    git's auto-compaction (compaction.ts `gitAutoCompaction`) merges what the geometric rule says.
 * Errors git would raise (create of an existing ref, old value mismatch, name conflicts) are
 * collected; the counts assume the transaction went on (git ≤ 2.49 stops at the first error of
 * the prepare loop, 2.50+ after the loop).
 */
import { refsForObject, newCounters } from '../reftable/seek.ts';
import { checkRefnameFormat } from '../files/refname.ts';
import { zeroPhases, totalOf, type Counts, type PhaseCounts } from './counts.ts';
import { autoCompactInto, type SimEngine, type Semantics, type WriteRecord } from './engine.ts';
import { DWIM_RULES, leadingDirs, type ModelProfile } from './models.ts';
import { isFullHex, workloadSize, type RefUpdate, type Workload } from './workload.ts';
import type { SimTable } from './state.ts';

/** Options of a run. */
export interface RunOptions {
  /** `core.warnAmbiguousRefs` (default true). */
  warnAmbiguousRefs?: boolean;
  /** Run git's auto-compaction after each commit (default true). */
  autoCompaction?: boolean;
  /** `reftable.geometricFactor` (default 2). */
  factor?: number;
  /** Stop with `SimulationLimitError` once `Date.now()` passes this (ms since the epoch). */
  deadline?: number;
  /** The budget the deadline came from (ms), for the error's message. */
  budgetMs?: number;
  /** Called with the operations replayed so far, at the deadline checks (for a progress line). */
  onProgress?: (model: string, done: number, total: number) => void;
  /** `core.logAllRefUpdates`: a reflog entry per ref written (default false, a bare repository's). */
  reflogs?: boolean;
}

/**
 * A simulation stopped by its time budget (`SimulateOptions.budgetMs`): the workload is too big
 * for the machine running refscope, not wrong. `done` of `total` operations were replayed.
 */
export class SimulationLimitError extends Error {
  constructor(
    readonly budgetMs: number,
    readonly done: number,
    readonly total: number,
    readonly model: string,
  ) {
    super(
      `a workload the simulator replays within ${budgetMs / 1000} s (${model} stopped after ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} operations: a smaller batch, fewer models, or a larger budget)`,
    );
    this.name = 'SimulationLimitError';
  }
}

/** A clock check every `stride` operations; throws `SimulationLimitError` past the deadline. */
export function deadlineCheck(
  opts: Pick<RunOptions, 'deadline' | 'budgetMs' | 'onProgress'>,
  total: number,
  model: string,
  stride = 64,
): (done: number) => void {
  const deadline = opts.deadline;
  const progress = opts.onProgress;
  const timed = deadline !== undefined && Number.isFinite(deadline);
  if (!timed && !progress) return () => {};
  let next = 0;
  return (done: number) => {
    if (done < next) return;
    next = done + stride;
    progress?.(model, done, total);
    if (timed && Date.now() > deadline) throw new SimulationLimitError(opts.budgetMs ?? 0, done, total, model);
  };
}

/** What a run counted. */
export interface RunResult {
  phases: PhaseCounts;
  total: Counts;
  /** Errors git would report (first 20), and how many in all. */
  errors: string[];
  errorCount: number;
  /** Tables in the stack after the run. */
  tablesAfter: number;
  /** Lookup workloads: how many point reads found a live ref, and how many did not. */
  lookups?: { found: number; notFound: number };
}

const MAX_ERRORS = 20;
const DWIM_PARTS = DWIM_RULES.map((r) => r.split('%s') as [string, string]);

/** Run a reftable model's plan for a workload. `hexLength` = 40 or 64. */
export function runReftable(
  engine: SimEngine,
  model: ModelProfile,
  w: Workload,
  hexLength: number,
  opts: RunOptions = {},
): RunResult {
  const P = zeroPhases();
  const errors: string[] = [];
  let errorCount = 0;
  const err = (m: string) => {
    errorCount++;
    if (errors.length < MAX_ERRORS) errors.push(m);
  };
  const sem: Semantics = model.tombstonesPass ? 'pass' : 'suppress';
  const warn = opts.warnAmbiguousRefs ?? true;
  P.startup.processes = 1;
  // Position hints (they only make the searches cheaper): last landing place per dwim rule, per directory.
  const dwimHint = DWIM_RULES.map(() => -1);
  const dirHint = new Map<string, number>();
  const readDir = (d: string, c: Counts): boolean => {
    const r = engine.pointRead(d, c, sem, dirHint.get(d) ?? -1);
    dirHint.set(d, r.pos);
    return r.exists;
  };

  const total = workloadSize(w);
  const tick = deadlineCheck(opts, total, model.name);
  const checked = new Set<string>();
  let done = 0;
  let lookups: RunResult['lookups'];
  if (w.kind === 'lookups') {
    lookups = { found: 0, notFound: 0 };
    for (const name of w.names) {
      tick(done++);
      P.lookups.reloads++;
      if (engine.pointRead(name, P.lookups, sem).exists) lookups.found++;
      else lookups.notFound++;
    }
  } else if (w.kind === 'scans') {
    for (const prefix of w.prefixes) {
      tick(done++);
      P.scans.reloads++;
      P.scans.iterators++;
      engine.scan(prefix, P.scans, sem, 'list');
    }
  } else if (w.kind === 'objects') {
    for (const oid of w.oids) {
      tick(done++);
      objectLookup(engine.tables(), oid, P.objects);
    }
  } else {
    for (const tx of w.transactions) {
      tick(done);
      done += Math.max(1, tx.updates.length);
      // 1. Parse: object ids through repo_get_oid.
      for (const u of tx.updates) {
        for (const arg of u.oidArgs) {
          const full = isFullHex(arg, hexLength);
          if (full && !(model.dwimFullHex && warn)) continue;
          const base = full ? arg : revisionBase(arg);
          for (let k = 0; k < DWIM_PARTS.length; k++) {
            const [pre, post] = DWIM_PARTS[k];
            // A full hex id makes a valid name under every rule; other revisions are checked.
            if (!full && !checkRefnameFormat(pre + base + post, true)) continue;
            P.parse.reloads++;
            const r = engine.pointReadParts
              ? engine.pointReadParts(pre, base, post, P.parse, sem, Math.max(0, dwimHint[k]))
              : engine.pointRead(pre + base + post, P.parse, sem, dwimHint[k]);
            dwimHint[k] = r.pos;
            if (r.exists && !full && !warn) break;
          }
        }
      }
      P.transaction.transactions++;
      if (!tx.prepared) continue;
      P.transaction.reloads++;
      // 2. Prepare.
      engine.pointRead('HEAD', P.reads, sem);
      const headTarget = engine.valueOf('HEAD')?.target ?? null;
      // Duplicate names in one transaction (git: "multiple updates for ref"), found by position.
      const toCheck: { ref: string; pos: number }[] = [];
      const queued: { u: RefUpdate; type: 0 | 1 | 2 | 3; pos: number }[] = [];
      const refPos = engine.locate(tx.updates.map((u) => u.ref));
      const sortedPos = refPos.slice().sort();
      let dups: Set<number> | null = null;
      for (let i = 1; i < sortedPos.length; i++)
        if (sortedPos[i] === sortedPos[i - 1]) (dups ??= new Set()).add(sortedPos[i]);
      const seenDup = new Set<number>();
      for (let i = 0; i < tx.updates.length; i++) {
        const u = tx.updates[i];
        if (dups?.has(refPos[i])) {
          if (seenDup.has(refPos[i])) err(`multiple updates for ref '${u.ref}' not allowed`);
          seenDup.add(refPos[i]);
        }
        const r = engine.pointRead(u.ref, P.reads, sem, refPos[i]);
        countObjectCheck(u, checked, P.reads);
        if (headTarget === u.ref && !u.noDeref && u.newValue) engine.pointRead('HEAD', P.reads, sem);
        const expectsExisting = u.oldValue !== null && u.oldValue.kind !== 'zero';
        if (!r.exists && !expectsExisting) {
          if (model.availabilityChecks) {
            if (!model.batchedAvailability) checkAvailable(engine, u.ref, r.pos, P.availability, sem, err, readDir);
            else toCheck.push({ ref: u.ref, pos: r.pos });
          }
          if (u.newValue && u.newValue.kind !== 'delete')
            queued.push({ u, type: u.newValue.kind === 'symref' ? 3 : 1, pos: r.pos });
          continue;
        }
        if (!r.exists) {
          err(`cannot lock ref '${u.ref}': unable to resolve reference '${u.ref}'`);
          continue;
        }
        if (u.oldValue?.kind === 'zero') {
          err(`cannot lock ref '${u.ref}': reference already exists`);
          continue;
        }
        const cur = engine.valueOf(u.ref);
        if (
          u.oldValue?.kind === 'oid' &&
          cur?.oid &&
          isFullHex(u.oldValue.oid, hexLength) &&
          cur.oid !== u.oldValue.oid
        ) {
          err(`cannot lock ref '${u.ref}': is at ${cur.oid} but expected ${u.oldValue.oid}`);
          continue;
        }
        if (!u.newValue) continue;
        if (u.newValue.kind === 'delete') queued.push({ u, type: 0, pos: r.pos });
        else if (u.newValue.kind === 'symref' || r.type === 3 || cur?.oid !== u.newValue.oid)
          queued.push({ u, type: u.newValue.kind === 'symref' ? 3 : 1, pos: r.pos });
      }
      if (toCheck.length) {
        toCheck.sort((a, b) => a.pos - b.pos || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
        const dirs = new Set<string>();
        P.availability.iterators++;
        P.availability.reloads++;
        engine.seekOnly('', P.availability);
        for (const { ref, pos } of toCheck) {
          for (const d of leadingDirs(ref)) {
            if (dirs.has(d)) continue;
            dirs.add(d);
            P.availability.reloads++;
            if (readDir(d, P.availability)) err(`'${d}' exists; cannot create '${ref}'`);
          }
          const s = engine.scan(ref + '/', P.availability, sem, 'conflict', pos + 1);
          if (s.found) err(`'${s.first}' exists; cannot create '${ref}'`);
        }
      }
      if (tx.end !== 'commit' || queued.length === 0) continue;
      // 3. Commit: one table, then auto-compaction.
      // By name (positions of names in the universe are in name order; a name is at its position).
      queued.sort((a, b) => a.pos - b.pos);
      const recs: WriteRecord[] = [];
      let last = '';
      for (const q of queued) {
        if (q.u.ref === last) continue;
        last = q.u.ref;
        const nv = q.u.newValue!;
        recs.push({
          key: q.u.ref,
          type: q.type,
          pos: q.pos,
          value: { oid: nv.kind === 'oid' ? nv.oid : null, target: nv.kind === 'symref' ? nv.target : null },
        });
      }
      const deletions = recs.filter((r) => r.type === 0).length;
      if (opts.reflogs) P.write.reflogWrites += recs.length - deletions;
      P.write.valueWrites += recs.length - deletions;
      P.write.updates += recs.length;
      P.write.recordsWritten += recs.length;
      if (deletions) P.write.logSeeks += deletions * engine.tables().length;
      const auto = opts.autoCompaction ?? true;
      if (engine.commit) engine.commit(tx, recs, P.compaction, auto, opts.factor ?? 2);
      else {
        engine.append(recs);
        if (auto) autoCompactInto(engine, P.compaction, opts.factor ?? 2);
      }
    }
  }
  return { phases: P, total: totalOf(P), errors, errorCount, tablesAfter: engine.tables().length, lookups };
}

/**
 * The object-database check of a new value (outside the ref store): both backends'
 * transaction prepare look the new object up (`parse_object`, refs/reftable-backend.c
 * `reftable_be_transaction_prepare`, refs/files-backend.c `write_ref_to_lockfile`) before the
 * ref may point at it; git keeps parsed objects, so each distinct id costs once per process.
 */
export function countObjectCheck(u: RefUpdate, checked: Set<string>, c: Counts): void {
  const v = u.newValue;
  if (!v || v.kind !== 'oid' || /^0+$/.test(v.oid) || checked.has(v.oid)) return;
  checked.add(v.oid);
  c.objectChecks++;
}

/** git ≤ 2.49 `refs_verify_refname_available` for one ref: every leading directory, then `<ref>/` with a fresh iterator. */
function checkAvailable(
  engine: SimEngine,
  ref: string,
  pos: number,
  c: Counts,
  sem: Semantics,
  err: (m: string) => void,
  readDir: (d: string, c: Counts) => boolean,
): void {
  for (const d of leadingDirs(ref)) {
    c.reloads++;
    if (readDir(d, c)) err(`'${d}' exists; cannot create '${ref}'`);
  }
  c.iterators++;
  c.reloads++;
  const s = engine.scan(ref + '/', c, sem, 'conflict', pos + 1);
  if (s.found) err(`'${s.first}' exists; cannot create '${ref}'`);
}

/** The ref part of a revision argument (`main~2` → `main`, `@` → `HEAD`). */
function revisionBase(arg: string): string {
  const m = /^[^~^:@]*/.exec(arg)![0];
  return m === '' ? 'HEAD' : m;
}

/**
 * A lookup by object id in every table: the obj index (lookup.ts `refsForObject`) in real
 * tables; in modelled tables one obj-index seek and one ref block when the table has an index,
 * else a scan of all its records.
 */
export function objectLookup(tables: readonly SimTable[], oid: string, c: Counts): void {
  c.objectLookups++;
  for (const t of tables) {
    if (t.table) {
      const k = newCounters();
      refsForObject(t.table, oid, k);
      c.seeks += k.seeks;
      c.indexBlocks += k.indexBlocks;
      c.leafBlocks += k.leafBlocks;
      c.restartProbes += k.restartProbes;
      c.recordsDecoded += k.recordsDecoded;
    } else if (t.hasIndex) {
      c.seeks++;
      c.indexBlocks++;
      c.leafBlocks += 2;
      c.restartProbes += 8;
      c.recordsDecoded += 8 + Math.ceil(t.count / Math.max(1, t.layout!.blockStart.length - 1));
    } else {
      c.seeks++;
      c.leafBlocks += Math.max(0, t.layout!.blockStart.length - 1);
      c.recordsDecoded += t.count;
    }
  }
}
