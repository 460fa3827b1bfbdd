/**
 * No secret is stored: every shape of the secret corpus, in every value kind a span can carry
 * (string, JSON text, JSON escaped in JSON, array, kvlist, bytesValue, event, link and
 * resource attributes, span name, status message, exception message and stack trace), sent to
 * the real collector over HTTP as OTLP/JSON and as protobuf; then every text of every table in
 * the database is read back and searched for each secret.
 */
import { asText, fragments, SECRET_SHAPES, type SecretShape } from '@guardtrace/secret-corpus';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, hex, jsonSpan, kvs, protobufRequest, setupApp, setupDatabase } from './helpers.ts';

let env: Env;
let app: FastifyInstance;
let base: string;

beforeAll(async () => {
  env = await setupDatabase();
  app = await setupApp(env, { rateLimitPerSecond: 0 });
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** The shape as a JSON object: under its own name, or as the text of an ordinary field. */
const jsonOf = (s: SecretShape): Record<string, string> => (s.key ? { [s.key]: s.secret } : { note: asText(s) });

/** OTLP/JSON attributes that carry the shape in every value kind (bytes as base64). */
function carriers(s: SecretShape): object[] {
  const text = asText(s);
  const json = JSON.stringify(jsonOf(s));
  return [
    ...kvs({
      'app.note': text,
      'app.list': ['first', text],
      'app.map': { inner: { note: text, ...(s.key ? { [s.key]: s.secret } : {}) } },
      'app.maps': [{ ...jsonOf(s) }],
      'gen_ai.tool.call.arguments': json,
      'gen_ai.tool.call.result': JSON.stringify({ ok: true, body: json, nested: JSON.stringify({ response: json }) }),
      ...(s.key ? { [s.key]: s.secret } : {}),
    }),
    { key: 'app.bytes', value: { bytesValue: b64(text) } },
    ...(s.key ? [{ key: `raw.${s.key}`, value: { bytesValue: b64(s.secret) } }] : []),
  ];
}

/** One session per shape: a tool call, its attempt (feedback) and a failed guard (reason). */
function resourceSpans(s: SecretShape): { traceId: string; block: Record<string, unknown> } {
  const traceId = hex(16);
  const text = asText(s);
  const tool = hex(8);
  const attempt = hex(8);
  const conv = { 'gen_ai.conversation.id': `sess_${s.id}` };
  const toolSpan = jsonSpan({ traceId, spanId: tool, name: `execute_tool ${text}`, status: 2 });
  Object.assign(toolSpan, {
    attributes: [
      ...kvs({ ...conv, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'http_get', 'gen_ai.tool.call.id': `call_${s.id}`, 'guardtrace.outcome': 'failed' }),
      ...carriers(s),
    ],
    status: { code: 2, message: `request failed: ${text}` },
    events: [
      {
        timeUnixNano: (BigInt((toolSpan as { startTimeUnixNano: string }).startTimeUnixNano) + 1n).toString(),
        name: 'exception',
        attributes: kvs({
          'exception.type': 'Error',
          'exception.message': `upstream refused ${text}`,
          'exception.stacktrace': `Error: upstream refused ${text}\n    at call (src/tools/http.ts:42:11)`,
          ...jsonOf(s),
        }),
      },
    ],
    links: [{ traceId: hex(16), spanId: hex(8), attributes: kvs({ 'link.note': text, ...jsonOf(s) }) }],
  });
  const attemptSpan = jsonSpan({
    traceId,
    spanId: attempt,
    parentSpanId: tool,
    name: 'guardtrace.attempt',
    attrs: {
      ...conv,
      'gen_ai.operation.name': 'guardtrace.attempt',
      'guardtrace.attempt': 1,
      'gen_ai.tool.call.arguments': JSON.stringify(jsonOf(s)),
      'guardtrace.outcome': 'rejected',
      'guardtrace.failure.class': 'invalid_arguments',
      'guardtrace.decision': 'escalate',
      'guardtrace.feedback': `rejected: ${text}`,
      'guardtrace.escalation.reason': `cannot proceed with ${text}`,
    },
  });
  const guardSpan = jsonSpan({
    traceId,
    parentSpanId: attempt,
    name: 'apply_guardrail schema',
    attrs: {
      ...conv,
      'gen_ai.operation.name': 'apply_guardrail',
      'gen_ai.guardrail.name': 'schema',
      'gen_ai.guardrail.verdict': 'fail',
      'gen_ai.guardrail.reason': `bad value ${text}`,
      'guardtrace.guard.stage': 'schema',
      'guardtrace.failure.class': 'invalid_arguments',
    },
  });
  const block = {
    resource: { attributes: [...kvs({ 'service.name': 'secrets-agent', 'deployment.note': text, ...jsonOf(s) }), { key: 'deployment.bytes', value: { bytesValue: b64(text) } }] },
    scopeSpans: [{ scope: { name: 'guardtrace', version: '0.1.0' }, spans: [toolSpan, attemptSpan, guardSpan] }],
  };
  return { traceId, block };
}

/** Every row of every table of the database, as text. */
async function everything(): Promise<string> {
  const { rows } = await env.sql.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations'",
  );
  const parts: string[] = [];
  for (const { table_name } of rows) {
    const r = await env.sql.query<{ t: string | null }>(`SELECT string_agg(x::text, E'\\n') AS t FROM "${table_name}" x`);
    parts.push(r.rows[0]?.t ?? '');
  }
  return parts.join('\n');
}

describe('no secret is stored', () => {
  it(`stores none of the ${SECRET_SHAPES.length} secret shapes, sent as OTLP/JSON and protobuf`, async () => {
    expect(SECRET_SHAPES.length).toBeGreaterThanOrEqual(100);
    const sessions = SECRET_SHAPES.map(resourceSpans);
    const protoSessions = SECRET_SHAPES.map(resourceSpans);
    const json = await fetch(`${base}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${env.key}` },
      body: JSON.stringify({ resourceSpans: sessions.map((x) => x.block) }),
    });
    expect(json.status, await json.text()).toBe(200);
    const proto = await fetch(`${base}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${env.key}` },
      body: protobufRequest({ resourceSpans: protoSessions.map((x) => x.block) }),
    });
    expect(proto.status).toBe(200);

    // Every span arrived and was stored, with its derived rows: the search below is not empty.
    const traceIds = [...sessions, ...protoSessions].map((x) => x.traceId);
    const n = await env.sql.query<{ spans: number; tools: number; guards: number }>(
      `SELECT (SELECT count(*)::int FROM spans WHERE trace_id = ANY($1)) AS spans,
              (SELECT count(*)::int FROM tool_calls WHERE trace_id = ANY($1)) AS tools,
              (SELECT count(*)::int FROM guard_checks WHERE trace_id = ANY($1)) AS guards`,
      [traceIds],
    );
    expect(n.rows[0]).toEqual({ spans: traceIds.length * 3, tools: traceIds.length, guards: traceIds.length });

    const stored = await everything();
    expect(stored).toContain('[REDACTED:');
    const leaks: string[] = [];
    for (const s of SECRET_SHAPES) {
      for (const f of [...fragments(s), b64(asText(s)), b64(s.secret)]) {
        if (stored.includes(f)) leaks.push(`${s.id}: ${f}`);
      }
    }
    expect(leaks).toEqual([]);
  });
});
