/**
 * Issue 12's "done when", on the demo data `npm start` sends (packages/sdk/examples/demo-agent.ts,
 * scenario "hallucinated-tool"): from the UI alone, find the session where a hallucinated tool
 * name was corrected, step to the rejection with the keyboard, read the feedback the model got,
 * see the corrected call's diff with the failed field highlighted, and that class's share of tokens.
 */
import { expect, test } from '@playwright/test';

test('finds the corrected hallucinated tool name, steps to its rejection, reads the feedback, the diff and the class share', async ({ page }) => {
  // 1. The explorer's query language: sessions with an unknown-tool failure that named search_codebase.
  await page.goto('/sessions');
  const search = page.getByTestId('session-search');
  // (The demo's agent: other tests' sessions may name search_codebase too.)
  await search.fill('class:unknown_tool agent:file-agent search_codebase');
  await search.press('Enter');
  await expect(page).toHaveURL(/[?&]q=class%3Aunknown_tool/);
  const rows = page.getByTestId('session-row');
  await expect(rows.first()).toBeVisible();
  await expect(rows.first()).toContainText('file-agent');
  // ↓ selects the first session and Enter opens it (typing keys are the search box's own, so leave it first).
  await search.blur();
  // (Once the page has hydrated: a key pressed before that reaches no handler.)
  await expect(async () => {
    if ((await page.locator('tr[data-selected]').count()) === 0) await page.keyboard.press('ArrowDown');
    await expect(page.locator('tr[data-selected]')).toHaveCount(1, { timeout: 500 });
  }).toPass();
  await expect(rows.first()).toHaveAttribute('data-selected', '');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/sessions\/[^/?]+\?/);

  // 2. Keyboard stepping: back to the first step, then e to the next failure, the rejection.
  const current = page.locator('[data-testid=step][data-current=true]');
  await expect(current).toBeVisible();
  await page.keyboard.press('k');
  await page.keyboard.press('k');
  await expect(page).toHaveURL(/[?&]step=1(&|$)/);
  await page.keyboard.press('e');
  await expect(page).toHaveURL(/[?&]step=2(&|$)/);
  await expect(page).toHaveURL(/[?&]attempt=1(&|$)/);

  // The list reads cause → effect, each call with the tools the model named: the rejected attempt,
  // the repair turn, then the corrected attempt (the same waiting call's second part).
  const row = (n: number) => page.locator(`[data-testid=step][data-step="${n}"]`);
  await expect(row(2)).toHaveAttribute('data-kind', 'tool');
  await expect(row(2)).toHaveAttribute('data-failed', 'true');
  await expect(row(2)).toContainText('search_codebase');
  await expect(row(2)).not.toContainText('search_files');
  await expect(row(3)).toHaveAttribute('data-kind', 'model');
  await expect(row(4)).toHaveAttribute('data-kind', 'tool');
  await expect(row(4)).toContainText('search_codebase → search_files');
  await expect(row(4)).not.toHaveAttribute('data-failed', 'true');

  // 3. The rejection and the exact feedback: unknown tool, the name it used, the tools that exist.
  const call = page.getByTestId('tool-call');
  const rejected = call.locator('[data-testid=attempt][data-number="1"]');
  await expect(rejected.getByTestId('failure-class').first()).toHaveAttribute('data-class', 'unknown_tool');
  // The attempt's header names its class once (not again as the error type and the reason).
  const header = ((await rejected.getByTestId('attempt-header').textContent()) ?? '') + ((await rejected.getByTestId('failure-reason').allTextContents()).join(' '));
  expect(header.match(/unknown[ _]tool/gi), header).toHaveLength(1);
  await expect(rejected.getByTestId('attempt-tool')).toHaveText('as search_codebase');
  const feedback = rejected.getByTestId('feedback');
  await expect(feedback).toContainText('search_codebase');
  await expect(feedback).toContainText(/Valid tools[\s\S]*search_files/);
  // The model turn that repaired it is linked from the rejection: the step right after it.
  await expect(rejected.getByTestId('repaired-by')).toContainText('step 3');

  // 4. The corrected call's diff: the tool name is the failed field, fixed by attempt 2; argument
  // paths are pointers into the arguments, as in any argument diff (never under /arguments).
  const diff = call.getByTestId('attempt-diff');
  await expect(diff.getByTestId('diff-pair')).toContainText('Attempt #1 → #2');
  const tool = diff.locator('[data-testid="diff-change"][data-field="tool"]');
  await expect(tool).toHaveAttribute('data-failed', 'true');
  await expect(tool.getByTestId('pointer-verdict')).toHaveAttribute('data-verdict', 'fixed');
  await expect(tool).toContainText('"search_codebase"');
  await expect(tool).toContainText('"search_files"');
  const pointers = await diff.locator('[data-testid="diff-change"][data-field="argument"]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-pointer')));
  expect(pointers.length).toBeGreaterThan(0);
  for (const p of pointers) expect(p).toMatch(/^\/(?!arguments\/)/);
  // l goes to the corrected attempt: the call's second part, after the repair turn.
  await page.keyboard.press('l');
  await expect(page).toHaveURL(/[?&]step=4(&|$)/);
  await expect(page).toHaveURL(/[?&]attempt=2(&|$)/);
  await page.screenshot({ path: test.info().outputPath('hallucinated-tool-diff.png'), fullPage: true });

  // 5. That class's share of the tokens spent on failed attempts, from the menu.
  await page.getByRole('link', { name: 'Analytics' }).click();
  await expect(page).toHaveURL(/\/analytics/);
  const share = page.locator('[data-testid=class-row][data-class=unknown_tool]').getByTestId('class-share');
  await expect(share).toHaveText(/^\d+(\.\d+)?%$/);
  await expect(share).not.toHaveText('0.0%');
});
