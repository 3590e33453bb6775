#!/usr/bin/env node
// `npm run build` (and `prepack`): everything the published package runs, as plain JavaScript.
//
//   node scripts/build.mjs [--cli] [--lib] [--types] [--app] [--pack] [--quiet]  (no part: all four)
//
// `--pack` (what `prepack` runs): the app's large sample tables get synthetic object ids, which
// keeps the package small (see `shrinkSamples`).
//
//   dist/cli/refscope.mjs (+ .map)   the command line tool, ES modules for Node (esbuild): the
//                                    entry and, beside it, a chunk per command and chunks of
//                                    shared code (`<name>-<hash>.mjs`), so a command loads only
//                                    its own code; the maps (shipped, without the sources' text)
//                                    name the source file and line of each stack frame under
//                                    --enable-source-maps
//   dist/lib/index.mjs               `import … from 'refscope'`: the engine plus path helpers (Node)
//   dist/engine/index.mjs            `import … from 'refscope/engine'`: the pure engine, any runtime
//   dist/types/                      .d.ts files for both entries (tsc --emitDeclarationOnly)
//   dist/app/                        the web app (vite build), with .gz beside every compressible
//                                    file, which `refscope serve` sends to browsers that accept gzip
//
// The bundles include every runtime dependency of the engine (fflate): the package installs
// nothing but the static file server `refscope serve` loads.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');

/**
 * Write esbuild's in-memory outputs each through a temporary file and a rename: several processes
 * (parallel test files, each starting `bin/refscope.mjs` on a stale build) may build at once, and
 * none may ever import a half-written file.
 */
