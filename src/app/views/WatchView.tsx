/**
 * The Watch view: a live reftable stack as a timeline, one step per new `tables.list` state
 * (tables appended, auto-compactions with the segment git merged, lock files), with records and
 * tombstone ratio per step and alerts. The folder is a File System Access directory handle: one
 * the user picks (`showDirectoryPicker`), or a folder of this site's Origin Private File System
 * (the same handle code path; tests copy git's writes there). It is looked at again when a
 * `FileSystemObserver` reports a change (where the browser has it) and every few hundred ms
 * otherwise; the worker parses only tables new to a state. Nothing leaves the browser.
 */
import { useEffect, useRef, useState } from 'react';
import type { WatchEvent } from '../../engine/watch.ts';
import { engine } from '../shell/engine.ts';
import { fmtInt } from '../lib/format.ts';
import { shortTableName } from '../lib/util.ts';

/** The part of the File System Access API used here (not every DOM library declares it). */
interface DirHandle {
  name: string;
  getFileHandle(name: string): Promise<{ getFile(): Promise<File> }>;
  getDirectoryHandle(name: string): Promise<DirHandle>;
  keys(): AsyncIterableIterator<string>;
}
type Observer = { observe(h: DirHandle): Promise<void>; disconnect(): void };
const W = globalThis as unknown as {
  showDirectoryPicker?: (o?: { mode?: string }) => Promise<DirHandle>;
  FileSystemObserver?: new (cb: () => void) => Observer;
};

const POLL_MS = 250;

/** The reftable directory under a picked folder: itself, `reftable/` or `.git/reftable/`. */
async function reftableOf(h: DirHandle): Promise<DirHandle | null> {
  const has = async (d: DirHandle) => {
    try {
      await d.getFileHandle('tables.list');
      return true;
    } catch {
      return false;
    }
  };
  if (await has(h)) return h;
  for (const path of [['reftable'], ['.git', 'reftable']]) {
    try {
      let d = h;
      for (const p of path) d = await d.getDirectoryHandle(p);
      if (await has(d)) return d;
    } catch {
      // not there
    }
  }
  return null;
}

/** One look: `tables.list`, the names in the folder, the listed tables as File objects. */
async function look(dir: DirHandle) {
  let list: ArrayBuffer | null;
  try {
    list = await (await (await dir.getFileHandle('tables.list')).getFile()).arrayBuffer();
  } catch {
    list = null;
  }
  const entries: string[] = [];
  for await (const k of dir.keys()) entries.push(k);
  const names = list ? new TextDecoder().decode(list).split('\n').filter(Boolean) : [];
  const files: { name: string; blob: Blob }[] = [];
  for (const n of names) {
    try {
      files.push({ name: n, blob: await (await dir.getFileHandle(n)).getFile() });
    } catch {
      // gone: git removed it after a newer state; the worker waits for the next look
    }
  }
  return { list, entries, files };
}

