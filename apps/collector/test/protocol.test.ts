/** OTLP/HTTP protocol rules: partial success, gzip, 413 after decompression, 415, rpc Status bodies. */
import { deflateSync, gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, hex, jsonRequest, jsonSpan, one, protobufRequest, sdkSession, setupApp, setupDatabase } from './helpers.ts';
import { decodeResponseProtobuf, decodeStatusProtobuf } from './otlp-reference.ts';

const LIMIT = 256 * 1024;
let env: Env;
let app: FastifyInstance;

beforeAll(async () => {
  env = await setupDatabase();
  app = await setupApp(env, { maxBodyBytes: LIMIT });
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});

function post(payload: Buffer | string, headers: Record<string, string>) {
  return app.inject({ method: 'POST', url: '/v1/traces', headers: { authorization: `Bearer ${env.key}`, ...headers }, payload });
}
const count = async (traceId: string) => (await one<{ n: number }>(env.sql, 'SELECT count(*)::int AS n FROM spans WHERE trace_id = $1', [traceId])).n;

describe('partial success', () => {
  it('stores valid spans, counts invalid ones in rejected_spans and names them (JSON)', async () => {
    const traceId = hex(16);
    const spans = [jsonSpan({ traceId, name: 'ok-1' }), { ...jsonSpan({ traceId, name: 'bad' }), spanId: 'nothex!' }, jsonSpan({ traceId, name: 'ok-2' })];
    const res = await post(JSON.stringify(jsonRequest(spans)), { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(200);
    const body = JSON.parse(res.body);
    expect(body.partialSuccess.rejectedSpans).toBe('1');
    expect(body.partialSuccess.errorMessage).toContain('resourceSpans[0].scopeSpans[0].spans[1]: spanId must be 16 hex characters');
    expect(await count(traceId)).toBe(2);
  });

  it('answers protobuf partial success with rejected_spans and error_message', async () => {
    const traceId = hex(16);
    const good = jsonSpan({ traceId, name: 'ok' });
    const noStart = { ...jsonSpan({ traceId, name: 'no-start' }), startTimeUnixNano: '0' };
    const res = await post(protobufRequest(jsonRequest([good, noStart])), { 'content-type': 'application/x-protobuf' });
    expect(res.statusCode).toBe(200);
    const decoded = decodeResponseProtobuf(res.rawPayload) as { partialSuccess: { rejectedSpans: { toString(): string }; errorMessage: string } };
    expect(decoded.partialSuccess.rejectedSpans.toString()).toBe('1');
    expect(decoded.partialSuccess.errorMessage).toContain('startTimeUnixNano is missing');
    expect(await count(traceId)).toBe(1);
  });

  it('counts 100,000 empty spans exactly and names only the first five, beside a stored valid one', async () => {
    const traceId = hex(16);
    const empty = Array.from({ length: 100_000 }, () => ({}));
    const res = await post(protobufRequest(jsonRequest([jsonSpan({ traceId, name: 'ok' }), ...empty])), { 'content-type': 'application/x-protobuf' });
    expect(res.statusCode).toBe(200);
    const decoded = decodeResponseProtobuf(res.rawPayload) as { partialSuccess: { rejectedSpans: { toString(): string }; errorMessage: string } };
    expect(decoded.partialSuccess.rejectedSpans.toString()).toBe('100000');
    expect(decoded.partialSuccess.errorMessage).toMatch(
      /^rejected 100000 span\(s\): resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[1\]: traceId is missing; .*spans\[5\]: traceId is missing; and 99995 more$/,
    );
    expect(await count(traceId)).toBe(1);
  });
});

describe('encodings', () => {
  it('accepts gzip and deflate bodies', async () => {
    const s1 = sdkSession();
    const s2 = sdkSession();
    const r1 = await post(gzipSync(protobufRequest(jsonRequest(s1.spans))), { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' });
    const r2 = await post(deflateSync(JSON.stringify(jsonRequest(s2.spans))), { 'content-type': 'application/json', 'content-encoding': 'deflate' });
    expect([r1.statusCode, r2.statusCode]).toEqual([200, 200]);
    expect([await count(s1.traceId), await count(s2.traceId)]).toEqual([8, 8]);
  });

  it('413 for a gzip bomb: the limit is measured after decompression', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024)); // 64 MiB of zeros in ~64 KiB
    expect(bomb.length).toBeLessThan(LIMIT);
    const before = process.memoryUsage().rss;
    const res = await post(bomb, { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' });
    expect(res.statusCode).toBe(413);
    expect(decodeStatusProtobuf(res.rawPayload).message).toContain('after decompression');
    // Inflation stopped at the cap: nowhere near 64 MiB was allocated.
    expect(process.memoryUsage().rss - before).toBeLessThan(48 * 1024 * 1024);
  });

  it('413 for a plain body over the limit', async () => {
    const res = await post(Buffer.alloc(LIMIT + 10, 'x'), { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(413);
    expect(JSON.parse(res.body).code).toBe(8);
  });

  it('415 for other content types and encodings', async () => {
    const ct = await post('hello', { 'content-type': 'text/plain' });
    expect(ct.statusCode).toBe(415);
    expect(JSON.parse(ct.body).message).toContain('application/x-protobuf');
    const enc = await post('{}', { 'content-type': 'application/json', 'content-encoding': 'br' });
    expect(enc.statusCode).toBe(415);
    expect(JSON.parse(enc.body).message).toContain('Content-Encoding');
  });

  it('400 with google.rpc.Status for undecodable bodies, in the request encoding', async () => {
    const p = await post(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]), { 'content-type': 'application/x-protobuf' });
    expect(p.statusCode).toBe(400);
    expect(p.headers['content-type']).toContain('application/x-protobuf');
    expect(decodeStatusProtobuf(p.rawPayload)).toMatchObject({ code: 3 });
    const j = await post('[1,2]', { 'content-type': 'application/json' });
    expect(j.statusCode).toBe(400);
    expect(JSON.parse(j.body)).toEqual({ code: 3, message: expect.stringContaining('must be an object'), details: [] });
    const gz = await post(Buffer.from('not gzip'), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(gz.statusCode).toBe(400);
  });

  it('400 when a value of the wrong JSON type stands where an OTLP message or list is required, above the spans', async () => {
    const bodies: [unknown, string][] = [
      [{ resourceSpans: [1, 2] }, 'resourceSpans[0] must be an object'],
      [{ resourceSpans: 'x' }, 'resourceSpans must be an array'],
      [{ resourceSpans: [{ resource: 7 }] }, 'resourceSpans[0].resource must be an object'],
      [{ resourceSpans: [{ resource: { attributes: 'nope' } }] }, 'resourceSpans[0].resource.attributes must be an array'],
      [{ resourceSpans: [{ scopeSpans: [{ spans: {} }] }] }, 'resourceSpans[0].scopeSpans[0].spans must be an array'],
      [{ resourceSpans: [{ scopeSpans: [{ scope: [], spans: [] }] }] }, 'resourceSpans[0].scopeSpans[0].scope must be an object'],
      [jsonRequest([jsonSpan({ traceId: hex(16), name: 'ok' }), 'not a span' as unknown as Record<string, unknown>]), 'resourceSpans[0].scopeSpans[0].spans[1] must be an object'],
    ];
    for (const [body, message] of bodies) {
      const res = await post(JSON.stringify(body), { 'content-type': 'application/json' });
      expect(res.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(JSON.parse(res.body)).toEqual({ code: 3, message: expect.stringContaining(message), details: [] });
    }
  });

  it('a span object with fields of the wrong JSON type is rejected alone (partial success)', async () => {
    const traceId = hex(16);
    const bad = { ...jsonSpan({ traceId, name: 'bad' }), attributes: 'nope', status: 5 };
    const res = await post(JSON.stringify(jsonRequest([jsonSpan({ traceId, name: 'ok' }), bad])), { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body).partialSuccess.rejectedSpans).toBe('1');
    expect(await count(traceId)).toBe(1);
  });

  it('404 for metrics says the collector takes traces and logs only, in the request encoding; /v1/logs is served', async () => {
    const proto = await app.inject({ method: 'POST', url: '/v1/metrics', headers: { 'content-type': 'application/x-protobuf' }, payload: Buffer.alloc(0) });
    expect(proto.statusCode).toBe(404);
    expect(proto.headers['content-type']).toContain('application/x-protobuf');
    const status = decodeStatusProtobuf(proto.rawPayload);
    expect(status.code).toBe(12);
    expect(status.message).toMatch(
      /receives traces and logs only: \/v1\/metrics is not served\. .*OTEL_EXPORTER_OTLP_TRACES_ENDPOINT and OTEL_EXPORTER_OTLP_LOGS_ENDPOINT/,
    );
    // An empty logs export (its GenAI events: test/genai-logs.test.ts) is a success with nothing stored.
    const logs = await app.inject({ method: 'POST', url: '/v1/logs', headers: { authorization: `Bearer ${env.key}`, 'content-type': 'application/json' }, payload: '{}' });
    expect(logs.statusCode).toBe(200);
    expect(JSON.parse(logs.body)).toEqual({});
    const other = await app.inject({ method: 'GET', url: '/nope?x=1' });
    expect(JSON.parse(other.body).message).toBe(
      'no route GET /nope: the collector serves POST /v1/traces, POST /v1/logs, GET /v1/sampling, GET /v1/sessions/{id}, GET and POST /v1/datasets, GET /v1/datasets/{id}, POST /v1/datasets/{id}/runs, /healthz, /readyz and /metrics',
    );
  });

  it('an empty request is a success with nothing stored', async () => {
    const res = await post('{}', { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toEqual({});
  });
});
