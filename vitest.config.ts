import { defineConfig } from 'vitest/config';
import LongestFirst from './test/sequencer.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Generous: a bound against hangs, not a speed check (the suite must pass on a busy machine).
    testTimeout: 300_000,
    hookTimeout: 600_000,
    pool: 'forks',
    // Test files are independent (each makes its own temporary directories, ports and browser), so
    // several run at once. Three on two cores: the slow files (browsers, real gits, CLI processes)
    // spend about half their time waiting on another process (a browser file measured alone: 50 s
    // of CPU in 100 s), so two workers left a core idle a third of the run; a third worker fills
    // it. Each worker is a process holding the engine and its fixtures, a few hundred MB.
    maxWorkers: 3,
    // A worker runs file after file in one process with one module cache: loading the engine and
    // the test libraries (and starting a process) once per worker instead of once per file. The
    // files share no state through modules: each makes its own directories, servers and browser
    // contexts, and what they change in the process (the environment, stdout while the in-process
    // CLI runs) they put back.
    isolate: false,
    sequence: { sequencer: LongestFirst },
    // One headless Chromium for every browser test file of the run (each file connects to it).
    globalSetup: ['./test/e2e/browser-setup.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
