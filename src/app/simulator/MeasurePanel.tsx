/**
 * "Measure with your git": a button that saves the measure script for the picked workload
 * (src/engine/simulate/measure.ts: a throw-away copy of the ref store, the workload timed and
 * traced with the user's git before and after pack-refs, one JSON file), and a drop zone for that
 * file: predicted against measured side by side, per phase from the trace, and this machine's
 * factor, which the next runs can use. The file is read in the page; nothing is uploaded.
 */
import { useRef, useState, type DragEvent } from 'react';
import { downloadMeasureScript, loadMeasureFile, runProblem, setMachineFactor, useSim } from './simstore.ts';
import { fmtSeconds } from './simformat.ts';
import type { CompareRow } from '../../engine/simulate/measure.ts';

/** Largest measure file read (a few runs with their traces are a few kilobytes). */
const MAX_MEASURE_FILE = 4 * 1024 * 1024;

export function MeasurePanel({ kind }: { kind: 'reftable' | 'files' }) {
  const st = useSim();
  const fileRef = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const problem = runProblem(st, kind);
  const read = async (f: File) => {
    if (f.size > MAX_MEASURE_FILE) {
      useSim.setState({
        measured: {
          name: f.name,
          error: `${f.name}: offset 0: expected a measure file of at most 4 MB, found ${f.size.toLocaleString('en-US')} bytes`,
        },
      });
      return;
    }
    loadMeasureFile(f.name, await f.text());
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const f = e.dataTransfer.files[0];
    if (f) void read(f);
  };
  const m = st.measured;
  const factor = st.options.machineFactor;
  return (
    <section className="panel sim-measure" aria-labelledby="sim-measure-h" data-testid="sim-measure">
      <h2 id="sim-measure-h">
        Measure with your git <span className="muted">predicted against measured, on your machine</span>
      </h2>
      <p className="small">
        The script makes a throw-away copy of this repository&rsquo;s ref store (objects shared, only read), runs the
        workload with your git under <code>GIT_TRACE2_EVENT</code> before and after <code>git pack-refs</code> on the
        copy, and writes one JSON file. Run it as <code>bash refscope-measure.sh /path/to/repo</code>, then drop the
        file here. Nothing is uploaded.
      </p>
      <div className="sim-run-bar">
        <button
          type="button"
          className="btn"
          data-testid="sim-measure-script"
          disabled={!!problem || st.measureBusy}
          onClick={() => void downloadMeasureScript()}
          title={problem ?? 'Save the measure script'}
        >
          {st.measureBusy ? 'Writing the script…' : 'Save the measure script'}
        </button>
        <button type="button" className="btn" data-testid="sim-measure-open" onClick={() => fileRef.current?.click()}>
          Open a measure file…
        </button>
        <input
          ref={fileRef}
          type="file"
          accept=".json,application/json"
          hidden
          data-testid="sim-measure-file"
          onChange={(e) => {
            const f = e.currentTarget.files?.[0];
            if (f) void read(f);
            e.currentTarget.value = '';
          }}
        />
        {factor !== null && (
          <span className="small" data-testid="sim-machine-factor">
            Estimates use this machine&rsquo;s factor ×{factor.toPrecision(3)}.{' '}
            <button type="button" className="btn small" onClick={() => setMachineFactor(null)}>
              Drop it
            </button>
          </span>
        )}
      </div>
      {st.measureError && (
        <p className="inline-error" role="alert" data-testid="sim-measure-error">
          The script could not be written: {st.measureError}
        </p>
      )}
      <div
        className={`drop-zone small${over ? ' over' : ''}`}
        data-testid="sim-measure-drop"
        data-own-drop="true"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        Drop <code>refscope-measure.json</code> here
      </div>
      {m && 'error' in m && (
        <p className="inline-error" role="alert" data-testid="sim-measure-file-error">
          {m.error}
        </p>
      )}
      {m && 'comparison' in m && (
        <div data-testid="sim-measure-result">
          <p className="small">
            <strong>{m.comparison.git}</strong>, model {m.comparison.model}: {m.comparison.workload} (
            {m.comparison.runs} runs before and after pack-refs).
          </p>
          {(['before', 'after'] as const).map((ph) => (
            <table key={ph} className="small" data-testid={`sim-measure-${ph}`}>
              <caption>{ph === 'before' ? 'Before' : 'After'} pack-refs</caption>
              <thead>
                <tr>
                  <th scope="col">phase</th>
                  <th scope="col">predicted</th>
                  <th scope="col">measured</th>
                </tr>
              </thead>
              <tbody>
                {m.comparison[ph].map((r: CompareRow) => (
                  <tr
                    key={r.what}
                    data-what={r.what}
                    data-measured={r.measured ?? ''}
                    data-predicted={r.predicted ?? ''}
                  >
                    <th scope="row">{r.what}</th>
                    <td>{r.predicted === null ? '—' : fmtSeconds(r.predicted)}</td>
                    <td>
                      {r.measured === null
                        ? '—'
                        : r.unit === 'count'
                          ? r.measured.toLocaleString('en-US')
                          : `${fmtSeconds(r.measured)} ${r.unit === 'wall' ? 'wall' : 'CPU'}`}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ))}
          <p className="small">
            pack-refs: measured {m.comparison.gain.measured ? `×${m.comparison.gain.measured.toFixed(2)}` : '—'},
            predicted {m.comparison.gain.predicted ? `×${m.comparison.gain.predicted.toFixed(2)}` : '—'}.
            {m.comparison.factor !== null && (
              <>
                {' '}
                This machine&rsquo;s factor:{' '}
                <strong data-testid="sim-measure-factor">×{m.comparison.factor.toPrecision(3)}</strong>{' '}
                <button
                  type="button"
                  className="btn small"
                  data-testid="sim-measure-use"
                  onClick={() => setMachineFactor(Number(m.comparison.factor!.toPrecision(3)))}
                >
                  Use it for the next runs
                </button>
              </>
            )}
          </p>
          {m.comparison.failures.map((f) => (
            <p key={f} className="inline-error small">
              {f}
            </p>
          ))}
        </div>
      )}
    </section>
  );
}
