/**
 * Dataset items from the spans a session emitted, field by field as the collector records them
 * (execute_tool span, its attempt spans, their guard spans): what a replay test feeds the runner.
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_GUARDRAIL_NAME,
  ATTR_GEN_AI_GUARDRAIL_REASON,
  ATTR_GEN_AI_GUARDRAIL_VERDICT,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GUARDTRACE_ATTEMPT,
  ATTR_GUARDTRACE_BUDGET_EXHAUSTED,
  ATTR_GUARDTRACE_DECISION,
  ATTR_GUARDTRACE_FAILURE_CLASS,
  ATTR_GUARDTRACE_FEEDBACK,
  ATTR_GUARDTRACE_GUARD_POINTERS,
  ATTR_GUARDTRACE_GUARD_STAGE,
  ATTR_GUARDTRACE_OUTCOME,
  ATTR_GUARDTRACE_TOOL_DEFINITION,
  ATTR_GUARDTRACE_TOOL_DEFINITION_HASH,
  OP_EXECUTE_TOOL,
  SPAN_ATTEMPT,
  DATASET_ITEM_FORMAT, type DatasetItem, type DatasetItemAttempt, type ToolDefinitionSummary } from '@guardtrace/semconv';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export function itemsFromSpans(spans: readonly ReadableSpan[]): DatasetItem[] {
  const children = (p: ReadableSpan) => spans.filter((s) => s.parentSpanContext?.spanId === p.spanContext().spanId);
  const summaries = new Map<string, ToolDefinitionSummary>();
  for (const s of spans) {
    const def = str(s.attributes[ATTR_GUARDTRACE_TOOL_DEFINITION]);
    const hash = str(s.attributes[ATTR_GUARDTRACE_TOOL_DEFINITION_HASH]);
    if (def && hash) summaries.set(hash, JSON.parse(def) as ToolDefinitionSummary);
  }
  return spans
    .filter((s) => s.attributes[ATTR_GEN_AI_OPERATION_NAME] === OP_EXECUTE_TOOL)
    .map((call) => {
      const attempts: DatasetItemAttempt[] = children(call)
        .filter((s) => s.name === SPAN_ATTEMPT)
        .map((a) => {
          const args = str(a.attributes[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]);
          let parsed: unknown = null;
          try {
            parsed = args === null ? null : JSON.parse(args);
          } catch {
            parsed = args;
          }
          return {
            number: Number(a.attributes[ATTR_GUARDTRACE_ATTEMPT]),
            tool: str(a.attributes[ATTR_GEN_AI_TOOL_NAME]),
            arguments: parsed,
            argumentsText: args,
            outcome: str(a.attributes[ATTR_GUARDTRACE_OUTCOME]),
            decision: str(a.attributes[ATTR_GUARDTRACE_DECISION]),
            failureClass: str(a.attributes[ATTR_GUARDTRACE_FAILURE_CLASS]),
            feedback: str(a.attributes[ATTR_GUARDTRACE_FEEDBACK]),
            budgetExhausted: str(a.attributes[ATTR_GUARDTRACE_BUDGET_EXHAUSTED]),
            checks: children(a).map((g) => ({
              guard: String(g.attributes[ATTR_GEN_AI_GUARDRAIL_NAME]),
              stage: str(g.attributes[ATTR_GUARDTRACE_GUARD_STAGE]),
              verdict: g.attributes[ATTR_GEN_AI_GUARDRAIL_VERDICT] === 'fail' ? 'fail' : 'pass',
              reason: str(g.attributes[ATTR_GEN_AI_GUARDRAIL_REASON]),
              failureClass: str(g.attributes[ATTR_GUARDTRACE_FAILURE_CLASS]),
              pointers: (g.attributes[ATTR_GUARDTRACE_GUARD_POINTERS] as string[] | undefined) ?? [],
            })),
          };
        });
      const hash = str(call.attributes[ATTR_GUARDTRACE_TOOL_DEFINITION_HASH]);
      const sessionId = String(call.attributes[ATTR_GEN_AI_CONVERSATION_ID]);
      const { traceId, spanId } = call.spanContext();
      return {
        format: DATASET_ITEM_FORMAT,
        id: `${traceId}:${spanId}`,
        sessionId,
        traceId,
        spanId,
        stepPath: `/sessions/${encodeURIComponent(sessionId)}?call=${spanId}`,
        tool: String(call.attributes[ATTR_GEN_AI_TOOL_NAME]),
        callId: str(call.attributes[ATTR_GEN_AI_TOOL_CALL_ID]),
        startedAt: new Date(call.startTime[0] * 1000).toISOString(),
        definition: { hash, summary: hash ? (summaries.get(hash) ?? null) : null },
        outcome: str(call.attributes[ATTR_GUARDTRACE_OUTCOME]),
        failureClass: str(call.attributes[ATTR_GUARDTRACE_FAILURE_CLASS]),
        attempts,
      };
    });
}
