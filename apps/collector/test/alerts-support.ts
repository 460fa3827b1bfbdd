/**
 * The alerts tests' parts: a real HTTP receiver on a port the system picks (it verifies each
 * webhook's signature with node:crypto, as docs/production.md tells a receiver to), agent
 * sessions with failures at fixed times, rules written as the web writes them, and the fixture
 * every alerts test file starts with (useAlertFixture).
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { measure, type QueryRows, type RuleRow, worstSession } from '@guardtrace/db/alerts';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { type Env, hex, jsonRequest, jsonSpan, setupApp, setupDatabase } from './helpers.ts';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  /** The signature matched the secret over `${timestamp}.${body}`. */
  verified: boolean;
  status: number;
}

export interface Receiver {
  url: string;
  got: Received[];
  /** Answer 500 to the next n requests. */
  failNext(n: number): void;
  /** Answer the next request `ms` late. */
  delayNext(ms: number): void;
  close(): Promise<void>;
}

/** A webhook receiver checking signatures with `secret`. */
export async function startReceiver(secret: string): Promise<Receiver> {
  const got: Received[] = [];
  let failing = 0;
  let delay = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const ts = String(req.headers['x-guardtrace-timestamp'] ?? '');
      const sig = String(req.headers['x-guardtrace-signature'] ?? '');
      const expected = `sha256=${createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')}`;
      const verified = sig.length === expected.length && timingSafeEqual(Buffer.from(sig), Buffer.from(expected));
      const status = failing > 0 ? 500 : 200;
      if (failing > 0) failing--;
      got.push({ headers: req.headers, body, json: JSON.parse(body) as Record<string, unknown>, verified, status });
      const wait = delay;
      delay = 0;
      setTimeout(() => res.writeHead(status).end(status === 200 ? 'ok' : 'receiver down'), wait);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${addr.port}/hook`,
    got,
    failNext: (n) => {
      failing = n;
    },
    delayNext: (ms) => {
      delay = ms;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface AttemptSpec {
  cls?: string;
  decision?: string;
  exhausted?: string;
  /** A repair turn answering this attempt, with its model and tokens, `afterMs` after it (default 100). */
  repair?: { model: string; input: number; output: number; afterMs?: number; cached?: number };
}

/**
 * One session at `startMs`: one call of `tool` whose attempts are `failures` (failed, in order)
 * then a success unless `endsFailed`. Each attempt `gapMs` (default 1 s) after the previous.
 */
export function failingSession(opts: { startMs: number; tool: string; failures: AttemptSpec[]; endsFailed?: boolean; sessionId?: string; gapMs?: number }) {
  const traceId = hex(16);
  const sessionId = opts.sessionId ?? `sess_${hex(6)}`;
  const c = { 'gen_ai.conversation.id': sessionId };
  const root = hex(8);
  const call = hex(8);
  const spans = [
    jsonSpan({ traceId, spanId: root, name: 'invoke_agent a', startMs: opts.startMs, durMs: 60_000, attrs: { ...c, 'gen_ai.operation.name': 'invoke_agent' } }),
    jsonSpan({
      traceId,
      spanId: call,
      parentSpanId: root,
      name: `execute_tool ${opts.tool}`,
      startMs: opts.startMs + 1,
      durMs: 50_000,
      attrs: { ...c, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': opts.tool, 'guardtrace.outcome': opts.endsFailed ? 'failed' : 'success' },
    }),
  ];
  let at = opts.startMs + 10;
  let n = 0;
  for (const f of opts.failures) {
    n++;
    const id = hex(8);
    spans.push(
      jsonSpan({
        traceId,
        spanId: id,
        parentSpanId: call,
        name: 'guardtrace.attempt',
        startMs: at,
        attrs: {
          ...c,
          'gen_ai.operation.name': 'guardtrace.attempt',
          'guardtrace.attempt': n,
          'guardtrace.outcome': 'failed',
          'guardtrace.failure.class': f.cls ?? 'transient',
          'guardtrace.decision': f.decision ?? 'reject_with_feedback',
          'guardtrace.feedback': 'try again',
          ...(f.exhausted ? { 'guardtrace.budget.exhausted': f.exhausted } : {}),
        },
      }),
    );
    if (f.repair) {
      spans.push(
        jsonSpan({
          traceId,
          parentSpanId: root,
          name: `chat ${f.repair.model}`,
          startMs: at + (f.repair.afterMs ?? 100),
          attrs: {
            ...c,
            'gen_ai.operation.name': 'chat',
            'gen_ai.request.model': f.repair.model,
            'gen_ai.usage.input_tokens': f.repair.input,
            'gen_ai.usage.output_tokens': f.repair.output,
            ...(f.repair.cached !== undefined ? { 'gen_ai.usage.cache_read.input_tokens': f.repair.cached } : {}),
            'guardtrace.repair.attempt_span_id': id,
          },
        }),
      );
    }
    at += opts.gapMs ?? 1000;
  }
  if (!opts.endsFailed) {
    spans.push(
      jsonSpan({
        traceId,
        parentSpanId: call,
        name: 'guardtrace.attempt',
        startMs: at,
        attrs: { ...c, 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': n + 1, 'guardtrace.outcome': 'success' },
      }),
    );
  }
  return { sessionId, spans };
}

export interface RuleSpec {
  projectId: string;
  kind: string;
  url: string;
  secret: string;
  failureClass?: string | null;
  toolName?: string | null;
  windowMinutes?: number;
  comparison?: string;
  threshold?: number;
  format?: string;
  muted?: boolean;
}

/** A rule row, as Settings > Alerts stores one. */
export async function createRule(sql: pg.Pool, r: RuleSpec): Promise<string> {
  const id = randomUUID();
  await sql.query(
    `INSERT INTO alert_rules (id, project_id, name, kind, failure_class, tool_name, window_minutes, comparison, threshold, webhook_url, format, secret, muted)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      id,
      r.projectId,
      `rule ${r.kind}`,
      r.kind,
      r.failureClass ?? null,
      r.toolName ?? null,
      r.windowMinutes ?? 5,
      r.comparison ?? 'gte',
      r.threshold ?? 0,
      r.url,
      r.format ?? 'generic',
      r.secret,
      r.muted ?? false,
    ],
  );
  return id;
}