function writeAtomically(outputFiles) {
  for (const f of outputFiles) {
    fs.mkdirSync(path.dirname(f.path), { recursive: true });
    const tmp = `${f.path}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, f.contents);
    fs.renameSync(tmp, f.path);
  }
}

/**
 * The library entry imports the engine from the engine entry's file instead of bundling a second
 * copy: one copy of each class, so `instanceof FormatError` holds across both entries.
 */
const engineFromEntry = {
  name: 'engine-from-entry',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      const abs = path.resolve(args.resolveDir, args.path);
      const rel = path.relative(path.join(ROOT, 'src'), abs).split(path.sep).join('/');
      if (rel === 'lib/engine.ts' || rel.startsWith('engine/')) return { path: '../engine/index.mjs', external: true };
      return undefined;
    });
  },
};

/**
 * A source map's `sources` as paths inside the package's repository (`../../src/cli/main.ts`,
 * `../../node_modules/fflate/…`): a checkout's node_modules may be a link to another tree, whose
 * location must not end up in the published map.
 */
function packagePaths(f) {
  if (!f.path.endsWith('.map')) return f;
  const m = JSON.parse(Buffer.from(f.contents).toString('utf8'));
  m.sources = m.sources.map((s) => s.replace(/^(?:\.\.\/)+(?:[^/]+\/)*?node_modules\//, '../../node_modules/'));
  return { path: f.path, contents: Buffer.from(JSON.stringify(m)) };
}

async function esbuildOne(entry, outfile, platform, { sourcemap = true, plugins = [], split = false } = {}) {
  const esbuild = await import('esbuild');
  const out = path.join(ROOT, outfile);
  const r = await esbuild.build({
    // Split (the CLI): the entry, plus one chunk per command and chunks of the code they share,
    // all beside the entry (`[name]-[hash].mjs`); a command's chunk is imported only when it runs.
    ...(split
      ? {
          entryPoints: { [path.basename(out, '.mjs')]: path.join(ROOT, entry) },
          outdir: path.dirname(out),
          splitting: true,
          chunkNames: '[name]-[hash]',
          outExtension: { '.js': '.mjs' },
        }
      : { entryPoints: [path.join(ROOT, entry)], outfile: out }),
    bundle: true,
    format: 'esm',
    platform,
    target: platform === 'node' ? 'node20' : 'es2022',
    sourcemap,
    plugins,
    // Source maps point at the sources by path; their text is left out to keep the package small.
    sourcesContent: false,
    legalComments: 'none',
    // Minified: less source for Node to compile at every start (the source map keeps stack
    // traces readable).
    minify: true,
    minifySyntax: true,
    write: false,
    logLevel: 'warning',
    // Node built-ins stay imports; everything else is bundled.
    ...(platform === 'node' ? { packages: 'bundle', external: ['sirv'] } : {}),
  });
  writeAtomically(r.outputFiles.map(packagePaths));
  if (split) removeStaleChunks(path.dirname(out), r.outputFiles);
  return r.outputFiles
    .filter((f) => f.path === out)
    .map((f) => ({ file: path.relative(ROOT, f.path), bytes: f.contents.length }));
}

/** Chunks of an earlier build are kept this long: a process started on that build may still import one. */
const STALE_CHUNK_MS = 10 * 60 * 1000;

/**
 * Remove the chunks (and maps) of earlier builds from `dir`: the hashed names change with the
 * code, so each build would otherwise add files. A process that started on an earlier build and
 * has not yet imported its command's chunk needs it for a moment: only files older than
 * `STALE_CHUNK_MS` go, except under `REFSCOPE_BUILD_CLEAN=1` (the package build), where all do.
 */
function removeStaleChunks(dir, outputFiles) {
  const keep = new Set(outputFiles.map((f) => path.basename(f.path)));
  const all = process.env.REFSCOPE_BUILD_CLEAN === '1';
  for (const name of fs.readdirSync(dir)) {
    if (keep.has(name) || !/-[A-Z0-9]{8}\.mjs(?:\.map)?$/.test(name)) continue;
    const p = path.join(dir, name);
    try {
      if (all || Date.now() - fs.statSync(p).mtimeMs > STALE_CHUNK_MS) fs.rmSync(p, { force: true });
    } catch {
      // Removed by a concurrent build.
    }
  }
}

/** The command line tool: dist/cli/refscope.mjs and its chunks. */
export function buildCli() {
  return esbuildOne('src/cli/main.ts', 'dist/cli/refscope.mjs', 'node', { split: true });
}

/** The two library entries. */
export async function buildLib() {
  for (const d of ['lib', 'engine']) fs.rmSync(path.join(DIST, d), { recursive: true, force: true });
  return [
    ...(await esbuildOne('src/lib/engine.ts', 'dist/engine/index.mjs', 'neutral', { sourcemap: false })),
    ...(await esbuildOne('src/lib/index.ts', 'dist/lib/index.mjs', 'node', {
      sourcemap: false,
      plugins: [engineFromEntry],
    })),
  ];
}

/** Declarations of the library entries (dist/types/lib/index.d.ts, dist/types/lib/engine.d.ts). */
export function buildTypes() {
  fs.rmSync(path.join(DIST, 'types'), { recursive: true, force: true });
  execFileSync(
    process.execPath,
    [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.lib.json')],
    // tsc's messages to stderr as well (see `main`).
    { cwd: ROOT, stdio: ['ignore', 2, 2] },
  );
  return [{ file: 'dist/types/', bytes: 0 }];
}

/**
 * Extensions worth compressing: text, and the samples' reftable tables (their ref names are
 * prefix-compressed only within a restart interval, so gzip takes the default sample's two
 * tables from 47 KB to 29 KB, the second largest download before its first analysis). Images and
 * already compressed files are sent as they are.
 */
const COMPRESSIBLE = /\.(?:html|js|mjs|css|json|webmanifest|svg|txt|map|ref)$/;

/** Gzip every compressible file of `dir` over 1 KiB next to it (`x.js.gz`), where it saves space. */
function precompress(dir) {
  let n = 0;
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (COMPRESSIBLE.test(e.name)) {
        const raw = fs.readFileSync(p);
        if (raw.length < 1024) continue;
        const gz = zlib.gzipSync(raw, { level: 9 });
        if (gz.length < raw.length * 0.9) {
          fs.writeFileSync(p + '.gz', gz);
          n++;
        }
      }
    }
  };
  walk(dir);
  return n;
}

/** Sample tables larger than this are rewritten with synthetic object ids for the package. */
const SAMPLE_REWRITE_BYTES = 256 * 1024;

/**
 * For the npm package: rewrite each large sample table (the 50,000-ref base table of
 * tombstones-50k) with synthetic object ids — a counter in the first three bytes, then zeros —
 * using refscope's writer with the table's own layout. Names, record kinds, update indexes and
 * block layout stay git's; only the ids change, and with them the table's entropy: random ids
 * cannot be compressed, and they made up most of the package. Checkouts and the tests keep the
 * git-written files. Needs the engine entry (dist/engine/index.mjs, built by --lib).
 */
async function shrinkSamples(dir) {
  const e = await import(pathToFileURL(path.join(DIST, 'engine/index.mjs')).href);
  const rewritten = [];
  const walk = (d) => {
    for (const ent of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, ent.name);
      if (ent.isDirectory()) walk(p);
      else if (ent.name.endsWith('.ref') && fs.statSync(p).size > SAMPLE_REWRITE_BYTES) rewritten.push(p);
    }
  };
  if (fs.existsSync(path.join(dir, 'samples'))) walk(path.join(dir, 'samples'));
  for (const p of rewritten) {
    const bytes = new Uint8Array(fs.readFileSync(p));
    const t = e.openTable({ path: path.basename(p), source: e.memorySource(bytes) });
    const hs = t.header.hashSize;
    const ids = new Map();
    const synth = (id) => {
      if (!id) return id;
      const key = Buffer.from(id).toString('hex');
      let out = ids.get(key);
      if (!out) {
        // Ids numbered in file order in their first bytes (unique within the 2-byte prefixes
        // git's obj index uses for up to 65,536 ids), zeros after: sequences a compressor packs well.
        const x = ids.size + 1;
        out = new Uint8Array(hs);
        out[0] = (x >>> 16) & 255;
        out[1] = (x >>> 8) & 255;
        out[2] = x & 255;
        ids.set(key, out);
      }
      return out;
    };
    const refs = e.tableRefRecords(t).map((r) => ({ ...r, value: synth(r.value), peeled: synth(r.peeled) }));
    const logs = e.tableLogRecords(t).map((l) => ({ ...l, oldId: synth(l.oldId), newId: synth(l.newId) }));
    const out = e.writeTable(refs, logs, {
      hashId: t.header.hashId,
      blockSize: t.header.blockSize,
      minUpdateIndex: t.header.minUpdateIndex,
      maxUpdateIndex: t.header.maxUpdateIndex,
      exactLogMessage: true,
    });
    fs.writeFileSync(p, out);
  }
  if (rewritten.length) {
    const indexFile = path.join(dir, 'samples/index.json');
    const index = JSON.parse(fs.readFileSync(indexFile, 'utf8'));
    for (const s of index.samples ?? []) {
      if (s.files?.some((f) => rewritten.includes(path.join(dir, 'samples', s.name, f)))) {
        s.description +=
          " (In the npm package its object ids are synthetic, to keep the package small; names, records and layout are git's.)";
      }
    }
    fs.writeFileSync(indexFile, JSON.stringify(index, null, 2) + '\n');
  }
  return rewritten.length;
}

/**
 * The web app into dist/app (Vite), then the .gz files. `pack`: the package's build (prepack),
 * with the large samples rewritten (`shrinkSamples`).
 */
export async function buildApp({ outDir = path.join(DIST, 'app'), base = './', logLevel = 'warn', pack = false } = {}) {
  const { buildApp: viteBuild } = await import('./start.mjs');
  // Always the production build: under NODE_ENV=test (vitest runs `npm pack` that way) Vite
  // would bundle React's development build and Workbox's debug files, half as large again.
  const env = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await viteBuild({ outDir, base, logLevel });
  } finally {
    if (env === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = env;
  }
  const shrunk = pack ? await shrinkSamples(outDir) : 0;
  // The package leaves the .gz files out: its tarball is gzip already, so they would ship the
  // app twice; `refscope serve` writes a compressed copy on first start (serve-cmd.ts withGzip).
  const gz = pack ? 0 : precompress(outDir);
  return [
    {
      file: path.relative(ROOT, outDir) + '/',
      bytes: 0,
      note: `${gz} files gzipped${pack ? `, ${shrunk} sample tables with synthetic ids` : ''}`,
    },
  ];
}

async function main(argv) {
  const known = new Set(['--cli', '--lib', '--types', '--app', '--quiet', '--pack']);
  for (const a of argv) {
    if (!known.has(a)) {
      console.error(
        `build: unknown argument ${a}\nusage: node scripts/build.mjs [--cli] [--lib] [--types] [--app] [--pack] [--quiet]`,
      );
      return 2;
    }
  }
  const quiet = argv.includes('--quiet');
  const pack = argv.includes('--pack');
  if (pack) {
    // The package gets this build's chunks only (see `removeStaleChunks`).
    process.env.REFSCOPE_BUILD_CLEAN = '1';
    // Under `npm pack --json` (prepack) stdout must carry npm's JSON document alone: whatever a
    // build step or a Vite plugin prints goes to stderr.
    const toStderr = process.stderr.write.bind(process.stderr);
    process.stdout.write = toStderr;
  }
  const parts = argv.filter((a) => a !== '--quiet' && a !== '--pack');
  const all = parts.length === 0;
  const steps = [
    ['--cli', 'CLI', buildCli],
    ['--lib', 'library', buildLib],
    ['--types', 'type declarations', buildTypes],
    ['--app', 'web app', () => buildApp({ pack })],
  ];
  for (const [flag, what, fn] of steps) {
    if (!all && !parts.includes(flag)) continue;
    const t0 = Date.now();
    const out = await fn();
    if (!quiet) {
      const files = out
        .map((o) => `${o.file}${o.bytes ? ` (${(o.bytes / 1024).toFixed(0)} KiB)` : ''}${o.note ? ` (${o.note})` : ''}`)
        .join(', ');
      // Progress goes to stderr: `npm pack --json` runs this as `prepack`, and its stdout must
      // stay the JSON document alone.
      console.error(`built ${what} in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${files}`);
    }
  }
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (c) => {
      process.exitCode = c;
    },
    (e) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}
