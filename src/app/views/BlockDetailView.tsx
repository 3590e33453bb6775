import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useFixedRows } from '../lib/fixedrows.ts';
import type { BlockDetail, RecordDetail, Span } from '../../engine/blockdetail.ts';
import { ROLE_NAMES } from '../../engine/blockdetail.ts';
import type { TableLayout } from '../../engine/session/index.ts';
import { useApp } from '../shell/store.ts';
import { engine } from '../shell/engine.ts';
import { fmtHex, fmtInt, plural } from '../lib/format.ts';
import { useAsync } from '../lib/util.ts';

const ROLE_LABEL: Record<string, string> = {
  fileHeader: 'file header',
  blockHeader: 'block header',
  prefix: 'prefix length',
  suffixLen: 'suffix length · type',
  suffix: 'key suffix',
  value: 'value',
  restartTable: 'restart offsets',
  restartCount: 'restart count',
  padding: 'padding',
  unknown: 'not decoded',
};

const KIND_LABEL: Record<string, string> = {
  tombstone: 'deletion',
  ref: 'ref',
  peeled: 'ref+peeled',
  symref: 'symref',
  index: 'index',
  obj: 'obj',
  log: 'log',
  'log-deletion': 'log deletion',
};

function valueSummary(rec: RecordDetail): string {
  const f = (label: string) => rec.fields.find((x) => x.label === label)?.text ?? '';
  switch (rec.kind) {
    case 'tombstone':
      return `deleted · ${f('update_index delta').replace(/^\d+ \((.*)\)$/, '$1')}`;
    case 'ref':
      return f('object id');
    case 'peeled':
      return `${f('object id').slice(0, 12)} ^${f('peeled id').slice(0, 12)}`;
    case 'symref':
      return `→ ${f('target')}`;
    case 'index':
      return `→ block at ${f('block position')}`;
    case 'obj':
      return rec.fields
        .filter((x) => x.label !== 'position count')
        .map((x) => x.text.split(' ').pop())
        .join(', ');
    case 'log':
      return `${f('old id').slice(0, 8)}→${f('new id').slice(0, 8)} ${f('message').trim()}`;
    case 'log-deletion':
      return 'log deletion';
  }
}

