import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useFixedRows } from '../lib/fixedrows.ts';
import type { BlockSummary, TableLayout } from '../../engine/session/index.ts';
import { useApp } from '../shell/store.ts';
import { engine } from '../shell/engine.ts';
import { fmtBytes, fmtHex, fmtInt, fmtPct, plural } from '../lib/format.ts';
import { shortTableName, useAsync } from '../lib/util.ts';
import { BlockDetailView } from './BlockDetailView.tsx';

const SECTION_LABEL: Record<string, string> = {
  header: 'header',
  ref: 'ref',
  refIndex: 'ref index',
  obj: 'obj',
  objIndex: 'obj index',
  log: 'log',
  logIndex: 'log index',
  footer: 'footer',
  unread: 'not readable',
};

export function TableView() {
  const loaded = useApp((s) => s.loaded)!;
  const route = useApp((s) => s.route);
  const navigate = useApp((s) => s.navigate);
  const r = loaded.result.report;
  const tables = r?.tables ?? [];
  // A table selected by a link or a key may sit at the end of a long list: bring it into view.
  const listRef = useRef<HTMLOListElement>(null);
  useEffect(() => {
    listRef.current?.querySelector('.tl-item.selected')?.scrollIntoView({ block: 'nearest' });
  }, [route.t, loaded.id]);
  if (!r || !tables.length) {
    return (
      <div className="panel empty-note">
        No reftable tables in this input ({loaded.result.description || loaded.result.kind}).
      </div>
    );
  }
  const t = route.t !== null && route.t < tables.length ? route.t : tables.length - 1;
  return (
    <div className="table-view">
      <aside className="table-list panel" aria-label="Tables">
        <h2>
          Tables <span className="muted">newest first</span>
        </h2>
        <ol
          ref={listRef}
          onKeyDown={(e) => {
            if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
            e.preventDefault();
            // The list is newest first: down goes to an older table.
            const next = e.key === 'ArrowDown' ? Math.max(0, t - 1) : Math.min(tables.length - 1, t + 1);
            navigate({ t: next, b: null, r: null }, { replace: true });
            requestAnimationFrame(() => document.querySelector<HTMLElement>(`[data-table-index="${next}"]`)?.focus());
          }}
        >
          {tables
            .map((_, k) => tables.length - 1 - k)
            .map((i) => {
              const tr = tables[i];
              return (
                <li key={i}>
                  <button
                    type="button"
                    data-table-index={i}
                    className={i === t ? 'tl-item selected' : 'tl-item'}
                    aria-current={i === t}
                    tabIndex={i === t ? 0 : -1}
                    onClick={() => navigate({ t: i, b: null, r: null }, { replace: true })}
                    title={tr.name}
                  >
                    <span className="tl-name mono">
                      #{i} {shortTableName(tr.name)}
                    </span>
                    <span className="tl-meta">
                      {tr.error ? (
                        <span className="error-tag">unreadable</span>
                      ) : (
                        `${fmtBytes(tr.fileSize)} · ${tr.copyOf !== undefined ? `same file as position ${tr.copyOf}` : plural(tr.blocks.length, 'block')}`
                      )}
                    </span>
                  </button>
                </li>
              );
            })}
        </ol>
      </aside>
      <TableDetail key={`${loaded.id}:${t}`} tableIndex={t} loadId={loaded.id} />
    </div>
  );
}

