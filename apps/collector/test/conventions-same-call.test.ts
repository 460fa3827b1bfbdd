/**
 * One model call recorded by two instrumentations (a framework's and its provider client's): two
 * tracers of one provider, each span exported as it ends.
 */
import { type Attributes, context, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { conventionsSuite, totalsAgree } from './conventions-support.ts';
import { type Env, hex } from './helpers.ts';

let env: Env;
let url: string;
conventionsSuite((s) => {
  ({ env, url } = s);
});
const expectTotalsAgree = (sessionId: string) => totalsAgree(env, sessionId);

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
