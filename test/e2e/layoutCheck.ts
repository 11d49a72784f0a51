/**
 * Checks of what a user can read on a screen, run in the page (issue 11):
 *
 * - every form field the user needs is wide enough to use (text fields and selects at least
 *   3rem, any control at least 12 px) and not cut by a pane or a scroll box around it;
 * - every list cell (grid cells, table cells) has some width, is not cut by its pane, and when
 *   its text is cut (an ellipsis) it carries its full value as a tooltip (its title);
 * - the status bar is one line.
 *
 * Each problem comes back as one line naming the element, so that a failure says what to fix.
 * And `axeViolations`: an axe-core audit's serious and critical violations.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
// Evaluated rather than added as a <script>: the app's Content-Security-Policy refuses inline scripts.
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const LAYOUT_PROBLEMS = fs.readFileSync(new URL('./layoutProblems.browser.js', import.meta.url), 'utf8');

/** What is clipped on the page now (empty when all is readable). */
export async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(${LAYOUT_PROBLEMS.trim()})()`);
}

export interface AxeViolation {
  readonly id: string;
  readonly impact: string;
  readonly help: string;
  readonly targets: readonly string[];
}

/** The axe-core audit's serious and critical violations on the page now. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate<boolean>("'axe' in window"))) await page.evaluate(`${AXE_SOURCE}\n;true`);
  const found = await page.evaluate<{ id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[]>(
    "axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations)",
  );
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact ?? '', help: v.help, targets: v.nodes.slice(0, 5).map((n) => JSON.stringify(n.target)) }));
}

/**
 * Issue 24 §4: what must be read whole on the host list, the host and History. Each problem as
 * one line: a box the user would scroll sideways (a horizontal scrollbar), an address or a time
 * cut in a list cell.
 */
export async function wholeValueProblems(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const problems = [];
    const shown = (el) => { const s = getComputedStyle(el); return s.display !== 'none' && s.visibility !== 'hidden' && el.getClientRects().length > 0; };
    const label = (el) => '<' + el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ')[0] : '') + '> "' + (el.getAttribute('aria-label') || el.textContent.trim().slice(0, 40)) + '"';
    for (const el of document.querySelectorAll('main, main *')) {
      if (!shown(el) || el.closest('.bounded-whole')) continue;
      const style = getComputedStyle(el);
      if ((style.overflowX === 'auto' || style.overflowX === 'scroll') && el.scrollWidth > el.clientWidth + 1) problems.push(label(el) + ': scrolls sideways (' + el.scrollWidth + ' px in ' + el.clientWidth + ')');
    }
    const cut = (el) => el.scrollWidth > el.clientWidth + 1;
    for (const grid of document.querySelectorAll('[role="grid"]')) {
      for (const row of grid.querySelectorAll('[role="row"]')) {
        const cells = row.querySelectorAll('[role="gridcell"]');
        if (grid.getAttribute('aria-label') === 'Known hosts' && cells[0] && cut(cells[0])) problems.push('address cut: ' + cells[0].textContent);
        for (const time of row.querySelectorAll('time')) {
          const cell = time.closest('[role="gridcell"]');
          if (cell && (cut(cell) || time.getBoundingClientRect().right > cell.getBoundingClientRect().right + 1)) problems.push('time cut: ' + time.textContent);
        }
      }
    }
    return problems;
  })()`);
}

/** Whether the element's top is in the window, its top part at least shown (what a click opened is seen). */
export async function inView(page: Page, selector: string): Promise<boolean> {
  return page.evaluate<boolean>(`(() => { const el = document.querySelector(${JSON.stringify(selector)}); if (!el) return false; const r = el.getBoundingClientRect(); return r.top > -2 && r.top < window.innerHeight - 40; })()`);
}
