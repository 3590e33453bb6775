/**
 * `refscope serve [--port N] [--open]`: serve the built web app (dist/app of the package) on
 * 127.0.0.1 and print its URL. Static files through sirv: gzip where the build has a `.gz` beside
 * a file (scripts/build.mjs writes them) and the browser accepts it; hashed assets (`assets/`)
 * cached for a year as immutable, everything else (index.html, the service worker, the manifest,
 * the samples) revalidated on every load (`no-cache` with an ETag). The page's Content Security
 * Policy is sent as a header too, with `frame-ancestors 'none'`, which only a header can carry.
 *
 * While it runs, a state file (`serve.json` in `$REFSCOPE_STATE_DIR`, else
 * `$XDG_STATE_HOME/refscope`, else `~/.local/state/refscope`) names its URL, so `refscope share`
 * makes links that open in it (`findServe`).
 */
import fs from 'node:fs';
import http from 'node:http';
import zlib from 'node:zlib';
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FormatError } from '../engine/basics.ts';
import { GENERATOR } from '../engine/report.ts';
import { UsageError, flag, intOption, str, writeJson, type CommandSpec, type Context } from './common.ts';

export const SERVE_SCHEMA = 'refscope.serve/1';
/** The port `serve` tries first (then the next free ones), the one share links default to. */
export const DEFAULT_PORT = 4173;
/** A response header only refscope's server sends: how `findServe` tells it from another server. */
export const SERVE_HEADER = 'x-refscope';

/** Where `serve` records its URL while it runs. */
export function stateFile(): string {
  const dir =
    process.env.REFSCOPE_STATE_DIR ||
    path.join(process.env.XDG_STATE_HOME || path.join(os.homedir(), '.local', 'state'), 'refscope');
  return path.join(dir, 'serve.json');
}

/** Is a refscope server answering at `url`? (One HEAD request, at most `timeoutMs`.) */
function probe(url: string, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      resolve(false);
      return;
    }
    if (u.protocol !== 'http:' || !['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)) {
      resolve(false);
      return;
    }
    const req = http.request(u, { method: 'HEAD', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200 && res.headers[SERVE_HEADER] !== undefined);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/**
 * The URL of a running `refscope serve` on this machine, or null: the one its state file names
 * (if that process is alive and answers), else one answering on the default port.
 */
export async function findServe(): Promise<string | null> {
  try {
    const s = JSON.parse(fs.readFileSync(stateFile(), 'utf8')) as { url?: unknown; pid?: unknown };
    if (typeof s.url === 'string' && typeof s.pid === 'number') {
      let alive = false;
      try {
        process.kill(s.pid, 0);
        alive = true;
      } catch (e) {
        alive = (e as NodeJS.ErrnoException).code === 'EPERM';
      }
      if (alive && (await probe(s.url))) return s.url;
    }
  } catch {
    // no state file, or not ours: probe the default port
  }
  const url = `http://127.0.0.1:${DEFAULT_PORT}/`;
  return (await probe(url)) ? url : null;
}

/**
 * The built app: `$REFSCOPE_APP_DIR` when set (another build of the app), else dist/app beside
 * the bundle (package), or the checkout's dist/app.
 */
export function appDir(): string | null {
  const env = process.env.REFSCOPE_APP_DIR;
  if (env) return fs.existsSync(path.join(env, 'index.html')) ? path.resolve(env) : null;
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const c of [path.join(here, '../app'), path.join(here, '../../dist/app')]) {
    if (fs.existsSync(path.join(c, 'index.html'))) return path.resolve(c);
  }
  return null;
}

/** In a checkout without a build: build the app (scripts/build.mjs --app). */
async function buildInCheckout(): Promise<string | null> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const root of [path.join(here, '../..'), path.join(here, '..', '..', '..')]) {
    const script = path.join(root, 'scripts/build.mjs');
    if (fs.existsSync(script) && fs.existsSync(path.join(root, 'src/app'))) {
      process.stderr.write('refscope: no built app yet; building it (node scripts/build.mjs --app)…\n');
      const m = (await import(pathToFileURL(script).href)) as { buildApp(): Promise<unknown> };
      await m.buildApp();
      return appDir();
    }
  }
  return null;
}

/** The build's Content Security Policy (index.html's meta tag) plus `frame-ancestors 'none'`. */
function cspOf(dir: string): string | null {
  const html = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
  const m = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/i.exec(html);
  if (!m) return null;
  const policy = m[1]
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
  return `${policy}; frame-ancestors 'none'`;
}

/** Cache-Control for a path: hashed assets forever, everything else revalidated. */
export function cacheControl(pathname: string): string {
  return /^\/assets\/[^/]+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/.test(pathname)
    ? 'public, max-age=31536000, immutable'
    : 'no-cache';
}

/**
 * Files worth sending compressed: text, and the samples' reftable tables (as scripts/build.mjs
 * `precompress` does for a checkout's build). Images and compressed formats go as they are.
 */
const COMPRESSIBLE = /\.(?:html|js|mjs|css|json|webmanifest|svg|txt|map|ref)$/;

/**
 * The app directory to serve, with a `.gz` beside every compressible file for sirv to send to
 * browsers that accept gzip. A checkout's build has them; the package leaves them out (its
 * tarball is gzip already, so they would ship the app twice), and the first `serve` writes a
 * compressed copy to the temporary directory, keyed by a digest of the app's files, reused later.
 */
