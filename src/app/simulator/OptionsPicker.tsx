/** Models and options of a run: which models, warnAmbiguousRefs, auto-compaction, the geometric factor, the user's git. */
import { MODELS, MODEL_NAMES, type ModelName } from '../../engine/simulate/models.ts';
import { applicableModels, factorOf, gitVersionInfo, setGitVersion, useSim, type SimState } from './simstore.ts';
import { ModelKey } from './ModelKey.tsx';

export function OptionsPicker({ kind, st }: { kind: 'reftable' | 'files'; st: SimState }) {
  const ok = applicableModels(kind);
  const models = st.models ?? ok;
  const o = st.options;
  const setO = (patch: Partial<SimState['options']>) =>
    useSim.setState((s) => ({ options: { ...s.options, ...patch } }));
  const toggle = (m: ModelName, on: boolean) => {
    const cur = new Set(models.filter((x) => ok.includes(x)));
    if (on) cur.add(m);
    else cur.delete(m);
    useSim.setState({ models: MODEL_NAMES.filter((x) => cur.has(x)) });
  };
  const factorOk = factorOf(o.factorText) !== null;
  const gv = gitVersionInfo(o.gitVersion);
  return (
    <fieldset className="sim-box sim-options">
      <legend>Models and options</legend>
      <ul className="sim-models">
        {MODEL_NAMES.map((m) => {
          const applies = ok.includes(m);
          const why = applies
            ? MODELS[m].summary
            : kind === 'reftable'
              ? 'needs a packed-refs file or a files-backend .git directory; this input is a reftable stack'
              : 'needs a reftable stack; this input is a files-backend repository';
          return (
            <li key={m} className={applies ? '' : 'disabled'}>
              <label className="check" title={why}>
                <input
                  type="checkbox"
                  data-testid={`sim-model-${m}`}
                  checked={applies && models.includes(m)}
                  disabled={!applies}
                  onChange={(e) => toggle(m, e.currentTarget.checked)}
                />
                <ModelKey model={m} />
                <span>
                  <strong>{m}</strong> <span className="muted small">{MODELS[m].versions}</span>
                </span>
              </label>
              {!applies && <div className="muted small sim-why">not applicable: {why}</div>}
            </li>
          );
        })}
      </ul>
      <label className="check sim-opt">
        <input
          type="checkbox"
          data-testid="sim-warn"
          checked={o.warnAmbiguousRefs}
          onChange={(e) => setO({ warnAmbiguousRefs: e.currentTarget.checked })}
        />
        <span>
          <code>core.warnAmbiguousRefs</code>{' '}
          <span className="muted small">
            on is git&rsquo;s default: up to 2.49, <code>update-ref</code> reads six names per object id
          </span>
        </span>
      </label>
      <label className="check sim-opt">
        <input
          type="checkbox"
          data-testid="sim-auto"
          checked={o.autoCompaction}
          onChange={(e) => setO({ autoCompaction: e.currentTarget.checked })}
        />
        <span>
          Auto-compaction after each commit <span className="muted small">(git&rsquo;s default)</span>
        </span>
      </label>
      <label className="field sim-opt">
        <span>Your git</span>
        <input
          type="text"
          value={o.gitVersion}
          placeholder="git version 2.55.0"
          spellCheck={false}
          aria-invalid={!!gv && 'error' in gv}
          data-testid="sim-git-version"
          onChange={(e) => setGitVersion(e.currentTarget.value)}
        />
        <span className="muted small" data-testid="sim-git-version-model">
          {!gv ? (
            <>
              what <code>git --version</code> prints: the fixes are then compared against your git (remembered in this
              browser)
            </>
          ) : 'error' in gv ? (
            gv.error
          ) : (
            <>
              <strong>{gv.info.model ?? 'files only'}</strong>
              {gv.info.alternative ? ` (or ${gv.info.alternative})` : ''}: {gv.info.note}
            </>
          )}
        </span>
      </label>
      <label className="field sim-opt">
        <span>Geometric factor</span>
        <input
          type="number"
          min={2}
          max={255}
          value={o.factorText}
          aria-invalid={!factorOk}
          data-testid="sim-factor"
          onChange={(e) => setO({ factorText: e.currentTarget.value })}
        />
        <span className="muted small">
          <code>reftable.geometricFactor</code>, 2..255 (default 2)
        </span>
      </label>
    </fieldset>
  );
}
