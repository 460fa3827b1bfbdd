/**
 * The explorer links of the alerts that count something other than a failure's own minute: a
 * real agent (the SDK, OTLP through the real collector) whose rejections go unfixed and whose
 * model turns repair them; rules made in Settings > Alerts fire into a real HTTP receiver, and
 * each firing's explorer link, opened in the browser, lists the sessions the alert counted and
 * no other session that failed in its window.
 */

import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { Guardtrace } from '@guardtrace/sdk';
import { expect, type Page, test } from '@playwright/test';
import { z } from 'zod';
import { agentTelemetry } from '../agent-telemetry.ts';

interface Hook {
  json: { type?: string; value?: number; links?: { explorer: string }; rule?: { name: string } };
}

async function startReceiver() {
  const got: Hook[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ json: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/guardtrace`, got, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function createRule(page: Page, r: { name: string; kind: string; tool: string; threshold: number; url: string }) {
  await page.goto('/settings/alerts');
  const form = page.getByTestId('alert-rule-form');
  await form.getByLabel('Name').fill(r.name);
  await form.getByLabel('Metric').selectOption(r.kind);
  await form.getByLabel('Failure class (optional)').fill('invalid_arguments');
  await form.getByLabel('Tool (optional)').fill(r.tool);
  await form.getByLabel('Window (minutes)').fill('10');
  await form.getByLabel('Fires when').selectOption('gte');
  await form.getByLabel(/Threshold/).fill(String(r.threshold));
  await form.getByLabel('Webhook URL').fill(r.url);
  await form.getByRole('button', { name: 'Create rule' }).click();
  await expect(page.getByTestId('new-alert-secret')).toBeVisible();
}

test.describe.configure({ timeout: 180_000 });

test("rejections not fixed next and repair tokens link to the sessions they counted, not every failure of their window", async ({ page }) => {
  const tag = randomBytes(4).toString('hex');
  const tool = `lookup_${tag}`;
  const receiver = await startReceiver();
  try {
    // 3 repair turns of 100 + 10 tokens (below): the repair rule fires once all are counted.
    await createRule(page, { name: `e2e unfixed ${tag}`, kind: 'rejections_unfixed', tool, threshold: 1, url: receiver.url });
    await createRule(page, { name: `e2e repairs ${tag}`, kind: 'repair_tokens', tool, threshold: 330, url: receiver.url });

    const otel = agentTelemetry('e2e-alert-links');
    const gt = new Guardtrace({ tracer: otel.tracer });
    gt.tool({
      name: tool,
      description: 'Look a word up',
      schema: z.object({ q: z.string(), n: z.number().optional() }),
      flags: { readOnly: true },
      execute: (a) => a.q,
    });
    const repair = { model: 'gpt-test', provider: 'openai', inputTokens: 100, outputTokens: 10 };
    // unfixed: rejected, repaired, its correction rejected too (not fixed next), repaired, then right.
    const unfixed = gt.session({ id: `e2e-unfixed-${tag}`, agentName: 'e2e-alert-links' });
    const first = await unfixed.callTool(tool, { q: 1 });
    if (!first.ok) unfixed.recordModelCall({ ...repair, repairs: first });
    const second = await unfixed.callTool(tool, { q: 'x', n: 'y' });
    if (!second.ok) unfixed.recordModelCall({ ...repair, repairs: second });
    expect((await unfixed.callTool(tool, { q: 'x' })).ok).toBe(true);
    await unfixed.end();
    // fixed: rejected, repaired, fixed by the next call.
    const fixed = gt.session({ id: `e2e-fixed-${tag}`, agentName: 'e2e-alert-links' });
    const wrong = await fixed.callTool(tool, { q: 2 });
    if (!wrong.ok) fixed.recordModelCall({ ...repair, repairs: wrong });
    expect((await fixed.callTool(tool, { q: 'y' })).ok).toBe(true);
    await fixed.end();
    // unrepaired: rejected, and the agent stopped there (no repair turn, no correction).
    const unrepaired = gt.session({ id: `e2e-unrepaired-${tag}`, agentName: 'e2e-alert-links' });
    expect((await unrepaired.callTool(tool, { q: 3 })).ok).toBe(false);
    await unrepaired.end();
    await otel.shutdown();

    const firing = (name: string) => receiver.got.find((h) => h.json.type === 'alert.firing' && h.json.rule?.name === name);
    await expect.poll(() => Boolean(firing(`e2e unfixed ${tag}`) && firing(`e2e repairs ${tag}`)), { timeout: 60_000 }).toBe(true);
    const rows = page.getByTestId('session-row');

    const unfixedHook = firing(`e2e unfixed ${tag}`) as Hook;
    expect(unfixedHook.json.value).toBe(1);
    const unfixedLink = new URL(unfixedHook.json.links?.explorer as string);
    expect(unfixedLink.searchParams.get('q')).toMatch(
      new RegExp(`^class:invalid_arguments tool:${tool} unfixed:>=\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}Z unfixed:<=\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}Z$`),
    );
    await page.goto(unfixedLink.toString());
    await expect(page.getByTestId('query-errors')).toHaveCount(0);
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText(`e2e-unfixed-${tag}`);

    const repairsHook = firing(`e2e repairs ${tag}`) as Hook;
    expect(repairsHook.json.value).toBe(330);
    const repairsLink = new URL(repairsHook.json.links?.explorer as string);
    expect(repairsLink.searchParams.get('q')).toMatch(new RegExp(`^class:invalid_arguments tool:${tool} repaired:>=\\S+ repaired:<=\\S+$`));
    await page.goto(repairsLink.toString());
    await expect(page.getByTestId('query-errors')).toHaveCount(0);
    await expect(rows).toHaveCount(2);
    await expect(rows.filter({ hasText: `e2e-unfixed-${tag}` })).toHaveCount(1);
    await expect(rows.filter({ hasText: `e2e-fixed-${tag}` })).toHaveCount(1);

    // The session that failed in the window with neither: listed by the failure's own minute only.
    await page.goto(`${unfixedLink.pathname}?project=${unfixedLink.searchParams.get('project')}&q=${encodeURIComponent(`class:invalid_arguments tool:${tool}`)}`);
    await expect(rows).toHaveCount(3);
  } finally {
    await receiver.close();
  }
});
