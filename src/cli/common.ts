/**
 * What every CLI command shares: argument parsing, usage errors, loading a path.
 * Kept apart from main.ts so that command modules and main.ts do not import each other.
 */
import fs from 'node:fs';
import { FormatError, analyzeFiles, classifyInput, type Analysis } from '../engine/index.ts';
import { collectInput } from './node-input.ts';

/** Thrown for a usage error (exit 2). */
export class UsageError extends Error {}

/** Parsed argv: positionals and --flags (with values where the flag takes one). */
export interface Args {
  pos: string[];
  flags: Map<string, string | true>;
}

/** Parse argv; `valued` lists flags that take a value. Throws `UsageError` for unknown flags. */
export function parseArgs(argv: string[], valued: string[], boolean: string[], repeatable: string[] = []): Args {
  const pos: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const [k, v] = a.includes('=') ? [a.slice(2, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a.slice(2), undefined];
      if (valued.includes(k)) {
        const val = v ?? argv[++i];
        if (val === undefined) throw new UsageError(`--${k} needs a value`);
        // A repeatable option collects its values as a comma list (`--model a --model b` = `--model a,b`);
        // any other valued option given twice keeps the last value, as git's options do.
        const had = flags.get(k);
        flags.set(k, repeatable.includes(k) && typeof had === 'string' ? `${had},${val}` : val);
      } else if (boolean.includes(k)) {
        if (v !== undefined) throw new UsageError(`--${k} takes no value (found --${k}=${v})`);
        flags.set(k, true);
      } else throw new UsageError(`unknown option --${k}`);
    } else pos.push(a);
  }
  return { pos, flags };
}

/**
 * A whole-number option in [lo, hi], written in decimal digits only (no "1e2", "0x10", " 3");
 * undefined when absent. Throws UsageError "--<name> takes an integer from <lo> to <hi>".
 */
export function intFlag(flags: Map<string, string | true>, name: string, lo: number, hi: number): number | undefined {
  if (!flags.has(name)) return undefined;
  const raw = String(flags.get(name));
  const v = /^[0-9]{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(v) || v < lo || v > hi) throw new UsageError(`--${name} takes an integer from ${lo.toLocaleString('en-US')} to ${hi.toLocaleString('en-US')}`);
  return v;
}

/** `--factor N` (reftable.geometricFactor, 2..255); 2 when absent. */
export function factorFlag(flags: Map<string, string | true>): number {
  return intFlag(flags, 'factor', 2, 255) ?? 2;
}

/** Load and analyse a path; throws FormatError or UsageError. */
export function loadPath(p: string | undefined): Analysis {
  if (!p) throw new UsageError('missing <path>');
  if (!fs.existsSync(p)) throw new UsageError(`no such file or directory: ${p}`);
  const files = collectInput(p);
  if (classifyInput(files).kind === 'empty' && !files.some((f) => f.path.split('/').pop() === 'config')) {
    throw new FormatError(p, 0, 'a reftable/ directory with tables.list, a .ref file, a packed-refs file or a .git directory; found none of these');
  }
  return analyzeFiles(files);
}

/** First parse error of an analysis, as a FormatError, or null. */
export function firstError(a: Analysis): FormatError | null {
  return a.stack?.broken[0]?.error ?? (a.findings.find((f) => f.severity === 'error')
    ? (() => { const f = a.findings.find((x) => x.severity === 'error')!; return new FormatError(f.file, f.offset, f.message); })()
    : null);
}

