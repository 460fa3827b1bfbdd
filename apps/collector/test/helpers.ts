/** Test factories: a migrated throwaway database with a project and key, and OTLP payloads. */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApiKey, createPrisma, createProject } from '@guardtrace/db';
import { createTestDatabase, type TestDatabase } from '@guardtrace/db/dev';
import pg from 'pg';
import { type AppOptions, buildApp } from '../src/app.ts';
import { encodeRequestProtobuf } from './otlp-reference.ts';

export interface Env {
  db: TestDatabase;
  sql: pg.Pool;
  projectId: string;
  key: string;
  newKey(projectId?: string): Promise<{ key: string; id: string; projectId: string }>;
  newProject(): Promise<string>;
  close(): Promise<void>;
}

/** `partitions`: the date whose monthly span partitions are made (default: the clock's now). */
export async function setupDatabase(opts: { partitions?: Date } = {}): Promise<Env> {
  const db = await createTestDatabase({ partitions: opts.partitions });
  const prisma = createPrisma(db.url, { max: 2 });
  const sql = new pg.Pool({ connectionString: db.url, max: 2 });
  sql.on('error', () => {});
  const newProject = async () => (await createProject(prisma, `p-${randomBytes(3).toString('hex')}`)).id;
  const projectId = await newProject();
  const newKey = async (pid = projectId) => createApiKey(prisma, pid, 'test');
  const { key } = await newKey();
  return {
    db,
    sql,
    projectId,
    key,
    newKey,
    newProject,
    close: async () => {
      await prisma.$disconnect().catch(() => {});
      await sql.end().catch(() => {});
      await db.close();
    },
  };
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsx = createRequire(import.meta.url).resolve('tsx');

/**
 * The collector as a process of its own (`node --import tsx src/main.ts`, so SIGKILL really
 * kills it; with `built`, the production build `dist/main.js` as its start script runs it, or
 * the build at `main`) on
 * `port` (0: one the system picks), with `env` over the defaults; resolves with its URL once it listens.
 */
export async function startCollectorProcess(
  databaseUrl: string,
  port = 0,
  opts: { built?: boolean; main?: string; env?: Record<string, string> } = {},
): Promise<{ proc: ChildProcess; url: string }> {
  const built = opts.main ?? (opts.built ? 'dist/main.js' : null);
  const args = built !== null ? ['--max-semi-space-size=64', built] : ['--import', tsx, 'src/main.ts'];
  const proc = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error', COLLECTOR_RATE_LIMIT_RPS: '0', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stderr?.on('data', (d) => {
    err += String(d);
  });
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout?.on('data', (d) => {
      out += String(d);
      const m = /collector listening on (\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    proc.once('exit', (code) => reject(new Error(`collector exited (${code}): ${err}`)));
  });
  return { proc, url };
}

export async function setupApp(env: Env, opts: Partial<AppOptions> = {}) {
  return buildApp({ databaseUrl: env.db.url, ...opts });
}

export const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** A seeded generator (mulberry32): the same sequence in every run. */
export function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Val = string | number | boolean | Val[] | { [k: string]: Val };

/** OTLP JSON AnyValue of a JS value (ints as JSON numbers, like the OTel JS exporter). */
function anyValue(v: Val): object {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { intValue: v } : { doubleValue: v };
  if (Array.isArray(v)) return { arrayValue: { values: v.map(anyValue) } };
  return { kvlistValue: { values: Object.entries(v).map(([key, x]) => ({ key, value: anyValue(x) })) } };
}

export function kvs(attrs: Record<string, Val>): object[] {
  return Object.entries(attrs).map(([key, value]) => ({ key, value: anyValue(value) }));
}

export interface SpanSpec {
  traceId: string;
  spanId?: string;
  parentSpanId?: string;
  name: string;
  attrs?: Record<string, Val>;
  startMs?: number;
  durMs?: number;
  status?: number;
}

let clock = Date.UTC(2026, 10, 30, 12, 0, 0);

/** One OTLP JSON span; ids hex, times as strings of nanoseconds. */
export function jsonSpan(s: SpanSpec): Record<string, unknown> {
  clock += 3;
  const start = BigInt(s.startMs ?? clock) * 1_000_000n + 123n;
  const end = start + BigInt(Math.round((s.durMs ?? 2) * 1e6));
  return {
    traceId: s.traceId,
    spanId: s.spanId ?? hex(8),
    parentSpanId: s.parentSpanId ?? '',
    name: s.name,
    kind: 1,
    startTimeUnixNano: start.toString(),
    endTimeUnixNano: end.toString(),
    attributes: kvs(s.attrs ?? {}),
    status: { code: s.status ?? 0 },
  };
}

export function jsonRequest(spans: Record<string, unknown>[], service = 'test-agent'): Record<string, unknown> {
  return {
    resourceSpans: [
      {
        resource: { attributes: kvs({ 'service.name': service }) },
        scopeSpans: [{ scope: { name: 'guardtrace', version: '0.1.0' }, spans }],
      },
    ],
  };
}

/** The same request as protobuf bytes (hex ids -> bytes). */
export function protobufRequest(json: Record<string, unknown>): Buffer {
  const conv = (o: unknown): unknown => {
    if (Array.isArray(o)) return o.map(conv);
    if (o && typeof o === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(o)) {
        if ((k === 'traceId' || k === 'spanId' || k === 'parentSpanId') && typeof v === 'string') {
          out[k] = Buffer.from(v, 'hex');
        } else out[k] = conv(v);
      }
      return out;
    }
    return o;
  };
  return encodeRequestProtobuf(conv(json));
}

