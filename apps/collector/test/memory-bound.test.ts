/**
 * The in-flight memory bound counts what an admitted request holds until its rows are written
 * (its body, what decoding makes of it, its row text and their copy for COPY), so a request
 * whose decoding would not fit in what is left is refused, 503 + Retry-After, before it is
 * decoded or written.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryCost } from '../src/otlp-decode.ts';
import { type Env, hex, jsonRequest, jsonSpan, setupApp, setupDatabase } from './helpers.ts';

const MiB = 1024 * 1024;
let env: Env;
let app: FastifyInstance;

/** One span with a 1 MiB attribute: a 1 MiB JSON body, rows of ~64 KiB (the value is truncated). */
function bigBody(sessionId: string): Buffer {
  const span = jsonSpan({ traceId: hex(16), name: 'big', attrs: { 'gen_ai.conversation.id': sessionId, pad: 'x'.repeat(MiB) } });
  return Buffer.from(JSON.stringify(jsonRequest([span])));
}

const post = (body: Buffer) =>
  app.inject({
    method: 'POST',
    url: '/v1/traces',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${env.key}` },
    payload: body,
  });

async function inFlightGauge(): Promise<number> {
  const res = await app.inject({ method: 'GET', url: '/metrics' });
  return Number(/^guardtrace_collector_inflight_bytes (\S+)$/m.exec(res.body)?.[1] ?? Number.NaN);
}

beforeAll(async () => {
  env = await setupDatabase();
  // 8 MiB: two such requests fit when only their body and parsed size count (2 x ~2 MiB), not
  // when their text, row arena (1 MiB) and its COPY copy count too (2 x ~5 MiB). Long waits on Postgres: the
  // first request is held in its transaction while the second arrives. Bodies arrive within
  // 3 s (or 408), which is also how long a refused body is read and dropped before the answer.
  app = await setupApp(env, { maxInFlightBytes: 8 * MiB, dbTimeoutMs: 60_000, bodyTimeoutMs: 3_000 });
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});

describe('in-flight memory bound', () => {
  it('counts an admitted request until its rows are written, and refuses one whose decoding does not fit before decoding it', async () => {
    const first = bigBody(`mem-${hex(4)}`);
    const second = bigBody(`mem-${hex(4)}`);
    // Hold the first request in its transaction: the trace index is locked.
    const blocker: pg.PoolClient = await env.sql.connect();
    await blocker.query('BEGIN; LOCK TABLE traces IN ACCESS EXCLUSIVE MODE');
    let firstDone: ReturnType<typeof post> | undefined;
    try {
      firstDone = post(first);
      for (let waited = 0; ; waited++) {
        const { rows } = await env.sql.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'traces' AND NOT l.granted`,
        );
        if ((rows[0]?.n ?? 0) > 0) break;
        if (waited > 600) throw new Error('the first request never reached its transaction');
        await new Promise((r) => setTimeout(r, 50));
      }
      // Body, its decoding (text and parsed tree), and rows twice: more than the body and its parsed size.
      const held = await inFlightGauge();
      expect(held).toBeGreaterThan(first.length + memoryCost(first, 'json'));
      const res = await post(second);
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('2');
      expect(JSON.parse(res.body).message).toMatch(/overloaded/);
    } finally {
      await blocker.query('COMMIT');
      blocker.release();
    }
    const ok = await firstDone;
    expect(ok?.statusCode).toBe(200);
    const { rows } = await env.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM spans WHERE project_id = $1', [env.projectId]);
    expect(rows[0]?.n).toBe(1);
    // Released with the answers.
    expect(await inFlightGauge()).toBe(0);
  }, 60_000);

  it('counts a body sent without Content-Length as it arrives, and refuses it once it alone passes the bound', async () => {
    // 12 MiB, then the body never ends: counted as it arrives, it is refused with 413 (answered
    // once the 3 s of reading it to drop it are over); not counted, it would time out (408).
    let sent = 0;
    const body = new Readable({
      read() {
        if (sent++ < 12) this.push(Buffer.alloc(MiB, 0x20));
      },
    });
    const res = await app.inject({
      method: 'POST',
      url: '/v1/traces',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${env.key}` },
      payload: body,
    });
    body.destroy();
    expect(res.statusCode).toBe(413);
    expect(JSON.parse(res.body).message).toMatch(/^request needs ~[\d.]+ MiB of memory to read/);
    expect(await inFlightGauge()).toBe(0);
  });

  it('still takes the same request once the first is written', async () => {
    const res = await post(bigBody(`mem-${hex(4)}`));
    expect(res.statusCode).toBe(200);
  });
});
