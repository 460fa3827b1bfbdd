/**
 * What a span means: a logical tool call, one attempt, one guard decision, a model call, or
 * nothing we derive (kept raw only). Classification goes by gen_ai.operation.name first,
 * then OpenInference's and OpenLLMetry's span kinds, then the span-name prefix, then usage
 * attributes — so Guardtrace's SDK, other GenAI emitters, the Vercel AI SDK, Phoenix's
 * OpenInference instrumentations and Traceloop's all land in the same tables.
 */
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_GUARDRAIL_NAME,
  ATTR_GEN_AI_GUARDRAIL_REASON,
  ATTR_GEN_AI_GUARDRAIL_VERDICT,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_COMPLETION_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_PROMPT_TOKENS,
  ATTR_GUARDTRACE_ATTEMPT,
  ATTR_GUARDTRACE_BACKOFF_MS,
  ATTR_GUARDTRACE_BUDGET_ATTEMPTS_LEFT,
  ATTR_GUARDTRACE_BUDGET_EXHAUSTED,
  ATTR_GUARDTRACE_BUDGET_SESSION_RETRIES_LEFT,
  ATTR_GUARDTRACE_DECISION,
  ATTR_GUARDTRACE_FAILURE_CLASS,
  ATTR_GUARDTRACE_FEEDBACK,
  ATTR_GUARDTRACE_GUARD_DURATION_US,
  ATTR_GUARDTRACE_GUARD_STAGE,
  ATTR_GUARDTRACE_IDEMPOTENCY_KEY,
  ATTR_GUARDTRACE_OUTCOME,
  ATTR_GUARDTRACE_REPAIR_ATTEMPT_SPAN_ID,
  ATTR_GUARDTRACE_REPAIR_FAILURE_CLASS,
  ATTR_GUARDTRACE_TOOL_DESTRUCTIVE,
  ATTR_GUARDTRACE_TOOL_EXTERNAL,
  ATTR_GUARDTRACE_TOOL_IDEMPOTENT,
  ATTR_GUARDTRACE_TOOL_READ_ONLY,
  OP_APPLY_GUARDRAIL,
  OP_CHAT,
  OP_EXECUTE_TOOL,
  OP_INVOKE_AGENT,
  SPAN_ATTEMPT,
} from '@guardtrace/semconv';
import { copyField } from './copy.ts';
import type { Attributes, NormSpan } from './span.ts';

// Vercel AI SDK telemetry (ai.* namespace), read for tool and model calls.
const AI_TOOL_CALL_NAME = 'ai.toolCall.name';
const AI_TOOL_CALL_ID = 'ai.toolCall.id';
const AI_TOOL_CALL_ARGS = 'ai.toolCall.args';
const AI_TOOL_CALL_INPUT = 'ai.toolCall.input';
const AI_USAGE_PROMPT = 'ai.usage.promptTokens';
const AI_USAGE_COMPLETION = 'ai.usage.completionTokens';
const AI_USAGE_INPUT = 'ai.usage.inputTokens';
const AI_USAGE_OUTPUT = 'ai.usage.outputTokens';
const AI_MODEL_ID = 'ai.model.id';
const AI_MODEL_PROVIDER = 'ai.model.provider';
const AI_OPERATION_ID = 'ai.operationId';
const GEN_AI_SYSTEM = 'gen_ai.system';
// OpenInference (Arize Phoenix's instrumentations): span kind, model, usage, tool, session.
const OI_SPAN_KIND = 'openinference.span.kind';
const OI_MODEL_NAME = 'llm.model_name';
const OI_PROVIDER = 'llm.provider';
const OI_SYSTEM = 'llm.system';
const OI_PROMPT_TOKENS = 'llm.token_count.prompt';
const OI_COMPLETION_TOKENS = 'llm.token_count.completion';
const OI_TOOL_NAME = 'tool.name';
const OI_TOOL_CALL_ID = 'tool_call.id';
const OI_INPUT = 'input.value';
/** The session of OpenInference and Langfuse's OpenTelemetry conventions. */
const SESSION_ID = 'session.id';
const LANGFUSE_SESSION_ID = 'langfuse.session.id';
/** Every attribute conversationId() may take a session id from (span-rules.ts bounds their length). */
export const SESSION_ID_KEYS = [ATTR_GEN_AI_CONVERSATION_ID, SESSION_ID, LANGFUSE_SESSION_ID] as const;
// OpenLLMetry (Traceloop): its workflow/task/agent/tool spans; LLM spans use gen_ai.* usage.
const TRACELOOP_SPAN_KIND = 'traceloop.span.kind';
const TRACELOOP_ENTITY_NAME = 'traceloop.entity.name';
const TRACELOOP_ENTITY_INPUT = 'traceloop.entity.input';

