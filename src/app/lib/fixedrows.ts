/**
 * Virtual scrolling for lists of fixed-height rows, O(visible rows) per frame whatever the count.
 *
 * Used for the lists that can hold a million rows or more (refs, records, hex lines). A general
 * virtualizer (e.g. @tanstack/react-virtual) keeps per-row measurements, which costs O(count) every
 * time the count changes: about 100 ms at a million rows, a visible stall. Here a row's position is
 * arithmetic. Past `MAX_HEIGHT` pixels (browsers cap element heights around 33 million) the scroll
 * range is scaled: the scrollbar maps linearly onto the rows and rows are placed around the
 * viewport, so ten million rows scroll as well as ten.
 */
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';

export const MAX_HEIGHT = 8_000_000;

export interface FixedRow {
  index: number;
  /** Offset of the row's top inside the scrolled content, in pixels. */
  top: number;
}

export interface FixedRows {
  /** Height to give the content element. */
  totalHeight: number;
  rows: FixedRow[];
  /** Scroll so that row `i` is visible (`auto`: only if it is not). */
  scrollToIndex(i: number, align?: 'auto' | 'start'): void;
}

export function useFixedRows(
  ref: RefObject<HTMLElement | null>,
  count: number,
  rowHeight: number,
  overscan = 8,
): FixedRows {
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  const frame = useRef(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const onScroll = () => {
      if (frame.current) return;
      frame.current = requestAnimationFrame(() => {
        frame.current = 0;
        setScrollTop(el.scrollTop);
      });
    };
    const ro = new ResizeObserver(() => setHeight(el.clientHeight || 600));
    ro.observe(el);
    el.addEventListener('scroll', onScroll, { passive: true });
    setHeight(el.clientHeight || 600);
    setScrollTop(el.scrollTop);
    return () => {
      el.removeEventListener('scroll', onScroll);
      ro.disconnect();
      if (frame.current) cancelAnimationFrame(frame.current);
      frame.current = 0;
    };
  }, [ref]);

  const natural = count * rowHeight;
  const scaled = natural > MAX_HEIGHT;
  const totalHeight = scaled ? MAX_HEIGHT : natural;
  const visible = height / rowHeight;
  const maxScroll = Math.max(0, totalHeight - height);
  const maxFirst = Math.max(0, count - visible);
  const top = Math.min(scrollTop, maxScroll);
  // Fractional index of the row at the top of the viewport.
  const firstExact = scaled ? (maxScroll > 0 ? (top / maxScroll) * maxFirst : 0) : top / rowHeight;
  const first = Math.max(0, Math.floor(firstExact) - overscan);
  const last = Math.min(count - 1, Math.ceil(firstExact + visible) + overscan);
  const rows: FixedRow[] = [];
  for (let i = first; i <= last; i++) {
    rows.push({ index: i, top: scaled ? top + (i - firstExact) * rowHeight : i * rowHeight });
  }

  const scrollToIndex = useCallback(
    (i: number, align: 'auto' | 'start' = 'auto') => {
      const el = ref.current;
      if (!el || count <= 0) return;
      const idx = Math.max(0, Math.min(count - 1, i));
      const h = el.clientHeight || height;
      const nat = count * rowHeight;
      if (nat <= MAX_HEIGHT) {
        const y = idx * rowHeight;
        if (align === 'start' || y < el.scrollTop) el.scrollTop = y;
        else if (y + rowHeight > el.scrollTop + h) el.scrollTop = y + rowHeight - h;
        return;
      }
      const ms = Math.max(0, MAX_HEIGHT - h);
      const mf = Math.max(1, count - h / rowHeight);
      const cur = ms > 0 ? (el.scrollTop / ms) * mf : 0;
      if (align === 'start' || idx < cur) el.scrollTop = (idx / mf) * ms;
      else if (idx + 1 > cur + h / rowHeight) el.scrollTop = ((idx + 1 - h / rowHeight) / mf) * ms;
    },
    [ref, count, rowHeight, height],
  );

  return { totalHeight, rows, scrollToIndex };
}
