import { expect, test } from '@playwright/test';
import { goToStep } from './replay-helpers.ts';

test('the demo agent\'s sessions appear in the sessions list', async ({ page }) => {
  const expected = Number(process.env.GUARDTRACE_DEMO_SESSIONS);
  expect(expected).toBeGreaterThanOrEqual(6);
  await page.goto('/');
  await expect(page).toHaveURL(/\/sessions/);
  await expect(page.getByTestId('session-row').filter({ hasText: 'demo-' })).toHaveCount(expected);
  // Clean and failing sessions are both there, with their outcomes.
  await expect(page.getByTestId('session-row').filter({ hasText: /escalated/i }).first()).toBeVisible();
  await expect(page.getByTestId('session-row').filter({ hasText: /success/i }).first()).toBeVisible();
});

test('a session opens and shows each tool call with its attempts and guard results', async ({ page }) => {
  await page.goto('/sessions');
  const row = page.getByTestId('session-row').filter({ hasText: /escalated/i }).first();
  const id = await row.getAttribute('data-session-id');
  // A click anywhere on the row opens it (here: its right end, far from the id link).
  const box = await row.boundingBox();
  await row.click({ position: { x: (box?.width ?? 100) - 10, y: 10 } });
  await expect(page).toHaveURL(new RegExp(`/sessions/${encodeURIComponent(id ?? '')}\\?`));
  // The step list shows every call with one dot per attempt; the replay opens on the first failure.
  await expect(page.getByTestId('attempt-dot').first()).toBeVisible();
  expect(await page.getByTestId('attempt-dot').count()).toBeGreaterThanOrEqual(2);
  // A failed attempt's dot is a square and a passed one's a circle: the outcome does not rest on colour
  // (nor on a green that a failure class might share).
  const radii = await page.getByTestId('attempt-dot').evaluateAll((dots) => dots.map((d) => [d.getAttribute('data-outcome'), getComputedStyle(d).borderRadius]));
  expect(radii.some(([outcome]) => outcome === 'failed')).toBe(true);
  for (const [outcome, radius] of radii) {
    if (outcome === 'success') expect(radius).not.toBe('1px');
    else expect(radius, `${outcome}`).toBe('1px');
  }
  await expect(page.getByTestId('tool-call')).toBeVisible();
  await expect(page.getByTestId('attempt').first()).toBeVisible();
  await expect(page.getByTestId('guard-check').first()).toBeVisible();
  await expect(page.getByTestId('failure-class').first()).toBeVisible();
});

test('a hallucinated tool name is shown as unknown_tool with the valid names fed back', async ({ page }) => {
  // The demo's own sessions: other tests' sessions with the same class may be newer.
  await page.goto('/sessions?q=class:unknown_tool%20agent:file-agent%20user:demo-user');
  const rows = page.getByTestId('session-row');
  await expect(rows.first()).toBeVisible();
  await rows.first().getByRole('link').first().click();
  await goToStep(page, 'unknown_tool');
  const badge = page.getByTestId('failure-class').filter({ hasText: /unknown[ _]tool/ }).first();
  await expect(badge).toBeVisible();
  // The feedback the model saw lists the tools that do exist.
  await expect(page.getByTestId('attempt').filter({ hasText: /unknown[ _]tool/ }).first()).toContainText(/Valid tools[\s\S]*read_file/);
});

test('the non-idempotent charge that timed out is failed and reconciled, never retried', async ({ page }) => {
  await page.goto('/sessions?q=class:uncertain_side_effect%20agent:invoice-agent%20user:demo-user');
  const rows = page.getByTestId('session-row');
  await expect(rows.first()).toBeVisible();
  await rows.first().getByRole('link').first().click();
  await goToStep(page, 'charge_card');
  const call = page.getByTestId('tool-call').filter({ hasText: 'charge_card' }).first();
  await expect(call).toBeVisible();
  await expect(call.getByTestId('attempt')).toHaveCount(1);
  await expect(call).toContainText('fail_reconcile');
  // Where and why it escalated: no budget ran out; the tool's reconcile hook was asked whether the charge happened.
  await expect(page.getByTestId('escalation-summary')).toContainText('sent to reconcile');
  await page.getByTestId('escalations-toggle').click();
  const escalation = page.getByTestId('escalation').filter({ hasText: 'charge_card' });
  await expect(escalation.getByTestId('escalation-why')).toHaveText('side effect uncertain, not retried; reconcile answered committed');
});
