/**
 * `?`: every keyboard shortcut of the app in one overlay (as Perfetto UI and speedscope do).
 * Escape, the close button or a click outside closes it; focus goes back where it was.
 */
import { useLayoutEffect, useRef, type ReactNode, type RefObject } from 'react';

/** Every shortcut, by where it works. Keep in step with the handlers (App.tsx and the views). */
export const SHORTCUTS: { where: string; keys: { keys: string[]; what: string }[] }[] = [
  {
    where: 'Anywhere',
    keys: [
      { keys: ['?'], what: 'this help' },
      { keys: ['Ctrl/⌘', 'K'], what: 'command palette: jump to a view, table, block or ref' },
      { keys: ['1', '…', '9'], what: 'Overview, Stack, Tables, Refs, Compaction, Simulator, Share, Watch, Compare' },
      { keys: ['Ctrl/⌘', 'O'], what: 'open files' },
      { keys: ['Ctrl/⌘', 'Shift', 'O'], what: 'open a folder' },
      { keys: ['Esc'], what: 'close a dialog, menu or selection' },
    ],
  },
  {
    where: 'View tabs',
    keys: [
      { keys: ['←', '→'], what: 'previous / next view' },
      { keys: ['Home', 'End'], what: 'first / last view' },
    ],
  },
  {
    where: 'Tables',
    keys: [
      { keys: ['↑', '↓'], what: 'newer / older table in the list' },
      { keys: ['←', '→', '↑', '↓'], what: 'move in the block map' },
      { keys: ['Home', 'End'], what: 'first / last block' },
      { keys: ['↑', '↓', 'Home', 'End'], what: 'records of the selected block' },
    ],
  },
  {
    where: 'Refs',
    keys: [
      { keys: ['↓'], what: 'from the filter into the list' },
      { keys: ['↑', '↓', 'PgUp', 'PgDn', 'Home', 'End'], what: 'move the selection' },
    ],
  },
  {
    where: 'Command palette',
    keys: [
      { keys: ['↑', '↓'], what: 'choose' },
      { keys: ['Enter'], what: 'go there' },
    ],
  },
];

/**
 * A modal dialog over the page: a click on the backdrop or Escape closes it, Tab stays inside.
 * `label` names it (`aria-label`), or `labelledBy` points at its heading.
 */
export function Modal(props: {
  testId: string;
  className: string;
  box: RefObject<HTMLDivElement | null>;
  onClose: () => void;
  label?: string;
  labelledBy?: string;
  children: ReactNode;
}) {
  const { onClose, box } = props;
  return (
    <div className="overlay" data-testid={props.testId} onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        className={`dialog ${props.className}`}
        role="dialog"
        aria-modal="true"
        aria-label={props.label}
        aria-labelledby={props.labelledBy}
        ref={box}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation();
            onClose();
          } else trapTab(e, box.current);
        }}
      >
        {props.children}
      </div>
    </div>
  );
}

/** Focus inside `el` cycles (Tab / Shift+Tab) while a modal dialog is open. */
export function trapTab(e: React.KeyboardEvent, el: HTMLElement | null): void {
  if (e.key !== 'Tab' || !el) return;
  const f = [...el.querySelectorAll<HTMLElement>('button, input, [href], [tabindex]:not([tabindex="-1"])')];
  if (!f.length) return;
  const first = f[0],
    last = f[f.length - 1];
  if (e.shiftKey && document.activeElement === first) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  }
}

export function HelpOverlay({ onClose }: { onClose: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  // A layout effect: focus moves as the overlay appears, not after a paint.
  useLayoutEffect(() => {
    const back = document.activeElement as HTMLElement | null;
    box.current?.querySelector<HTMLElement>('button')?.focus();
    return () => back?.focus?.();
  }, []);
  return (
    <Modal testId="help-overlay" className="help" labelledBy="help-title" box={box} onClose={onClose}>
      <div className="dialog-head">
        <h2 id="help-title">Keyboard shortcuts</h2>
        <button type="button" className="btn small" onClick={onClose} data-testid="help-close">
          Close
        </button>
      </div>
      <div className="help-groups">
        {SHORTCUTS.map((g) => (
          <section key={g.where} aria-labelledby={`help-${g.where.replace(/\W+/g, '-')}`}>
            <h3 id={`help-${g.where.replace(/\W+/g, '-')}`}>{g.where}</h3>
            <dl className="help-keys">
              {g.keys.map((k) => (
                <div key={k.what} data-testid="shortcut">
                  <dt>
                    {k.keys.map((x, i) => (
                      <kbd key={i}>{x}</kbd>
                    ))}
                  </dt>
                  <dd>{k.what}</dd>
                </div>
              ))}
            </dl>
          </section>
        ))}
      </div>
    </Modal>
  );
}
