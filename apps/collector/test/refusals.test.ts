/**
 * Refusals decided before the body is read (413 by Content-Length, 401, 429, 503) reach a real
 * node:http client that is still writing a big body: the status (and Retry-After) arrive every
 * time, instead of a connection reset under the client.
 */
import http from 'node:http';
import { freePort } from '@guardtrace/db/dev';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { type Env, setupApp, setupDatabase } from './helpers.ts';

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

type Outcome = { status?: number; retryAfter?: string; error?: string };

/** POST `size` bytes with Content-Length, written in 64 KiB chunks as fast as the socket takes them. */
function send(port: number, key: string, size: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/v1/traces',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': size, authorization: `Bearer ${key}` },
    });
    // Like an exporter: the outcome is known once the response has ended and the body has been
    // written; a write that fails (EPIPE, ECONNRESET) on the way is a broken connection.
    let settled = false;
    let answer: Outcome | undefined;
    let written = false;
    const done = (o: Outcome) => {
      if (settled) return;
      settled = true;
      req.destroy();
      resolve(o);
    };
    const check = () => {
      if (answer && written) done(answer);
    };
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => {
        answer = { status: res.statusCode, retryAfter: res.headers['retry-after'] as string | undefined };
        check();
      });
    });
    req.on('finish', () => {
      written = true;
      check();
    });
    req.on('error', (e) => done({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
    let sent = 0;
    const write = () => {
      while (sent < size && !settled) {
        const n = Math.min(chunk.length, size - sent);
        sent += n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
          req.once('drain', write);
          return;
        }
      }
      if (sent >= size && !settled) req.end();
    };
    write();
  });
}

async function tries(port: number, key: string, size: number): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (let i = 0; i < TRIES; i++) out.push(await send(port, key, size));
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
    await send(ports.limited as number, env.key, 100); // the one request the bucket allows
    const out = await tries(ports.limited as number, env.key, 4 * MiB);
    expect(out).toEqual(Array.from({ length: TRIES }, () => ({ status: 429, retryAfter: expect.stringMatching(/^\d+$/) })));
  });

  it('503 with Retry-After reaches a client writing 4 MiB, 20 times in 20', async () => {
    const out = await tries(ports.noDb as number, env.key, 4 * MiB);
    expect(out).toEqual(Array.from({ length: TRIES }, () => ({ status: 503, retryAfter: expect.stringMatching(/^\d+$/) })));
  });
});
