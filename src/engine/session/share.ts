/**
 * session/share: share links and exports of the current report — the link (or why there is
 * none), a link opened as a report, a synthetic stack of a link's shape, and the JSON, Markdown
 * and repro-script documents.
 */
import { FormatError, displayName } from '../basics.ts';
import type { Analysis } from '../analyze.ts';
import type { Report } from '../report.ts';
import {
  SHARED_LABEL,
  ShareLinkError,
  buildSharePayload,
  decodeShare,
  describeShare,
  encodeShare,
  reportFromShare,
  shareFigures,
  shareLink,
  syntheticStack,
  type SharePayload,
  type SharedReport,
} from '../share/index.ts';
import { exportJson, exportMarkdown, exportScript } from '../export.ts';
import type { ExportAnswer, ExportFormat, LoadResult, OpenShareAnswer, ShareAnswer, TableSplit } from './types.ts';

/** The share part of a session: the payload of a report opened from a link, or of a synthetic stack. */
export class ShareSession {
  /** The payload of the report shown when it was opened from a link (no files), else null. */
  shared: SharePayload | null = null;
  /** The payload a synthetic stack was built from (`loadSynthetic`), else null. */
  syntheticOf: SharePayload | null = null;

  reset(): void {
    this.shared = null;
    this.syntheticOf = null;
  }

  /**
   * The share link of `r`, and exactly what it contains (no ref names or object ids unless
   * `withNames`). A report itself opened from a link re-encodes its payload.
   */
  share(
    a: Analysis | null,
    r: Report | null,
    q: { withNames: boolean; base?: string; simulation?: unknown },
  ): ShareAnswer | null {
    if (!r) return null;
    let res;
    if (this.shared) res = encodeShare(this.shared, q.base);
    else if (a) res = shareLink(a, r, { withNames: q.withNames, base: q.base, simulation: q.simulation });
    else return null;
    return {
      ok: res.ok,
      link: res.ok ? res.link : '',
      error: res.ok ? '' : res.error,
      chars: res.chars,
      description: describeShare(res.payload),
      withNames: res.payload.withNames,
      fromLink: !!this.shared,
    };
  }

  /**
   * Decode a link and rebuild its report. A link that cannot be read says why (the decoder's
   * `ShareLinkError` text); the caller replaces its analysis only on success.
   */
  open(fragment: string): { answer: OpenShareAnswer; payload: SharePayload | null; report: SharedReport | null } {
    const t0 = Date.now();
    let p: SharePayload;
    let rep: SharedReport;
    try {
      p = decodeShare(fragment);
      rep = reportFromShare(p);
    } catch (e) {
      if (e instanceof ShareLinkError)
        return { answer: { ok: false, reason: e.reason, message: e.message }, payload: null, report: null };
      const what = e instanceof FormatError ? e.expected : e instanceof Error ? e.message : String(e);
      return {
        answer: { ok: false, reason: 'damaged', message: `link is damaged: ${displayName(what)}` },
        payload: null,
        report: null,
      };
    }
    const f = shareFigures(p);
    const splits: (TableSplit | null)[] =
      p.kind !== 'reftable'
        ? []
        : p.tables.map((t, i) => {
            if (t.unreadable) return null;
            const ft = f.tables[i];
            const refBytes = t.sectionBytes.ref;
            const logBytes = t.sectionBytes.log;
            return {
              live: ft.liveWinners,
              shadowed: ft.shadowed,
              tombstones: ft.tombstoneWinners,
              refRecords: ft.refRecords,
              refBytes,
              logBytes,
              otherBytes: Math.max(0, t.fileSize - refBytes - logBytes),
            };
          });
    const result: LoadResult = {
      report: rep,
      error: null,
      files: [],
      kind: p.kind,
      description: SHARED_LABEL,
      splits,
      refCount: f.live,
      refCountWithTombstones: f.live + f.tombstones,
      elapsed: Date.now() - t0,
    };
    return { answer: { ok: true, result }, payload: p, report: rep };
  }

  /** The payload to rebuild a synthetic stack from; throws the engine's error when no link is open. */
  syntheticSource(): SharePayload {
    const p = this.shared ?? this.syntheticOf;
    if (!p) throw new FormatError('(session)', -1, 'an open share link to rebuild a stack from');
    return p;
  }

  /** The synthetic stack's files of payload `p` (`syntheticStack`; throws `ShareLinkError` past its bounds). */
  syntheticFiles(p: SharePayload) {
    return syntheticStack(p).files;
  }

  /**
   * `r` as a document: `json` (`refscope.report/1`), `md` (Markdown for an issue or a
   * mailing-list post) or `script` (a bash script rebuilding a stack of the same shape with
   * synthetic names; reftable stacks only).
   */
  exportAs(a: Analysis | null, r: Report | null, format: ExportFormat): ExportAnswer {
    if (!r) throw new FormatError('(session)', -1, 'a report to export (nothing is loaded)');
    if (format === 'json') return { text: exportJson(r), filename: 'refscope-report.json', mime: 'application/json' };
    if (format === 'md') return { text: exportMarkdown(r), filename: 'refscope-report.md', mime: 'text/markdown' };
    if (format !== 'script')
      throw new FormatError(
        '(session)',
        -1,
        `an export format json, md or script, not ${JSON.stringify(String(format)).slice(0, 40)}`,
      );
    const p = this.shared ?? this.syntheticOf ?? (a ? buildSharePayload(a, r) : null);
    if (!p) throw new FormatError('(session)', -1, 'an analysis to export as a script');
    const source = r.stack ? `a ${r.input.kind} stack of ${r.stack.tables} tables` : r.input.kind;
    return { text: exportScript(p, { source }), filename: 'refscope-repro.sh', mime: 'text/x-shellscript' };
  }
}