function TableDetail({ tableIndex, loadId }: { tableIndex: number; loadId: number }) {
  const route = useApp((s) => s.route);
  const navigate = useApp((s) => s.navigate);
  const layout = useAsync<TableLayout | null>(() => engine().tableBlocks(tableIndex), [loadId, tableIndex]);
  const L = layout.data;
  if (layout.error)
    return (
      <div className="panel inline-error" role="alert">
        {layout.error}
      </div>
    );
  if (!L)
    return (
      <div className="panel table-detail">
        <div className="muted">Loading table…</div>
      </div>
    );
  if (!L.header) {
    return (
      <div className="panel table-detail">
        <h2 className="mono">{L.name}</h2>
        <div className="inline-error big" role="alert" data-testid="error">
          <strong>Cannot read this table:</strong>{' '}
          {L.error && L.error.offset >= 0 ? `at byte ${fmtInt(L.error.offset)}, ` : ''}expected{' '}
          {L.error?.expected ?? 'a readable table'}
        </div>
        <p className="muted">
          {L.path} · {fmtBytes(L.fileSize)}
        </p>
      </div>
    );
  }
  const b = route.b !== null && route.b < L.blocks.length ? route.b : null;
  const h = L.header;
  return (
    <div className="table-detail">
      <section className="panel">
        <h2 className="mono table-title" title={L.path}>
          {L.name}
        </h2>
        {L.error && <DamagedNote layout={L} />}
        <dl className="facts">
          <div>
            <dt>File size</dt>
            <dd>
              {fmtBytes(L.fileSize)} <span className="muted">({fmtInt(L.fileSize)} B)</span>
            </dd>
          </div>
          <div>
            <dt>Format</dt>
            <dd>
              v{h.version} · {h.hashId === 'sha1' ? 'SHA-1' : 'SHA-256'}
            </dd>
          </div>
          <div>
            <dt>Block size</dt>
            <dd>{h.blockSize ? fmtInt(h.blockSize) : 'unaligned (0)'}</dd>
          </div>
          <div>
            <dt>Update index</dt>
            <dd className="mono">
              {h.minUpdateIndex}
              {h.maxUpdateIndex !== h.minUpdateIndex ? `–${h.maxUpdateIndex}` : ''}
            </dd>
          </div>
          <div>
            <dt>Blocks</dt>
            <dd>{fmtInt(L.blocks.length)}</dd>
          </div>
          {L.footer && L.footer.objPosition > 0 && (
            <div>
              <dt>obj id length</dt>
              <dd>{L.footer.objIdLen} bytes</dd>
            </div>
          )}
        </dl>
        <SectionStrip layout={L} />
      </section>
      <section className="panel">
        <div className="panel-head">
          <h3>Block map</h3>
          <span className="muted small">
            one cell per block, in file order; fill = bytes used (block_len) of the bytes the block occupies · click or
            use arrow keys
          </span>
        </div>
        <BlockMap blocks={L.blocks} selected={b} onSelect={(i) => navigate({ b: i, r: null }, { replace: true })} />
      </section>
      {b !== null ? (
        <BlockDetailView
          key={`${loadId}:${tableIndex}:${b}`}
          layout={L}
          tableIndex={tableIndex}
          blockIndex={b}
          loadId={loadId}
        />
      ) : (
        <div className="panel empty-note">Select a block in the map to see its records and bytes.</div>
      )}
    </div>
  );
}

/**
 * What git does with a table that does not open (it refuses the whole stack), and what of it
 * refscope still reads: the blocks before the first bad byte, shown below as refscope's reading.
 */
function DamagedNote({ layout: L }: { layout: TableLayout }) {
  const e = L.error!;
  const r = L.readable;
  return (
    <div className="inline-error big" role="alert" data-testid="error">
      <p>
        <strong>Git cannot read this table:</strong> {e.offset >= 0 ? `at byte ${fmtInt(e.offset)}, ` : ''}expected{' '}
        {e.expected}.
      </p>
      {r && (
        <p data-testid="readable-part">
          refscope&apos;s reading, not git&apos;s:{' '}
          {L.blocks.length === 0
            ? 'no block parses'
            : L.blocks.length === 1
              ? '1 block parses'
              : `${fmtInt(L.blocks.length)} blocks parse`}
          , bytes 0–{fmtInt(r.upTo)} of {fmtInt(L.fileSize)}
          {r.stop
            ? `; the block walk stops at byte ${fmtInt(r.stop.offset)}: expected ${r.stop.expected}`
            : '; the rest is where the footer should be'}
          .
        </p>
      )}
    </div>
  );
}

