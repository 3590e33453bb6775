/**
 * Vitest global setup: one headless Chromium for all the browser test files of a run, instead of
 * one launch per file (each launch costs a few seconds of CPU). It is started in vitest's main
 * process, which outlives the test workers; each file connects to it (`launchBrowser` in
 * helpers.ts) and gets contexts of its own, so no state passes between files. A run of named
 * files none of which is a browser test starts no browser; without Chromium, none either (the
 * browser tests skip).
 */
import { chromium, type BrowserServer } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { ARGS, CHROMIUM, haveChromium } from './helpers.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared browser's WebSocket endpoint; empty when none was started. */
    chromiumWs: string;
  }
}

/** The file filters vitest was given (`vitest run test/a.test.ts …`): empty for a whole run. */
function fileFilters(): string[] {
  const args = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  return args.filter((a) => !['run', 'watch', 'related', 'dev'].includes(a));
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const filters = fileFilters();
  const wanted = haveChromium && (filters.length === 0 || filters.some((f) => f.includes('e2e')));
  let server: BrowserServer | undefined;
  if (wanted) server = await chromium.launchServer({ executablePath: CHROMIUM, args: ARGS });
  project.provide('chromiumWs', server?.wsEndpoint() ?? '');
  return async () => {
    await server?.close();
  };
}
