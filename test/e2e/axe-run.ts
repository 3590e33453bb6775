/**
 * axe-core in a page of an e2e test, for the views other files reach (Compare with two sides, the
 * fleet view): the violations of the rules of WCAG 2.x A/AA and axe's best practices, as
 * `where: rule (impact)` strings, critical and serious only. axe's source is evaluated through
 * the DevTools protocol, which the app's Content Security Policy does not govern.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export async function seriousViolations(page: Page, where: string): Promise<string[]> {
  await page.evaluate(AXE);
  const v = await page.evaluate(async () => {
    const w = window as unknown as {
      axe: {
        run(
          c: Document,
          o: object,
        ): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>;
      };
    };
    const r = await w.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((x) => ({ id: x.id, impact: x.impact, first: x.nodes[0]?.target.join(' ') ?? '' }));
  });
  return v
    .filter((x) => x.impact === 'critical' || x.impact === 'serious')
    .map((x) => `${where}: ${x.id} (${x.impact}) at ${x.first}`);
}
