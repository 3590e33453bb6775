/** The results of a simulation (a live run or the sharer's): the model table, phases and parts, refusals, the chart, the fixes, the paragraph. */
import { Fragment, memo, useState, type ReactNode } from 'react';
import type { ModelResult, FixResult } from '../../engine/simulate/index.ts';
import type { CostPart } from '../../engine/simulate/constants.ts';
import { MODELS, type ModelName } from '../../engine/simulate/models.ts';
import type { Counts, Phase } from '../../engine/simulate/counts.ts';
import { fmtInt, fmtPct, plural } from '../lib/format.ts';
import { phaseWords, type SimDisplay } from '../../engine/share/simulation.ts';
import { fmtCount, fmtGain, fmtSeconds, fmtTimes } from './simformat.ts';
import { CostChart } from './CostChart.tsx';
import { ModelKey } from './ModelKey.tsx';

/** The results of a run (memoised: typing in the picker does not redraw them). */
export const SimResults = memo(function SimResults({
  d,
  stale = false,
  nested = false,
}: {
  d: SimDisplay;
  stale?: boolean;
  nested?: boolean;
}) {
  const r = d.result;
  const ok = r.results.filter((m) => m.applicable && m.seconds !== null);
  const notApplicable = r.results.filter((m) => !m.applicable);
  const wl = r.workload;
  const opts = d.options;
  const Section = nested ? 'div' : 'section';
  return (
    <div
      className={`sim-out${stale ? ' stale' : ''}`}
      data-testid={d.source === 'shared' ? 'sim-shared-results' : 'sim-out'}
      data-source={d.source}
    >
      <Section className={nested ? 'sim-sub' : 'panel'} aria-labelledby={`sim-res-h-${d.source}`}>
        <h2 id={`sim-res-h-${d.source}`}>
          Estimated cost{' '}
          <span className="muted">
            {d.source === 'shared'
              ? 'the sharer’s results, from the link (read-only)'
              : 'per git version, on these tables'}
          </span>
        </h2>
        <p className="sim-wl" data-testid="sim-workload">
          <strong>{capital(wl.description)}</strong>
          <span className="muted">
            {' '}
            · {plural(wl.operations, 'operation')}
            {wl.kind === 'updates' ? ` in ${plural(wl.transactions, 'transaction')}` : ''} ·{' '}
            {r.input.kind === 'files'
              ? `files backend, ${plural(r.input.liveRefs, 'ref')}`
              : `${plural(d.tables, 'table')}, ${plural(r.input.liveRefs, 'live ref')}, ${plural(r.input.tombstones, 'tombstone')}`}{' '}
            · warnAmbiguousRefs {opts.warnAmbiguousRefs ? 'on' : 'off'} · auto-compaction{' '}
            {opts.autoCompaction ? `on (factor ${opts.factor})` : 'off'}
          </span>
        </p>
        {ok.length ? (
          <ModelTable results={r.results} idSuffix={d.source} />
        ) : (
          <p className="muted">No model applies to this input.</p>
        )}
        {r.gitVersion && (
          <p className="small" data-testid="sim-git-version-note">
            <strong>Your git:</strong> {r.gitVersion.input} → <strong>{r.gitVersion.model ?? 'files only'}</strong>.{' '}
            {r.gitVersion.note}
          </p>
        )}
        {ok.some((m) => m.parts?.length) && <Parts results={ok} note={r.outsideNote ?? ''} />}
        {notApplicable.length > 0 && (
          <p className="muted small">
            {notApplicable.map((m) => (
              <Fragment key={m.model}>
                <strong>{m.model}</strong> not applicable{m.reason ? `: ${m.reason}` : ''}.{' '}
              </Fragment>
            ))}
          </p>
        )}
        {ok.some((m) => m.errorCount > 0) && <Refusals results={ok} />}
      </Section>
      {r.curve && r.curve.series.length > 0 && (
        <Section className={nested ? 'sim-sub' : 'panel'} aria-labelledby={`sim-chart-h-${d.source}`}>
          <h2 id={`sim-chart-h-${d.source}`}>
            Cost against batch size <span className="muted">estimated time for n = 1 … 100,000, log–log</span>
          </h2>
          <CostChart curve={r.curve} results={ok} idSuffix={d.source} />
        </Section>
      )}
      <Section className={nested ? 'sim-sub' : 'panel'} aria-labelledby={`sim-fix-h-${d.source}`}>
        <h2 id={`sim-fix-h-${d.source}`}>What would fix it</h2>
        {r.fixes.length ? (
          <Fixes fixes={r.fixes} />
        ) : (
          <p className="muted">
            {r.input.kind === 'files'
              ? 'The fixes are for reftable stacks.'
              : 'No reftable git model was run: tick git-2.49, git-2.55 or git-2.56.'}
          </p>
        )}
        <div className="sim-explain">
          <h3>In plain words</h3>
          <p data-testid="sim-explanation">{withCode(r.explanation)}</p>
        </div>
      </Section>
    </div>
  );
});