export function WatchView() {
  const [dir, setDir] = useState<DirHandle | null>(null);
  const [events, setEvents] = useState<(WatchEvent & { time: string })[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [opfsName, setOpfsName] = useState('');
  const [how, setHow] = useState('');
  const busy = useRef(false);

  useEffect(() => {
    if (!dir) return;
    let stop = false;
    const tick = async () => {
      if (busy.current || stop) return;
      busy.current = true;
      try {
        const ev = await engine().watchStep(await look(dir));
        if (ev && !stop) setEvents((old) => [...old, { ...ev, time: new Date().toLocaleTimeString() }]);
        setError(null);
      } catch (e) {
        if (!stop) setError(e instanceof Error ? e.message : String(e));
      } finally {
        busy.current = false;
      }
    };
    void engine()
      .watchReset()
      .then(() => tick());
    let obs: Observer | null = null;
    if (W.FileSystemObserver) {
      try {
        obs = new W.FileSystemObserver(() => void tick());
        void obs.observe(dir).catch(() => undefined);
      } catch {
        obs = null;
      }
    }
    const timer = setInterval(() => void tick(), POLL_MS);
    return () => {
      stop = true;
      clearInterval(timer);
      obs?.disconnect();
    };
  }, [dir]);

  const start = async (h: DirHandle | null, label: string) => {
    if (!h) {
      setError(`${label}: no tables.list there, in reftable/ or in .git/reftable/`);
      return;
    }
    setEvents([]);
    setError(null);
    setHow(label);
    setDir(h);
  };
  const pick = async () => {
    if (!W.showDirectoryPicker) {
      setError('This browser cannot give a page a folder to watch (no File System Access API).');
      return;
    }
    try {
      const h = await W.showDirectoryPicker({ mode: 'read' });
      await start(await reftableOf(h), h.name);
    } catch (e) {
      if (e instanceof Error && e.name !== 'AbortError') setError(e.message);
    }
  };
  const opfs = async () => {
    try {
      const root = (await navigator.storage.getDirectory()) as unknown as DirHandle;
      const h = await root.getDirectoryHandle(opfsName);
      await start(await reftableOf(h), `private storage: ${opfsName}`);
    } catch (e) {
      setError(`private storage folder ${JSON.stringify(opfsName)}: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const last = events[events.length - 1];
  return (
    <div className="panel watch-view">
      <h2>Watch a live stack</h2>
      <p className="muted">
        Point this page at a repository, its <code>.git</code> or its <code>reftable/</code> folder: each new{' '}
        <code>tables.list</code> git writes becomes a step below. Only new tables are read; nothing leaves the browser.
      </p>
      <div className="refs-bar">
        <button type="button" className="btn" onClick={() => void pick()} data-testid="watch-pick">
          Watch a folder…
        </button>
        <label className="filter">
          <span>Folder in this site&apos;s private storage</span>{' '}
          <input
            value={opfsName}
            onChange={(e) => setOpfsName(e.currentTarget.value)}
            data-testid="watch-opfs-name"
            spellCheck={false}
          />
        </label>
        <button type="button" className="btn" onClick={() => void opfs()} disabled={!opfsName} data-testid="watch-opfs">
          Watch it
        </button>
        {dir && (
          <span className="muted" data-testid="watch-source">
            watching {how} ({W.FileSystemObserver ? 'change events and polling' : `polling every ${POLL_MS} ms`})
          </span>
        )}
      </div>
      {error && (
        <p role="alert" className="banner error" data-testid="watch-error">
          {error}
        </p>
      )}
      {last && last.alerts.length > 0 && (
        <div className="banner warning" role="status" data-testid="watch-alerts">
          {last.alerts.map((a) => (
            <div key={a}>{a}</div>
          ))}
        </div>
      )}
      {events.length > 0 && (
        <table className="watch-timeline" data-testid="watch-timeline">
          <caption className="sr-only">Each tables.list state, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col">Seen</th>
              <th scope="col">Tables</th>
              <th scope="col">What changed</th>
              <th scope="col">Records</th>
              <th scope="col">Tombstones</th>
            </tr>
          </thead>
          <tbody>
            {events.map((e) => (
              <tr
                key={e.seq}
                data-testid="watch-event"
                data-tables={e.tables.join(',')}
                data-compactions={e.compactions.map((c) => `${c.from.join('+')}>${c.into ?? ''}`).join(';')}
              >
                <td>{e.seq}</td>
                <td>{e.time}</td>
                <td>{e.tables.length}</td>
                <td>
                  {e.seq === 1 && <div>first state seen</div>}
                  {e.appended.map((n) => (
                    <div key={n} className="mono small">
                      appended {shortTableName(n)}
                    </div>
                  ))}
                  {e.compactions.map((c) => (
                    <div key={c.from.join()} data-testid="watch-compaction">
                      auto-compaction: tables {c.segment.start}–{c.segment.end} ({c.from.length}) into{' '}
                      <span className="mono small">{c.into ? shortTableName(c.into) : 'nothing'}</span>
                    </div>
                  ))}
                  {e.locks.appeared.map((l) => (
                    <div key={l}>lock appeared: {l}</div>
                  ))}
                  {e.locks.disappeared.map((l) => (
                    <div key={l}>lock gone: {l}</div>
                  ))}
                  {e.alerts.length > 0 && <div className="muted">{e.alerts.length} alert(s)</div>}
                </td>
                <td>{fmtInt(e.records)}</td>
                <td>
                  {fmtInt(e.tombstones)} ({Math.round(e.tombstoneRatio * 100)} %)
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
