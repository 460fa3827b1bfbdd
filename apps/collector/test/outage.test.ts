/**
 * Outage: Postgres stops mid-load and comes back on the same folder and port. The collector
 * answers 503 + Retry-After meanwhile (never 200, never a crash), /readyz reports it, and a
 * retrying client loses nothing.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createApiKey, createPrisma, createProject } from '@guardtrace/db';
import { connectionUrl, freePort, type RunningPostgres, startEmbeddedPostgres } from '@guardtrace/db/dev';
import { migrate } from '@guardtrace/db/server';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { deliver, makeSpans } from './exporter-helpers.ts';
import { jsonRequest, sdkSession } from './helpers.ts';

let base: string;
let dataDir: string;
let port: number;
let server: RunningPostgres | undefined;
let url: string;
let key: string;
let otherKey: string;
let app: FastifyInstance;
let collectorUrl: string;

beforeAll(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'gt-outage-'));
  await fs.chmod(base, 0o755);
  dataDir = path.join(base, 'pg');
  port = await freePort();
  server = await startEmbeddedPostgres({ dataDir, port });
  const admin = new pg.Client({ connectionString: connectionUrl(port) });
  await admin.connect();
  await admin.query('CREATE DATABASE guardtrace');
  await admin.end();
  url = connectionUrl(port, 'guardtrace');
  await migrate(url);
  const prisma = createPrisma(url, { max: 1 });
  const project = await createProject(prisma, 'outage');
  key = (await createApiKey(prisma, project.id)).key;
  otherKey = (await createApiKey(prisma, project.id)).key;
  await prisma.$disconnect();
  // Retry-After 1 s: the exporter's retries come back quickly once Postgres is up.
  app = await buildApp({ databaseUrl: url, retryAfterSeconds: 1, rateLimitPerSecond: 0 });
  collectorUrl = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app?.close();
  await server?.stop();
  await fs.rm(base, { recursive: true, force: true });
});

const post = (k: string) =>
  fetch(`${collectorUrl}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${k}` },
    body: JSON.stringify(jsonRequest(sdkSession().spans)),
  });

describe('Postgres outage', () => {
  it('answers 503 + Retry-After while down, recovers by itself, and a retrying exporter loses nothing', async () => {
    expect((await post(key)).status).toBe(200); // key now cached
    const spans = makeSpans(3000);
    const sending = deliver(`${collectorUrl}/v1/traces`, key, spans, { batch: 50, concurrency: 3, pauseMs: 20 });
    await new Promise((r) => setTimeout(r, 500));
    await server?.stop();
    server = undefined;

    const down = await post(key);
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('1');
    expect(await down.json()).toMatchObject({ code: 14, message: expect.stringContaining('database unavailable') });
    // A key not in the cache cannot be checked: 503 too, never a false 401.
    expect((await post(otherKey)).status).toBe(503);
    const ready = await fetch(`${collectorUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect((await fetch(`${collectorUrl}/healthz`)).status).toBe(200);

    await new Promise((r) => setTimeout(r, 1500));
    server = await startEmbeddedPostgres({ dataDir, port });
    const { acked, failed } = await sending;

    expect(failed).toBe(0);
    expect(acked.length).toBe(spans.length);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const { rows } = await c.query('SELECT count(*)::int AS n, count(DISTINCT span_id)::int AS d FROM spans WHERE span_id = ANY($1)', [acked]);
    await c.end();
    expect(rows[0]).toEqual({ n: spans.length, d: spans.length });
    expect((await fetch(`${collectorUrl}/readyz`)).status).toBe(200);
    expect((await post(otherKey)).status).toBe(200);
    const metrics = await (await fetch(`${collectorUrl}/metrics`)).text();
    expect(metrics).toMatch(/guardtrace_collector_overload_responses_total\{reason="unavailable"\} [1-9]/);
  });
});
