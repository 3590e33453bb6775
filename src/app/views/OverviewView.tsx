import type { PackedRefsJson } from '../../engine/files.ts';
import type React from 'react';
import type { Finding } from '../../engine/basics.ts';
import type { Report, TableReport } from '../../engine/report.ts';
import type { LoadResult } from '../../engine/session/index.ts';
import { useApp } from '../shell/store.ts';
import { fmtBytes, fmtInt, fmtMs, fmtPct, plural } from '../lib/format.ts';
import { baseName } from '../lib/util.ts';
import { GitVerdict } from './GitVerdict.tsx';
import { CopyButton } from '../lib/CopyButton.tsx';
import { GridHead, num } from '../lib/GridHead.tsx';

/** The four headline figures (also the `data-testid` hooks). */
export function headline(result: LoadResult): { live: number; tombstones: number; tables: number; totalBytes: number } {
  const s = result.report?.stack;
  if (s) return { live: s.live, tombstones: s.tombstones, tables: s.tables, totalBytes: s.totalBytes };
  return {
    live: result.report ? result.refCount : 0,
    tombstones: 0,
    tables: result.report?.tables.length ?? 0,
    totalBytes: result.files.reduce((a, f) => a + f.size, 0),
  };
}

/** Text with `backtick` spans rendered as <code> (as text: names stay data, never markup). */
function withCode(text: string): React.ReactNode[] {
  return text.split('`').map((part, i) => (i % 2 ? <code key={i}>{part}</code> : part));
}

/** A short summary used while the report's own diagnosis is empty. */
function fallbackDiagnosis(r: Report): string {
  const s = r.stack;
  if (!s) return `${r.input.description}.`;
  const parts: string[] = [];
  parts.push(
    `${plural(s.tables, 'table')}, ${fmtBytes(s.totalBytes)}: ${fmtInt(s.live)} live ${s.live === 1 ? 'ref' : 'refs'}`,
  );
  if (s.tombstones) {
    parts[0] += `, ${fmtInt(s.tombstones)} ${s.tombstones === 1 ? 'tombstone' : 'tombstones'}`;
    if (s.tombstonesHiding) parts[0] += ` (${fmtInt(s.tombstonesHiding)} hide an older record)`;
  }
  if (s.tables > 1) parts.push(`every lookup walks ${plural(s.tables, 'table')}`);
  if (s.incomplete) parts.push('some tables could not be read, so the figures leave them out');
  return parts.join('; ') + '.';
}

function tableFindings(t: TableReport, findings: Finding[]): Finding[] {
  return findings.filter(
    (f) =>
      baseName(f.file) === t.name &&
      !(t.error && f.severity === 'error' && f.offset === t.error.offset && f.message === t.error.expected),
  );
}

