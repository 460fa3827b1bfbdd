/**
 * A frozen Postgres (every process of the throwaway cluster stopped with SIGSTOP: connections
 * open, nothing answers) is answered 503 + Retry-After within a few seconds by /readyz,
 * /v1/traces, /v1/sampling and /v1/sessions/{id}, and ingest recovers once it runs again (SIGCONT).
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterPids, signalAll } from './cluster.ts';
import { type Env, jsonRequest, sdkSession, setupApp, setupDatabase } from './helpers.ts';

const DB_TIMEOUT_MS = 1_500;
let env: Env;
let app: FastifyInstance;
let pids: number[] = [];

const signal = (sig: NodeJS.Signals) => signalAll(pids, sig);

beforeAll(async () => {
  env = await setupDatabase();
  app = await setupApp(env, { dbTimeoutMs: DB_TIMEOUT_MS, retryAfterSeconds: 1 });
});
afterAll(async () => {
  signal('SIGCONT');
  await app?.close();
  await env?.close();
});

const post = (key = env.key) =>
  app.inject({
    method: 'POST',
    url: '/v1/traces',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    payload: JSON.stringify(jsonRequest(sdkSession().spans)),
  });

describe('a frozen database', () => {
  // Only on a throwaway cluster of its own: freezing a shared DATABASE_URL server would stall other tests.
  it.skipIf(Boolean(process.env.DATABASE_URL))('answers 503 + Retry-After fast while Postgres is frozen, and recovers after', async () => {
    expect(env.db.server?.owned, 'needs a throwaway Postgres of its own to freeze').toBe(true);
    // Warm: the key is cached, the pool holds connections, migrations are checked.
    expect((await post()).statusCode).toBe(200);
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
    const uncached = (await env.newKey()).key;
    pids = await clusterPids(env.sql);
    expect(pids.length).toBeGreaterThan(1);
    signal('SIGSTOP');
    // Postgres stays frozen until the `finally` below: an unbounded wait would never answer
    // (the test would time out), so each answer here is the bound at work. How fast the
    // answers come is measured by `pnpm bench production`, not asserted here.
    try {
      const ready = await app.inject({ url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.headers['retry-after']).toBe('1');
      const ingest = await post();
      expect(ingest.statusCode).toBe(503);
      expect(ingest.headers['retry-after']).toBe('1');
      expect(JSON.parse(ingest.body).message).not.toMatch(/timeout exceeded|Query read timeout/);
      // The key's other routes read Postgres too: the sampling rate and a session export (how
      // long they take is measured by `pnpm bench production`).
      for (const url of ['/v1/sampling', '/v1/sessions/sess_frozen']) {
        const read = await app.inject({ url, headers: { authorization: `Bearer ${env.key}` } });
        expect(read.statusCode, url).toBe(503);
        expect(read.headers['retry-after'], url).toBe('1');
      }
      // A key not cached yet: its lookup waits on the frozen database, and is bounded too.
      const lookup = await post(uncached);
      expect(lookup.statusCode).toBe(503);
      expect(lookup.headers['retry-after']).toBe('1');
    } finally {
      signal('SIGCONT');
    }
    // Recovers: within a few retries, ingest and readiness are back.
    let status = 0;
    for (let i = 0; i < 40 && status !== 200; i++) {
      status = (await post()).statusCode;
      if (status !== 200) await new Promise((r) => setTimeout(r, 500));
    }
    expect(status).toBe(200);
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
  });
});
