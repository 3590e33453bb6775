import { useEffect, useMemo, useState } from 'react';
import type { Reason, Segment } from '../../engine/reftable/auto-compaction.ts';
import type { CompactionData, CompactNowResult } from '../../engine/session/index.ts';
import { useApp } from '../shell/store.ts';
import { engine } from '../shell/engine.ts';
import { fmtBytes, fmtInt, fmtMs, plural } from '../lib/format.ts';
import { shortTableName, useAsync } from '../lib/util.ts';
import { logScale, segmentText, shortNum, thresholds } from './cmpchart.ts';
import { downloadBlob } from '../shell/download.ts';
import { sharedReport } from '../share/share-open.tsx';
import './compaction.css';
import { GitVerdict, gitRefuses } from '../views/GitVerdict.tsx';
import { GridHead, num } from '../lib/GridHead.tsx';

type Rule = 'git' | 'records' | 'live' | 'jgit';

/** Up to this many records the zip is made with the compaction; above, when Download is pressed (it takes seconds). */
const ZIP_INLINE_RECORDS = 250_000;

const RULES: { id: Rule; label: string }[] = [
  { id: 'git', label: 'git, by bytes (what git does)' },
  { id: 'records', label: 'by records (what lookups pay)' },
  { id: 'live', label: 'by live records' },
  { id: 'jgit', label: 'JGit (Gerrit), by size class' },
];

/** An integer from a text field within [min, max], or null. */
function intIn(s: string, min: number, max: number): number | null {
  if (!/^\s*\d{1,10}\s*$/.test(s)) return null;
  const n = Number(s);
  return n >= min && n <= max ? n : null;
}

/** The value of a text field, settled for `ms` (typing "25" does not ask for factor 2 first). */
function useSettled<T>(v: T, ms = 200): T {
  const [s, setS] = useState(v);
  useEffect(() => {
    const t = setTimeout(() => setS(v), ms);
    return () => clearTimeout(t);
  }, [v, ms]);
  return s;
}

/**
 * Compaction view: the geometry git sees (net bytes, log scale) next to the geometry
 * that costs (records), the segment git's auto-compaction merges, why each table is in or out, a
 * real compaction in the worker with the new stack as a zip, and the next transactions replayed.
 */
