/** The workload picker: a generated workload or `git update-ref --stdin` input (typed or dropped). */
import { useMemo, useRef, useState, type DragEvent, type ReactNode, type RefObject } from 'react';
import { type Loaded } from '../shell/store.ts';
import { fmtBytes, fmtInt, plural } from '../lib/format.ts';
import { useSim } from './simstore.ts';
import type { Gen, LookupWhich, WorkloadForm } from './simspec.ts';

/** Largest stdin file shown as editable text (bigger ones are used as they are). */
const MAX_TEXT_FILE = 512 * 1024;

const GENS: { gen: Gen; label: string }[] = [
  { gen: 'recreate', label: 'Re-create every ref a tombstone hides' },
  { gen: 'create', label: 'Create new refs' },
  { gen: 'delete-all', label: 'Delete every ref' },
  { gen: 'lookup', label: 'Read refs' },
  { gen: 'scan', label: 'Prefix scan' },
  { gen: 'oid', label: 'Lookups by object id' },
  { gen: 'stdin', label: 'git update-ref --stdin input' },
];

function setForm(patch: Partial<WorkloadForm>): void {
  useSim.setState((s) => ({ form: { ...s.form, ...patch } }));
}

export function WorkloadPicker({
  loaded,
  kind,
  textRef,
}: {
  loaded: Loaded;
  kind: 'reftable' | 'files';
  textRef: RefObject<HTMLTextAreaElement | null>;
}) {
  const form = useSim((s) => s.form);
  const st = loaded.result.report?.stack ?? null;
  const hiding = st?.tombstonesHiding ?? 0;
  const live = st ? st.live : loaded.result.refCount;
  const tombs = st?.tombstones ?? 0;
  const namespaces = useMemo(
    () =>
      Object.entries(st?.namespaces ?? {})
        .filter(([k]) => k.startsWith('refs/'))
        .sort((a, b) => b[1] - a[1])
        .slice(0, 12)
        .map(([k]) => `${k}/`),
    [st],
  );
  const txMatters = form.gen === 'recreate' || form.gen === 'create' || form.gen === 'delete-all';
  const pick = (gen: Gen) => setForm({ gen });
  const detail: Record<Gen, ReactNode> = {
    recreate:
      hiding > 0 ? (
        <>
          {plural(hiding, 'ref')} hidden by tombstones, re-created with the values they had (the mailing-list case:
          everything deleted, then created again)
        </>
      ) : (
        <>no tombstone on this {kind === 'files' ? 'repository' : 'stack'} hides a ref: nothing to re-create</>
      ),
    create: (
      <span className="sim-inline">
        <input
          type="number"
          min={1}
          max={10_000_000}
          aria-label="Refs to create"
          data-testid="sim-create-n"
          value={form.createN}
          onFocus={() => pick('create')}
          onChange={(e) => setForm({ createN: e.currentTarget.value, gen: 'create' })}
        />
        <span>refs named</span>
        <input
          type="text"
          className="mono"
          aria-label="Name prefix"
          spellCheck={false}
          data-testid="sim-create-prefix"
          value={form.createPrefix}
          onFocus={() => pick('create')}
          onChange={(e) => setForm({ createPrefix: e.currentTarget.value, gen: 'create' })}
        />
        <span className="muted">0, 1, 2, …</span>
      </span>
    ),
    'delete-all': (
      <>
        delete the {plural(live, 'live ref')} under <code>refs/</code>
      </>
    ),
    lookup: (
      <span className="sim-inline">
        {form.lookupWhich !== 'names' && (
          <input
            type="number"
            min={1}
            max={10_000_000}
            aria-label="Reads"
            data-testid="sim-lookup-n"
            value={form.lookupN}
            onFocus={() => pick('lookup')}
            onChange={(e) => setForm({ lookupN: e.currentTarget.value, gen: 'lookup' })}
          />
        )}
        <span>reads of</span>
        <select
          aria-label="Which names"
          data-testid="sim-lookup-which"
          value={form.lookupWhich}
          onFocus={() => pick('lookup')}
          onChange={(e) => setForm({ lookupWhich: e.currentTarget.value as LookupWhich, gen: 'lookup' })}
        >
          <option value="existing">existing names ({fmtInt(live)})</option>
          <option value="missing">missing names</option>
          <option value="tombstoned" disabled={!tombs}>
            tombstoned names ({fmtInt(tombs)})
          </option>
          <option value="names">names I give</option>
        </select>
        {form.lookupWhich === 'names' && (
          <textarea
            className="mono sim-names"
            rows={3}
            aria-label="Ref names to read, one per line"
            spellCheck={false}
            value={form.lookupNames}
            placeholder={'refs/heads/main\nrefs/tags/v1.0'}
            onFocus={() => pick('lookup')}
            onChange={(e) => setForm({ lookupNames: e.currentTarget.value, gen: 'lookup' })}
          />
        )}
        <span className="muted">spread evenly over the stack</span>
      </span>
    ),
    scan: (
      <span className="sim-inline">
        <code>for-each-ref</code>
        <input
          type="text"
          className="mono"
          aria-label="Scan prefix"
          list="sim-ns"
          spellCheck={false}
          data-testid="sim-scan-prefix"
          value={form.scanPrefix}
          placeholder="(all refs)"
          onFocus={() => pick('scan')}
          onChange={(e) => setForm({ scanPrefix: e.currentTarget.value, gen: 'scan' })}
        />
        <span>×</span>
        <input
          type="number"
          min={1}
          max={10_000_000}
          aria-label="Scans"
          value={form.scanN}
          onFocus={() => pick('scan')}
          onChange={(e) => setForm({ scanN: e.currentTarget.value, gen: 'scan' })}
        />
        <datalist id="sim-ns">
          {namespaces.map((n) => (
            <option key={n} value={n} />
          ))}
        </datalist>
      </span>
    ),
    oid: (
      <span className="sim-inline">
        <input
          type="number"
          min={1}
          max={10_000_000}
          aria-label="Lookups by object id"
          value={form.oidN}
          onFocus={() => pick('oid')}
          onChange={(e) => setForm({ oidN: e.currentTarget.value, gen: 'oid' })}
        />
        <span>
          {kind === 'files' ? (
            'lookups of object ids the repository holds (the files backend lists every ref)'
          ) : (
            <>lookups of object ids the stack holds, through the tables&rsquo; object index</>
          )}
        </span>
      </span>
    ),
    stdin: <>paste it below, or open or drop a file</>,
  };
  return (
    <fieldset className="sim-box sim-workloads">
      <legend>Workload</legend>
      <div role="radiogroup" aria-label="Workload" className="sim-gens">
        {GENS.map(({ gen, label }) => {
          const disabled = gen === 'recreate' && hiding === 0;
          return (
            <div key={gen} className={`sim-gen${form.gen === gen ? ' on' : ''}${disabled ? ' disabled' : ''}`}>
              <label className="sim-gen-label">
                <input
                  type="radio"
                  name="sim-gen"
                  value={gen}
                  checked={form.gen === gen}
                  disabled={disabled}
                  data-testid={`sim-gen-${gen}`}
                  onChange={() => pick(gen)}
                />
                <span className="sim-gen-title">{label}</span>
              </label>
              <div className="sim-gen-detail">{detail[gen]}</div>
            </div>
          );
        })}
      </div>
      {txMatters && (
        <div className="sim-tx" role="radiogroup" aria-label="Transactions">
          <span className="muted small">Transactions:</span>
          <label className="check">
            <input
              type="radio"
              name="sim-tx"
              checked={!form.perRef}
              onChange={() => setForm({ perRef: false })}
              data-testid="sim-tx-one"
            />{' '}
            one for the whole batch
          </label>
          <label className="check">
            <input
              type="radio"
              name="sim-tx"
              checked={form.perRef}
              onChange={() => setForm({ perRef: true })}
              data-testid="sim-tx-per-ref"
            />{' '}
            one per ref (<code>start</code>/<code>commit</code> around each)
          </label>
        </div>
      )}
      {form.gen === 'stdin' && <StdinInputBox textRef={textRef} />}
    </fieldset>
  );
}

