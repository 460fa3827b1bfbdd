/**
 * A 5,000-span session from a real SDK agent: loaded once with nothing cut off, stepped through
 * with the keyboard in the browser, its last step reachable; 200-character ids, 4-digit step
 * numbers and thousands separators keep the layout. Functional only: timings are in `pnpm bench`.
 */
import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { runReplayAgent } from '../replay-agent.ts';
import { openReplay, position, selected } from './replay-helpers.ts';

// 720 fail-repair-correct cycles of 7 spans each, and the agent root: 5,041 spans, 2,880 steps (a
// cycle's model turn, failed attempt, repair turn and corrected attempt: the waiting call in two parts).
const CYCLES = 720;
const STEPS = CYCLES * 4;

test('a 5,000-span session: every step reachable, stepped with the keyboard, without overflow', async ({ page }) => {
  test.setTimeout(300_000);
  const id = `large${randomBytes(4).toString('hex')}`.padEnd(200, 'x');
  await runReplayAgent({
    endpoint: process.env.GUARDTRACE_COLLECTOR_URL as string,
    apiKey: process.env.GUARDTRACE_API_KEY as string,
    sessionId: id,
    cycles: CYCLES,
    unlimited: true,
  });
  await openReplay(page, id, STEPS, { ended: true });
  const spans = Number((await page.getByTestId('session-spans').textContent())?.replaceAll(',', ''));
  expect(spans).toBeGreaterThanOrEqual(5000);
  await expect(page.getByTestId('session-spans')).toHaveText(spans.toLocaleString('en-US'));

  // Stepping: 30 × j from the first failure, then back with k.
  await expect(selected(page)).toHaveAttribute('data-step', '2');
  for (let i = 0; i < 30; i++) await page.keyboard.press('j');
  await expect(selected(page)).toHaveAttribute('data-step', '32');
  // The detail pane follows the selection just after it (a deferred render), then settles on it.
  const detail = page.getByTestId('step-detail');
  await expect(detail.locator('> [data-step]')).toHaveAttribute('data-step', '32');
  await expect(detail).toHaveAttribute('aria-busy', 'false');
  for (let i = 0; i < 10; i++) await page.keyboard.press('k');
  await expect(selected(page)).toHaveAttribute('data-step', '22');
  await page.keyboard.press('e');
  // The next failing step after 22 (the cycle's rejected call), with none failing in between.
  await expect(selected(page)).toHaveAttribute('data-failed', 'true');
  await expect(selected(page)).toHaveAttribute('data-kind', 'tool');
  const next = Number(await selected(page).getAttribute('data-step'));
  expect(next).toBeGreaterThan(22);
  for (let n = 23; n < next; n++) await expect(page.locator(`[data-testid=step][data-step="${n}"]`)).not.toHaveAttribute('data-failed', 'true');

  // The last cycle, far below the rendered rows: found by search, selected, scrolled into view.
  await page.keyboard.press('/');
  await page.keyboard.type(`f${CYCLES - 1}.ts`);
  await page.keyboard.press('Enter');
  await page.keyboard.press('Escape');
  await expect(selected(page)).toHaveAttribute('data-step', String(STEPS - 2));
  await expect(selected(page)).toBeInViewport();
  await expect(page.getByTestId('tool-call').getByTestId('attempt')).toHaveCount(2);
  await page.keyboard.press('j');
  await page.keyboard.press('j');
  await expect(position(page)).toHaveText(`Step ${STEPS.toLocaleString('en-US')} of ${STEPS.toLocaleString('en-US')}`);
  await page.keyboard.press('j');
  await expect(selected(page)).toHaveAttribute('data-step', String(STEPS));
  // The step number with its thousands separator, in the row.
  await expect(selected(page)).toContainText(STEPS.toLocaleString('en-US'));

  // The 200-character id and 4-digit steps stay inside the page on a wide and a narrow screen.
  for (const width of [1280, 420]) {
    await page.setViewportSize({ width, height: 900 });
    const sticking = await page.evaluate(() =>
      Array.from(document.querySelectorAll('[data-testid=session-header] *, [data-testid=replay] *, [data-testid=timeline] *, [data-testid=step-detail] *'))
        .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
        .map((e) => `${e.tagName} ${e.getAttribute('data-testid') ?? e.getAttribute('class')}`),
    );
    expect(sticking, `elements past the right edge at ${width}px`).toEqual([]);
  }

  // The span tree holds every span, parent before child.
  await page.getByTestId('view-tree').click();
  await expect(page.getByTestId('tree-node').first()).toHaveAttribute('data-depth', '0');
  await expect(page.getByTestId('tree-node').nth(1)).toHaveAttribute('data-depth', '1');
});
