/**
 * The engine (src/engine) runs unchanged in the worker, the CLI and the tests: it imports no Node
 * module and touches no DOM or worker-only global.
 */
import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '../src/engine');
function files(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
    );
}
const NODE_MODULES = [
  'fs',
  'path',
  'os',
  'child_process',
  'crypto',
  'url',
  'util',
  'stream',
  'buffer',
  'worker_threads',
  'zlib',
  'http',
  'https',
  'net',
  'process',
];
const FORBIDDEN_GLOBALS = [
  'document',
  'window',
  'localStorage',
  'sessionStorage',
  'HTMLElement',
  'FileReaderSync',
  'FileReader',
  'Buffer',
  'process',
  'require',
  '__dirname',
  'fetch',
  'XMLHttpRequest',
  'WebSocket',
  'navigator',
];

describe('engine purity', () => {
  const all = files(ROOT);
  it('has engine files', () => expect(all.length).toBeGreaterThan(5));
  for (const f of all) {
    it(path.relative(ROOT, f), () => {
      const src = fs.readFileSync(f, 'utf8');
      // Strip comments and string contents that are not import specifiers.
      const code = src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
      const imports = [
        ...code.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g),
      ].map((m) => m[1] ?? m[2]);
      for (const spec of imports) {
        expect(spec.startsWith('node:'), `${spec} in ${f}`).toBe(false);
        expect(NODE_MODULES.includes(spec), `${spec} in ${f}`).toBe(false);
        expect(
          spec.startsWith('.') || ['fflate'].includes(spec),
          `only relative imports and fflate in the engine: ${spec}`,
        ).toBe(true);
      }
      const noStrings = code.replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g, "''");
      for (const g of FORBIDDEN_GLOBALS) {
        expect(new RegExp(`(?<![\\w.$])${g}\\s*[.(\\[]`).test(noStrings), `global ${g} used in ${f}`).toBe(false);
      }
    });
  }
});