/** GenAI operations that are model calls (semconv gen_ai.operation.name values). */
const MODEL_OPERATIONS = new Set([OP_CHAT, 'text_completion', 'generate_content', 'embeddings']);
/** Operations whose usage attributes are totals of their children: never counted again. */
const AGGREGATE_OPERATIONS = new Set([OP_INVOKE_AGENT, 'create_agent', 'invoke_workflow']);

export type SpanRole = 'tool_call' | 'attempt' | 'guard_check' | 'model_call' | null;

export function str(attrs: Attributes, key: string): string | null {
  const v = attrs[key];
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

export function num(attrs: Attributes, key: string): number | null {
  const v = attrs[key];
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

function int(attrs: Attributes, key: string): number | null {
  const n = num(attrs, key);
  // Columns are int4: anything outside is not a count we can trust.
  return n === null || !Number.isInteger(n) || Math.abs(n) > 2_147_483_647 ? null : n;
}

function bool(attrs: Attributes, key: string): boolean | null {
  const v = attrs[key];
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  return null;
}

/** A non-empty string attribute (callers chain alternatives with ??; no rest arrays on the hot path). */
function text(attrs: Attributes, key: string): string | null {
  const v = str(attrs, key);
  return v === '' ? null : v;
}


/**
 * Session id carried by the span itself (span attribute, else its resource): the GenAI
 * conversation id, else OpenInference's and Langfuse's session id.
 */
export function conversationId(span: NormSpan): string | null {
  const a = span.attributes;
  return (
    text(a, ATTR_GEN_AI_CONVERSATION_ID) ??
    text(span.resource, ATTR_GEN_AI_CONVERSATION_ID) ??
    text(a, SESSION_ID) ??
    text(a, LANGFUSE_SESSION_ID)
  );
}

function hasUsage(attrs: Attributes): boolean {
  return (
    attrs[ATTR_GEN_AI_USAGE_INPUT_TOKENS] !== undefined ||
    attrs[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] !== undefined ||
    attrs[ATTR_GEN_AI_USAGE_PROMPT_TOKENS] !== undefined ||
    attrs[ATTR_GEN_AI_USAGE_COMPLETION_TOKENS] !== undefined ||
    attrs[AI_USAGE_PROMPT] !== undefined ||
    attrs[AI_USAGE_COMPLETION] !== undefined ||
    attrs[AI_USAGE_INPUT] !== undefined ||
    attrs[AI_USAGE_OUTPUT] !== undefined ||
    attrs[OI_PROMPT_TOKENS] !== undefined ||
    attrs[OI_COMPLETION_TOKENS] !== undefined
  );
}

/** Vercel's outer `ai.generateText` / `ai.streamText` spans sum their `.doGenerate` children. */
function isVercelAggregate(span: NormSpan): boolean {
  const op = str(span.attributes, AI_OPERATION_ID) ?? span.name;
  return op.startsWith('ai.') && !op.includes('.do') && op !== 'ai.toolCall';
}

export function classify(span: NormSpan): SpanRole {
  const op = str(span.attributes, ATTR_GEN_AI_OPERATION_NAME);
  if (op === OP_EXECUTE_TOOL) return 'tool_call';
  if (op === SPAN_ATTEMPT) return 'attempt';
  if (op === OP_APPLY_GUARDRAIL) return 'guard_check';
  if (op !== null && MODEL_OPERATIONS.has(op)) return 'model_call';
  if (op !== null && AGGREGATE_OPERATIONS.has(op)) return null;
  const oi = str(span.attributes, OI_SPAN_KIND);
  if (oi !== null) {
    if (oi === 'TOOL') return 'tool_call';
    if (oi === 'LLM' || oi === 'EMBEDDING') return 'model_call';
    if (oi === 'GUARDRAIL') return 'guard_check';
    // CHAIN, AGENT, RETRIEVER...: their token counts, if any, are their children's.
    return null;
  }
  if (str(span.attributes, TRACELOOP_SPAN_KIND) === 'tool') return 'tool_call';
  const name = span.name;
  if (name === SPAN_ATTEMPT) return 'attempt';
  if (name.startsWith(OP_EXECUTE_TOOL)) return 'tool_call';
  if (name.startsWith(OP_APPLY_GUARDRAIL)) return 'guard_check';
  if (name === 'ai.toolCall' || span.attributes[AI_TOOL_CALL_NAME] !== undefined) return 'tool_call';
  if (name.startsWith(OP_CHAT)) return 'model_call';
  if (hasUsage(span.attributes) && !isVercelAggregate(span)) return 'model_call';
  return null;
}

function suffix(name: string, prefix: string): string | null {
  if (!name.startsWith(prefix)) return null;
  const rest = name.slice(prefix.length).trim();
  return rest === '' ? null : rest;
}

function durationMs(span: NormSpan): number {
  return Number(span.endNs - span.startNs) / 1e6;
}

function failed(span: NormSpan): boolean {
  return span.statusCode === 2;
}

/** The date-and-time part of the last second formatted (spans of a batch share their seconds). */
let lastSecond = Number.NaN;
let lastPrefix = '';

/** Postgres timestamptz text, exact to the microsecond, from nanoseconds since the epoch. */
export function timestamp(ns: bigint): string {
  const us = Number(ns / 1_000n);
  // Past 2^53 us (the year 2255) a double is no longer exact: the slow path.
  if (us > Number.MAX_SAFE_INTEGER) return bigTimestamp(ns);
  const sec = Math.floor(us / 1e6);
  if (sec !== lastSecond) {
    lastPrefix = new Date(sec * 1000).toISOString().slice(0, 19);
    lastSecond = sec;
  }
  return `${lastPrefix}.${String(us - sec * 1e6).padStart(6, '0')}Z`;
}

function bigTimestamp(ns: bigint): string {
  const us = ns / 1_000n;
  const iso = new Date(Number(us / 1_000n)).toISOString();
  return `${iso.slice(0, 23)}${String(Number(us % 1_000n)).padStart(3, '0')}Z`;
}

/** The span's start as timestamptz text, computed once per span. */
function startTime(span: NormSpan): string {
  span.startTime ??= timestamp(span.startNs);
  return span.startTime;
}


export function toolCallRow(span: NormSpan, projectId: string, sessionId: string) {
  const a = span.attributes;
  return {
    // Key columns written out, not spread: a spread literal is several times slower to build.
    project_id: projectId,
    trace_id: span.traceId,
    span_id: span.spanId,
    session_id: sessionId,
    started_at: startTime(span),
    parent_span_id: span.parentSpanId,
    tool_name:
      text(a, ATTR_GEN_AI_TOOL_NAME) ??
      text(a, AI_TOOL_CALL_NAME) ??
      text(a, OI_TOOL_NAME) ??
      text(a, TRACELOOP_ENTITY_NAME) ??
      suffix(span.name, OP_EXECUTE_TOOL) ??
      span.name,
    call_id: text(a, ATTR_GEN_AI_TOOL_CALL_ID) ?? text(a, AI_TOOL_CALL_ID) ?? text(a, OI_TOOL_CALL_ID),
    duration_ms: durationMs(span),
    outcome: text(a, ATTR_GUARDTRACE_OUTCOME) ?? (failed(span) ? 'failed' : 'success'),
    failure_class: text(a, ATTR_GUARDTRACE_FAILURE_CLASS),
    decision: text(a, ATTR_GUARDTRACE_DECISION),
    attempts: int(a, ATTR_GUARDTRACE_ATTEMPT),
    read_only: bool(a, ATTR_GUARDTRACE_TOOL_READ_ONLY),
    idempotent: bool(a, ATTR_GUARDTRACE_TOOL_IDEMPOTENT),
    destructive: bool(a, ATTR_GUARDTRACE_TOOL_DESTRUCTIVE),
    external: bool(a, ATTR_GUARDTRACE_TOOL_EXTERNAL),
    idempotency_key: text(a, ATTR_GUARDTRACE_IDEMPOTENCY_KEY),
    arguments:
      text(a, ATTR_GEN_AI_TOOL_CALL_ARGUMENTS) ??
      text(a, AI_TOOL_CALL_ARGS) ??
      text(a, AI_TOOL_CALL_INPUT) ??
      (a[OI_SPAN_KIND] === 'TOOL' ? text(a, OI_INPUT) : null) ??
      text(a, TRACELOOP_ENTITY_INPUT),
  };
}

export function attemptRow(span: NormSpan, projectId: string, sessionId: string) {
  const a = span.attributes;
  return {
    // Key columns written out, not spread: a spread literal is several times slower to build.
    project_id: projectId,
    trace_id: span.traceId,
    span_id: span.spanId,
    session_id: sessionId,
    started_at: startTime(span),
    tool_call_span_id: span.parentSpanId,
    tool_name: text(a, ATTR_GEN_AI_TOOL_NAME),
    number: int(a, ATTR_GUARDTRACE_ATTEMPT) ?? 1,
    duration_ms: durationMs(span),
    outcome: text(a, ATTR_GUARDTRACE_OUTCOME) ?? (failed(span) ? 'failed' : 'success'),
    failure_class: text(a, ATTR_GUARDTRACE_FAILURE_CLASS),
    decision: text(a, ATTR_GUARDTRACE_DECISION),
    feedback: text(a, ATTR_GUARDTRACE_FEEDBACK),
    backoff_ms: num(a, ATTR_GUARDTRACE_BACKOFF_MS),
    attempts_left: int(a, ATTR_GUARDTRACE_BUDGET_ATTEMPTS_LEFT),
    session_retries_left: int(a, ATTR_GUARDTRACE_BUDGET_SESSION_RETRIES_LEFT),
    budget_exhausted: text(a, ATTR_GUARDTRACE_BUDGET_EXHAUSTED),
    arguments: text(a, ATTR_GEN_AI_TOOL_CALL_ARGUMENTS),
    error_type: text(a, ATTR_ERROR_TYPE),
  };
}

export function guardCheckRow(span: NormSpan, projectId: string, sessionId: string) {
  const a = span.attributes;
  const reported = num(a, ATTR_GUARDTRACE_GUARD_DURATION_US);
  return {
    // Key columns written out, not spread: a spread literal is several times slower to build.
    project_id: projectId,
    trace_id: span.traceId,
    span_id: span.spanId,
    session_id: sessionId,
    started_at: startTime(span),
    attempt_span_id: span.parentSpanId,
    guard_name: text(a, ATTR_GEN_AI_GUARDRAIL_NAME) ?? suffix(span.name, OP_APPLY_GUARDRAIL) ?? span.name,
    stage: text(a, ATTR_GUARDTRACE_GUARD_STAGE),
    verdict: text(a, ATTR_GEN_AI_GUARDRAIL_VERDICT) ?? (failed(span) ? 'fail' : 'pass'),
    reason: text(a, ATTR_GEN_AI_GUARDRAIL_REASON),
    decision: text(a, ATTR_GUARDTRACE_DECISION),
    failure_class: text(a, ATTR_GUARDTRACE_FAILURE_CLASS),
    duration_us: reported ?? Number(span.endNs - span.startNs) / 1e3,
  };
}

export function modelCallRow(span: NormSpan, projectId: string, sessionId: string) {
  const a = span.attributes;
  return {
    // Key columns written out, not spread: a spread literal is several times slower to build.
    project_id: projectId,
    trace_id: span.traceId,
    span_id: span.spanId,
    session_id: sessionId,
    started_at: startTime(span),
    parent_span_id: span.parentSpanId,
    model:
      text(a, ATTR_GEN_AI_REQUEST_MODEL) ??
      text(a, ATTR_GEN_AI_RESPONSE_MODEL) ??
      text(a, AI_MODEL_ID) ??
      text(a, OI_MODEL_NAME) ??
      suffix(span.name, OP_CHAT),
    provider:
      text(a, ATTR_GEN_AI_PROVIDER_NAME) ?? text(a, GEN_AI_SYSTEM) ?? text(a, AI_MODEL_PROVIDER) ?? text(a, OI_PROVIDER) ?? text(a, OI_SYSTEM),
    duration_ms: durationMs(span),
    input_tokens:
      int(a, ATTR_GEN_AI_USAGE_INPUT_TOKENS) ??
      int(a, ATTR_GEN_AI_USAGE_PROMPT_TOKENS) ??
      int(a, AI_USAGE_INPUT) ??
      int(a, AI_USAGE_PROMPT) ??
      int(a, OI_PROMPT_TOKENS) ??
      0,
    output_tokens:
      int(a, ATTR_GEN_AI_USAGE_OUTPUT_TOKENS) ??
      int(a, ATTR_GEN_AI_USAGE_COMPLETION_TOKENS) ??
      int(a, AI_USAGE_OUTPUT) ??
      int(a, AI_USAGE_COMPLETION) ??
      int(a, OI_COMPLETION_TOKENS) ??
      0,
    repair_attempt_span_id: validSpanId(text(a, ATTR_GUARDTRACE_REPAIR_ATTEMPT_SPAN_ID)),
    repair_failure_class: text(a, ATTR_GUARDTRACE_REPAIR_FAILURE_CLASS),
  };
}

/** The column is varchar(16): only a real span id fits. */
function validSpanId(v: string | null): string | null {
  return v !== null && /^[0-9a-fA-F]{16}$/.test(v) ? v.toLowerCase() : null;
}

/** The raw `spans` row of a span. */
export function spanRow(span: NormSpan, projectId: string, sessionId: string) {
  return {
    project_id: projectId,
    start_time: startTime(span),
    trace_id: span.traceId,
    span_id: span.spanId,
    parent_span_id: span.parentSpanId,
    session_id: sessionId,
    name: span.name,
    kind: span.kind,
    start_time_unix_nano: span.startNs.toString(),
    end_time_unix_nano: span.endNs.toString(),
    status_code: span.statusCode,
    status_message: span.statusMessage,
    service_name: span.serviceName,
    scope_name: span.scopeName,
    scope_version: span.scopeVersion,
    attributes: span.attributes,
    resource: span.resource,
    events: span.events,
    links: span.links,
  };
}

/**
 * The `spans` row of a span as COPY text, all columns but session_id (sql.ts SPANS.head order):
 * the same text as copyLine(spanRow(...), SPANS.head), built without the row object. Ids are
 * validated hex, times and numbers digits: only the free-text and JSON fields need escaping.
 */
export function spanCopyHead(span: NormSpan, projectId: string): string {
  const parent = span.parentSpanId ?? '\\N';
  const events = span.events.length === 0 ? '[]' : copyField(span.events);
  const links = span.links.length === 0 ? '[]' : copyField(span.links);
  return `${projectId}\t${startTime(span)}\t${span.traceId}\t${span.spanId}\t${parent}\t${copyField(span.name)}\t${span.kind}\t${span.startNs}\t${span.endNs}\t${span.statusCode}\t${copyField(span.statusMessage)}\t${copyField(span.serviceName)}\t${copyField(span.scopeName)}\t${copyField(span.scopeVersion)}\t${copyField(span.attributes)}\t${copyField(span.resource)}\t${events}\t${links}`;
}

export type ToolCallRow = ReturnType<typeof toolCallRow>;
export type AttemptRow = ReturnType<typeof attemptRow>;
export type GuardCheckRow = ReturnType<typeof guardCheckRow>;
export type ModelCallRow = ReturnType<typeof modelCallRow>;

/** Rows of one batch, by table. */
export interface DerivedRows {
  toolCalls: ToolCallRow[];
  attempts: AttemptRow[];
  guardChecks: GuardCheckRow[];
  modelCalls: ModelCallRow[];
}

/** The derived row of a span, if it has one, with the table it goes to. */
export function deriveOne(span: NormSpan, projectId: string, sessionId: string): [keyof DerivedRows, { session_id: string }] | null {
  switch (classify(span)) {
    case 'tool_call':
      return ['toolCalls', toolCallRow(span, projectId, sessionId)];
    case 'attempt':
      return ['attempts', attemptRow(span, projectId, sessionId)];
    case 'guard_check':
      return ['guardChecks', guardCheckRow(span, projectId, sessionId)];
    case 'model_call':
      return ['modelCalls', modelCallRow(span, projectId, sessionId)];
    default:
      return null;
  }
}

export function derive(span: NormSpan, projectId: string, sessionId: string, into: DerivedRows): void {
  const d = deriveOne(span, projectId, sessionId);
  if (d) (into[d[0]] as { session_id: string }[]).push(d[1]);
}
