/** The log–log chart of estimated cost against batch size, with its table (accessible alternative). */
import { useMemo, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import type { ModelResult } from '../../engine/simulate/index.ts';
import type { CurveData } from '../../engine/simulate/curve.ts';
import { MODELS } from '../../engine/simulate/models.ts';
import { fmtInt } from '../lib/format.ts';
import { fmtNTick, fmtSeconds, fmtSecondsTick } from './simformat.ts';
import {
  chartSeries,
  linePath,
  logAxis,
  nearestIndex,
  secondsRange,
  spreadLabels,
  type ChartSeries,
  type CurveMode,
} from './simchart.ts';
import { DASH, MODEL_CLASS, Marker, ModelKey } from './ModelKey.tsx';

const CW = 820,
  CH = 380;
const M = { left: 66, right: 150, top: 18, bottom: 46 };

export function CostChart({
  curve,
  results,
  idSuffix,
}: {
  curve: CurveData;
  results: ModelResult[];
  idSuffix: string;
}) {
  const [mode, setMode] = useState<CurveMode>('sameShape');
  const [cursor, setCursor] = useState<number | null>(null);
  const svgRef = useRef<SVGSVGElement>(null);
  const series = useMemo(() => chartSeries(curve, mode), [curve, mode]);
  const ns = curve.n;
  const x = useMemo(() => logAxis(ns[0], ns[ns.length - 1], M.left, CW - M.right), [ns]);
  const yr = useMemo(() => secondsRange(series.flatMap((s) => [...s.values, s.atSimulated])), [series]);
  const y = useMemo(() => logAxis(yr.lo, yr.hi, CH - M.bottom - 10, M.top + 4), [yr]);
  const clampY = (v: number) => Math.max(M.top - 4, Math.min(CH - M.bottom + 4, y.at(v)));
  const labelYs = spreadLabels(
    series.map((s) => clampY(s.values[s.values.length - 1])),
    26,
    M.top + 4,
    CH - M.bottom - 8,
  );
  const titleId = `sim-chart-title-${idSuffix}`,
    descId = `sim-chart-desc-${idSuffix}`;
  const simN = curve.simulatedN;
  const showSim = simN >= ns[0] && simN <= ns[ns.length - 1];
  const last = ns.length - 1;
  const desc =
    `One line per model: ${series.map((s) => `${MODELS[s.model].versions} grows ${s.growth.label} (${s.growth.perDoubling}), ${fmtSeconds(s.values[last])} at n = ${fmtInt(ns[last])}`).join('; ')}. ` +
    `The simulated workload had n = ${fmtInt(simN)}. Use the left and right arrow keys to read the values at each n.`;
  const onMove = (e: MouseEvent<SVGSVGElement>) => {
    const el = svgRef.current;
    if (!el) return;
    const r = el.getBoundingClientRect();
    const px = ((e.clientX - r.left) * CW) / r.width;
    if (px < M.left - 10 || px > CW - M.right + 10) {
      setCursor(null);
      return;
    }
    setCursor(nearestIndex(ns, x, px));
  };
  const onKey = (e: KeyboardEvent<SVGSVGElement>) => {
    const k = e.key;
    if (k !== 'ArrowLeft' && k !== 'ArrowRight' && k !== 'Home' && k !== 'End' && k !== 'Escape') return;
    e.preventDefault();
    if (k === 'Escape') {
      setCursor(null);
      return;
    }
    setCursor((c) => {
      if (k === 'Home') return 0;
      if (k === 'End') return last;
      if (c === null) return k === 'ArrowRight' ? 0 : last;
      return Math.max(0, Math.min(last, c + (k === 'ArrowRight' ? 1 : -1)));
    });
  };
  const quad = series.filter((s) => s.growth.kind === 'quadratic');
  // Beyond the largest n measured with real git for the models shown, the curves are extrapolated.
  const measured = series.map((s) => curve.measuredUpTo?.[s.model] ?? 0).filter((v) => v > 0);
  const extrapolatedFrom = measured.length && Math.max(...measured) < ns[ns.length - 1] ? Math.max(...measured) : null;
  const measuredNote = series.map((s) => ({ m: s.model, up: curve.measuredUpTo?.[s.model] ?? 0 }));
  // Without stepping over entries (no tombstones in the way) both curves are the same: no choice.
  const steps = curve.series.some((s) => s.parts.stepping > 0);
  return (
    <div className="sim-chart-wrap">
      {!steps ? (
        <p className="muted small sim-chart-head">
          n operations of this workload: nothing steps over tombstones here, so the cost is the same whether the stack
          grows with the batch or not.
        </p>
      ) : (
        <div className="sim-chart-head">
          <div className="seg-control" role="group" aria-label="What grows with n">
            <button
              type="button"
              className={mode === 'sameShape' ? 'on' : ''}
              aria-pressed={mode === 'sameShape'}
              data-testid="sim-mode-same"
              onClick={() => setMode('sameShape')}
            >
              Stack grows with the batch
            </button>
            <button
              type="button"
              className={mode === 'fixedStack' ? 'on' : ''}
              aria-pressed={mode === 'fixedStack'}
              data-testid="sim-mode-fixed"
              onClick={() => setMode('fixedStack')}
            >
              This stack, n operations
            </button>
          </div>
          <span className="muted small">
            {mode === 'sameShape'
              ? 'n refs re-created over n tombstones (a stack of this shape, scaled): where the reads step over tombstones the cost is quadratic.'
              : 'n operations of this workload on this stack as it is: linear in n.'}
          </span>
        </div>
      )}
      <figure className="sim-chart" data-testid="sim-chart" data-mode={mode} data-series={series.length}>
        <svg
          ref={svgRef}
          viewBox={`0 0 ${CW} ${CH}`}
          width="100%"
          role="img"
          aria-labelledby={`${titleId} ${descId}`}
          tabIndex={0}
          className="sim-svg"
          onMouseMove={onMove}
          onMouseLeave={() => setCursor(null)}
          onKeyDown={onKey}
          onBlur={() => setCursor(null)}
        >
          <title id={titleId}>Estimated time against batch size n, log–log, per model</title>
          <desc id={descId}>{desc}</desc>
          <g className="sim-grid" aria-hidden="true">
            {y.ticks.map((t) => (
              <g key={t}>
                <line x1={M.left} x2={CW - M.right} y1={y.at(t)} y2={y.at(t)} />
                <text x={M.left - 8} y={y.at(t) + 4} textAnchor="end">
                  {fmtSecondsTick(t)}
                </text>
              </g>
            ))}
            {x.ticks.map((t) => (
              <g key={t}>
                <line x1={x.at(t)} x2={x.at(t)} y1={M.top} y2={CH - M.bottom} />
                <text x={x.at(t)} y={CH - M.bottom + 16} textAnchor="middle">
                  {fmtNTick(t)}
                </text>
              </g>
            ))}
            <line className="sim-baseline" x1={M.left} x2={CW - M.right} y1={CH - M.bottom} y2={CH - M.bottom} />
            <text className="sim-axis" x={(M.left + CW - M.right) / 2} y={CH - 8} textAnchor="middle">
              batch size n (operations), log scale
            </text>
            <text
              className="sim-axis"
              transform={`translate(14 ${(M.top + CH - M.bottom) / 2}) rotate(-90)`}
              textAnchor="middle"
            >
              estimated time, log scale
            </text>
          </g>
          {showSim && (
            <g className="sim-simline" aria-hidden="true">
              <line x1={x.at(simN)} x2={x.at(simN)} y1={M.top} y2={CH - M.bottom} />
              {x.at(simN) > M.left + 0.7 * (CW - M.right - M.left) ? (
                <text x={x.at(simN) - 4} y={M.top + 10} textAnchor="end">
                  simulated: n = {fmtInt(simN)}
                </text>
              ) : (
                <text x={x.at(simN) + 4} y={M.top + 10}>
                  simulated: n = {fmtInt(simN)}
                </text>
              )}
            </g>
          )}
          {extrapolatedFrom !== null && (
            <g className="sim-extrapolated" aria-hidden="true">
              <rect
                x={x.at(extrapolatedFrom)}
                y={M.top}
                width={Math.max(0, CW - M.right - x.at(extrapolatedFrom))}
                height={CH - M.bottom - M.top}
              />
              <text x={x.at(extrapolatedFrom) + 4} y={CH - M.bottom - 6}>
                extrapolated
              </text>
            </g>
          )}
          {series.map((s, i) => (
            <g
              key={s.model}
              className={`sim-series ${MODEL_CLASS[s.model]}`}
              data-testid="sim-series"
              data-model={s.model}
              data-growth={s.growth.kind}
            >
              <path
                className="sim-line"
                d={linePath(ns.map((n, j) => [x.at(n), clampY(s.values[j])]))}
                strokeDasharray={DASH[s.model]}
              />
              {showSim && <Marker model={s.model} x={x.at(simN)} y={clampY(s.atSimulated)} r={4} />}
              <g className="sim-end">
                <line x1={CW - M.right + 2} x2={CW - M.right + 10} y1={clampY(s.values[last])} y2={labelYs[i]} />
                <text x={CW - M.right + 13} y={labelYs[i] - 1}>
                  {s.model}
                </text>
                <text className={`sim-growth ${s.growth.kind}`} x={CW - M.right + 13} y={labelYs[i] + 11}>
                  {s.growth.kind === 'quadratic'
                    ? 'quadratic · n²'
                    : s.growth.kind === 'linear'
                      ? 'linear · n'
                      : 'flat'}
                </text>
              </g>
            </g>
          ))}
          {cursor !== null && (
            <g className="sim-cursor" aria-hidden="true">
              <line x1={x.at(ns[cursor])} x2={x.at(ns[cursor])} y1={M.top} y2={CH - M.bottom} />
              {series.map((s) => (
                <g key={s.model} className={MODEL_CLASS[s.model]}>
                  <Marker model={s.model} x={x.at(ns[cursor])} y={clampY(s.values[cursor])} r={4.5} />
                </g>
              ))}
            </g>
          )}
        </svg>
        <figcaption className="sim-readout" aria-live="polite" data-testid="sim-readout">
          {cursor === null ? (
            <span className="muted">
              Hover over the chart, or focus it (Tab) and use ← →, to read the estimates at each n; every value is also
              in the table below.
            </span>
          ) : (
            <>
              <strong>n = {fmtInt(ns[cursor])}</strong>
              {series.map((s) => (
                <span key={s.model} className="sim-readout-item">
                  <ModelKey model={s.model} /> {s.model} {fmtSeconds(s.values[cursor])}
                </span>
              ))}
            </>
          )}
        </figcaption>
      </figure>
      <p className="muted small" data-testid="sim-extrapolated">
        Checked against real git (CPU time on the test machine) up to{' '}
        {measuredNote.map((x, i) => (
          <span key={x.m}>
            {i ? ', ' : ''}
            {x.up > 0 ? `n = ${fmtInt(x.up)}` : 'no n'} for {x.m}
          </span>
        ))}
        ; beyond that (shaded) the curve is an extrapolation of the model, not a measurement.
      </p>
      <ul className="legend sim-legend" aria-label="Legend">
        {series.map((s) => (
          <li key={s.model}>
            <ModelKey model={s.model} />
            <strong>{s.model}</strong> <span className="muted">{MODELS[s.model].versions}</span> ·{' '}
            <span className={`sim-growth-text ${s.growth.kind}`}>{s.growth.label}</span>{' '}
            <span className="muted">({s.growth.perDoubling})</span>
          </li>
        ))}
        {showSim && <li className="muted">markers: the simulated run (n = {fmtInt(simN)})</li>}
      </ul>
      {quad.length > 0 && mode === 'sameShape' && (
        <p className="small sim-chart-note">
          {quad.map((s) => s.model).join(' and ')} {quad.length === 1 ? 'grows' : 'grow'} quadratically: each operation
          steps over tombstones whose number grows with the batch, so doubling n quadruples the time
          {series.some((s) => s.growth.kind === 'linear')
            ? `, while ${series
                .filter((s) => s.growth.kind === 'linear')
                .map((s) => s.model)
                .join(' and ')} stay${series.filter((s) => s.growth.kind === 'linear').length === 1 ? 's' : ''} linear`
            : ''}
          .
        </p>
      )}
      <details className="sim-data">
        <summary>Chart data as a table</summary>
        <ChartTable ns={ns} series={series} results={results} />
      </details>
    </div>
  );
}

function ChartTable({ ns, series }: { ns: number[]; series: ChartSeries[]; results: ModelResult[] }) {
  return (
    <div className="table-scroll">
      <table className="grid sim-data-table" data-testid="sim-chart-table">
        <thead>
          <tr>
            <th scope="col" className="num">
              n
            </th>
            {series.map((s) => (
              <th key={s.model} scope="col" className="num">
                {s.model}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {ns.map((n, j) => (
            <tr key={n}>
              <th scope="row" className="num">
                {fmtInt(n)}
              </th>
              {series.map((s) => (
                <td key={s.model} className="num">
                  {fmtSeconds(s.values[j])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
