/** Conformance: the real OpenTelemetry JS exporters (protobuf and JSON) sending over HTTP. */
import { type Attributes, context, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, hex, one, setupApp, setupDatabase } from './helpers.ts';

// @opentelemetry/core's ExportResultCode (not a direct dependency here).
const ExportResultCode = { SUCCESS: 0, FAILED: 1 } as const;
type ExportResult = Parameters<Parameters<SpanExporter['export']>[1]>[0];

let env: Env;
let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  env = await setupDatabase();
  app = await setupApp(env);
  url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/v1/traces`;
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});

/** Emit one SDK-shaped session through `exporter` and flush. */
async function emit(inner: SpanExporter, sessionId: string) {
  const results: ExportResult[] = [];
  const exporter: SpanExporter = {
    export: (spans, done) =>
      inner.export(spans, (r) => {
        results.push(r);
        done(r);
      }),
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'conformance-agent' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('guardtrace-test', '1.0.0');
  const c = { 'gen_ai.conversation.id': sessionId };
  // No global context manager in tests: parents are passed explicitly.
  const child = (parent: Span, name: string, attributes: Attributes) =>
    tracer.startSpan(name, { attributes: { ...c, ...attributes } }, trace.setSpan(context.active(), parent));
  const root = tracer.startSpan('invoke_agent demo', { attributes: { ...c, 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'demo' } });
  child(root, 'chat m', { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 1000, 'gen_ai.usage.output_tokens': 10 }).end();
  const tool = child(root, 'execute_tool search', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search', 'guardtrace.attempt': 1, 'guardtrace.tool.read_only': true });
  const attempt = child(tool, 'guardtrace.attempt', { 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': 1, 'guardtrace.backoff_ms': 12.5, 'guardtrace.outcome': 'failed', 'guardtrace.failure.class': 'transient' });
  child(attempt, 'apply_guardrail schema', { 'gen_ai.operation.name': 'apply_guardrail', 'gen_ai.guardrail.name': 'schema', 'gen_ai.guardrail.verdict': 'pass', 'guardtrace.guard.duration_us': 9 }).end();
  attempt.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream 503' });
  attempt.addEvent('retry', { 'guardtrace.backoff_ms': 12 });
  attempt.end();
  tool.end();
  root.end();
  const traceId = root.spanContext().traceId;
  const toolSpanId = tool.spanContext().spanId;
  await provider.forceFlush().catch(() => {});
  await provider.shutdown().catch(() => {});
  return { traceId, toolSpanId, results };
}

describe.each([
  ['protobuf', (headers: Record<string, string>) => new ProtoExporter({ url, headers })],
  ['JSON', (headers: Record<string, string>) => new JsonExporter({ url, headers })],
  ['protobuf gzip', (headers: Record<string, string>) => new ProtoExporter({ url, headers, compression: 'gzip' as never })],
])('OTel JS exporter (%s)', (_name, make) => {
  it('delivers a session that is stored raw and derived', async () => {
    const sessionId = `sess_${hex(6)}`;
    const { traceId, toolSpanId, results } = await emit(make({ authorization: `Bearer ${env.key}` }), sessionId);
    expect(results.map((r) => r.code)).toEqual(Array(5).fill(ExportResultCode.SUCCESS));
    const spans = (await env.sql.query('SELECT * FROM spans WHERE project_id = $1 AND session_id = $2', [env.projectId, sessionId])).rows;
    expect(spans).toHaveLength(5);
    expect(spans.every((s) => s.trace_id === traceId && /^[0-9a-f]{16}$/.test(s.span_id))).toBe(true);
    const attempt = spans.find((s) => s.name === 'guardtrace.attempt');
    expect(attempt.status_code).toBe(2);
    expect(attempt.status_message).toBe('upstream 503');
    expect(attempt.attributes['guardtrace.backoff_ms']).toBe(12.5);
    expect(attempt.events[0]).toMatchObject({ name: 'retry', attributes: { 'guardtrace.backoff_ms': 12 } });
    expect(attempt.scope_name).toBe('guardtrace-test');
    expect(attempt.resource['service.name']).toBe('conformance-agent');
    const tool = await one(env.sql, 'SELECT tool_name, read_only FROM tool_calls WHERE span_id = $1', [toolSpanId]);
    expect(tool).toEqual({ tool_name: 'search', read_only: true });
    const sess = await one(env.sql, 'SELECT span_count, attempt_count, failed_attempt_count, input_tokens FROM sessions WHERE id = $1', [sessionId]);
    expect(sess).toEqual({ span_count: 5, attempt_count: 1, failed_attempt_count: 1, input_tokens: '1000' });
  });

  it('is refused without a valid key', async () => {
    const sessionId = `sess_${hex(6)}`;
    const { results } = await emit(make({ authorization: 'Bearer gt_wrong' }), sessionId);
    expect(results.length).toBeGreaterThan(0);
    expect(results.every((r) => r.code === ExportResultCode.FAILED && (r.error as { code?: number }).code === 401)).toBe(true);
    const n = await one(env.sql, 'SELECT count(*)::int AS n FROM spans WHERE session_id = $1', [sessionId]);
    expect(n.n).toBe(0);
  });
});
