/**
 * The replay as a stepping debugger, on sessions a real SDK agent sent through the collector:
 * cause and effect (rejection → feedback → repair turn → corrected call naming another tool),
 * keyboard stepping with the selection in the URL, search, help, payloads on demand, and Tab.
 */
import { randomBytes } from 'node:crypto';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { expect, test } from '@playwright/test';
import { runReplayAgent } from '../replay-agent.ts';
import { exportingProvider, openReplay, position, selected } from './replay-helpers.ts';

const agent = (sessionId: string, cycles: number, repeatAt?: number) =>
  runReplayAgent({
    endpoint: process.env.GUARDTRACE_COLLECTOR_URL as string,
    apiKey: process.env.GUARDTRACE_API_KEY as string,
    sessionId,
    cycles,
    repeatAt,
  });

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

test('steps with the keyboard through a rejection, its feedback, the repair turn and the corrected call', async ({ page }) => {
  // A real agent run and a dozen page loads: on the shared 2-core machine (load ~15) every
  // assertion passed but the whole took 65 s, past the default 60 s. Time, not order, ran out.
  test.setTimeout(180_000);
  const id = `replay-keys-${randomBytes(4).toString('hex')}`;
  // Three cycles with the SDK's budgets: each of the first two is a model turn, the waiting call's
  // failed attempt, the repair turn and the corrected attempt (the call's second part, after the
  // turn that made it); in the third the model sends the rejected call again unchanged after its
  // repair turn (the call's second part, escalated: never the same rejection twice), and its
  // correction is a new call: 13 steps.
  await agent(id, 3, 2);
  await openReplay(page, id, 13, { ended: true });

  // Where and why the session escalated: one line, its list on ask, each a link.
  await expect(page.getByTestId('escalation-summary')).toHaveText('1 escalation: 1 handed to a human (unknown tool)');
  await page.getByTestId('escalations-toggle').click();
  const escalation = page.getByTestId('escalation');
  await expect(escalation).toHaveCount(1);
  await expect(escalation).toContainText('Step 12 attempt #2');
  await expect(escalation).toContainText('the model sent the same call again');

  // Opens on the first failure: the hallucinated tool name, attempt 1.
  await expect(selected(page)).toHaveAttribute('data-step', '2');
  const call = page.getByTestId('tool-call');
  await expect(call.getByTestId('attempt')).toHaveCount(2);
  const first = call.locator('[data-testid=attempt][data-number="1"]');
  await expect(first).toHaveAttribute('data-selected', 'true');
  await expect(first.getByTestId('failure-class').first()).toHaveAttribute('data-class', 'unknown_tool');
  await expect(first.getByTestId('feedback')).toContainText('read_file');
  await expect(first.getByTestId('repaired-by')).toContainText('step 3');
  // The call is named after its corrected tool; the attempt that named another tool says so.
  await expect(call).toHaveAttribute('data-tool', 'read_file');
  await expect(first.getByTestId('attempt-tool')).toHaveText('as reed_file');
  await expect(call.locator('[data-testid=attempt][data-number="2"]').getByTestId('attempt-tool')).toHaveCount(0);

  // j: the repair turn, which links back to the rejection and on to the corrected call. Keys replace the history entry.
  const entries = await page.evaluate(() => history.length);
  await page.keyboard.press('j');
  await expect(selected(page)).toHaveAttribute('data-step', '3');
  await expect(page).toHaveURL(/[?&]step=3(&|$)/);
  const chain = page.getByTestId('repair-chain');
  await expect(chain).toContainText('Repairs the failed step 2 attempt #1 (reed_file)');
  await expect(chain).toContainText('corrected call: step 4 attempt #2 (read_file)');
  expect(await page.evaluate(() => history.length)).toBe(entries);

  // A click pushes: the corrected attempt (the call's second part, after the repair turn) is
  // selected, the whole call shown; Back returns to the repair turn.
  await chain.getByRole('button', { name: /corrected call/ }).click();
  await expect(selected(page)).toHaveAttribute('data-step', '4');
  await expect(selected(page)).toContainText('reed_file → read_file');
  await expect(page).toHaveURL(/[?&]attempt=2(&|$)/);
  await expect(call.getByTestId('attempt')).toHaveCount(2);
  await expect(call.locator('[data-testid=attempt][data-number="2"]')).toHaveAttribute('data-selected', 'true');
  expect(await page.evaluate(() => history.length)).toBe(entries + 1);
  await page.goBack();
  await expect(selected(page)).toHaveAttribute('data-step', '3');
  await page.goForward();
  await expect(selected(page)).toHaveAttribute('data-step', '4');

  // h / l: attempts of the call, across its parts.
  await page.keyboard.press('h');
  await expect(page).toHaveURL(/[?&]attempt=1(&|$)/);
  await expect(selected(page)).toHaveAttribute('data-step', '2');
  await expect(first).toHaveAttribute('data-selected', 'true');
  await page.keyboard.press('l');
  await expect(page).toHaveURL(/[?&]attempt=2(&|$)/);
  await expect(selected(page)).toHaveAttribute('data-step', '4');

  // e / E: next and previous failure (the next cycle's missing field).
  await page.keyboard.press('e');
  await expect(selected(page)).toHaveAttribute('data-step', '6');
  await expect(page.getByTestId('tool-call').locator('[data-testid=attempt][data-number="1"]').getByTestId('failure-class').first()).toHaveAttribute('data-class', 'invalid_arguments');
  await page.keyboard.press('E');
  await expect(selected(page)).toHaveAttribute('data-step', '2');
  await expect(page).toHaveURL(/[?&]attempt=1(&|$)/);

  // /: search; the keys typed there (e, d, j…) do not step.
  await page.keyboard.press('/');
  await expect(page.getByTestId('step-search')).toBeFocused();
  await page.keyboard.type('reed_file');
  // The two rejected calls, and the repeated attempt of the second.
  await expect(page.getByTestId('match-count')).toHaveText('3 matches');
  await expect(selected(page)).toHaveAttribute('data-step', '2');
  await page.keyboard.press('Enter');
  await expect(selected(page)).toHaveAttribute('data-step', '10');
  await page.keyboard.press('Escape');

  // y: a link to this very step; opening it restores the selection.
  await page.keyboard.press('y');
  await expect(page.getByTestId('replay-notice')).toHaveText('Link copied');
  const link = await page.evaluate(() => navigator.clipboard.readText());
  expect(link).toBe(page.url());
  await page.goto(link);
  await expect(selected(page)).toHaveAttribute('data-step', '10');
  await expect(position(page)).toHaveText('Step 10 of 13');
  // The call's repeated attempt, after its repair turn: escalated, with the reason.
  await page.keyboard.press('l');
  await expect(selected(page)).toHaveAttribute('data-step', '12');
  await expect(page).toHaveURL(/[?&]attempt=2(&|$)/);
  const escalated = page.getByTestId('tool-call').locator('[data-testid=attempt][data-number="2"]');
  await expect(escalated.getByTestId('escalation-reason')).toHaveText('escalated: repeated_call');
  await page.keyboard.press('j');
  await expect(selected(page)).toHaveAttribute('data-step', '13');

  // ?: the help, closed with Escape.
  await page.keyboard.press('?');
  await expect(page.getByTestId('help')).toBeVisible();
  await expect(page.getByTestId('help')).toContainText('next / previous failure');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('help')).toHaveCount(0);
});