export function CompactionView() {
  const loaded = useApp((s) => s.loaded)!;
  const r = loaded.result.report;
  const [factorText, setFactorText] = useState('2');
  const [rule, setRule] = useState<Rule>('git');
  const [kText, setKText] = useState('10');
  const [txText, setTxText] = useState('150');
  const [hover, setHover] = useState<number | null>(null);
  const factorIn = intIn(factorText, 2, 255);
  const kIn = intIn(kText, 0, 1000);
  const txIn = intIn(txText, 92, 1 << 30);
  const factor = useSettled(factorIn);
  const k = useSettled(kIn);
  const tx = useSettled(txIn);
  const q = useAsync(
    () => (r?.stack && factor !== null ? engine().compaction({ factor, k: k ?? 10, txSize: tx ?? 150 }) : null),
    [loaded.id, factor, k, tx],
  );
  if (!r?.stack) {
    return (
      <div className="panel empty-note">
        The compaction geometry is for reftable stacks; this input is {loaded.result.description || loaded.result.kind}.
      </div>
    );
  }
  const refused = gitRefuses(r);
  // When git cannot read the stack it merges nothing: no segment, reason, measured compaction or
  // forecast is offered as git's; the geometry of the intact tables is shown without a segment.
  const d =
    q.data && refused
      ? {
          ...q.data,
          bytes: { ...q.data.bytes, segment: null },
          records: { ...q.data.records, segment: null },
          live: { ...q.data.live, segment: null },
          jgit: { ...q.data.jgit, segment: null },
        }
      : q.data;
  const lockNote = (r.stack.compaction as { locks?: { outcome: string; reason: string } } | undefined)?.locks;
  return (
    <div
      className="cmp-view"
      data-testid="compaction-view"
      data-ready={d && !q.loading ? 'true' : 'false'}
      data-factor={d?.factor ?? ''}
      data-git-readable={refused ? 'false' : 'true'}
    >
      <GitVerdict
        report={r}
        shows="Git compacts nothing here (git pack-refs fails too). The bars below are refscope's reading of the intact tables' sizes, not a prediction of git's."
      />
      <section className="panel" aria-labelledby="cmp-h">
        <div className="panel-head">
          <h2 id="cmp-h">
            Compaction <span className="muted">which tables git merges, and why</span>
          </h2>
        </div>
        <div className="cmp-controls">
          <label className="field">
            <span>Geometric factor</span>
            <input
              type="number"
              min={2}
              max={255}
              step={1}
              inputMode="numeric"
              value={factorText}
              data-testid="cmp-factor"
              aria-invalid={factorIn === null}
              onChange={(e) => setFactorText(e.currentTarget.value)}
            />
            <span className="muted small">
              git&rsquo;s <code>reftable.geometricFactor</code>, 2..255 (default 2)
            </span>
          </label>
          <label className="field">
            <span>Rule</span>
            <select value={rule} data-testid="cmp-rule" onChange={(e) => setRule(e.currentTarget.value as Rule)}>
              {RULES.map((x) => (
                <option key={x.id} value={x.id}>
                  {x.label}
                </option>
              ))}
            </select>
            <span className="muted small">git only ever compares bytes; the others show what would change</span>
          </label>
        </div>
        {factorIn === null && (
          <p className="inline-error" role="alert">
            The factor is an integer from 2 to 255.
          </p>
        )}
        {q.error && (
          <p className="inline-error" role="alert">
            {q.error}
          </p>
        )}
        {!refused && lockNote && (r.stack.locks ?? []).some((l) => l.kind !== 'stale') && (
          <p className="warn-text" data-testid="cmp-locks">
            Lock files (at the report&rsquo;s factor {(r.stack.compaction as { factor?: number }).factor ?? 2}):{' '}
            {lockNote.reason}.
          </p>
        )}
        {!d ? (
          <p className="muted">{q.loading ? 'Computing…' : ''}</p>
        ) : (
          <>
            {!refused && <Summary d={d} rule={rule} />}
            <div className="cmp-charts">
              <GeoChart
                chart="bytes"
                d={d}
                rule={rule}
                hover={hover}
                setHover={setHover}
                title={rule === 'jgit' ? 'By bytes — JGit’s rule' : 'By bytes — what git compares'}
                sub={
                  rule === 'jgit'
                    ? 'net size = file size − 91, log scale; groups of equal ⌊log2⌋'
                    : 'net size = file size − 91 (v1) / − 99 (v2), log scale'
                }
              />
              <GeoChart
                chart={rule === 'live' ? 'live' : 'records'}
                d={d}
                rule={rule}
                hover={hover}
                setHover={setHover}
                title={rule === 'live' ? 'By live records — the same rule' : 'By records — what lookups pay'}
                sub={
                  rule === 'live'
                    ? 'winners that are not tombstones, log scale'
                    : 'ref + log records per table (tombstones count), log scale'
                }
              />
            </div>
            <HoverLine d={d} rule={rule} hover={hover} />
            <ul className="legend cmp-legend" aria-label="Legend">
              <li>
                <span className="swatch cmp-sw-in" />
                in the segment (merged into one table)
              </li>
              <li>
                <span className="swatch cmp-sw-out" />
                out
              </li>
              {rule !== 'jgit' && (
                <li>
                  <span className="cmp-sw-thr" aria-hidden="true" />
                  threshold: {d.factor} × the newer tables it is compared with (a bar ending left of its line is merged)
                </li>
              )}
              <li className="muted">newest table on top, base at the bottom (as in the Stack view)</li>
            </ul>
          </>
        )}
      </section>
      {d && !refused && <Reasons d={d} rule={rule} hover={hover} setHover={setHover} />}
      {d && !refused && <AfterPanel key={loaded.id} d={d} />}
      {d && !refused && (
        <Replay
          d={d}
          kText={kText}
          setKText={setKText}
          txText={txText}
          setTxText={setTxText}
          kOk={kIn !== null}
          txOk={txIn !== null}
        />
      )}
    </div>
  );
}

/** The segment a chart highlights. */
function chartSegment(d: CompactionData, chart: 'bytes' | 'records' | 'live', rule: Rule): Segment | null {
  if (chart === 'bytes') return rule === 'jgit' ? d.jgit.segment : d.bytes.segment;
  return chart === 'live' ? d.live.segment : d.records.segment;
}

function segAttr(s: Segment | null): string {
  return s ? `${s.start}-${s.end}` : 'none';
}

