/**
 * Accessibility: axe-core (through @axe-core/playwright) on every page of the web app, in
 * Chromium, against WCAG 2.0, 2.1 and 2.2 A/AA rules (2.2 adds target size); no serious or critical
 * violation may remain. Each
 * page's screenshot is attached to its test (kept under test-results/ with the report).
 *
 * Pages are a list of URLs, so pages rewritten or added later are checked the same way: add
 * a line to PAGES.
 */
import { randomBytes } from 'node:crypto';
import AxeBuilder from '@axe-core/playwright';
import { createPrisma } from '@guardtrace/db';
import { Guardtrace, TransientFailure } from '@guardtrace/sdk';
import type { DatasetItem } from '@guardtrace/sdk/replay';
import { expect, test } from '@playwright/test';
import { z } from 'zod';
import { agentTelemetry } from '../agent-telemetry.ts';
import { sendLargeSeededSession } from '../seeded-session.ts';

interface PageCase {
  name: string;
  url: () => Promise<string>;
}

/** The recorded session with the most attempts (the replay with the most to show). */
async function richestSession(): Promise<string> {
  const prisma = createPrisma(process.env.GUARDTRACE_DATABASE_URL as string, { max: 1 });
  try {
    const s = await prisma.session.findFirst({
      where: { projectId: process.env.GUARDTRACE_PROJECT_ID as string },
      orderBy: [{ attemptCount: 'desc' }, { id: 'asc' }],
      select: { id: true },
    });
    if (!s) throw new Error('no session recorded: the demo agent should have sent some (global-setup.ts)');
    return `/sessions/${encodeURIComponent(s.id)}`;
  } finally {
    await prisma.$disconnect();
  }
}

/** The seed's ~5,000-span session (escalations, every failure class), sent through the collector. */
async function largeSeededSession(): Promise<string> {
  const { id } = await sendLargeSeededSession(process.env.GUARDTRACE_COLLECTOR_URL as string, process.env.GUARDTRACE_API_KEY as string);
  return `/sessions/${encodeURIComponent(id)}`;
}

/**
 * A replay run's page: a dataset of the demo's invalid-argument calls (collector API), and a run of
 * it uploaded as the runner does, its first calls newly allowed, its next one's feedback changed.
 */
async function replayRun(): Promise<string> {
  const collector = process.env.GUARDTRACE_COLLECTOR_URL as string;
  const headers = { authorization: `Bearer ${process.env.GUARDTRACE_API_KEY}`, 'content-type': 'application/json' };
  const made = await fetch(`${collector}/v1/datasets`, { method: 'POST', headers, body: JSON.stringify({ name: 'a11y', query: 'class:invalid_arguments' }) });
  expect(made.status).toBe(201);
  const { id } = (await made.json()) as { id: string };
  const lines = (await (await fetch(`${collector}/v1/datasets/${id}`, { headers })).text()).trim().split('\n');
  const items = lines.slice(0, 3).map((l) => JSON.parse(l) as DatasetItem);
  expect(items.length, 'the demo agent records invalid arguments').toBeGreaterThan(0);
  const results = items.map((item, i) => {
    const a = item.attempts[0] as DatasetItem['attempts'][number];
    const recorded = { allowed: false, decision: a.decision, failureClass: a.failureClass, feedback: a.feedback, checks: a.checks };
    const change = i < 2 ? 'newly_allowed' : 'feedback_changed';
    const now = change === 'newly_allowed' ? { allowed: true, decision: 'proceed', failureClass: null, feedback: null, checks: [] } : { ...recorded, feedback: `${a.feedback} (reworded)` };
    return { itemId: item.id, attempt: a.number, tool: item.tool, sessionId: item.sessionId, stepPath: item.stepPath, change, arguments: a.arguments, recorded, now, definition: { recordedHash: item.definition.hash, currentHash: '00000000000000ff', changes: ['schema: field "path" renamed? removed "path", added "file"'] } };
  });
  const count = (c: string) => results.filter((r) => r.change === c).length;
  const report = {
    format: 'guardtrace.replay-run/v1', datasetId: id, label: 'a11y', startedAt: '2026-12-01T10:00:00.000Z', finishedAt: '2026-12-01T10:00:01.000Z',
    options: { execute: 'none', failOn: ['newly_allowed'] },
    summary: { calls: items.length, attempts: results.length, unchanged: 0, newly_rejected: 0, newly_allowed: count('newly_allowed'), class_changed: 0, feedback_changed: count('feedback_changed'), not_replayed: 0 },
    results,
  };
  const run = await fetch(`${collector}/v1/datasets/${id}/runs`, { method: 'POST', headers, body: JSON.stringify(report) });
  expect(run.status).toBe(201);
  return ((await run.json()) as { url: string }).url;
}

