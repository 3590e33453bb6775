/**
 * Ctrl/⌘+K: jump to a view, a table, a block or a ref by typing part of its name (a fuzzy,
 * in-order match of the letters, as Perfetto UI's omnibox and editors' palettes match). Keyboard
 * only: ↑/↓ choose, Enter goes, Escape closes and focus goes back where it was. Refs are looked up
 * in the worker (a substring of the name), the first few; the page never holds the refs list.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useApp } from './store.ts';
import { VIEWS, type Route } from './route.ts';
import { engine } from './engine.ts';
import { fmtHex, plural } from '../lib/format.ts';
import { shortTableName } from '../lib/util.ts';
import { Modal } from './HelpOverlay.tsx';

export const VIEW_TITLES: Record<(typeof VIEWS)[number], string> = {
  overview: 'Overview',
  stack: 'Stack',
  table: 'Tables',
  refs: 'Refs',
  compaction: 'Compaction',
  simulator: 'Simulator',
  compare: 'Compare',
  watch: 'Watch',
  share: 'Share',
};

interface Item {
  id: string;
  group: 'View' | 'Table' | 'Block' | 'Ref';
  label: string;
  hint: string;
  to: Partial<Route>;
}

/** Most tables and blocks offered (a stack of thousands of tiny tables stays quick to filter). */
const MAX_STATIC = 5000;
/** Most rows shown at once. */
const SHOWN = 40;

/**
 * Score of `q` as an in-order subsequence of `s` (case-insensitive), higher is better, null when
 * it is not one: letters in a row and letters at the start of a word count more.
 */
export function fuzzyScore(q: string, s: string): number | null {
  const a = q.toLowerCase().replace(/\s+/g, '');
  if (!a) return 0;
  const b = s.toLowerCase();
  let score = 0,
    j = 0,
    prev = -2;
  for (const ch of a) {
    const k = b.indexOf(ch, j);
    if (k < 0) return null;
    score += 1 + (k === prev + 1 ? 3 : 0) + (k === 0 || /[\s/#._-]/.test(b[k - 1]) ? 2 : 0);
    prev = k;
    j = k + 1;
  }
  return score - b.length / 100;
}

export function CommandPalette({ onClose }: { onClose: () => void }) {
  const loaded = useApp((s) => s.loaded);
  const [q, setQ] = useState('');
  const [active, setActive] = useState(0);
  const [refs, setRefs] = useState<{ q: string; items: Item[] }>({ q: '', items: [] });
  const box = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLInputElement>(null);

  // A layout effect: the input has focus as the palette appears (a passive effect runs only
  // after a paint, when a key typed at once would have gone to the page).
  useLayoutEffect(() => {
    const back = document.activeElement as HTMLElement | null;
    input.current?.focus();
    return () => back?.focus?.();
  }, []);

  const statics = useMemo(() => {
    const out: Item[] = VIEWS.map((v, i) => ({
      id: `view-${v}`,
      group: 'View' as const,
      label: VIEW_TITLES[v],
      hint: `view · key ${i + 1}`,
      to: { view: v },
    }));
    const tables = loaded?.result.report?.tables ?? [];
    tables.forEach((t, i) => {
      if (out.length >= MAX_STATIC) return;
      out.push({
        id: `table-${i}`,
        group: 'Table',
        label: `Table #${i} ${shortTableName(t.name)}`,
        hint: `${t.name} · ${t.copyOf !== undefined ? `same file as position ${t.copyOf}` : plural(t.blocks.length, 'block')}`,
        to: { view: 'table', t: i, b: null, r: null },
      });
    });
    // A repeated line's blocks are its first position's: listed there only.
    tables.forEach((t, i) =>
      t.blocks.forEach((b, j) => {
        if (out.length >= MAX_STATIC) return;
        out.push({
          id: `block-${i}-${j}`,
          group: 'Block',
          label: `Table #${i} block ${j} (${b.type})`,
          hint: `${b.section} · offset ${fmtHex(b.offset)} · ${plural(b.recordCount, 'record')}`,
          to: { view: 'table', t: i, b: j, r: null },
        });
      }),
    );
    return out;
  }, [loaded]);

  // Refs whose name contains the text, from the worker (debounced: it may scan a million names).
  useEffect(() => {
    const text = q.trim();
    if (!loaded || text.length < 2) return;
    let live = true;
    const t = setTimeout(() => {
      engine()
        .refsPage({ filter: text, mode: 'substring', includeTombstones: false, offset: 0, limit: 12 })
        .then(
          (p) => {
            if (!live) return;
            setRefs({
              q: text,
              items: p.rows.map((r) => ({
                id: `ref-${r.name}`,
                group: 'Ref' as const,
                label: r.name,
                hint: `${r.kind}${r.oid ? ` · ${r.oid.slice(0, 12)}` : ''}`,
                to: { view: 'refs', q: r.name, m: 'prefix', x: false, ref: r.name },
              })),
            });
          },
          () => live && setRefs({ q: text, items: [] }),
        );
    }, 120);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [q, loaded]);

  const shown = useMemo(() => {
    const scored: { it: Item; s: number }[] = [];
    for (const it of statics) {
      const s = fuzzyScore(q, it.label);
      if (s !== null) scored.push({ it, s });
    }
    if (q.trim()) scored.sort((x, y) => y.s - x.s);
    const refItems = refs.q === q.trim() ? refs.items : [];
    return [...scored.slice(0, SHOWN).map((x) => x.it), ...refItems];
  }, [statics, q, refs]);

  const cur = Math.min(active, Math.max(0, shown.length - 1));
  const go = (it: Item | undefined) => {
    if (!it) return;
    onClose();
    useApp.getState().navigate(it.to);
  };

  return (
    <Modal testId="palette" className="palette" label="Command palette" box={box} onClose={onClose}>
      <input
        ref={input}
        className="palette-input"
        type="text"
        role="combobox"
        aria-expanded="true"
        aria-controls="palette-list"
        aria-autocomplete="list"
        aria-activedescendant={shown[cur] ? `pal-${cur}` : undefined}
        aria-label="Jump to a view, table, block or ref"
        placeholder="Jump to a view, table, block or ref…"
        spellCheck={false}
        autoComplete="off"
        value={q}
        data-testid="palette-input"
        onChange={(e) => {
          setQ(e.currentTarget.value);
          setActive(0);
        }}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            e.preventDefault();
            const n = shown.length;
            if (n) setActive((cur + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
          } else if (e.key === 'Enter') {
            e.preventDefault();
            go(shown[cur]);
          }
        }}
      />
      <ul className="palette-list" id="palette-list" role="listbox" aria-label="Places">
        {shown.map((it, i) => (
          <li
            key={it.id}
            id={`pal-${i}`}
            role="option"
            aria-selected={i === cur}
            className={i === cur ? 'palette-item active' : 'palette-item'}
            data-testid="palette-item"
            data-group={it.group}
            onMouseMove={() => i !== cur && setActive(i)}
            onClick={() => go(it)}
            ref={i === cur ? (el) => el?.scrollIntoView({ block: 'nearest' }) : undefined}
          >
            <span className="palette-group">{it.group}</span>
            <span className="palette-label mono">{it.label}</span>
            <span className="palette-hint">{it.hint}</span>
          </li>
        ))}
        {!shown.length && <li className="palette-empty">Nothing matches “{q}”.</li>}
      </ul>
    </Modal>
  );
}
