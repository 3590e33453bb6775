/**
 * "The same from the command line": the `refscope` command that prints what a view shows, with a
 * copy button. The path is the dropped folder's name when the page knows it, `<path>` otherwise
 * (the page never sees where files live on disk).
 */
import { useApp } from './store.ts';
import type { ViewId } from './route.ts';
import { CopyButton } from '../lib/CopyButton.tsx';

const COMMAND: Partial<Record<ViewId, (p: string) => string>> = {
  overview: (p) => `refscope analyze ${p}`,
  stack: (p) => `refscope analyze ${p} --json`,
  table: (p) => `refscope analyze ${p} --json`,
  refs: (p) => `refscope refs ${p}`,
  compaction: (p) => `refscope compact ${p} --out compacted --auto`,
  simulator: (p) => `refscope simulate ${p} --workload recreate --model all`,
};

/** A shell word for the path: plain when it is safe, single-quoted otherwise. */
function word(s: string): string {
  return /^[\w./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function cliPath(label: string, kind: string, sample: string | null): string {
  if (sample) return kind === 'packed-refs' ? 'packed-refs' : 'reftable/';
  const folder = /folder (.+)$/.exec(label);
  if (folder) return word(folder[1]);
  if (kind === 'packed-refs') return 'packed-refs';
  return '<path>';
}

export function CliEquivalent({ view }: { view: ViewId }) {
  const loaded = useApp((s) => s.loaded);
  const make = COMMAND[view];
  if (!loaded || !make || loaded.share) return null;
  const cmd = make(cliPath(loaded.label, loaded.result.kind, loaded.sample));
  return (
    <div className="cli-equivalent" data-testid="cli-equivalent">
      <span className="muted">Command line:</span> <code>{cmd}</code> <CopyButton text={cmd} what="command line" />
    </div>
  );
}
