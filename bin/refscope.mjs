#!/usr/bin/env node
// The refscope command line tool.
//
// Installed from the package, it runs the built bundle (dist/cli/refscope.mjs). In a checkout
// (src/ present) it first rebuilds the bundle when it is missing or older than a source file
// (esbuild, well under a second), and falls back to running the TypeScript through tsx when it
// cannot build (REFSCOPE_FROM_SOURCE=1 forces that path).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BUNDLE = path.join(ROOT, 'dist/cli/refscope.mjs');
const SRC = path.join(ROOT, 'src');

// A reader that goes away (`refscope refs … | head -1`) ends the output quietly, as SIGPIPE ends
// git: exit 141, no stack trace.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(141);
  throw e;
});

/** Newest modification time (ms) of the files the CLI bundle is built from. */
function newestSource() {
  let newest = 0;
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(?:ts|tsx|json)$/.test(e.name)) newest = Math.max(newest, fs.statSync(p).mtimeMs);
    }
  };
  for (const d of ['engine', 'cli', 'lib']) if (fs.existsSync(path.join(SRC, d))) walk(path.join(SRC, d));
  newest = Math.max(newest, fs.statSync(path.join(ROOT, 'package.json')).mtimeMs);
  return newest;
}

/** In a checkout: is the bundle there and newer than every source? Rebuild it when not. */
async function freshBundle() {
  try {
    if (fs.existsSync(BUNDLE) && fs.statSync(BUNDLE).mtimeMs >= newestSource()) return true;
    const { buildCli } = await import(pathToFileURL(path.join(ROOT, 'scripts/build.mjs')).href);
    await buildCli();
    return true;
  } catch {
    return false;
  }
}

const checkout = fs.existsSync(path.join(SRC, 'cli/main.ts'));
let main;
if (!checkout) {
  ({ main } = await import(pathToFileURL(BUNDLE).href));
} else if (process.env.REFSCOPE_FROM_SOURCE !== '1' && (await freshBundle())) {
  ({ main } = await import(pathToFileURL(BUNDLE).href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(pathToFileURL(path.join(SRC, 'cli/main.ts')).href));
}
process.exitCode = await main(process.argv.slice(2));
