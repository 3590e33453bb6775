/**
 * The published package as a new user gets it: `npm pack` (which runs `prepack`, the full build),
 * then `npm install <tarball> --omit=dev` in an empty directory (offline: npm's cache holds sirv,
 * the one runtime dependency). Checks the tarball (under 1.5 MB, no test or fixture file), that
 * the install holds no TypeScript compiler, bundler or React, that `npx refscope` works (version,
 * every command's help, refs/analyze/simulate on a fixture), that the library entries import in
 * Node and type-check with their declarations, and that `npx refscope serve` serves an app that
 * headless Chromium loads and that analyses a dropped folder.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { COMMANDS } from '../src/cli/commands.ts';
import { collectInput } from '../src/cli/node-input.ts';
import { haveChromium, launchBrowser, cliReport, expected, dropPaths, waitLoad, loadId, shown } from './e2e/helpers.ts';

const ROOT = path.join(__dirname, '..');
const FX = path.join(ROOT, 'test/fixtures');
const BASIC = path.join(FX, 'reftable/basic-sha1/reftable');
const MAX_TARBALL = 1.5 * 1024 * 1024;

let tmp = '';
let tarball = '';
let app = '';
let files: string[] = [];

function sh(cmd: string, args: string[], cwd: string, input?: string) {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    input,
    maxBuffer: 64 << 20,
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' },
  });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}
/** `npx refscope …` in the install directory (the installed bin, never a download). */
const npx = (...args: string[]) => sh('npx', ['--no-install', 'refscope', ...args], app);
/**
 * The installed bin (`node_modules/.bin/refscope`, the link npx runs) started by Node directly:
 * the same file of the install, without npm's own start-up (about a second of CPU per call).
 */
