import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Generous: a bound against hangs, not a speed check (the suite must pass on a busy machine).
    testTimeout: 300_000,
    hookTimeout: 600_000,
    pool: 'forks',
    // Test files are independent (each makes its own temporary directories, ports and browser), so
    // two run at once: the slow ones (real gits, browsers, CLI processes) spend much of their time
    // waiting on child processes, and the machine has two cores.
    maxWorkers: 2,
    // One headless Chromium for every browser test file of the run (each file connects to it).
    globalSetup: ['./test/e2e/browser-setup.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
