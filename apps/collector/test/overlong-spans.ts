/**
 * Sessions that carry one over-long value (test/overlong*.test.ts): a session of the Guardtrace
 * SDK's shape (agent root, tool call, failed attempt with feedback, the model turn that repairs
 * it, all under one conversation id) with any one of its values replaced, plus plain neighbours
 * up to 51 spans; and a real HTTP client for the listening collector.
 */

import { hex, jsonRequest, jsonSpan, protobufRequest } from './helpers.ts';
import { decodeResponseProtobuf } from './otlp-reference.ts';

type Val = string | number | boolean;

/** The values a session is made of; each test replaces one. */
export interface SessionValues {
  session: string;
  agent: string;
  /** The attribute the user id goes in (guardtrace.user.id, user.id, ai.telemetry.metadata.userId). */
  userKey: string;
  user: string;
  outcome: string;
  /** gen_ai.tool.name of the tool call and its attempt; null: the span name says it (`execute_tool {tool}`). */
  toolAttr: string | null;
  toolSpanName: string;
  failureClass: string;
  feedback: string;
  model: string;
  repairClass: string;
  /** The repair turn names an attempt that is not stored (its class then keys the model rollups alone). */
  repairOrphan: boolean;
}

export function defaultValues(): SessionValues {
  return {
    session: `sess_${hex(6)}`,
    agent: 'invoice-agent',
    userKey: 'user.id',
    user: 'user_42',
    outcome: 'failed',
    toolAttr: 'write_file',
    toolSpanName: 'execute_tool write_file',
    failureClass: 'invalid_arguments',
    feedback: 'Missing required field "content"',
    model: 'gpt-4.1-mini',
    repairClass: 'invalid_arguments',
    repairOrphan: false,
  };
}

/** The session's spans (`span` names the one that carries each value), then plain neighbours up to `total`. */
export function sessionSpans(v: SessionValues, total = 51) {
  const traceId = hex(16);
  const ids = { root: hex(8), tool: hex(8), attempt: hex(8), guard: hex(8), repair: hex(8) };
  // The root names the session; the trace's other spans go where it goes (its trace's session).
  const tool: Record<string, Val> = v.toolAttr === null ? {} : { 'gen_ai.tool.name': v.toolAttr };
  const own = [
    jsonSpan({
      traceId,
      spanId: ids.root,
      name: 'invoke_agent',
      attrs: { 'gen_ai.conversation.id': v.session, 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': v.agent, [v.userKey]: v.user, 'guardtrace.session.outcome': v.outcome },
    }),
    jsonSpan({
      traceId,
      spanId: ids.tool,
      parentSpanId: ids.root,
      name: v.toolSpanName,
      attrs: { ...tool, 'gen_ai.operation.name': 'execute_tool', 'guardtrace.outcome': 'failed', 'guardtrace.attempt': 1 },
    }),
    jsonSpan({
      traceId,
      spanId: ids.attempt,
      parentSpanId: ids.tool,
      name: 'guardtrace.attempt',
      attrs: {
                ...tool,
        'gen_ai.operation.name': 'guardtrace.attempt',
        'guardtrace.attempt': 1,
        'guardtrace.outcome': 'rejected',
        'guardtrace.failure.class': v.failureClass,
        'guardtrace.decision': 'reject_with_feedback',
        'guardtrace.feedback': v.feedback,
      },
    }),
    jsonSpan({
      traceId,
      spanId: ids.guard,
      parentSpanId: ids.attempt,
      name: 'apply_guardrail schema',
      attrs: { 'gen_ai.operation.name': 'apply_guardrail', 'gen_ai.guardrail.name': 'schema', 'gen_ai.guardrail.verdict': 'fail', 'guardtrace.guard.stage': 'schema' },
    }),
    jsonSpan({
      traceId,
      spanId: ids.repair,
      parentSpanId: ids.root,
      name: 'chat',
      attrs: {
                'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': v.model,
        'gen_ai.usage.input_tokens': 1000,
        'gen_ai.usage.output_tokens': 50,
        'guardtrace.repair.attempt_span_id': v.repairOrphan ? hex(8) : ids.attempt,
        'guardtrace.repair.failure_class': v.repairClass,
      },
    }),
  ];
  const neighbours = Array.from({ length: total - own.length }, (_, i) =>
    jsonSpan({ traceId, parentSpanId: ids.root, name: `step ${i}`, attrs: { 'app.step': i } }),
  );
  // The session's own spans in the middle of the request, as a real exporter's batch mixes them.
  const half = Math.floor(neighbours.length / 2);
  return { traceId, ids, spans: [...neighbours.slice(0, half), ...own, ...neighbours.slice(half)] };
}

/** An over-long value: 3,000 characters no prefix of another one shares beyond its first. */
export const overlong = (first = 'x') => `${first}${hex(1_500).slice(1)}`;

export interface Answer {
  status: number;
  rejected: number;
  message: string;
}

/** POSTs the spans to `url` as OTLP JSON or protobuf over real HTTP; the answer as the client reads it. */
export async function send(url: string, key: string, spans: Record<string, unknown>[], encoding: 'json' | 'protobuf'): Promise<Answer> {
  const json = jsonRequest(spans);
  const body = encoding === 'json' ? JSON.stringify(json) : protobufRequest(json);
  const type = encoding === 'json' ? 'application/json' : 'application/x-protobuf';
  const res = await fetch(`${url}/v1/traces`, { method: 'POST', headers: { 'content-type': type, authorization: `Bearer ${key}` }, body });
  const raw = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) return { status: res.status, rejected: -1, message: raw.toString('utf8') };
  const out = (encoding === 'json' ? JSON.parse(raw.toString('utf8')) : decodeResponseProtobuf(raw)) as {
    partialSuccess?: { rejectedSpans?: { toString(): string }; errorMessage?: string };
  };
  return {
    status: res.status,
    rejected: Number(out.partialSuccess?.rejectedSpans?.toString() ?? 0),
    message: out.partialSuccess?.errorMessage ?? '',
  };
}