export function OverviewView() {
  const loaded = useApp((s) => s.loaded)!;
  const result = loaded.result;
  const r = result.report;
  const h = headline(result);
  const navigate = useApp((s) => s.navigate);

  if (!r) return <LoadErrorPanel result={result} />;

  const tableNames = new Set(r.tables.map((t) => t.name));
  const otherFindings = r.findings.filter((f) => !tableNames.has(baseName(f.file)));
  const diagnosis = r.diagnosis?.trim() || fallbackDiagnosis(r);
  const s = r.stack;

  return (
    <div className="overview">
      <GitVerdict
        report={r}
        shows="The figures below are refscope's reading of the intact tables; git itself fails on every command here."
      />
      <section className="stats" aria-label="Headline figures">
        <Stat label="Live refs" testid="live-refs" value={h.live} tone="live" />
        <Stat
          label="Tombstones"
          testid="tombstones"
          value={h.tombstones}
          tone="tomb"
          note={s && s.tombstones ? `${fmtInt(s.tombstonesHiding)} hide an older record` : undefined}
        />
        <Stat
          label="Tables"
          testid="table-count"
          value={h.tables}
          note={s ? `${plural(s.refRecords, 'ref record')}, ${plural(s.logRecords, 'log record')}` : undefined}
        />
        <Stat
          label="Total bytes"
          testid="total-bytes"
          value={h.totalBytes}
          text={fmtBytes(h.totalBytes)}
          note={`${fmtInt(h.totalBytes)} bytes`}
        />
      </section>

      <section className="panel diagnosis" aria-labelledby="diag-h">
        <h2 id="diag-h">
          Diagnosis <CopyButton text={diagnosis} what="diagnosis" />
        </h2>
        <p data-testid="diagnosis">{withCode(diagnosis)}</p>
        <p className="muted small">
          {r.input.description} · analysed in {fmtMs(result.elapsed)} · {r.generator}
        </p>
      </section>

      {otherFindings.length > 0 && (
        <section className="panel" aria-labelledby="findings-h">
          <h2 id="findings-h">Findings</h2>
          <FindingList findings={otherFindings} showFile />
        </section>
      )}

      {r.tables.length > 0 && (
        <section className="panel" aria-labelledby="tables-h">
          <h2 id="tables-h">
            Tables <span className="muted">(tables.list order, oldest first)</span>
          </h2>
          {s?.incomplete && (
            <p className="warn-text">
              {plural(r.tables.filter((t) => t.error).length, 'table')} could not be read: the figures above leave{' '}
              {r.tables.filter((t) => t.error).length === 1 ? 'it' : 'them'} out.
            </p>
          )}
          <div className="table-scroll">
            <table className="grid tables-grid">
              <GridHead
                columns={[
                  '#',
                  'Table',
                  num('Bytes'),
                  num('Refs'),
                  num('Tombstones'),
                  num('Shadowed'),
                  num('Logs'),
                  num('Blocks'),
                  'Update index',
                ]}
              />
              <tbody>
                {r.tables.map((t, i) => {
                  // a repeated line's findings are its first position's: shown there
                  const fs = t.copyOf !== undefined ? [] : tableFindings(t, r.findings);
                  const refs = t.records.ref + t.records.peeled + t.records.symref;
                  return (
                    <tr
                      key={i}
                      data-testid="table-row"
                      data-name={t.name}
                      className={t.error ? 'row-error' : undefined}
                    >
                      <td className="num muted">{i}</td>
                      <td className="name-cell">
                        <a
                          href={`#/table?t=${i}`}
                          className="mono"
                          onClick={(e) => {
                            e.preventDefault();
                            navigate({ view: 'table', t: i, b: null, r: null });
                          }}
                        >
                          {t.name}
                        </a>
                        {t.copyOf !== undefined && (
                          <div className="muted small" data-testid="copy-of">
                            same file as position {t.copyOf} (listed again in tables.list)
                          </div>
                        )}
                        {t.error && t.copyOf === undefined && (
                          <div className="inline-error" role="alert" data-testid="error">
                            <strong>Cannot read this table:</strong>{' '}
                            {t.error.offset >= 0 ? `at byte ${fmtInt(t.error.offset)}, ` : ''}expected{' '}
                            {t.error.expected}
                            {baseName(t.error.file) !== t.name && <span className="muted"> ({t.error.file})</span>}
                          </div>
                        )}
                        {fs.length > 0 && <FindingList findings={fs} compact />}
                      </td>
                      <td className="num">{fmtInt(t.fileSize)}</td>
                      <td className="num">{t.error ? '—' : fmtInt(refs)}</td>
                      <td className="num">{t.error ? '—' : fmtInt(t.records.tombstone)}</td>
                      <td className="num">{t.error ? '—' : fmtInt(t.shadowed)}</td>
                      <td className="num">{t.error ? '—' : fmtInt(t.records.log + t.records.logDeletion)}</td>
                      <td className="num">
                        {t.error
                          ? '—'
                          : fmtInt((t.copyOf !== undefined ? (r.tables[t.copyOf]?.blocks ?? []) : t.blocks).length)}
                      </td>
                      <td className="mono">
                        {t.minUpdateIndex === null
                          ? '—'
                          : t.minUpdateIndex === t.maxUpdateIndex
                            ? t.minUpdateIndex
                            : `${t.minUpdateIndex}–${t.maxUpdateIndex}`}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </section>
      )}

      {s && Object.keys(s.namespaces).length > 0 && (
        <section className="panel" aria-labelledby="ns-h">
          <h2 id="ns-h">Live refs by namespace</h2>
          <Namespaces ns={s.namespaces} total={s.live} />
        </section>
      )}

      {!s && <BackendSummary report={r} result={result} />}

      {!s && filesNamespaces(r) && (
        <section className="panel" aria-labelledby="ns-h">
          <h2 id="ns-h">Live refs by namespace</h2>
          <Namespaces ns={filesNamespaces(r)!} total={Object.values(filesNamespaces(r)!).reduce((a, b) => a + b, 0)} />
        </section>
      )}
    </div>
  );
}

function Stat({
  label,
  testid,
  value,
  text,
  note,
  tone,
}: {
  label: string;
  testid: string;
  value: number;
  text?: string;
  note?: string;
  tone?: string;
}) {
  return (
    <div className={`stat${tone ? ' tone-' + tone : ''}`}>
      <div className="stat-label">{label}</div>
      <div className="stat-value" data-testid={testid} data-value={value}>
        {text ?? fmtInt(value)}
      </div>
      {note && <div className="stat-note">{note}</div>}
    </div>
  );
}

/** The namespace mix of a packed-refs or files-backend input (`packedRefs.namespaces`), if any. */
function filesNamespaces(r: Report): Record<string, number> | null {
  const ns = (r.packedRefs as PackedRefsJson | undefined)?.namespaces;
  return ns && Object.keys(ns).length ? ns : null;
}

function Namespaces({ ns, total }: { ns: Record<string, number>; total: number }) {
  const rows = Object.entries(ns).sort((a, b) => b[1] - a[1]);
  const shown = rows.slice(0, 12);
  const rest = rows.slice(12).reduce((a, [, n]) => a + n, 0);
  return (
    <div className="ns-list">
      {shown.map(([name, n]) => (
        <div className="ns-row" key={name} data-testid="ns-row" data-name={name} data-value={n}>
          <span className="mono ns-name">{name}</span>
          <span className="ns-bar">
            <span className="ns-fill" style={{ width: `${total ? (100 * n) / total : 0}%` }} />
          </span>
          <span className="num">
            {fmtInt(n)} <span className="muted">({fmtPct(n, total)})</span>
          </span>
        </div>
      ))}
      {rest > 0 && (
        <div className="ns-row muted">
          <span>{rows.length - 12} more namespaces</span>
          <span />
          <span className="num">{fmtInt(rest)}</span>
        </div>
      )}
    </div>
  );
}

export function FindingList({
  findings,
  showFile,
  compact,
}: {
  findings: Finding[];
  showFile?: boolean;
  compact?: boolean;
}) {
  return (
    <ul className={compact ? 'findings compact' : 'findings'}>
      {findings.map((f, i) => (
        <li
          key={i}
          className={`finding sev-${f.severity}`}
          data-testid={f.severity === 'error' ? 'error' : 'finding'}
          data-severity={f.severity}
        >
          <span className="sev">{f.severity}</span>
          {showFile && <span className="mono file">{f.file}</span>}
          {f.offset >= 0 && <span className="muted">byte {fmtInt(f.offset)}:</span>}
          <span className="msg">{f.message}</span>
        </li>
      ))}
    </ul>
  );
}

function LoadErrorPanel({ result }: { result: LoadResult }) {
  const e = result.error;
  return (
    <div className="overview">
      <section className="panel">
        <h2>This input could not be analysed</h2>
        {e && (
          <div className="inline-error big" role="alert" data-testid="error">
            {e.file ? <span className="mono file">{e.file}</span> : null}
            {e.file && e.offset >= 0 ? ` at byte ${fmtInt(e.offset)}` : ''}
            {e.expected ? <>: expected {e.expected}</> : e.message}
          </div>
        )}
        <h3>Files given</h3>
        <ul className="file-list">
          {result.files.map((f) => (
            <li key={f.path} className={e && e.file === f.path ? 'has-error' : undefined}>
              <span className="mono">{f.path}</span> <span className="muted">{fmtBytes(f.size)}</span>
              {e && e.file === f.path && <span className="error-tag"> ← here</span>}
            </li>
          ))}
          {!result.files.length && <li className="muted">none</li>}
        </ul>
      </section>
    </div>
  );
}

/** A yes/no/warn cell. */
function Verdict({ ok, children }: { ok: boolean; children: React.ReactNode }) {
  return (
    <span className={ok ? 'verdict ok' : 'verdict warn'}>
      {ok ? '✓ ' : '⚠ '}
      {children}
    </span>
  );
}

function BackendSummary({ report, result }: { report: Report; result: LoadResult }) {
  const p = report.packedRefs as PackedRefsJson | undefined;
  if (!p) {
    return (
      <section className="panel">
        <h2>Files backend</h2>
        <p>
          {plural(result.refCount, 'ref')} listed from {plural(result.files.length, 'file')}.
        </p>
      </section>
    );
  }
  const pc = p.peelCoverage;
  const cost = p.lookupCost;
  const est = p.reftableEstimate;
  return (
    <section className="panel" data-testid="packed-refs-panel">
      <h2>{result.kind === 'packed-refs' ? 'packed-refs' : 'Files backend'}</h2>
      <dl className="kv">
        {p.present ? (
          <>
            <div>
              <dt>packed-refs</dt>
              <dd>
                {plural(p.records, 'record')} ({plural(p.peeled, 'peeled value')}) in {fmtBytes(p.bytes)}, {p.hash}
              </dd>
            </div>
            <div>
              <dt>header</dt>
              <dd className="mono">{p.header === null ? '(none)' : p.header}</dd>
            </div>
            <div>
              <dt>sorted</dt>
              <dd>
                {p.claimsSorted ? (
                  <Verdict ok={p.sorted}>
                    {p.sorted
                      ? 'claims sorted and is: git binary-searches the file'
                      : `claims sorted but is not: git's binary search misses ${plural(p.unfoundByBinarySearch.length, 'ref')}`}
                  </Verdict>
                ) : (
                  <Verdict ok={p.records < 2 || p.sorted}>
                    {p.sorted
                      ? 'no "sorted" trait, but in order: git checks the order on every load and searches the file itself'
                      : `no "sorted" trait and out of order: git sorts all ${fmtInt(p.records)} records on every load`}
                  </Verdict>
                )}
              </dd>
            </div>
            {p.unfoundByBinarySearch.length > 0 && (
              <div>
                <dt>not found by lookups</dt>
                <dd className="mono">
                  {p.unfoundByBinarySearch.slice(0, 20).join(', ')}
                  {p.unfoundByBinarySearch.length > 20 ? ` … (${fmtInt(p.unfoundByBinarySearch.length)} in all)` : ''}
                </dd>
              </div>
            )}
            {p.duplicates.length > 0 && (
              <div>
                <dt>duplicate names</dt>
                <dd className="mono">
                  {p.duplicates.slice(0, 20).join(', ')}
                  {p.duplicates.length > 20 ? ' …' : ''}
                </dd>
              </div>
            )}
            <div>
              <dt>peeling</dt>
              <dd>
                <Verdict
                  ok={pc.mustOpen === 0}
                >{`${fmtInt(pc.tagsWithPeeled)} of ${fmtInt(pc.tags)} tags carry their peeled value; the ref advertisement must open ${plural(pc.mustOpen, 'object')}`}</Verdict>
                <div className="muted">{pc.rule}</div>
              </dd>
            </div>
            {p.gitDies && (
              <div>
                <dt>git dies</dt>
                <dd>
                  <Verdict
                    ok={false}
                  >{`line ${fmtInt(p.gitDies.line)}, byte ${fmtInt(p.gitDies.offset)}: ${p.gitDies.message}`}</Verdict>
                </dd>
              </div>
            )}
            <div>
              <dt>lookup cost</dt>
              <dd>
                {cost.packed.mode === 'binary-search'
                  ? `binary search: ${cost.packed.avgProbes.toFixed(1)} probes on average, ${fmtInt(cost.packed.maxProbes)} at most`
                  : cost.packed.mode === 'sort-on-load'
                    ? `sort on load: about ${fmtInt(cost.packed.sortComparisons)} comparisons every time git reads the file`
                    : 'no packed refs'}
              </dd>
            </div>
          </>
        ) : (
          <div>
            <dt>packed-refs</dt>
            <dd>none</dd>
          </div>
        )}
        {p.loose && (
          <div>
            <dt>loose refs</dt>
            <dd>
              {plural(p.loose.looseRefs, 'loose ref')} in {plural(p.loose.directories, 'directory', 'directories')},{' '}
              {fmtInt(p.loose.shadowing)} shadowing a packed ref; {plural(p.loose.reflogs, 'reflog')} (
              {plural(p.loose.reflogEntries, 'entry', 'entries')})
            </dd>
          </div>
        )}
        {p.packRefsAuto && (
          <div>
            <dt>git pack-refs --auto</dt>
            <dd>
              <Verdict ok={!p.packRefsAuto.wouldPack}>
                {p.packRefsAuto.wouldPack ? 'would pack now' : 'would not pack yet'}
              </Verdict>{' '}
              <span className="muted">{p.packRefsAuto.rule}</span>
            </dd>
          </div>
        )}
        <div>
          <dt>as a reftable</dt>
          <dd>
            about {fmtBytes(est.bytes)} in {plural(est.blocks, 'block')}{' '}
            <span className="muted">
              (estimate; <code>refscope convert</code> writes the real table)
            </span>
          </dd>
        </div>
      </dl>
    </section>
  );
}
