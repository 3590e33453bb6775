#!/usr/bin/env node
/**
 * `npm run lighthouse`: Lighthouse's mobile preset on the built app as `refscope serve` serves it
 * (build first with `npm run build`, or pass `--build`). Prints the category scores and the bytes
 * sent; exits 1 when performance is below 90 or accessibility below 100. Not part of `npm test`:
 * it takes about a minute and its timings depend on the machine's load.
 *
 *   npm run lighthouse [-- --build] [--port 4390] [--json out.json]
 */
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import lighthouse from 'lighthouse';
import * as chromeLauncher from 'chrome-launcher';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const port = Number(opt('--port', '4390'));
const jsonOut = opt('--json', null);
const hash = opt('--hash', '');

if (args.includes('--build')) execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
if (!fs.existsSync(path.join(ROOT, 'dist/app/index.html'))) {
  console.error('lighthouse: dist/app/index.html is missing: run `npm run build` (or pass --build) first');
  process.exit(2);
}

const server = spawn(process.execPath, ['bin/refscope.mjs', 'serve', '--port', String(port)], {
  cwd: ROOT,
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (d) => {
    out += d;
    const m = /https?:\/\/[^\s]+/.exec(out);
    if (m) resolve(m[0]);
  });
  server.on('exit', (c) => reject(new Error(`refscope serve exited with ${c}: ${out}`)));
});

const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  chromeFlags: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
let code = 0;
try {
  // The default config is the mobile preset (emulated phone, simulated slow 4G and CPU).
  const r = await lighthouse(url + hash, {
    port: chrome.port,
    output: 'json',
    logLevel: 'error',
    onlyCategories: ['performance', 'accessibility', 'best-practices'],
  });
  const lhr = r.lhr;
  const score = (c) => Math.round((lhr.categories[c]?.score ?? 0) * 100);
  const perf = score('performance'),
    a11y = score('accessibility');
  const bytes = lhr.audits['total-byte-weight']?.numericValue ?? 0;
  const unused = lhr.audits['unused-javascript']?.details?.overallSavingsBytes ?? 0;
  console.log(`url: ${url}${hash}`);
  console.log(`performance ${perf}, accessibility ${a11y}, best practices ${score('best-practices')}`);
  for (const id of [
    'first-contentful-paint',
    'largest-contentful-paint',
    'total-blocking-time',
    'cumulative-layout-shift',
    'speed-index',
  ])
    console.log(`  ${lhr.audits[id].title}: ${lhr.audits[id].displayValue}`);
  console.log(
    `  bytes transferred: ${Math.round(bytes / 1024)} KiB; unused JavaScript: ${Math.round(unused / 1024)} KiB`,
  );
  for (const [id, a] of Object.entries(lhr.audits))
    if (a.score !== null && a.score < 1 && lhr.categories.accessibility.auditRefs.some((x) => x.id === id))
      console.log(`  accessibility: ${id}: ${a.title}`);
  if (jsonOut) fs.writeFileSync(jsonOut, r.report);
  if (perf < 90 || a11y < 100) code = 1;
} finally {
  await chrome.kill();
  server.kill();
}
process.exit(code);
