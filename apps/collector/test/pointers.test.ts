/**
 * The JSON pointers of a failed guard check (`guardtrace.guard.pointers`), sent by the real
 * OpenTelemetry protobuf exporter over HTTP, land in guard_checks.failed_pointers; too long a
 * pointer rejects its span alone, with the attribute and the limit named.
 */
import { context, type Span, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, hex, jsonRequest, jsonSpan, setupApp, setupDatabase } from './helpers.ts';

let env: Env;
let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  env = await setupDatabase();
  app = await setupApp(env);
  url = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});

/** One attempt with a failed schema guard carrying `pointers`, exported for real. */
async function emit(sessionId: string, pointers: unknown) {
  const exporter = new OTLPTraceExporter({ url: `${url}/v1/traces`, headers: { authorization: `Bearer ${env.key}` } });
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('guardtrace-test');
  const c = { 'gen_ai.conversation.id': sessionId };
  const under = (parent: Span) => trace.setSpan(context.active(), parent);
  const call = tracer.startSpan('execute_tool order', { attributes: { ...c, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'order' } });
  const attempt = tracer.startSpan('guardtrace.attempt', {
    attributes: { ...c, 'gen_ai.operation.name': 'guardtrace.attempt', 'gen_ai.tool.name': 'order', 'guardtrace.attempt': 1, 'guardtrace.outcome': 'rejected', 'guardtrace.failure.class': 'invalid_arguments' },
  }, under(call));
  const guard = tracer.startSpan('apply_guardrail schema', {
    attributes: {
      ...c, 'gen_ai.operation.name': 'apply_guardrail', 'gen_ai.guardrail.name': 'schema', 'gen_ai.guardrail.verdict': 'fail',
      'guardtrace.failure.class': 'invalid_arguments', 'guardtrace.guard.stage': 'schema',
      ...(pointers === undefined ? {} : { 'guardtrace.guard.pointers': pointers as string[] }),
    },
  }, under(attempt));
  guard.end();
  attempt.end();
  call.end();
  await provider.forceFlush();
  await provider.shutdown();
}

const rows = async (sessionId: string) =>
  (await env.sql.query('SELECT guard_name, failed_pointers FROM guard_checks WHERE project_id = $1 AND session_id = $2', [env.projectId, sessionId])).rows;

describe('failed-check pointers', () => {
  it('stores the pointers of a failed check as sent, in order', async () => {
    const s = `sess_${hex(6)}`;
    await emit(s, ['/items/3/qty', '/a~1b', '']);
    expect(await rows(s)).toEqual([{ guard_name: 'schema', failed_pointers: ['/items/3/qty', '/a~1b', ''] }]);
  });

  it('keeps a check without pointers null, drops entries that are not pointers and keeps 16 at most', async () => {
    const none = `sess_${hex(6)}`;
    await emit(none, undefined);
    expect(await rows(none)).toEqual([{ guard_name: 'schema', failed_pointers: null }]);
    const many = `sess_${hex(6)}`;
    await emit(many, ['items', '/x', '/x', ...Array.from({ length: 30 }, (_, i) => `/f${i}`)]);
    const [row] = await rows(many);
    expect(row.failed_pointers).toEqual(['/x', ...Array.from({ length: 15 }, (_, i) => `/f${i}`)]);
  });

  it('rejects only the span whose pointer is over the limit, naming the attribute', async () => {
    const traceId = hex(16);
    const s = `sess_${hex(6)}`;
    const guard = (name: string, pointers: string[]) =>
      jsonSpan({ traceId, name, attrs: { 'gen_ai.conversation.id': s, 'gen_ai.operation.name': 'apply_guardrail', 'gen_ai.guardrail.name': name, 'gen_ai.guardrail.verdict': 'fail', 'guardtrace.guard.pointers': pointers } });
    const res = await fetch(`${url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${env.key}` },
      body: JSON.stringify(jsonRequest([guard('ok', ['/a']), guard('long', ['/b', `/${'x'.repeat(2000)}`])])),
    });
    expect(res.status).toBe(200);
    const out = (await res.json()) as { partialSuccess: { rejectedSpans: string; errorMessage: string } };
    expect(out.partialSuccess.rejectedSpans).toBe('1');
    expect(out.partialSuccess.errorMessage).toContain('attributes["guardtrace.guard.pointers"][1] is 2001 bytes long, over the limit of 1024 bytes for a JSON pointer');
    expect(await rows(s)).toEqual([{ guard_name: 'ok', failed_pointers: ['/a'] }]);
  });
});
