import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { decodeResponseProtobuf, decodeStatusProtobuf } from './otlp-reference.ts';
import {
  type Env,
  hex,
  jsonRequest,
  jsonSpan,
  one,
  protobufRequest,
  sdkSession,
  setupApp,
  setupDatabase,
} from './helpers.ts';

let env: Env;
let app: FastifyInstance;

beforeAll(async () => {
  env = await setupDatabase();
  app = await setupApp(env);
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});

const post = (body: unknown, opts: { key?: string | null; type?: string; headers?: Record<string, string> } = {}) => {
  const type = opts.type ?? 'application/json';
  const key = opts.key === undefined ? env.key : opts.key;
  return app.inject({
    method: 'POST',
    url: '/v1/traces',
    headers: { 'content-type': type, ...(key ? { authorization: `Bearer ${key}` } : {}), ...opts.headers },
    payload: Buffer.isBuffer(body) ? body : typeof body === 'string' ? body : JSON.stringify(body),
  });
};

describe('POST /v1/traces', () => {
  it('stores raw spans and derived rows from JSON, with hex ids and session totals', async () => {
    const s = sdkSession();
    const res = await post(jsonRequest(s.spans));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    expect(JSON.parse(res.body)).toEqual({});

    const span = await one(env.sql, 'SELECT * FROM spans WHERE project_id = $1 AND span_id = $2', [env.projectId, s.ids.tool]);
    expect(span.trace_id).toBe(s.traceId);
    expect(span.parent_span_id).toBe(s.ids.root);
    expect(span.session_id).toBe(s.sessionId);
    expect(span.service_name).toBe('test-agent');
    expect(span.attributes['gen_ai.tool.name']).toBe('write_file');
    expect(span.attributes['guardtrace.tool.idempotent']).toBe(true);

    const tc = await one(env.sql, 'SELECT * FROM tool_calls WHERE span_id = $1', [s.ids.tool]);
    expect(tc).toMatchObject({ tool_name: 'write_file', call_id: 'call_1', idempotent: true, read_only: false, attempts: 2, outcome: 'success', idempotency_key: 'idk_1', session_id: s.sessionId });
    const attempts = (await env.sql.query('SELECT * FROM attempts WHERE session_id = $1 ORDER BY number', [s.sessionId])).rows;
    expect(attempts.map((a) => [a.number, a.outcome, a.failure_class, a.tool_call_span_id])).toEqual([
      [1, 'rejected', 'invalid_arguments', s.ids.tool],
      [2, 'success', null, s.ids.tool],
    ]);
    expect(attempts[0].feedback).toBe('Missing required field "content"');
    const guards = (await env.sql.query('SELECT * FROM guard_checks WHERE session_id = $1 ORDER BY started_at', [s.sessionId])).rows;
    expect(guards.map((g) => [g.guard_name, g.verdict, g.attempt_span_id, g.duration_us])).toEqual([
      ['schema', 'fail', s.ids.a1, 14],
      ['schema', 'pass', s.ids.a2, expect.any(Number)],
    ]);
    // Each span names the derived row made of it (the replay's steps skip guard-check spans by it); the root is raw only.
    const roles = (
      await env.sql.query(
        `SELECT s.span_id, s.role, CASE
           WHEN EXISTS (SELECT 1 FROM tool_calls d WHERE d.span_id = s.span_id) THEN 'tool_call'
           WHEN EXISTS (SELECT 1 FROM attempts d WHERE d.span_id = s.span_id) THEN 'attempt'
           WHEN EXISTS (SELECT 1 FROM guard_checks d WHERE d.span_id = s.span_id) THEN 'guard_check'
           WHEN EXISTS (SELECT 1 FROM model_calls d WHERE d.span_id = s.span_id) THEN 'model_call' END AS made
         FROM spans s WHERE s.session_id = $1`,
        [s.sessionId],
      )
    ).rows;
    expect(roles.filter((r) => r.role !== r.made)).toEqual([]);
    expect(roles.filter((r) => r.role === null).map((r) => r.span_id)).toEqual([s.ids.root]);
    expect(roles.filter((r) => r.role === 'guard_check')).toHaveLength(2);
    const repair = await one(env.sql, 'SELECT * FROM model_calls WHERE span_id = $1', [s.ids.repair]);
    expect(repair).toMatchObject({ model: 'gpt-4.1-mini', input_tokens: 4200, output_tokens: 80, repair_attempt_span_id: s.ids.a1, repair_failure_class: 'invalid_arguments' });

    const sess = await one(env.sql, 'SELECT * FROM sessions WHERE project_id = $1 AND id = $2', [env.projectId, s.sessionId]);
    expect(sess).toMatchObject({
      agent_name: 'invoice-agent',
      outcome: 'success',
      span_count: 8,
      tool_call_count: 1,
      attempt_count: 2,
      failed_attempt_count: 1,
      model_call_count: 2,
      input_tokens: '8200',
      output_tokens: '200',
      repair_tokens: '4280',
    });
  });

  it('accepts protobuf and answers in protobuf', async () => {
    const s = sdkSession();
    const res = await post(protobufRequest(jsonRequest(s.spans)), { type: 'application/x-protobuf' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/x-protobuf');
    expect(decodeResponseProtobuf(res.rawPayload)).toMatchObject({});
    const row = await one(env.sql, 'SELECT count(*)::int AS n, min(trace_id) AS t FROM spans WHERE session_id = $1', [s.sessionId]);
    expect(row).toEqual({ n: 8, t: s.traceId });
    const tc = await one(env.sql, 'SELECT tool_name FROM tool_calls WHERE span_id = $1', [s.ids.tool]);
    expect(tc.tool_name).toBe('write_file');
  });

  it('is idempotent: a retried batch adds nothing and totals stay right', async () => {
    const s = sdkSession();
    const body = jsonRequest(s.spans);
    expect((await post(body)).statusCode).toBe(200);
    expect((await post(body)).statusCode).toBe(200);
    expect((await post(protobufRequest(body), { type: 'application/x-protobuf' })).statusCode).toBe(200);
    const n = await one(env.sql, 'SELECT count(*)::int AS n FROM spans WHERE session_id = $1', [s.sessionId]);
    expect(n.n).toBe(8);
    const sess = await one(env.sql, 'SELECT span_count, attempt_count, input_tokens FROM sessions WHERE id = $1', [s.sessionId]);
    expect(sess).toEqual({ span_count: 8, attempt_count: 2, input_tokens: '8200' });
  });

  it('gets totals right when children arrive before parents, one span per request', async () => {
    const s = sdkSession();
    for (const span of [...s.spans].reverse()) expect((await post(jsonRequest([span]))).statusCode).toBe(200);
    const sess = await one(env.sql, 'SELECT * FROM sessions WHERE id = $1', [s.sessionId]);
    expect(sess).toMatchObject({ span_count: 8, tool_call_count: 1, attempt_count: 2, failed_attempt_count: 1, model_call_count: 2, repair_tokens: '4280', agent_name: 'invoice-agent' });
  });

  it('finds the session id on another span of the trace, and re-keys a trace stored under its trace id', async () => {
    const s = sdkSession({ conv: false });
    const conv = `sess_${hex(6)}`;
    // Foreign instrumentation: only the root carries the conversation id, and it arrives last.
    const [root, ...rest] = s.spans;
    expect((await post(jsonRequest(rest.slice(0, 3)))).statusCode).toBe(200);
    const early = await one(env.sql, 'SELECT session_id FROM spans WHERE span_id = $1', [s.ids.chat]);
    expect(early.session_id).toBe(s.traceId);
    const traceSession = await one(env.sql, 'SELECT span_count FROM sessions WHERE id = $1', [s.traceId]);
    expect(traceSession.span_count).toBe(3);
    const indexed = async () => (await one(env.sql, 'SELECT session_id FROM traces WHERE trace_id = $1', [s.traceId])).session_id;
    expect(await indexed()).toBe(s.traceId);

    const rootWithConv = { ...root, attributes: [...((root?.attributes ?? []) as object[]), { key: 'gen_ai.conversation.id', value: { stringValue: conv } }] };
    expect((await post(jsonRequest([rootWithConv]))).statusCode).toBe(200);
    // Later spans without the id join the revealed session.
    expect((await post(jsonRequest(rest.slice(3)))).statusCode).toBe(200);

    const sessions = (await env.sql.query('SELECT id, span_count, attempt_count, model_call_count FROM sessions WHERE id = ANY($1) ORDER BY id', [[conv, s.traceId]])).rows;
    expect(sessions).toEqual([{ id: conv, span_count: 8, attempt_count: 2, model_call_count: 2 }]);
    expect(await indexed()).toBe(conv);
    for (const table of ['spans', 'tool_calls', 'attempts', 'guard_checks', 'model_calls']) {
      const r = await one(env.sql, `SELECT count(*) FILTER (WHERE session_id <> $2)::int AS wrong FROM ${table} WHERE trace_id = $1`, [s.traceId, conv]);
      expect(r.wrong, table).toBe(0);
    }
  });

  it('uses the trace id as the session when no span has a conversation id', async () => {
    const traceId = hex(16);
    const span = jsonSpan({ traceId, name: 'HTTP GET', attrs: { 'http.method': 'GET' } });
    expect((await post(jsonRequest([span]))).statusCode).toBe(200);
    const row = await one(env.sql, 'SELECT session_id FROM spans WHERE trace_id = $1', [traceId]);
    expect(row.session_id).toBe(traceId);
    const sess = await one(env.sql, 'SELECT span_count, tool_call_count FROM sessions WHERE id = $1', [traceId]);
    expect(sess).toEqual({ span_count: 1, tool_call_count: 0 });
  });

  it('maps foreign GenAI spans: deprecated usage names and the Vercel AI SDK', async () => {
    const traceId = hex(16);
    const outer = hex(8);
    const spans = [
      jsonSpan({ traceId, spanId: outer, name: 'ai.generateText', attrs: { 'ai.operationId': 'ai.generateText', 'ai.usage.promptTokens': 300, 'ai.usage.completionTokens': 30 } }),
      jsonSpan({ traceId, parentSpanId: outer, name: 'ai.generateText.doGenerate', attrs: { 'ai.operationId': 'ai.generateText.doGenerate', 'ai.model.id': 'gpt-4o', 'ai.model.provider': 'openai.chat', 'ai.usage.promptTokens': 300, 'ai.usage.completionTokens': 30 } }),
      jsonSpan({ traceId, parentSpanId: outer, name: 'ai.toolCall', attrs: { 'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': 'weather', 'ai.toolCall.id': 'call_w', 'ai.toolCall.args': '{"city":"Paris"}' } }),
      jsonSpan({ traceId, name: 'openai.completion', attrs: { 'gen_ai.system': 'openai', 'gen_ai.usage.prompt_tokens': 10, 'gen_ai.usage.completion_tokens': 5 } }),
    ];
    expect((await post(jsonRequest(spans))).statusCode).toBe(200);
    const models = (await env.sql.query('SELECT model, provider, input_tokens, output_tokens FROM model_calls WHERE trace_id = $1 ORDER BY input_tokens', [traceId])).rows;
    expect(models).toEqual([
      { model: null, provider: 'openai', input_tokens: 10, output_tokens: 5 },
      { model: 'gpt-4o', provider: 'openai.chat', input_tokens: 300, output_tokens: 30 },
    ]);
    const tool = await one(env.sql, 'SELECT tool_name, call_id, arguments FROM tool_calls WHERE trace_id = $1', [traceId]);
    expect(tool).toEqual({ tool_name: 'weather', call_id: 'call_w', arguments: '{"city":"Paris"}' });
    const sess = await one(env.sql, 'SELECT span_count, input_tokens FROM sessions WHERE id = $1', [traceId]);
    expect(sess).toEqual({ span_count: 4, input_tokens: '310' });
  });

  it('maps OpenInference (Phoenix) and OpenLLMetry (Traceloop) spans: session, model calls, tool calls', async () => {
    const traceId = hex(16);
    const session = `oi-session-${hex(4)}`;
    const agent = hex(8);
    const ctx = { 'session.id': session, 'user.id': 'oi-user' };
    const spans = [
      // An agent span that sums its children's tokens: never counted again.
      jsonSpan({ traceId, spanId: agent, name: 'agent', attrs: { ...ctx, 'openinference.span.kind': 'AGENT', 'llm.token_count.prompt': 999 } }),
      jsonSpan({
        traceId,
        parentSpanId: agent,
        name: 'ChatCompletion',
        attrs: { ...ctx, 'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4o-mini', 'llm.provider': 'openai', 'llm.token_count.prompt': 120, 'llm.token_count.completion': 30 },
      }),
      jsonSpan({
        traceId,
        parentSpanId: agent,
        name: 'search_docs',
        status: 2,
        attrs: { ...ctx, 'openinference.span.kind': 'TOOL', 'tool.name': 'search_docs', 'input.value': '{"q":"refunds"}' },
      }),
      jsonSpan({
        traceId,
        parentSpanId: agent,
        name: 'lookup_order.tool',
        attrs: { ...ctx, 'traceloop.span.kind': 'tool', 'traceloop.entity.name': 'lookup_order', 'traceloop.entity.input': '{"id":7}' },
      }),
    ];
    expect((await post(jsonRequest(spans))).statusCode).toBe(200);
    const models = (await env.sql.query('SELECT model, provider, input_tokens, output_tokens, session_id FROM model_calls WHERE trace_id = $1', [traceId])).rows;
    expect(models).toEqual([{ model: 'gpt-4o-mini', provider: 'openai', input_tokens: 120, output_tokens: 30, session_id: session }]);
    const tools = (await env.sql.query('SELECT tool_name, outcome, arguments FROM tool_calls WHERE trace_id = $1 ORDER BY tool_name', [traceId])).rows;
    expect(tools).toEqual([
      { tool_name: 'lookup_order', outcome: 'success', arguments: '{"id":7}' },
      { tool_name: 'search_docs', outcome: 'failed', arguments: '{"q":"refunds"}' },
    ]);
    const sess = await one(env.sql, 'SELECT span_count, tool_call_count, input_tokens, user_id FROM sessions WHERE id = $1', [session]);
    expect(sess).toEqual({ span_count: 4, tool_call_count: 2, input_tokens: '120', user_id: 'oi-user' });
  });

  it('stores guardtrace.step.sequence on the tool call and model call rows, from JSON and protobuf', async () => {
    for (const encode of [(j: Record<string, unknown>) => JSON.stringify(j), protobufRequest]) {
      const traceId = hex(16);
      const sessionId = `sess_${hex(6)}`;
      const root = hex(8);
      const c = { 'gen_ai.conversation.id': sessionId };
      const [turn, call, plain, bad] = [hex(8), hex(8), hex(8), hex(8)];
      // the same start millisecond for all: only the sequence orders them
      const at = Date.UTC(2026, 10, 30, 13, 0, 0);
      const body = jsonRequest([
        jsonSpan({ traceId, spanId: root, name: 'invoke_agent a', attrs: { ...c, 'gen_ai.operation.name': 'invoke_agent' } }),
        jsonSpan({ traceId, spanId: turn, parentSpanId: root, name: 'chat m', startMs: at, attrs: { ...c, 'gen_ai.operation.name': 'chat', 'guardtrace.step.sequence': 1 } }),
        jsonSpan({ traceId, spanId: call, parentSpanId: root, name: 'execute_tool t', startMs: at, attrs: { ...c, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 't', 'guardtrace.step.sequence': 2 } }),
        // another instrumentation's turn has none; a value that is no step number is not stored
        jsonSpan({ traceId, spanId: plain, parentSpanId: root, name: 'chat m', startMs: at, attrs: { ...c, 'gen_ai.operation.name': 'chat' } }),
        jsonSpan({ traceId, spanId: bad, parentSpanId: root, name: 'chat m', startMs: at, attrs: { ...c, 'gen_ai.operation.name': 'chat', 'guardtrace.step.sequence': 0 } }),
      ]);
      const proto = encode === protobufRequest;
      const res = await post(encode(body), { type: proto ? 'application/x-protobuf' : 'application/json' });
      expect(res.statusCode).toBe(200);
      const rows = (
        await env.sql.query(
          `SELECT span_id, step_sequence FROM tool_calls WHERE session_id = $1 UNION ALL SELECT span_id, step_sequence FROM model_calls WHERE session_id = $1`,
          [sessionId],
        )
      ).rows;
      expect(Object.fromEntries(rows.map((r) => [r.span_id, r.step_sequence]))).toEqual({ [turn]: 1, [call]: 2, [plain]: null, [bad]: null });
    }
  });

  it('keeps each project to itself: a key writes only to its project', async () => {
    const other = await env.newProject();
    const { key } = await env.newKey(other);
    const s = sdkSession();
    expect((await post(jsonRequest(s.spans), { key })).statusCode).toBe(200);
    const rows = (await env.sql.query('SELECT DISTINCT project_id::text AS p FROM spans WHERE session_id = $1', [s.sessionId])).rows;
    expect(rows).toEqual([{ p: other }]);
  });
});

describe('auth', () => {
  it('401 without a key or with an unknown key, 403 when revoked; x-guardtrace-api-key works', async () => {
    const body = jsonRequest(sdkSession().spans);
    const missing = await post(body, { key: null });
    expect(missing.statusCode).toBe(401);
    expect(JSON.parse(missing.body)).toMatchObject({ code: 16, message: expect.stringContaining('missing API key') });
    expect((await post(body, { key: 'gt_not_a_real_key_0000000000000000000000' })).statusCode).toBe(401);

    const { key, id } = await env.newKey();
    expect((await post(body, { key: null, headers: { 'x-guardtrace-api-key': key } })).statusCode).toBe(200);
    await env.sql.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [id]);
    const fresh = await setupApp(env); // no cached entry
    const revoked = await fresh.inject({
      method: 'POST',
      url: '/v1/traces',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      payload: JSON.stringify(body),
    });
    await fresh.close();
    expect(revoked.statusCode).toBe(403);
  });

  it('GET /v1/sampling returns the project clean sample rate', async () => {
    await env.sql.query('UPDATE projects SET clean_sample_rate = 0.25 WHERE id = $1', [env.projectId]);
    const res = await app.inject({ method: 'GET', url: '/v1/sampling', headers: { authorization: `Bearer ${env.key}` } });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ cleanSampleRate: 0.25 });
    expect((await app.inject({ method: 'GET', url: '/v1/sampling' })).statusCode).toBe(401);
  });
});

describe('bad input', () => {
  it('400 with a message for undecodable JSON and protobuf, in the request encoding', async () => {
    const j = await post('{"resourceSpans": [');
    expect(j.statusCode).toBe(400);
    expect(JSON.parse(j.body)).toMatchObject({ code: 3, message: expect.stringContaining('invalid JSON') });
    const full = protobufRequest(jsonRequest(sdkSession().spans));
    const p = await post(full.subarray(0, full.length - 7), { type: 'application/x-protobuf' });
    expect(p.statusCode).toBe(400);
    expect(p.headers['content-type']).toContain('application/x-protobuf');
    expect(decodeStatusProtobuf(p.rawPayload)).toMatchObject({ code: 3, message: expect.stringContaining('protobuf') });
    expect((await post('{"resourceSpans": 5}')).statusCode).toBe(400);
  });
});
