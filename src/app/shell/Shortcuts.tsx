/**
 * The app-wide overlays and their keys: `?` the help overlay, Ctrl/⌘+K the command palette.
 * Single keys do nothing while the user types in a field.
 */
import { useEffect, useState } from 'react';
import { isTyping } from '../lib/util.ts';
import { HelpOverlay } from './HelpOverlay.tsx';
import { CommandPalette } from './CommandPalette.tsx';

export function Shortcuts() {
  const [open, setOpen] = useState<'help' | 'palette' | null>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        setOpen((o) => (o === 'palette' ? null : 'palette'));
        return;
      }
      if (e.key === '?' && !e.ctrlKey && !e.metaKey && !e.altKey && !isTyping(e.target)) {
        e.preventDefault();
        setOpen((o) => (o === 'help' ? null : 'help'));
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  const close = () => setOpen(null);
  return (
    <>
      <button
        type="button"
        className="btn help-btn"
        data-testid="help-button"
        aria-label="Keyboard shortcuts (?)"
        title="Keyboard shortcuts (?)"
        onClick={() => setOpen('help')}
      >
        ?
      </button>
      {open === 'help' && <HelpOverlay onClose={close} />}
      {open === 'palette' && <CommandPalette onClose={close} />}
    </>
  );
}
