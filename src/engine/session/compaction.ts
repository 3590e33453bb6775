/**
 * session/compaction: the Compaction view's questions — git's geometric rule at any factor (by
 * bytes as git does, by records and live records for display), JGit's rule, a replay of the next
 * transactions — and a real `git pack-refs [--auto]` on the loaded tables, with its zip.
 */
import { FormatError } from '../basics.ts';
import type { Analysis } from '../analyze.ts';
import type { Report } from '../report.ts';
import {
  estimatePackAll,
  geometryByCount,
  gitAutoCompaction,
  gitAutoCompactionWithLocks,
  jgitCompaction,
  replayAutoCompaction,
} from '../reftable/auto-compaction.ts';
import { stackLocks } from '../analyze.ts';
import { compactAll, compactAuto, stackFilesAfter, zipStack, type CompactResult } from '../reftable/compact.ts';
import { copiesOf, type CompactionReport } from '../extensions.ts';
import {
  MAX_REPLAY,
  type CompactedTable,
  type CompactionData,
  type CompactionQuery,
  type CompactionTable,
  type CompactNowResult,
} from './types.ts';

/** The compaction part of a session: the last compaction that wrote a table (for its zip). */
export class CompactionSession {
  /** The last `compactNow` result that wrote a table, for `compactedZip`. */
  private lastCompact: { res: CompactResult; zipName: string } | null = null;

  /** Forget the last compaction (another input was loaded). */
  reset(): void {
    this.lastCompact = null;
  }

  /**
   * The compaction geometry at `q.factor` for the current report (files or a shared link): git's
   * rule by bytes, the same rule by records and by live records, JGit's rule, and git's
   * auto-compaction replayed over the next `q.k` transactions of `q.txSize` bytes. Null when the
   * input is not a reftable stack. Throws RangeError for a factor outside 2..255.
   */
  data(r: Report | null, analysis: Analysis | null, q: CompactionQuery): CompactionData | null {
    if (!r?.stack) return null;
    const c = (r.stack.compaction ?? null) as CompactionReport | null;
    const factor = q.factor;
    const tables: CompactionTable[] = [];
    r.tables.forEach((t, i) => {
      const live = c?.byLive?.values[i] ?? Math.max(0, t.winners);
      // A run of copies (one report object at each of its positions) with the same live count:
      // one object, whose `index` is the run's first position.
      const prev = tables[i - 1];
      if (prev && r.tables[i - 1] === t && prev.live === live) {
        tables.push(prev);
        return;
      }
      tables.push({
        index: i,
        name: t.name,
        fileSize: t.fileSize,
        version: (t.version ?? 1) as 1 | 2,
        records:
          t.records.ref +
          t.records.peeled +
          t.records.symref +
          t.records.tombstone +
          t.records.log +
          t.records.logDeletion,
        live,
        broken: !!t.error,
        ...(t.copyOf !== undefined ? { copyOf: t.copyOf } : {}),
      });
    });
    // A repeated line of tables.list folds its reasons into its run's first (`Reason`).
    const copies = copiesOf(tables);
    const sizes = tables.map((t) => t.fileSize);
    const versions = tables.map((t) => t.version);
    const k = Math.max(0, Math.min(MAX_REPLAY, Math.floor(q.k) || 0));
    const txSize = Math.max(92, Math.min(1 << 30, Math.floor(q.txSize) || 150));
    const cannot = !analysis?.stack
      ? 'this report was opened from a link: the tables themselves are not here (re-run on a synthetic stack to compact one of the same shape)'
      : analysis.stack.tables.some((t) => !t)
        ? 'a table could not be read, so it cannot be merged or copied'
        : null;
    return {
      factor,
      tables,
      // what git merges with the directory's lock files present (the rule's reasons unchanged)
      bytes: analysis?.stack
        ? {
            ...gitAutoCompaction(sizes, versions, factor, copies),
            segment: gitAutoCompactionWithLocks(sizes, versions, factor, stackLocks(analysis)).segment,
          }
        : gitAutoCompaction(sizes, versions, factor, copies),
      records: geometryByCount(
        tables.map((t) => t.records),
        factor,
        copies,
      ),
      live: geometryByCount(
        tables.map((t) => t.live),
        factor,
        copies,
      ),
      jgit: jgitCompaction(sizes, copies),
      replay: replayAutoCompaction(sizes, versions, factor, k, txSize),
      packAllEstimate: estimatePackAll(sizes, versions),
      measured: c
        ? {
            factor: c.factor,
            afterAuto: c.afterAuto ?? null,
            afterPackRefs: c.afterPackRefs ?? null,
            skipped: c.afterSkipped ?? null,
          }
        : null,
      canCompact: !cannot,
      cannotCompact: cannot,
    };
  }

