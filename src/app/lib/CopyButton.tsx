/**
 * A small "Copy" button next to a value the user may want elsewhere (an object id, a ref or table
 * name, the diagnosis, a command line). It says "Copied" for a moment; where the Clipboard API is
 * refused (a page that is not a secure context), a hidden text field and `execCommand` do it.
 */
import { useEffect, useState } from 'react';

export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const ta = document.createElement('textarea');
    ta.value = text;
    ta.setAttribute('readonly', '');
    ta.style.position = 'fixed';
    ta.style.opacity = '0';
    document.body.appendChild(ta);
    ta.select();
    try {
      return document.execCommand('copy');
    } catch {
      return false;
    } finally {
      ta.remove();
    }
  }
}

/** `what` names the value for screen readers and the tooltip: "Copy object id". */
export function CopyButton({ text, what }: { text: string; what: string }) {
  const [state, setState] = useState<'idle' | 'done' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = setTimeout(() => setState('idle'), 1500);
    return () => clearTimeout(t);
  }, [state]);
  return (
    <button
      type="button"
      className="copy-btn"
      data-testid="copy"
      data-copy={text}
      aria-label={`Copy ${what}`}
      title={`Copy ${what}`}
      onClick={(e) => {
        e.stopPropagation();
        void copyText(text).then((ok) => setState(ok ? 'done' : 'failed'));
      }}
    >
      <span aria-live="polite">{state === 'done' ? 'Copied' : state === 'failed' ? 'Not copied' : 'Copy'}</span>
    </button>
  );
}
