import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { VitePWA, type ManifestOptions } from 'vite-plugin-pwa';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.dirname(fileURLToPath(import.meta.url));

/**
 * Content Security Policy for the production build: only the app's own origin (plus `data:` and
 * `blob:` for images, `blob:` for workers). The service worker (`sw.js`, same origin) is allowed by
 * `worker-src 'self'`; the manifest by `manifest-src 'self'`. Added to the built index.html only:
 * the dev server injects inline scripts (React Fast Refresh) that a strict policy would block.
 * scripts/start.mjs also sends it as a header (with `frame-ancestors 'none'`, which a meta tag
 * cannot carry).
 */
export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "media-src 'none'",
  "worker-src 'self' blob:",
  "frame-src 'none'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'none'",
].join('; ');

function csp(): Plugin {
  return {
    name: 'refscope-csp',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler: () => [
        { tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: CSP }, injectTo: 'head-prepend' },
      ],
    },
  };
}

/**
 * Fetches the page starts from the HTML, before its script runs: the engine worker's script (the
 * largest file on the way to the first analysis; the worker request is served from the HTTP cache,
 * as assets are immutable), the sample list, and the default sample's files. Without them each
 * waited for the script before it (the worker and the list for the page's script, the sample's
 * files for the list). The sample's files are precached by the service worker anyway, so a page
 * opened on another input fetches nothing it would not have fetched. `crossorigin` matches the
 * page's own `fetch()` (CORS mode, same-origin credentials), so the preloads are used.
 */
function startPreloads(): Plugin {
  return {
    name: 'refscope-start-preloads',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler: (_html, ctx) => {
        const worker = Object.keys(ctx.bundle ?? {}).find((f) => /(^|\/)engine\.worker-[^/]*\.js$/.test(f));
        const index = JSON.parse(fs.readFileSync(path.join(ROOT, 'public/samples/index.json'), 'utf8')) as {
          samples: { name: string; default?: boolean; files: string[] }[];
        };
        const sample = index.samples.find((s) => s.default) ?? index.samples[0];
        const fetches = [
          './samples/index.json',
          ...(sample?.files ?? []).map(
            (f) => `./samples/${encodeURIComponent(sample.name)}/${f.split('/').map(encodeURIComponent).join('/')}`,
          ),
        ];
        return [
          // A worker's request cannot use a `preload` (Chromium warns it unused): a prefetch fills
          // the HTTP cache, which the worker's request then reads.
          ...(worker ? [{ rel: 'prefetch', href: `./${worker}` }] : []),
          ...fetches.map((href) => ({ rel: 'preload', href, as: 'fetch', crossorigin: '' })),
        ].map((attrs) => ({ tag: 'link', attrs, injectTo: 'head' as const }));
      },
    },
  };
}

/**
 * The files the other views need and the start-up does not load (their chunks, the chunks only
 * they share, and their CSS), named in the built index.html (`<meta name="refscope-later">`): the
 * shell fetches them into the HTTP cache once the first analysis is on screen (App.tsx
 * `prefetchViews`), one per idle callback, without evaluating them.
 */
function laterFiles(): Plugin {
  return {
    name: 'refscope-later-files',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler: (_html, ctx) => {
        const bundle = ctx.bundle ?? {};
        const chunks = Object.values(bundle).filter((o) => o.type === 'chunk');
        const entry = chunks.find((c) => c.isEntry);
        if (!entry) return [];
        const start = new Set<string>();
        const walk = (f: string) => {
          if (start.has(f)) return;
          start.add(f);
          const c = bundle[f];
          if (c?.type === 'chunk') c.imports.forEach(walk);
        };
        walk(entry.fileName);
        const startCss = new Set([...start].flatMap((f) => [...(cssOf(bundle[f]) ?? [])]));
        const later = new Set<string>();
        for (const c of chunks) {
          if (start.has(c.fileName) || /(^|\/)engine\.worker-/.test(c.fileName)) continue;
          later.add(c.fileName);
          for (const css of cssOf(c) ?? []) if (!startCss.has(css)) later.add(css);
        }
        if (!later.size) return [];
        const content = [...later]
          .sort()
          .map((f) => `./${f}`)
          .join(' ');
        return [{ tag: 'meta', attrs: { name: 'refscope-later', content }, injectTo: 'head' }];
      },
    },
  };
}
function cssOf(o: unknown): Set<string> | undefined {
  return (o as { viteMetadata?: { importedCss?: Set<string> } } | undefined)?.viteMetadata?.importedCss;
}

/**
 * V8's explicit compile hint (`//# allFunctionsCalledOnLoad`, https://v8.dev/blog/explicit-compile-hints)
 * on the chunks the page evaluates at start-up: V8 then compiles every function of those files
 * while it streams them, on a background thread, instead of compiling each one lazily on the main
 * thread at its first call. In a trace of the served build, that lazy compilation was much of the
 * first render's task (the shell is 80 elements; Preact's code and the shell's ran for the first
 * time). The comment must open the file; it is added after minification, which would drop it.
 */