export function BlockDetailView({
  layout,
  tableIndex,
  blockIndex,
  loadId,
}: {
  layout: TableLayout;
  tableIndex: number;
  blockIndex: number;
  loadId: number;
}) {
  const route = useApp((s) => s.route);
  const navigate = useApp((s) => s.navigate);
  const q = useAsync<BlockDetail | null>(
    () => engine().blockDetail(tableIndex, blockIndex),
    [loadId, tableIndex, blockIndex],
  );
  const d = q.data;
  const [hoverSpan, setHoverSpan] = useState<Span | null>(null);
  const selected = d && route.r !== null && route.r < d.records.length ? route.r : null;
  const select = (i: number | null) => navigate({ r: i }, { replace: true });

  if (q.error)
    return (
      <div className="panel inline-error" role="alert">
        {q.error}
      </div>
    );
  if (!d) return <div className="panel muted">Decoding block {blockIndex}…</div>;
  const info = layout.blocks[blockIndex];
  const rec = selected !== null ? d.records[selected] : null;
  const blockAt = (pos: number) => layout.blocks.findIndex((b) => b.offset === pos);
  return (
    <section className="panel block-detail" aria-label={`Block ${blockIndex}`}>
      <div className="panel-head">
        <h3>
          Block {blockIndex}{' '}
          <span className="muted">
            · {d.type}
            {d.section !== d.type ? ` (${d.section})` : ''}
          </span>
        </h3>
        <div className="bd-nav">
          <button
            type="button"
            className="btn small"
            disabled={blockIndex === 0}
            onClick={() => navigate({ b: blockIndex - 1, r: null }, { replace: true })}
          >
            ← previous
          </button>
          <button
            type="button"
            className="btn small"
            disabled={blockIndex >= layout.blocks.length - 1}
            onClick={() => navigate({ b: blockIndex + 1, r: null }, { replace: true })}
          >
            next →
          </button>
        </div>
      </div>
      {layout.error && (
        <p className="muted small" data-testid="block-refscope-reading">
          refscope&apos;s reading of a block of a table git cannot open (git reads none of it).
        </p>
      )}
      <dl className="facts small-facts">
        <div>
          <dt>Offset</dt>
          <dd className="mono">
            {fmtInt(d.fileOffset)} ({fmtHex(d.fileOffset)})
          </dd>
        </div>
        <div>
          <dt>block_len</dt>
          <dd>{fmtInt(d.blockLen)}</dd>
        </div>
        <div>
          <dt>In file</dt>
          <dd>
            {plural(d.fileBytes, 'byte')}
            {d.inflated ? ' compressed' : ''}
          </dd>
        </div>
        <div>
          <dt>Records</dt>
          <dd data-testid="block-records">
            {d.recordsCutAt !== undefined
              ? `${fmtInt(d.recordCount)} (the first ${fmtInt(d.records.length)} listed)`
              : fmtInt(d.records.length)}
          </dd>
        </div>
        <div>
          <dt>Restarts</dt>
          <dd>{fmtInt(d.restartOffsets.length)}</dd>
        </div>
        <div>
          <dt>Padding</dt>
          <dd>{plural(d.padding ? d.padding.end - d.padding.start : 0, 'byte')}</dd>
        </div>
      </dl>
      {d.inflated && (
        <p className="note small">
          Log block: the records are zlib-compressed in the file; shown here inflated ({fmtInt(d.bytes.length)} bytes).
          Offsets in the hex view are relative to the block start.
        </p>
      )}
      {d.error && (
        <div className="inline-error" role="alert">
          At {d.inflated ? 'inflated byte' : 'byte'} {fmtInt(d.error.offset)}: expected {d.error.expected}
        </div>
      )}
      {info && info.firstKey && (
        <p className="muted small keys-range">
          Keys <span className="mono">{info.firstKey}</span> … <span className="mono">{info.lastKey}</span>
        </p>
      )}
      <div className="bd-grid">
        <RecordList detail={d} selected={selected} onSelect={select} />
        <HexView detail={d} selected={selected} onSelect={select} highlight={hoverSpan} />
      </div>
      {rec && (
        <div className="record-fields">
          <h4>
            Record {rec.index}{' '}
            <span className="muted">
              · {KIND_LABEL[rec.kind]} · bytes {rec.start}–{rec.end} of the block{rec.restart ? ' · restart point' : ''}
            </span>
          </h4>
          <div className="key-line mono" title="full key">
            {rec.key}
          </div>
          <table className="grid fields-grid">
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Bytes</th>
                <th scope="col">Raw</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {[
                { label: 'prefix length', span: rec.prefix, text: String(rec.prefixLength), role: 'prefix' },
                {
                  label: 'suffix length · value type',
                  span: rec.suffixLen,
                  text: `${rec.suffixLength} · type ${rec.valueType}`,
                  role: 'suffixLen',
                },
                { label: 'key suffix', span: rec.suffix, text: '', role: 'suffix' },
                ...rec.fields.map((f) => ({
                  label: f.label,
                  span: { start: f.start, end: f.end },
                  text: f.text,
                  role: 'value',
                })),
              ].map((f, k) => (
                <tr key={k} onMouseEnter={() => setHoverSpan(f.span)} onMouseLeave={() => setHoverSpan(null)}>
                  <td>
                    <span className={`swatch r-${f.role}`} />
                    {f.label}
                  </td>
                  <td className="mono muted">
                    {f.span.start}–{f.span.end}
                  </td>
                  <td className="mono raw">{hexOf(d.bytes, f.span)}</td>
                  <td className="mono val">
                    {f.label === 'key suffix' ? <SuffixText rec={rec} /> : f.text}
                    {f.label === 'block position' && blockAt(Number(f.text)) >= 0 && (
                      <button
                        type="button"
                        className="link"
                        onClick={() => navigate({ b: blockAt(Number(f.text)), r: null }, { replace: true })}
                      >
                        {' '}
                        go to block {blockAt(Number(f.text))}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ul className="legend hex-legend">
        {ROLE_NAMES.filter((n) => n !== 'unknown').map((n) => (
          <li key={n}>
            <span className={`swatch r-${n}`} />
            {ROLE_LABEL[n]}
          </li>
        ))}
        <li>
          <span className="swatch rec-start" />
          record start
        </li>
        <li>
          <span className="swatch restart-mark" />
          restart point
        </li>
      </ul>
    </section>
  );
}

function SuffixText({ rec }: { rec: RecordDetail }) {
  // The key is already Unicode text; show which part is the stored suffix (by bytes, approximately by chars for ASCII).
  const shared = rec.prefixLength;
  const key = rec.key;
  if (shared <= key.length) {
    return (
      <>
        <span className="muted">{key.slice(0, shared)}</span>
        {key.slice(shared)}
      </>
    );
  }
  return <>{key}</>;
}

function hexOf(b: Uint8Array, s: Span): string {
  const n = Math.min(s.end - s.start, 40);
  let out = '';
  for (let i = 0; i < n; i++) out += (i ? ' ' : '') + b[s.start + i].toString(16).padStart(2, '0');
  return out + (s.end - s.start > n ? ' …' : '');
}

const REC_ROW = 24;

function RecordList({
  detail,
  selected,
  onSelect,
}: {
  detail: BlockDetail;
  selected: number | null;
  onSelect: (i: number | null) => void;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const recs = detail.records;
  const v = useFixedRows(ref, recs.length, REC_ROW, 10);
  const scrollTo = v.scrollToIndex;
  useEffect(() => {
    if (selected !== null) scrollTo(selected);
  }, [selected, scrollTo]);
  const onKey = (e: KeyboardEvent) => {
    if (!recs.length) return;
    let n = selected ?? -1;
    if (e.key === 'ArrowDown') n = Math.min(recs.length - 1, n + 1);
    else if (e.key === 'ArrowUp') n = Math.max(0, n - 1);
    else if (e.key === 'Home') n = 0;
    else if (e.key === 'End') n = recs.length - 1;
    else if (e.key === 'Escape') {
      onSelect(null);
      return;
    } else return;
    e.preventDefault();
    onSelect(n);
  };
  return (
    <div className="records">
      <div className="rec-head" aria-hidden="true">
        <span>#</span>
        <span>at</span>
        <span title="prefix length">pfx</span>
        <span title="suffix length">sfx</span>
        <span>kind</span>
        <span>key</span>
        <span>value</span>
      </div>
      <div
        className="rec-scroll"
        ref={ref}
        tabIndex={0}
        onKeyDown={onKey}
        role="listbox"
        aria-label="Records"
        aria-activedescendant={selected !== null ? `rec-${selected}` : undefined}
      >
        <div style={{ height: v.totalHeight, position: 'relative' }}>
          {v.rows.map((it) => {
            const r = recs[it.index];
            return (
              <div
                key={it.index}
                id={`rec-${it.index}`}
                role="option"
                aria-selected={selected === it.index}
                data-testid="record-row"
                className={`rec-row${selected === it.index ? ' selected' : ''}${r.restart ? ' restart' : ''} kind-${r.kind}`}
                style={{ transform: `translateY(${it.top}px)` }}
                onClick={() => onSelect(selected === it.index ? null : it.index)}
              >
                <span className="muted">{it.index}</span>
                <span className="mono muted">{r.start}</span>
                <span className="mono">{r.prefixLength}</span>
                <span className="mono">{r.suffixLength}</span>
                <span className={`kind-badge k-${r.kind}`}>{KIND_LABEL[r.kind]}</span>
                <span className="mono key" title={r.key}>
                  {r.key}
                </span>
                <span className="mono muted value" title={valueSummary(r)}>
                  {valueSummary(r)}
                </span>
              </div>
            );
          })}
        </div>
        {!recs.length && <div className="muted pad">No records decoded.</div>}
      </div>
    </div>
  );
}

const HEX_ROW = 20;
const PER_ROW = 16;

function HexView({
  detail,
  selected,
  onSelect,
  highlight,
}: {
  detail: BlockDetail;
  selected: number | null;
  onSelect: (i: number | null) => void;
  highlight: Span | null;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const bytes = detail.bytes;
  const rows = Math.ceil(bytes.length / PER_ROW);
  const [hover, setHover] = useState<number>(-1);
  const v = useFixedRows(ref, rows, HEX_ROW, 8);
  const scrollTo = v.scrollToIndex;
  const restartStarts = useMemo(() => new Set(detail.restartOffsets), [detail]);
  const recStarts = useMemo(() => new Set(detail.records.map((r) => r.start)), [detail]);
  const sel = selected !== null ? detail.records[selected] : null;
  useEffect(() => {
    if (sel) scrollTo(Math.floor(sel.start / PER_ROW));
  }, [sel, scrollTo]);
  const hoverRec = hover >= 0 ? detail.recordOf[hover] : -1;
  return (
    <div className="hex">
      <div className="hex-head" aria-hidden="true">
        <span>{detail.inflated ? 'block +' : 'offset'}</span>
        <span className="hex-cols">
          {Array.from({ length: PER_ROW }, (_, i) => (
            <span key={i}>{i.toString(16)}</span>
          ))}
        </span>
        <span>text</span>
      </div>
      <div
        className="hex-scroll"
        ref={ref}
        tabIndex={0}
        aria-label="Block bytes (hex)"
        data-testid="hex-view"
        onMouseLeave={() => setHover(-1)}
      >
        <div style={{ height: v.totalHeight, position: 'relative' }}>
          {v.rows.map((it) => {
            const start = it.index * PER_ROW;
            const end = Math.min(bytes.length, start + PER_ROW);
            const cells = [];
            const text = [];
            for (let i = start; i < end; i++) {
              const role = ROLE_NAMES[detail.roles[i]];
              const rec = detail.recordOf[i];
              let cls = `hb r-${role}`;
              if (recStarts.has(i)) cls += ' rec-start';
              if (restartStarts.has(i)) cls += ' restart-start';
              if (sel && i >= sel.start && i < sel.end) cls += ' in-sel';
              else if (rec >= 0 && rec === hoverRec) cls += ' in-hover';
              if (highlight && i >= highlight.start && i < highlight.end) cls += ' in-field';
              const byte = bytes[i];
              cells.push(
                <span
                  key={i}
                  className={cls}
                  onMouseEnter={() => setHover(i)}
                  onClick={() => {
                    if (rec >= 0) onSelect(rec);
                  }}
                  title={`${detail.inflated ? 'block +' : 'byte '}${detail.inflated ? i : detail.fileOffset + i} (block +${i}): ${role}${rec >= 0 ? `, record ${rec}` : ''}`}
                >
                  {byte.toString(16).padStart(2, '0')}
                </span>,
              );
              text.push(
                <span key={i} className={`ht r-${role}${sel && i >= sel.start && i < sel.end ? ' in-sel' : ''}`}>
                  {byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : '·'}
                </span>,
              );
            }
            return (
              <div key={it.index} className="hex-row" style={{ transform: `translateY(${it.top}px)` }}>
                <span className="hex-off mono">
                  {detail.inflated ? fmtHex(start, 4) : fmtHex(detail.fileOffset + start, 8)}
                </span>
                <span className="hex-bytes mono">{cells}</span>
                <span className="hex-text mono">{text}</span>
              </div>
            );
          })}
        </div>
      </div>
      <div className="hex-status small muted" aria-live="off">
        {hover >= 0
          ? `${detail.inflated ? 'block +' + hover : 'byte ' + fmtInt(detail.fileOffset + hover) + ' (block +' + hover + ')'} · ${ROLE_LABEL[ROLE_NAMES[detail.roles[hover]]]}${hoverRec >= 0 ? ` · record ${hoverRec}: ${detail.records[hoverRec].key}` : ''}`
          : 'Hover a byte to see what it is; click to select its record.'}
      </div>
    </div>
  );
}
