/**
 * The payloads recorded from the real libraries (e2e/fixtures/recorded, README there), posted as
 * recorded but under fresh trace ids: in each, one tool returned a result and one threw.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { conventionsSuite, totalsAgree } from './conventions-support.ts';
import { type Env, hex, one } from './helpers.ts';

let env: Env;
let app: FastifyInstance;
conventionsSuite((s) => {
  ({ env, app } = s);
});
const expectTotalsAgree = (sessionId: string) => totalsAgree(env, sessionId);

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
