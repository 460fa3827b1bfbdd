/**
 * Other instrumentations' spans, produced by the real libraries where one exists (the Vercel AI
 * SDK with its mock model), through the real OTel SDK and OTLP exporter, over HTTP into
 * Postgres: the rows they become. Guardrail spans have no JS emitter yet: they are written
 * through the same OTel SDK in the shapes of the OpenTelemetry proposals (cited per case).
 */
import { readFileSync } from 'node:fs';
import { type Attributes, context, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { refreshSessions, textArray } from '../src/sql.ts';
import { type Env, hex, one, setupApp, setupDatabase } from './helpers.ts';

let env: Env;
let app: FastifyInstance;
let url: string;
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(async () => {
  context.setGlobalContextManager(contextManager.enable());
  env = await setupDatabase();
  app = await setupApp(env, { rateLimitPerSecond: 0 });
  url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/v1/traces`;
});
afterAll(async () => {
  contextManager.disable();
  context.disable();
  await app?.close();
  await env?.close();
});

/** A tracer exporting each span as it ends through the real protobuf exporter, and its flush. */
function exportingTracer(service: string) {
  const exporter = new OTLPTraceExporter({ url, headers: { authorization: `Bearer ${env.key}` } });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  return { tracer: provider.getTracer('conventions-test'), done: () => provider.shutdown() };
}

/** Totals written from the batch must equal the SQL recompute from the stored rows. */
async function expectTotalsAgree(sessionId: string) {
  const cols = 'user_id, span_count, error_span_count, tool_call_count, attempt_count, failed_attempt_count, model_call_count, input_tokens, output_tokens';
  const read = () => one(env.sql, `SELECT ${cols} FROM sessions WHERE project_id = $1 AND id = $2`, [env.projectId, sessionId]);
  const written = await read();
  await env.sql.query(refreshSessions(textArray([env.projectId]), textArray([sessionId])));
  expect(await read()).toEqual(written);
  return written;
}

type Gen = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
type StreamPart = Awaited<ReturnType<MockLanguageModelV3['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;
const usage = (input: number, output: number): Gen['usage'] => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

describe('Vercel AI SDK (ai 6, real generateText with a mock model)', () => {
  it('maps telemetry metadata to the session and user, refused tool calls to rejected attempts, a throwing tool to a failed call', async () => {
    const sessionId = `chat_${hex(6)}`;
    const userId = `user_${hex(3)}`;
    const script: Gen[] = [
      {
        content: [
          { type: 'tool-call', toolCallId: 'call_bad_input', toolName: 'weather', input: '{"town":"Paris"}' },
          { type: 'tool-call', toolCallId: 'call_no_tool', toolName: 'wether', input: '{"city":"Paris"}' },
          { type: 'tool-call', toolCallId: 'call_throws', toolName: 'weather', input: '{"city":"Oslo"}' },
        ],
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage: usage(100, 10),
        warnings: [],
      },
      { content: [{ type: 'text', text: 'It is 20 degrees in Paris.' }], finishReason: { unified: 'stop', raw: undefined }, usage: usage(300, 12), warnings: [] },
    ];
    let step = 0;
    const model = new MockLanguageModelV3({ provider: 'mock-provider', modelId: 'mock-model', doGenerate: async () => script[step++] as Gen });
    const { tracer, done } = exportingTracer('vercel-agent');
    const result = await generateText({
      model,
      prompt: 'Weather in Paris and Oslo?',
      stopWhen: stepCountIs(3),
      tools: {
        weather: tool({
          description: 'Current weather of a city',
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => {
            if (city === 'Oslo') throw new Error('weather service answered 503 for Oslo');
            return { celsius: 20 };
          },
        }),
      },
      experimental_telemetry: { isEnabled: true, tracer, functionId: 'weather-chat', metadata: { sessionId, userId } },
    });
    await done();
    expect(result.text).toBe('It is 20 degrees in Paris.');

    const spans = (await env.sql.query('SELECT name FROM spans WHERE project_id = $1 AND session_id = $2 ORDER BY name', [env.projectId, sessionId])).rows;
    expect(spans.map((s) => s.name)).toEqual(['ai.generateText', 'ai.generateText.doGenerate', 'ai.generateText.doGenerate', 'ai.toolCall']);

    const attempts = (
      await env.sql.query(
        'SELECT tool_name, outcome, failure_class, failure_reason, arguments, tool_call_span_id, number FROM attempts WHERE project_id = $1 AND session_id = $2 ORDER BY tool_name, outcome',
        [env.projectId, sessionId],
      )
    ).rows;
    expect(attempts).toHaveLength(3);
    const toolSpan = await one(env.sql, "SELECT span_id FROM spans WHERE project_id = $1 AND session_id = $2 AND name = 'ai.toolCall'", [env.projectId, sessionId]);
    // The tool that threw: its ai.toolCall span's one attempt, failed, of the class its error maps to (a 503: transient).
    expect(attempts[0]).toMatchObject({ tool_name: 'weather', outcome: 'failed', failure_class: 'transient', arguments: '{"city":"Oslo"}', tool_call_span_id: toolSpan.span_id, number: 1 });
    expect(attempts[0].failure_reason).toBe('Error: weather service answered 503 for Oslo');
    expect(attempts[1]).toMatchObject({ tool_name: 'weather', outcome: 'rejected', failure_class: 'invalid_arguments', arguments: '{"town":"Paris"}', tool_call_span_id: null, number: 1 });
    expect(attempts[1].failure_reason).toMatch(/^Invalid input for tool weather: Type validation failed/);
    expect(attempts[1].failure_reason).toContain('"city"');
    expect(attempts[2]).toMatchObject({
      tool_name: 'wether',
      outcome: 'rejected',
      failure_class: 'unknown_tool',
      failure_reason: "Model tried to call unavailable tool 'wether'. Available tools: weather.",
      arguments: '{"city":"Paris"}',
    });

    // The refused calls and the thrown one count in the analytics rollup as the attempts they are stored as.
    const parts = (
      await env.sql.query(
        'SELECT tool_name, failure_class, attempts, failed_attempts, row_count FROM analytics_session_parts WHERE project_id = $1 AND session_id = $2 ORDER BY tool_name, failure_class',
        [env.projectId, sessionId],
      )
    ).rows;
    expect(parts).toEqual([
      { tool_name: 'weather', failure_class: 'invalid_arguments', attempts: 1, failed_attempts: 1, row_count: 1 },
      { tool_name: 'weather', failure_class: 'transient', attempts: 1, failed_attempts: 1, row_count: 1 },
      { tool_name: 'wether', failure_class: 'unknown_tool', attempts: 1, failed_attempts: 1, row_count: 1 },
    ]);

    const tool_ = await one(env.sql, 'SELECT tool_name, call_id, outcome, failure_class, failure_reason, arguments FROM tool_calls WHERE project_id = $1 AND session_id = $2', [env.projectId, sessionId]);
    expect(tool_).toEqual({
      tool_name: 'weather',
      call_id: 'call_throws',
      outcome: 'failed',
      failure_class: 'transient',
      failure_reason: 'Error: weather service answered 503 for Oslo',
      arguments: '{"city":"Oslo"}',
    });

    const models = (await env.sql.query('SELECT model, provider, input_tokens, output_tokens FROM model_calls WHERE project_id = $1 AND session_id = $2 ORDER BY input_tokens', [env.projectId, sessionId])).rows;
    expect(models).toEqual([
      { model: 'mock-model', provider: 'mock-provider', input_tokens: 100, output_tokens: 10 },
      { model: 'mock-model', provider: 'mock-provider', input_tokens: 300, output_tokens: 12 },
    ]);

    const totals = await expectTotalsAgree(sessionId);
    // Three calls of one attempt each: the two the AI SDK refused count as calls, not as retries of the third.
    expect(totals).toMatchObject({ user_id: userId, span_count: 4, error_span_count: 1, tool_call_count: 3, attempt_count: 3, failed_attempt_count: 3, model_call_count: 2, input_tokens: '400' });
  });

  it('reads the refused calls of streamText too (ai.streamText.doStream)', async () => {
    const sessionId = `chat_${hex(6)}`;
    const finish = (unified: 'tool-calls' | 'stop'): StreamPart => ({ type: 'finish', finishReason: { unified, raw: undefined }, usage: usage(50, 5) });
    const steps: StreamPart[][] = [
      [{ type: 'tool-call', toolCallId: 'call_s1', toolName: 'weather', input: '{"town":"Rome"}' }, finish('tool-calls')],
      [{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'Sunny.' }, { type: 'text-end', id: 't' }, finish('stop')],
    ];
    let step = 0;
    const model = new MockLanguageModelV3({ doStream: async () => ({ stream: simulateReadableStream({ chunks: steps[step++] ?? [] }) }) });
    const { tracer, done } = exportingTracer('streaming-agent');
    const result = streamText({
      model,
      prompt: 'Weather in Rome?',
      stopWhen: stepCountIs(3),
      tools: { weather: tool({ inputSchema: z.object({ city: z.string() }), execute: async () => ({ celsius: 25 }) }) },
      experimental_telemetry: { isEnabled: true, tracer, metadata: { sessionId } },
    });
    expect(await result.text).toBe('Sunny.');
    await done();
    const attempt = await one(env.sql, 'SELECT tool_name, outcome, failure_class, arguments FROM attempts WHERE project_id = $1 AND session_id = $2', [env.projectId, sessionId]);
    expect(attempt).toEqual({ tool_name: 'weather', outcome: 'rejected', failure_class: 'invalid_arguments', arguments: '{"town":"Rome"}' });
    expect(await expectTotalsAgree(sessionId)).toMatchObject({ attempt_count: 1, failed_attempt_count: 1, model_call_count: 2 });
  });

  it('streamText with parallel tool calls over two steps: one failed and one succeeded call, two model calls, cached tokens once', async () => {
    const sessionId = `chat_${hex(6)}`;
    const cachedUsage = {
      inputTokens: { total: 100, noCache: 60, cacheRead: 40, cacheWrite: undefined },
      outputTokens: { total: 10, text: 7, reasoning: 3 },
    };
    const finish = (unified: 'tool-calls' | 'stop'): StreamPart => ({ type: 'finish', finishReason: { unified, raw: undefined }, usage: cachedUsage });
    const steps: StreamPart[][] = [
      [
        { type: 'tool-call', toolCallId: 'call_rome', toolName: 'weather', input: '{"city":"Rome"}' },
        { type: 'tool-call', toolCallId: 'call_oslo', toolName: 'weather', input: '{"city":"Oslo"}' },
        finish('tool-calls'),
      ],
      [{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'Sunny in Rome.' }, { type: 'text-end', id: 't' }, finish('stop')],
    ];
    let step = 0;
    const model = new MockLanguageModelV3({ doStream: async () => ({ stream: simulateReadableStream({ chunks: steps[step++] ?? [] }) }) });
    const { tracer, done } = exportingTracer('streaming-agent');
    const result = streamText({
      model,
      prompt: 'Weather in Rome and Oslo?',
      stopWhen: stepCountIs(3),
      tools: {
        weather: tool({
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => {
            if (city === 'Oslo') throw new Error('weather service answered 503 for Oslo');
            return { celsius: 25 };
          },
        }),
      },
      experimental_telemetry: { isEnabled: true, tracer, metadata: { sessionId } },
    });
    expect(await result.text).toBe('Sunny in Rome.');
    await done();
    const calls = (await env.sql.query('SELECT call_id, outcome, failure_class, failure_reason FROM tool_calls WHERE project_id = $1 AND session_id = $2 ORDER BY call_id', [env.projectId, sessionId])).rows;
    expect(calls).toEqual([
      { call_id: 'call_oslo', outcome: 'failed', failure_class: 'transient', failure_reason: 'Error: weather service answered 503 for Oslo' },
      { call_id: 'call_rome', outcome: 'success', failure_class: null, failure_reason: null },
    ]);
    const models = (await env.sql.query('SELECT input_tokens, output_tokens, cached_input_tokens FROM model_calls WHERE project_id = $1 AND session_id = $2', [env.projectId, sessionId])).rows;
    expect(models).toEqual([
      { input_tokens: 100, output_tokens: 10, cached_input_tokens: 40 },
      { input_tokens: 100, output_tokens: 10, cached_input_tokens: 40 },
    ]);
    expect(await expectTotalsAgree(sessionId)).toMatchObject({ model_call_count: 2, input_tokens: '200', output_tokens: '20', tool_call_count: 2, attempt_count: 2, failed_attempt_count: 1 });
  });

  it('stores a resent export once: the refused calls are not counted twice', async () => {
    const sessionId = `chat_${hex(6)}`;
    const script: Gen[] = [
      { content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'nope', input: '{}' }], finishReason: { unified: 'tool-calls', raw: undefined }, usage: usage(5, 1), warnings: [] },
      { content: [{ type: 'text', text: 'ok' }], finishReason: { unified: 'stop', raw: undefined }, usage: usage(9, 1), warnings: [] },
    ];
    let step = 0;
    const model = new MockLanguageModelV3({ doGenerate: async () => script[step++] as Gen });
    const finished: Parameters<OTLPTraceExporter['export']>[0] = [];
    const provider = new BasicTracerProvider({
      spanProcessors: [{ onStart: () => {}, onEnd: (s) => void finished.push(s), forceFlush: async () => {}, shutdown: async () => {} }],
    });
    await generateText({
      model,
      prompt: 'hi',
      stopWhen: stepCountIs(3),
      tools: { echo: tool({ inputSchema: z.object({}), execute: async () => 'x' }) },
      experimental_telemetry: { isEnabled: true, tracer: provider.getTracer('ai'), metadata: { sessionId } },
    });
    const exporter = new OTLPTraceExporter({ url, headers: { authorization: `Bearer ${env.key}` } });
    for (let i = 0; i < 2; i++) expect(await new Promise((r) => exporter.export(finished, (res) => r(res.code)))).toBe(0);
    await exporter.shutdown();
    const attempts = (await env.sql.query('SELECT failure_class FROM attempts WHERE project_id = $1 AND session_id = $2', [env.projectId, sessionId])).rows;
    expect(attempts).toEqual([{ failure_class: 'unknown_tool' }]);
    expect(await expectTotalsAgree(sessionId)).toMatchObject({ attempt_count: 1, failed_attempt_count: 1 });
  });
});

describe('OpenTelemetry GenAI guardrails (proposals; no JS emitter yet)', () => {
  it('stores deny and passed=false decisions as failed checks with their reason and violations', async () => {
    const sessionId = `guard_${hex(6)}`;
    const { tracer, done } = exportingTracer('guarded-agent');
    const c = { 'gen_ai.conversation.id': sessionId };
    const root = tracer.startSpan('invoke_agent support', { attributes: { ...c, 'gen_ai.operation.name': 'invoke_agent' } });
    const under = trace.setSpan(context.active(), root);
    const guard = (name: string, attributes: Attributes, findings: Attributes[] = []) => {
      const s = tracer.startSpan(name, { attributes: { ...c, ...attributes } }, under);
      for (const f of findings) s.addEvent(f['gen_ai.guardrail.security.risk.category'] ? 'gen_ai.guardrail.security.finding' : 'gen_ai.security.finding', f);
      s.end();
    };
    // semconv-genai#427: run_guardrail, gen_ai.guardrail.component.name / verdict.type / verdict.reason / action.type.
    guard('run_guardrail pii_filter', {
      'gen_ai.operation.name': 'run_guardrail',
      'gen_ai.guardrail.component.name': 'pii_filter',
      'gen_ai.guardrail.target.type': 'input',
      'gen_ai.guardrail.verdict.type': 'deny',
      'gen_ai.guardrail.verdict.reason': 'email address in input',
      'gen_ai.guardrail.action.type': 'block',
    });
    guard('run_guardrail jailbreak', { 'gen_ai.operation.name': 'run_guardrail', 'gen_ai.guardrail.component.name': 'jailbreak', 'gen_ai.guardrail.verdict.type': 'allow' });
    // The security guardian prototype: apply_guardrail, gen_ai.security.decision.type and gen_ai.security.finding events.
    guard(
      'apply_guardrail Content Filter',
      { 'gen_ai.operation.name': 'apply_guardrail', 'gen_ai.guardian.name': 'Content Filter', 'gen_ai.security.decision.type': 'deny', 'gen_ai.security.decision.reason': 'PII detected in output' },
      [
        { 'gen_ai.security.risk.category': 'sensitive_info_disclosure', 'gen_ai.security.risk.severity': 'high' },
        { 'gen_ai.security.risk.category': 'prompt_injection', 'gen_ai.security.risk.severity': 'medium' },
      ],
    );
    guard('apply_guardrail Topic', { 'gen_ai.operation.name': 'apply_guardrail', 'gen_ai.guardian.name': 'Topic', 'gen_ai.security.decision.type': 'warn' });
    // Keys instrumentations write outside any proposal.
    guard('guardrail toxicity', { 'gen_ai.operation.name': 'apply_guardrail', 'gen_ai.guardrail.name': 'toxicity', 'gen_ai.guardrail.passed': false });
    guard('guardrail policy', { 'gen_ai.operation.name': 'apply_guardrail', 'gen_ai.guardrail.name': 'policy', 'gen_ai.guardrail.decision': 'deny' });
    root.end();
    await done();

    const rows = (await env.sql.query('SELECT guard_name, verdict, reason FROM guard_checks WHERE project_id = $1 AND session_id = $2 ORDER BY guard_name COLLATE "C"', [env.projectId, sessionId])).rows;
    expect(rows).toEqual([
      { guard_name: 'Content Filter', verdict: 'fail', reason: 'PII detected in output (violations: sensitive_info_disclosure: high, prompt_injection: medium)' },
      { guard_name: 'Topic', verdict: 'pass', reason: null },
      { guard_name: 'jailbreak', verdict: 'pass', reason: null },
      { guard_name: 'pii_filter', verdict: 'fail', reason: 'email address in input' },
      { guard_name: 'policy', verdict: 'fail', reason: null },
      { guard_name: 'toxicity', verdict: 'fail', reason: null },
    ]);
  });
});

describe('error status and exception events (OpenTelemetry general conventions)', () => {
  it('become the failure reason of the tool call and the attempt', async () => {
    const sessionId = `err_${hex(6)}`;
    const { tracer, done } = exportingTracer('failing-agent');
    const c = { 'gen_ai.conversation.id': sessionId };
    // A call with its attempts as spans of their own says so, as the SDK does (guardtrace.attempt: attempts used).
    const call = tracer.startSpan('execute_tool read_file', { attributes: { ...c, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'read_file', 'guardtrace.attempt': 1 } });
    const attempt = tracer.startSpan('guardtrace.attempt', { attributes: { ...c, 'gen_ai.operation.name': 'guardtrace.attempt', 'gen_ai.tool.name': 'read_file' } }, trace.setSpan(context.active(), call));
    attempt.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream 503' });
    attempt.end();
    call.recordException(new TypeError("Cannot read properties of undefined (reading 'path')"));
    call.setStatus({ code: SpanStatusCode.ERROR });
    call.end();
    const fine = tracer.startSpan('execute_tool list', { attributes: { ...c, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'list' } });
    // A handled exception on a call that succeeded is no failure reason.
    fine.recordException(new Error('cache miss'));
    fine.end();
    await done();

    const calls = (await env.sql.query('SELECT tool_name, outcome, failure_reason FROM tool_calls WHERE project_id = $1 AND session_id = $2 ORDER BY tool_name', [env.projectId, sessionId])).rows;
    expect(calls).toEqual([
      { tool_name: 'list', outcome: 'success', failure_reason: null },
      { tool_name: 'read_file', outcome: 'failed', failure_reason: "TypeError: Cannot read properties of undefined (reading 'path')" },
    ]);
    const atts = (await env.sql.query('SELECT tool_name, outcome, failure_reason, error_type FROM attempts WHERE project_id = $1 AND session_id = $2 ORDER BY tool_name', [env.projectId, sessionId])).rows;
    expect(atts).toEqual([
      // The call without attempt spans of its own: its one implied attempt, and no failure reason from a handled exception.
      { tool_name: 'list', outcome: 'success', failure_reason: null, error_type: null },
      { tool_name: 'read_file', outcome: 'failed', failure_reason: 'upstream 503', error_type: null },
    ]);
  });

  it('a tool call that reports its failure by error.type alone (no ERROR status) failed, with that class', async () => {
    // The GenAI conventions' execute_tool span: `error.type` is set if and only if the operation ended
    // in an error (its status SHOULD be ERROR too, but an instrumentation may set only error.type).
    const sessionId = `errtype_${hex(6)}`;
    const { tracer, done } = exportingTracer('genai-agent');
    const c = { 'gen_ai.conversation.id': sessionId, 'gen_ai.operation.name': 'execute_tool' };
    const root = tracer.startSpan('invoke_agent support', { attributes: { 'gen_ai.conversation.id': sessionId, 'gen_ai.operation.name': 'invoke_agent' } });
    const under = trace.setSpan(context.active(), root);
    tracer
      .startSpan('execute_tool get_invoice', { attributes: { ...c, 'gen_ai.tool.name': 'get_invoice', 'gen_ai.tool.call.id': 'call_1', 'error.type': 'TimeoutError' } }, under)
      .end();
    tracer.startSpan('execute_tool list_invoices', { attributes: { ...c, 'gen_ai.tool.name': 'list_invoices', 'gen_ai.tool.call.id': 'call_2' } }, under).end();
    root.end();
    await done();

    const calls = (await env.sql.query('SELECT tool_name, outcome, failure_class FROM tool_calls WHERE project_id = $1 AND session_id = $2 ORDER BY tool_name', [env.projectId, sessionId])).rows;
    expect(calls).toEqual([
      { tool_name: 'get_invoice', outcome: 'failed', failure_class: 'transient' },
      { tool_name: 'list_invoices', outcome: 'success', failure_class: null },
    ]);
    const atts = (await env.sql.query('SELECT tool_name, outcome, failure_class, error_type FROM attempts WHERE project_id = $1 AND session_id = $2 ORDER BY tool_name', [env.projectId, sessionId])).rows;
    expect(atts).toEqual([
      { tool_name: 'get_invoice', outcome: 'failed', failure_class: 'transient', error_type: 'TimeoutError' },
      { tool_name: 'list_invoices', outcome: 'success', failure_class: null, error_type: null },
    ]);
    expect(await expectTotalsAgree(sessionId)).toMatchObject({ attempt_count: 2, failed_attempt_count: 1 });
  });
});

/**
 * The payloads recorded from the real libraries (e2e/fixtures/recorded, README there), posted as
 * recorded but under fresh trace ids: in each, one tool returned a result and one threw.
 */
describe('recorded payloads of other instrumentations', () => {
  const REASON = 'Error: station LYN-04 is offline for maintenance';
  const SESSION_KEYS = new Set([
    'gen_ai.conversation.id',
    'ai.telemetry.metadata.sessionId',
    'session.id',
    'traceloop.association.properties.sessionId',
    'traceloop.association.properties.session_id',
  ]);
  type Kv = { key: string; value: { stringValue?: string } };
  type Rec = { resourceSpans: { scopeSpans: { spans: { traceId: string; attributes?: Kv[] }[] }[] }[] };

  /** Posts the recording with new trace ids (and a tagged session id); returns the session id. */
  /** Posts the recording as one request, or (`split`) each export the library made as its own request, in that order or reversed. */
  async function post(name: string, split: 'whole' | 'exports' | 'reversed' = 'whole'): Promise<string> {
    const rec = JSON.parse(readFileSync(new URL(`../../../e2e/fixtures/recorded/${name}.otlp.json`, import.meta.url), 'utf8')) as Rec;
    const tag = hex(4);
    const traces = new Map<string, string>();
    let session: string | null = null;
    for (const rs of rec.resourceSpans)
      for (const ss of rs.scopeSpans)
        for (const s of ss.spans) {
          s.traceId = traces.get(s.traceId) ?? traces.set(s.traceId, hex(16)).get(s.traceId) as string;
          for (const a of s.attributes ?? []) if (SESSION_KEYS.has(a.key) && a.value.stringValue) session = a.value.stringValue = `${a.value.stringValue}-${tag}`;
        }
    // The capture joined the exporter's requests (one per span: SimpleSpanProcessor) in order.
    const bodies = split === 'whole' ? [rec] : rec.resourceSpans.map((rs) => ({ resourceSpans: [rs] }));
    if (split === 'reversed') bodies.reverse();
    for (const body of bodies) {
      const res = await app.inject({ method: 'POST', url: '/v1/traces', headers: { 'content-type': 'application/json', authorization: `Bearer ${env.key}` }, payload: JSON.stringify(body) });
      expect(res.statusCode, res.body).toBe(200);
    }
    return session ?? ([...traces.values()][0] as string);
  }

  const cases: [string, { tools: string[]; failedTool: string }][] = [
    ['vercel-ai', { tools: ['forecast', 'station_readings'], failedTool: 'station_readings' }],
    ['genai', { tools: ['DynamicStructuredTool', 'DynamicStructuredTool'], failedTool: 'DynamicStructuredTool' }],
    ['openinference', { tools: ['forecast', 'station_readings'], failedTool: 'station_readings' }],
    ['traceloop', { tools: ['DynamicStructuredTool', 'DynamicStructuredTool', 'station_lookup'], failedTool: 'DynamicStructuredTool' }],
  ];
  it.each(cases)('%s: each tool call is one attempt, the thrown one failed with tool_error, counted in the totals and the rollup', async (name, c) => {
    const sessionId = await post(name);
    const attempts = (
      await env.sql.query(
        `SELECT a.tool_name, a.number, a.outcome, a.failure_class, a.failure_reason, t.outcome AS call_outcome, t.failure_class AS call_class
         FROM attempts a JOIN tool_calls t ON t.project_id = a.project_id AND t.trace_id = a.trace_id AND t.span_id = a.tool_call_span_id
         WHERE a.project_id = $1 AND a.session_id = $2 ORDER BY a.outcome, a.tool_name`,
        [env.projectId, sessionId],
      )
    ).rows;
    expect(attempts.map((a) => a.tool_name).sort()).toEqual([...c.tools].sort());
    expect(attempts.every((a) => a.number === 1)).toBe(true);
    const failed = attempts.filter((a) => a.outcome === 'failed');
    // OpenInference records LangChain's error text, stack trace included, as the exception's message.
    expect(failed).toEqual([
      { tool_name: c.failedTool, number: 1, outcome: 'failed', failure_class: 'tool_error', failure_reason: expect.stringContaining(REASON), call_outcome: 'failed', call_class: 'tool_error' },
    ]);
    expect(attempts.filter((a) => a.outcome === 'success')).toHaveLength(c.tools.length - 1);
    const totals = await expectTotalsAgree(sessionId);
    expect(totals).toMatchObject({ tool_call_count: c.tools.length, attempt_count: c.tools.length, failed_attempt_count: 1, error_span_count: 1 });
    expect(await one(env.sql, 'SELECT outcome FROM sessions WHERE project_id = $1 AND id = $2', [env.projectId, sessionId])).toEqual({ outcome: 'success' });
    const parts = (await env.sql.query("SELECT failed_attempts FROM analytics_session_parts WHERE project_id = $1 AND session_id = $2 AND failure_class = 'tool_error'", [env.projectId, sessionId])).rows;
    expect(parts).toEqual([{ failed_attempts: 1 }]);
  });

  // LangChain's ToolNode refuses a call whose input fails the tool's schema, and a call of a tool the
  // agent does not have, before any tool runs (no tool span): it answers the model with an error
  // ToolMessage, which the next model call's input messages record (OpenInference's
  // llm.input_messages.*, GenAI's gen_ai.input.messages). The valid call in the same turn ran.
  const refusals: [string, { okTool: string }][] = [
    ['openinference-refusals', { okTool: 'forecast' }],
    ['genai-refusals', { okTool: 'DynamicStructuredTool' }],
  ];
  it.each(refusals)('%s: the calls LangChain refused are rejected attempts with their class, beside the call that ran', async (name, c) => {
    const sessionId = await post(name);
    const attempts = (
      await env.sql.query(
        'SELECT tool_name, number, outcome, failure_class, arguments, failure_reason, tool_call_span_id IS NULL AS refused FROM attempts WHERE project_id = $1 AND session_id = $2 ORDER BY outcome, tool_name',
        [env.projectId, sessionId],
      )
    ).rows;
    expect(attempts).toEqual([
      {
        tool_name: 'forcast',
        number: 1,
        outcome: 'rejected',
        failure_class: 'unknown_tool',
        arguments: null,
        failure_reason: 'Error: forcast is not a valid tool, try one of [forecast].',
        refused: true,
      },
      {
        tool_name: 'forecast',
        number: 1,
        outcome: 'rejected',
        failure_class: 'invalid_arguments',
        arguments: '{"town":"Lyon"}',
        failure_reason: expect.stringMatching(/^Error invoking tool 'forecast' with kwargs \{"town":"Lyon"\} with error: Error: Received tool input did not match expected schema/),
        refused: true,
      },
      { tool_name: c.okTool, number: 1, outcome: 'success', failure_class: null, arguments: expect.any(String), failure_reason: null, refused: false },
    ]);
    // The reason stops before the stack trace LangChain appends.
    expect(attempts[1].failure_reason).not.toMatch(/\n\s+at /);
    const totals = await expectTotalsAgree(sessionId);
    // The call that ran and the two refused ones, each a call of its own.
    expect(totals).toMatchObject({ tool_call_count: 3, attempt_count: 3, failed_attempt_count: 2, model_call_count: 2 });
    const parts = (
      await env.sql.query("SELECT failure_class, failed_attempts FROM analytics_session_parts WHERE project_id = $1 AND session_id = $2 AND failure_class <> '' ORDER BY failure_class", [
        env.projectId,
        sessionId,
      ])
    ).rows;
    expect(parts).toEqual([
      { failure_class: 'invalid_arguments', failed_attempts: 1 },
      { failure_class: 'unknown_tool', failed_attempts: 1 },
    ]);
  });

  /** What a session became: its totals, its attempts and its analytics parts (ids left out: they differ per post). */
  async function stored(sessionId: string) {
    const q = async (text: string) => (await env.sql.query(text, [env.projectId, sessionId])).rows;
    return {
      session: await q(
        'SELECT outcome, user_id, agent_name, span_count, error_span_count, tool_call_count, attempt_count, failed_attempt_count, model_call_count, input_tokens, output_tokens FROM sessions WHERE project_id = $1 AND id = $2',
      ),
      attempts: await q('SELECT tool_name, number, outcome, failure_class, arguments, failure_reason FROM attempts WHERE project_id = $1 AND session_id = $2 ORDER BY tool_name, outcome, arguments'),
      toolCalls: await q('SELECT tool_name, outcome, failure_class FROM tool_calls WHERE project_id = $1 AND session_id = $2 ORDER BY tool_name, outcome'),
      parts: await q("SELECT failure_class, failed_attempts FROM analytics_session_parts WHERE project_id = $1 AND session_id = $2 AND failure_class <> '' ORDER BY failure_class"),
    };
  }

  // A real exporter sends each span as it ends (children first; the GenAI recording's conversation
  // id is only on its root, which ends last): the session must be the same as from one request.
  it.each(['vercel-ai', 'genai', 'openinference', 'traceloop', 'openinference-refusals', 'genai-refusals'])(
    '%s: posted export by export, in order and reversed, makes the same session as one request',
    async (name) => {
      const whole = await stored(await post(name));
      expect(whole.attempts.length).toBeGreaterThan(0);
      for (const split of ['exports', 'reversed'] as const) {
        const sessionId = await post(name, split);
        expect({ split, ...(await stored(sessionId)) }).toEqual({ split, ...whole });
        await expectTotalsAgree(sessionId);
      }
    },
  );

  // Traceloop's SDK rewrites the AI SDK's spans before export: every span renamed (the outer
  // `ai.generateText` too, to `chat {model}`), `ai.prompt.messages` and `ai.telemetry.metadata.*`
  // replaced by `gen_ai.input.messages` and `traceloop.association.properties.*`.
  it('Vercel AI SDK exported through Traceloop: its two model calls, not the outer span that sums them', async () => {
    const sessionId = await post('traceloop-vercel-ai');
    const models = (await env.sql.query('SELECT model, input_tokens, output_tokens FROM model_calls WHERE project_id = $1 AND session_id = $2 ORDER BY started_at', [env.projectId, sessionId])).rows;
    expect(models).toEqual([
      { model: 'mock-weather-model', input_tokens: 120, output_tokens: 24 },
      { model: 'mock-weather-model', input_tokens: 260, output_tokens: 18 },
    ]);
    // Its `ai.telemetry.metadata.userId`, as Traceloop rewrites it (traceloop.association.properties.userId).
    expect(await expectTotalsAgree(sessionId)).toMatchObject({ model_call_count: 2, input_tokens: '380', output_tokens: '42', tool_call_count: 4, user_id: 'user-lyon' });
  });

  it('Vercel AI SDK exported through Traceloop: the calls the SDK refused, read from gen_ai.input.messages, beside the calls that ran', async () => {
    const sessionId = await post('traceloop-vercel-ai');
    const attempts = (
      await env.sql.query('SELECT tool_name, outcome, failure_class, arguments, failure_reason FROM attempts WHERE project_id = $1 AND session_id = $2 ORDER BY tool_name, outcome', [
        env.projectId,
        sessionId,
      ])
    ).rows;
    expect(attempts).toEqual([
      {
        tool_name: 'forcast',
        outcome: 'rejected',
        failure_class: 'unknown_tool',
        arguments: '{"city":"Lyon"}',
        failure_reason: "Model tried to call unavailable tool 'forcast'. Available tools: forecast, station_readings.",
      },
      { tool_name: 'forecast', outcome: 'rejected', failure_class: 'invalid_arguments', arguments: '{"town":"Lyon"}', failure_reason: expect.stringMatching(/^Invalid input for tool forecast: Type validation failed/) },
      { tool_name: 'forecast', outcome: 'success', failure_class: null, arguments: '{"city":"Lyon"}', failure_reason: null },
      { tool_name: 'station_readings', outcome: 'failed', failure_class: 'tool_error', arguments: '{"station":"LYN-04"}', failure_reason: 'Error: station LYN-04 is offline for maintenance' },
    ]);
    // The two calls that ran and the two refused ones, each a call of its own.
    expect(await expectTotalsAgree(sessionId)).toMatchObject({ tool_call_count: 4, attempt_count: 4, failed_attempt_count: 3 });
  });

  it("Traceloop's session_id association property groups a conversation's traces into one session", async () => {
    const sessionId = await post('traceloop-session');
    const traces = (await env.sql.query('SELECT DISTINCT trace_id FROM spans WHERE project_id = $1 AND session_id = $2', [env.projectId, sessionId])).rows;
    expect(traces).toHaveLength(2);
    expect(await expectTotalsAgree(sessionId)).toMatchObject({ span_count: 26, tool_call_count: 4, attempt_count: 4, failed_attempt_count: 2, user_id: 'user-lyon' });
  });

  // Traceloop's SDK instruments LangChain and the OpenAI client: each ChatOpenAI call is LangChain's
  // `chat` span and the OpenAI client's, siblings under the agent (its LangChain spans are never
  // made active), both with the call's usage. One call each, however the exports arrive.
  it.each(['whole', 'exports', 'reversed'] as const)(
    'LangChain ChatOpenAI traced by Traceloop twice (LangChain and OpenAI instrumentations): each call counted once (%s)',
    async (split) => {
      const sessionId = await post('traceloop-openai', split);
      const spans = (
        await env.sql.query("SELECT scope_name FROM spans WHERE project_id = $1 AND session_id = $2 AND name LIKE 'chat %' ORDER BY scope_name", [env.projectId, sessionId])
      ).rows;
      expect(spans.map((s) => s.scope_name)).toEqual([
        '@traceloop/instrumentation-langchain',
        '@traceloop/instrumentation-langchain',
        '@traceloop/instrumentation-openai',
        '@traceloop/instrumentation-openai',
      ]);
      const calls = (
        await env.sql.query(
          `SELECT s.scope_name, m.model, m.input_tokens, m.output_tokens FROM model_calls m
           JOIN spans s ON s.project_id = m.project_id AND s.trace_id = m.trace_id AND s.span_id = m.span_id
           WHERE m.project_id = $1 AND m.session_id = $2 ORDER BY m.started_at`,
          [env.projectId, sessionId],
        )
      ).rows;
      // The OpenAI client's span is the request itself: it is the call.
      expect(calls).toEqual([
        { scope_name: '@traceloop/instrumentation-openai', model: 'gpt-4o-mini', input_tokens: 120, output_tokens: 18 },
        { scope_name: '@traceloop/instrumentation-openai', model: 'gpt-4o-mini', input_tokens: 160, output_tokens: 24 },
      ]);
      expect(await expectTotalsAgree(sessionId)).toMatchObject({ model_call_count: 2, input_tokens: '280', output_tokens: '42', tool_call_count: 1 });
      // Analytics' model spend (dollars per model) counts the same tokens.
      expect(
        (await env.sql.query('SELECT model, input_tokens, output_tokens FROM analytics_model_session_spend WHERE project_id = $1 AND session_id = $2', [env.projectId, sessionId])).rows,
      ).toEqual([{ model: 'gpt-4o-mini', input_tokens: 280, output_tokens: 42 }]);
    },
  );

  // OpenInference's LangChain and OpenAI instrumentations: LangChain's LLM span under its chain,
  // the OpenAI client's under the app's span (LangChain's spans are never made active).
  it.each(['whole', 'exports', 'reversed'] as const)(
    'LangChain ChatOpenAI traced by OpenInference twice (LangChain and OpenAI instrumentations): each call counted once (%s)',
    async (split) => {
      const sessionId = await post('openinference-openai', split);
      const calls = (
        await env.sql.query(
          `SELECT s.name, s.scope_name, m.model, m.input_tokens, m.output_tokens FROM model_calls m
           JOIN spans s ON s.project_id = m.project_id AND s.trace_id = m.trace_id AND s.span_id = m.span_id
           WHERE m.project_id = $1 AND m.session_id = $2 ORDER BY m.started_at`,
          [env.projectId, sessionId],
        )
      ).rows;
      const client = { name: 'OpenAI Chat Completions', scope_name: '@arizeai/openinference-instrumentation-openai', model: 'gpt-4o-mini' };
      expect(calls).toEqual([
        { ...client, input_tokens: 120, output_tokens: 18 },
        { ...client, input_tokens: 160, output_tokens: 24 },
      ]);
      expect(await expectTotalsAgree(sessionId)).toMatchObject({ span_count: 13, model_call_count: 2, input_tokens: '280', output_tokens: '42', tool_call_count: 1 });
    },
  );

  // The AI SDK's OpenAI provider calls the API with fetch: no OpenAI client instrumentation sees
  // it, and an HTTP instrumentation's spans (undici's `POST` under each doGenerate) carry no usage.
  it('Vercel AI SDK telemetry beside an HTTP instrumentation: its doGenerate spans are the calls, the HTTP spans none', async () => {
    const sessionId = await post('vercel-ai-undici');
    const calls = (await env.sql.query('SELECT model, input_tokens, output_tokens FROM model_calls WHERE project_id = $1 AND session_id = $2 ORDER BY started_at', [env.projectId, sessionId])).rows;
    expect(calls).toEqual([
      { model: 'gpt-4o-mini', input_tokens: 120, output_tokens: 18 },
      { model: 'gpt-4o-mini', input_tokens: 160, output_tokens: 24 },
    ]);
    expect(await expectTotalsAgree(sessionId)).toMatchObject({ span_count: 6, model_call_count: 2, input_tokens: '280', output_tokens: '42', tool_call_count: 1 });
  });
});

describe('one model call recorded by two instrumentations (a framework and its provider client)', () => {
  /** Two tracers of one provider: two instrumentation scopes, each span exported as it ends (its own request). */
  function twoInstrumentations() {
    const exporter = new OTLPTraceExporter({ url, headers: { authorization: `Bearer ${env.key}` } });
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'nested-calls' }),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    return { framework: provider.getTracer('framework-instrumentation'), client: provider.getTracer('openai-instrumentation'), done: () => provider.shutdown() };
  }
  const chat = (input?: number, output?: number): Attributes => ({
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o-mini',
    ...(input === undefined ? {} : { 'gen_ai.usage.input_tokens': input, 'gen_ai.usage.output_tokens': output }),
  });
  const at = (base: number, ms: number) => base + ms;
  const calls = (sessionId: string) =>
    env.sql
      .query(
        `SELECT s.scope_name, m.input_tokens, m.output_tokens FROM model_calls m
         JOIN spans s ON s.project_id = m.project_id AND s.trace_id = m.trace_id AND s.span_id = m.span_id
         WHERE m.project_id = $1 AND m.session_id = $2 ORDER BY m.started_at, s.scope_name`,
        [env.projectId, sessionId],
      )
      .then((r) => r.rows);

  it('the outer span exported first with usage, the inner one later without: the one with usage is the call, once', async () => {
    const sessionId = `nested_${hex(6)}`;
    const { framework, client, done } = twoInstrumentations();
    const t0 = Date.UTC(2026, 10, 30, 12, 0, 0); // a fixed instant: nothing here depends on the date
    const agent = framework.startSpan('invoke_agent weather', { startTime: t0, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': sessionId } });
    const parent = trace.setSpan(context.active(), agent);
    // The framework's span ends (and is exported) before the client's span, inside it in time, is.
    framework.startSpan('chat gpt-4o-mini', { startTime: at(t0, 10), attributes: chat(120, 18) }, parent).end(at(t0, 110));
    client.startSpan('chat gpt-4o-mini', { startTime: at(t0, 15), attributes: chat() }, parent).end(at(t0, 105));
    agent.end(at(t0, 200));
    await done();
    expect(await calls(sessionId)).toEqual([{ scope_name: 'framework-instrumentation', input_tokens: 120, output_tokens: 18 }]);
    expect(await expectTotalsAgree(sessionId)).toMatchObject({ model_call_count: 1, input_tokens: '120', output_tokens: '18' });
  });

  it('the inner span with usage arriving after the outer one replaces its row; separate calls stay separate', async () => {
    const sessionId = `nested_${hex(6)}`;
    const { framework, client, done } = twoInstrumentations();
    const t0 = Date.UTC(2026, 10, 30, 12, 0, 0); // a fixed instant: nothing here depends on the date
    const agent = framework.startSpan('invoke_agent weather', { startTime: t0, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': sessionId } });
    const parent = trace.setSpan(context.active(), agent);
    // One call, recorded by both: the framework's span is exported first.
    const outer = framework.startSpan('chat gpt-4o-mini', { startTime: at(t0, 10), attributes: chat(120, 18) }, parent);
    outer.end(at(t0, 110));
    client.startSpan('chat gpt-4o-mini', { startTime: at(t0, 15), attributes: chat(120, 18) }, trace.setSpan(parent, outer)).end(at(t0, 105));
    // Two parallel calls of the framework alone (one within the other's time) and a client call of its own.
    framework.startSpan('chat gpt-4o-mini', { startTime: at(t0, 120), attributes: chat(50, 5) }, parent).end(at(t0, 190));
    framework.startSpan('chat gpt-4o-mini', { startTime: at(t0, 130), attributes: chat(60, 6) }, parent).end(at(t0, 150));
    client.startSpan('chat gpt-4o-mini', { startTime: at(t0, 160), attributes: chat(70, 7) }, parent).end(at(t0, 170));
    agent.end(at(t0, 200));
    await done();
    expect(await calls(sessionId)).toEqual([
      { scope_name: 'openai-instrumentation', input_tokens: 120, output_tokens: 18 },
      { scope_name: 'framework-instrumentation', input_tokens: 50, output_tokens: 5 },
      { scope_name: 'framework-instrumentation', input_tokens: 60, output_tokens: 6 },
      { scope_name: 'openai-instrumentation', input_tokens: 70, output_tokens: 7 },
    ]);
    expect(await expectTotalsAgree(sessionId)).toMatchObject({ model_call_count: 4, input_tokens: '300', output_tokens: '36' });
  });
});
