/**
 * Send test of a "new tool failing" rule: a real agent (the SDK, OTLP through the real collector)
 * fails two tools for the first time in a project of its own; the test posts one signed delivery
 * per tool, each with that tool's figures, as the collector's own evaluation (every second here,
 * global-setup.ts) fires them into the same receiver, and the page says how many it sent.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { Guardtrace } from '@guardtrace/sdk';
import { expect, test } from '@playwright/test';
import { z } from 'zod';
import { agentTelemetry } from '../agent-telemetry.ts';
import { newProjectWithKey } from '../projects.ts';

interface Hook {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: { type: string; subject: string | null; value: number; links: { explorer: string; worstSession: string | null }; rule: { id: string } };
}

async function startReceiver() {
  const got: Hook[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      got.push({ headers: req.headers, body, json: JSON.parse(body) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hook`, got, close: () => new Promise<void>((r) => server.close(() => r())) };
}

function verified(h: Hook, secret: string): boolean {
  const expected = `sha256=${createHmac('sha256', secret).update(`${h.headers['x-guardtrace-timestamp']}.${h.body}`).digest('hex')}`;
  const sig = String(h.headers['x-guardtrace-signature'] ?? '');
  return sig.length === expected.length && timingSafeEqual(Buffer.from(sig), Buffer.from(expected));
}

test('Send test of a new-tool rule posts one test per tool failing for the first time, each as its firing', async ({ page }) => {
  test.setTimeout(120_000);
  const tag = randomBytes(3).toString('hex');
  const { project, apiKey } = await newProjectWithKey(page, 'E2E alert tests');
  const [toolA, toolB] = [`fetch_${tag}`, `search_${tag}`];
  // The model sends a number where each tool wants text: one invalid_arguments failure a call;
  // fetch fails once, search twice (in the session that is its worst).
  const otel = agentTelemetry('e2e-alert-tests', { apiKey });
  const gt = new Guardtrace({ tracer: otel.tracer });
  for (const tool of [toolA, toolB]) {
    gt.tool({ name: tool, description: 'Look it up', schema: z.object({ q: z.string() }), flags: { readOnly: true }, execute: (a) => a.q });
  }
  const sessions = { [toolA]: `e2e-new-${toolA}`, [toolB]: `e2e-new-${toolB}` };
  for (const [tool, calls] of [
    [toolA, 1],
    [toolB, 2],
  ] as const) {
    const session = gt.session({ id: sessions[tool] as string, agentName: 'e2e-alert-tests' });
    for (let i = 0; i < calls; i++) await session.callTool(tool, { q: i });
    await session.end();
  }
  await otel.shutdown();

  const receiver = await startReceiver();
  try {
    await page.goto(`/settings/alerts?project=${project}`);
    const form = page.getByTestId('alert-rule-form');
    const name = `e2e new tools ${tag}`;
    await form.getByLabel('Name').fill(name);
    await form.getByLabel('Metric').selectOption('new_failing_tool');
    await form.getByLabel('Window (minutes)').fill('10');
    await form.getByLabel('Webhook URL').fill(receiver.url);
    await form.getByRole('button', { name: 'Create rule' }).click();
    const secret = ((await page.getByTestId('new-alert-secret').textContent()) ?? '').trim();
    const row = page.getByTestId('alert-rule-row').filter({ hasText: name });
    await row.getByRole('button', { name: `Send test of ${name}` }).click();
    await expect(row.getByRole('status')).toHaveText(`2 tests delivered, one for each new: ${toolA}, ${toolB}. The receiver answered 204.`);

    const tests = receiver.got.filter((h) => h.json.type === 'alert.test');
    expect(tests.map((h) => [h.headers['x-guardtrace-event'], verified(h, secret)])).toEqual([
      ['test', true],
      ['test', true],
    ]);
    const web = process.env.GUARDTRACE_WEB_URL as string;
    const figures = (hooks: Hook[]) =>
      hooks.map((h) => [h.json.subject, h.json.value, h.json.links.worstSession]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(figures(tests)).toEqual([
      [toolA, 1, `${web}/sessions/${sessions[toolA]}?project=${project}`],
      [toolB, 2, `${web}/sessions/${sessions[toolB]}?project=${project}`],
    ]);
    // The collector's evaluation fires the rule for the same two tools, with the same figures.
    await expect.poll(() => receiver.got.filter((h) => h.json.type === 'alert.firing').length, { timeout: 30_000 }).toBe(2);
    expect(figures(receiver.got.filter((h) => h.json.type === 'alert.firing'))).toEqual(figures(tests));
    // The audit log counts the tests.
    await page.goto(`/settings/audit?project=${project}`);
    await expect(page.getByTestId('audit-entry').filter({ hasText: `sent 2 tests of the alert rule ${name}: all delivered` })).toHaveCount(1);
  } finally {
    await receiver.close();
  }
});
