/**
 * POST /v1/logs: the GenAI events of the OpenTelemetry GenAI instrumentations (prompt and
 * completion as log records carrying their model call's span context), recorded from
 * @opentelemetry/instrumentation-openai (e2e/fixtures/recorded/openai-logs.*) and built from
 * semconv 1.37 (e2e/fixtures/genai-events/operation-details.*), posted as raw OTLP protobuf and
 * JSON to a collector on real Postgres; and their lifecycle (sampling sweep, retention, a
 * project's deletion).
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { createPrisma, deleteProject } from '@guardtrace/db';
import { applyRetention } from '@guardtrace/db/server';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepHeldSessions } from '../src/sampling-sweep.ts';
import { type Env, hex, protobufRequest, setupApp, setupDatabase } from './helpers.ts';
import { decodeLogsResponseProtobuf, encodeLogsRequestProtobuf } from './otlp-reference.ts';

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

type Json = Record<string, unknown>;
interface Fixture {
  spans: Json;
  logs: Json;
  sessionId: string;
  traceIds: string[];
}

const FIXTURES = {
  openai: ['recorded/openai-logs.otlp.json', 'recorded/openai-logs.logs.otlp.json'],
  details: ['genai-events/operation-details.otlp.json', 'genai-events/operation-details.logs.otlp.json'],
} as const;

/** The fixture's spans and logs under fresh trace ids and a tagged session id, times moved by `shiftMs`. */
function load(name: keyof typeof FIXTURES, shiftMs = 0): Fixture {
  const read = (f: string) => readFileSync(new URL(`../../../e2e/fixtures/${f}`, import.meta.url), 'utf8');
  const [spansFile, logsFile] = FIXTURES[name];
  const tag = hex(4);
  const traces = new Map<string, string>();
  let sessionId = '';
  const shift = BigInt(shiftMs) * 1_000_000n;
  const walk = (o: unknown): unknown => {
    if (Array.isArray(o)) return o.map(walk);
    if (!o || typeof o !== 'object') return o;
    const out: Json = {};
    for (const [k, v] of Object.entries(o as Json)) {
      if (k === 'traceId' && typeof v === 'string') out[k] = traces.get(v) ?? (traces.set(v, hex(16)).get(v) as string);
      else if (/UnixNano$/.test(k) && typeof v === 'string') out[k] = (BigInt(v) + shift).toString();
      else out[k] = walk(v);
    }
    if (out.key === 'gen_ai.conversation.id') {
      const value = out.value as { stringValue: string };
      sessionId = value.stringValue = `${value.stringValue}-${tag}`;
    }
    return out;
  };
  const spans = walk(JSON.parse(read(spansFile))) as Json;
  const logs = walk(JSON.parse(read(logsFile))) as Json;
  return { spans, logs, sessionId, traceIds: [...traces.values()] };
}

/** Every log record of an OTLP JSON logs request, in order. */
const records = (logs: Json): Json[] =>
  (logs.resourceLogs as { scopeLogs: { logRecords: Json[] }[] }[]).flatMap((r) => r.scopeLogs.flatMap((s) => s.logRecords));

/** The OTLP JSON tree as protobuf bytes (hex ids as bytes), through the reference codec. */
function logsProtobuf(json: Json): Buffer {
  const conv = (o: unknown): unknown => {
    if (Array.isArray(o)) return o.map(conv);
    if (!o || typeof o !== 'object') return o;
    const out: Json = {};
    for (const [k, v] of Object.entries(o as Json)) out[k] = (k === 'traceId' || k === 'spanId') && typeof v === 'string' ? Buffer.from(v, 'hex') : conv(v);
    return out;
  };
  return encodeLogsRequestProtobuf(conv(json));
}

type Encoding = 'json' | 'protobuf';
const TYPES: Record<Encoding, string> = { json: 'application/json', protobuf: 'application/x-protobuf' };

