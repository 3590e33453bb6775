// The web app's worker side of one hostile case, for scripts/hostile.mjs: this file is bundled by
// esbuild (with the engine and the CLI's input walker) and run as `node session.mjs <spec.json>`.
// The main thread walks the case's files (as a drop hands them to the page: paths and File
// handles) and sends their paths to a worker thread, which reads each when the engine asks (as
// the worker reads a dropped Blob), running the engine session exactly as
// workers/engine.worker.ts does (load, then the page's questions: refs pages, blocks, the
// compaction view, exports, share links, and the shared link opened again; or openShare of a
// crafted link, then its exports). It prints one JSON line: { answer | error, ms }.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import fs from 'node:fs';
import path from 'node:path';
import { EngineSession } from '../src/engine/session/index.ts';
import { FormatError, memorySource } from '../src/engine/basics.ts';
import { collectInput, diskPathOf, fileSource } from '../src/cli/node-input.ts';

/** The contract: an answer, or the engine's error with a file, an offset and one line. */
function checkError(e, what) {
  if (!(e instanceof FormatError)) throw new Error(`${what}: ${e?.name ?? typeof e}: ${String(e?.message ?? e)}`);
  if (typeof e.file !== 'string' || !Number.isInteger(e.offset) || /[\r\n]/.test(e.message))
    throw new Error(`${what}: an error without a file, an offset or on more than one line: ${e.message}`);
  return 'clean error';
}

function ask(what, f) {
  try {
    return f();
  } catch (e) {
    return checkError(e, what);
  }
}

/** What the page asks after a load (App.tsx's views), each answer or clean error. */
function sessionFlow(files) {
  const s = new EngineSession();
  const res = s.load(files);
  if (!res.report) {
    if (!res.error || typeof res.error.message !== 'string') throw new Error('load: no report and no error');
    return `error: ${res.error.message}`;
  }
  ask('refsPage', () => s.refsPage({ filter: '', mode: 'prefix', includeTombstones: true, offset: 0, limit: 100 }));
  ask('refsPage', () =>
    s.refsPage({ filter: 'a', mode: 'substring', includeTombstones: false, offset: 0, limit: 100 }),
  );
  for (let i = 0; i < Math.min(4, res.report.tables.length); i++) {
    const layout = ask('tableBlocks', () => s.tableBlocks(i));
    const blocks = layout && typeof layout === 'object' ? (layout.blocks?.length ?? 1) : 1;
    for (const b of [0, blocks - 1]) ask('blockDetail', () => s.blockDetail(i, b));
  }
  ask('compaction', () => s.compaction({ factor: 2, k: 3, txSize: 150 }));
  ask('exportAs md', () => s.exportAs('md'));
  ask('exportAs json', () => s.exportAs('json'));
  for (const withNames of [false, true]) {
    const sh = ask('share', () => s.share({ withNames, base: 'http://127.0.0.1:4173/' }));
    if (sh && typeof sh === 'object' && sh.ok) {
      const opened = new EngineSession().openShare(sh.link);
      if (!opened.ok) throw new Error(`a link the session made is refused: ${opened.message}`);
    }
  }
  // The answers must survive the structured clone to the page.
  structuredClone(s.report());
  return res.error ? `report (refs not listed: ${res.error.message})` : 'report';
}

function linkFlow(link) {
  const s = new EngineSession();
  const opened = s.openShare(link);
  if (!opened.ok) {
    if (typeof opened.message !== 'string' || /[\r\n]/.test(opened.message))
      throw new Error('openShare: a refusal without a one-line message');
    return `error: ${opened.message}`;
  }
  structuredClone(opened);
  ask('exportAs md', () => s.exportAs('md'));
  ask('exportAs json', () => s.exportAs('json'));
  ask('share', () => s.share({ withNames: false, base: 'http://127.0.0.1:4173/' }));
  return 'report';
}

if (isMainThread) {
  const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  let files = [];
  let inputError = null;
  if (spec.manifest) {
    // Files exactly as they were dropped (fuzz cases: manifest.json's paths and saved bytes).
    const dir = path.dirname(spec.manifest);
    for (const f of JSON.parse(fs.readFileSync(spec.manifest, 'utf8'))) {
      // A `.git` directory is stored as `dot-git` (git cannot store one in a tree).
      let saved = path.join(dir, f.savedAs);
      if (!fs.existsSync(saved)) saved = path.join(dir, f.savedAs.replace(/(^|\/)\.git\//, '$1dot-git/'));
      files.push({ path: f.path, disk: saved });
    }
  } else if (spec.path) {
    // A directory or file given by path: what the CLI's walker collects (links that leave the
    // input, loops and FIFOs are refused there; the page cannot be handed those at all).
    // Each file is read when the engine asks for its bytes, as the worker reads a dropped File
    // (a Blob shared by the structured clone, read in slices with FileReaderSync), not before.
    try {
      files = collectInput(spec.path).map((f) => {
        const disk = diskPathOf(f.source);
        return disk ? { path: f.path, disk } : { path: f.path, bytes: f.source.read(0, f.source.size) };
      });
    } catch (e) {
      inputError = checkError(e, 'collectInput');
    }
  }
  const t0 = performance.now();
  const finish = (m) => {
    process.stdout.write(JSON.stringify({ ...m, ms: Math.round(performance.now() - t0) }) + '\n');
    process.exit(0);
  };
  if (inputError) finish({ answer: inputError });
  const buffers = files.map((f) => (f.disk ? f : { path: f.path, buffer: new Uint8Array(f.bytes).buffer }));
  const w = new Worker(new URL(import.meta.url), {
    workerData: { link: spec.link ?? null, files: buffers },
    transferList: buffers.flatMap((b) => (b.buffer ? [b.buffer] : [])),
    // The worker's heap, as a browser tab's worker would run out of it: dying is a failure.
    resourceLimits: { maxOldGenerationSizeMb: 512 },
  });
  w.once('message', finish);
  w.once('error', (e) => finish({ error: `the worker died: ${e.message}` }));
  w.once('exit', (code) => finish({ error: `the worker exited with ${code}` }));
} else {
  let reply;
  try {
    const answer = workerData.link
      ? linkFlow(workerData.link)
      : sessionFlow(
          workerData.files.map((f) => ({
            path: f.path,
            source: f.disk ? fileSource(f.disk, f.path, true) : memorySource(new Uint8Array(f.buffer)),
          })),
        );
    reply = { answer };
  } catch (e) {
    reply = { error: String(e?.message ?? e).slice(0, 500) };
  }
  parentPort.postMessage(reply);
}
