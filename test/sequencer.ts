/**
 * The order test files start in: the longest first, so that the run does not end with one long
 * file running alone while the other workers sit idle. Vitest orders by the
 * durations of the last run it cached, but a fresh clone has none and falls back to file size,
 * which puts short files that take long (the crafted-links file opens 59 links in a browser) at
 * the end. The list below is those known to take longest, from a whole run's per-file times;
 * every other file follows in vitest's own order. With three workers on two cores (see
 * vitest.config.ts) the first three are the two builds and a file of pure CPU work.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const LONGEST_FIRST = [
  'test/e2e/views.test.ts',
  // Second: it makes its own build (npm pack) while the first builds the browser files' one.
  'test/package.test.ts',
  // Third: a file of its own CPU work, where a browser file would wait for the first one's build.
  'test/share.test.ts',
  'test/e2e/links.test.ts',
  'test/realgit-suite.test.ts',
  'test/e2e/a11y.test.ts',
  'test/e2e/pwa.test.ts',
  'test/e2e/simulator.test.ts',
  'test/e2e/app.test.ts',
  'test/simulate-realgit.test.ts',
  'test/realgit-properties.test.ts',
  'test/e2e/conventions.test.ts',
  'test/simulate-literal.test.ts',
  'test/locks.test.ts',
  'test/scan.test.ts',
  'test/realgit-cases.test.ts',
  'test/hostile-regress.test.ts',
  'test/compact.test.ts',
  'test/schemas.test.ts',
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification): number => {
      const rel = f.moduleId
        .slice(this.ctx.config.root.length + 1)
        .split('\\')
        .join('/');
      const i = LONGEST_FIRST.indexOf(rel);
      return i < 0 ? LONGEST_FIRST.length : i;
    };
    // A stable sort: files off the list keep vitest's order among themselves.
    return sorted
      .map((f, i) => ({ f, i, r: rank(f) }))
      .sort((a, b) => a.r - b.r || a.i - b.i)
      .map((x) => x.f);
  }
}