function post(url: '/v1/traces' | '/v1/logs', payload: Buffer | string, encoding: Encoding, extra: Record<string, string> = {}, key = env.key) {
  return app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${key}`, 'content-type': TYPES[encoding], ...extra }, payload });
}
const postSpans = (f: Fixture, encoding: Encoding = 'json') => post('/v1/traces', encoding === 'json' ? JSON.stringify(f.spans) : protobufRequest(f.spans), encoding);
const postLogs = (logs: Json, encoding: Encoding = 'json', key?: string) =>
  post('/v1/logs', encoding === 'json' ? JSON.stringify(logs) : logsProtobuf(logs), encoding, {}, key);

interface EventRow {
  span_id: string;
  event_name: string;
  body: unknown;
  attributes: Record<string, unknown>;
  scope_name: string | null;
}
async function events(traceIds: string[]): Promise<EventRow[]> {
  const { rows } = await env.sql.query<EventRow>(
    `SELECT span_id, event_name, body, attributes, scope_name FROM genai_events
     WHERE project_id = $1 AND trace_id = ANY($2) ORDER BY span_id, time_unix_nano, seq`,
    [env.projectId, traceIds],
  );
  return rows;
}
async function modelCallSpans(sessionId: string): Promise<string[]> {
  const { rows } = await env.sql.query<{ span_id: string }>('SELECT span_id FROM model_calls WHERE project_id = $1 AND session_id = $2 ORDER BY span_id', [
    env.projectId,
    sessionId,
  ]);
  return rows.map((r) => r.span_id);
}

/** The recorded instrumentation's events, in its order per model call (prompt messages, then the choice). */
const RECORDED = [
  ['gen_ai.system.message', 'gen_ai.user.message', 'gen_ai.choice'],
  ['gen_ai.system.message', 'gen_ai.user.message', 'gen_ai.assistant.message', 'gen_ai.tool.message', 'gen_ai.choice'],
];

describe('POST /v1/logs with the recorded @opentelemetry/instrumentation-openai export', () => {
  for (const [order, encoding] of [
    ['logs first', 'protobuf'],
    ['spans first', 'json'],
  ] as const) {
    it(`stores every GenAI event under its model call's span (${order}, ${encoding})`, async () => {
      const f = load('openai');
      if (order === 'spans first') expect((await postSpans(f, encoding)).statusCode).toBe(200);
      const res = await postLogs(f.logs, encoding);
      expect(res.statusCode).toBe(200);
      // Full success: an empty response in the request's encoding.
      expect(encoding === 'json' ? JSON.parse(res.body) : decodeLogsResponseProtobuf(res.rawPayload)).toEqual({});
      if (order === 'logs first') expect((await postSpans(f, encoding)).statusCode).toBe(200);

      const rows = await events(f.traceIds);
      const spans = await modelCallSpans(f.sessionId);
      expect(spans).toHaveLength(2);
      expect(new Set(rows.map((r) => r.span_id))).toEqual(new Set(spans));
      const bySpan = spans.map((s) => rows.filter((r) => r.span_id === s).map((r) => r.event_name));
      expect(bySpan.sort((a, b) => a.length - b.length)).toEqual(RECORDED);
      const user = rows.find((r) => r.event_name === 'gen_ai.user.message');
      expect(user?.body).toEqual({ content: 'What is the weather in Lyon?' });
      expect(user?.attributes).toEqual({ 'event.name': 'gen_ai.user.message', 'gen_ai.system': 'openai' });
      expect(user?.scope_name).toBe('@opentelemetry/instrumentation-openai');
      const toolCall = rows.find((r) => r.event_name === 'gen_ai.choice' && JSON.stringify(r.body).includes('tool_calls'));
      expect(toolCall?.body).toMatchObject({
        finish_reason: 'tool_calls',
        message: { tool_calls: [{ id: 'call_weather_1', function: { name: 'get_weather', arguments: '{"city":"Lyon"}' } }] },
      });
    });
  }

  it('stores a retried export once (JSON, then the same records again as gzip protobuf)', async () => {
    const f = load('openai');
    expect((await postLogs(f.logs)).statusCode).toBe(200);
    const again = await post('/v1/logs', gzipSync(logsProtobuf(f.logs)), 'protobuf', { 'content-encoding': 'gzip' });
    expect(again.statusCode).toBe(200);
    expect(decodeLogsResponseProtobuf(again.rawPayload)).toEqual({});
    expect(await events(f.traceIds)).toHaveLength(8);
  });

  it('keeps identical records of one span once each (the same message twice in one prompt)', async () => {
    const f = load('openai');
    const user = records(f.logs)[1] as Json;
    expect(user.attributes).toContainEqual({ key: 'event.name', value: { stringValue: 'gen_ai.user.message' } });
    const twice = { resourceLogs: [{ scopeLogs: [{ logRecords: [user, user] }] }] };
    expect((await postLogs(twice)).statusCode).toBe(200);
    expect((await postLogs(twice)).statusCode).toBe(200);
    const rows = await events(f.traceIds);
    expect(rows.map((r) => r.event_name)).toEqual(['gen_ai.user.message', 'gen_ai.user.message']);
  });
});