test("another instrumentation's session: a prompt on demand (preview, server-truncated, whole, copy) and the span tree with events and links", async ({ page }) => {
  const id = `otel-${randomBytes(4).toString('hex')}`;
  const provider = exportingProvider('otel-agent');
  const tracer = provider.getTracer('e2e');
  const conv = { 'gen_ai.conversation.id': id };
  const prompt = JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'z'.repeat(40_000) }] }]);
  const root = tracer.startSpan('invoke_agent helper', { attributes: { ...conv, 'gen_ai.operation.name': 'invoke_agent' } });
  const under = trace.setSpan(context.active(), root);
  const chat = tracer.startSpan(
    'chat gpt-test',
    {
      attributes: {
        ...conv,
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-test',
        'gen_ai.usage.input_tokens': 10_000,
        'gen_ai.usage.output_tokens': 12,
        'gen_ai.input.messages': prompt,
        'gen_ai.output.messages': '[{"role":"assistant","parts":[{"type":"text","content":"looking it up"}]}]',
      },
    },
    under,
  );
  chat.end();
  const lookup = tracer.startSpan('lookup order', { attributes: conv, links: [{ context: chat.spanContext() }] }, under);
  lookup.recordException(new TypeError('order id is undefined'));
  lookup.setStatus({ code: SpanStatusCode.ERROR, message: 'order id is undefined' });
  lookup.end();
  root.end();
  await provider.shutdown();

  await openReplay(page, id, 2);
  await page.locator('[data-testid=step][data-kind=model]').click();
  const input = page.getByTestId('payload-input');
  await expect(input).toHaveAttribute('data-chars', String(prompt.length));
  await expect(input).toHaveAttribute('data-shown', '240');
  await expect(page.getByTestId('payload-output')).toContainText('looking it up');
  await input.getByTestId('payload-expand').click();
  await expect(input).toHaveAttribute('data-shown', '16384');
  await input.getByTestId('payload-full').click();
  await expect(input).toHaveAttribute('data-shown', String(prompt.length));
  await input.getByTestId('payload-copy').click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(prompt);

  // The span tree: parent before children; the failed span's exception with its stack, its link and resource.
  await page.getByTestId('view-tree').click();
  await expect(page).toHaveURL(/[?&]view=tree/);
  const nodes = page.getByTestId('tree-node');
  await expect(nodes).toHaveCount(3);
  await expect(nodes.nth(0)).toHaveAttribute('data-depth', '0');
  await nodes.filter({ hasText: 'lookup order' }).click();
  await expect(nodes.filter({ hasText: 'lookup order' })).toHaveAttribute('data-depth', '1');
  await page.getByTestId('span-load').click();
  await expect(page.getByTestId('span-event')).toContainText('TypeError: order id is undefined');
  await expect(page.getByTestId('exception-stack')).toContainText('TypeError: order id is undefined');
  await expect(page.getByTestId('span-link')).toContainText(chat.spanContext().spanId);
  await expect(page.getByTestId('span-resource')).toContainText('otel-agent');

  // The route refuses what it cannot answer, and says why.
  const bad = await page.request.get(`/sessions/${id}/payload?kind=secrets&trace=${'0'.repeat(32)}&span=${'0'.repeat(16)}`);
  expect(bad.status()).toBe(400);
  expect((await bad.json()).error).toMatch(/^kind: expected one of arguments, feedback/);
  const badPart = await page.request.get(`/sessions/${id}/replay?part=everything`);
  expect(badPart.status()).toBe(400);
  expect((await badPart.json()).error).toBe('part: expected one of steps, tree, got "everything"');
});