function StdinInputBox({ textRef }: { textRef: RefObject<HTMLTextAreaElement | null> }) {
  const stdin = useSim((s) => s.stdin);
  const fileInput = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const setStdin = (patch: Partial<typeof stdin>) =>
    useSim.setState((s) => ({ stdin: { ...s.stdin, ...patch }, error: null }));
  const take = async (f: File) => {
    const bytes = new Uint8Array(await f.arrayBuffer());
    const hasNul = bytes.includes(0);
    let text: string | null = null;
    if (!hasNul && bytes.length <= MAX_TEXT_FILE) {
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        text = null;
      }
    }
    if (text !== null) {
      setStdin({ text, file: null });
      setNote(`Read ${f.name} (${fmtBytes(bytes.length)}) into the box.`);
    } else {
      setStdin({ file: { name: f.name, bytes }, z: hasNul ? true : stdin.z });
      setNote(hasNul ? `${f.name} has NUL bytes: read with -z.` : null);
    }
  };
  const onDrop = (e: DragEvent) => {
    // The window's own drop handler (App.tsx) opens dropped files as a new input: this one is ours.
    e.preventDefault();
    setOver(false);
    const f = e.dataTransfer.files?.[0];
    if (f) void take(f);
  };
  return (
    <div
      className={`sim-stdin${over ? ' over' : ''}`}
      data-own-drop="true"
      onDragOver={(e) => {
        if (Array.from(e.dataTransfer.types).includes('Files')) {
          e.preventDefault();
          e.dataTransfer.dropEffect = 'copy';
          setOver(true);
        }
      }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
    >
      {stdin.file ? (
        <div className="sim-file" data-testid="sim-stdin-file">
          Using <strong className="mono">{stdin.file.name}</strong> ({fmtBytes(stdin.file.bytes.length)}) as it is.{' '}
          <button
            type="button"
            className="btn small"
            onClick={() => {
              setStdin({ file: null });
              setNote(null);
            }}
          >
            Use the text box instead
          </button>
        </div>
      ) : (
        <>
          <label className="sr-only" htmlFor="sim-stdin-text">
            git update-ref --stdin input
          </label>
          <textarea
            id="sim-stdin-text"
            ref={textRef}
            className="mono"
            data-testid="sim-stdin"
            rows={7}
            spellCheck={false}
            value={stdin.text}
            placeholder={
              'create refs/heads/topic 0123456789abcdef0123456789abcdef01234567\nupdate refs/heads/main <new-oid> <old-oid>\ndelete refs/tags/old\n…  (start / prepare / commit / abort, option no-deref)'
            }
            onChange={(e) => {
              setStdin({ text: e.currentTarget.value });
              setNote(null);
            }}
          />
        </>
      )}
      <div className="sim-stdin-bar">
        <button type="button" className="btn small" onClick={() => fileInput.current?.click()}>
          Open file…
        </button>
        <input
          ref={fileInput}
          type="file"
          hidden
          data-testid="sim-stdin-input"
          onChange={(e) => {
            const f = e.currentTarget.files?.[0];
            if (f) void take(f);
            e.currentTarget.value = '';
          }}
        />
        <label className="check">
          <input
            type="checkbox"
            data-testid="sim-z"
            checked={stdin.z}
            onChange={(e) => setStdin({ z: e.currentTarget.checked })}
          />
          <code>-z</code>{' '}
          <span className="muted small">
            (NUL-terminated arguments, as <code>git update-ref -z --stdin</code>)
          </span>
        </label>
        <span className="muted small">{note ?? 'or drop a file on this box'}</span>
      </div>
    </div>
  );
}