function Summary({ d, rule }: { d: CompactionData; rule: Rule }) {
  const n = d.tables.length;
  const seg = d.bytes.segment;
  const bytesIn = (s: Segment) => d.tables.slice(s.start, s.end + 1).reduce((a, t) => a + t.fileSize, 0);
  const rec = rule === 'live' ? d.live.segment : d.records.segment;
  const recWord = rule === 'live' ? 'live records' : 'records';
  return (
    <div className="cmp-summary" data-testid="segment-summary">
      <p>
        <strong>git</strong> (<code>git pack-refs --auto</code>, and the auto-compaction after every transaction) at
        factor {d.factor}:{' '}
        <span data-testid="segment-bytes" data-segment={segAttr(seg)}>
          {seg ? (
            <>
              merges <strong>{segmentText(seg)}</strong> ({plural(seg.end - seg.start + 1, 'table')},{' '}
              {fmtBytes(bytesIn(seg))}) into one, leaving {plural(n - (seg.end - seg.start), 'table')}.
            </>
          ) : n < 2 ? (
            <>nothing to merge: one table.</>
          ) : (
            <>merges nothing — by bytes the stack is already geometric (each table ≥ {d.factor} × the newer ones).</>
          )}
        </span>
      </p>
      <p>
        By {recWord}, the same rule{' '}
        <span data-testid={rule === 'live' ? 'segment-live' : 'segment-records'} data-segment={segAttr(rec)}>
          {rec ? (
            <>
              would merge <strong>{segmentText(rec)}</strong>.
            </>
          ) : (
            <>would merge nothing.</>
          )}
        </span>
        {!seg && rec && (
          <span className="cmp-callout" data-testid="records-differ">
            {' '}
            The two disagree: by bytes the newer tables look small next to the base, but by {recWord} they are as heavy,
            and lookups read records, not bytes. Git never compares records, so auto-compaction leaves this stack as it
            is; only a full <code>git pack-refs</code> merges it.
          </span>
        )}
      </p>
      {rule === 'jgit' && (
        <p data-testid="segment-jgit" data-segment={segAttr(d.jgit.segment)}>
          <strong>JGit</strong> (Gerrit):{' '}
          {d.jgit.error ? (
            <span className="warn-text">{d.jgit.error}</span>
          ) : d.jgit.segment ? (
            <>
              merges <strong>{segmentText(d.jgit.segment)}</strong> (the smallest size class with two adjacent tables,
              extended downwards).
            </>
          ) : (
            <>merges nothing: no size class has two adjacent tables.</>
          )}
        </p>
      )}
    </div>
  );
}

const CW = 560;

interface ChartProps {
  chart: 'bytes' | 'records' | 'live';
  d: CompactionData;
  rule: Rule;
  title: string;
  sub: string;
  hover: number | null;
  setHover: (i: number | null) => void;
}

