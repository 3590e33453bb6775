/**
 * `import … from 'refscope'` in Node: the whole engine (as `refscope/engine`) plus the helpers
 * that read a path on disk.
 *
 *   import { analyzePath, buildReport, simulate } from 'refscope';
 *   const a = analyzePath('.git');            // a reftable/ dir, tables.list, .ref, packed-refs or .git
 *   console.log(buildReport(a).stack?.live);  // the refscope.report/1 document (docs/report.md)
 *   const sim = simulate(a, 'recreate');      // refscope.simulation/1 (docs/simulation.md)
 */
import {
  analyzeFiles,
  buildReport,
  FormatError,
  type Analysis,
  type BuildOptions,
  type OpenOptions,
  type Report,
} from '../engine/index.ts';
import { collectInput } from '../cli/node-input.ts';

export * from './engine.ts';
export { collectInput } from '../cli/node-input.ts';

/** Options of `analyzePath` and `reportPath`. */
export type AnalyzePathOptions = Pick<OpenOptions, 'deadline' | 'maxRecords' | 'onProgress'>;

/**
 * Read and analyse a path on disk, as `refscope analyze` does: a `reftable/` directory, a
 * `tables.list` or `.ref` file, a `packed-refs` file, or a `.git` directory / bare repository of
 * either backend. Files are read lazily, in slices. Throws `FormatError` (file, byte offset, what
 * was expected) when nothing usable is there; damage inside one table is in `stack.broken` and the
 * report's `findings`. Node's own errors (ENOENT, EACCES) are thrown as they are.
 */
export function analyzePath(path: string, opts: AnalyzePathOptions = {}): Analysis {
  const files = collectInput(path);
  if (files.length === 0)
    throw new FormatError(
      path,
      0,
      'a reftable/ directory with tables.list, a .ref file, a packed-refs file or a .git directory; found an empty directory',
    );
  return analyzeFiles(files, opts);
}

/** `analyzePath` then `buildReport`: the `refscope.report/1` document of a path. */
export function reportPath(path: string, opts: AnalyzePathOptions & BuildOptions = {}): Report {
  return buildReport(analyzePath(path, opts), { factor: opts.factor });
}
