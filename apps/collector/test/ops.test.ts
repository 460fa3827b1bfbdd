/** Operations: health, readiness, metrics, rate limit, overload, key cache, redaction, grouping, drain. */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrisma, revokeApiKey } from '@guardtrace/db';
import { memoryCost } from '../src/otlp-decode.ts';
import { type Env, jsonRequest, jsonSpan, hex, one, sdkSession, setupApp, setupDatabase } from './helpers.ts';

let env: Env;
let app: FastifyInstance;
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  env = await setupDatabase();
  app = await setupApp(env);
});
afterAll(async () => {
  for (const a of apps) await a.close().catch(() => {});
  await app?.close();
  await env?.close();
});

async function fresh(opts: Parameters<typeof setupApp>[1]) {
  const a = await setupApp(env, opts);
  apps.push(a);
  return a;
}

const send = (a: FastifyInstance, body: unknown, key = env.key) =>
  a.inject({
    method: 'POST',
    url: '/v1/traces',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    payload: JSON.stringify(body),
  });

const metric = (text: string, name: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line ? Number(line.split(' ').pop()) : Number.NaN;
};

describe('health', () => {
  it('/healthz is 200, /readyz is 200 when the database is reachable and migrated', async () => {
    expect((await app.inject('/healthz')).statusCode).toBe(200);
    const r = await app.inject('/readyz');
    expect(r.statusCode).toBe(200);
    expect(JSON.parse(r.body).status).toBe('ready');
  });

  it('/readyz is 503 while a migration is pending', async () => {
    const { rows } = await env.sql.query('DELETE FROM _prisma_migrations WHERE migration_name = (SELECT max(migration_name) FROM _prisma_migrations) RETURNING *');
    try {
      const a = await fresh({});
      const r = await a.inject('/readyz');
      expect(r.statusCode).toBe(503);
      expect(JSON.parse(r.body)).toMatchObject({ status: 'migrations pending', pending: [rows[0].migration_name] });
    } finally {
      const row = rows[0];
      await env.sql.query(
        'INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)',
        [row.id, row.checksum, row.finished_at, row.migration_name, row.logs, row.rolled_back_at, row.started_at, row.applied_steps_count],
      );
    }
  });
});

describe('/metrics', () => {
  it('counts spans received, stored and rejected, and exposes latency, queue depth and batch size', async () => {
    const a = await fresh({});
    const traceId = hex(16);
    const body = jsonRequest([jsonSpan({ traceId, name: 'a' }), jsonSpan({ traceId, name: 'b' }), { ...jsonSpan({ traceId, name: 'c' }), traceId: 'zz' }]);
    expect((await send(a, body)).statusCode).toBe(200);
    const text = (await a.inject('/metrics')).body;
    expect(metric(text, 'guardtrace_collector_spans_received_total')).toBe(3);
    expect(metric(text, 'guardtrace_collector_spans_stored_total')).toBe(2);
    expect(metric(text, 'guardtrace_collector_spans_rejected_total')).toBe(1);
    expect(text).toMatch(/guardtrace_collector_request_duration_seconds_count\{route="\/v1\/traces",status="200"\} 1/);
    expect(metric(text, 'guardtrace_collector_queue_spans')).toBe(0);
    expect(metric(text, 'guardtrace_collector_batch_spans_sum')).toBe(2);
  });
});

