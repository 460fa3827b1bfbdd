/**
 * Hostile input: a generated corpus of > 1,000 malformed payloads (truncated and corrupted
 * protobuf, wrong JSON types, invalid ids, huge and deeply nested attributes, bombs, wrong
 * types and encodings). Every answer must have the right status and a decodable body, the
 * process must keep serving, and valid spans sent beside bad ones must be stored.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeResponseProtobuf, decodeStatusProtobuf } from './otlp-reference.ts';
import { type Env, jsonRequest, one, sdkSession, setupApp, setupDatabase } from './helpers.ts';
import { buildCorpus, type Case, CORPUS_BODY_LIMIT, JSON_T, PROTO_T } from './malformed-corpus.ts';

let env: Env;
let app: FastifyInstance;

beforeAll(async () => {
  env = await setupDatabase();
  app = await setupApp(env, { maxBodyBytes: CORPUS_BODY_LIMIT, rateLimitPerSecond: 0 });
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});

describe('malformed payload corpus', () => {
  const corpus = buildCorpus();

  it(`has at least 1,000 payloads (${corpus.length})`, () => {
    expect(corpus.length).toBeGreaterThanOrEqual(1000);
  });

  it('answers every payload with the right status and a decodable body, and stores valid neighbours', async () => {
    const failures: string[] = [];
    const neighbours: string[] = [];
    let next = 0;
    // 8 at a time: concurrent requests also exercise the writer's grouping of good and bad batches.
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < corpus.length) {
          const c = corpus[next++] as Case;
          const headers: Record<string, string> = { 'content-type': c.type, authorization: `Bearer ${env.key}` };
          if (c.encoding) headers['content-encoding'] = c.encoding;
          const res = await app.inject({ method: 'POST', url: '/v1/traces', headers, payload: c.body });
          const proto = c.type === PROTO_T;
          if (!c.status.includes(res.statusCode)) {
            failures.push(`${c.name}: status ${res.statusCode} ${res.body.slice(0, 200)}`);
            continue;
          }
          try {
            if (res.statusCode === 200) {
              const rejected = proto
                ? Number((decodeResponseProtobuf(res.rawPayload) as { partialSuccess?: { rejectedSpans?: unknown } }).partialSuccess?.rejectedSpans ?? 0)
                : Number(JSON.parse(res.body).partialSuccess?.rejectedSpans ?? 0);
              if (c.rejected !== undefined && rejected !== c.rejected) failures.push(`${c.name}: rejected ${rejected}, expected ${c.rejected}: ${res.body.slice(0, 300)}`);
              if (c.neighbour) neighbours.push(c.neighbour);
            } else {
              const status = proto ? decodeStatusProtobuf(res.rawPayload) : JSON.parse(res.body);
              if (typeof status.code !== 'number' || !status.message) failures.push(`${c.name}: no rpc Status body`);
            }
          } catch (err) {
            failures.push(`${c.name}: undecodable response body (${(err as Error).message})`);
          }
        }
      }),
    );
    expect(failures).toEqual([]);
    const stored = await one<{ n: number }>(env.sql, 'SELECT count(DISTINCT trace_id)::int AS n FROM spans WHERE trace_id = ANY($1)', [neighbours]);
    expect(neighbours.length).toBeGreaterThan(300);
    expect(stored.n).toBe(neighbours.length);
    const huge = await one<{ len: number }>(env.sql, "SELECT max(length(attributes->>'big'))::int AS len FROM spans WHERE name = 'huge'");
    expect(huge.len).toBeLessThan(70_000);
  });

  it('keeps serving after the corpus', async () => {
    const s = sdkSession();
    const res = await app.inject({
      method: 'POST',
      url: '/v1/traces',
      headers: { 'content-type': JSON_T, authorization: `Bearer ${env.key}` },
      payload: JSON.stringify(jsonRequest(s.spans)),
    });
    expect(res.statusCode).toBe(200);
    expect((await app.inject('/healthz')).statusCode).toBe(200);
    expect((await app.inject('/readyz')).statusCode).toBe(200);
  });
});