  /**
   * Compact the current stack for real: `auto` = `git pack-refs --auto` (git's rule at `factor`
   * picks the segment), `all` = `git pack-refs` (everything into one table). Returns the new
   * stack's tables and, unless `q.zip` is false, the zipped `reftable/` directory (zipping a
   * 40 MB table takes about 2 s: a page can ask for it later with `compactedZip`). Throws when the
   * tables are not here.
   */
  compactNow(
    a: Analysis | null,
    r: Report | null,
    q: { mode: 'auto' | 'all'; factor: number; zip?: boolean },
  ): CompactNowResult {
    const t0 = Date.now();
    if (!a?.stack || !r)
      throw new FormatError('(session)', -1, 'loaded tables to compact (a report opened from a link has no files)');
    const stack = a.stack;
    const recsOf = (i: number): number => {
      const t = r.tables[i];
      return (
        t.records.ref +
        t.records.peeled +
        t.records.symref +
        t.records.tombstone +
        t.records.log +
        t.records.logDeletion
      );
    };
    const before = {
      tables: stack.names.length,
      bytes: r.tables.reduce((s, t) => s + t.fileSize, 0),
      records: r.tables.reduce((s, _t, i) => s + recsOf(i), 0),
    };
    this.lastCompact = null;
    const res = q.mode === 'all' ? compactAll(stack) : compactAuto(stack, { factor: q.factor });
    const unchanged = (): CompactedTable[] =>
      stack.names.map((name, i) => ({ name, bytes: r.tables[i].fileSize, records: recsOf(i), isNew: false, from: i }));
    if (!res) {
      return {
        mode: q.mode,
        factor: q.factor,
        segment: null,
        changed: false,
        empty: false,
        dropsDeletions: false,
        specDroppable: { tombstones: 0, logDeletions: 0 },
        stats: null,
        before,
        after: before,
        tables: unchanged(),
        zip: null,
        zipName: '',
        elapsed: Date.now() - t0,
      };
    }
    const tables: CompactedTable[] = res.names.map((name) => {
      if (res.changed && name === res.name) {
        return {
          name,
          bytes: res.bytes.length,
          records: res.stats.refsOut + res.stats.logsOut,
          isNew: true,
          from: res.segment.start,
        };
      }
      const i = stack.names.indexOf(name);
      return { name, bytes: r.tables[i].fileSize, records: recsOf(i), isNew: false, from: i };
    });
    const zipName = `reftable-${q.mode === 'all' ? 'pack-refs' : `pack-refs-auto-f${q.factor}`}.zip`;
    if (res.changed) this.lastCompact = { res, zipName };
    const zip = res.changed && q.zip !== false ? zipStack(stackFilesAfter(stack, res)) : null;
    return {
      mode: q.mode,
      factor: q.factor,
      segment: res.segment,
      changed: res.changed,
      empty: res.empty,
      dropsDeletions: res.dropsDeletions,
      specDroppable: res.specDroppable,
      stats: res.stats,
      before,
      after: {
        tables: tables.length,
        bytes: tables.reduce((s, t) => s + t.bytes, 0),
        records: tables.reduce((s, t) => s + t.records, 0),
      },
      tables,
      zip,
      zipName,
      elapsed: Date.now() - t0,
    };
  }

  /**
   * The zipped `reftable/` directory after the last `compactNow` that wrote a table (for a
   * download asked for later), or null when there is none (or another input was loaded since).
   */
  compactedZip(analysis: Analysis | null): { zip: Uint8Array; zipName: string } | null {
    const c = this.lastCompact;
    const stack = analysis?.stack;
    if (!c || !stack) return null;
    return { zip: zipStack(stackFilesAfter(stack, c.res)), zipName: c.zipName };
  }
}
