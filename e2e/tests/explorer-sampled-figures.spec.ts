/**
 * A clean session kept at a sampling rate of 0.3 stands for 1 / 0.3 = 3.33… sessions: raw OTLP
 * spans (its children in one export, its root, which carries the weight, in a later one, as an
 * SDK's batch exporter sends them) through the collector to the figures a person reads. The
 * explorer's row scales its counts by that weight: each scaled figure is marked as an estimate,
 * says what was recorded (the replay's figure), and the weight it names is the one it scaled by;
 * the replay's header names the same weight, readably. In a project of its own, so every figure
 * is this test's.
 */
import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { newProjectWithKey } from '../projects.ts';

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
// A fixed day (the analytics window below names it): nothing depends on the day the test runs.
const DAY = '2026-11-21';
let clockMs = Date.parse(`${DAY}T09:00:00Z`);

type Val = string | number;
const attr = (key: string, v: Val) =>
  typeof v === 'number'
    ? { key, value: Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v } }
    : { key, value: { stringValue: v } };

function span(traceId: string, name: string, attrs: Record<string, Val>, opts: { spanId?: string; parent?: string; startMs?: number; endMs?: number } = {}) {
  clockMs += 1000;
  const start = BigInt(opts.startMs ?? clockMs) * 1_000_000n;
  const end = opts.endMs === undefined ? start + 500_000_000n : BigInt(opts.endMs) * 1_000_000n;
  return {
    traceId,
    spanId: opts.spanId ?? hex(8),
    parentSpanId: opts.parent ?? '',
    name,
    kind: 1,
    startTimeUnixNano: start.toString(),
    endTimeUnixNano: end.toString(),
    attributes: Object.entries(attrs).map(([k, v]) => attr(k, v)),
    status: { code: 0 },
  };
}

