/**
 * Refusals decided before the body is read (413 by Content-Length, 401, 429, 503) reach a real
 * node:http client that is still writing a big body: the status (and Retry-After) arrive every
 * time, instead of a connection reset under the client.
 */
import { freePort } from '@guardtrace/db/dev';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { type Env, setupApp, setupDatabase } from './helpers.ts';
import { type Outcome, sendBig } from './raw-client.ts';

const MiB = 1024 * 1024;
const TRIES = 20;
let env: Env;
let app: FastifyInstance;
let limited: FastifyInstance;
let noDb: FastifyInstance;
const ports: Record<string, number> = {};

beforeAll(async () => {
  env = await setupDatabase();
  app = await setupApp(env);
  // One request per 100 s: every try after the first is over the limit.
  limited = await setupApp(env, { rateLimitPerSecond: 0.01, rateLimitBurst: 1 });
  // Nothing listens there: every key lookup fails, 503 + Retry-After.
  noDb = await buildApp({ databaseUrl: `postgres://u:p@127.0.0.1:${await freePort()}/none` });
  for (const [name, a] of Object.entries({ app, limited, noDb })) {
    ports[name] = Number(new URL(await a.listen({ port: 0, host: '127.0.0.1' })).port);
  }
});
afterAll(async () => {
  for (const a of [app, limited, noDb]) await a?.close();
  await env?.close();
});

async function tries(port: number, key: string, size: number): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (let i = 0; i < TRIES; i++) out.push(await sendBig(port, key, size));
  return out;
}

describe('refusals before the body is read', () => {
  it('413 by Content-Length reaches a client writing 30 MiB, 20 times in 20', async () => {
    const out = await tries(ports.app as number, env.key, 30 * MiB);
    expect(out).toEqual(Array.from({ length: TRIES }, () => ({ status: 413 })));
  });

  it('401 for an unknown key reaches a client writing 4 MiB, 20 times in 20', async () => {
    const out = await tries(ports.app as number, 'gt_unknown_key', 4 * MiB);
    expect(out).toEqual(Array.from({ length: TRIES }, () => ({ status: 401 })));
  });

  it('429 with Retry-After reaches a client writing 4 MiB, 20 times in 20', async () => {
    await sendBig(ports.limited as number, env.key, 100); // the one request the bucket allows
    const out = await tries(ports.limited as number, env.key, 4 * MiB);
    expect(out).toEqual(Array.from({ length: TRIES }, () => ({ status: 429, retryAfter: expect.stringMatching(/^\d+$/) })));
  });

  it('503 with Retry-After reaches a client writing 4 MiB, 20 times in 20', async () => {
    const out = await tries(ports.noDb as number, env.key, 4 * MiB);
    expect(out).toEqual(Array.from({ length: TRIES }, () => ({ status: 503, retryAfter: expect.stringMatching(/^\d+$/) })));
  });
});
