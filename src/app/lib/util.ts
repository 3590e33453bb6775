import { useEffect, useState } from 'react';

/** Result of a worker request tied to some inputs (`deps`): stale answers are dropped. */
export interface Async<T> {
  data: T | null;
  loading: boolean;
  error: string | null;
}

/** Run `fn` (a worker request) whenever `deps` change; `fn` returning null means "nothing to ask". */
export function useAsync<T>(fn: () => Promise<T> | null, deps: unknown[]): Async<T> {
  const [state, setState] = useState<Async<T>>({ data: null, loading: true, error: null });
  // New inputs start a new request: it is loading from this render on, the last answer kept until
  // the new one comes (state adjusted while rendering, as React's docs advise, not in the effect).
  const [asked, setAsked] = useState(deps);
  if (asked.length !== deps.length || asked.some((d, i) => !Object.is(d, deps[i]))) {
    setAsked(deps);
    setState((s) => ({ data: s.data, loading: true, error: null }));
  }
  useEffect(() => {
    let live = true;
    // Nothing to ask settles like an answer of nothing, so every update comes from a settlement.
    const p: Promise<T | null> = fn() ?? Promise.resolve(null);
    p.then(
      (data) => {
        if (live) setState({ data, loading: false, error: null });
      },
      (e: unknown) => {
        if (live) setState({ data: null, loading: false, error: (e as Error)?.message ?? String(e) });
      },
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  return state;
}

/** True when keyboard focus is in a text field (single-key shortcuts must not fire). */
export function isTyping(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  if (!el || !el.tagName) return false;
  const tag = el.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || el.isContentEditable;
}

/** Last path component. */
export function baseName(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/** Short form of a reftable file name: `0x000000000001-0x000000000003-e6483b4d.ref` → `1–3 e6483b4d`. */
export function shortTableName(name: string): string {
  const m = /^0x([0-9a-f]+)-0x([0-9a-f]+)-([0-9a-f]+)\.ref$/i.exec(name);
  if (!m) return name;
  const a = parseInt(m[1], 16),
    b = parseInt(m[2], 16);
  return `${a === b ? a : `${a}–${b}`} · ${m[3]}`;
}
