/**
 * Teams decide in dollars: raw OTLP spans (hand-written JSON, as any instrumentation posts them)
 * through the collector to the estimated costs a person reads. In a project of its own, so every
 * figure is exactly this test's: the replay header and each model turn priced from the built-in
 * table (a dated model name, cached input tokens at their own rate), an unknown model named
 * instead of priced at $0 and a total that mixes it called partial, the sessions list, analytics'
 * dollars of repair turns per failure class and tool and of the window's sessions, and a project
 * price set in Settings (audited)
 * changing every one of those figures at once.
 */
import { randomBytes } from 'node:crypto';
import { expect, type Page, test } from '@playwright/test';
import { newProjectWithKey } from '../projects.ts';
import { goToStep } from './replay-helpers.ts';

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
// A fixed day (the analytics window below names it): nothing depends on the day the test runs.
const DAY = '2026-11-20';
let clockMs = Date.parse(`${DAY}T10:00:00Z`);

type Val = string | number;
const attr = (key: string, v: Val) => ({ key, value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: v } });

function span(traceId: string, name: string, attrs: Record<string, Val>, opts: { spanId?: string; parent?: string } = {}) {
  clockMs += 1000;
  const start = BigInt(clockMs) * 1_000_000n;
  return {
    traceId,
    spanId: opts.spanId ?? hex(8),
    parentSpanId: opts.parent ?? '',
    name,
    kind: 1,
    startTimeUnixNano: start.toString(),
    endTimeUnixNano: (start + 500_000_000n).toString(),
    attributes: Object.entries(attrs).map(([k, v]) => attr(k, v)),
    status: { code: 0 },
  };
}

const chat = (model: string, input: number, output: number, more: Record<string, Val> = {}) => ({
  'gen_ai.operation.name': 'chat',
  'gen_ai.request.model': model,
  'gen_ai.usage.input_tokens': input,
  'gen_ai.usage.output_tokens': output,
  ...more,
});

/**
 * A session whose first turn is gpt-4o (dated name; 100,000 input of which 40,000 cached, 10,000
 * output: $0.15 + $0.05 + $0.10 = $0.30), whose write_file call is rejected (invalid_arguments)
 * and repaired by a gpt-4.1 turn (20,000 in at $2, 5,000 out at $8: $0.04 + $0.04 = $0.08).
 */
