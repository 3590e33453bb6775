/**
 * axe-core in a page of an e2e test: the rules of WCAG 2.x A/AA and axe's best practices, run on
 * the page's document. axe's source is evaluated through the DevTools protocol, which the app's
 * Content Security Policy does not govern, once per document. a11y.test.ts runs it on every view;
 * the views other files reach (Compare with two sides, the fleet view) use `seriousViolations`.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** One rule's violation as axe reports it, with its first four nodes (target and summary). */
export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  nodes: { target: string; summary: string }[];
}

/**
 * axe's violations on the page's document (`only`: just those rules). Reduced motion is asked
 * for first: the app then shows its notices without their fade-in (a CSS animation from opacity
 * 0), which axe would otherwise catch half-transparent and report as low contrast whenever a
 * notice happens to appear during the run (a matter of timing, more likely on a busy machine).
 */
export async function axeViolations(page: Page, only?: string[]): Promise<AxeViolation[]> {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  return page.evaluate(async (only) => {
    const w = window as unknown as {
      axe: {
        run(
          c: Document,
          o: object,
        ): Promise<{
          violations: {
            id: string;
            impact: string;
            help: string;
            nodes: { target: string[]; failureSummary: string }[];
          }[];
        }>;
      };
    };
    const r = await w.axe.run(document, {
      resultTypes: ['violations'],
      ...(only ? { runOnly: { type: 'rule', values: only } } : {}),
    });
    return r.violations.map((x) => ({
      id: x.id,
      impact: x.impact,
      help: x.help,
      nodes: x.nodes.slice(0, 4).map((n) => ({ target: n.target.join(' '), summary: n.failureSummary })),
    }));
  }, only);
}

/** The critical and serious violations as `where: rule (impact) at <first node>` strings. */
export async function seriousViolations(page: Page, where: string): Promise<string[]> {
  return (await axeViolations(page))
    .filter((x) => x.impact === 'critical' || x.impact === 'serious')
    .map((x) => `${where}: ${x.id} (${x.impact}) at ${x.nodes[0]?.target ?? ''}`);
}
