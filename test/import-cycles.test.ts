/**
 * No module of src/ or workers/ imports itself through others: the layers of ARCHITECTURE.md
 * stay a graph without circles. The graph is read from the import and re-export statements of
 * every source file (type-only ones excluded: they vanish at compile time and order nothing).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, expect } from 'vitest';

const ROOT = path.resolve(__dirname, '..');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(ts|tsx)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Runtime imports of one file: `import … from`, `import '…'`, `export … from`, `import('…')`. */
export function importsOf(text: string): string[] {
  const specs: string[] = [];
  const stmt = /^\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/gm;
  for (const m of text.matchAll(stmt)) {
    if (m[2]) continue; // `import type …` / `export type …`
    // `import { type A, type B } from …` imports nothing at run time either.
    const braces = /^\{([^}]*)\}$/.exec(m[3].trim());
    if (braces && braces[1].split(',').every((s) => !s.trim() || /^type\s/.test(s.trim()))) continue;
    specs.push(m[4]);
  }
  for (const m of text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) specs.push(m[1]);
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) specs.push(m[1]);
  return specs;
}

function resolve(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const p = path.resolve(path.dirname(from), spec);
  for (const c of [p, `${p}.ts`, `${p}.tsx`, path.join(p, 'index.ts')]) {
    if (fs.existsSync(c) && fs.statSync(c).isFile() && /\.(ts|tsx)$/.test(c)) return c;
  }
  return null;
}

/** Every cycle's first closing path found by a depth-first walk (white/grey/black marking). */
export function findCycles(graph: Map<string, string[]>): string[][] {
  const state = new Map<string, 1 | 2>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (n: string): void => {
    state.set(n, 1);
    stack.push(n);
    for (const m of graph.get(n) ?? []) {
      const s = state.get(m);
      if (s === 1) cycles.push([...stack.slice(stack.indexOf(m)), m]);
      else if (s === undefined) visit(m);
    }
    stack.pop();
    state.set(n, 2);
  };
  for (const n of [...graph.keys()].sort()) if (!state.has(n)) visit(n);
  return cycles;
}

describe('import graph', () => {
  it('the cycle finder finds a circle and passes a tree (a hand-made graph)', () => {
    const g = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(findCycles(g)).toEqual([['a', 'b', 'c', 'a']]);
    expect(
      findCycles(
        new Map([
          ['a', ['b', 'c']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
    ).toEqual([]);
    expect(
      importsOf(
        `import type { A } from './a.ts';\nimport { type B } from './b.ts';\nexport * from './c.ts';\nimport './d.css';\nconst e = await import('./e.ts');`,
      ),
    ).toEqual(['./c.ts', './d.css', './e.ts']);
  });

  it('no module of src/ or workers/ imports itself through others', () => {
    const files = [...sourceFiles(path.join(ROOT, 'src')), ...sourceFiles(path.join(ROOT, 'workers'))];
    expect(files.length).toBeGreaterThan(100);
    const graph = new Map<string, string[]>();
    for (const f of files) {
      const deps = importsOf(fs.readFileSync(f, 'utf8'))
        .map((s) => resolve(f, s))
        .filter((d): d is string => d !== null);
      graph.set(
        path.relative(ROOT, f),
        deps.map((d) => path.relative(ROOT, d)),
      );
    }
    expect([...graph.values()].flat().length).toBeGreaterThan(300);
    expect(findCycles(graph).map((c) => c.join(' → '))).toEqual([]);
  });
});
