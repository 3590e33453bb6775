import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { initPwa } from './pwa.ts';
import { startUp, useApp, watchHash } from './store.ts';
import { watchDrops } from './drops.ts';
import './styles.css';

// Start-up before the first render: the engine worker's script, the sample list and then the
// sample's files are fetched while the shell draws, not after its first paint (where an effect
// of the first render would run).
watchHash();
void startUp();
// Drops are caught from now on, before the shell has drawn (drops.ts).
watchDrops();

// The first render in a task of its own: Preact renders synchronously, and evaluating the
// modules, starting the worker and drawing the shell in one task made it a long one.
setTimeout(() =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  ),
);

// The service worker: offline use, updates on the user's say-so (see pwa.ts). A page it already
// controls registers at once (updates are found as soon as possible). On a first visit its
// install fetches every asset and sample, which on a slow link would compete with the first
// analysis: it registers once that analysis is on screen (or the start-up failed), while the page
// is idle, and after 3 s at the latest (a page opened with nothing to load).
if (typeof navigator !== 'undefined' && navigator.serviceWorker?.controller) initPwa();
else {
  const idle = (f: () => void) =>
    'requestIdleCallback' in window ? requestIdleCallback(f, { timeout: 1000 }) : setTimeout(f, 0);
  const unsubscribe = useApp.subscribe((s) => {
    if (!s.loaded && !s.appError) return;
    unsubscribe();
    idle(initPwa);
  });
  setTimeout(() => {
    unsubscribe();
    initPwa();
  }, 3000);
}