test('every control of the replay is reachable with Tab', async ({ page }) => {
  const id = `replay-tab-${randomBytes(4).toString('hex')}`;
  await agent(id, 2);
  await openReplay(page, id, 8, { ended: true });
  // The page's HTML starts the steps request and the replay takes that response over: one request.
  const stepRequests: string[] = [];
  // Next's router payloads (prefetches of linked pages carry `_rsc` or a prefetch header).
  const routerPayloads: string[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname.endsWith('/replay')) stepRequests.push(r.url());
    if (new URL(r.url()).searchParams.has('_rsc') || r.headers()['next-router-prefetch']) routerPayloads.push(new URL(r.url()).pathname);
  });
  await page.reload();
  await expect(position(page)).toContainText('of 8');
  expect(stepRequests).toHaveLength(1);
  // The frame's links (sessions, analytics, settings, "All sessions") render nothing ahead of a
  // click: a prefetch would render those pages on the server while the steps are being built.
  // (The link to the next session with the same failure, /sessions/<id>, may prefetch: it is one
  // light page, asked for once the steps are in.)
  await page.waitForLoadState('networkidle');
  expect(routerPayloads.filter((p) => !p.startsWith('/sessions/'))).toEqual([]);
  // That request came from the page's inline script (allowed by the page's nonce) and was taken over.
  const early = await page.evaluate(() =>
    Object.entries((window as unknown as { __guardtraceEarlyFetch?: Record<string, unknown> }).__guardtraceEarlyFetch ?? {}).map(([url, pending]) => [
      new URL(url, location.href).pathname,
      pending === undefined ? 'taken' : 'pending',
    ]),
  );
  expect(early).toEqual([[`/sessions/${id}/replay`, 'taken']]);
  const seen = new Set<string>();
  await page.getByTestId('session-id').click();
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    seen.add(await page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.textContent?.trim() ?? ''));
  }
  for (const control of ['step-search', 'step', 'view-tree', 'help-button', 'attempt-select', 'payload-copy']) {
    expect([...seen], control).toContain(control);
  }
});

test('a reopened session costs a 304 while it is unchanged, and is rebuilt once a span arrives', async ({ page }) => {
  const id = `replay-etag-${randomBytes(4).toString('hex')}`;
  await agent(id, 1);
  await openReplay(page, id, 4, { ended: true });
  const url = `/sessions/${id}/replay`;
  const first = await page.request.get(url);
  expect(first.status()).toBe(200);
  expect(first.headers()['cache-control']).toBe('private, no-cache');
  const etag = first.headers().etag ?? '';
  expect(etag).toMatch(/^W\/".+"$/);
  const stepsBefore = ((await first.json()) as { steps: unknown[] }).steps.length;

  // Unchanged: the browser's copy is confirmed, nothing is rebuilt or sent.
  const again = await page.request.get(url, { headers: { 'if-none-match': etag } });
  expect(again.status()).toBe(304);
  expect(await again.text()).toBe('');
  // The span tree is another answer, with a tag of its own.
  expect((await page.request.get(`${url}?part=tree`, { headers: { 'if-none-match': etag } })).status()).toBe(200);
  // Another account's browser cannot learn anything from a tag: the session check comes first.
  const signedOut = await page.context().browser()!.newContext({ storageState: { cookies: [], origins: [] } });
  const stranger = await signedOut.request.get(new URL(url, page.url()).toString(), { headers: { 'if-none-match': etag }, maxRedirects: 0 });
  expect(stranger.status()).toBe(303);
  expect(stranger.headers().location).toMatch(/\/sign-in\?next=/);
  await signedOut.close();

  // The agent goes on in the same session: the old tag no longer matches and the answer has the new steps.
  await agent(id, 1);
  await expect.poll(async () => (await page.request.get(url, { headers: { 'if-none-match': etag } })).status(), { timeout: 30_000 }).toBe(200);
  const after = await page.request.get(url);
  expect(after.headers().etag).not.toBe(etag);
  expect(((await after.json()) as { steps: unknown[] }).steps.length).toBeGreaterThan(stepsBefore);

  // A reload revalidates: one steps request, and the replay shows the session.
  await page.reload();
  await expect(position(page)).toContainText(`of ${((await after.json()) as { steps: unknown[] }).steps.length}`);
});
