/**
 * The merged OpenTelemetry GenAI guardrail convention, through the real OTel SDK and OTLP
 * exporter, over HTTP into Postgres: the guard-check rows it becomes, with the provider's own
 * values. No JS library emits these spans yet (checked on the registry on 2026-12-05), so they
 * are written in the shapes of the convention's own examples (docs/gen-ai/gen-ai-guardrails.md:
 * Amazon Bedrock Guardrails, Azure AI Content Safety, OpenAI Agents).
 */
import { context, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, hex, setupApp, setupDatabase } from './helpers.ts';

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

function exportingTracer() {
  const exporter = new OTLPTraceExporter({ url, headers: { authorization: `Bearer ${env.key}` } });
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'guarded-agent' }), spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { tracer: provider.getTracer('guardrail-results-test'), done: () => provider.shutdown() };
}

describe('the merged GenAI guardrail convention (gen_ai.apply_guardrail.client, gen_ai.guardrail.result)', () => {
  it("stores each guardrail's native result, policy, source and pointer, and derives pass/fail only from an explicit value", async () => {
    const sessionId = `gr_${hex(6)}`;
    const { tracer, done } = exportingTracer();
    const c = { 'gen_ai.conversation.id': sessionId };
    const root = tracer.startSpan('invoke_agent support', { attributes: { ...c, 'gen_ai.operation.name': 'invoke_agent' } });
    const tool = tracer.startSpan('execute_tool write_file', { attributes: { ...c, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'write_file' } }, trace.setSpan(context.active(), root));
    const underTool = trace.setSpan(context.active(), tool);
    // Amazon Bedrock Guardrails' ApplyGuardrail, as the convention's example maps it.
    const bedrock = tracer.startSpan(
      'apply_guardrail Amazon Bedrock Guardrails',
      {
        kind: SpanKind.CLIENT,
        attributes: {
          ...c,
          'gen_ai.operation.name': 'apply_guardrail',
          'gen_ai.provider.name': 'aws.bedrock',
          'gen_ai.guardrail.component.name': 'Amazon Bedrock Guardrails',
          'gen_ai.guardrail.policy.id': 'gr-abc123',
          'gen_ai.guardrail.policy.version': '1',
          'gen_ai.guardrail.source': 'INPUT',
          'gen_ai.guardrail.result.type': 'action',
          'gen_ai.guardrail.result.value': 'GUARDRAIL_INTERVENED',
          'gen_ai.guardrail.result.reason': 'Guardrail policy blocked the requested topic',
          'guardtrace.guard.pointers': ['/path'],
        },
      },
      underTool,
    );
    bedrock.end();
    // Azure AI Content Safety: one result event per category, no verdict.
    const azure = tracer.startSpan(
      'apply_guardrail Azure AI Content Safety',
      { kind: SpanKind.CLIENT, attributes: { ...c, 'gen_ai.operation.name': 'apply_guardrail', 'gen_ai.provider.name': 'azure.ai.content_safety', 'gen_ai.guardrail.component.name': 'Azure AI Content Safety' } },
      underTool,
    );
    azure.addEvent('gen_ai.guardrail.result', { 'gen_ai.guardrail.result.type': 'severity', 'gen_ai.guardrail.result.value': '4', 'gen_ai.guardrail.risk.category': 'Violence', 'gen_ai.guardrail.risk.score': 4 });
    azure.end();
    // OpenAI Agents: a tool-input guardrail's result event on the tool call's own span.
    tool.addEvent('gen_ai.guardrail.result', {
      'gen_ai.guardrail.component.name': 'no_secrets',
      'gen_ai.guardrail.source': 'tool_input',
      'gen_ai.guardrail.result.type': 'tripwire_triggered',
      'gen_ai.guardrail.result.value': 'true',
    });
    tool.end();
    root.end();
    await done();

    const rows = (
      await env.sql.query(
        `SELECT guard_name, verdict, reason, failed_pointers, guardrail_results, attempt_span_id
           FROM guard_checks WHERE project_id = $1 AND session_id = $2 ORDER BY guard_name COLLATE "C"`,
        [env.projectId, sessionId],
      )
    ).rows;
    const toolSpanId = tool.spanContext().spanId;
    expect(rows).toEqual([
      {
        guard_name: 'Amazon Bedrock Guardrails',
        verdict: 'fail',
        reason: 'Guardrail policy blocked the requested topic',
        failed_pointers: ['/path'],
        guardrail_results: [
          {
            component: 'Amazon Bedrock Guardrails',
            provider: 'aws.bedrock',
            policyId: 'gr-abc123',
            policyVersion: '1',
            source: 'INPUT',
            type: 'action',
            value: 'GUARDRAIL_INTERVENED',
            reason: 'Guardrail policy blocked the requested topic',
          },
        ],
        attempt_span_id: toolSpanId,
      },
      {
        guard_name: 'Azure AI Content Safety',
        verdict: 'unknown',
        reason: null,
        failed_pointers: null,
        guardrail_results: [{ component: 'Azure AI Content Safety', provider: 'azure.ai.content_safety', type: 'severity', value: '4', riskCategory: 'Violence', riskScore: 4 }],
        attempt_span_id: toolSpanId,
      },
      {
        guard_name: 'no_secrets',
        verdict: 'fail',
        reason: null,
        failed_pointers: null,
        guardrail_results: [{ component: 'no_secrets', source: 'tool_input', type: 'tripwire_triggered', value: 'true' }],
        attempt_span_id: toolSpanId,
      },
    ]);
    // The tool call itself is still a tool call.
    const calls = (await env.sql.query('SELECT tool_name FROM tool_calls WHERE project_id = $1 AND session_id = $2', [env.projectId, sessionId])).rows;
    expect(calls).toEqual([{ tool_name: 'write_file' }]);
  });
});
