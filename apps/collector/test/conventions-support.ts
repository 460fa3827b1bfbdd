/**
 * The collector and OpenTelemetry setup the conventions suites share (conventions-*.test.ts):
 * other instrumentations' spans, produced by the real libraries where one exists, through the
 * real OTel SDK and OTLP exporter, over HTTP into Postgres.
 */
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { MockLanguageModelV3 } from 'ai/test';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import { refreshSessions, textArray } from '../src/sql.ts';
import { type Env, one, setupApp, setupDatabase } from './helpers.ts';

/** A collector listening on a port of its own over a fresh database, and the async context the AI SDK's spans need; `ready` gets them. */
export function conventionsSuite(ready: (s: { env: Env; app: FastifyInstance; url: string }) => void): void {
  const contextManager = new AsyncLocalStorageContextManager();
  let env: Env | undefined;
  let app: FastifyInstance | undefined;
  beforeAll(async () => {
    context.setGlobalContextManager(contextManager.enable());
    env = await setupDatabase();
    app = await setupApp(env, { rateLimitPerSecond: 0 });
    ready({ env, app, url: `${await app.listen({ port: 0, host: '127.0.0.1' })}/v1/traces` });
  });
  afterAll(async () => {
    contextManager.disable();
    context.disable();
    await app?.close();
    await env?.close();
  });
}

/** A tracer exporting each span as it ends through the real protobuf exporter, and its flush. */
export function exportingTracerTo(env: Env, url: string, service: string) {
  const exporter = new OTLPTraceExporter({ url, headers: { authorization: `Bearer ${env.key}` } });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  return { tracer: provider.getTracer('conventions-test'), done: () => provider.shutdown() };
}

/** Totals written from the batch must equal the SQL recompute from the stored rows. */
export async function totalsAgree(env: Env, sessionId: string) {
  const cols = 'user_id, span_count, error_span_count, tool_call_count, attempt_count, failed_attempt_count, model_call_count, input_tokens, output_tokens';
  const read = () => one(env.sql, `SELECT ${cols} FROM sessions WHERE project_id = $1 AND id = $2`, [env.projectId, sessionId]);
  const written = await read();
  await env.sql.query(refreshSessions(textArray([env.projectId]), textArray([sessionId])));
  expect(await read()).toEqual(written);
  return written;
}

export type Gen = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
export type StreamPart = Awaited<ReturnType<MockLanguageModelV3['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;
export const usage = (input: number, output: number): Gen['usage'] => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});
