/**
 * Crash: kill -9 the collector process while a real exporter with retries is sending, start
 * it again on the same port; every acknowledged span is in Postgres exactly once.
 */
import type { ChildProcess } from 'node:child_process';
import { freePort } from '@guardtrace/db/dev';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver, makeSpans } from './exporter-helpers.ts';
import { type Env, setupDatabase, startCollectorProcess } from './helpers.ts';

let env: Env;
let child: ChildProcess | undefined;

beforeAll(async () => {
  env = await setupDatabase();
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await env?.close();
});

const start = async (port: number): Promise<ChildProcess> => (await startCollectorProcess(env.db.url, port)).proc;

describe('kill -9 while an exporter is sending', () => {
  it('keeps every acknowledged span exactly once', async () => {
    const port = await freePort();
    child = await start(port);
    const spans = makeSpans(10_000);
    const sending = deliver(`http://127.0.0.1:${port}/v1/traces`, env.key, spans, { batch: 50, concurrency: 4, pauseMs: 5 });
    // Kill once ingest is under way (polling, so the test does not depend on machine speed).
    for (;;) {
      const { rows } = await env.sql.query('SELECT count(*)::int AS n FROM spans');
      if (rows[0].n >= 300) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const killed = child;
    killed.kill('SIGKILL');
    await new Promise((r) => killed.once('exit', r));
    const { rows: atKill } = await env.sql.query('SELECT count(*)::int AS n FROM spans');
    await new Promise((r) => setTimeout(r, 800));
    child = await start(port);
    const { acked, failed } = await sending;

    expect(atKill[0].n).toBeGreaterThan(0); // the kill happened mid-stream
    expect(atKill[0].n).toBeLessThan(spans.length);
    expect(acked.length + failed).toBe(spans.length);
    expect(acked.length).toBeGreaterThan(spans.length / 2);
    const { rows } = await env.sql.query<{ span_id: string; n: number }>(
      'SELECT span_id, count(*)::int AS n FROM spans WHERE span_id = ANY($1) GROUP BY span_id',
      [acked],
    );
    expect(rows.length).toBe(acked.length);
    expect(rows.filter((r) => r.n !== 1)).toEqual([]);
    const derived = await env.sql.query('SELECT count(*)::int AS n FROM tool_calls WHERE span_id = ANY($1)', [acked]);
    expect(derived.rows[0].n).toBe(acked.length);

    // SIGTERM drains and exits 0.
    const exit = new Promise<number | null>((r) => child?.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    child = undefined;
  });
});
