/**
 * Analytics click-through: a session whose write call was rejected for invalid arguments and
 * fixed on the next attempt is sent to the collector over OTLP/HTTP; the analytics page shows
 * its tool × class segment (kept in the collector's daily rollup), the fixed rejection with its
 * feedback template, and the class's token share; a click on the segment, on the cost bucket of
 * its tokens and on its day lands on the sessions explorer filtered by class and tool, by tokens,
 * or by class and day, each within the page's window. The time window lives in the URL.
 */
import { randomBytes } from 'node:crypto';
import { expect, type Page, test } from '@playwright/test';
import { newProjectWithKey } from '../projects.ts';

const hex = (n: number) => randomBytes(n).toString('hex');

// A page load on the shared 2-core machine can take tens of seconds; no step here is timed.
test.slow();
// Each test sends its sessions into a project of its own: the shared project's other sessions
// (the demo's, the seed's large session) would crowd its one rejection out of the panels' top rows.
let current = { project: '', apiKey: '' };
const project = () => current.project;
test.beforeEach(async ({ page }) => {
  current = await newProjectWithKey(page, 'Analytics');
});

type Attr = string | number;
const kv = (attrs: Record<string, Attr>) =>
  Object.entries(attrs).map(([key, v]) => ({ key, value: typeof v === 'number' ? { intValue: v } : { stringValue: v } }));

/**
 * A Guardtrace-shaped session of one tool call: attempt 1 rejected (invalid arguments), attempt 2
 * fine, a repair turn; `alsoCalls`: then a call of that tool that worked at once. Returns its id.
 */
