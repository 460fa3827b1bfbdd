/**
 * Issue 24, points 4 and 5, on the seed's large session (sent through the collector as `pnpm seed`
 * sends it): every escalation says why (none "no reason recorded"), and they are summarised in one
 * line, so the step list and the selected step's detail are on the first screen.
 */
import { expect, test } from '@playwright/test';
import { sendLargeSeededSession } from '../seeded-session.ts';
import { position, selected } from './replay-helpers.ts';

test('the large seeded session: escalations summarised in one line, each with why, the step list and detail on the first screen', async ({ page }) => {
  test.setTimeout(240_000);
  const { id } = await sendLargeSeededSession(process.env.GUARDTRACE_COLLECTOR_URL as string, process.env.GUARDTRACE_API_KEY as string);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`/sessions/${encodeURIComponent(id)}`);
  await expect(position(page)).toBeVisible({ timeout: 90_000 });

  // One line: "N escalations: a budget exhausted, b aborted (fatal, guard violation)".
  const summary = page.getByTestId('escalation-summary');
  await expect(summary).toBeVisible();
  const text = ((await summary.textContent()) ?? '').replace(/\s+/g, ' ').trim();
  const m = /^([\d,]+) escalations: (.+)$/.exec(text);
  expect(m, text).not.toBeNull();
  const total = Number(m?.[1]?.replaceAll(',', ''));
  expect(total).toBeGreaterThan(10);
  const groups = page.getByTestId('escalation-group');
  const counts = (await groups.allTextContents()).map((g) => Number(/^([\d,]+)/.exec(g.trim())?.[1]?.replaceAll(',', '')));
  expect(counts.reduce((a, b) => a + b, 0)).toBe(total);
  const aborted = page.locator('[data-testid=escalation-group][data-kind=abort]');
  await expect(aborted).toHaveText(/^[\d,]+ aborted \((fatal|guard violation)(, (fatal|guard violation))?\)$/);

  // The first screen: the summary is one short band, the list shows rows and the detail its step.
  const band = await page.getByTestId('escalations').boundingBox();
  expect(band?.height ?? 999).toBeLessThanOrEqual(64);
  const list = await page.getByTestId('timeline').boundingBox();
  expect(list, 'step list').not.toBeNull();
  expect((list?.y ?? 999) + 5 * 44).toBeLessThanOrEqual(800);
  await expect(page.locator('[data-testid=step-detail] > [data-step]')).toBeInViewport();
  await expect(selected(page)).toBeInViewport();

  // Each escalation, listed on ask, says why: never "no reason recorded".
  await page.getByTestId('escalations-toggle').click();
  const rows = page.getByTestId('escalation');
  await expect(rows).toHaveCount(total);
  const whys = await page.getByTestId('escalation-why').allTextContents();
  expect(whys).toHaveLength(total);
  for (const w of whys) {
    expect(w.trim().length).toBeGreaterThan(0);
    expect(w).not.toContain('no reason recorded');
  }
  // The aborted ones say what is known: class and decision, and the guard that refused or the error
  // where the rows hold one (the seed's do: a guard's reason, an HTTP status).
  const abortWhys = await rows.filter({ hasText: '→ abort' }).getByTestId('escalation-why').allTextContents();
  expect(abortWhys.length).toBeGreaterThan(0);
  for (const w of abortWhys) expect(w).toMatch(/^aborted after a (fatal|guard violation) failure(: .+| \(no message recorded\))$/);
  expect(abortWhys.filter((w) => /^aborted after a guard violation failure: \w+: .+/.test(w)).length).toBeGreaterThan(0);
  expect(abortWhys.filter((w) => /^aborted after a fatal failure: .+/.test(w)).length).toBeGreaterThan(0);
  await page.getByTestId('escalations-toggle').click();
  await expect(rows).toHaveCount(0);

  // A kind's link goes to its next escalation: an aborted call.
  const before = Number(await selected(page).getAttribute('data-step'));
  await aborted.click();
  await expect(selected(page)).not.toHaveAttribute('data-step', String(before));
  await expect(page.getByTestId('tool-call').locator('[data-testid=attempt][data-selected=true]')).toContainText('abort');
});