export function withGzip(dir: string): string {
  const list: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else if (e.isFile()) list.push(r);
    }
  };
  walk('');
  const text = list.filter((r) => COMPRESSIBLE.test(r) && fs.statSync(path.join(dir, r)).size >= 1024);
  if (!text.length || text.some((r) => list.includes(r + '.gz'))) return dir;
  const digest = crypto.createHash('sha256');
  for (const r of list.sort()) digest.update(r + '\0' + fs.statSync(path.join(dir, r)).size + '\0');
  for (const r of text) digest.update(fs.readFileSync(path.join(dir, r)));
  const out = path.join(os.tmpdir(), `refscope-app-${digest.digest('hex').slice(0, 16)}`);
  if (fs.existsSync(path.join(out, 'index.html'))) return out;
  const tmp = fs.mkdtempSync(out + '-');
  fs.cpSync(dir, tmp, { recursive: true });
  for (const r of text) {
    const raw = fs.readFileSync(path.join(tmp, r));
    const gz = zlib.gzipSync(raw, { level: 9 });
    if (gz.length < raw.length * 0.9) fs.writeFileSync(path.join(tmp, r + '.gz'), gz);
  }
  try {
    fs.renameSync(tmp, out);
  } catch {
    // Another serve made it first: use that one.
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return fs.existsSync(path.join(out, 'index.html')) ? out : dir;
}

/** Start the server on the first free port from `port` (only `port` when `strict`). */
export async function startServer(
  dir: string,
  port: number,
  strict: boolean,
): Promise<{ server: http.Server; url: string; port: number }> {
  const { default: sirv } = await import('sirv');
  const csp = cspOf(dir);
  const files = sirv(withGzip(dir), {
    dev: false,
    etag: true,
    gzip: true,
    brotli: false,
    setHeaders(res, pathname) {
      res.setHeader('Cache-Control', cacheControl(pathname));
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Referrer-Policy', 'no-referrer');
      res.setHeader(SERVE_HEADER, GENERATOR);
      if (csp && (pathname.endsWith('/') || pathname.endsWith('.html'))) res.setHeader('Content-Security-Policy', csp);
    },
  });
  const server = http.createServer((req, res) => {
    files(req, res, () => {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', [SERVE_HEADER]: GENERATOR }).end('not found\n');
    });
  });
  for (let p = port; ; p++) {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(p, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
      const actual = (server.address() as { port: number }).port;
      return { server, url: `http://127.0.0.1:${actual}/`, port: actual };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || strict || p >= port + 50 || port === 0) throw e;
    }
  }
}

/** Open `url` in the desktop's browser (best effort: no browser is not an error). */
function openBrowser(url: string): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', () =>
      process.stderr.write(`refscope: could not open a browser (${cmd}); open ${url} yourself\n`),
    );
    child.unref();
  } catch {
    // reported by the error handler above where spawn gets that far
  }
}

async function run(ctx: Context): Promise<number> {
  const given = str(ctx, 'port');
  const port = intOption(ctx, 'port', 0, 65535) ?? DEFAULT_PORT;
  const dir = appDir() ?? (process.env.REFSCOPE_APP_DIR ? null : await buildInCheckout());
  if (!dir)
    throw new FormatError(
      'dist/app',
      0,
      'the built web app (index.html) in the package; reinstall refscope, or run npm run build in a checkout',
    );
  const { server, url, port: actual } = await startServer(dir, port, given !== undefined);
  const state = stateFile();
  const record = { url, port: actual, pid: process.pid, root: dir, started: new Date().toISOString() };
  try {
    fs.mkdirSync(path.dirname(state), { recursive: true });
    fs.writeFileSync(state, JSON.stringify(record) + '\n');
  } catch {
    // No state directory: share links then find this server only on the default port.
  }
  if (ctx.json) writeJson({ schema: SERVE_SCHEMA, generator: GENERATOR, ...record, stateFile: state });
  else {
    process.stdout.write(`refscope is running at ${url}\n`);
    process.stderr.write(
      'Drop a reftable/ folder, a .git folder or .ref files onto the page. Nothing leaves this machine. Press Ctrl+C to stop.\n',
    );
  }
  if (flag(ctx, 'open')) openBrowser(url);
  return await new Promise<number>((resolve) => {
    const stop = () => {
      try {
        const s = JSON.parse(fs.readFileSync(state, 'utf8')) as { pid?: number };
        if (s.pid === process.pid) fs.rmSync(state, { force: true });
      } catch {
        // already gone
      }
      server.close(() => resolve(0));
      server.closeAllConnections();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    // `--budget` given: serve that long, then stop (scripts and tests); by default until stopped.
    if (ctx.values.budget !== undefined) setTimeout(stop, ctx.budgetMs).unref();
  });
}

export const serveCommand: CommandSpec = {
  name: 'serve',
  usage: '[--port N] [--open]',
  summary:
    "Serve refscope's web app from the package on 127.0.0.1 and print its URL. Files you drop onto the page are read there, in the browser; nothing is uploaded.",
  args: { min: 0, max: 0 },
  options: {
    port: {
      type: 'string',
      value: 'N',
      help: `listen on port N only (default: ${DEFAULT_PORT} or the next free one; 0: any free port)`,
    },
    open: { type: 'boolean', help: "open the URL in the desktop's browser" },
  },
  schema: SERVE_SCHEMA,
  details:
    '--budget <seconds> stops the server after that time; without it, it serves until Ctrl+C.\n`refscope share` links point at the running server (its URL is kept in serve.json in\n$REFSCOPE_STATE_DIR, else $XDG_STATE_HOME/refscope, else ~/.local/state/refscope).',
  run: (ctx) => {
    if (ctx.positionals.length) throw new UsageError('serve takes no path');
    return run(ctx);
  },
};
