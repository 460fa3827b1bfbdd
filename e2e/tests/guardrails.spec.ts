/**
 * An OpenTelemetry GenAI session with guardrails in the merged GenAI guardrail convention
 * (`apply_guardrail` client spans and `gen_ai.guardrail.result` events), posted as raw OTLP/JSON
 * to the real collector: the replay shows each guardrail's provider-native result, its reason,
 * policy (id@version), source, risk and the argument it points at, under the tool call it guarded,
 * and a verdict only where an explicit value gives one. No library on the npm registry emits
 * these spans yet (checked 2026-12-05: neither the OpenAI Agents SDK nor any OpenTelemetry
 * instrumentation writes `gen_ai.guardrail.*`), so the payload follows the convention's own
 * examples (docs/gen-ai/gen-ai-guardrails.md: Amazon Bedrock Guardrails, Azure AI Content
 * Safety, OpenAI Agents).
 */
import { randomBytes } from 'node:crypto';
import { expect, type Page, test } from '@playwright/test';
import { goToStep, position } from './replay-helpers.ts';

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
type Value = string | number | boolean | string[];
const anyValue = (v: Value): Record<string, unknown> => {
  if (Array.isArray(v)) return { arrayValue: { values: v.map((x) => ({ stringValue: x })) } };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  return { stringValue: v };
};
const kv = (attrs: Record<string, Value>) => Object.entries(attrs).map(([key, v]) => ({ key, value: anyValue(v) }));

/** The session as an OpenTelemetry GenAI agent with Bedrock, Azure and OpenAI Agents guardrails records it. */
async function sendSession(sessionId: string): Promise<void> {
  const traceId = hex(16);
  const conv = { 'gen_ai.conversation.id': sessionId };
  const [root, chat, tool, bedrock, azure] = [hex(8), hex(8), hex(8), hex(8), hex(8)];
  // Times relative to now only place the spans in the collector's current partitions; nothing is asserted on them.
  const t0 = BigInt(Date.now() - 60_000) * 1_000_000n;
  const at = (ms: number) => String(t0 + BigInt(ms) * 1_000_000n);
  const span = (spanId: string, parent: string, name: string, from: number, to: number, kind: number, attrs: Record<string, Value>, events: object[] = []) => ({
    traceId,
    spanId,
    parentSpanId: parent,
    name,
    kind,
    startTimeUnixNano: at(from),
    endTimeUnixNano: at(to),
    attributes: kv({ ...conv, ...attrs }),
    events,
    status: { code: 0 },
  });
  const result = (ms: number, attrs: Record<string, Value>) => ({ timeUnixNano: at(ms), name: 'gen_ai.guardrail.result', attributes: kv(attrs) });
  const spans = [
    span(root, '', 'invoke_agent files', 0, 900, 1, { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'files' }),
    span(chat, root, 'chat gpt-4.1-mini', 10, 200, 3, {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4.1-mini',
      'gen_ai.usage.input_tokens': 900,
      'gen_ai.usage.output_tokens': 40,
    }),
    // The tool call; an OpenAI Agents tool-input guardrail reported its result on it (no span of its own).
    span(
      tool,
      root,
      'execute_tool write_file',
      300,
      500,
      1,
      { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'write_file', 'gen_ai.tool.call.id': 'call_write', 'gen_ai.tool.call.arguments': '{"path":"../../etc/passwd","content":"x"}' },
      [result(310, { 'gen_ai.guardrail.component.name': 'no_secrets', 'gen_ai.guardrail.source': 'tool_input', 'gen_ai.guardrail.result.type': 'tripwire_triggered', 'gen_ai.guardrail.result.value': 'false' })],
    ),
    // Amazon Bedrock Guardrails' ApplyGuardrail on the tool's input: it intervened, one assessment at /path.
    span(
      bedrock,
      tool,
      'apply_guardrail Amazon Bedrock Guardrails',
      320,
      400,
      3,
      {
        'gen_ai.operation.name': 'apply_guardrail',
        'gen_ai.provider.name': 'aws.bedrock',
        'gen_ai.guardrail.component.name': 'Amazon Bedrock Guardrails',
        'gen_ai.guardrail.policy.id': 'gr-abc123',
        'gen_ai.guardrail.policy.version': '1',
        'gen_ai.guardrail.source': 'INPUT',
        'gen_ai.guardrail.result.type': 'action',
        'gen_ai.guardrail.result.value': 'GUARDRAIL_INTERVENED',
        'gen_ai.guardrail.result.reason': 'Guardrail policy blocked the requested topic',
      },
      [result(399, { 'gen_ai.guardrail.policy.rule.id': 'workspace-paths', 'gen_ai.guardrail.risk.category': 'PATH_TRAVERSAL', 'gen_ai.guardrail.risk.score': 0.97, 'guardtrace.guard.pointers': ['/path'] })],
    ),
    // Azure AI Content Safety on the model's output: severities only, no verdict.
    span(azure, root, 'apply_guardrail Azure AI Content Safety', 600, 700, 3, { 'gen_ai.operation.name': 'apply_guardrail', 'gen_ai.provider.name': 'azure.ai.content_safety', 'gen_ai.guardrail.component.name': 'Azure AI Content Safety' }, [
      result(650, { 'gen_ai.guardrail.result.type': 'severity', 'gen_ai.guardrail.result.value': '4', 'gen_ai.guardrail.risk.category': 'Violence', 'gen_ai.guardrail.risk.score': 4 }),
    ]),
  ];
  const res = await fetch(`${process.env.GUARDTRACE_COLLECTOR_URL}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.GUARDTRACE_API_KEY}` },
    body: JSON.stringify({ resourceSpans: [{ resource: { attributes: kv({ 'service.name': 'otel-genai-agent' }) }, scopeSpans: [{ scope: { name: 'genai' }, spans }] }] }),
  });
  expect(res.status, await res.text()).toBe(200);
}