function SectionStrip({ layout }: { layout: TableLayout }) {
  const total = layout.fileSize || 1;
  return (
    <div className="section-strip-wrap">
      <div
        className="section-strip"
        role="img"
        aria-label={layout.sections.map((s) => `${SECTION_LABEL[s.name]} ${fmtInt(s.end - s.start)} bytes`).join(', ')}
      >
        {layout.sections.map((s) => (
          <span
            key={s.name + s.start}
            className={`sec sec-${s.name}`}
            style={{ flexGrow: Math.max(s.end - s.start, total / 400) }}
            title={`${SECTION_LABEL[s.name]}: bytes ${fmtInt(s.start)}–${fmtInt(s.end)} (${fmtBytes(s.end - s.start)}, ${fmtPct(s.end - s.start, total)})`}
          />
        ))}
      </div>
      <ul className="legend">
        {layout.sections.map((s) => (
          <li key={s.name + s.start}>
            <span className={`swatch sec-${s.name}`} />
            {SECTION_LABEL[s.name]} <span className="muted">{fmtBytes(s.end - s.start)}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

const CELL = 16; // px, including the gap

function BlockMap({
  blocks,
  selected,
  onSelect,
}: {
  blocks: BlockSummary[];
  selected: number | null;
  onSelect: (i: number) => void;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(600);
  useEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(el.clientWidth));
    ro.observe(el);
    setWidth(el.clientWidth);
    return () => ro.disconnect();
  }, []);
  const cols = Math.max(1, Math.floor((width - 8) / CELL));
  const rows = Math.ceil(blocks.length / cols);
  // Rows of equal height (CELL): the same arithmetic virtual scrolling as the long lists.
  const v = useFixedRows(scrollRef, rows, CELL, 4);
  const { scrollToIndex } = v;
  useEffect(() => {
    if (selected !== null) scrollToIndex(Math.floor(selected / cols), 'auto');
  }, [selected, cols, scrollToIndex]);
  const onKey = (e: KeyboardEvent) => {
    const cur = selected ?? -1;
    let next = cur;
    if (e.key === 'ArrowRight') next = cur + 1;
    else if (e.key === 'ArrowLeft') next = cur - 1;
    else if (e.key === 'ArrowDown') next = cur < 0 ? 0 : cur + cols;
    else if (e.key === 'ArrowUp') next = cur - cols;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = blocks.length - 1;
    else return;
    e.preventDefault();
    next = Math.max(0, Math.min(blocks.length - 1, next));
    onSelect(next);
    requestAnimationFrame(() => scrollRef.current?.querySelector<HTMLElement>(`[data-block="${next}"]`)?.focus());
  };
  const sections = useMemo(() => [...new Set(blocks.map((b) => b.section))], [blocks]);
  return (
    <div>
      <div
        className="block-map"
        ref={scrollRef}
        onKeyDown={onKey}
        role="grid"
        aria-label="Blocks"
        aria-rowcount={rows}
        style={{ height: Math.min(rows * CELL + 8, 260) }}
      >
        <div style={{ height: v.totalHeight, position: 'relative' }}>
          {v.rows.map((row) => (
            <div key={row.index} role="row" className="bm-row" style={{ transform: `translateY(${row.top}px)` }}>
              {blocks.slice(row.index * cols, row.index * cols + cols).map((b) => {
                const used = b.type === 'log' ? 1 : b.blockLen / Math.max(1, b.fileBytes);
                const sel = b.index === selected;
                return (
                  <button
                    type="button"
                    role="gridcell"
                    key={b.index}
                    data-block={b.index}
                    data-testid="block-cell"
                    className={`bm-cell sec-${b.section}${sel ? ' selected' : ''}`}
                    aria-selected={sel}
                    tabIndex={sel || (selected === null && b.index === 0) ? 0 : -1}
                    onClick={() => onSelect(b.index)}
                    title={`block ${b.index} · ${b.type} (${b.section}) · offset ${fmtInt(b.offset)} · ${plural(b.recordCount, 'record')} · block_len ${fmtInt(b.blockLen)}${b.padding ? ` · padding ${fmtInt(b.padding)}` : ''}\n${b.firstKey} … ${b.lastKey}`}
                    aria-label={`Block ${b.index}, ${b.section}, ${b.recordCount} records`}
                  >
                    <span className="bm-fill" style={{ height: `${Math.round(used * 100)}%` }} />
                  </button>
                );
              })}
            </div>
          ))}
        </div>
      </div>
      <ul className="legend">
        {sections.map((s) => (
          <li key={s}>
            <span className={`swatch sec-${s}`} />
            {SECTION_LABEL[s]} <span className="muted">{fmtInt(blocks.filter((b) => b.section === s).length)}</span>
          </li>
        ))}
        {selected !== null && blocks[selected] && (
          <li className="muted">
            selected: block {selected} at {fmtHex(blocks[selected].offset)}
          </li>
        )}
      </ul>
    </div>
  );
}