describe('limits', () => {
  it('per-key token bucket: 429 with Retry-After, other keys unaffected', async () => {
    const a = await fresh({ rateLimitPerSecond: 1, rateLimitBurst: 2 });
    const other = await env.newKey();
    const body = jsonRequest(sdkSession().spans);
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push(await send(a, body));
    expect(codes.map((r) => r.statusCode)).toEqual([200, 200, 429]);
    expect(Number(codes[2]?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(codes[2]?.body ?? '{}')).toMatchObject({ code: 8 });
    expect((await send(a, body, other.key)).statusCode).toBe(200);
  });

  it('bounded in-flight memory: 503 with Retry-After while others hold it, 413 for a body that alone needs more', async () => {
    const body = (s: ReturnType<typeof sdkSession>) => Buffer.from(JSON.stringify(jsonRequest(s.spans)));
    const first = sdkSession();
    const second = sdkSession();
    // The first request is held in flight on its trace's lock (as behind a slow commit), so the
    // second arrives while the first still holds its memory, whatever the machine's speed.
    const holder = await env.sql.connect();
    let a: FastifyInstance | undefined;
    const hold = async (app: FastifyInstance, s: ReturnType<typeof sdkSession>) => {
      await holder.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`t:${env.projectId}/${s.traceId}`]);
      const held = send(app, jsonRequest(s.spans));
      for (let i = 0; ; i++) {
        const waiting = await one<{ n: number }>(env.sql, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event = 'advisory'");
        if (waiting.n > 0) break;
        if (i > 500) throw new Error('the request never reached its trace lock');
        await new Promise((r) => setTimeout(r, 10));
      }
      return { held };
    };
    try {
      // What one such request holds until its rows are written (body, parsed, rows), as counted.
      const probe = await fresh({});
      const { held: probed } = await hold(probe, sdkSession());
      const cost = metric((await probe.inject('/metrics')).body, 'guardtrace_collector_inflight_bytes');
      await holder.query('SELECT pg_advisory_unlock_all()');
      expect((await probed).statusCode).toBe(200);
      expect(cost).toBeGreaterThan(memoryCost(body(first), 'json'));
      // Room for one of these requests at a time, not two.
      a = await fresh({ maxInFlightBytes: Math.floor(cost * 1.5) });
      const { held } = await hold(a, first);
      const refused = await send(a, jsonRequest(second.spans));
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('2');
      await holder.query('SELECT pg_advisory_unlock_all()');
      expect((await held).statusCode).toBe(200);
      expect((await one(env.sql, 'SELECT count(*)::int AS n FROM spans WHERE trace_id = $1', [second.traceId])).n).toBe(0);
    } finally {
      await holder.query('SELECT pg_advisory_unlock_all()').catch(() => {});
      holder.release();
    }
    // Sent again once the other is done: stored.
    expect((await send(a as FastifyInstance, jsonRequest(second.spans))).statusCode).toBe(200);

    // JSON counts at its parsed size: a body of 20,000 empty spans needs ~23x its bytes.
    const hostile = jsonRequest(Array.from({ length: 20_000 }, () => ({})));
    const hostileBytes = Buffer.byteLength(JSON.stringify(hostile));
    const b = await fresh({ maxInFlightBytes: hostileBytes * 10 });
    const big = await send(b, hostile);
    expect(big.statusCode).toBe(413);
    expect(big.headers['retry-after']).toBeUndefined();
    expect(JSON.parse(big.body).message).toMatch(/^request needs ~[\d.]+ [KM]iB of memory to read \(JSON is counted at its parsed size\), over the collector's [\d.]+ [KM]iB/);
    expect((await send(b, jsonRequest(first.spans))).statusCode).toBe(200);
  });

  it('bounded queue: concurrent load beyond it gets 503, and only acknowledged spans are stored', async () => {
    const a = await fresh({ maxQueueSpans: 10, rateLimitPerSecond: 0 });
    const sessions = Array.from({ length: 30 }, () => sdkSession());
    const res = await Promise.all(sessions.map((s) => send(a, jsonRequest(s.spans))));
    const codes = res.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 503).length).toBeGreaterThan(0);
    expect(codes.filter((c) => c === 200).length).toBeGreaterThan(0);
    expect(res.filter((r) => r.statusCode === 503).every((r) => r.headers['retry-after'] === '2')).toBe(true);
    for (let i = 0; i < sessions.length; i++) {
      const n = (await one(env.sql, 'SELECT count(*)::int AS n FROM spans WHERE trace_id = $1', [sessions[i]?.traceId])).n;
      expect(n).toBe(codes[i] === 200 ? 8 : 0);
    }
  });

  it('groups concurrent requests into fewer transactions', async () => {
    const a = await fresh({ rateLimitPerSecond: 0 });
    const res = await Promise.all(Array.from({ length: 40 }, () => send(a, jsonRequest(sdkSession().spans))));
    expect(res.every((r) => r.statusCode === 200)).toBe(true);
    const text = (await a.inject('/metrics')).body;
    expect(metric(text, 'guardtrace_collector_batch_spans_sum')).toBe(320);
    expect(metric(text, 'guardtrace_collector_batch_spans_count')).toBeLessThan(40);
  });
});

