/**
 * No secret is stored: every shape of the secret corpus, in every value kind a span can carry
 * (string, JSON text, JSON escaped in JSON, array, kvlist, bytesValue, event, link and
 * resource attributes, span name, status message, exception message and stack trace), sent to
 * the real collector over HTTP as OTLP/JSON and as protobuf; then every text of every table in
 * the database is read back and searched for each secret.
 */
import { asText, fragments, SECRET_SHAPES } from '@guardtrace/secret-corpus';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, protobufRequest, setupApp, setupDatabase } from './helpers.ts';
import { b64, everythingStored, secretSession } from './secret-spans.ts';

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

describe('no secret is stored', () => {
  it(`stores none of the ${SECRET_SHAPES.length} secret shapes, sent as OTLP/JSON and protobuf`, async () => {
    expect(SECRET_SHAPES.length).toBeGreaterThanOrEqual(100);
    const sessions = SECRET_SHAPES.map(secretSession);
    const protoSessions = SECRET_SHAPES.map(secretSession);
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

    const stored = await everythingStored(env.sql);
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
