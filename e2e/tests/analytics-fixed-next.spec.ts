/**
 * Analytics' "Fixed next" and "Sessions" as a person reads them, from raw OTLP through the
 * collector: the corrected call is its own execute_tool span with a new call id after the repair
 * turn (the shape the AI SDK, OpenAI Agents and the SDK's instrument-only API record), once under
 * another tool name (a hallucinated tool corrected to a real one), once failing again before a
 * second correction works. One session's two templates of one tool count it once.
 */
import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { newProjectWithKey } from '../projects.ts';

const hex = (n: number) => randomBytes(n).toString('hex');

// A page load on the shared 2-core machine can take tens of seconds; no step here is timed.
test.slow();
// A project of its own: the panels rank their top rows, and the shared project's other sessions
// (the demo's, the seed's, other specs' refusals) would crowd this test's few rejections out.
let current = { project: '', apiKey: '' };
const project = () => current.project;
test.beforeEach(async ({ page }) => {
  current = await newProjectWithKey(page, 'Fixed next');
});

type Attr = string | number;
const kv = (attrs: Record<string, Attr>) =>
  Object.entries(attrs).map(([key, v]) => ({ key, value: typeof v === 'number' ? { intValue: v } : { stringValue: v } }));

/** An agent session's spans, each starting 5 ms after the previous one (a minute ago: inside the page's window). */
function session() {
  const traceId = hex(16);
  const sessionId = `e2e-fixed-${hex(4)}`;
  const root = hex(8);
  const spans: Record<string, unknown>[] = [];
  let t = BigInt(Date.now() - 60_000) * 1_000_000n;
  const span = (parent: string, name: string, attrs: Record<string, Attr>, spanId = hex(8)) => {
    t += 5_000_000n;
    spans.push({
      traceId,
      spanId,
      parentSpanId: parent,
      name,
      kind: 1,
      startTimeUnixNano: String(t),
      endTimeUnixNano: String(t + 2_000_000n),
      attributes: kv({ 'gen_ai.conversation.id': sessionId, ...attrs }),
      status: { code: 0 },
    });
    return spanId;
  };
  span('', 'invoke_agent e2e', { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'e2e-fixed-next' }, root);
  const chat = (repairs?: string, failureClass = '') =>
    span(root, 'chat gpt-4.1', {
      'gen_ai.operation.name': 'chat',
      'gen_ai.usage.input_tokens': repairs ? 90_000 : 900,
      'gen_ai.usage.output_tokens': 40,
      ...(repairs ? { 'guardtrace.repair.attempt_span_id': repairs, 'guardtrace.repair.failure_class': failureClass } : {}),
    });
  /** A tool call of one attempt with a new call id; returns the attempt's span id. */
  const call = (tool: string, failure?: { cls: string; feedback: string }) => {
    const callId = `call_${hex(5)}`;
    const outcome = failure ? 'rejected' : 'success';
    const c = span(root, `execute_tool ${tool}`, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool, 'gen_ai.tool.call.id': callId, 'guardtrace.outcome': outcome });
    return span(c, 'guardtrace.attempt', {
      'gen_ai.operation.name': 'guardtrace.attempt',
      'gen_ai.tool.call.id': callId,
      'guardtrace.attempt': 1,
      'guardtrace.outcome': outcome,
      'guardtrace.decision': failure ? 'reject_with_feedback' : 'proceed',
      ...(failure ? { 'guardtrace.failure.class': failure.cls, 'guardtrace.feedback': failure.feedback } : {}),
    });
  };
  return { sessionId, spans, chat, call };
}

async function send(spans: Record<string, unknown>[]) {
  const res = await fetch(`${process.env.GUARDTRACE_COLLECTOR_URL}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${current.apiKey}` },
    body: JSON.stringify({ resourceSpans: [{ resource: { attributes: kv({ 'service.name': 'e2e-fixed-next' }) }, scopeSpans: [{ scope: { name: 'e2e' }, spans }] }] }),
  });
  expect(res.status, await res.text()).toBe(200);
}

test('Fixed next counts corrections made as new calls, under another tool name, and not those that failed again', async ({ page }) => {
  const p = `e2e${hex(3)}`;
  const [wrong, right, write] = [`${p}_search_codebase`, `${p}_search_files`, `${p}_write_file`];

  // A hallucinated tool, corrected by a new call of the real one.
  const a = session();
  a.chat();
  const unknown = a.call(wrong, { cls: 'unknown_tool', feedback: `Unknown tool "${wrong}". Did you mean "${right}"?` });
  a.chat(unknown, 'unknown_tool');
  a.call(right);
  a.chat();
  // Corrections that fail again (under another template, then the first one's), then one that works.
  const b = session();
  b.chat();
  const first = b.call(write, { cls: 'invalid_arguments', feedback: 'Missing required field "content"' });
  b.chat(first, 'invalid_arguments');
  const second = b.call(write, { cls: 'invalid_arguments', feedback: 'Expected at most 3 files, got 12' });
  b.chat(second, 'invalid_arguments');
  const third = b.call(write, { cls: 'invalid_arguments', feedback: 'Missing required field "path"' });
  b.chat(third, 'invalid_arguments');
  b.call(write);
  b.chat();
  await send([...a.spans, ...b.spans]);

  const rejection = (tool: string, template?: string) => {
    const rows = page.getByTestId('rejection-row').and(page.locator(`[data-tool="${tool}"]`));
    return template ? rows.filter({ hasText: template }) : rows;
  };
  await expect(async () => {
    // Server-rendered panels: the document is enough, hydration is not waited for.
    await page.goto(`/analytics?project=${project()}`, { waitUntil: 'domcontentloaded' });
    await expect(rejection(write)).toHaveCount(2, { timeout: 1000 });
  }).toPass();

  await expect(rejection(wrong)).toContainText('unknown tool');
  await expect(rejection(wrong).locator('td').nth(3)).toHaveText('100.0%');
  // A rejection whose correction failed again is not fixed: "Missing…" twice, its second fixed;
  // "Expected…" once, its correction (the second "Missing…") failed.
  await expect(rejection(write, 'Missing required field').locator('td').nth(2)).toHaveText('2');
  await expect(rejection(write, 'Missing required field').locator('td').nth(3)).toHaveText('50.0%');
  await expect(rejection(write, 'Expected at most N files, got N').locator('td').nth(3)).toHaveText('0.0%');
  // What the figure means, on the column and under the panel's title.
  await expect(page.getByTestId('fixed-next-header')).toHaveAttribute('title', /first call the model made after its repair turn/);
  await expect(page.getByTestId('rejections')).toContainText("Fixed next: the share whose correction succeeded at once: the same call's next attempt");

  // One session with three failed attempts of one tool under two templates: 1 session.
  const segment = page.getByTestId('tool-class-row').and(page.locator(`[data-tool="${write}"]`));
  await expect(segment.locator('td').nth(3)).toHaveText('3');
  await expect(segment.locator('td').last()).toHaveText('1');
});
