/**
 * The harness of the "fixed next" tests (rejection-fixes-*.test.ts): a database and a collector app
 * per test file, raw OTLP posted over real HTTP, a session builder, and the stored repair link of
 * each rejection (attempts.repair_span_id / correction_span_id / fixed, read by the replay) and the
 * analytics parts' fixed counts read back.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import { type Env, hex, jsonRequest, jsonSpan, setupApp, setupDatabase } from './helpers.ts';

/** The file's database and collector (made before its tests, closed after; `ready` gets the database), and what the tests read with them. */
export function rejectionFixesSuite(ready: (env: Env) => void) {
  let env: Env;
  let app: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    env = await setupDatabase({ partitions: new Date('2026-11-30T00:00:00Z') });
    app = await setupApp(env);
    url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/v1/traces`;
    ready(env);
  });
  afterAll(async () => {
    await app?.close();
    await env?.close();
  });

  async function post(spans: Record<string, unknown>[], key: string): Promise<void> {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(jsonRequest(spans)),
    });
    expect(res.status, await res.text()).toBe(200);
  }

  /** The stored link of an attempt. */
  async function link(projectId: string, spanId: string) {
    const { rows } = await env.sql.query(
      `SELECT repair_span_id AS repair, correction_span_id AS corrected, correction_attempt AS attempt, fixed
       FROM attempts WHERE project_id = $1 AND span_id = $2`,
      [projectId, spanId],
    );
    return rows[0];
  }

  /** Rejections and fixed ones per tool and class, from the analytics parts (what the page sums). */
  async function fixedNext(projectId: string): Promise<Record<string, [number, number]>> {
    const { rows } = await env.sql.query(
      `SELECT tool_name || '|' || failure_class AS k, sum(rejections)::int AS r, sum(rejections_fixed)::int AS f
       FROM analytics_session_parts WHERE project_id = $1 AND rejections > 0 GROUP BY 1`,
      [projectId],
    );
    return Object.fromEntries(rows.map((r) => [r.k, [r.r, r.f]]));
  }

  return { post, link, fixedNext };
}

/** One session's spans in the order they start (each span starts 3 ms after the one made before it). */
export class Session {
  readonly traceId = hex(16);
  readonly sessionId = `sess_${hex(6)}`;
  readonly root = hex(8);
  readonly spans: Record<string, unknown>[] = [];
  private readonly conv = { 'gen_ai.conversation.id': this.sessionId };

  constructor() {
    this.spans.push(jsonSpan({ traceId: this.traceId, spanId: this.root, name: 'invoke_agent agent', attrs: { ...this.conv, 'gen_ai.operation.name': 'invoke_agent' } }));
  }

  /** A model turn; `repairs`: the attempt span it repairs (guardtrace.repair.attempt_span_id). */
  chat(repairs?: string): string {
    const spanId = hex(8);
    const repair: Record<string, string> = repairs ? { 'guardtrace.repair.attempt_span_id': repairs, 'guardtrace.repair.failure_class': 'invalid_arguments' } : {};
    this.spans.push(
      jsonSpan({
        traceId: this.traceId,
        spanId,
        parentSpanId: this.root,
        name: 'chat gpt-4.1',
        attrs: { ...this.conv, 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.output_tokens': 10, ...repair },
      }),
    );
    return spanId;
  }

  /** An SDK tool call of one attempt with a new call id: `{ call, attempt }` span ids. */
  sdkCall(tool: string, a: { outcome: string; failureClass?: string; decision: string; feedback?: string }): { call: string; attempt: string } {
    const call = hex(8);
    const attempt = hex(8);
    const callId = `call_${hex(4)}`;
    const failed: Record<string, string> = a.failureClass ? { 'guardtrace.failure.class': a.failureClass, 'guardtrace.feedback': a.feedback ?? '' } : {};
    this.spans.push(
      jsonSpan({
        traceId: this.traceId,
        spanId: call,
        parentSpanId: this.root,
        name: `execute_tool ${tool}`,
        attrs: { ...this.conv, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool, 'gen_ai.tool.call.id': callId, 'guardtrace.outcome': a.outcome },
      }),
      jsonSpan({
        traceId: this.traceId,
        spanId: attempt,
        parentSpanId: call,
        name: 'guardtrace.attempt',
        attrs: {
          ...this.conv,
          'gen_ai.operation.name': 'guardtrace.attempt',
          'gen_ai.tool.call.id': callId,
          'guardtrace.attempt': 1,
          'guardtrace.outcome': a.outcome,
          'guardtrace.decision': a.decision,
          ...failed,
        },
      }),
    );
    return { call, attempt };
  }

  /** A plain OpenTelemetry GenAI execute_tool span (no guardtrace.* attributes), ERROR status when it failed. */
  genAiTool(tool: string, failed: boolean): string {
    const spanId = hex(8);
    this.spans.push(
      jsonSpan({
        traceId: this.traceId,
        spanId,
        parentSpanId: this.root,
        name: `execute_tool ${tool}`,
        attrs: { ...this.conv, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool, 'gen_ai.tool.call.id': `call_${hex(4)}`, ...(failed ? { 'error.type': 'TimeoutError' } : {}) },
        status: failed ? 2 : 0,
      }),
    );
    return spanId;
  }
}

export const rejected = (failureClass: string, feedback: string) => ({ outcome: 'rejected', failureClass, decision: 'reject_with_feedback', feedback });
export const ok = { outcome: 'success', decision: 'proceed' };
