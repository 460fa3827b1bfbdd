/**
 * An agent whose tool, agent and user names are 3,000 characters (issue 26: each was a 500 that
 * lost the whole export): a real OTel SDK exports them to the collector, which stores them
 * shortened and marked (docs/collector.md, "Names that key an index"); the explorer and the replay
 * show the shortened names with their marker, and the page stays within a 1280-pixel window.
 */
import { randomBytes } from 'node:crypto';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { expect, type Locator, test } from '@playwright/test';
import { exportingProvider } from './replay-helpers.ts';

const tag = `ol${randomBytes(4).toString('hex')}`;
const id = `${tag}-session`;
const names = {
  agent: `agent-${tag}-${'a'.repeat(2_987)}`,
  user: `user-${tag}-${'u'.repeat(2_988)}`,
  tool: `tool_${tag}_${'t'.repeat(2_988)}`,
};

/** Shortened as the collector stores it: a prefix of the name, then its length and a hash of it, 256 bytes at most. */
async function expectShortened(el: Locator, full: string, attr?: string) {
  const text = attr ? ((await el.getAttribute(attr)) ?? '') : ((await el.textContent()) ?? '').trim();
  const [prefix, mark] = text.split('…');
  expect(full.startsWith(prefix as string) && (prefix as string).length > 100).toBe(true);
  expect(`…${mark}`).toMatch(new RegExp(`^…\\[SHORTENED:${Buffer.byteLength(full)} bytes sha256:[0-9a-f]{16}\\]$`));
  expect(Buffer.byteLength(text)).toBeLessThanOrEqual(256);
}

test.describe.configure({ timeout: 120_000 });

test.beforeAll(async () => {
  const provider = exportingProvider('overlong-agent');
  const tracer = provider.getTracer('overlong-e2e');
  const root = tracer.startSpan('invoke_agent', {
    attributes: { 'gen_ai.conversation.id': id, 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': names.agent, 'user.id': names.user },
  });
  const call = tracer.startSpan(
    `execute_tool ${names.tool}`,
    { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': names.tool, 'gen_ai.tool.call.id': 'call_1' } },
    trace.setSpan(ROOT_CONTEXT, root),
  );
  call.end();
  root.end();
  await provider.shutdown();
});

test('the explorer shows the shortened agent and user, marked, clamped within the window', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const row = page.getByTestId('session-row');
  await expect(async () => {
    await page.goto(`/sessions?q=${id}`);
    await expect(row).toHaveCount(1, { timeout: 1000 });
  }).toPass();
  for (const [testId, full] of [
    ['session-row-agent', names.agent],
    ['session-row-user', names.user],
  ] as const) {
    const cell = row.getByTestId(testId);
    await expectShortened(cell, full);
    await expectShortened(cell, full, 'title');
    // Three lines at most (line-clamp), whatever the name's length. Polled: the list may render
    // again (its refresh) between finding the cell and measuring it, which measures nothing (null).
    await expect.poll(async () => (await cell.boundingBox())?.height ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(3 * 24 + 1);
  }
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
});

test('the replay shows the shortened tool and user, marked, within the window', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`/sessions/${encodeURIComponent(id)}`);
  const call = page.getByTestId('tool-call').first();
  await expect(call).toBeVisible({ timeout: 60_000 });
  await expectShortened(call, names.tool, 'data-tool');
  await expectShortened(page.getByTestId('session-user'), names.user);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
});
