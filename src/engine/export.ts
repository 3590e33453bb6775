/**
 * export: a report as JSON (`refscope.report/1`), as Markdown (for an issue or a mailing-list
 * post), and a shell script that rebuilds a reftable stack of the same shape with
 * `git update-ref --stdin` and synthetic names (checking it: docs/share.md).
 *
 * Markdown: every string that comes from the input (table file names, paths, finding texts,
 * namespace and ref names) is written as a code span, so Markdown and HTML in it render as plain
 * text; engine prose (the diagnosis) is escaped character by character, its code spans kept.
 *
 * Pure TypeScript: no DOM, no Node APIs.
 */
import { blocksOf, copyRunEnd, reportJson, type Report, type TableReport } from './report.ts';
import type { CompactionReport } from './extensions.ts';
import {
  shapePlan,
  shareFigures,
  synthName,
  planFiller,
  safeNamespaces,
  DANGLING_TARGET,
  MAX_SHARE_OIDS,
  ShareLinkError,
  type SharePayload,
  type RefKind,
  type PlanSegment,
} from './share/index.ts';

// ---------------------------------------------------------------------------------------------
// JSON

/** The report as `refscope.report/1` JSON (the document `refscope analyze --json` prints). */
export function exportJson(report: Report): string {
  // A copy (`copyOf`) is written with its own figures only (docs/report.md).
  return reportJson(report) + '\n';
}

// ---------------------------------------------------------------------------------------------
// Markdown

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

function visibleControls(s: string): string {
  return s.replace(CONTROL, (c) => `\\u{${c.charCodeAt(0).toString(16)}}`);
}

/**
 * Untrusted text as an inline code span: rendered literally by every Markdown renderer (no HTML,
 * no links, no emphasis). Control characters become `\u{…}`; with `inTable` (default) `|` is
 * escaped so the span can sit in a GFM table cell (GFM removes that backslash before it parses
 * the cell); the backtick fence is longer than any run of backticks inside.
 */
