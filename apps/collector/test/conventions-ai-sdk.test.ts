/**
 * The Vercel AI SDK's telemetry (ai 6: real generateText and streamText with a mock model), through
 * the real OTel SDK and OTLP exporter into the collector: the rows its spans become.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { conventionsSuite, exportingTracerTo, type Gen, type StreamPart, totalsAgree, usage } from './conventions-support.ts';
import { type Env, hex, one } from './helpers.ts';

let env: Env;
let url: string;
conventionsSuite((s) => {
  ({ env, url } = s);
});
const exportingTracer = (service: string) => exportingTracerTo(env, url, service);
const expectTotalsAgree = (sessionId: string) => totalsAgree(env, sessionId);

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

  it('places a refused call before the model turn that reads its refusal, so a failure fixed in the next step is fixed (not "corrected" by the refusal)', async () => {
    const sessionId = `chat_${hex(6)}`;
    const call = (toolCallId: string, toolName: string, input: string) => ({ type: 'tool-call' as const, toolCallId, toolName, input });
    const script: Gen[] = [
      // Step 1: a call that fails (no such file) and one the SDK refuses (its input fails the schema).
      { content: [call('c1', 'read_config', '{"path":"conf.yml"}'), call('c2', 'list_dir', '{"dir":1}')], finishReason: { unified: 'tool-calls', raw: undefined }, usage: usage(500, 20), warnings: [] },
      // Step 2: the model reads both errors and calls read_config again, rightly.
      { content: [call('c3', 'read_config', '{"path":"config.yml"}')], finishReason: { unified: 'tool-calls', raw: undefined }, usage: usage(700, 20), warnings: [] },
      { content: [{ type: 'text', text: 'The port is 80.' }], finishReason: { unified: 'stop', raw: undefined }, usage: usage(800, 10), warnings: [] },
    ];
    let step = 0;
    const model = new MockLanguageModelV3({ provider: 'mock-provider', modelId: 'mock-model', doGenerate: async () => script[step++] as Gen });
    const { tracer, done } = exportingTracer('vercel-agent');
    await generateText({
      model,
      prompt: 'Which port?',
      stopWhen: stepCountIs(4),
      tools: {
        read_config: tool({
          inputSchema: z.object({ path: z.string() }),
          execute: async ({ path }) => {
            if (path !== 'config.yml') throw new Error(`ENOENT: no such file ${path}`);
            return 'port: 80';
          },
        }),
        list_dir: tool({ inputSchema: z.object({ dir: z.string() }), execute: async () => [] }),
      },
      experimental_telemetry: { isEnabled: true, tracer, metadata: { sessionId } },
    });
    await done();
    const rows = (
      await env.sql.query(
        `SELECT kind, tool_name, outcome, call_span_id, correction_span_id FROM (
           SELECT 'attempt' AS kind, tool_name, outcome, tool_call_span_id AS call_span_id, correction_span_id, started_at FROM attempts WHERE project_id = $1 AND session_id = $2
           UNION ALL SELECT 'model', NULL, NULL, NULL, NULL, started_at FROM model_calls WHERE project_id = $1 AND session_id = $2) x
         ORDER BY started_at`,
        [env.projectId, sessionId],
      )
    ).rows;
    // In time order: step 1's turn, its failed call, the refusal, then step 2's turn that read both.
    expect(rows.map((r) => [r.kind, r.tool_name, r.outcome])).toEqual([
      ['model', null, null],
      ['attempt', 'read_config', 'failed'],
      ['attempt', 'list_dir', 'rejected'],
      ['model', null, null],
      ['attempt', 'read_config', 'success'],
      ['model', null, null],
    ]);
    // The failed read_config is corrected by step 2's read_config call (it succeeded: fixed next), and so is the refusal.
    const fixed = rows[4].call_span_id;
    expect(rows[1].correction_span_id).toBe(fixed);
    expect(rows[2].correction_span_id).toBe(fixed);
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
