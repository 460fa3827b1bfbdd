/** A body that stops arriving is answered 408 once the body timeout passes, over a real socket. */
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, setupApp, setupDatabase } from './helpers.ts';

const BODY_TIMEOUT_MS = 500;
let env: Env;
let app: FastifyInstance;
let port: number;

beforeAll(async () => {
  env = await setupDatabase();
  app = await setupApp(env, { bodyTimeoutMs: BODY_TIMEOUT_MS });
  port = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port);
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});

/** Send headers and part of the body, then stall; resolve with what the server sent back (and when). */
function stall(headers: string, partial: string, waitMs: number): Promise<{ text: string; ms: number; closed: boolean }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, ms: performance.now() - started, closed });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (d) => {
      text += d.toString('latin1');
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.write(headers + partial);
  });
}

describe('slow bodies', () => {
  it('answers 408 with a clear message and closes when the body stalls', async () => {
    const headers =
      'POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      `Authorization: Bearer ${env.key}\r\nContent-Length: 1000\r\n\r\n`;
    const r = await stall(headers, '{"resourceSpans":[', 5_000);
    expect(r.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(r.text).toMatch(/connection: close/i);
    expect(r.text).toContain('request body not received within 0.5 s');
    // Closed by the collector (not by the 5 s wait above), and not before its timeout.
    expect(r.closed).toBe(true);
    expect(r.ms).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 50);
  });

  it('does not time out a body that arrives in time, nor a request that has no body', async () => {
    const body = JSON.stringify({ resourceSpans: [] });
    const res = await fetch(`http://127.0.0.1:${port}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${env.key}` },
      body,
    });
    expect(res.status).toBe(200);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
  });
});