async function sendSession(tool: string, at: { startMs: number; restMs: number } | null = null, alsoCalls?: string): Promise<string> {
  const traceId = hex(16);
  const sessionId = `e2e-analytics-${hex(4)}`;
  const conv = { 'gen_ai.conversation.id': sessionId };
  const [root, call, a1, a2, repair] = [hex(8), hex(8), hex(8), hex(8), hex(8)];
  // `at`: the root span at startMs, the call and its repair from restMs on (a session that runs past midnight).
  let t = BigInt(at ? at.startMs : Date.now() - 60_000) * 1_000_000n;
  const span = (spanId: string, parent: string, name: string, attrs: Record<string, Attr>) => {
    if (at && spanId !== root && t < BigInt(at.restMs) * 1_000_000n) t = BigInt(at.restMs) * 1_000_000n;
    t += 5_000_000n;
    return { traceId, spanId, parentSpanId: parent, name, kind: 1, startTimeUnixNano: String(t), endTimeUnixNano: String(t + 2_000_000n), attributes: kv({ ...conv, ...attrs }), status: { code: 0 } };
  };
  const spans = [
    span(root, '', 'invoke_agent e2e', { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'e2e-analytics' }),
    span(call, root, `execute_tool ${tool}`, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool, 'guardtrace.outcome': 'success' }),
    span(a1, call, 'guardtrace.attempt', {
      'gen_ai.operation.name': 'guardtrace.attempt',
      'guardtrace.attempt': 1,
      'guardtrace.outcome': 'rejected',
      'guardtrace.failure.class': 'invalid_arguments',
      'guardtrace.decision': 'reject_with_feedback',
      'guardtrace.feedback': 'Missing required field "content" (3 fields expected)',
    }),
    span(repair, root, 'chat gpt-4.1-mini', {
      'gen_ai.operation.name': 'chat',
      'gen_ai.usage.input_tokens': 4200,
      'gen_ai.usage.output_tokens': 80,
      'guardtrace.repair.attempt_span_id': a1,
      'guardtrace.repair.failure_class': 'invalid_arguments',
    }),
    span(a2, call, 'guardtrace.attempt', { 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': 2, 'guardtrace.outcome': 'success', 'guardtrace.decision': 'proceed' }),
  ];
  if (alsoCalls) {
    const [other, attempt] = [hex(8), hex(8)];
    spans.push(
      span(other, root, `execute_tool ${alsoCalls}`, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': alsoCalls, 'guardtrace.outcome': 'success' }),
      span(attempt, other, 'guardtrace.attempt', { 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': 1, 'guardtrace.outcome': 'success', 'guardtrace.decision': 'proceed' }),
    );
  }
  const res = await fetch(`${process.env.GUARDTRACE_COLLECTOR_URL}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${current.apiKey}` },
    body: JSON.stringify({ resourceSpans: [{ resource: { attributes: kv({ 'service.name': 'e2e-analytics' }) }, scopeSpans: [{ scope: { name: 'e2e' }, spans }] }] }),
  });
  expect(res.status, await res.text()).toBe(200);
  return sessionId;
}

/** The analytics page once the collector's rollup shows the tool's segment. */
async function openWithSegment(page: Page, tool: string, query = '') {
  const row = page.getByTestId('tool-class-row').and(page.locator(`[data-tool="${tool}"]`));
  await expect(async () => {
    // The panels are server-rendered: the document is enough, hydration is not waited for.
    await page.goto(`/analytics?project=${project()}${query}`, { waitUntil: 'domcontentloaded' });
    await expect(row).toHaveCount(1, { timeout: 1000 });
  }).toPass();
  return row;
}

test('a tool × class segment, a cost bucket and a day link to the sessions explorer, filtered and within the window', async ({ page }) => {
  const tool = `e2e_write_${hex(3)}`;
  const sessionId = await sendSession(tool);
  const row = await openWithSegment(page, tool);
  await expect(row).toContainText('invalid arguments');
  await expect(row).toContainText('4,280');

  // The same session in the rejection panel: the feedback's values masked, fixed on the next attempt.
  const rejection = page.getByTestId('rejection-row').and(page.locator(`[data-tool="${tool}"]`));
  await expect(rejection).toContainText('Missing required field "…" (N fields expected)');
  await expect(rejection).toContainText('100.0%');
  // The class's token share, as a table (the chart's text alternative).
  await expect(page.getByTestId('class-row').and(page.locator('[data-class="invalid_arguments"]')).getByTestId('class-share')).toHaveText(/%$/);

  // The page's window (the last 30 UTC days, as its heading says) goes with every link.
  const [from, to] = ((await page.getByTestId('analytics-window').textContent()) ?? '').split(' to ').map((d) => d.trim().slice(0, 10));
  const started = `started:>=${from} started:<=${to}`;
  // The failure panels count a failed attempt on its own day, so their links name that day (failed:).
  const failed = `failed:>=${from} failed:<=${to}`;

  await row.getByRole('link', { name: tool }).click();
  await expect(page).toHaveURL(/\/sessions\?/);
  const url = new URL(page.url());
  expect(url.pathname).toBe('/sessions');
  expect(url.searchParams.get('project')).toBe(project());
  expect(url.searchParams.get('q')).toBe(`class:invalid_arguments tool:${tool} ${failed}`);
  expect(url.search).toContain(`q=class:invalid_arguments%20tool:${tool}`);
  await expect(page.getByTestId('session-row').and(page.locator(`[data-session-id="${sessionId}"]`))).toHaveCount(1);

  // The cost bucket of its 4,280 tokens: the explorer lists the sessions of 2,000 to 5,000 tokens started in the window.
  await page.goBack();
  await page.getByTestId('cost-bucket').and(page.locator('[data-min="2000"]')).getByTestId('cost-bucket-link').click();
  await expect(page).toHaveURL(/\/sessions\?/);
  expect(new URL(page.url()).searchParams.get('q')).toBe(`tokens:>=2000 tokens:<5000 ${started}`);
  await expect(page.getByTestId('session-row').and(page.locator(`[data-session-id="${sessionId}"]`))).toHaveCount(1);
  await expect(page.getByTestId('query-errors')).toHaveCount(0);

  // Its day in the repair tokens' table: the sessions with an invalid_arguments failure that day.
  await page.goBack();
  await page.getByTestId('repair-days').getByText('Show as a table').click();
  await page.getByTestId('repair-days-table').getByTestId('repair-day-link').last().click();
  await expect(page).toHaveURL(/\/sessions\?/);
  expect(new URL(page.url()).searchParams.get('q')).toMatch(/^class:\S+ failed:\d{4}-\d{2}-\d{2}$/);
  await expect(page.getByTestId('session-row').and(page.locator(`[data-session-id="${sessionId}"]`))).toHaveCount(1);

  // The sessions the page counts: every session started in the window.
  await page.goBack();
  await page.getByTestId('stored-sessions-link').click();
  await expect(page).toHaveURL(/\/sessions\?/);
  expect(new URL(page.url()).searchParams.get('q')).toBe(started);

  // The same from the chart: a click on today's bar segment.
  await page.goBack();
  await page.getByTestId('repair-chart').locator('.recharts-bar-rectangle path').last().click();
  await expect(page).toHaveURL(/\/sessions\?/);
  expect(new URL(page.url()).searchParams.get('q')).toMatch(new RegExp(`^class:\\S+ failed:${to}$`));
});

test('the time window is in the URL: presets, a custom from/to, and a clear message for a bad one', async ({ page }) => {
  const tool = `e2e_range_${hex(3)}`;
  await sendSession(tool);
  await openWithSegment(page, tool, '&range=7');
  await expect(page.getByRole('link', { name: '7 days' })).toHaveAttribute('aria-current', 'page');

  // A custom window that ends before today leaves today's segment out.
  await page.getByLabel('From (UTC date)').fill('2020-01-01');
  await page.getByLabel('To (UTC date)').fill('2020-01-31');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/from=2020-01-01&to=2020-01-31/);
  await expect(page.getByTestId('analytics-window')).toHaveText('2020-01-01 to 2020-01-31 (UTC)');
  await expect(page.getByTestId('tool-class-row')).toHaveCount(0);

  await page.goto(`/analytics?project=${project()}&range=12`, { waitUntil: 'domcontentloaded' });
  await expect(page.getByTestId('range-error')).toContainText('range: expected one of 7, 30, 90 (days), got "12"');
});

test("class shares count the same tokens above and below the line: a session begun before the range, failing inside it, never puts a share over 100%", async ({ page }) => {
  // One session begins a minute before the range's first day and fails after midnight; another
  // lies inside the range. The cards count sessions started in the range (the second one only);
  // the failure panels count failed attempts by their day (both sessions' repair turns).
  const tool = `write_${hex(3)}`;
  const before = await sendSession(tool, { startMs: Date.parse('2026-11-06T23:59:00Z'), restMs: Date.parse('2026-11-07T00:05:00Z') });
  const inside = await sendSession(tool, { startMs: Date.parse('2026-11-07T01:00:00Z'), restMs: Date.parse('2026-11-07T01:00:00Z') });
  // A third: another tool rejected for invalid arguments, then a call of this one that worked.
  const other = await sendSession(`read_${hex(3)}`, { startMs: Date.parse('2026-11-08T01:00:00Z'), restMs: Date.parse('2026-11-08T01:00:00Z') }, tool);
  const query = '&from=2026-11-07&to=2026-11-30';
  const row = page.getByTestId('tool-class-row').and(page.locator(`[data-tool="${tool}"]`));
  await expect(async () => {
    await page.goto(`/analytics?project=${project()}${query}`, { waitUntil: 'domcontentloaded' });
    await expect(row.getByText('8,560')).toHaveCount(1, { timeout: 1000 });
  }).toPass();
  // The three repair turns (3 × 4,280 tokens) in the class's share, of the tokens on failures:
  // 100%, not 150% (the cards count the two sessions started in the range: 8,560 tokens).
  const share = page.getByTestId('class-row').and(page.locator('[data-class="invalid_arguments"]'));
  await expect(share).toContainText('12,840');
  await expect(share.getByTestId('class-share')).toHaveText('100.0%');
  const totals = page.getByTestId('analytics-totals');
  await expect(totals).toContainText('Sessions (est.)2');
  await expect(totals).toContainText('8,560');
  await expect(totals).toContainText('input + output of the sessions started in the range');

  // The segment counts both sessions, and its link lists exactly them: the one begun before the
  // range included (its failure is inside), the one whose invalid arguments were another tool's left out.
  await expect(row.locator('td').last()).toHaveText('2');
  await row.getByRole('link', { name: tool }).click();
  await expect(page).toHaveURL(/\/sessions\?/);
  expect(new URL(page.url()).searchParams.get('q')).toBe(`class:invalid_arguments tool:${tool} failed:>=2026-11-07 failed:<=2026-11-30`);
  const listed = page.getByTestId('session-row');
  await expect(listed).toHaveCount(2);
  await expect(listed.and(page.locator(`[data-session-id="${before}"]`))).toHaveCount(1);
  await expect(listed.and(page.locator(`[data-session-id="${inside}"]`))).toHaveCount(1);
  await expect(listed.and(page.locator(`[data-session-id="${other}"]`))).toHaveCount(0);
});
