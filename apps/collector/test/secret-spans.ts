/**
 * The secret corpus carried by spans: one session per secret shape, the shape in every value
 * kind a span can carry, and every text the database then holds, to search for it. Used by
 * test/secrets.test.ts and bench/production.ts.
 */
import { asText, type SecretShape } from '@guardtrace/secret-corpus';
import type pg from 'pg';
import { hex, jsonSpan, kvs } from './helpers.ts';

export const b64 = (s: string) => Buffer.from(s).toString('base64');

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
export function secretSession(s: SecretShape): { traceId: string; block: Record<string, unknown> } {
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
export async function everythingStored(sql: pg.Pool): Promise<string> {
  const { rows } = await sql.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations'",
  );
  const parts: string[] = [];
  for (const { table_name } of rows) {
    const r = await sql.query<{ t: string | null }>(`SELECT string_agg(x::text, E'\\n') AS t FROM "${table_name}" x`);
    parts.push(r.rows[0]?.t ?? '');
  }
  return parts.join('\n');
}
