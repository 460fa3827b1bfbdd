/**
 * The diff between a rejected attempt and its correction, from a real SDK agent over OTLP: the
 * schema check's failed field is highlighted in the diff with the verdict `fixed`; "copy as
 * test fixture" puts the call with both attempts on the clipboard; the next session with the
 * same failure (tool, class, field) is one click away.
 */
import { randomBytes } from 'node:crypto';
import { Guardtrace } from '@guardtrace/sdk';
import { expect, test } from '@playwright/test';
import { z } from 'zod';
import { agentTelemetry } from '../agent-telemetry.ts';

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

/** Sessions whose create_file call is first sent with `filepath` (rejected), then corrected to `path`. */
async function runAgent(tool: string, sessionIds: string[]) {
  const otel = agentTelemetry('e2e-diff-agent');
  const gt = new Guardtrace({ tracer: otel.tracer });
  gt.tool({ name: tool, description: 'Create a file', schema: z.object({ path: z.string(), content: z.string() }), execute: () => 'created' });
  for (const id of sessionIds) {
    const s = gt.session({ id, agentName: 'e2e-diff-agent' });
    const wrong = await s.callTool(tool, { filepath: 'src/main.py', content: 'print(1)' });
    expect(wrong.ok).toBe(false);
    if (!wrong.ok) s.recordModelCall({ model: 'gpt-test', inputTokens: 900, outputTokens: 30, repairs: wrong });
    const fixed = await s.callTool(tool, { path: 'src/main.py', content: 'print(1)' });
    expect(fixed.ok).toBe(true);
    await s.end();
  }
  await otel.shutdown();
}

test('the corrected call shows the failed field highlighted as fixed, copies as a fixture, and links the next session with the same failure', async ({ page }) => {
  const tag = randomBytes(4).toString('hex');
  const tool = `create_file_${tag}`;
  const first = `e2e-diff-${tag}-1`;
  const second = `e2e-diff-${tag}-2`;
  await runAgent(tool, [first]);
  await runAgent(tool, [second]);
  const project = process.env.GUARDTRACE_PROJECT_ID as string;

  const call = page.getByTestId('tool-call').filter({ has: page.getByTestId('attempt-diff') });
  await expect(async () => {
    await page.goto(`/sessions/${first}?project=${project}`);
    await expect(call).toHaveCount(1, { timeout: 1000 });
  }).toPass();

  // The diff: #1 → #2, the failed field highlighted with its verdict.
  const diff = call.getByTestId('attempt-diff');
  await expect(diff.getByTestId('diff-pair')).toContainText('Attempt #1 → #2');
  const pathRow = diff.locator('[data-testid="diff-change"][data-pointer="/path"]');
  await expect(pathRow).toHaveAttribute('data-failed', 'true');
  await expect(pathRow.getByTestId('pointer-verdict')).toHaveAttribute('data-verdict', 'fixed');
  await expect(pathRow).toContainText('added');
  await expect(pathRow).toContainText('"src/main.py"');
  const renamed = diff.locator('[data-testid="diff-change"][data-pointer="/filepath"]');
  await expect(renamed.getByTestId('pointer-verdict')).toHaveAttribute('data-verdict', 'fixed');
  await expect(renamed).toContainText('removed');
  // kept as a test artifact (e2e/test-results/...)
  await page.screenshot({ path: test.info().outputPath('attempt-diff.png'), fullPage: true });

  // Other modes reach the same pair with two attempts; the radio buttons are keyboard-reachable.
  await diff.getByRole('radio', { name: 'First → final' }).check();
  await expect(diff.getByTestId('diff-pair')).toContainText('Attempt #1 → #2');
  await diff.getByRole('radio', { name: 'Pair' }).check();
  await diff.getByLabel('From').selectOption('2');
  await diff.getByLabel('To').selectOption('1');
  await expect(diff.getByTestId('diff-pair')).toContainText('Attempt #1 → #2');

  // Copy as test fixture: the call with both attempts as a dataset item, and a vitest file.
  await call.getByTestId('copy-fixture').click();
  await expect(call.getByRole('status').filter({ hasText: 'Copied' })).toBeVisible();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  const json = JSON.parse(copied.slice(copied.indexOf('\n') + 1, copied.indexOf('\n\n// '))) as { format: string; stepPath: string; tool: string; attempts: { number: number; arguments: unknown; checks: { verdict: string; pointers: string[] }[] }[] };
  expect(json.tool).toBe(tool);
  expect(json.format).toBe('guardtrace.dataset-item/v1');
  expect(json.stepPath).toContain('&call=');
  expect(json.attempts.map((a) => [a.number, a.arguments])).toEqual([
    [1, { filepath: 'src/main.py', content: 'print(1)' }],
    [2, { path: 'src/main.py', content: 'print(1)' }],
  ]);
  expect(json.attempts[0]?.checks.find((c) => c.verdict === 'fail')?.pointers).toEqual(['/path', '/filepath']);
  expect(copied).toContain('await expectNoGuardRegressions(gt, [item]);');

  // The next session with the same failure.
  const same = call.getByTestId('same-failure');
  await expect(same.getByTestId('same-failure-position')).toHaveText('session 1 of 2');
  await same.getByTestId('same-failure-next').click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${second}`));
  await expect(page.getByTestId('same-failure').first().getByTestId('same-failure-position')).toHaveText('session 2 of 2');
  await expect(page.getByTestId('same-failure').first().getByTestId('same-failure-previous')).toBeVisible();
});
