/**
 * A view whose code loads on demand, in its own chunk, yet draws at once when its chunk is
 * already in: `React.lazy` suspends on the first render even after the import has finished,
 * which would flash a fallback on every first visit of a tab. `preload()` fetches the chunk
 * (the shell calls it for every view once the page has painted and is idle); until then the view
 * suspends (wrap it in `<Suspense>`), and a failed import throws to the view's error boundary.
 */
import { use, type ComponentType, type ReactElement } from 'react';

export interface LazyView<P> {
  (props: P): ReactElement;
  preload(): Promise<void>;
}

export function lazyView<P extends object>(load: () => Promise<ComponentType<P>>): LazyView<P> {
  let Loaded: ComponentType<P> | null = null;
  let pending: Promise<void> | null = null;
  const preload = () =>
    (pending ??= load().then((c) => {
      Loaded = c;
    }));
  function View(props: P): ReactElement {
    if (!Loaded) use(preload());
    const C = Loaded!;
    return <C {...props} />;
  }
  return Object.assign(View, { preload });
}