async function post(apiKey: string, spans: ReturnType<typeof span>[]) {
  const res = await fetch(`${process.env.GUARDTRACE_COLLECTOR_URL}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ resourceSpans: [{ resource: { attributes: [attr('service.name', 'sampled-e2e')] }, scopeSpans: [{ scope: { name: 'raw' }, spans }] }] }),
  });
  expect(res.status, await res.text()).toBe(200);
}

const RATE = 0.3;

test('a sampled session’s row marks its scaled figures as estimates, names the weight it scaled by and what was recorded', async ({ page }) => {
  const { project, apiKey } = await newProjectWithKey(page, 'Sampled figures');
  const id = `sampled-${hex(4)}`;
  const t = hex(16);
  const conv = { 'gen_ai.conversation.id': id };
  const root = hex(8);
  const rootStart = clockMs + 500;
  // Three clean tool calls (one attempt each) and one gpt-4o-mini turn of 12,000 tokens.
  const children = [span(t, 'chat gpt-4o-mini', { ...conv, 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.usage.input_tokens': 10_000, 'gen_ai.usage.output_tokens': 2_000 }, { parent: root })];
  for (const tool of ['read_file', 'list_dir', 'grep']) {
    const call = hex(8);
    children.push(
      span(t, `execute_tool ${tool}`, { ...conv, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool, 'guardtrace.outcome': 'success' }, { spanId: call, parent: root }),
      span(t, 'guardtrace.attempt', { ...conv, 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': 1, 'guardtrace.outcome': 'success' }, { parent: call }),
    );
  }
  await post(apiKey, children);
  // The root ends last, with the SDK's verdict: clean, kept at the rate, weight 1 / rate.
  await post(apiKey, [
    span(
      t,
      'invoke_agent sampled-agent',
      { ...conv, 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'sampled-agent', 'guardtrace.session.outcome': 'success', 'guardtrace.sampling.weight': 1 / RATE },
      { spanId: root, startMs: rootStart, endMs: clockMs + 1000 },
    ),
  ]);

  // The replay: the session's own figures, and its weight as a person reads a number.
  await page.goto(`/sessions/${encodeURIComponent(id)}?project=${project}`);
  const header = page.getByTestId('session-header');
  await expect(header.getByTestId('outcome')).toHaveText(/success/i);
  await expect(header).toContainText('sampling weight 3.33');
  await expect(header).not.toContainText('3.333');

  // The explorer's row: the weight it names is the one its figures are scaled by (×3.33, not ×3:
  // 3 calls × 3 would be 9, the row shows 10), each scaled figure marked "≈" with what was recorded.
  await page.goto(`/sessions?project=${project}`);
  const row = page.getByTestId('session-row').filter({ hasText: id });
  await expect(row.getByTestId('sampled-weight')).toHaveText('×3.33 sampled');
  await expect(row.getByTestId('sampled-weight')).toHaveAttribute('title', /stands for 3\.33 sessions.*scaled by 3\.33/);
  await expect(row.getByTestId('session-row-tool-calls')).toHaveText('≈10');
  await expect(row.getByTestId('session-row-tool-calls')).toHaveAttribute('title', /^3 recorded × sampling weight 3\.33/);
  await expect(row.getByTestId('session-row-attempts')).toHaveText('≈10');
  await expect(row.getByTestId('session-row-tokens')).toHaveText('≈40,000');
  await expect(row.getByTestId('session-row-tokens')).toHaveAttribute('title', /^12,000 recorded × sampling weight 3\.33/);

  // A clean session every process would drop (weight 0), held until the collector's decision wait ends.
  const held = `held-${hex(4)}`;
  const ht = hex(16);
  const hroot = hex(8);
  const hcall = hex(8);
  const hconv = { 'gen_ai.conversation.id': held };
  await post(apiKey, [
    span(ht, 'execute_tool read_file', { ...hconv, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'read_file', 'guardtrace.outcome': 'success' }, { spanId: hcall, parent: hroot }),
    span(ht, 'guardtrace.attempt', { ...hconv, 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': 1, 'guardtrace.outcome': 'success' }, { parent: hcall }),
    span(ht, 'invoke_agent sampled-agent', { ...hconv, 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'sampled-agent', 'guardtrace.session.outcome': 'success', 'guardtrace.sampling.weight': 0 }, { spanId: hroot }),
  ]);

  // Analytics counts the sampled one as the 3.33 sessions it stands for (3, rounded), 1 stored and
  // kept: the held one is in neither figure, nor in the list the figure links to.
  await page.goto(`/analytics?project=${project}&from=${DAY}&to=${DAY}`);
  const totals = page.getByTestId('analytics-totals');
  await expect(totals).toContainText('Sessions (est.)3');
  await expect(page.getByTestId('stored-sessions-link')).toHaveText('1 stored and kept');
  await page.getByTestId('stored-sessions-link').click();
  await expect(page).toHaveURL(/\/sessions\?/);
  await expect(page.getByTestId('session-row')).toHaveCount(1);
  await expect(page.getByTestId('session-row').filter({ hasText: id })).toHaveCount(1);
  // It is stored, held: the explorer shows it when asked.
  await page.goto(`/sessions?project=${project}&q=${encodeURIComponent('sampling:pending')}`);
  await expect(page.getByTestId('session-row').filter({ hasText: held })).toHaveCount(1);
});

test('retry exhaustion’s attempts are scaled by sampling weight, and say so: a clean session kept at 1 in 4 counts 4 times', async ({ page }) => {
  const { project, apiKey } = await newProjectWithKey(page, 'Sampled attempts');
  const tool = `fetch_page_${hex(3)}`;
  const session = (id: string, attempts: Record<string, Val>[], callOutcome: string, rootAttrs: Record<string, Val>) => {
    const t = hex(16);
    const conv = { 'gen_ai.conversation.id': id };
    const root = hex(8);
    const call = hex(8);
    const rootStart = clockMs + 500;
    const children = [
      span(t, `execute_tool ${tool}`, { ...conv, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool, 'guardtrace.outcome': callOutcome }, { spanId: call, parent: root }),
      ...attempts.map((a, i) => span(t, 'guardtrace.attempt', { ...conv, 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': i + 1, ...a }, { parent: call })),
    ];
    return [
      ...children,
      span(t, 'invoke_agent exhaust-agent', { ...conv, 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'exhaust-agent', ...rootAttrs }, { spanId: root, startMs: rootStart, endMs: clockMs + 1000 }),
    ];
  };
  // A clean session kept 1 in 4 (one successful attempt), and one whose call ran out of attempts (two transient failures).
  await post(apiKey, session(`clean-${hex(4)}`, [{ 'guardtrace.outcome': 'success' }], 'success', { 'guardtrace.session.outcome': 'success', 'guardtrace.sampling.weight': 4 }));
  const failed = { 'guardtrace.outcome': 'error', 'guardtrace.failure.class': 'transient', 'guardtrace.decision': 'retry_backoff' };
  await post(apiKey, session(`exhausted-${hex(4)}`, [failed, { ...failed, 'guardtrace.decision': 'escalate_human', 'guardtrace.budget.exhausted': 'attempts' }], 'error', { 'guardtrace.session.outcome': 'escalated' }));

  await page.goto(`/analytics?project=${project}&from=${DAY}&to=${DAY}`);
  const panel = page.getByTestId('exhaustion');
  const row = panel.locator(`[data-testid=exhaustion-row][data-tool="${tool}"]`);
  await expect(row.locator('td').nth(0)).toHaveText('1');
  // 3 attempts are stored; the clean one stands for 4, so the tool made about 4 + 2 = 6, an estimate.
  await expect(row.locator('td').nth(2)).toHaveText('6');
  const head = panel.getByTestId('exhaustion-attempts-header');
  await expect(head).toHaveText('Attempts (est.), all calls');
  await expect(head).toHaveAttribute('title', /scaled back up by sampling weight/);
});