async function openReplay(page: Page, sessionId: string) {
  await expect(async () => {
    await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
    await expect(position(page)).toBeVisible({ timeout: 5000 });
  }).toPass({ timeout: 60_000 });
}

test("the merged GenAI guardrail convention: each guardrail's native result, reason, policy, source and pointer, under the call it guarded", async ({ page }) => {
  const sessionId = `guardrails-${hex(4)}`;
  await sendSession(sessionId);
  await openReplay(page, sessionId);

  // The guarded tool call lists its guardrails instead of saying it ran through none.
  await goToStep(page, 'write_file', 'tool');
  const call = page.getByTestId('step-detail').getByTestId('tool-call');
  await expect(call).not.toContainText('not run through Guardtrace guards');
  const checks = call.getByTestId('call-guardrails').getByTestId('guard-check');
  await expect(checks).toHaveCount(2);

  const bedrock = checks.filter({ hasText: 'Amazon Bedrock Guardrails' });
  await expect(bedrock).toHaveAttribute('data-verdict', 'fail');
  await expect(bedrock.getByTestId('guard-reason')).toHaveText('Guardrail policy blocked the requested topic');
  await expect(bedrock.getByTestId('guardrail-native')).toHaveText('action = GUARDRAIL_INTERVENED');
  await expect(bedrock.getByTestId('guardrail-policy')).toHaveText('gr-abc123@1');
  await expect(bedrock.getByTestId('guardrail-source')).toHaveText('INPUT');
  await expect(bedrock.getByTestId('guardrail-rule')).toHaveText('workspace-paths');
  await expect(bedrock.getByTestId('guardrail-risk')).toHaveText('PATH_TRAVERSAL 0.97');
  await expect(bedrock.getByTestId('guard-pointer')).toHaveText('/path');

  // OpenAI Agents' tripwire, read from the event on the call's own span: not triggered is a pass.
  const tripwire = checks.filter({ hasText: 'no_secrets' });
  await expect(tripwire).toHaveAttribute('data-verdict', 'pass');
  await expect(tripwire.getByTestId('guardrail-native')).toHaveText('tripwire_triggered = false');
  await expect(tripwire.getByTestId('guardrail-source')).toHaveText('tool_input');

  // Azure AI Content Safety reports severities, no verdict: none is derived, the native values show.
  await goToStep(page, 'Azure AI Content Safety', 'guard');
  const azure = page.getByTestId('step-detail').getByTestId('guard-check');
  await expect(azure).toHaveAttribute('data-verdict', 'unknown');
  await expect(azure).toContainText('? not derived');
  await expect(azure.getByTestId('guardrail-native')).toHaveText('severity = 4');
  await expect(azure.getByTestId('guardrail-risk')).toHaveText('Violence 4');
});
