/**
 * Indexed text (session ids, failure classes) too long for a Postgres btree entry: the span
 * carrying it is rejected alone, its neighbours are stored, and no database text reaches the client.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, hex, jsonRequest, jsonSpan, setupApp, setupDatabase } from './helpers.ts';

let env: Env;
let app: FastifyInstance;

beforeAll(async () => {
  env = await setupDatabase();
  app = await setupApp(env);
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});

const post = (body: unknown) =>
  app.inject({
    method: 'POST',
    url: '/v1/traces',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${env.key}` },
    payload: JSON.stringify(body),
  });

const stored = async (traceId: string) =>
  Number((await env.sql.query('SELECT count(*) AS n FROM spans WHERE project_id = $1 AND trace_id = $2', [env.projectId, traceId])).rows[0].n);

describe('identifiers too long to index', () => {
  for (const attr of ['session.id', 'gen_ai.conversation.id', 'ai.telemetry.metadata.sessionId', 'guardtrace.failure.class']) {
    it(`rejects only the span whose ${attr} is 3,000 random characters; the 50 others are stored, and a retry is idempotent`, async () => {
      const traceId = hex(16);
      const good = Array.from({ length: 50 }, (_, i) =>
        jsonSpan({ traceId, name: `step ${i}`, attrs: { 'gen_ai.conversation.id': `sess_${hex(4)}` } }),
      );
      const extra: Record<string, string> =
        attr === 'guardtrace.failure.class' ? { 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': '1' } : {};
      const bad = jsonSpan({ traceId, name: 'long', attrs: { ...extra, [attr]: hex(1_500) } });
      const body = jsonRequest([...good.slice(0, 25), bad, ...good.slice(25)]);
      for (let attempt = 0; attempt < 2; attempt++) {
        const res = await post(body);
        expect(res.statusCode).toBe(200);
        const out = JSON.parse(res.body);
        expect(out.partialSuccess.rejectedSpans).toBe('1');
        expect(out.partialSuccess.errorMessage).toContain('spans[25]');
        expect(out.partialSuccess.errorMessage).toContain(attr);
        expect(out.partialSuccess.errorMessage).toMatch(/3000 bytes.*limit of \d+/);
        expect(out.partialSuccess.errorMessage).not.toMatch(/index|btree/i);
        expect(await stored(traceId)).toBe(50);
      }
    });
  }
});
