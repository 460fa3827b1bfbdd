/**
 * Datasets over the collector's HTTP API, from raw OTLP: sessions are sent to /v1/traces, a
 * dataset is made from an explorer query (`POST /v1/datasets`), listed, and read back as NDJSON
 * (`GET /v1/datasets/{id}`). Checks the items' content (arguments, attempts, checks, feedback,
 * definition, step path), the query's meaning (calls of matching sessions that pass the call-level
 * filters), 400s for bad queries and bodies, and that another project's key gets a 404.
 */
import { ATTR_GUARDTRACE_TOOL_DEFINITION, ATTR_GUARDTRACE_TOOL_DEFINITION_HASH, type DatasetItem } from '@guardtrace/semconv';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, hex, jsonRequest, jsonSpan, sdkSession, setupApp, setupDatabase } from './helpers.ts';

let env: Env;
let app: FastifyInstance;
let endpoint: string;
const summary = { tool: 'write_file', schema: { type: 'object', required: ['file', 'content'] }, guards: [], flags: { idempotent: true }, policy: {} };

async function call(method: string, path: string, body?: unknown, key = env.key) {
  const res = await fetch(`${endpoint}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

const sessions: ReturnType<typeof sdkSession>[] = [];

beforeAll(async () => {
  env = await setupDatabase();
  app = await setupApp(env);
  endpoint = await app.listen({ port: 0, host: '127.0.0.1' });
  // Two SDK sessions (a write_file call: rejected for invalid_arguments, then fixed), the first one
  // with a fingerprinted definition and a second call (read_file, clean), and its id in need of escaping.
  const a = sdkSession({ sessionId: `ds a/${hex(3)}` });
  const b = sdkSession();
  const tool = a.spans.find((s) => s.spanId === a.ids.tool) as { attributes: object[] };
  tool.attributes.push(
    { key: ATTR_GUARDTRACE_TOOL_DEFINITION_HASH, value: { stringValue: '0123456789abcdef' } },
    { key: ATTR_GUARDTRACE_TOOL_DEFINITION, value: { stringValue: JSON.stringify(summary) } },
  );
  const read = hex(8);
  a.spans.push(
    jsonSpan({ traceId: a.traceId, spanId: read, parentSpanId: a.ids.root, name: 'execute_tool read_file',
      attrs: { 'gen_ai.conversation.id': a.sessionId, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'read_file', 'guardtrace.outcome': 'success', 'guardtrace.attempt': 1 } }),
    jsonSpan({ traceId: a.traceId, parentSpanId: read, name: 'guardtrace.attempt',
      attrs: { 'gen_ai.conversation.id': a.sessionId, 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': 1, 'gen_ai.tool.call.arguments': '{"path":"src/a.ts"}', 'guardtrace.outcome': 'success', 'guardtrace.decision': 'proceed' } }),
  );
  sessions.push(a, b);
  for (const s of sessions) {
    const res = await fetch(`${endpoint}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${env.key}` }, body: JSON.stringify(jsonRequest(s.spans)) });
    expect(res.status).toBe(200);
  }
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});

const items = (text: string) => text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as DatasetItem);

describe('POST /v1/datasets, GET /v1/datasets/{id}', () => {
  it('makes a dataset of the calls a query matches and streams them as NDJSON DatasetItems', async () => {
    const made = await call('POST', '/v1/datasets', { name: 'invalid writes', query: 'tool:write_file class:invalid_arguments' });
    expect(made.status).toBe(201);
    const { id, name, itemCount } = JSON.parse(made.text);
    expect({ name, itemCount }).toEqual({ name: 'invalid writes', itemCount: 2 });
    const got = await call('GET', `/v1/datasets/${id}`);
    expect(got.status).toBe(200);
    expect(got.type).toContain('application/x-ndjson');
    const list = items(got.text);
    expect(list.map((i) => i.sessionId).sort()).toEqual(sessions.map((s) => s.sessionId).sort());
    const a = sessions[0] as ReturnType<typeof sdkSession>;
    const item = list.find((i) => i.sessionId === a.sessionId) as DatasetItem;
    expect(item).toMatchObject({
      format: 'guardtrace.dataset-item/v1',
      id: `${a.traceId}:${a.ids.tool}`,
      traceId: a.traceId,
      spanId: a.ids.tool,
      stepPath: `/sessions/${encodeURIComponent(a.sessionId)}?project=${env.projectId}&call=${a.ids.tool}`,
      tool: 'write_file',
      callId: 'call_1',
      outcome: 'success',
      definition: { hash: '0123456789abcdef', summary },
    });
    expect(item.attempts).toEqual([
      {
        number: 1,
        // these raw attempt spans name no tool of their own (the SDK's do)
        tool: null,
        arguments: { file: 'a.ts' },
        argumentsText: '{"file":"a.ts"}',
        argumentsInexact: false,
        outcome: 'rejected',
        decision: 'reject_with_feedback',
        failureClass: 'invalid_arguments',
        feedback: 'Missing required field "content"',
        budgetExhausted: null,
        checks: [{ guard: 'schema', stage: 'schema', verdict: 'fail', reason: 'content: Required', failureClass: 'invalid_arguments', pointers: [] }],
      },
      expect.objectContaining({ number: 2, outcome: 'success', decision: 'proceed', failureClass: null, feedback: null, checks: [expect.objectContaining({ guard: 'schema', verdict: 'pass' })] }),
    ]);
    const other = list.find((i) => i.sessionId !== a.sessionId) as DatasetItem;
    expect(other.definition).toEqual({ hash: null, summary: null });
  });

  it('keeps every call of the matching sessions when the query filters sessions only', async () => {
    const a = sessions[0] as ReturnType<typeof sdkSession>;
    const made = await call('POST', '/v1/datasets', { name: 'one session', query: `"${a.sessionId}"` });
    expect(made.status).toBe(201);
    const list = items((await call('GET', `/v1/datasets/${JSON.parse(made.text).id}`)).text);
    expect(list.map((i) => i.tool).sort()).toEqual(['read_file', 'write_file']);
    expect(list.find((i) => i.tool === 'read_file')?.attempts[0]?.arguments).toEqual({ path: 'src/a.ts' });
  });

  it('lists datasets and answers 400 for a bad query or body, 404 for another project', async () => {
    const listed = JSON.parse((await call('GET', '/v1/datasets')).text);
    expect(listed.datasets.map((d: { name: string; itemCount: number }) => [d.name, d.itemCount])).toEqual([
      ['one session', 2],
      ['invalid writes', 2],
    ]);
    const bad = await call('POST', '/v1/datasets', { name: 'x', query: 'class:nope tool:a' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Unknown failure class “nope”');
    expect((await call('POST', '/v1/datasets', { query: 'tool:a' })).status).toBe(400);
    expect((await call('POST', '/v1/datasets', '{"name":')).status).toBe(400);
    // NUL in a name or a query (it failed the request with 500: Postgres text holds no NUL).
    for (const [body, where] of [
      [{ name: 'a\u0000b', query: 'tool:a' }, '$.name'],
      [{ name: 'x', query: 'tool:a\u0000b' }, '$.query'],
    ] as const) {
      const nul = await call('POST', '/v1/datasets', body);
      expect(nul.status).toBe(400);
      expect(nul.text).toContain(`${where} holds a NUL character`);
    }
    const before = JSON.parse((await call('GET', '/v1/datasets')).text).datasets.length;
    expect(before).toBe(2);

    const project = await env.newProject();
    const { key } = await env.newKey(project);
    const id = listed.datasets[0].id;
    const foreign = await call('GET', `/v1/datasets/${id}`, undefined, key);
    expect(foreign.status).toBe(404);
    expect(foreign.text).toContain('no dataset with this id');
    expect(JSON.parse((await call('GET', '/v1/datasets', undefined, key)).text)).toEqual({ datasets: [] });
    expect((await call('GET', '/v1/datasets/not-a-uuid')).status).toBe(404);
    expect((await call('GET', '/v1/datasets')).status).toBe(200);
    expect((await call('GET', '/v1/datasets', undefined, 'gt_wrong')).status).toBe(401);
  });

  it('streams a dataset of more calls than a page in order, and keeps only the calls on the days `started:` names', async () => {
    const traceId = hex(16);
    const sessionId = `bulk-${hex(3)}`;
    const day = Date.UTC(2026, 10, 20, 23, 0, 0);
    // 1,300 calls: the first 1,000 on 2026-11-20, the rest after midnight (2026-11-21).
    const spans = Array.from({ length: 1300 }, (_, i) =>
      jsonSpan({
        traceId,
        name: 'execute_tool bulk_tool',
        startMs: day + (i < 1000 ? i : 3_600_000 + i),
        attrs: { 'gen_ai.conversation.id': sessionId, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'bulk_tool', 'guardtrace.outcome': 'success' },
      }),
    );
    const res = await fetch(`${endpoint}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${env.key}` }, body: JSON.stringify(jsonRequest(spans)) });
    expect(res.status).toBe(200);
    const all = await call('POST', '/v1/datasets', { name: 'bulk', query: 'tool:bulk_tool' });
    expect(JSON.parse(all.text).itemCount).toBe(1300);
    const lines = items((await call('GET', `/v1/datasets/${JSON.parse(all.text).id}`)).text);
    expect(lines).toHaveLength(1300);
    expect(new Set(lines.map((l) => l.id)).size).toBe(1300);
    expect(lines.map((l) => l.startedAt)).toEqual([...lines.map((l) => l.startedAt)].sort());
    // The session started on the 20th: the explorer lists it for started:2026-11-20 (not for the
    // 21st), and the dataset keeps only its calls that started on the 20th themselves.
    const first = await call('POST', '/v1/datasets', { name: 'bulk day one', query: 'tool:bulk_tool started:2026-11-20' });
    expect(JSON.parse(first.text).itemCount).toBe(1000);
    const none = await call('POST', '/v1/datasets', { name: 'bulk day two', query: 'tool:bulk_tool started:2026-11-21' });
    expect(JSON.parse(none.text).itemCount).toBe(0);
  });

  it('answers 409, never a partial stream, for a dataset still being saved or whose saving stopped', async () => {
    const made = JSON.parse((await call('POST', '/v1/datasets', { name: 'half saved', query: 'tool:write_file' })).text);
    expect(made.itemCount).toBeGreaterThan(0);
    await env.sql.query(`UPDATE datasets SET status = 'building', updated_at = now() WHERE id = $1`, [made.id]);
    const building = await call('GET', `/v1/datasets/${made.id}`);
    expect(building.status).toBe(409);
    expect(building.text).toContain('is still being saved');
    await env.sql.query(`UPDATE datasets SET updated_at = now() - interval '1 hour' WHERE id = $1`, [made.id]);
    const stopped = await call('GET', `/v1/datasets/${made.id}`);
    expect(stopped.status).toBe(409);
    expect(stopped.text).toContain('its saving stopped after');
    const listed = JSON.parse((await call('GET', '/v1/datasets')).text).datasets.find((d: { id: string }) => d.id === made.id);
    expect(listed.status).toBe('interrupted');
    await env.sql.query(`UPDATE datasets SET status = 'ready' WHERE id = $1`, [made.id]);
    expect((await call('GET', `/v1/datasets/${made.id}`)).status).toBe(200);
  });

  it('with Prefer: respond-async answers 202 once the dataset exists and copies its items after; a bad query is still a 400', async () => {
    const post = (body: unknown) =>
      fetch(`${endpoint}/v1/datasets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${env.key}`, 'content-type': 'application/json', prefer: 'respond-async' },
        body: JSON.stringify(body),
      });
    const res = await post({ name: 'async writes', query: 'tool:write_file' });
    expect(res.status).toBe(202);
    const made = (await res.json()) as { id: string; name: string; status: string };
    expect(res.headers.get('location')).toBe(`/v1/datasets/${made.id}`);
    expect(made.name).toBe('async writes');
    expect(['building', 'ready']).toContain(made.status);
    // The list shows it until it is ready, then its whole count: what the command line polls.
    let listed: { status: string; itemCount: number } | undefined;
    for (let i = 0; i < 200; i++) {
      listed = JSON.parse((await call('GET', '/v1/datasets')).text).datasets.find((d: { id: string }) => d.id === made.id);
      if (listed?.status !== 'building') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const sync = JSON.parse((await call('POST', '/v1/datasets', { name: 'sync writes', query: 'tool:write_file' })).text);
    expect(listed).toMatchObject({ status: 'ready', itemCount: sync.itemCount });
    expect(items((await call('GET', `/v1/datasets/${made.id}`)).text).map((i) => i.id)).toEqual(items((await call('GET', `/v1/datasets/${sync.id}`)).text).map((i) => i.id));
    const bad = await post({ name: 'x', query: 'class:nope' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('Unknown failure class');
  });
});