describe('key cache', () => {
  it('serves a cached key until its TTL; with no cache a revocation applies at once', async () => {
    const cached = await fresh({ keyCacheTtlMs: 60_000 });
    const uncached = await fresh({ keyCacheTtlMs: 0 });
    const { key, id } = await env.newKey();
    const body = jsonRequest(sdkSession().spans);
    expect((await send(cached, body, key)).statusCode).toBe(200);
    expect((await send(uncached, body, key)).statusCode).toBe(200);
    await env.sql.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [id]);
    expect((await send(cached, body, key)).statusCode).toBe(200);
    expect((await send(uncached, body, key)).statusCode).toBe(403);
  });

  it('a key revoked through revokeApiKey (the web app) stops writing on every collector at once, not after its cache', async () => {
    // Two collectors on one database, each with an hour-long key cache.
    const collectors = [await fresh({ keyCacheTtlMs: 3_600_000 }), await fresh({ keyCacheTtlMs: 3_600_000 })];
    const { key, id, projectId } = await env.newKey();
    const body = jsonRequest(sdkSession().spans);
    for (const c of collectors) expect((await send(c, body, key)).statusCode).toBe(200);
    const prisma = createPrisma(env.db.url, { max: 1 });
    try {
      expect(await revokeApiKey(prisma, projectId, id)).toBe(true);
      expect(await revokeApiKey(prisma, projectId, id)).toBe(false); // already revoked
    } finally {
      await prisma.$disconnect();
    }
    const revokedAt = performance.now();
    for (const c of collectors) {
      for (;;) {
        const status = (await send(c, body, key)).statusCode;
        if (status === 403) break;
        expect(status).toBe(200);
        // The notification arrives in milliseconds; 5 s only keeps a loaded machine from failing
        // the test, and is still far from the hour a cached key would otherwise live.
        expect(performance.now() - revokedAt, 'still accepted 5 s after the revocation').toBeLessThan(5_000);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  });
});

describe('redaction before storage', () => {
  it('stores secrets replaced by markers, in raw spans and derived rows', async () => {
    const traceId = hex(16);
    const span = jsonSpan({
      traceId,
      name: 'execute_tool http_get',
      attrs: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'http_get',
        'gen_ai.tool.call.arguments': '{"url":"https://bob:hunter22@api.example.com","headers":{"Authorization":"Bearer abcdef123456789"}}',
        'http.request.header.authorization': 'Bearer abcdef123456789',
        'gen_ai.usage.input_tokens': 10,
      },
    });
    expect((await send(app, jsonRequest([span]))).statusCode).toBe(200);
    const row = await one(env.sql, 'SELECT attributes FROM spans WHERE trace_id = $1', [traceId]);
    expect(row.attributes['http.request.header.authorization']).toBe('[REDACTED:sensitive_key]');
    expect(row.attributes['gen_ai.usage.input_tokens']).toBe(10);
    const tc = await one(env.sql, 'SELECT arguments FROM tool_calls WHERE trace_id = $1', [traceId]);
    expect(tc.arguments).toBe('{"url":"https://bob:[REDACTED:url_password]@api.example.com","headers":{"Authorization":"Bearer [REDACTED:bearer_token]"}}');
    expect(JSON.stringify(row)).not.toContain('hunter22');
  });
});

describe('graceful shutdown', () => {
  it('close() answers every request already received and commits its spans', async () => {
    const a = await setupApp(env, { rateLimitPerSecond: 0 });
    const base = await a.listen({ port: 0, host: '127.0.0.1' });
    const sessions = Array.from({ length: 20 }, () => sdkSession());
    let received = 0;
    a.server.on('request', () => {
      received++;
    });
    const pending = sessions.map((s) =>
      fetch(`${base}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${env.key}` },
        body: JSON.stringify(jsonRequest(s.spans)),
      }),
    );
    while (received < sessions.length) await new Promise((r) => setTimeout(r, 1));
    await a.close();
    const statuses = await Promise.all(pending.map(async (p) => (await p).status));
    expect(statuses).toEqual(Array(20).fill(200));
    const n = await one(env.sql, 'SELECT count(*)::int AS n FROM spans WHERE trace_id = ANY($1)', [sessions.map((s) => s.traceId)]);
    expect(n.n).toBe(160);
  });
});