const HINT = '//# allFunctionsCalledOnLoad';
function compileHints(): Plugin {
  return {
    name: 'refscope-compile-hints',
    apply: 'build',
    enforce: 'post',
    // Written into the files: Vite's own last step on the entry (its dependency map) runs after
    // any plugin's generateBundle, and the comment must come before it.
    writeBundle(o, bundle) {
      const entry = Object.values(bundle).find((c) => c.type === 'chunk' && c.isEntry);
      const seen = new Set<string>();
      const walk = (f: string) => {
        const c = bundle[f];
        if (seen.has(f) || c?.type !== 'chunk') return;
        seen.add(f);
        c.imports.forEach(walk);
        const file = path.join(o.dir ?? path.join(ROOT, 'dist/app'), f);
        const code = fs.readFileSync(file, 'utf8');
        if (!code.startsWith(HINT)) fs.writeFileSync(file, `${HINT}\n${code}`);
      };
      if (entry) walk(entry.fileName);
    },
  };
}

/** The app's colours (styles.css: --accent, --bg), for the manifest and the browser chrome. */
export const THEME_COLOR = '#2456b8';
export const BACKGROUND_COLOR = '#f6f7f9';

/**
 * Web app manifest. Every URL is relative (resolved against the manifest's own URL), so the
 * installed app works from whatever path the build is served from.
 */
export const MANIFEST: Partial<ManifestOptions> = {
  name: 'refscope — git reftable inspector',
  short_name: 'refscope',
  description:
    "Inspect git's reference storage (reftable stacks, packed-refs, loose refs) and find out why it is slow. " +
    'Works offline; files are read locally and nothing is uploaded.',
  lang: 'en',
  dir: 'ltr',
  start_url: './',
  scope: './',
  display: 'standalone',
  theme_color: THEME_COLOR,
  background_color: BACKGROUND_COLOR,
  categories: ['developer', 'utilities'],
  icons: [
    { src: 'icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
    { src: 'icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
    { src: 'icons/maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
  ],
  // Opened from the OS file manager: reftable tables (`*.ref`) and `tables.list`, all in one
  // launch (one handler) so that a selection of a stack's files opens as that stack. `packed-refs`
  // has no extension, so no handler can match it: open it with "Open files" or a drop.
  // `sample=none`: a launch with files does not load the default sample first.
  file_handlers: [
    {
      action: './#/overview?sample=none',
      accept: { 'application/x-git-reftable': ['.ref'], 'text/plain': ['.list'] },
    },
  ],
  // A launch with files opens a new window: the analysis already open in another one is kept.
  launch_handler: { client_mode: ['navigate-new', 'auto'] },
};

// `base: './'`: every URL in the build is relative, so the app works from any path
// (`vite build --base /some/path/` works too).
/**
 * The app is written against React's API and types, and runs on Preact through `preact/compat`
 * (the same components, hooks, Suspense and `use`). React DOM alone was three quarters of the
 * start-up bundle (about 200 KB of the 273 KB), and evaluating it and its first render were most
 * of the main thread's blocking time on a phone-class CPU; Preact's is about a tenth of that.
 * Exact names only (`$`): `react-dom/client` and the JSX runtimes have their own entries.
 */
export const PREACT_ALIASES = [
  { find: /^react$/, replacement: 'preact/compat' },
  { find: /^react-dom$/, replacement: 'preact/compat' },
  { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
  { find: /^react\/jsx-runtime$/, replacement: 'preact/jsx-runtime' },
  { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/jsx-dev-runtime' },
];

export default defineConfig({
  base: './',
  resolve: { alias: PREACT_ALIASES },
  plugins: [
    react(),
    csp(),
    startPreloads(),
    laterFiles(),
    compileHints(),
    VitePWA({
      strategies: 'generateSW',
      registerType: 'prompt',
      // Registered by src/app/shell/pwa.ts (virtual:pwa-register): no inline script, no auto reload.
      injectRegister: false,
      filename: 'sw.js',
      manifestFilename: 'manifest.webmanifest',
      manifest: MANIFEST,
      // The manifest and its icons are precached by the glob below (the plugin adds the manifest).
      includeManifestIcons: false,
      workbox: {
        // The app shell, JS/CSS (page and engine worker), fonts if any, icons, and every built-in
        // sample (tables have no common extension, hence `samples/**/*`).
        globPatterns: ['**/*.{html,js,css,png,svg,ico,woff,woff2,json}', 'samples/**/*'],
        globIgnores: ['**/node_modules/**/*', 'sw.js', 'workbox-*.js'],
        // The 50,000-tombstone sample's first table is 1.8 MB.
        maximumFileSizeToCacheInBytes: 8 * 1024 * 1024,
        // Any navigation inside the scope gets the cached shell (offline too).
        navigateFallback: 'index.html',
        cleanupOutdatedCaches: true,
        // The first install takes control of the open page at once (it has nothing to replace);
        // an update waits until the user asks for it (prompt mode: no skipWaiting).
        clientsClaim: true,
        skipWaiting: false,
        // Samples are fetched by their plain URL: no query parameters to ignore.
        ignoreURLParametersMatching: [/^utm_/, /^fbclid$/],
        // Nothing is fetched at run time from anywhere else: no runtime caching routes.
        runtimeCaching: [],
        sourcemap: false,
      },
      devOptions: { enabled: false },
    }),
  ],
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 1024,
    // dist/ also holds the CLI and library bundles (scripts/build.mjs): the app has its own folder.
    outDir: 'dist/app',
  },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
});