const installedBin = (...args: string[]) =>
  sh(process.execPath, [path.join(app, 'node_modules/.bin/refscope'), ...args], app);

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-package-'));
  const pack = sh('npm', ['pack', '--json', '--pack-destination', tmp], ROOT);
  expect(pack.code, pack.stderr).toBe(0);
  // The whole of stdout is npm's JSON: the prepack build prints its progress to stderr.
  const info = JSON.parse(pack.stdout) as {
    filename: string;
    files: { path: string }[];
  }[];
  tarball = path.join(tmp, info[0].filename);
  files = info[0].files.map((f) => f.path);
  app = path.join(tmp, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify({ name: 'try-refscope', version: '1.0.0', private: true, type: 'module' }),
  );
  const inst = sh('npm', ['install', tarball, '--omit=dev', '--offline', '--no-audit', '--no-fund'], app);
  expect(inst.code, inst.stderr).toBe(0);
}, 600_000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the tarball', () => {
  it('is under 1.5 MB and holds no test, fixture or bench file', () => {
    expect(fs.statSync(tarball).size).toBeLessThan(MAX_TARBALL);
    expect(
      files.filter((f) => /^(test|bench|src|scripts|public|workers)\//.test(f) || /fixtures|\.test\./.test(f)),
    ).toEqual([]);
    for (const f of [
      'bin/refscope.mjs',
      'dist/cli/refscope.mjs',
      'dist/cli/refscope.mjs.map',
      'dist/app/index.html',
      'dist/lib/index.mjs',
      'dist/engine/index.mjs',
      'dist/types/lib/index.d.ts',
      'dist/types/lib/engine.d.ts',
      'schemas/report.schema.json',
      'package.json',
      'README.md',
    ]) {
      expect(files).toContain(f);
    }
  });

  it("ships the CLI's source map: file and line of the sources, not their text or the build machine's paths", () => {
    const pkg = path.join(app, 'node_modules/refscope');
    const map = JSON.parse(fs.readFileSync(path.join(pkg, 'dist/cli/refscope.mjs.map'), 'utf8'));
    expect(map.sourcesContent).toBeUndefined();
    expect(map.sources.filter((s: string) => !/^\.\.\/\.\.\/(src|node_modules)\//.test(s))).toEqual([]);
    expect(map.sources).toContain('../../src/cli/main.ts');
    expect(fs.readFileSync(path.join(pkg, 'dist/cli/refscope.mjs'), 'utf8')).toMatch(
      /\/\/# sourceMappingURL=refscope\.mjs\.map\s*$/,
    );
    // Node, with source maps on, maps a position of the bundle back to a TypeScript source.
    const probe = `import { findSourceMap } from 'node:module';
import { pathToFileURL } from 'node:url';
const url = pathToFileURL(${JSON.stringify(path.join(pkg, 'dist/cli/refscope.mjs'))}).href;
await import(url);
const e = findSourceMap(url).findEntry(0, 2000);
console.log(e.originalSource);`;
    fs.writeFileSync(path.join(app, 'map-probe.mjs'), probe);
    const r = sh(process.execPath, ['--enable-source-maps', 'map-probe.mjs'], app);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toMatch(/\/src\/(engine|cli)\/[\w/-]+\.ts$/);
  });

  it('installs without a TypeScript compiler, a bundler or React', () => {
    const nm = fs.readdirSync(path.join(app, 'node_modules'));
    for (const bad of [
      'typescript',
      'esbuild',
      '@esbuild',
      'vite',
      'rolldown',
      'tsx',
      'react',
      'react-dom',
      'zustand',
      'comlink',
    ])
      expect(nm).not.toContain(bad);
    expect(nm).toContain('refscope');
    expect(nm).toContain('sirv');
  });
});

describe('npx refscope', () => {
  it('--version, and every command with --help', () => {
    const v = npx('--version');
    expect(v.code).toBe(0);
    expect(v.stdout).toBe(`refscope ${JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version}\n`);
    // Every command's help from the installed bin (npx itself is run by the other calls here).
    for (const c of COMMANDS) {
      const h = installedBin(c.name, '--help');
      expect(h.code, c.name).toBe(0);
      expect(h.stdout.startsWith(`usage: refscope ${c.name} `), c.name).toBe(true);
    }
  });

  it('refs, analyze and simulate on a fixture', () => {
    // The installed bin as npx runs it (npx itself: --version above, serve and share below).
    const refs = installedBin('refs', BASIC);
    expect(refs.code).toBe(0);
    expect(refs.stdout).toBe(fs.readFileSync(path.join(FX, 'reftable/basic-sha1/truth/refs.txt'), 'utf8'));
    const report = JSON.parse(installedBin('analyze', '--json', BASIC).stdout);
    expect(report.schema).toBe('refscope.report/1');
    expect(report.tables.map((t: { name: string }) => t.name)).toEqual(
      fs.readFileSync(path.join(BASIC, 'tables.list'), 'utf8').trim().split('\n'),
    );
    const sim = installedBin(
      'simulate',
      '--json',
      '--workload',
      'create:10:refs/heads/pkg/',
      '--model',
      'git-2.55',
      BASIC,
    );
    expect(sim.code, sim.stderr).toBe(0);
    expect(JSON.parse(sim.stdout).results[0].model).toBe('git-2.55');
  });

  it("import { analyzePath, simulate } from 'refscope', and the pure engine from 'refscope/engine', with types", () => {
    const js = `import { analyzePath, simulate, buildReport } from 'refscope';
import { analyzeFiles, memorySource, FormatError } from 'refscope/engine';
import fs from 'node:fs';
const a = analyzePath(${JSON.stringify(BASIC)});
const r = buildReport(a);
const s = simulate(a, 'create:5:refs/heads/lib/', { models: ['git-2.56'], fixes: false, curve: false });
const p = analyzeFiles([{ path: 'packed-refs', source: memorySource(fs.readFileSync(${JSON.stringify(path.join(FX, 'packed-refs/gitgit/packed-refs'))})) }]);
let err = '';
try { analyzePath(${JSON.stringify(path.join(FX, 'reftable'))} + '/nonexistent-x'); } catch (e) { err = e.code; }
let fe = false;
fs.mkdirSync('nothing', { recursive: true }); fs.writeFileSync('nothing/README', 'no refs here');
try { analyzePath('nothing'); } catch (e) { fe = e instanceof FormatError; }
console.log(JSON.stringify({ tables: r.stack.tables, model: s.results[0].model, packed: buildReport(p).packedRefs.records, err, fe }));`;
    fs.writeFileSync(path.join(app, 'use.mjs'), js);
    const r = sh(process.execPath, ['use.mjs'], app);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    expect(out.tables).toBe(fs.readFileSync(path.join(BASIC, 'tables.list'), 'utf8').trim().split('\n').length);
    expect(out.model).toBe('git-2.56');
    // git.git's packed-refs: one record per line that is not a peeled (^) line or the header.
    const lines = fs
      .readFileSync(path.join(FX, 'packed-refs/gitgit/packed-refs'), 'latin1')
      .split('\n')
      .filter((l) => l && !l.startsWith('^') && !l.startsWith('#'));
    expect(out.packed).toBe(lines.length);
    expect(out.err).toBe('ENOENT');
    // A folder without refs: FormatError from 'refscope' is the class 'refscope/engine' exports.
    expect(out.fe).toBe(true);
    const ts = `import { analyzePath, simulate, type Report, type SimulationResult } from 'refscope';
import { analyzeFiles, memorySource, buildReport } from 'refscope/engine';
const r: Report = buildReport(analyzePath('.'));
const s: SimulationResult = simulate(analyzeFiles([{ path: 'packed-refs', source: memorySource(new Uint8Array(0)) }]), 'recreate');
const n: number = r.tables.length + s.results.length;
// @ts-expect-error: analyzePath takes a path string
analyzePath(42);
export { n };
`;
    fs.writeFileSync(path.join(app, 'use.ts'), ts);
    fs.writeFileSync(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          // TypeScript's own lib files (lib.dom.d.ts and the ES ones) are not the package's: checking
          // them took 5 of the 13 CPU s. Every other declaration (the package's dist/types, @types/node)
          // is still checked.
          skipDefaultLibCheck: true,
          types: ['node'],
          typeRoots: [path.join(ROOT, 'node_modules/@types')],
        },
        files: ['use.ts'],
      }),
    );
    const tsc = sh(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], app);
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.code).toBe(0);
  }, 300_000);
});

