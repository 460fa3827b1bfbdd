/**
 * Guard regression replay end to end on what users record: sessions through the real SDK, its
 * OTLP exporter and the real collector on Postgres, a dataset made from an explorer query
 * (`POST /v1/datasets`), streamed back as NDJSON (`GET /v1/datasets/{id}`) and replayed with
 * `@guardtrace/sdk/replay` through the very same tools: every call the tools decide as they did
 * must come back `unchanged`, and one the recording cannot reproduce `not_replayed`, saying why.
 */
import { Guardtrace, predicate } from '@guardtrace/sdk';
import { replayDataset } from '@guardtrace/sdk/replay';
import { setupGuardtrace } from '@guardtrace/sdk/setup';
import type { DatasetItem } from '@guardtrace/semconv';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Env, setupApp, setupDatabase } from './helpers.ts';

let env: Env;
let app: FastifyInstance;
let endpoint: string;

beforeAll(async () => {
  env = await setupDatabase();
  app = await setupApp(env);
  endpoint = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});

/** The user's tools module, as production and the replay both register it. */
function tools(gt: Guardtrace): Guardtrace {
  gt.tool({
    name: 'read_file', description: 'Read a file', flags: { readOnly: true },
    schema: z.strictObject({ path: z.string() }),
    execute: (a) => `contents of ${a.path}`,
  });
  // keys in an order Postgres' jsonb does not keep (it stores shorter keys first)
  gt.tool({
    name: 'create_invoice', description: 'Create an invoice', flags: { external: true },
    schema: z.strictObject({ customer: z.string().min(1), amount: z.number().positive() }),
    guards: [predicate<{ amount: number }>({ name: 'amount_limit', test: (a) => a.amount <= 5000, message: 'over the limit', pointers: ['/amount'] })],
    execute: () => 'inv_1',
  });
  gt.tool({
    name: 'fetch_url', description: 'Fetch a URL', flags: { readOnly: true, idempotent: true },
    schema: z.strictObject({ url: z.string() }),
    execute: () => 'ok',
  });
  return gt;
}

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(`${endpoint}${path}`, {
    method,
    headers: { authorization: `Bearer ${env.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

async function datasetOf(query: string): Promise<DatasetItem[]> {
  const made = await call('POST', '/v1/datasets', { name: query, query });
  expect(made.status, made.text).toBe(201);
  const got = await call('GET', `/v1/datasets/${(JSON.parse(made.text) as { id: string }).id}`);
  expect(got.status).toBe(200);
  return got.text.trim().split('\n').map((l) => JSON.parse(l) as DatasetItem);
}

describe('a dataset replayed through the tools that recorded it', () => {
  it('reproduces every decision: key order, an unknown tool name corrected in code or by the model, JSON the model broke', async () => {
    const otel = setupGuardtrace({ endpoint, apiKey: env.key, serviceName: 'replay-roundtrip', register: false, flushOnExit: false, shutdownTimeoutMillis: 30_000 });
    const gt = tools(new Guardtrace({ tracer: otel.tracer }));
    const s = gt.session({ id: 'sess_roundtrip', agentName: 'roundtrip' });
    // a schema rejection whose feedback echoes the arguments as the model sent them
    expect(await s.callTool('create_invoice', { customer: 'acme', amount: -5 })).toMatchObject({ ok: false, failureClass: 'invalid_arguments' });
    expect(await s.callTool('create_invoice', { customer: 'acme', amount: 9000 })).toMatchObject({ ok: false, failureClass: 'guard_violation' });
    // an unknown tool name the SDK corrects in code: attempt 1 named `reed_file`
    expect(await s.callTool('reed_file', { path: 'a.ts' })).toMatchObject({ ok: true, tool: 'read_file' });
    // arguments that are not JSON at all: the model's own mistake, recorded as it sent them
    expect(await s.callTool('fetch_url', '{"url": "https://example.com", }')).toMatchObject({ ok: false, failureClass: 'invalid_arguments' });
    await s.end();
    // an unknown tool name the model corrects (no auto-repair): attempt 1 `fetch_uri`, attempt 2 `fetch_url`
    const strict = tools(new Guardtrace({ tracer: otel.tracer, autoRepair: false }));
    const m = strict.session({ id: 'sess_roundtrip_model', agentName: 'roundtrip' });
    const call1 = m.toolCall('fetch_uri');
    expect(await call1.attempt({ url: 'https://example.com' })).toMatchObject({ ok: false, failureClass: 'unknown_tool' });
    expect(await call1.attempt({ url: 'https://example.com' }, { tool: 'fetch_url' })).toMatchObject({ ok: true });
    await m.end();
    await otel.shutdown();

    const items = await datasetOf('agent:roundtrip');
    // the second invoice call is the model's correction of the first: attempt 2 of one call
    expect(items.map((i) => [i.tool, i.attempts.length])).toEqual([['create_invoice', 2], ['read_file', 2], ['fetch_url', 1], ['fetch_url', 2]]);
    // each session replayed through the Guardtrace instance that recorded it (auto-repair on, off)
    const replay = (gt: Guardtrace, session: string) => replayDataset(gt, items.filter((i) => i.sessionId === session));
    for (const report of [await replay(tools(new Guardtrace({ tracing: false })), 'sess_roundtrip'), await replay(tools(new Guardtrace({ tracing: false, autoRepair: false })), 'sess_roundtrip_model')]) {
      const changed = report.results.map((r) => `${r.tool} #${r.attempt} ${r.change}: ${r.error ?? `${r.recorded.feedback} → ${r.now?.feedback}`}`);
      expect(changed).toEqual([]);
      expect(report.summary.unchanged).toBe(report.summary.attempts);
    }
    expect(items.flatMap((i) => i.attempts.map((a) => a.tool))).toEqual(['create_invoice', 'create_invoice', 'reed_file', 'read_file', 'fetch_url', 'fetch_uri', 'fetch_url']);
  });

  it('a dataset of one tool\'s calls: a rejection the session\'s budget escalated is not replayed as changed feedback, saying why', async () => {
    const otel = setupGuardtrace({ endpoint, apiKey: env.key, serviceName: 'replay-roundtrip', register: false, flushOnExit: false, shutdownTimeoutMillis: 30_000 });
    const gt = tools(new Guardtrace({ tracer: otel.tracer }));
    const s = gt.session({ id: 'sess_roundtrip_budget', agentName: 'roundtrip-budget' });
    // two rejections of read_file calls spend the task's rejection budget (2): the invoice's escalates
    await s.callTool('read_file', { path: 1 }, { intentId: 'a' });
    await s.callTool('read_file', { path: 2 }, { intentId: 'b' });
    expect(await s.callTool('create_invoice', { customer: 'acme', amount: -5 }, { intentId: 'c' })).toMatchObject({ ok: false, decision: 'escalate_human' });
    await s.end();
    await otel.shutdown();

    const items = await datasetOf('agent:roundtrip-budget tool:create_invoice');
    expect(items.map((i) => i.attempts.map((a) => a.budgetExhausted))).toEqual([['rejections_per_task']]);
    const report = await replayDataset(tools(new Guardtrace({ tracing: false })), items);
    expect(report.summary).toMatchObject({ calls: 1, attempts: 1, not_replayed: 1, feedback_changed: 0 });
    expect(report.results[0]?.error).toMatch(/^escalated when recorded because the session ran out of its rejections_per_task budget, which the session's other calls spent/);
    // the whole session: the budget runs out as it did
    const whole = await replayDataset(tools(new Guardtrace({ tracing: false })), await datasetOf('agent:roundtrip-budget'));
    expect(whole.summary).toMatchObject({ calls: 3, attempts: 3, unchanged: 3 });
  });

  it('does not replay arguments the SDK redacted before sending them, and says so', async () => {
    const otel = setupGuardtrace({ endpoint, apiKey: env.key, serviceName: 'replay-roundtrip', register: false, flushOnExit: false, shutdownTimeoutMillis: 30_000 });
    const gt = tools(new Guardtrace({ tracer: otel.tracer }));
    const s = gt.session({ id: 'sess_roundtrip_secret', agentName: 'roundtrip-secret' });
    expect(await s.callTool('fetch_url', { url: 'https://example.com/?token=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD' })).toMatchObject({ ok: true });
    await s.end();
    await otel.shutdown();

    const [item] = await datasetOf('agent:roundtrip-secret');
    // what the SDK sent is not what the model wrote: the secret is replaced by the SDK's marker
    expect(JSON.stringify(item?.attempts[0]?.arguments)).toContain('[REDACTED');
    expect(item?.attempts[0]?.argumentsInexact).toBe(true);
    const report = await replayDataset(tools(new Guardtrace({ tracing: false })), [item as DatasetItem]);
    expect(report.summary).toMatchObject({ calls: 1, attempts: 1, not_replayed: 1 });
    expect(report.results[0]?.error).toMatch(/redacted/);
  });
});