export function mdCode(s: string, inTable = true): string {
  let t = visibleControls(s);
  if (inTable) t = t.replace(/\|/g, '\\|');
  if (t === '') return '` `';
  let longest = 0;
  for (const m of t.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const fence = '`'.repeat(longest + 1);
  if (t.startsWith('`') || t.endsWith('`') || (t.startsWith(' ') && t.endsWith(' '))) t = ` ${t} `;
  return fence + t + fence;
}

/**
 * Prose (engine text that may quote input) escaped for Markdown and HTML on one line: `&`, `<`,
 * `>` as entities; `\\`, backticks, `*`, `_`, `[`, `]`, `|`, `~`, `$` backslash-escaped (emphasis,
 * code, links and images, tables, strikethrough, math); a leading `#`, `+`, `-`, `=` or the `.`/`)` after
 * leading digits escaped too (headings, lists); control characters (line breaks included) made visible. The
 * result renders as the same text with no markup. (GFM may still turn a bare `www.…` into a
 * link; names themselves are written with `mdCode`, where it never does.)
 */
export function mdText(s: string): string {
  return escapeProse(s, true);
}

function escapeProse(s: string, lineStart: boolean): string {
  const t = visibleControls(s)
    .replace(/[\\`*_[\]|~$]/g, (c) => '\\' + c)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
  if (!lineStart) return t;
  // line-start constructs: headings, bullets, setext underlines; ordered lists ("1." / "1)")
  if (/^[#+\-=]/.test(t)) return '\\' + t;
  return t.replace(/^(\d+)([.)])/, '$1\\$2');
}

/**
 * Engine prose that marks commands and names as code spans (`` `git pack-refs` ``, as the
 * diagnosis does): each span stays a code span (written with `mdCode`, so whatever it holds is
 * inert) and the text between is escaped as `mdText` escapes it. Escaping the backticks too would
 * show them as literal backticks around plain text.
 */
export function mdProse(s: string): string {
  let out = '';
  let last = 0;
  for (const m of s.matchAll(/`([^`]+)`/g)) {
    out += escapeProse(s.slice(last, m.index), last === 0) + mdCode(m[1], false);
    last = m.index + m[0].length;
  }
  return out + escapeProse(s.slice(last), last === 0);
}

/** A figure as text; anything but a finite number (a field a report does not have) is "–". */
function n(x: unknown): string {
  return typeof x === 'number' && Number.isFinite(x) ? x.toLocaleString('en-US') : '–';
}

function segmentText(s: { start: number; end: number } | null | undefined): string {
  if (!s || typeof s !== 'object') return 'nothing';
  return s.start === s.end ? `table ${n(s.start)}` : `tables ${n(s.start)}–${n(s.end)}`;
}

/**
 * The report as Markdown: overview figures, diagnosis, per-table table, live refs per namespace,
 * compaction geometry, findings. Inert for any names in the input (see module comment).
 */
export function exportMarkdown(report: Report): string {
  const out: string[] = [];
  const shared = (report as { shared?: { label: string; generator: string } }).shared;
  out.push('# refscope report', '');
  out.push(
    `Input: ${mdCode(report.input.description, false)} (${mdCode(report.input.kind, false)}), by ${mdCode(report.generator, false)}${shared ? `; ${mdText(shared.label)}, shared by ${mdCode(shared.generator, false)}: figures from a link, table names synthetic` : ''}.`,
    '',
  );
  const st = report.stack;
  if (st) {
    const c = st.compaction as CompactionReport | undefined;
    out.push('## Overview', '', '| figure | value |', '|---|---:|');
    out.push(`| tables | ${n(st.tables)} |`);
    out.push(`| total bytes | ${n(st.totalBytes)} |`);
    out.push(`| live refs | ${n(st.live)} |`);
    out.push(`| winning tombstones | ${n(st.tombstones)} |`);
    out.push(`| tombstones hiding an older record | ${n(st.tombstonesHiding)} |`);
    out.push(`| ref records (all tables) | ${n(st.refRecords)} |`);
    out.push(`| log records (all tables) | ${n(st.logRecords)} |`);
    if (c) {
      out.push(`| git's next auto-compaction (factor ${n(c.factor)}) | ${segmentText(c.segment)} |`);
      out.push(`| the same rule on record counts | ${segmentText(c.byRecords?.segment)} |`);
    }
    if (st.incomplete) out.push('| incomplete | some tables could not be read |');
    out.push('');
  }
  if (report.diagnosis) out.push('## Diagnosis', '', mdProse(report.diagnosis), '');
  if (report.tables.length) {
    out.push('## Tables (oldest first)', '');
    out.push(
      '| # | table | bytes | format | block size | update indexes | refs | peeled | symrefs | tombstones | logs | shadowed | hidden by tombstones | blocks |',
    );
    out.push('|---:|---|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (let i = 0; i < report.tables.length; i++) {
      const t: TableReport = report.tables[i];
      // A run of consecutive copies of one file with the same figures is one row.
      const end = copyRunEnd(report, i);
      if (end > i) {
        out.push(
          `| ${i}–${end} | ${n(end - i + 1)} positions: same file as #${t.copyOf} | | | | | | | | | | ${n(t.shadowed)} each | ${n(t.hiddenByTombstone)} each | |`,
        );
        i = end;
        continue;
      }
      const r = t.records;
      const fmtv = t.error
        ? `unreadable: ${mdCode(t.error.expected)}`
        : `v${t.version} ${t.hashId === 's256' ? 'SHA-256' : 'SHA-1'}`;
      out.push(
        `| ${i} | ${mdCode(t.name)}${t.copyOf !== undefined ? ` (same file as #${t.copyOf})` : ''} | ${n(t.fileSize)} | ${fmtv} | ${n(t.blockSize)} | ${t.minUpdateIndex ?? '–'}..${t.maxUpdateIndex ?? '–'} | ${n(r.ref)} | ${n(r.peeled)} | ${n(r.symref)} | ${n(r.tombstone)} | ${n(r.log + r.logDeletion)} | ${n(t.shadowed)} | ${n(t.hiddenByTombstone)} | ${n(blocksOf(report, i).length)} |`,
      );
    }
    out.push('');
  }
  if (st && Object.keys(st.namespaces).length) {
    out.push('## Live refs by namespace', '', '| namespace | live refs |', '|---|---:|');
    for (const [ns, v] of Object.entries(st.namespaces).sort((a, b) => b[1] - a[1]))
      out.push(`| ${mdCode(ns)} | ${n(v)} |`);
    out.push('');
  }
  const c = st?.compaction as CompactionReport | undefined;
  if (c && c.bySize && report.tables.length > 1) {
    out.push(`## Compaction geometry (factor ${n(c.factor)})`, '');
    out.push(
      'Git compares net byte sizes (file size − 91, or − 99 for SHA-256 tables); the same rule on record counts shows what lookups pay for.',
      '',
    );
    out.push('| # | net bytes | git (bytes) | records | by records | live records |', '|---:|---:|---|---:|---|---:|');
    const inSeg = (s: { start: number; end: number } | null, i: number) =>
      s && i >= s.start && i <= s.end ? 'merged' : '';
    const row = (i: number) =>
      `${n(c.bySize.values?.[i])} | ${inSeg(c.segment, i)} | ${n(c.byRecords?.values?.[i])} | ${inSeg(c.byRecords?.segment ?? null, i)} | ${n(c.byLive?.values?.[i])} |`;
    // Whether positions i and j make the same row, on the numbers (no text made per position).
    const sameRow = (i: number, j: number) =>
      c.bySize.values?.[i] === c.bySize.values?.[j] &&
      c.byRecords?.values?.[i] === c.byRecords?.values?.[j] &&
      c.byLive?.values?.[i] === c.byLive?.values?.[j] &&
      inSeg(c.segment, i) === inSeg(c.segment, j) &&
      inSeg(c.byRecords?.segment ?? null, i) === inSeg(c.byRecords?.segment ?? null, j);
    for (let i = 0; i < report.tables.length; i++) {
      // Consecutive copies of one file with the same row are one row.
      let end = i;
      const here = row(i);
      const t = report.tables[i];
      while (
        t.copyOf !== undefined &&
        end + 1 < report.tables.length &&
        report.tables[end + 1].copyOf === t.copyOf &&
        sameRow(i, end + 1)
      )
        end++;
      out.push(`| ${end > i ? `${i}–${end}` : i} | ${here}`);
      i = end;
    }
    out.push('');
  }
  if (report.findings.length) {
    out.push('## Findings', '');
    for (const f of report.findings) {
      out.push(
        `- **${mdText(f.severity)}** ${mdCode(f.file, false)}${f.offset >= 0 ? ` at offset ${n(f.offset)}` : ''}: ${mdCode(f.message, false)}`,
      );
    }
    out.push('');
  }
  out.push(
    '---',
    `Schema ${mdCode(report.schema, false)}; made with refscope from the files alone (nothing uploaded).`,
    '',
  );
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Repro script

/** Options of `exportScript`. */
export interface ScriptOptions {
  /** One line saying what was analysed (put in the header comment; control characters removed). */
  source?: string;
}

const CMD: Record<RefKind, string> = { 0: 'delete', 1: 'update', 2: 'peeled', 3: 'symref' };
function cmdOf(s: PlanSegment): string {
  return s.kind === 3 && s.dangling ? 'dangling' : CMD[s.kind];
}

/** A shell word: single-quoted, `'` as `'\''`. Every value from a payload is written this way. */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
/** A number from a payload, checked to be a non-negative integer before it is written into the script. */
function int(v: number, what = 'a figure'): string {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw new ShareLinkError('damaged', `link is damaged: ${what} is not a non-negative integer`);
  return String(v);
}
function comment(s: string): string {
  // \p{Cc} is C0, DEL and C1; only C0 and DEL (below U+0080) could end the comment line.
  return s.replace(/\p{Cc}/gu, (c) => (c < '\u0080' ? ' ' : c));
}

/**
 * A bash script that rebuilds a reftable stack of the payload's shape: `git init --bare
 * --ref-format=reftable`, commits to point at (fast-import, no ref kept), then one
 * `git update-ref --no-deref --stdin` transaction per table in the original order —
 * updates, peeled tags, symrefs and deletions as in `shapePlan` — with
 * `GIT_TEST_REFTABLE_AUTOCOMPACTION=false` so every transaction stays a table. The first table is
 * packed into one with `git pack-refs` (it also holds `git init`'s HEAD). Records are generated by
 * `refs CMD PREFIX FIRST COUNT SUFFIX SHIFT` lines (and `one CMD NAME SHIFT` for names outside
 * `refs/`), so the script stays short for any stack size. With `TIME_RECREATE=1` it finally
 * re-creates every ref hidden by a tombstone in one timed transaction, auto-compaction on.
 */
export function exportScript(p: SharePayload, opts: ScriptOptions = {}): string {
  if (p.kind !== 'reftable') throw new Error('the repro script rebuilds reftable stacks; this input is a ' + p.kind);
  // Namespaces reach the script as name prefixes: only `[A-Za-z0-9._/-]` names valid in git (decodeShare
  // already replaces others; a payload built in memory gets the same treatment). Every value is quoted below too.
  p = { ...p, namespaces: safeNamespaces(p.namespaces) };
  const plan = shapePlan(p);
  const f = shareFigures(p);
  const readable = p.tables.filter((t) => !t.unreadable);
  const base = readable[0];
  const hash = base?.hashId === 's256' ? 'sha256' : 'sha1';
  const commits = Math.max(2, ...p.tables.map((t) => t.distinctOids));
  // NC drives the fast-import loop: checkPayload (in shapePlan) caps it; check again where it is written
  if (!Number.isSafeInteger(commits) || commits > MAX_SHARE_OIDS)
    throw new ShareLinkError('damaged', `link is damaged: ${commits} distinct object ids`);
  for (const t of p.tables) {
    for (const k of [
      'fileSize',
      'blockSize',
      'restartInterval',
      'minUpdateIndex',
      'maxUpdateIndex',
      'logs',
      'logDeletions',
      'refIndexLevels',
      'objRecords',
    ] as const)
      int(t[k], `table ${k}`);
  }
  int(plan.idWidth, 'the id width');
  const anyPeeled = plan.tables.some((t) => t.records.peeled > 0);
  const anyLogs = p.tables.some((t) => t.logs + t.logDeletions > 0);
  const rootNs = plan.namespaces.indexOf('(root)');
  const target = plan.symrefTarget;
  const L: string[] = [];
  const total = p.tables.length;
  L.push('#!/usr/bin/env bash');
  L.push(`# refscope repro script (refscope.repro/1), made by ${comment(p.generator)}.`);
  if (opts.source) L.push(`# Shape of: ${comment(opts.source)}`);
  L.push(`# Rebuilds a reftable stack of the same shape with synthetic ref names: ${total} tables,`);
  L.push(
    `# ${f.refRecords.toLocaleString('en-US')} ref records, ${f.live.toLocaleString('en-US')} live refs, ${f.tombstones.toLocaleString('en-US')} winning tombstones; one`,
  );
  L.push('# `git update-ref --stdin` transaction per table, in the original order. How to check the');
  L.push('# result (table count, record counts within 1 %): docs/share.md in refscope.');
  L.push('#');
  L.push('# Needs git >= 2.46 (reftable, update-ref symref-update), bash, awk.');
  L.push('# Usage: bash repro.sh [new-directory]        (default: refscope-repro)');
  L.push('#   GIT=/path/to/git    the git to use');
  L.push('#   TIME_RECREATE=1     then re-create every ref hidden by a tombstone in one timed transaction');
  L.push('set -eu');
  L.push('GIT=${GIT:-git}');
  L.push('DIR=${1:-refscope-repro}');
  L.push('REF_FORMAT=${REF_FORMAT-reftable}   # REF_FORMAT= (empty): the default backend, only to dry-run this script');
  L.push('# Keep every table: git reads this variable in refs/reftable-backend.c (disable_auto_compact).');
  L.push('GIT_TEST_REFTABLE_AUTOCOMPACTION=false');
  L.push('export GIT_TEST_REFTABLE_AUTOCOMPACTION');
  L.push('GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null');
  L.push("GIT_AUTHOR_NAME=refscope GIT_AUTHOR_EMAIL=refscope@example.invalid GIT_AUTHOR_DATE='1700000000 +0000'");
  L.push(
    "GIT_COMMITTER_NAME=refscope GIT_COMMITTER_EMAIL=refscope@example.invalid GIT_COMMITTER_DATE='1700000000 +0000'",
  );
  L.push(
    'export GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE',
  );
  L.push('if [ -e "$DIR" ]; then echo "repro: $DIR exists; name a new directory" >&2; exit 1; fi');
  // HEAD (root key 0) in the first table: git init writes it, pointing at the initial branch
  const firstReadable = p.tables.findIndex((t) => !t.unreadable);
  const headSeg =
    firstReadable < 0
      ? undefined
      : plan.tables[firstReadable].segments.find((x) => x.ns === rootNs && x.start === 0 && x.kind === 3);
  const headTarget = headSeg?.dangling ? DANGLING_TARGET : target;
  const initBranch = headTarget.startsWith('refs/heads/') ? headTarget.slice(11) : 'main';
  L.push(
    `"$GIT" init --quiet --bare \${REF_FORMAT:+--ref-format="$REF_FORMAT"} --object-format=${hash} --initial-branch=${shQuote(initBranch)} "$DIR"`,
  );
  L.push('cd "$DIR"');
  if (!headTarget.startsWith('refs/heads/')) L.push(`"$GIT" symbolic-ref HEAD ${shQuote(headTarget)}`);
  const cfg = (t: SharePayload['tables'][number]) => {
    const o: string[] = [];
    if (t.blockSize > 0) o.push(`reftable.blockSize=${int(t.blockSize)}`);
    o.push(`reftable.restartInterval=${int(t.restartInterval)}`);
    o.push(`reftable.indexObjects=${t.refIndexLevels > 0 && t.objRecords === 0 ? 'false' : 'true'}`);
    return o;
  };
  const baseCfg = base ? cfg(base) : [];
  for (const c of baseCfg) {
    const [k, v] = c.split('=');
    L.push(`"$GIT" config ${k} ${v}`); // k fixed, v an integer checked by int()
  }
  L.push(
    `"$GIT" config core.logAllRefUpdates ${anyLogs ? 'always' : 'false'}${anyLogs ? '   # the original has reflog records (their counts are not reproduced)' : ''}`,
  );
  L.push('');
  L.push(
    `# ${commits.toLocaleString('en-US')} commits to point refs at (the most distinct object ids of any table); no ref keeps them.`,
  );
  L.push('MARKS=$PWD/refscope-marks');
  L.push(`NC=${int(commits)}`);
  L.push(
    `awk -v n="$NC" 'BEGIN { for (i = 1; i <= n; i++) printf "commit refs/refscope-tmp\\nmark :%d\\ncommitter refscope <refscope@example.invalid> %d +0000\\ndata <<EOT\\nsynthetic %d\\nEOT\\n\\n", i, 1700000000 + i, i }' |`,
  );
  L.push('  "$GIT" fast-import --quiet --export-marks="$MARKS"');
  L.push('"$GIT" update-ref -d refs/refscope-tmp');
  L.push('TAG=');
  if (anyPeeled) {
    L.push('# one annotated tag for the peeled records');
    L.push(
      `TAG=$(printf 'object %s\\ntype commit\\ntag refscope-synthetic\\ntagger refscope <refscope@example.invalid> 1700000000 +0000\\n\\nsynthetic\\n' "$(awk 'NR == 1 { print $2 }' "$MARKS")" | "$GIT" mktag)`,
    );
  }
  L.push(`TARGET=${shQuote(target)}`);
  L.push(`DANGLING=${shQuote(DANGLING_TARGET)}   # no ref of this script has this name`);
  L.push('');
  L.push(`# refs CMD PREFIX FIRST COUNT SUFFIX SHIFT: one update-ref command for each of the COUNT refs`);
  L.push(`# PREFIX<FIRST..FIRST+COUNT-1, ${plan.idWidth} digits>SUFFIX. CMD update: to commit (id + SHIFT) mod NC;`);
  L.push('# peeled: to the annotated tag; symref: symref-update to $TARGET; dangling: symref-update to');
  L.push("# $DANGLING (as the original's symrefs whose target does not exist); delete: a deletion (tombstone).");
  L.push('refs() {');
  L.push(
    `  awk -v cmd="$1" -v pre="$2" -v first="$3" -v n="$4" -v suf="$5" -v shift="$6" -v w=${int(plan.idWidth)} \\`,
  );
  L.push('      -v marks="$MARKS" -v tag="$TAG" -v target="$TARGET" -v dangling="$DANGLING" \'');
  L.push('    BEGIN {');
  L.push('      if (cmd == "update") while ((getline line < marks) > 0) { split(line, f, " "); c[nc++] = f[2] }');
  L.push('      for (i = first; i < first + n; i++) {');
  L.push('        name = sprintf("%s%0" w "d%s", pre, i, suf)');
  L.push('        if (cmd == "update") print "update " name " " c[(i + shift) % nc]');
  L.push('        else if (cmd == "peeled") print "update " name " " tag');
  L.push('        else if (cmd == "symref") print "symref-update " name " " target');
  L.push('        else if (cmd == "dangling") print "symref-update " name " " dangling');
  L.push('        else print "delete " name');
  L.push('      }');
  L.push("    }'");
  L.push('}');
  L.push('# one CMD NAME SHIFT: the same for one name (names outside refs/: HEAD, R…_HEAD)');
  L.push('one() {');
  L.push('  case $1 in');
  L.push('    update) echo "update $2 $(awk -v k="$(( $3 % NC + 1 ))" \'NR == k { print $2 }\' "$MARKS")" ;;');
  L.push('    peeled) echo "update $2 $TAG" ;;');
  L.push('    symref) echo "symref-update $2 $TARGET" ;;');
  L.push('    dangling) echo "symref-update $2 $DANGLING" ;;');
  L.push('    delete) echo "delete $2" ;;');
  L.push('  esac');
  L.push('}');
  L.push(
    'tables() { if [ -f reftable/tables.list ]; then wc -l < reftable/tables.list | tr -d " "; else echo "?"; fi; }',
  );
  L.push('');
  let tableNo = 0;
  let first = true;
  p.tables.forEach((t, ti) => {
    const pt = plan.tables[ti];
    const r = pt.records;
    const what = `${(r.ref + r.peeled + r.symref + r.tombstone).toLocaleString('en-US')} records = ${r.ref} refs, ${r.peeled} peeled, ${r.symref} symrefs, ${r.tombstone} deletions`;
    if (t.unreadable) {
      L.push(`# table ${ti + 1} of ${total}: unreadable in the original (${t.fileSize} bytes): not reproduced`, '');
      return;
    }
    tableNo++;
    const logs = t.logs + t.logDeletions ? `; ${t.logs + t.logDeletions} log records in the original` : '';
    L.push(
      `# table ${ti + 1} of ${total} (update indexes ${t.minUpdateIndex}..${t.maxUpdateIndex}, ${t.fileSize.toLocaleString('en-US')} bytes): ${what}${logs}`,
    );
    let headFromInit = false;
    const lines: string[] = [];
    for (const s of pt.segments) {
      const cmd = cmdOf(s);
      if (s.ns === rootNs) {
        for (let id = s.start; id < s.start + s.count; id++) {
          const name = synthName('(root)', id, plan.idWidth, 0);
          if (first && name === 'HEAD' && s.kind === 3) {
            headFromInit = true;
            lines.push('# HEAD (symref): written by git init above');
            continue;
          }
          if (name === 'HEAD' && s.kind === 0) {
            lines.push('# HEAD deletion: not reproduced (git needs HEAD)');
            continue;
          }
          lines.push(`one ${cmd} ${shQuote(name)} ${int(ti)}`);
        }
        continue;
      }
      const prefix = `${plan.namespaces[s.ns]}/r`;
      const fill = planFiller(plan, s.ns, s.start);
      const suffix = fill > 0 ? '-' + 'x'.repeat(fill - 1) : '';
      lines.push(`refs ${cmd} ${shQuote(prefix)} ${int(s.start)} ${int(s.count)} ${shQuote(suffix)} ${int(ti)}`);
    }
    if (first && !headFromInit) lines.unshift("# + 1 symref: git init's HEAD (the original table has no HEAD symref)");
    const tcfg = cfg(t).filter((c) => !baseCfg.includes(c));
    const gitc = tcfg.map((c) => `-c ${shQuote(c)} `).join('');
    L.push('{');
    L.push(...lines.map((l) => '  ' + l));
    L.push(`} | "$GIT" ${gitc}update-ref --no-deref --stdin`);
    if (first) {
      L.push("# one table for the first: git init's, fast-import's and this transaction's tables merged");
      L.push('"$GIT" pack-refs --all');
      first = false;
    }
    L.push(`echo "table ${tableNo}/${total - p.tables.filter((x) => x.unreadable).length}: $(tables) tables"`);
    L.push('');
  });
  L.push(
    `echo "repro: $(tables) tables in $DIR (the original: ${total - p.tables.filter((x) => x.unreadable).length} readable tables);"`,
  );
  L.push('echo "compare per-table record counts with: refscope analyze $DIR --json"');
  // optional timed step: re-create every ref hidden by a tombstone
  const hiddenLines: string[] = [];
  for (const h of p.hiding) {
    // the hiding tombstones are the first ids of the owner's block (see shapePlan)
    const seg = plan.tables[h.table].segments.find((s) => s.ns === h.ns && s.kind === 0);
    if (!seg) continue;
    if (h.ns === rootNs) {
      for (let id = seg.start; id < seg.start + h.count; id++)
        hiddenLines.push(`one update ${shQuote(synthName('(root)', id, plan.idWidth, 0))} ${int(total)}`);
    } else {
      const fill = planFiller(plan, h.ns, seg.start);
      hiddenLines.push(
        `refs update ${shQuote(`${plan.namespaces[h.ns]}/r`)} ${int(seg.start)} ${int(h.count)} ${shQuote(fill > 0 ? '-' + 'x'.repeat(fill - 1) : '')} ${int(total)}`,
      );
    }
  }
  L.push('');
  L.push(
    `# TIME_RECREATE=1: re-create the ${f.tombstonesHiding.toLocaleString('en-US')} refs hidden by tombstones in one transaction, auto-compaction on`,
  );
  L.push("# (the case of a deletion table that git's byte-size rule never compacts).");
  L.push('if [ "${TIME_RECREATE:-}" = 1 ]; then');
  L.push('  unset GIT_TEST_REFTABLE_AUTOCOMPACTION');
  if (hiddenLines.length) {
    L.push('  {');
    L.push(...hiddenLines.map((l) => '    ' + l));
    L.push('  } > "$PWD/refscope-recreate"');
    L.push('  time "$GIT" update-ref --no-deref --stdin < "$PWD/refscope-recreate"');
  } else {
    L.push('  echo "repro: no tombstone hides a ref in this stack: nothing to re-create"');
  }
  L.push('  echo "after: $(tables) tables"');
  L.push('fi');
  return L.join('\n') + '\n';
}
