/** Guard-shaped OTLP payloads for the benchmark: sessions of agent -> tool call -> attempt -> 2 guards. */
import { randomBytes } from 'node:crypto';
import { encodeRequestProtobuf } from '../test/otlp-reference.ts';

const hex = (n: number) => randomBytes(n).toString('hex');
const kv = (key: string, v: string | number | boolean) => ({
  key,
  value: typeof v === 'string' ? { stringValue: v } : typeof v === 'boolean' ? { boolValue: v } : Number.isInteger(v) ? { intValue: v } : { doubleValue: v },
});

let t0 = BigInt(Date.UTC(2026, 10, 30, 12)) * 1_000_000n;

function span(traceId: string, spanId: string, parent: string, name: string, attrs: [string, string | number | boolean][], durNs: bigint) {
  t0 += 1_000n;
  return {
    traceId,
    spanId,
    parentSpanId: parent,
    name,
    kind: 1,
    startTimeUnixNano: t0.toString(),
    endTimeUnixNano: (t0 + durNs).toString(),
    attributes: attrs.map(([k, v]) => kv(k, v)),
    status: { code: 0 },
  };
}

/** One session (or, given `sid`, one turn of that session): 5 spans shaped like the Guardtrace SDK's (invalid-arguments rejection). */
export function guardSession(sid = `sess_${hex(8)}`): object[] {
  const traceId = hex(16);
  const [root, tool, attempt, g1, g2] = [hex(8), hex(8), hex(8), hex(8), hex(8)];
  const c: [string, string] = ['gen_ai.conversation.id', sid];
  return [
    span(traceId, g1, attempt, 'apply_guardrail schema', [c, ['gen_ai.operation.name', 'apply_guardrail'], ['gen_ai.guardrail.name', 'schema'], ['gen_ai.guardrail.verdict', 'fail'], ['gen_ai.guardrail.reason', 'content: Required (expected string)'], ['guardtrace.guard.stage', 'schema'], ['guardtrace.guard.duration_us', 14], ['guardtrace.failure.class', 'invalid_arguments'], ['guardtrace.decision', 'reject_with_feedback']], 14_000n),
    span(traceId, g2, attempt, 'apply_guardrail file_exists', [c, ['gen_ai.operation.name', 'apply_guardrail'], ['gen_ai.guardrail.name', 'file_exists'], ['gen_ai.guardrail.verdict', 'pass'], ['guardtrace.guard.stage', 'logical'], ['guardtrace.guard.duration_us', 41]], 41_000n),
    span(traceId, attempt, tool, 'guardtrace.attempt', [c, ['gen_ai.operation.name', 'guardtrace.attempt'], ['guardtrace.attempt', 1], ['gen_ai.tool.name', 'write_file'], ['gen_ai.tool.call.arguments', '{"path":"src/components/Button.tsx","mode":"overwrite"}'], ['guardtrace.outcome', 'rejected'], ['guardtrace.failure.class', 'invalid_arguments'], ['guardtrace.decision', 'reject_with_feedback'], ['guardtrace.feedback', 'Missing required field "content" (string). Allowed fields: path, content, mode.'], ['guardtrace.budget.attempts_left', 1], ['guardtrace.budget.session_retries_left', 7]], 90_000n),
    span(traceId, tool, root, 'execute_tool write_file', [c, ['gen_ai.operation.name', 'execute_tool'], ['gen_ai.tool.name', 'write_file'], ['gen_ai.tool.call.id', `call_${hex(6)}`], ['guardtrace.tool.read_only', false], ['guardtrace.tool.idempotent', true], ['guardtrace.tool.destructive', false], ['guardtrace.tool.external', false], ['guardtrace.idempotency_key', `idk_${hex(8)}`], ['guardtrace.outcome', 'rejected'], ['guardtrace.attempt', 1]], 120_000n),
    span(traceId, root, '', 'invoke_agent coder', [c, ['gen_ai.operation.name', 'invoke_agent'], ['gen_ai.agent.name', 'coder'], ['guardtrace.session.outcome', 'failed']], 500_000n),
  ];
}

export const SPANS_PER_SESSION = 5;

/** One export request of `sessions` sessions, as an OTLP JSON object. */
export function request(sessions: number): Record<string, unknown> {
  const spans: object[] = [];
  for (let i = 0; i < sessions; i++) spans.push(...guardSession());
  return {
    resourceSpans: [
      {
        resource: { attributes: [kv('service.name', 'bench-agent'), kv('telemetry.sdk.language', 'nodejs')] },
        scopeSpans: [{ scope: { name: '@guardtrace/sdk', version: '0.1.0' }, spans }],
      },
    ],
  };
}

/** Export requests of one long session: `requests` requests of `turns` turns (5 spans each, a trace each). */
export function longSession(sid: string, requests: number, turns: number): Record<string, unknown>[] {
  return Array.from({ length: requests }, () => {
    const spans: object[] = [];
    for (let i = 0; i < turns; i++) spans.push(...guardSession(sid));
    return {
      resourceSpans: [
        {
          resource: { attributes: [kv('service.name', 'bench-agent'), kv('telemetry.sdk.language', 'nodejs')] },
          scopeSpans: [{ scope: { name: '@guardtrace/sdk', version: '0.1.0' }, spans }],
        },
      ],
    };
  });
}

export function toProtobuf(json: Record<string, unknown>): Buffer {
  const conv = (o: unknown): unknown => {
    if (Array.isArray(o)) return o.map(conv);
    if (o && typeof o === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(o)) {
        out[k] = (k === 'traceId' || k === 'spanId' || k === 'parentSpanId') && typeof v === 'string' ? Buffer.from(v, 'hex') : conv(v);
      }
      return out;
    }
    return o;
  };
  return encodeRequestProtobuf(conv(json));
}
