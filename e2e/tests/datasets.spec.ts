/**
 * Datasets end to end: sessions recorded through the real collector (raw OTLP), a dataset saved
 * from an explorer query in the browser (its page shows the count), read back as NDJSON with the
 * project's API key, and a dataset item's stepPath opening the replay with that call selected
 * (`call=`, not the first failure the replay would otherwise open on).
 */
import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { position, selected } from './replay-helpers.ts';

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

const collector = () => process.env.GUARDTRACE_COLLECTOR_URL as string;
const apiKey = () => process.env.GUARDTRACE_API_KEY as string;
const project = () => process.env.GUARDTRACE_PROJECT_ID as string;
const hex = (n: number) => randomBytes(n).toString('hex');

type Attrs = Record<string, string | number>;
const kv = (a: Attrs) => Object.entries(a).map(([key, v]) => ({ key, value: typeof v === 'number' ? { intValue: v } : { stringValue: v } }));

/** The readable definition the clean call's tool sends with its hash (the SDK sends it on a session's first call of a tool). */
const DEFINITION = { tool: 'search', schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }, guards: [{ name: 'queryLength', stage: 'logical', options: { max: 200 } }], flags: { readOnly: true }, policy: {} };

/** A session: a rejected-then-fixed call of `failing` (guard_violation), then a clean call of `clean`. */
function session(sessionId: string, failing: string | null, clean: string, startMs: number) {
  const traceId = hex(16);
  let t = BigInt(startMs) * 1_000_000n;
  const spans: object[] = [];
  const span = (name: string, attrs: Attrs, parent?: string) => {
    const spanId = hex(8);
    t += 5_000_000n;
    spans.push({ traceId, spanId, ...(parent ? { parentSpanId: parent } : {}), name, kind: 1, startTimeUnixNano: String(t), endTimeUnixNano: String(t + 2_000_000n), attributes: kv({ 'gen_ai.conversation.id': sessionId, ...attrs }), status: { code: 0 } });
    return spanId;
  };
  const root = span('invoke_agent e2e-datasets', { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'e2e-datasets' });
  if (failing) {
    const call = span(`execute_tool ${failing}`, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': failing, 'guardtrace.outcome': 'success', 'guardtrace.attempt': 2 }, root);
    span('guardtrace.attempt', { 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': 1, 'gen_ai.tool.call.arguments': '{"path":"/etc/passwd"}', 'guardtrace.outcome': 'rejected', 'guardtrace.failure.class': 'guard_violation', 'guardtrace.decision': 'reject_with_feedback', 'guardtrace.feedback': 'path is outside the workspace' }, call);
    span('guardtrace.attempt', { 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': 2, 'gen_ai.tool.call.arguments': '{"path":"src/a.ts"}', 'guardtrace.outcome': 'success', 'guardtrace.decision': 'proceed' }, call);
  }
  const ok = span(`execute_tool ${clean}`, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': clean, 'guardtrace.outcome': 'success', 'guardtrace.attempt': 1, 'guardtrace.tool.definition.hash': 'feedfacecafebeef', 'guardtrace.tool.definition': JSON.stringify(DEFINITION) }, root);
  span('guardtrace.attempt', { 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': 1, 'gen_ai.tool.call.arguments': '{"q":"x"}', 'guardtrace.outcome': 'success', 'guardtrace.decision': 'proceed' }, ok);
  return { resourceSpans: [{ resource: { attributes: kv({ 'service.name': 'e2e-datasets' }) }, scopeSpans: [{ scope: { name: 'guardtrace' }, spans }] }], okSpan: ok, traceId };
}

test('a dataset saved from an explorer query holds the matching calls, streams as NDJSON and links to each step', async ({ page }) => {
  test.setTimeout(180_000);
  const r = hex(3);
  const failing = `ds_write_${r}`;
  const clean = `ds_search_${r}`;
  const s1 = `e2e-ds-${r}-1`;
  const s2 = `e2e-ds-${r}-2`;
  const a = session(s1, failing, clean, Date.UTC(2026, 10, 30, 12));
  const b = session(s2, null, clean, Date.UTC(2026, 10, 30, 13));
  for (const body of [a, b]) {
    const res = await fetch(`${collector()}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey()}` },
      body: JSON.stringify({ resourceSpans: body.resourceSpans }),
    });
    expect(res.status).toBe(200);
  }

  const query = `tool:${clean}`;
  await page.goto(`/sessions?project=${project()}&q=${encodeURIComponent(query)}`);
  await expect(page.getByRole('link', { name: s1 })).toBeVisible();
  const save = page.getByTestId('save-dataset-query');
  await save.locator('summary').click();
  await save.getByLabel('Dataset name').fill(`searches ${r}`);
  await save.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(/\/datasets\/[0-9a-f-]{36}\?project=/);
  await expect(page.getByTestId('dataset-status')).toHaveText('2 calls');
  await expect(page.getByTestId('dataset-items').locator('tbody tr')).toHaveCount(2);
  const id = (/\/datasets\/([0-9a-f-]{36})/.exec(page.url()) as RegExpExecArray)[1] as string;

  // The list page (nav item) shows it.
  await page.getByRole('link', { name: 'Datasets', exact: true }).click();
  await expect(page.getByTestId('datasets').getByRole('link', { name: `searches ${r}` })).toBeVisible();

  // Read back with the API key: two NDJSON lines, the calls of `clean` only.
  const res = await fetch(`${collector()}/v1/datasets/${id}`, { headers: { authorization: `Bearer ${apiKey()}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('application/x-ndjson');
  const items = (await res.text()).trim().split('\n').map((l) => JSON.parse(l));
  expect(items.map((i) => [i.sessionId, i.tool, i.definition.hash])).toEqual([
    [s1, clean, 'feedfacecafebeef'],
    [s2, clean, 'feedfacecafebeef'],
  ]);
  expect(items[0].stepPath).toBe(`/sessions/${s1}?project=${project()}&call=${a.okSpan}`);
  expect(items[0].attempts[0].arguments).toEqual({ q: 'x' });

  // Its step: the replay opens on that call, not on the session's first failure.
  await page.goto(items[0].stepPath);
  await expect(position(page)).toBeVisible({ timeout: 60_000 });
  await expect(selected(page)).toContainText(clean);
  expect(items[0].definition.summary).toEqual(DEFINITION);
  // The replay names the definition the call was decided under, and shows it on demand.
  const definition = page.getByTestId('tool-call').getByTestId('tool-definition');
  await expect(definition).toContainText('Definition feedfacecafebeef · checks: schema, queryLength');
  await definition.locator('summary').click();
  await expect(definition.getByTestId('tool-definition-summary')).toContainText('"readOnly": true');
  // "Copy as test fixture" on that step: the same item as the API streams, its tool definition included.
  await page.getByTestId('tool-call').getByTestId('copy-fixture').click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  const fixture = JSON.parse(copied.slice(copied.indexOf('\n') + 1, copied.indexOf('\n\n// ')));
  expect(fixture).toEqual(items[0]);
  await page.goto(`/sessions/${s1}?project=${project()}`);
  await expect(selected(page)).toContainText(failing);
});