/** One horizontal bar per table (newest on top), log scale, thresholds and the segment. */
function GeoChart({ chart, d, rule, title, sub, hover, setHover }: ChartProps) {
  const n = d.tables.length;
  const values =
    chart === 'bytes'
      ? rule === 'jgit'
        ? d.jgit.netSizes
        : d.bytes.netSizes
      : chart === 'live'
        ? d.live.netSizes
        : d.records.netSizes;
  const seg = chartSegment(d, chart, rule);
  const thr = useMemo(() => {
    if (chart === 'bytes' && rule === 'jgit') return null;
    const g = chart === 'bytes' ? d.bytes : chart === 'live' ? d.live : d.records;
    return thresholds(g.netSizes, d.factor, g.segment);
  }, [chart, rule, d]);
  const reasons =
    chart === 'bytes'
      ? rule === 'jgit'
        ? d.jgit.reasons
        : d.bytes.reasons
      : chart === 'live'
        ? d.live.reasons
        : d.records.reasons;
  const unit = chart === 'bytes' ? 'net bytes' : chart === 'live' ? 'live records' : 'records';
  const labelW = 40;
  const valueW = 64;
  const top = 24;
  const trackW = CW - labelW - valueW - 8;
  // Rows shrink with the number of tables; past 60 the chart keeps about 700 units of height.
  const rowH = n <= 24 ? 22 : n <= 60 ? Math.max(10, Math.floor(560 / n)) : Math.max(0.5, 700 / n);
  const showLabels = rowH >= 12;
  const H = top + n * rowH + 8;
  const scale = logScale([...values, ...(thr ?? []).filter((v): v is number => v !== null)], trackW);
  const x0 = labelW;
  const yOf = (i: number) => top + (n - 1 - i) * rowH;
  const groupOf = new Map<number, number>();
  if (chart === 'bytes' && rule === 'jgit')
    d.jgit.groups.forEach((g, gi) => {
      for (let i = g.start; i <= g.end; i++) groupOf.set(i, gi);
    });
  return (
    <figure className="cmp-chart" data-testid={`chart-${chart}`} data-segment={segAttr(seg)}>
      <figcaption>
        <strong>{title}</strong>
        <span className="muted small">{sub}</span>
      </figcaption>
      <svg
        viewBox={`0 0 ${CW} ${H}`}
        width="100%"
        role="list"
        aria-label={`${title}: one bar per table, newest first`}
        className="cmp-svg"
      >
        {scale.ticks.map((t) => (
          <g key={t} className="cmp-tick" aria-hidden="true">
            <line x1={x0 + scale.x(t)} x2={x0 + scale.x(t)} y1={top - 4} y2={H - 6} />
            <text x={x0 + scale.x(t)} y={top - 8} textAnchor="middle">
              {shortNum(t)}
            </text>
          </g>
        ))}
        {seg && (
          <rect
            className="cmp-band"
            x={2}
            width={CW - 4}
            rx={4}
            y={yOf(seg.end) - 1}
            height={(seg.end - seg.start + 1) * rowH + 2}
            aria-hidden="true"
          />
        )}
        {d.tables.map((t, i) => {
          const y = yOf(i);
          const v = values[i];
          const inSeg = !!seg && i >= seg.start && i <= seg.end;
          const w = Math.max(v > 0 ? 2 : 0, scale.x(v));
          const th = thr ? thr[i] : null;
          const tx = th !== null ? x0 + scale.x(th) : 0;
          const bh = rowH >= 12 ? rowH - 8 : rowH >= 4 ? rowH - 2 : rowH * 0.85;
          const label = `Table #${i}${i === n - 1 && n > 1 ? ' (newest)' : i === 0 ? ' (base)' : ''}: ${fmtInt(v)} ${unit}${th !== null ? `, threshold ${fmtInt(th)}` : ''}. ${reasonAt(reasons, i)}`;
          const cls = `cmp-row${inSeg ? ' in' : ''}${hover === i ? ' hover' : ''}${t.broken ? ' broken' : ''}${groupOf.has(i) && groupOf.get(i)! % 2 ? ' alt' : ''}`;
          return (
            <g
              key={i}
              className={cls}
              role="listitem"
              tabIndex={0}
              aria-label={label}
              data-testid="cmp-bar"
              data-chart={chart}
              data-index={i}
              data-in-segment={inSeg ? 'true' : 'false'}
              data-value={v}
              onMouseEnter={() => setHover(i)}
              onMouseLeave={() => setHover(null)}
              onFocus={() => setHover(i)}
              onBlur={() => setHover(null)}
            >
              <title>{label}</title>
              <rect className="cmp-hit" x={0} y={y} width={CW} height={rowH} />
              {showLabels && (
                <text className="cmp-idx" x={labelW - 6} y={y + rowH / 2 + 4} textAnchor="end">
                  #{i}
                </text>
              )}
              <rect className="cmp-bar" x={x0} y={y + (rowH - bh) / 2} width={w} height={bh} rx={Math.min(3, bh / 2)} />
              {th !== null && (
                <g className={v < th ? 'cmp-thr under' : 'cmp-thr'} aria-hidden="true">
                  <line x1={tx} x2={tx} y1={y + (rowH >= 4 ? 1 : 0)} y2={y + rowH - (rowH >= 4 ? 1 : 0)} />
                  {rowH >= 12 && <path d={`M${tx - 3.5},${y + 1} L${tx + 3.5},${y + 1} L${tx},${y + 5} Z`} />}
                </g>
              )}
              {showLabels && (
                <text className="cmp-val" x={CW - 4} y={y + rowH / 2 + 4} textAnchor="end">
                  {shortNum(v)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

function HoverLine({ d, rule, hover }: { d: CompactionData; rule: Rule; hover: number | null }) {
  if (hover === null || hover >= d.tables.length) {
    return (
      <p className="cmp-hoverline muted" aria-live="polite">
        Hover over or focus (Tab) a bar to see why its table is in or out; every reason is also listed below.
      </p>
    );
  }
  const t = d.tables[hover];
  const b = reasonAt(rule === 'jgit' ? d.jgit.reasons : d.bytes.reasons, hover);
  const c = reasonAt(rule === 'live' ? d.live.reasons : d.records.reasons, hover);
  return (
    <div className="cmp-hoverline" aria-live="polite" data-testid="cmp-hover">
      <strong>#{hover}</strong> <span className="mono">{shortTableName(t.name)}</span> · {fmtBytes(t.fileSize)} ·{' '}
      {plural(t.records, 'record')}
      <div>
        <span className="muted">bytes:</span> {b}
      </div>
      <div>
        <span className="muted">{rule === 'live' ? 'live records' : 'records'}:</span> {c}
      </div>
    </div>
  );
}

function Reasons({
  d,
  rule,
  hover,
  setHover,
}: {
  d: CompactionData;
  rule: Rule;
  hover: number | null;
  setHover: (i: number | null) => void;
}) {
  const order = d.tables.map((_, i) => i).reverse();
  const bSeg = rule === 'jgit' ? d.jgit.segment : d.bytes.segment;
  const cSeg = rule === 'live' ? d.live.segment : d.records.segment;
  const inside = (s: Segment | null, i: number) => !!s && i >= s.start && i <= s.end;
  return (
    <section className="panel" aria-labelledby="why-h">
      <h2 id="why-h">
        Why each table is in or out <span className="muted">newest first</span>
      </h2>
      <div className="table-scroll">
        <table className="grid cmp-reasons" data-testid="cmp-reasons">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Table</th>
              <th scope="col" className="num">
                Net bytes
              </th>
              <th scope="col">{rule === 'jgit' ? 'JGit’s rule' : 'git’s rule by bytes'}</th>
              <th scope="col" className="num">
                {rule === 'live' ? 'Live' : 'Records'}
              </th>
              <th scope="col">{rule === 'live' ? 'by live records' : 'by records'}</th>
            </tr>
          </thead>
          <tbody>
            {order.map((i) => {
              const t = d.tables[i];
              const bIn = inside(bSeg, i);
              const cIn = inside(cSeg, i);
              return (
                <tr
                  key={i}
                  className={hover === i ? 'hover' : undefined}
                  onMouseEnter={() => setHover(i)}
                  onMouseLeave={() => setHover(null)}
                  data-testid="cmp-reason-row"
                >
                  <td className="num muted">{i}</td>
                  <td className="mono" title={t.name}>
                    {shortTableName(t.name)}
                    {t.broken && <span className="error-tag"> unreadable</span>}
                    {t.copyOf !== undefined && <span className="muted"> same file as position {t.copyOf}</span>}
                  </td>
                  <td className="num">{fmtInt(rule === 'jgit' ? d.jgit.netSizes[i] : d.bytes.netSizes[i])}</td>
                  <td className={bIn ? 'reason in' : 'reason'}>
                    <span className={bIn ? 'pill in' : 'pill'}>{bIn ? 'in' : 'out'}</span>{' '}
                    {stripTag(reasonAt(rule === 'jgit' ? d.jgit.reasons : d.bytes.reasons, i))}
                  </td>
                  <td className="num">{fmtInt(rule === 'live' ? t.live : t.records)}</td>
                  <td className={cIn ? 'reason in' : 'reason'}>
                    <span className={cIn ? 'pill in' : 'pill'}>{cIn ? 'in' : 'out'}</span>{' '}
                    {stripTag(reasonAt(rule === 'live' ? d.live.reasons : d.records.reasons, i))}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/**
 * The reason of table `i` as a sentence: its own, or at a repeated line of tables.list whose
 * reason folds into its run's first entry `k` (a number, see `Reason`), that rule named.
 */
function reasonAt(reasons: readonly Reason[], i: number): string {
  const x = reasons[i];
  if (typeof x !== 'number') return x ?? '';
  const tag = /^(in|out): /.exec(String(reasons[x] ?? ''))?.[0] ?? '';
  return `${tag}as #${x} (the same file on another line of tables.list), at this table's own figures`;
}

/** "in: …" / "out: …" without the tag (the pill says it); "segment start: …" kept. */
function stripTag(s: string): string {
  return s.replace(/^(in|out): /, '');
}

function AfterPanel({ d }: { d: CompactionData }) {
  const loaded = useApp((s) => s.loaded)!;
  const shared = sharedReport(loaded);
  const [busy, setBusy] = useState<'auto' | 'all' | 'zip' | null>(null);
  const [elapsed, setElapsed] = useState(0);
  const [res, setRes] = useState<CompactNowResult | null>(null);
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => {
    if (!busy) return;
    const t0 = performance.now();
    const t = setInterval(() => setElapsed(performance.now() - t0), 100);
    return () => clearInterval(t);
  }, [busy]);
  const run = async (mode: 'auto' | 'all') => {
    setBusy(mode);
    setElapsed(0);
    setErr(null);
    try {
      const total = d.tables.reduce((a, t) => a + t.records, 0);
      setRes(await engine().compactNow({ mode, factor: d.factor, zip: total <= ZIP_INLINE_RECORDS }));
    } catch (e) {
      setErr((e as Error)?.message ?? String(e));
      setRes(null);
    } finally {
      setBusy(null);
    }
  };
  const m = d.measured;
  const download = async () => {
    if (!res?.changed) return;
    let zip = res.zip;
    if (!zip) {
      // A big stack: zipped now, in the worker.
      setBusy('zip');
      setElapsed(0);
      try {
        const z = await engine().compactedZip();
        if (!z) throw new Error('the compacted stack is gone (another input was opened): compact again');
        zip = z.zip;
        setRes((r) => (r ? { ...r, zip: z.zip } : r));
      } catch (e) {
        setErr((e as Error)?.message ?? String(e));
        return;
      } finally {
        setBusy(null);
      }
    }
    downloadBlob(new Blob([zip as BlobPart], { type: 'application/zip' }), res.zipName);
  };
  return (
    <section className="panel" aria-labelledby="after-h" data-testid="after-panel">
      <h2 id="after-h">After compaction</h2>
      <p className="note small cmp-note">
        Git drops tombstones and reflog deletions only when the merged segment starts at the base table (table 0): a
        segment higher up carries every deletion forward, because an older table below it might still hold the name. The
        reftable specification allows more — dropping a deletion whose name no table below the segment has — but git
        does not do it, and neither does refscope&rsquo;s compaction.
      </p>
      {m && (m.afterAuto || m.afterPackRefs) && (
        <div className="cmp-measured">
          <h3>
            {shared ? 'Measured by the sharer' : 'Measured by the report'}{' '}
            <span className="muted small">(real compactions at factor {m.factor})</span>
          </h3>
          <dl className="facts small-facts">
            <div>
              <dt>now</dt>
              <dd>
                {plural(d.tables.length, 'table')}, {fmtBytes(d.tables.reduce((a, t) => a + t.fileSize, 0))}
              </dd>
            </div>
            <div>
              <dt>after git pack-refs --auto</dt>
              <dd>
                {m.afterAuto
                  ? `${plural(m.afterAuto.tables, 'table')}, ${fmtBytes(m.afterAuto.bytes)}, ${plural(m.afterAuto.records, 'record')}`
                  : 'unchanged (no segment)'}
              </dd>
            </div>
            <div>
              <dt>after git pack-refs</dt>
              <dd>
                {m.afterPackRefs
                  ? `${plural(m.afterPackRefs.tables, 'table')}, ${fmtBytes(m.afterPackRefs.bytes)}, ${plural(m.afterPackRefs.records, 'record')}`
                  : '—'}
              </dd>
            </div>
          </dl>
          {m.factor !== d.factor && (
            <p className="muted small">At factor {d.factor}, compact below to see the result.</p>
          )}
        </div>
      )}
      {m?.skipped && !shared && (
        <p className="muted small">The report did not compact this stack ({m.skipped}); the buttons below do it now.</p>
      )}
      <div className="cmp-actions">
        <button
          type="button"
          className="btn primary"
          data-testid="compact-auto"
          disabled={!d.canCompact || !!busy}
          onClick={() => void run('auto')}
        >
          Compact as <code>git pack-refs --auto</code> (factor {d.factor})
        </button>
        <button
          type="button"
          className="btn"
          data-testid="compact-all"
          disabled={!d.canCompact || !!busy}
          onClick={() => void run('all')}
        >
          Compact everything (<code>git pack-refs</code>)
        </button>
        {busy && (
          <span className="cmp-busy" role="status" data-testid="compact-busy">
            <span className="spinner small-spinner" aria-hidden="true" />{' '}
            {busy === 'zip' ? 'Zipping the compacted stack' : 'Writing the compacted table'} in the worker…{' '}
            {fmtMs(elapsed)}
          </span>
        )}
      </div>
      {!d.canCompact && (
        <p className="muted small" data-testid="compact-unavailable">
          Not available: {d.cannotCompact}.
        </p>
      )}
      {err && (
        <p className="inline-error" role="alert">
          The compaction failed: {err}
        </p>
      )}
      {res && busy !== 'auto' && busy !== 'all' && (
        <CompactResultView res={res} onDownload={() => void download()} zipping={busy === 'zip'} />
      )}
    </section>
  );
}

function CompactResultView({
  res,
  onDownload,
  zipping,
}: {
  res: CompactNowResult;
  onDownload: () => void;
  zipping: boolean;
}) {
  const title = res.mode === 'all' ? 'git pack-refs' : `git pack-refs --auto (factor ${res.factor})`;
  const order = res.tables.map((_, i) => i).reverse();
  const s = res.stats;
  return (
    <div
      className="cmp-result"
      data-testid="compact-result"
      data-mode={res.mode}
      data-tables={res.after.tables}
      data-segment={segAttr(res.segment)}
    >
      <h3>
        After <code>{title}</code> <span className="muted small">computed in {fmtMs(res.elapsed)}</span>
      </h3>
      {!res.segment ? (
        <p>
          Nothing to compact: git&rsquo;s rule finds no segment at factor {res.factor}, so git leaves the stack as it
          is.
        </p>
      ) : !res.changed ? (
        <p>The stack is a single table already: git leaves it as it is.</p>
      ) : (
        <>
          <p>
            Merged {segmentText(res.segment)} ({plural(s!.tablesIn, 'table')}, {fmtBytes(s!.bytesIn)}) into{' '}
            {res.empty
              ? 'nothing (every record cancelled out: git lists no table)'
              : `one table of ${fmtBytes(res.tables.find((t) => t.isNew)?.bytes ?? 0)}`}
            . The stack goes from {plural(res.before.tables, 'table')}, {fmtBytes(res.before.bytes)},{' '}
            {plural(res.before.records, 'record')} to{' '}
            <strong>
              {plural(res.after.tables, 'table')}, {fmtBytes(res.after.bytes)}, {plural(res.after.records, 'record')}
            </strong>
            .
          </p>
          <ul className="cmp-stats small">
            <li>
              {fmtInt(s!.refsIn)} ref records read, {fmtInt(s!.shadowedRefs)} overridden by newer ones and dropped,{' '}
              {fmtInt(s!.refsOut)} written.
            </li>
            <li>
              {res.dropsDeletions ? (
                <>
                  The segment starts at the base table: {plural(s!.tombstonesDropped, 'tombstone')} and{' '}
                  {plural(s!.logDeletionsDropped, 'log deletion')} dropped.
                </>
              ) : (
                <>
                  The segment does not start at the base table: {plural(s!.tombstonesKept, 'tombstone')} and{' '}
                  {plural(s!.logDeletionsKept, 'log deletion')} carried forward
                  {res.specDroppable.tombstones + res.specDroppable.logDeletions > 0 ? (
                    <>
                      {' '}
                      — the specification would allow dropping {fmtInt(res.specDroppable.tombstones)} of the tombstones
                      and {fmtInt(res.specDroppable.logDeletions)} of the log deletions (no table below has their
                      names), git does not
                    </>
                  ) : null}
                  .
                </>
              )}
            </li>
            {s!.logsIn > 0 && (
              <li>
                {fmtInt(s!.logsIn)} log records read, {fmtInt(s!.logsOut)} written.
              </li>
            )}
          </ul>
        </>
      )}
      <div className="table-scroll">
        <table className="grid cmp-after-table">
          <GridHead columns={['#', 'Table', num('Bytes'), num('Records'), '']} />
          <tbody>
            {order.map((i) => {
              const t = res.tables[i];
              return (
                <tr
                  key={t.name}
                  className={t.isNew ? 'new-table' : undefined}
                  data-testid="after-row"
                  data-new={t.isNew ? 'true' : 'false'}
                >
                  <td className="num muted">{i}</td>
                  <td className="mono">{t.name}</td>
                  <td className="num">{fmtInt(t.bytes)}</td>
                  <td className="num">{fmtInt(t.records)}</td>
                  <td>
                    {t.isNew ? (
                      <span className="pill in">new</span>
                    ) : (
                      <span className="muted small">unchanged (was #{t.from})</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {res.changed && (
        <p className="cmp-download">
          <button
            type="button"
            className="btn primary"
            data-testid="download-zip"
            disabled={zipping}
            onClick={onDownload}
          >
            Download compacted stack (.zip)
          </button>{' '}
          <span className="muted small">
            {res.zipName}
            {res.zip ? `, ${fmtBytes(res.zip.length)}` : ''}: a <code>reftable/</code> folder with{' '}
            <code>tables.list</code> and every table, to put in place of the repository&rsquo;s{' '}
            <code>.git/reftable/</code> (with git stopped, after a backup).
          </span>
        </p>
      )}
    </div>
  );
}

function Replay({
  d,
  kText,
  setKText,
  txText,
  setTxText,
  kOk,
  txOk,
}: {
  d: CompactionData;
  kText: string;
  setKText: (s: string) => void;
  txText: string;
  setTxText: (s: string) => void;
  kOk: boolean;
  txOk: boolean;
}) {
  const steps = d.replay;
  const counts = [d.tables.length, ...steps.map((s) => s.after.length)];
  const maxT = Math.max(1, ...counts, ...steps.map((s) => s.before.length));
  const W = 560,
    H = 150,
    L = 34,
    B = 22,
    T = 10;
  const k = steps.length;
  const xOf = (t: number) => L + ((W - L - 10) * t) / Math.max(1, k);
  const yOf = (c: number) => T + (H - T - B) * (1 - c / maxT);
  let path = `M${xOf(0)},${yOf(counts[0])}`;
  steps.forEach((s, i) => {
    path += ` L${xOf(i + 0.5)},${yOf(counts[i])} L${xOf(i + 0.5)},${yOf(s.before.length)}`;
    path += ` L${xOf(i + 0.5)},${yOf(s.after.length)} L${xOf(i + 1)},${yOf(s.after.length)}`;
  });
  const shown = steps.slice(0, 50);
  return (
    <section className="panel" aria-labelledby="replay-h" data-testid="replay">
      <h2 id="replay-h">
        What happens next <span className="muted">git&rsquo;s auto-compaction after each of the next transactions</span>
      </h2>
      <div className="cmp-controls">
        <label className="field">
          <span>Transactions</span>
          <input
            type="number"
            min={0}
            max={1000}
            value={kText}
            data-testid="replay-k"
            aria-invalid={!kOk}
            onChange={(e) => setKText(e.currentTarget.value)}
          />
          <span className="muted small">0..1,000</span>
        </label>
        <label className="field">
          <span>Each adds a table of (bytes)</span>
          <input
            type="number"
            min={92}
            value={txText}
            data-testid="replay-size"
            aria-invalid={!txOk}
            onChange={(e) => setTxText(e.currentTarget.value)}
          />
          <span className="muted small">≈ 150 for one ref (a one-ref SHA-1 table is 140–170 bytes)</span>
        </label>
      </div>
      {k === 0 ? (
        <p className="muted">No transactions to replay.</p>
      ) : (
        <>
          <svg
            viewBox={`0 0 ${W} ${H}`}
            className="cmp-replay-chart"
            role="img"
            aria-label={`Tables in the stack over the next ${k} transactions: from ${counts[0]} to ${counts[counts.length - 1]}`}
          >
            {[0, maxT].map((c) => (
              <g key={c} className="cmp-tick">
                <line x1={L} x2={W - 10} y1={yOf(c)} y2={yOf(c)} />
                <text x={L - 6} y={yOf(c) + 4} textAnchor="end">
                  {c}
                </text>
              </g>
            ))}
            <text className="cmp-axis" x={L} y={H - 4}>
              now
            </text>
            <text className="cmp-axis" x={W - 10} y={H - 4} textAnchor="end">
              after {fmtInt(k)}
            </text>
            <path className="cmp-step" d={path} />
            {steps.map(
              (s, i) =>
                s.segment && (
                  <circle
                    key={i}
                    className="cmp-dot"
                    cx={xOf(i + 0.5)}
                    cy={yOf(s.after.length)}
                    r={k > 100 ? 1.5 : 3}
                  />
                ),
            )}
          </svg>
          <p className="muted small">
            Tables in the stack (y) after each transaction (x); a dot is an auto-compaction. Sizes of compacted tables
            are estimates (sum of the merged net sizes; the real table is smaller when records are overridden or
            tombstones dropped).
          </p>
          <div className="table-scroll">
            <table className="grid cmp-replay-table" data-testid="replay-table">
              <thead>
                <tr>
                  <th scope="col" className="num">
                    Tx
                  </th>
                  <th scope="col" className="num">
                    Tables before
                  </th>
                  <th scope="col">Auto-compaction merges</th>
                  <th scope="col" className="num">
                    Tables after
                  </th>
                  <th scope="col">Stack after, newest first</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((s) => (
                  <tr key={s.transaction} data-testid="replay-row">
                    <td className="num">{s.transaction}</td>
                    <td className="num">{s.before.length}</td>
                    <td>{s.segment ? segmentText(s.segment) : <span className="muted">nothing</span>}</td>
                    <td className="num">{s.after.length}</td>
                    <td className="mono small">
                      {s.after
                        .map((b, i) => `${s.estimated[i] ? '~' : ''}${fmtBytes(b)}`)
                        .reverse()
                        .slice(0, 8)
                        .join(' · ')}
                      {s.after.length > 8 ? ' · …' : ''}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {steps.length > shown.length && (
            <p className="muted small">{fmtInt(steps.length - shown.length)} more transactions in the chart above.</p>
          )}
        </>
      )}
    </section>
  );
}