function capital(s: string): string {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

/** Text with `code` spans (the engine's paragraph quotes commands in backticks); text only. */
function withCode(text: string): ReactNode[] {
  // "git ≤ 2.49" stays on one line.
  text = text.replace(/≤ /g, '≤\u00a0');
  return text
    .split(/`([^`]+)`/)
    .map((part, i) => (i % 2 ? <code key={i}>{part}</code> : <Fragment key={i}>{part}</Fragment>));
}

function ModelTable({ results, idSuffix }: { results: ModelResult[]; idSuffix: string }) {
  const [open, setOpen] = useState<Set<ModelName>>(new Set());
  const ok = results.filter((m) => m.applicable && m.seconds !== null);
  const fastest = Math.min(...ok.map((m) => m.seconds!));
  const showTables = ok.some((m) => m.tablesAfter !== null);
  const toggle = (m: ModelName) =>
    setOpen((s) => {
      const n = new Set(s);
      if (n.has(m)) n.delete(m);
      else n.add(m);
      return n;
    });
  const cols = 8 + (showTables ? 1 : 0);
  return (
    <div className="table-scroll">
      <table className="grid sim-table" data-testid="sim-table">
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col" className="num">
              Estimated time
            </th>
            <th scope="col" className="num">
              vs fastest
            </th>
            <th scope="col" className="num" title="one per table per merged seek, plus obj-index and reflog seeks">
              Table seeks
            </th>
            <th
              scope="col"
              className="num"
              title="index blocks + ref blocks read by seeks + ref blocks entered while iterating"
            >
              Blocks read
            </th>
            <th scope="col" className="num" title="linear scans inside seeks and every record a merged iterator pulls">
              Records decoded
            </th>
            <th scope="col" className="num" title="inside the merged iterator up to 2.55, by the caller from 2.56">
              Tombstones skipped
            </th>
            {showTables && (
              <th scope="col" className="num" title="tables in the stack after the workload">
                Tables after
              </th>
            )}
            <th
              scope="col"
              className="num"
              title="updates git would refuse (create of an existing ref, old value mismatch, name conflict)"
            >
              Refused
            </th>
          </tr>
        </thead>
        <tbody>
          {ok.map((m) => {
            const isOpen = open.has(m.model);
            const rel = m.seconds! / (fastest || 1);
            return (
              <Fragment key={m.model}>
                <tr data-testid="sim-row" data-model={m.model} className={isOpen ? 'open' : undefined}>
                  <th scope="row" className="sim-model-cell">
                    <button
                      type="button"
                      className="sim-expand"
                      aria-expanded={isOpen}
                      aria-controls={`sim-phases-${idSuffix}-${m.model}`}
                      onClick={() => toggle(m.model)}
                      title="Where the time goes (per phase)"
                    >
                      <span className="sim-caret" aria-hidden="true">
                        {isOpen ? '▾' : '▸'}
                      </span>
                      <ModelKey model={m.model} />
                      <span className="sim-model-name">{m.model}</span>
                    </button>
                    <span className="muted small sim-versions">{m.versions}</span>
                  </th>
                  <td className="num sim-secs" data-testid="sim-seconds" data-value={m.seconds!}>
                    {fmtSeconds(m.seconds)}
                  </td>
                  <td className="num muted">{m.seconds === fastest ? 'fastest' : fmtTimes(rel)}</td>
                  {m.model === 'files' ? (
                    <td colSpan={4} className="sim-files-counts" data-testid="sim-files-counts">
                      {m.counts ? (
                        <>
                          {fmtCount(m.counts.looseWrites)} loose ref files written · {fmtCount(m.counts.looseReads)}{' '}
                          loose reads · {fmtCount(m.counts.packedProbes)} packed-refs probes ·{' '}
                          {fmtCount(m.counts.packedRecords)} packed records
                        </>
                      ) : (
                        <span className="muted">no reftable tables: loose ref files and packed-refs</span>
                      )}
                    </td>
                  ) : (
                    <>
                      <td className="num" title={m.seeks === null ? '' : fmtInt(m.seeks)} data-value={m.seeks ?? ''}>
                        {fmtCount(m.seeks)}
                      </td>
                      <td
                        className="num"
                        title={m.blocksRead === null ? '' : fmtInt(m.blocksRead)}
                        data-value={m.blocksRead ?? ''}
                      >
                        {fmtCount(m.blocksRead)}
                      </td>
                      <td
                        className="num"
                        title={m.recordsDecoded === null ? '' : fmtInt(m.recordsDecoded)}
                        data-value={m.recordsDecoded ?? ''}
                      >
                        {fmtCount(m.recordsDecoded)}
                      </td>
                      <td
                        className="num"
                        title={m.tombstonesSkipped === null ? '' : fmtInt(m.tombstonesSkipped)}
                        data-value={m.tombstonesSkipped ?? ''}
                      >
                        {fmtCount(m.tombstonesSkipped)}
                      </td>
                    </>
                  )}
                  {showTables && <td className="num">{m.tablesAfter === null ? '—' : fmtInt(m.tablesAfter)}</td>}
                  <td className="num">
                    {m.errorCount ? (
                      <span className="warn-text">{fmtInt(m.errorCount)}</span>
                    ) : (
                      <span className="muted">0</span>
                    )}
                  </td>
                </tr>
                {isOpen && (
                  <tr className="sim-detail" id={`sim-phases-${idSuffix}-${m.model}`}>
                    <td colSpan={cols}>
                      <Phases m={m} />
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

const PHASE_COUNTS: { key: keyof Counts; label: string }[] = [
  { key: 'mergedSeeks', label: 'Merged seeks' },
  { key: 'seeks', label: 'Table seeks' },
  { key: 'recordsDecoded', label: 'Records decoded' },
  { key: 'tombstonesSkipped', label: 'Tombstones skipped' },
  { key: 'iterators', label: 'Iterators' },
];

function Phases({ m }: { m: ModelResult }) {
  const total = m.seconds || 1;
  const hasCounts = m.phases.some((p) => p.counts);
  const blocks = (c: Counts) => c.indexBlocks + c.leafBlocks + c.iterBlocks;
  return (
    <div className="sim-phases" data-testid="sim-phases">
      <p className="muted small">{capital(m.summary)}.</p>
      <table className="grid">
        <thead>
          <tr>
            <th scope="col">Phase</th>
            <th scope="col" className="num">
              Time
            </th>
            <th scope="col">Share</th>
            {hasCounts &&
              PHASE_COUNTS.map((c) => (
                <th key={c.key} scope="col" className="num">
                  {c.label}
                </th>
              ))}
            {hasCounts && (
              <th scope="col" className="num">
                Blocks read
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {m.phases.map((p) => (
            <tr key={p.phase} data-phase={p.phase}>
              <th scope="row">{capital(phaseWords(p.phase as Phase))}</th>
              <td className="num">{fmtSeconds(p.seconds)}</td>
              <td className="sim-share">
                <span className="sim-share-bar" aria-hidden="true">
                  <span style={{ width: `${Math.max(0.5, (100 * p.seconds) / total)}%` }} />
                </span>
                <span className="small">{fmtPct(p.seconds, total)}</span>
              </td>
              {hasCounts &&
                PHASE_COUNTS.map((c) => (
                  <td key={c.key} className="num" title={p.counts ? fmtInt(p.counts[c.key]) : ''}>
                    {p.counts ? fmtCount(p.counts[c.key]) : '—'}
                  </td>
                ))}
              {hasCounts && <td className="num">{p.counts ? fmtCount(blocks(p.counts)) : '—'}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Refusals({ results }: { results: ModelResult[] }) {
  const m = results.find((x) => x.errorCount > 0)!;
  return (
    <div className="note small sim-refusals" data-testid="sim-refusals">
      git would refuse {plural(m.errorCount, 'of these updates', 'of these updates')}; the estimates count the work as
      if it went on.
      {m.errors.length > 0 && (
        <ul>
          {m.errors.slice(0, 5).map((e, i) => (
            <li key={i} className="mono">
              {e}
            </li>
          ))}
          {m.errorCount > 5 && <li className="muted">… and {fmtInt(m.errorCount - 5)} more</li>}
        </ul>
      )}
    </div>
  );
}

function Fixes({ fixes }: { fixes: FixResult[] }) {
  const base = fixes[0];
  return (
    <>
      <p className="sim-fix-base">
        The same workload with <strong>{MODELS[base.model].versions}</strong> ({base.model},{' '}
        {fmtSeconds(base.baselineSeconds)}), changed one way at a time:
      </p>
      <ul className="sim-fixes">
        {fixes.map((f) => {
          const frac = f.seconds !== null && f.baselineSeconds > 0 ? Math.min(1, f.seconds / f.baselineSeconds) : null;
          return (
            <li
              key={f.fix}
              className={f.seconds === null ? 'na' : f.speedup !== null && f.speedup >= 1.05 ? 'good' : ''}
              data-testid="sim-fix"
              data-fix={f.fix}
              data-speedup={f.speedup ?? ''}
            >
              <div className="sim-fix-label">{withCode(fixLabel(f))}</div>
              <div className="sim-fix-figures">
                {f.seconds === null ? (
                  <span className="muted">does not apply</span>
                ) : (
                  <>
                    <span className="mono">
                      {fmtSeconds(f.baselineSeconds)} → <strong>{fmtSeconds(f.seconds)}</strong>
                    </span>
                    <span className={f.speedup !== null && f.speedup >= 1.05 ? 'sim-gain' : 'muted'}>
                      {fmtGain(f.speedup)}
                    </span>
                    {f.refStoreSpeedup && f.speedup && Math.abs(f.refStoreSpeedup / f.speedup - 1) > 0.05 ? (
                      <span className="muted small" data-testid="sim-fix-refstore" data-speedup={f.refStoreSpeedup}>
                        {' '}
                        (the ref store alone {fmtGain(f.refStoreSpeedup)}; the gain shown is on the whole run)
                      </span>
                    ) : null}
                  </>
                )}
              </div>
              {frac !== null && (
                <div className="sim-fix-bars" aria-hidden="true">
                  <span className="sim-bar base" />
                  <span className="sim-bar after" style={{ width: `${Math.max(0.4, frac * 100)}%` }} />
                </div>
              )}
              {f.note && <div className="muted small sim-fix-note">{f.note}</div>}
            </li>
          );
        })}
      </ul>
    </>
  );
}

const PART_WORDS: Record<CostPart, string> = {
  refStore: 'ref store',
  objects: 'objects',
  reflogs: 'reflogs',
  files: 'lock/rename/fsync',
  updates: 'per-update bookkeeping',
  startup: 'process start',
};

/** Where the time goes, inside and outside the ref store, per model ("ref store 45 %, objects 40 %, …"). */
function Parts({ results, note }: { results: ModelResult[]; note: string }) {
  return (
    <div className="sim-parts" data-testid="sim-parts">
      <h3>Ref store and outside it</h3>
      {results
        .filter((m) => m.parts?.length)
        .map((m) => (
          <div key={m.model} className="sim-parts-row" data-testid="sim-parts-row" data-model={m.model}>
            <strong>{m.model}</strong>
            <div>
              <div className="sim-parts-bar" aria-hidden="true">
                {m.parts!.map((p) => (
                  <span key={p.part} className={`sim-part-${p.part}`} style={{ width: `${100 * p.share}%` }} />
                ))}
              </div>
              <span className="small">
                {m
                  .parts!.filter((p) => p.share >= 0.005)
                  .map((p, i) => (
                    <span key={p.part} data-part={p.part} data-share={p.share}>
                      {i ? ', ' : ''}
                      {PART_WORDS[p.part]} {Math.round(100 * p.share)} %{p.estimate ? '*' : ''}
                    </span>
                  ))}
              </span>
            </div>
          </div>
        ))}
      <p className="muted small" data-testid="sim-outside-note">
        * an estimate. {note}
      </p>
    </div>
  );
}

function fixLabel(f: FixResult): string {
  switch (f.fix) {
    case 'pack-refs':
      return '`git pack-refs` (refscope’s own compaction of the whole stack)';
    case 'auto-compaction':
      return 'Auto-compaction: `git pack-refs --auto` (git’s geometric rule, by bytes)';
    case 'auto-compaction-by-records':
      return 'Auto-compaction if it compared record counts (proposed, not what git does)';
    case 'newer-git':
      return 'A newer git: 2.56 (tombstones reach the caller, which stops at its bound)';
    case 'no-warn-ambiguous-refs':
      return '`git -c core.warnAmbiguousRefs=false update-ref` (git ≤ 2.49)';
  }
}