/** The stored events of a rule, oldest first. */
export async function eventsOf(sql: pg.Pool, ruleId: string) {
  const { rows } = await sql.query<{ kind: string; subject: string; value: number; at: Date }>(
    'SELECT kind, subject, value, at FROM alert_events WHERE rule_id = $1 ORDER BY at, kind',
    [ruleId],
  );
  return rows;
}

/** The alerts tests' fixed clock: sessions start at T0, evaluations run at at(minutes). */
export const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);
export const at = (minutes: number) => new Date(T0 + minutes * 60_000);
/** Where the alerts' links point. */
export const WEB = 'https://guardtrace.example.com';

export interface AlertFixture {
  /** The database and its default project (ready in beforeAll). */
  readonly env: Env;
  /** The webhook receiver, checking signatures with the fixture's secret. */
  readonly receiver: Receiver;
  /** Sends spans to the collector over real HTTP as OTLP/JSON (200 expected). */
  send(spans: Record<string, unknown>[], key?: string): Promise<void>;
  /** A new project and a key of it. */
  newProjectKey(): Promise<{ projectId: string; key: string }>;
  /** A rule as the evaluator reads it (its row; its webhook the receiver), for measure() and worstSession() called directly. */
  rule(projectId: string, kind: string, over?: Partial<RuleRow>): RuleRow;
  /** What a rule measures at `now`, with the session an event sent now would link to. */
  measured(r: RuleRow, now: Date, subject?: string): Promise<{ value: number | undefined; worst: string | null }>;
}

/**
 * A database with its month's partitions, the collector listening on a free port, and a receiver;
 * each test's rules deleted after it (a tick evaluates every project's rules); all closed after the file.
 */
export function useAlertFixture(secret: string): AlertFixture {
  let env: Env | undefined;
  let app: FastifyInstance | undefined;
  let url = '';
  let receiver: Receiver | undefined;
  beforeAll(async () => {
    env = await setupDatabase({ partitions: new Date('2026-11-30T00:00:00Z') });
    app = await setupApp(env);
    url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/v1/traces`;
    receiver = await startReceiver(secret);
  });
  afterEach(async () => {
    await env?.sql.query('DELETE FROM alert_rules');
  });
  afterAll(async () => {
    await receiver?.close();
    await app?.close();
    await env?.close();
  });
  const ready = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('the alerts fixture is not started (used outside a test?)');
    return v;
  };
  const q: QueryRows = async <T>(text: string, values: unknown[]) => (await ready(env).sql.query(text, values)).rows as T[];
  return {
    get env() {
      return ready(env);
    },
    get receiver() {
      return ready(receiver);
    },
    async send(spans, key) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key ?? ready(env).key}` },
        body: JSON.stringify(jsonRequest(spans)),
      });
      expect(res.status, await res.text()).toBe(200);
    },
    async newProjectKey() {
      const projectId = await ready(env).newProject();
      return { projectId, key: (await ready(env).newKey(projectId)).key };
    },
    rule: (projectId, kind, over = {}) => ({
      id: '00000000-0000-4000-8000-000000000000',
      project_id: projectId,
      name: kind,
      kind: kind as RuleRow['kind'],
      failure_class: null,
      tool_name: null,
      window_minutes: 5,
      comparison: 'gte',
      threshold: 0,
      webhook_url: ready(receiver).url,
      format: 'generic',
      muted: false,
      ...over,
    }),
    async measured(r, now, subject = '') {
      const m = (await measure(q, r, now)).get(subject);
      return { value: m?.value, worst: m && m.value > 0 ? await worstSession(q, r, subject, now) : null };
    },
  };
}