/** A Guardtrace SDK-shaped session: root, a model call, a tool call with 2 attempts and guards. */
export function sdkSession(opts: { sessionId?: string; traceId?: string; conv?: boolean } = {}) {
  const traceId = opts.traceId ?? hex(16);
  const sessionId = opts.sessionId ?? `sess_${hex(6)}`;
  const c: Record<string, Val> = opts.conv === false ? {} : { 'gen_ai.conversation.id': sessionId };
  const root = hex(8);
  const chat = hex(8);
  const tool = hex(8);
  const a1 = hex(8);
  const a2 = hex(8);
  const repair = hex(8);
  const spans = [
    jsonSpan({
      traceId,
      spanId: root,
      name: 'invoke_agent invoice-agent',
      attrs: { ...c, 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'invoice-agent', 'guardtrace.session.outcome': 'success' },
    }),
    jsonSpan({
      traceId,
      spanId: chat,
      parentSpanId: root,
      name: 'chat gpt-4.1-mini',
      attrs: { ...c, 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4.1-mini', 'gen_ai.usage.input_tokens': 4000, 'gen_ai.usage.output_tokens': 120 },
    }),
    jsonSpan({
      traceId,
      spanId: tool,
      parentSpanId: root,
      name: 'execute_tool write_file',
      attrs: {
        ...c,
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'write_file',
        'gen_ai.tool.call.id': 'call_1',
        'guardtrace.tool.idempotent': true,
        'guardtrace.tool.read_only': false,
        'guardtrace.idempotency_key': 'idk_1',
        'guardtrace.outcome': 'success',
        'guardtrace.attempt': 2,
      },
    }),
    jsonSpan({
      traceId,
      spanId: a1,
      parentSpanId: tool,
      name: 'guardtrace.attempt',
      attrs: {
        ...c,
        'gen_ai.operation.name': 'guardtrace.attempt',
        'guardtrace.attempt': 1,
        'gen_ai.tool.call.arguments': '{"file":"a.ts"}',
        'guardtrace.outcome': 'rejected',
        'guardtrace.failure.class': 'invalid_arguments',
        'guardtrace.decision': 'reject_with_feedback',
        'guardtrace.feedback': 'Missing required field "content"',
        'guardtrace.budget.attempts_left': 1,
      },
    }),
    jsonSpan({
      traceId,
      parentSpanId: a1,
      name: 'apply_guardrail schema',
      attrs: {
        ...c,
        'gen_ai.operation.name': 'apply_guardrail',
        'gen_ai.guardrail.name': 'schema',
        'gen_ai.guardrail.verdict': 'fail',
        'gen_ai.guardrail.reason': 'content: Required',
        'guardtrace.guard.stage': 'schema',
        'guardtrace.guard.duration_us': 14,
        'guardtrace.failure.class': 'invalid_arguments',
      },
    }),
    jsonSpan({
      traceId,
      spanId: repair,
      parentSpanId: root,
      name: 'chat gpt-4.1-mini',
      attrs: {
        ...c,
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4.1-mini',
        'gen_ai.usage.input_tokens': 4200,
        'gen_ai.usage.output_tokens': 80,
        'guardtrace.repair.attempt_span_id': a1,
        'guardtrace.repair.failure_class': 'invalid_arguments',
      },
    }),
    jsonSpan({
      traceId,
      spanId: a2,
      parentSpanId: tool,
      name: 'guardtrace.attempt',
      attrs: { ...c, 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': 2, 'guardtrace.outcome': 'success', 'guardtrace.decision': 'proceed' },
    }),
    jsonSpan({
      traceId,
      parentSpanId: a2,
      name: 'apply_guardrail schema',
      attrs: { ...c, 'gen_ai.operation.name': 'apply_guardrail', 'gen_ai.guardrail.name': 'schema', 'gen_ai.guardrail.verdict': 'pass', 'guardtrace.guard.stage': 'schema' },
    }),
  ];
  return { traceId, sessionId, spans, ids: { root, chat, tool, a1, a2, repair } };
}

export async function one<T extends pg.QueryResultRow>(sql: pg.Pool, q: string, params: unknown[] = []): Promise<T> {
  const { rows } = await sql.query<T>(q, params);
  return rows[0] as T;
}

/**
 * Another collector's write of one span, held in an open transaction: a writer's COPY of the
 * same span (project, trace and span id) waits on the unique index until `commit()`.
 */
export async function heldSpan(
  sql: pg.Pool,
  span: { projectId: string; traceId: string; spanId: string; sessionId: string; startNs: bigint | undefined },
): Promise<{ commit: () => Promise<void> }> {
  const other = await sql.connect();
  await other.query('BEGIN');
  await other.query(
    `INSERT INTO spans (project_id, start_time, trace_start, trace_id, span_id, session_id, name, start_time_unix_nano, end_time_unix_nano)
     VALUES ($1, timestamptz 'epoch' + ($2::bigint / 1000) * interval '1 microsecond',
       timestamptz 'epoch' + ($2::bigint / 1000) * interval '1 microsecond', $3, $4, $5, 'other', $2, $2)`,
    [span.projectId, span.startNs?.toString(), span.traceId, span.spanId, span.sessionId],
  );
  return {
    commit: async () => {
      await other.query('COMMIT');
      other.release();
    },
  };
}