/**
 * A call whose last two attempts ran back to back after a long wait (a real SDK agent; full
 * jitter draws waits near 0 too), so on the attempt timeline, to scale, their bars touch: nothing
 * on it may be a control too small or too close to its neighbour (target size).
 */
async function backToBackAttempts(): Promise<string> {
  const id = `a11y-back-to-back-${randomBytes(4).toString('hex')}`;
  const otel = agentTelemetry('a11y-agent');
  // The jitter draws a whole wait (200 ms) after the first attempt and almost none (1 ms) after the second.
  const draws = [1, 0.005];
  const gt = new Guardtrace({
    tracer: otel.tracer,
    backoff: { baseMs: 200, maxMs: 200, factor: 1 },
    clock: { random: () => draws.shift() ?? 0 },
    policy: { transient: { retryWindowMs: 0 } },
  });
  let failures = 2;
  gt.tool({
    name: 'fetch_fx_rate',
    description: 'Today\'s exchange rate',
    schema: z.object({ from: z.string(), to: z.string() }),
    flags: { readOnly: true },
    execute: () => {
      if (failures-- > 0) throw new TransientFailure('treasury returned 503');
      return { rate: 0.92 };
    },
  });
  const session = gt.session({ id, agentName: 'a11y-agent' });
  const r = await session.callTool('fetch_fx_rate', { from: 'USD', to: 'EUR' });
  expect(r.ok, JSON.stringify(r)).toBe(true);
  await session.end();
  await otel.shutdown();
  return `/sessions/${encodeURIComponent(id)}`;
}

/** A dataset of the project's calls, made through the collector's API. */
async function dataset(): Promise<string> {
  const res = await fetch(`${process.env.GUARDTRACE_COLLECTOR_URL}/v1/datasets`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.GUARDTRACE_API_KEY}` },
    body: JSON.stringify({ name: 'a11y dataset', query: 'has:errors' }),
  });
  if (res.status !== 201) throw new Error(`POST /v1/datasets: ${res.status} ${await res.text()}`);
  return `/datasets/${((await res.json()) as { id: string }).id}`;
}

const PAGES: PageCase[] = [
  { name: 'sessions', url: async () => '/sessions' },
  { name: 'session replay', url: richestSession },
  { name: 'large session replay', url: largeSeededSession },
  { name: 'attempts back to back', url: backToBackAttempts },
  { name: 'analytics', url: async () => '/analytics' },
  { name: 'settings', url: async () => '/settings' },
  { name: 'alert settings', url: async () => '/settings/alerts' },
  { name: 'replay run', url: replayRun },
  { name: 'dataset', url: dataset },
  { name: 'datasets', url: async () => '/datasets' },
  { name: 'not found', url: async () => '/no-such-page' },
  { name: 'unknown session', url: async () => '/sessions/no-such-session' },
];

// axe walks every node of a page (color contrast included): a long replay takes it a while on a busy machine.
test.describe.configure({ timeout: 240_000 });

// Serious and critical: what blocks or badly hinders someone using a screen reader or keyboard.
const BLOCKING = new Set(['serious', 'critical']);

for (const p of PAGES) {
  test(`${p.name}: no serious or critical accessibility violations`, async ({ page }, testInfo) => {
    const url = await p.url();
    await page.goto(url);
    await page.waitForLoadState('networkidle');
    // A replay's steps arrive after the page: check the page with them.
    if (url.startsWith('/sessions/') && url !== '/sessions/no-such-session') {
      await expect(page.getByTestId('replay-position')).toBeVisible({ timeout: 90_000 });
      // The escalation list, open: its links are checked too (target size).
      const toggle = page.getByTestId('escalations-toggle');
      if (await toggle.count()) {
        await toggle.click();
        await expect(page.getByTestId('escalation-list')).toBeVisible();
      }
    }
    await testInfo.attach(`${p.name}.png`, { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });
    const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa']).analyze();
    // The page under test really was analysed (an empty result for an empty page proves nothing).
    expect(results.passes.length, `axe checked nothing on ${url}`).toBeGreaterThan(0);
    const blocking = results.violations
      .filter((v) => BLOCKING.has(v.impact ?? ''))
      .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.length}×: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')})`);
    expect(blocking, `${url}\n${blocking.join('\n')}`).toEqual([]);
  });
}