function pricedSession(sessionId: string) {
  const t = hex(16);
  const conv = { 'gen_ai.conversation.id': sessionId };
  const root = hex(8);
  const tool = hex(8);
  const a1 = hex(8);
  return [
    span(t, 'invoke_agent cost-agent', { ...conv, 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'cost-agent' }, { spanId: root }),
    span(t, 'chat gpt-4o', { ...conv, ...chat('gpt-4o-2024-08-06', 100_000, 10_000, { 'gen_ai.usage.cache_read.input_tokens': 40_000 }) }, { parent: root }),
    span(t, 'execute_tool write_file', { ...conv, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'write_file', 'guardtrace.outcome': 'success' }, { spanId: tool, parent: root }),
    span(
      t,
      'guardtrace.attempt',
      {
        ...conv,
        'gen_ai.operation.name': 'guardtrace.attempt',
        'guardtrace.attempt': 1,
        'guardtrace.outcome': 'rejected',
        'guardtrace.failure.class': 'invalid_arguments',
        'guardtrace.decision': 'reject_with_feedback',
        'guardtrace.feedback': 'Missing required field "content"',
      },
      { spanId: a1, parent: tool },
    ),
    span(
      t,
      'chat gpt-4.1',
      { ...conv, ...chat('gpt-4.1', 20_000, 5_000, { 'guardtrace.repair.attempt_span_id': a1, 'guardtrace.repair.failure_class': 'invalid_arguments' }) },
      { parent: root },
    ),
    span(t, 'guardtrace.attempt', { ...conv, 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': 2, 'guardtrace.outcome': 'success' }, { parent: tool }),
  ];
}

/** A session of a model no price table knows, beside gpt-4o-mini (1,000,000 input: $0.15). */
function unknownModelSession(sessionId: string) {
  const t = hex(16);
  const conv = { 'gen_ai.conversation.id': sessionId };
  const root = hex(8);
  return [
    span(t, 'invoke_agent cost-agent', { ...conv, 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'cost-agent' }, { spanId: root }),
    span(t, 'chat acme-llm-7', { ...conv, ...chat('acme-llm-7', 5_000, 500) }, { parent: root }),
    span(t, 'chat gpt-4o-mini', { ...conv, ...chat('gpt-4o-mini', 1_000_000, 0) }, { parent: root }),
  ];
}

async function post(apiKey: string, spans: ReturnType<typeof span>[]) {
  const res = await fetch(`${process.env.GUARDTRACE_COLLECTOR_URL}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ resourceSpans: [{ resource: { attributes: [attr('service.name', 'cost-e2e')] }, scopeSpans: [{ scope: { name: 'raw' }, spans }] }] }),
  });
  expect(res.status, await res.text()).toBe(200);
}

async function openReplay(page: Page, project: string, sessionId: string) {
  await page.goto(`/sessions/${encodeURIComponent(sessionId)}?project=${project}`);
  await expect(page.getByTestId('replay-position')).toBeVisible({ timeout: 60_000 });
}

/** The cost a model turn shows once selected (by its model's name in the step search). */
async function turnCost(page: Page, model: string) {
  await goToStep(page, model, 'model');
  return page.getByTestId('model-call').filter({ hasText: model }).getByTestId('model-call-cost');
}

const analytics = (project: string) => `/analytics?project=${project}&from=${DAY}&to=${DAY}`;

test('costs in dollars from raw OTLP to the replay, the sessions list and analytics; a project price changes them all', async ({ page }) => {
  const { project, apiKey } = await newProjectWithKey(page, 'Costs');
  const priced = `cost-${hex(4)}`;
  const unknown = `cost-unknown-${hex(4)}`;
  await post(apiKey, [...pricedSession(priced), ...unknownModelSession(unknown)]);

  // The replay: the header's total and each turn, marked as estimates.
  await openReplay(page, project, priced);
  await expect(page.getByTestId('session-cost')).toHaveText('≈ $0.38, estimated');
  await expect(await turnCost(page, 'gpt-4o-2024-08-06')).toHaveText('≈ $0.30, estimated');
  await expect(await turnCost(page, 'gpt-4.1')).toHaveText('≈ $0.08, estimated');

  // An unknown model is named, never $0; the total beside a priced model says it is partial.
  await openReplay(page, project, unknown);
  await expect(page.getByTestId('session-cost')).toHaveText('≈ $0.15, estimated (partial: price unknown for model acme-llm-7)');
  await expect(await turnCost(page, 'acme-llm-7')).toHaveText('price unknown for model acme-llm-7');

  // The sessions list beside the tokens.
  await page.goto(`/sessions?project=${project}`);
  await expect(page.getByTestId('session-row').filter({ hasText: priced }).getByTestId('session-row-cost')).toHaveText('≈ $0.38 est.');
  await expect(page.getByTestId('session-row').filter({ hasText: unknown }).getByTestId('session-row-cost')).toHaveText('≈ $0.15 + ? est.');

  // Analytics: the dollars of the repair turn, per failure class and per tool.
  await page.goto(analytics(project));
  const panel = page.getByTestId('repair-cost');
  await expect(panel.locator('[data-testid=repair-cost-class][data-key=invalid_arguments]').getByTestId('repair-cost')).toHaveText('≈ $0.08, estimated');
  await expect(panel.locator('[data-testid=repair-cost-tool][data-key=write_file]').getByTestId('repair-cost')).toHaveText('≈ $0.08, estimated');
  await expect(panel.getByTestId('repair-cost-total')).toHaveText('≈ $0.08, estimated');
  // And all the window's sessions spent: both sessions, the unknown model left out and named.
  await expect(panel.getByTestId('spend-total')).toHaveText('≈ $0.53, estimated (partial: price unknown for model acme-llm-7)');

  // A project price of gpt-4.1 (twice the table's) and one for the unknown model, set in Settings.
  await page.goto(`/settings?project=${project}`);
  const form = page.getByTestId('model-price-form');
  const setPrice = async (model: string, input: string, cached: string, output: string) => {
    await form.getByLabel('Model', { exact: true }).fill(model);
    await form.getByLabel('Input $ / 1M', { exact: true }).fill(input);
    await form.getByLabel('Cached input $ / 1M', { exact: true }).fill(cached);
    await form.getByLabel('Output $ / 1M', { exact: true }).fill(output);
    await form.getByRole('button', { name: 'Save price' }).click();
    await expect(form.getByRole('status')).toContainText(`Saved: ${model.toLowerCase()}`);
  };
  await setPrice('GPT-4.1', '4', '1', '16');
  await setPrice('acme-llm-7', '100', '10', '1000');
  await expect(page.locator('[data-testid=model-price-row][data-model="gpt-4.1"]')).toContainText('project price');

  await openReplay(page, project, priced);
  await expect(page.getByTestId('session-cost')).toHaveText('≈ $0.46, estimated');
  await expect(await turnCost(page, 'gpt-4.1')).toHaveText('≈ $0.16, estimated');
  // acme-llm-7 at $100 in and $1,000 out per million: 5,000 in and 500 out are $0.50 + $0.50.
  await openReplay(page, project, unknown);
  await expect(page.getByTestId('session-cost')).toHaveText('≈ $1.15, estimated');
  await page.goto(analytics(project));
  await expect(page.locator('[data-testid=repair-cost-class][data-key=invalid_arguments]').getByTestId('repair-cost')).toHaveText('≈ $0.16, estimated');

  // Audited, and removed again: the built-in price applies once more.
  await page.goto(`/settings/audit?project=${project}`);
  await expect(page.getByText(/set the price of gpt-4\.1 to \$4 input, \$1 cached input, \$16 output per million tokens/)).toBeVisible();
  await page.goto(`/settings?project=${project}`);
  await page.locator('[data-testid=model-price-row][data-model="gpt-4.1"]').getByRole('button', { name: /Remove/ }).click();
  await expect(page.locator('[data-testid=model-price-row][data-model="gpt-4.1"]')).toContainText('platform.openai.com');
  await openReplay(page, project, priced);
  await expect(page.getByTestId('session-cost')).toHaveText('≈ $0.38, estimated');
});

test('a turn whose cache tokens were reported beside its input (Anthropic\'s fields as they are) is counted and priced whole', async ({ page }) => {
  const { project, apiKey } = await newProjectWithKey(page, 'Cache beside');
  const sessionId = `cost-cache-${hex(4)}`;
  const t = hex(16);
  const conv = { 'gen_ai.conversation.id': sessionId };
  const root = hex(8);
  // 40,000 uncached input, 200,000 cache reads, 10,000 cache writes, 2,000 output at claude-sonnet-4-5's
  // $3 / $0.30 / $15: $0.12 + $0.06 + $0.03 + $0.03 = $0.24 (before: $0.09, the 40,000 and the writes unpriced)
  await post(apiKey, [
    span(t, 'invoke_agent cache-agent', { ...conv, 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'cache-agent' }, { spanId: root }),
    span(
      t,
      'chat claude-sonnet-4-5',
      {
        ...conv,
        ...chat('claude-sonnet-4-5-20250929', 40_000, 2_000, {
          'gen_ai.usage.cache_read.input_tokens': 200_000,
          'gen_ai.usage.cache_creation.input_tokens': 10_000,
        }),
      },
      { parent: root },
    ),
  ]);
  await openReplay(page, project, sessionId);
  await expect(page.getByTestId('session-cost')).toHaveText('≈ $0.24, estimated');
  await expect(await turnCost(page, 'claude-sonnet-4-5-20250929')).toHaveText('≈ $0.24, estimated');
  await expect(page.getByTestId('model-call').filter({ hasText: 'claude-sonnet-4-5-20250929' })).toContainText('250,000 in (200,000 cached)');
  await page.goto(`/sessions?project=${project}`);
  await expect(page.getByTestId('session-row').filter({ hasText: sessionId }).getByTestId('session-row-cost')).toHaveText('≈ $0.24 est.');
});
