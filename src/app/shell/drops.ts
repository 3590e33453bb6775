/**
 * Files reaching the app: what a drop, a file picker or the OS (file handlers) gives goes through
 * `loadInputs`, and a drop anywhere on the window is caught by `watchDrops`.
 *
 * `watchDrops` is started by main.tsx before the first render, not by an effect of the shell: the
 * shell draws in a task of its own, and a file dropped before it would otherwise be opened by the
 * browser itself (the page navigates away to the file) or lost.
 */
import { useApp } from './store.ts';
import { isScanDrop, useFleet } from '../fleet/store.ts';
import { takeDrop, walkDrop } from './input.ts';
import type { WorkerInput } from './engine.ts';

function labelFor(inputs: WorkerInput[], how: string): string {
  const tops = new Set(inputs.map((i) => i.path.split('/')[0]));
  if (inputs.length && [...tops].length === 1 && inputs[0].path.includes('/')) return `${how} folder ${[...tops][0]}/`;
  if (inputs.length === 1) return `${how} ${inputs[0].path}`;
  return `${how} ${inputs.length} files`;
}

/** Load what the user gave: a scan result opens the fleet view, anything else is a repository. */
export function loadInputs(inputs: WorkerInput[], how: string): void {
  if (!inputs.length) {
    useApp.setState({ appError: 'Nothing to read: no files were given (empty folder?).' });
    return;
  }
  if (isScanDrop(inputs)) {
    const f = inputs[0];
    void useFleet.getState().open('blob' in f ? f.blob : new Blob([f.buffer]), f.path.split('/').pop()!);
    return;
  }
  useFleet.getState().close();
  void useApp.getState().load(inputs, labelFor(inputs, how));
}

/** Drop anywhere on the window. Returns the function that stops watching. */
export function watchDrops(): () => void {
  let depth = 0;
  const hasFiles = (e: DragEvent) => !!e.dataTransfer && Array.from(e.dataTransfer.types).includes('Files');
  // A drop zone of a view (`data-own-drop`, e.g. the simulator's stdin box) takes its files itself.
  const ownDrop = (e: DragEvent) => e.target instanceof Element && !!e.target.closest('[data-own-drop]');
  const enter = (e: DragEvent) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth++;
    useApp.getState().setDragging(!ownDrop(e));
  };
  const over = (e: DragEvent) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    useApp.getState().setDragging(!ownDrop(e));
  };
  const leave = (e: DragEvent) => {
    if (!hasFiles(e)) return;
    depth = Math.max(0, depth - 1);
    if (!depth) useApp.getState().setDragging(false);
  };
  const drop = (e: DragEvent) => {
    if (!e.dataTransfer) return;
    e.preventDefault();
    depth = 0;
    useApp.getState().setDragging(false);
    if (ownDrop(e)) return;
    // The items are read now: a DataTransfer is emptied once its event has been dispatched.
    const pending = takeDrop(e.dataTransfer);
    walkDrop(pending).then(
      (inputs) => loadInputs(inputs, 'dropped'),
      (err: unknown) =>
        useApp.setState({ appError: `Could not read the dropped files: ${(err as Error)?.message ?? err}` }),
    );
  };
  window.addEventListener('dragenter', enter);
  window.addEventListener('dragover', over);
  window.addEventListener('dragleave', leave);
  window.addEventListener('drop', drop);
  return () => {
    window.removeEventListener('dragenter', enter);
    window.removeEventListener('dragover', over);
    window.removeEventListener('dragleave', leave);
    window.removeEventListener('drop', drop);
  };
}
