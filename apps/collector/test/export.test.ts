/**
 * Session export (`GET /v1/sessions/{id}`, OTLP/JSON) and import (that document posted to
 * `/v1/traces` with another project's key): the imported session's raw spans, derived rows and
 * totals equal the original's, and exporting it again gives the same document.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Env, hex, jsonRequest, jsonSpan, sdkSession, setupApp, setupDatabase } from './helpers.ts';

let env: Env;
let app: Awaited<ReturnType<typeof setupApp>>;
beforeAll(async () => {
  env = await setupDatabase();
  app = await setupApp(env);
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});

const post = (key: string, body: unknown) =>
  app.inject({ method: 'POST', url: '/v1/traces', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, payload: JSON.stringify(body) });
const get = (key: string | null, id: string) =>
  app.inject({ method: 'GET', url: `/v1/sessions/${encodeURIComponent(id)}`, headers: key ? { authorization: `Bearer ${key}` } : {} });

/** Every stored row of a session in a project, without the project id and the time it was received. */
async function stored(projectId: string, sessionId: string) {
  const out: Record<string, unknown[]> = {};
  const drop = (r: Record<string, unknown>) => {
    const { project_id: _p, received_at: _r, updated_at: _u, ...rest } = r;
    return rest;
  };
  out.sessions = (await env.sql.query('SELECT * FROM sessions WHERE project_id = $1 AND id = $2', [projectId, sessionId])).rows.map(drop);
  for (const t of ['spans', 'tool_calls', 'attempts', 'guard_checks', 'model_calls']) {
    const { rows } = await env.sql.query(`SELECT * FROM ${t} WHERE project_id = $1 AND session_id = $2 ORDER BY trace_id, span_id`, [projectId, sessionId]);
    out[t] = rows.map(drop);
  }
  out.traces = (await env.sql.query('SELECT trace_id, session_id, start_time FROM traces WHERE project_id = $1 AND session_id = $2 ORDER BY 1', [projectId, sessionId])).rows;
  return out;
}

it('exports a session as OTLP JSON and imports it into another project with the same rows', async () => {
  const a = sdkSession();
  const second = sdkSession({ sessionId: a.sessionId });
  // A span with an event, a link, a status message, nested and array attributes and a double.
  const extra = jsonSpan({
    traceId: a.traceId,
    parentSpanId: a.ids.root,
    name: 'odd span',
    status: 2,
    attrs: { 'gen_ai.conversation.id': a.sessionId, nested: { list: [1, 'two', true], ratio: 0.25 }, big: 2 ** 40 },
  });
  extra.events = [{ timeUnixNano: '1764504000000000123', name: 'exception', attributes: [{ key: 'exception.message', value: { stringValue: 'boom' } }] }];
  extra.links = [{ traceId: second.traceId, spanId: second.ids.root, attributes: [] }];
  extra.status = { code: 2, message: 'it broke' };
  expect((await post(env.key, jsonRequest([...a.spans, extra], 'svc-one'))).statusCode).toBe(200);
  expect((await post(env.key, jsonRequest(second.spans, 'svc-two'))).statusCode).toBe(200);

  const res = await get(env.key, a.sessionId);
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['content-disposition']).toBe(`attachment; filename="guardtrace-session-${a.sessionId}.otlp.json"`);
  const doc = res.json();
  // Two services: two resources, each with its own scope and spans.
  expect(doc.resourceSpans).toHaveLength(2);

  // Another project: the session is not there, and A's key cannot read B's sessions.
  const projectB = await env.newProject();
  const { key: keyB } = await env.newKey(projectB);
  expect((await get(keyB, a.sessionId)).statusCode).toBe(404);
  expect((await get(null, a.sessionId)).statusCode).toBe(401);
  expect((await get(env.key, `nope_${hex(4)}`)).statusCode).toBe(404);

  // Import into B, twice (a retried import adds nothing).
  for (let i = 0; i < 2; i++) expect((await post(keyB, doc)).statusCode).toBe(200);
  const original = await stored(env.projectId, a.sessionId);
  const imported = await stored(projectB, a.sessionId);
  expect(original.spans).toHaveLength(17);
  expect(original.tool_calls).toHaveLength(2);
  expect(imported).toEqual(original);

  // Exported again from B: the same document.
  const again = await get(keyB, a.sessionId);
  expect(again.json()).toEqual(doc);
});

it('exports a session whose id is as long as ingest keeps (1,024 bytes), not only ids of 100 characters', async () => {
  // Fastify's default route parameter limit (100) answered 414 for ids ingest had stored.
  for (const id of [`long-${'x'.repeat(200)}`, `long-${'é'.repeat(500)}`]) {
    const traceId = hex(16);
    expect((await post(env.key, jsonRequest([jsonSpan({ traceId, name: 'agent', attrs: { 'gen_ai.conversation.id': id } })]))).statusCode).toBe(200);
    const res = await get(env.key, id);
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
    expect(res.body).toContain(traceId);
  }
});
