#!/usr/bin/env node
// `npm start`: build the CLI and the web app (scripts/build.mjs) and run `refscope serve`, which
// serves dist/app on 127.0.0.1 (port $PORT or 4173, or the next free one) and prints the URL.
// Installs nothing.
//
//   node scripts/start.mjs [--port N] [--no-build] [--open]
//
// `serveStatic` and `buildApp` are also the browser tests' helpers (test/e2e/helpers.ts):
// `serveStatic` is a tiny static file server (no dependencies) that serves a build under any base
// path, sends the same Content Security Policy the built page carries, and never lists directories.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
};

/** Files that must be revalidated on every request: the shell, the service worker, the manifest. */
const NO_CACHE = new Set(['index.html', 'sw.js', 'manifest.webmanifest']);

/**
 * The Content Security Policy of the build in `root` (its index.html's meta tag), plus
 * `frame-ancestors 'none'`, which only a header can carry. Null when there is none.
 */
function cspOf(root) {
  let html;
  try {
    html = fs.readFileSync(path.join(root, 'index.html'), 'utf8');
  } catch {
    return null;
  }
  const m = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/i.exec(html);
  if (!m) return null;
  const policy = m[1]
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
  return `${policy}; frame-ancestors 'none'`;
}

/**
 * Serve `dir` under URL prefix `base` (e.g. '/' or '/some/path/') on 127.0.0.1:`port`
 * (or the next free port when `strict` is false). Resolves to { server, url }.
 */
export function serveStatic(dir, { port = 4173, base = '/', strict = false, host = '127.0.0.1', headers = {} } = {}) {
  const root = path.resolve(dir);
  // Read per request (cheap): `dir` may be a symlink that is switched to another build.
  const policy = () => cspOf(root);
  if (!base.startsWith('/')) base = '/' + base;
  if (!base.endsWith('/')) base += '/';
  const handler = (req, res) => {
    try {
      serve(req, res);
    } catch {
      // Never let one odd request stop the server.
      if (!res.headersSent) res.writeHead(400).end('bad request');
      else res.destroy();
    }
  };
  const serve = (req, res) => {
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    } catch {
      res.writeHead(400).end('bad request');
      return;
    }
    if (pathname + '/' === base) {
      res.writeHead(301, { location: base }).end();
      return;
    }
    if (!pathname.startsWith(base)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    let rel = pathname.slice(base.length);
    if (rel === '' || rel.endsWith('/')) rel += 'index.html';
    if (rel.includes('\0')) {
      res.writeHead(400).end('bad request');
      return;
    }
    const file = path.resolve(root, rel);
    if (file !== root && !file.startsWith(root + path.sep)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    fs.stat(file, (err, st) => {
      if (err || !st.isFile()) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      const type = TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
      const csp = policy();
      const h = {
        'content-type': type,
        'content-length': st.size,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'cache-control': NO_CACHE.has(rel) ? 'no-cache' : 'public, max-age=300',
        ...(csp ? { 'content-security-policy': csp } : {}),
        ...headers,
      };
      if (req.method === 'HEAD') {
        res.writeHead(200, h).end();
        return;
      }
      res.writeHead(200, h);
      fs.createReadStream(file).pipe(res);
    });
  };
  return new Promise((resolve, reject) => {
    const tryPort = (p, left) => {
      const server = http.createServer(handler);
      server.once('error', (e) => {
        if (e.code === 'EADDRINUSE' && !strict && left > 0) tryPort(p + 1, left - 1);
        else reject(e);
      });
      server.listen(p, host, () => {
        const addr = server.address();
        resolve({ server, url: `http://${host}:${addr.port}${base}` });
      });
    };
    tryPort(port, 50);
  });
}

/** Build the app with Vite's JS API into `outDir`. */
export async function buildApp({ outDir = path.join(ROOT, 'dist', 'app'), base = './', logLevel = 'warn' } = {}) {
  // `node -e "import('./scripts/start.mjs')…"` (CommonJS eval) defines a global `__dirname` of '.',
  // which ESM packages that test for `__dirname` take for theirs (vite-plugin-pwa does): hide it.
  const g = globalThis;
  const evalDirname = Object.getOwnPropertyDescriptor(g, '__dirname');
  if (evalDirname?.configurable) delete g.__dirname;
  try {
    const { build } = await import('vite');
    await build({
      root: ROOT,
      configFile: path.join(ROOT, 'vite.config.ts'),
      base,
      logLevel,
      build: { outDir, emptyOutDir: true },
    });
  } finally {
    if (evalDirname?.configurable) Object.defineProperty(g, '__dirname', evalDirname);
  }
  return outDir;
}

async function main(argv) {
  const serveArgs = [];
  let build = true;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--port') serveArgs.push('--port', argv[++i] ?? '');
    else if (a === '--open') serveArgs.push('--open');
    else if (a === '--no-build') build = false;
    else if (a === '--help' || a === '-h') {
      console.log('usage: node scripts/start.mjs [--port N] [--no-build] [--open]');
      return;
    } else {
      console.error(`start: unknown argument ${a}`);
      process.exitCode = 2;
      return;
    }
  }
  if (!serveArgs.includes('--port') && process.env.PORT) serveArgs.push('--port', process.env.PORT);
  if (build) {
    process.stdout.write('Building the CLI and the web app… ');
    const t0 = Date.now();
    const b = await import('./build.mjs');
    await b.buildCli();
    await b.buildApp();
    console.log(`done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const { main: cli } = await import(pathToFileURL(path.join(ROOT, 'dist/cli/refscope.mjs')).href);
  process.exitCode = await cli(['serve', ...serveArgs]);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
