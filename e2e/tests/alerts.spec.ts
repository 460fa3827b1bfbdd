/**
 * Alerts end to end: a rule made in Settings > Alerts, a test send, then a real agent's failures
 * (the SDK, OTLP through the real collector) crossing it: a real HTTP receiver (on a port the
 * system picks, failing the firing's first attempt) gets the signed firing again after the
 * backoff, with its explorer and replay links, then the resolution once the window has passed. The collector evaluates every second here (global-setup.ts); the
 * window is the whole minutes that hold its last 2 minutes, so the resolution takes up to three of them.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import AxeBuilder from '@axe-core/playwright';
import { Guardtrace } from '@guardtrace/sdk';
import { expect, test } from '@playwright/test';
import { z } from 'zod';
import { agentTelemetry } from '../agent-telemetry.ts';

interface Hook {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: { type?: string; value?: number; summary?: string; links?: { explorer: string; worstSession: string | null }; rule?: { name: string } };
  status: number;
}

/** A receiver that answers 204, except 500 to the first firing (a receiver down for a moment). */
async function startReceiver() {
  const got: Hook[] = [];
  let firingFailed = false;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const json = JSON.parse(body);
      const status = json.type === 'alert.firing' && !firingFailed ? 500 : 204;
      if (status === 500) firingFailed = true;
      got.push({ headers: req.headers, body, json, status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/guardtrace`, got, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** As a receiver checks it (docs/production.md): HMAC-SHA256 over `${timestamp}.${body}`. */
function verified(h: Hook, secret: string): boolean {
  const expected = `sha256=${createHmac('sha256', secret).update(`${h.headers['x-guardtrace-timestamp']}.${h.body}`).digest('hex')}`;
  const sig = String(h.headers['x-guardtrace-signature'] ?? '');
  return sig.length === expected.length && timingSafeEqual(Buffer.from(sig), Buffer.from(expected));
}

/** An agent whose model sends a number where the tool wants text: each call one invalid_arguments failure. */
async function failingAgent(tool: string, sessions: { id: string; badCalls: number }[]) {
  const otel = agentTelemetry('e2e-alerts');
  const gt = new Guardtrace({ tracer: otel.tracer });
  gt.tool({ name: tool, description: 'Look a word up', schema: z.object({ q: z.string() }), flags: { readOnly: true }, execute: (a) => a.q });
  for (const s of sessions) {
    const session = gt.session({ id: s.id, agentName: 'e2e-alerts' });
    for (let i = 0; i < s.badCalls; i++) await session.callTool(tool, { q: i });
    await session.end();
  }
  await otel.shutdown();
}

test.describe.configure({ timeout: 300_000 });

test('a rule made in Settings fires into a signed webhook when an agent fails, links to the explorer, and resolves', async ({ page }) => {
  const tag = randomBytes(4).toString('hex');
  const name = `e2e lookups ${tag}`;
  const tool = `lookup_${tag}`;
  const receiver = await startReceiver();
  try {
    await page.goto('/settings');
    await page.getByRole('link', { name: 'Alert rules →' }).click();
    await expect(page).toHaveURL(/\/settings\/alerts\?project=/);
    const form = page.getByTestId('alert-rule-form');
    await form.getByLabel('Name').fill(name);
    await form.getByLabel('Metric').selectOption('failure_count');
    await form.getByLabel('Failure class (optional)').fill('invalid_arguments');
    await form.getByLabel('Tool (optional)').fill(tool);
    await form.getByLabel('Window (minutes)').fill('2');
    await form.getByLabel('Fires when').selectOption('gte');
    await form.getByLabel(/Threshold/).fill('3');
    await form.getByLabel('Webhook URL').fill(receiver.url);
    await form.getByRole('button', { name: 'Create rule' }).click();
    const secret = ((await page.getByTestId('new-alert-secret').textContent()) ?? '').trim();
    expect(secret).toMatch(/^whsec_/);
    const row = page.getByTestId('alert-rule-row').filter({ hasText: name });
    await expect(row.getByTestId('alert-state')).toHaveText('ok');
    await expect(row).toContainText(`Failed attempts (class invalid_arguments, tool ${tool}) ≥ 3 over 2 min`);

    // Send test: delivered now, signed with the secret just shown.
    await row.getByRole('button', { name: `Send test of ${name}` }).click();
    await expect(row.getByRole('status')).toHaveText('Test delivered: the receiver answered 204.');
    expect(receiver.got).toHaveLength(1);
    expect(receiver.got[0]?.headers['x-guardtrace-event']).toBe('test');
    expect(verified(receiver.got[0] as Hook, secret)).toBe(true);
    expect(receiver.got[0]?.json.type).toBe('alert.test');

    // The spike: 3 failed calls of the tool (the second session has 2 of them: the worst).
    const worst = `e2e-alert-worst-${tag}`;
    await failingAgent(tool, [
      { id: `e2e-alert-${tag}`, badCalls: 1 },
      { id: worst, badCalls: 2 },
    ]);
    const of = (type: string) => receiver.got.filter((h) => h.json.type === type);
    // The receiver fails the firing once: the collector sends it again after its backoff (30 s).
    await expect.poll(() => of('alert.firing').map((h) => h.status), { timeout: 60_000 }).toEqual([500]);
    await page.goto('/settings/alerts');
    const firingLog = page.getByTestId('alert-delivery').filter({ hasText: name }).filter({ hasText: 'firing' });
    await expect(row.getByTestId('alert-state')).toHaveText('firing');
    await expect(page.getByTestId('alert-event').filter({ hasText: name }).first()).toHaveAttribute('data-kind', 'firing');
    await expect(firingLog).toHaveAttribute('data-status', 'pending');
    await expect(firingLog).toContainText('HTTP 500');
    await expect.poll(() => of('alert.firing').map((h) => h.status), { timeout: 90_000 }).toEqual([500, 204]);
    const [failed, fired] = of('alert.firing') as [Hook, Hook];
    expect(fired.headers['x-guardtrace-delivery']).toBe(failed.headers['x-guardtrace-delivery']);
    expect(fired.body).toBe(failed.body);
    expect(Number(fired.headers['x-guardtrace-timestamp']) - Number(failed.headers['x-guardtrace-timestamp'])).toBeGreaterThanOrEqual(30);
    expect(verified(failed, secret)).toBe(true);
    expect(verified(fired, secret)).toBe(true);
    expect(fired.headers['x-guardtrace-event']).toBe('firing');
    expect(fired.json.value).toBe(3);
    expect(fired.json.summary).toBe(`FIRING: ${name} — Failed attempts (class invalid_arguments, tool ${tool}): 3 ≥ 3 over 2 min`);
    const web = process.env.GUARDTRACE_WEB_URL as string;
    const explorer = new URL(fired.json.links?.explorer as string);
    expect(explorer.origin).toBe(new URL(web).origin);
    // The window's minutes, as the alert counts them (not every failure since midnight).
    expect(explorer.searchParams.get('q')).toMatch(
      new RegExp(`^class:invalid_arguments tool:${tool} failed:>=\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}Z failed:<=\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}Z$`),
    );
    expect(fired.json.links?.worstSession).toBe(`${web}/sessions/${worst}?project=${explorer.searchParams.get('project')}`);

    // The links open what they say: the explorer lists both sessions, the replay is the worst one's.
    await page.goto(explorer.toString());
    await expect(page.getByTestId('session-row')).toHaveCount(2);
    await expect(page.getByTestId('session-row').filter({ hasText: worst })).toHaveCount(1);
    await page.goto(fired.json.links?.worstSession as string);
    await expect(page.getByText(worst).first()).toBeVisible();

    // The spike is over: once its minutes leave the 2-minute window, the rule resolves.
    await expect.poll(() => of('alert.resolved').length, { timeout: 200_000, intervals: [1000] }).toBe(1);
    const resolved = of('alert.resolved')[0] as Hook;
    expect(verified(resolved, secret)).toBe(true);
    expect(resolved.json.value).toBe(0);
    expect(receiver.got.map((h) => [h.json.type, h.status])).toEqual([
      ['alert.test', 204],
      ['alert.firing', 500],
      ['alert.firing', 204],
      ['alert.resolved', 204],
    ]);
    await page.goto('/settings/alerts');
    await expect(row.getByTestId('alert-state')).toHaveText('ok');
    const log = page.getByTestId('alert-delivery').filter({ hasText: name });
    await expect(log).toHaveCount(3);
    await expect(log.filter({ hasText: 'HTTP 204' })).toHaveCount(3);
    // The firing's delivery: delivered at its second attempt.
    await expect(firingLog).toHaveAttribute('data-status', 'delivered');
    await expect(firingLog.locator('td').nth(3)).toHaveText('2');

    // The page with its rows is accessible.
    const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa']).analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

    // A rule with no threshold: a tool failing for the first time.
    const fresh = `e2e new tools ${tag}`;
    await form.getByLabel('Name').fill(fresh);
    await form.getByLabel('Metric').selectOption('new_failing_tool');
    await expect(form.getByLabel('Fires when')).toHaveCount(0);
    await form.getByLabel('Failure class (optional)').fill('');
    await form.getByLabel('Tool (optional)').fill('');
    await form.getByLabel('Window (minutes)').fill('10');
    await form.getByLabel('Webhook URL').fill(receiver.url);
    await form.getByRole('button', { name: 'Create rule' }).click();
    const freshRow = page.getByTestId('alert-rule-row').filter({ hasText: fresh });
    await expect(freshRow).toContainText('New tool failing within 10 min');
    page.once('dialog', (d) => d.accept());
    await freshRow.getByRole('button', { name: `Delete ${fresh}` }).click();
    await expect(freshRow).toHaveCount(0);

    // Mute, then delete: both in the audit log.
    await row.getByRole('button', { name: `Mute ${name}` }).click();
    await expect(row.getByTestId('alert-state')).toHaveText('muted');
    page.once('dialog', (d) => d.accept());
    await row.getByRole('button', { name: `Delete ${name}` }).click();
    await expect(row).toHaveCount(0);
    await page.goto(`/settings/audit?project=${explorer.searchParams.get('project')}`);
    for (const what of [`deleted the alert rule ${name}`, `muted the alert rule ${name}`, `sent a test of the alert rule ${name}: delivered`, `created the alert rule ${name}`]) {
      await expect(page.getByTestId('audit-entry').filter({ hasText: what })).toHaveCount(1);
    }
  } finally {
    await receiver.close();
  }
});