describe('records not kept', () => {
  for (const encoding of ['json', 'protobuf'] as const) {
    it(`answers partial success naming them, and stores their valid neighbours (${encoding})`, async () => {
      const f = load('openai');
      const [first, second] = records(f.logs) as [Json, Json];
      const traceId = first.traceId as string;
      const logRecords = [
        first,
        // An application log in the same export: not a GenAI event.
        { timeUnixNano: first.timeUnixNano, severityText: 'INFO', body: { stringValue: 'cache warmed' }, traceId, spanId: first.spanId },
        // A GenAI event without span context.
        { ...second, traceId: undefined, spanId: undefined },
        // A malformed one: a 3-byte span id in protobuf, a non-hex one in JSON.
        { ...second, spanId: encoding === 'json' ? 'not-hex!' : 'abcdef' },
        second,
      ];
      const res = await postLogs({ resourceLogs: [{ scopeLogs: [{ scope: { name: 'mixed' }, logRecords }] }] }, encoding);
      expect(res.statusCode).toBe(200);
      const partial =
        encoding === 'json'
          ? (JSON.parse(res.body) as { partialSuccess: { rejectedLogRecords: string; errorMessage: string } }).partialSuccess
          : (decodeLogsResponseProtobuf(res.rawPayload) as { partialSuccess: { rejectedLogRecords: { toString(): string }; errorMessage: string } })
              .partialSuccess;
      expect(String(partial.rejectedLogRecords)).toBe('3');
      expect(partial.errorMessage).toContain('rejected 3 log record(s)');
      expect(partial.errorMessage).toContain('resourceLogs[0].scopeLogs[0].logRecords[1]: not a GenAI event (no event name)');
      expect(partial.errorMessage).toContain('logRecords[2]: traceId is missing: a GenAI event must carry the trace and span ids');
      expect(partial.errorMessage).toContain(
        encoding === 'json' ? 'logRecords[3]: spanId must be 16 hex characters' : 'logRecords[3]: spanId must be 8 bytes, got 3',
      );
      const rows = await events([traceId]);
      expect(rows.map((r) => r.event_name).sort()).toEqual(['gen_ai.system.message', 'gen_ai.user.message']);
    });
  }

  it('answers 400 for a body that is not an ExportLogsServiceRequest, 401 without a key', async () => {
    const bad = await post('/v1/logs', '{"resourceLogs": 3}', 'json');
    expect(bad.statusCode).toBe(400);
    expect(JSON.parse(bad.body).message).toContain('resourceLogs must be an array');
    const cut = await post('/v1/logs', Buffer.from([0x0a, 0x10, 0x01]), 'protobuf');
    expect(cut.statusCode).toBe(400);
    const anonymous = await app.inject({ method: 'POST', url: '/v1/logs', headers: { 'content-type': 'application/json' }, payload: '{}' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('redacts the records as spans are (a key in a message body, a secret-named attribute)', async () => {
    const f = load('openai');
    const first = records(f.logs)[0] as Json;
    const record = {
      ...first,
      body: { kvlistValue: { values: [{ key: 'content', value: { stringValue: 'use key sk-proj-abcdefghijklmnopqrstuvwx123 please' } }] } },
      attributes: [...(first.attributes as Json[]), { key: 'api_key', value: { stringValue: 'hunter2hunter2' } }],
    };
    expect((await postLogs({ resourceLogs: [{ scopeLogs: [{ logRecords: [record] }] }] })).statusCode).toBe(200);
    const [row] = await events([first.traceId as string]);
    expect(JSON.stringify(row?.body)).not.toContain('sk-proj-abcdefghijklmnopqrstuvwx123');
    expect(JSON.stringify(row?.body)).toContain('[REDACTED:');
    expect(row?.attributes.api_key).not.toBe('hunter2hunter2');
  });
});

describe('the limits /v1/traces has', () => {
  it('413 for a body over the limit once inflated, 429 past the key rate limit: nothing stored', async () => {
    const own = await setupApp(env, { maxBodyBytes: 64 * 1024, rateLimitPerSecond: 0.001, rateLimitBurst: 2 });
    try {
      const f = load('openai');
      const first = records(f.logs)[0] as Json;
      const big = { ...first, body: { kvlistValue: { values: [{ key: 'content', value: { stringValue: 'x'.repeat(100 * 1024) } }] } } };
      const send = (payload: Buffer) =>
        own.inject({
          method: 'POST',
          url: '/v1/logs',
          headers: { authorization: `Bearer ${env.key}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
          payload,
        });
      const tooBig = await send(gzipSync(JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [big] }] }] })));
      expect(tooBig.statusCode).toBe(413);
      expect((await send(gzipSync(JSON.stringify(f.logs)))).statusCode).toBe(200);
      const limited = await send(gzipSync(JSON.stringify(f.logs)));
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['retry-after']).toBeDefined();
      expect(await events(f.traceIds)).toHaveLength(8);
    } finally {
      await own.close();
    }
  });
});

describe('the semconv 1.37 operation-details event', () => {
  it('is kept by its LogRecord event_name field, with its structured gen_ai.input.messages / gen_ai.output.messages', async () => {
    const f = load('details');
    expect((await postLogs(f.logs, 'protobuf')).statusCode).toBe(200);
    expect((await postSpans(f, 'protobuf')).statusCode).toBe(200);
    const [row, ...rest] = await events(f.traceIds);
    expect(rest).toEqual([]);
    expect(row?.event_name).toBe('gen_ai.client.inference.operation.details');
    expect(await modelCallSpans(f.sessionId)).toEqual([row?.span_id]);
    expect(row?.attributes['gen_ai.input.messages']).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'Will it rain in Nantes tomorrow?' }] }]);
    expect(row?.attributes['gen_ai.output.messages']).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'call_forecast_7', name: 'forecast', arguments: { city: 'Nantes', day: 'tomorrow' } }],
        finish_reason: 'tool_call',
      },
    ]);
  });
});

describe('the operation-details event with its messages as JSON text', () => {
  it('stores the messages and system instructions as arrays (the replay prepends instructions to arrays only), its key from what was sent', async () => {
    const f = load('details');
    const instructions = [{ type: 'text', content: 'You are a weather assistant. Answer in one sentence.' }];
    const input = [{ role: 'user', parts: [{ type: 'text', content: 'Will it rain in Nantes tomorrow?' }] }];
    const [record] = records(f.logs);
    const attributes = (record as { attributes: { key: string; value: Json }[] }).attributes;
    for (const a of attributes) {
      if (a.key === 'gen_ai.system_instructions') a.value = { stringValue: JSON.stringify(instructions) };
      if (a.key === 'gen_ai.input.messages') a.value = { stringValue: ` ${JSON.stringify(input)}` };
    }
    attributes.push({ key: 'gen_ai.output.messages', value: { stringValue: '[not json' } });
    expect((await postLogs(f.logs)).statusCode).toBe(200);
    expect((await postLogs(f.logs)).statusCode).toBe(200);
    const [row, ...rest] = await events(f.traceIds);
    expect(rest).toEqual([]);
    expect(row?.attributes['gen_ai.system_instructions']).toEqual(instructions);
    expect(row?.attributes['gen_ai.input.messages']).toEqual(input);
    // Text that is no JSON array stays as it was sent.
    expect(row?.attributes['gen_ai.output.messages']).toBe('[not json');
  });
});

describe('lifecycle', () => {
  const count = async (traceIds: string[], projectId = env.projectId) =>
    (await env.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM genai_events WHERE project_id = $1 AND trace_id = ANY($2)', [projectId, traceIds]))
      .rows[0]?.n;

  it('the sampling sweep deletes the events of a session it drops, not those of a session it keeps', async () => {
    const dropped = load('openai');
    const kept = load('details');
    for (const f of [dropped, kept]) {
      expect((await postSpans(f)).statusCode).toBe(200);
      expect((await postLogs(f.logs)).statusCode).toBe(200);
    }
    // Held at weight 0 (every process would drop it) and quiet for its wait.
    await env.sql.query(`UPDATE sessions SET sampling_weight = 0, updated_at = now() - interval '1 hour' WHERE project_id = $1 AND id = $2`, [
      env.projectId,
      dropped.sessionId,
    ]);
    expect(await count(dropped.traceIds)).toBe(8);
    expect(await sweepHeldSessions(env.sql, { decisionWaitMs: 60_000 })).toBe(1);
    expect(await count(dropped.traceIds)).toBe(0);
    expect(await count(kept.traceIds)).toBe(1);
  });

  it("retention deletes them with their project's spans' age, and a project's deletion removes them", async () => {
    const db = await setupDatabase();
    const own = await setupApp(db);
    try {
      const old = load('openai');
      const recent = load('details', 40 * 86_400_000);
      const orphan = load('details');
      const send = (url: '/v1/traces' | '/v1/logs', body: Json) =>
        own.inject({ method: 'POST', url, headers: { authorization: `Bearer ${db.key}`, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
      for (const f of [old, recent]) {
        expect((await send('/v1/traces', f.spans)).statusCode).toBe(200);
        expect((await send('/v1/logs', f.logs)).statusCode).toBe(200);
      }
      // Events whose spans never came.
      expect((await send('/v1/logs', orphan.logs)).statusCode).toBe(200);
      const n = async (f: Fixture) =>
        (await db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM genai_events WHERE trace_id = ANY($1)', [f.traceIds])).rows[0]?.n;
      // Ten days after the old session, with a retention of 5 days: the recent one (40 days later) stays.
      const oldStart = BigInt(((old.spans.resourceSpans as Json[])[0] as { scopeSpans: { spans: Json[] }[] }).scopeSpans[0]?.spans[0]?.startTimeUnixNano as string);
      const now = new Date(Number(oldStart / 1_000_000n) + 10 * 86_400_000);
      const report = await applyRetention(db.db.url, { now, defaultDays: 5 });
      expect(report.deletedSessions).toBe(1);
      expect([await n(old), await n(orphan), await n(recent)]).toEqual([0, 0, 1]);

      const prisma = createPrisma(db.db.url, { max: 1 });
      try {
        expect(await deleteProject(prisma, db.projectId)).toBe(true);
      } finally {
        await prisma.$disconnect();
      }
      expect(await n(recent)).toBe(0);
    } finally {
      await own.close();
      await db.close();
    }
  });
});

describe('GET /v1/sessions/{id}/logs: a session exported with its GenAI events', () => {
  const get = (url: string, key: string | null = env.key) => app.inject({ method: 'GET', url, headers: key ? { authorization: `Bearer ${key}` } : {} });
  const storedEvents = async (projectId: string, traceIds: string[]) =>
    (
      await env.sql.query(
        `SELECT trace_id, span_id, event_name, time_unix_nano::text AS ns, body, attributes, scope_name FROM genai_events
         WHERE project_id = $1 AND trace_id = ANY($2) ORDER BY trace_id, span_id, time_unix_nano, seq`,
        [projectId, traceIds],
      )
    ).rows;

  it('imports into another project with the spans export: the same events, and the same document exported again', async () => {
    const f = load('openai');
    expect((await postLogs(f.logs, 'protobuf')).statusCode).toBe(200);
    expect((await postSpans(f)).statusCode).toBe(200);
    const spansDoc = await get(`/v1/sessions/${encodeURIComponent(f.sessionId)}`);
    const logsDoc = await get(`/v1/sessions/${encodeURIComponent(f.sessionId)}/logs`);
    expect(logsDoc.statusCode).toBe(200);
    expect(logsDoc.headers['content-disposition']).toMatch(/\.logs\.otlp\.json"$/);
    const doc = JSON.parse(logsDoc.body) as Json;
    // every event of the session's model calls (in time, then arrival order: the replay's)
    const names = (rs: Json[]) => rs.map((r) => r.eventName ?? (r.attributes as { value: { stringValue: string } }[])[0]?.value.stringValue).sort();
    expect(names(records(doc))).toEqual(names(records(f.logs)));

    const projectB = await env.newProject();
    const { key: keyB } = await env.newKey(projectB);
    expect((await post('/v1/traces', spansDoc.body, 'json', {}, keyB)).statusCode).toBe(200);
    const imported = await post('/v1/logs', logsDoc.body, 'json', {}, keyB);
    expect(imported.statusCode).toBe(200);
    expect(JSON.parse(imported.body)).toEqual({});
    const a = await storedEvents(env.projectId, f.traceIds);
    expect(a).toHaveLength(8);
    expect(await storedEvents(projectB, f.traceIds)).toEqual(a);
    const again = await get(`/v1/sessions/${encodeURIComponent(f.sessionId)}/logs`, keyB);
    expect(JSON.parse(again.body)).toEqual(doc);
  });

  it('answers an empty document for a session without events, 404 for one not stored or of another project, 401 without a key', async () => {
    const f = load('openai');
    expect((await postSpans(f)).statusCode).toBe(200);
    const empty = await get(`/v1/sessions/${encodeURIComponent(f.sessionId)}/logs`);
    expect(empty.statusCode).toBe(200);
    expect(JSON.parse(empty.body)).toEqual({ resourceLogs: [] });
    expect((await get(`/v1/sessions/nope_${hex(4)}/logs`)).statusCode).toBe(404);
    const projectB = await env.newProject();
    const { key: keyB } = await env.newKey(projectB);
    expect((await get(`/v1/sessions/${encodeURIComponent(f.sessionId)}/logs`, keyB)).statusCode).toBe(404);
    expect((await get(`/v1/sessions/${encodeURIComponent(f.sessionId)}/logs`, null)).statusCode).toBe(401);
  });
});
