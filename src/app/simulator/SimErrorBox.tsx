/** A run's error: the update-ref input's byte offset, line and column, or the spec's or the worker's message. */
import { type RefObject } from 'react';
import { fmtInt } from '../lib/format.ts';
import { useSim, type SimState } from './simstore.ts';

export function SimErrorBox({
  error,
  textRef,
}: {
  error: NonNullable<SimState['error']>;
  textRef: RefObject<HTMLTextAreaElement | null>;
}) {
  const stdin = useSim((s) => s.stdin);
  const gen = useSim((s) => s.form.gen);
  const z = stdin.z;
  // The text box is on the page while the workload is typed update-ref input (not a file).
  const canShow = error.kind === 'stdin' && !stdin.file && gen === 'stdin';
  const showInInput = () => {
    const el = textRef.current;
    if (!el) return;
    // Byte offset (UTF-8) → position in the text.
    const enc = new TextEncoder();
    let bytes = 0,
      i = 0;
    const text = el.value;
    while (i < text.length && bytes < error.offset) {
      const cp = text.codePointAt(i)!;
      bytes += enc.encode(String.fromCodePoint(cp)).length;
      i += cp > 0xffff ? 2 : 1;
    }
    let end = text.indexOf('\n', i);
    if (end < 0) end = text.length;
    el.focus();
    el.setSelectionRange(i, Math.max(i + 1, end));
  };
  const col = error.column;
  const caret =
    error.kind === 'stdin' && col >= 1 && col <= error.lineText.length + 1 ? ' '.repeat(col - 1) + '^' : null;
  return (
    <div
      className="inline-error big sim-error"
      role="alert"
      data-testid="error"
      data-kind={error.kind}
      data-offset={error.offset}
    >
      {error.kind === 'stdin' ? (
        <>
          <p className="sim-error-head">
            <strong>The update-ref input cannot be read</strong> at byte offset{' '}
            <strong data-testid="error-offset">{fmtInt(error.offset)}</strong>, {z ? 'field' : 'line'}{' '}
            {fmtInt(error.line)}, column {fmtInt(col)} of{' '}
            {error.file.startsWith('(') ? 'the ' + error.file.slice(1, -1) : error.file}: expected {error.expected}
          </p>
          {error.lineText !== '' || caret ? (
            <pre className="sim-error-line">
              <code>{error.lineText || ' '}</code>
              {caret ? '\n' + caret : ''}
            </pre>
          ) : null}
          {canShow && (
            <button type="button" className="btn small" onClick={showInInput}>
              Show in the input
            </button>
          )}
        </>
      ) : (
        <p className="sim-error-head">
          <strong>{error.kind === 'spec' ? 'The workload is not valid:' : 'The simulation failed:'}</strong>{' '}
          {error.message}
        </p>
      )}
    </div>
  );
}