describe.skipIf(!haveChromium)('npx refscope serve', () => {
  let server: ChildProcess | undefined;
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
    // npx runs the bin as its child: end the whole process group, or the server outlives the test.
    try {
      if (server?.pid) process.kill(-server.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  });

  it('serves the app; headless Chromium loads it and analyses a dropped folder', async () => {
    server = spawn('npx', ['--no-install', 'refscope', 'serve', '--port', '0', '--json', '--budget', '300'], {
      cwd: app,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, REFSCOPE_STATE_DIR: path.join(tmp, 'state') },
      // A process group of its own, so afterAll can end npx and the server it started together.
      detached: true,
    });
    let out = '';
    const doc = await new Promise<{ url: string; root: string }>((resolve, reject) => {
      server!.stdout!.on('data', (d) => {
        out += d;
        try {
          resolve(JSON.parse(out));
        } catch {
          /* not complete yet */
        }
      });
      server!.on('exit', (c) => reject(new Error(`serve exited ${c}: ${out}`)));
    });
    expect(doc.root).toBe(fs.realpathSync(path.join(app, 'node_modules/refscope/dist/app')));
    // Cache headers: the page is revalidated, hashed assets are immutable, gzip where accepted.
    const page0 = await fetch(doc.url);
    expect(page0.headers.get('cache-control')).toBe('no-cache');
    expect(page0.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    const html = await page0.text();
    const asset = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)![1];
    const a = await fetch(doc.url + asset, { headers: { 'accept-encoding': 'gzip' } });
    expect(a.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(a.headers.get('content-encoding')).toBe('gzip');
    // A running serve is where share links point by default.
    const shareServe = spawnSync('npx', ['--no-install', 'refscope', 'share', '--json', BASIC], {
      cwd: app,
      encoding: 'utf8',
      env: { ...process.env, REFSCOPE_STATE_DIR: path.join(tmp, 'state') },
    });
    expect(JSON.parse(shareServe.stdout)).toMatchObject({ base: doc.url, baseFrom: 'serve' });

    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const cdp = await context.newCDPSession(page);
    await page.goto(doc.url);
    await waitLoad(page, 0);
    const dir = path.join(FX, 'reftable/nocompact-s2/reftable');
    const prev = await loadId(page);
    await dropPaths(cdp, [dir]);
    await waitLoad(page, prev);
    const want = expected(cliReport(collectInput(dir)));
    expect(want.rows).toEqual(fs.readFileSync(path.join(dir, 'tables.list'), 'utf8').trim().split('\n'));
    expect(await shown(page)).toEqual(want);
    expect(errors).toEqual([]);
  }, 300_000);
});
