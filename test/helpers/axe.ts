import axe from 'axe-core';
import type { Page } from 'playwright-core';

/** One axe-core finding, in words a failing assertion can show. */
export interface AxeFinding {
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * axe-core's WCAG 2.x A/AA rules (and its best practices) run in the page as it is now. The
 * library's source is evaluated through the DevTools protocol, which the page's CSP does not
 * govern, so the CSP the tests check stays as served. Answers every violation; callers choose
 * the impacts they refuse.
 */
export async function axeFindings(page: Page): Promise<AxeFinding[]> {
  // Evaluated once per document: a page checked again (at another width, in another theme)
  // already has it, and its 500 kB of source cost Chromium a parse each time.
  if (!(await page.evaluate<boolean>("typeof window.axe === 'object'"))) await page.evaluate(axe.source);
  // An expression run in the page (this project's types have no DOM).
  const results = await page.evaluate<AxeFinding[]>(`(async () => {
    const found = await axe.run(document, { resultTypes: ['violations'] });
    return found.violations.map((violation) => ({
      rule: violation.id,
      impact: violation.impact ?? 'unknown',
      help: violation.help,
      targets: violation.nodes.slice(0, 5).map((node) => node.target.join(' ')),
    }));
  })()`);
  return results;
}

/** The serious and critical findings: the ones no page may have. */
export async function seriousAxeFindings(page: Page): Promise<AxeFinding[]> {
  return (await axeFindings(page)).filter((finding) => finding.impact === 'serious' || finding.impact === 'critical');
}
