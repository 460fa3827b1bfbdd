/**
 * The rows a span becomes: its raw `spans` row, and the derived row (tool call, attempt, guard
 * check, model call) of what it means. Which convention a span follows and what it means is
 * decided in conventions/ (one module per convention); this module only builds rows from that
 * Meaning, the same way whichever convention it came from.
 */
import { ATTR_GUARDTRACE_TOOL_DEFINITION_HASH } from '@guardtrace/semconv';
import { type EventCheck, eventChecks, type ImpliedAttempt, interpret, type Meaning, type SpanRole } from './conventions/index.ts';
import { copyField } from './copy.ts';
import { keyText } from './key-text.ts';
import type { NormSpan } from './span.ts';

function durationMs(span: NormSpan): number {
  return Number(span.endNs - span.startNs) / 1e6;
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


function toolCallRow(span: NormSpan, m: Meaning, projectId: string, sessionId: string) {
  return {
    // Key columns written out, not spread: a spread literal is several times slower to build.
    project_id: projectId,
    trace_id: span.traceId,
    span_id: span.spanId,
    session_id: sessionId,
    started_at: startTime(span),
    parent_span_id: span.parentSpanId,
    tool_name: keyText(m.toolName as string),
    call_id: m.callId,
    duration_ms: durationMs(span),
    outcome: m.outcome,
    failure_class: m.failureClass,
    decision: m.decision,
    attempts: m.attempt,
    read_only: m.readOnly,
    idempotent: m.idempotent,
    destructive: m.destructive,
    external: m.external,
    idempotency_key: m.idempotencyKey,
    arguments: m.arguments,
    failure_reason: m.failureReason,
    step_sequence: m.stepSequence,
    definition_hash: definitionHash(span),
  };
}

const DEFINITION_HASH = /^[0-9a-f]{16}$/;

/** The call's definition hash (guardtrace.tool.definition.hash) when it is one (16 hex characters), else null. */
export function definitionHash(span: NormSpan): string | null {
  const v = span.attributes[ATTR_GUARDTRACE_TOOL_DEFINITION_HASH];
  return typeof v === 'string' && DEFINITION_HASH.test(v) ? v : null;
}

function attemptRow(span: NormSpan, m: Meaning, projectId: string, sessionId: string) {
  return {
    // Key columns written out, not spread: a spread literal is several times slower to build.
    project_id: projectId,
    trace_id: span.traceId,
    span_id: span.spanId,
    session_id: sessionId,
    started_at: startTime(span),
    tool_call_span_id: span.parentSpanId,
    tool_name: keyText(m.toolName),
    number: m.attempt ?? 1,
    duration_ms: durationMs(span),
    outcome: m.outcome,
    failure_class: m.failureClass,
    decision: m.decision,
    feedback: m.feedback,
    backoff_ms: m.backoffMs,
    attempts_left: m.attemptsLeft,
    session_retries_left: m.sessionRetriesLeft,
    budget_exhausted: m.budgetExhausted,
    arguments: m.arguments,
    error_type: m.errorType,
    failure_reason: m.failureReason,
    auto_repair_kind: m.autoRepairKind,
    auto_repair_pointers: m.autoRepairPointers,
    auto_repair_tool: m.autoRepairTool,
  };
}

/**
 * The attempt row of an attempt a span implies (conventions/meaning.ts ImpliedAttempt): a tool
 * call the instrumented library refused without a span of its own (one rejected attempt, at the
 * time of the span that reported it, under no tool call span: the web app shows it under a
 * stand-in tool call), or another instrumentation's tool call's one attempt (its time, under it).
 */
function impliedAttemptRow(span: NormSpan, r: ImpliedAttempt, projectId: string, sessionId: string): AttemptRow {
  return {
    project_id: projectId,
    trace_id: span.traceId,
    span_id: r.spanId,
    session_id: sessionId,
    // A refused call (no tool span: the model turn after it reports it) happened before that turn:
    // a microsecond (the column's precision) before it, so the turn that read the refusal comes
    // after it in the replay, and the tool call that corrects a failure is never this refusal.
    started_at: r.toolCallSpanId === null && span.startNs > 1_000n ? timestamp(span.startNs - 1_000n) : startTime(span),
    tool_call_span_id: r.toolCallSpanId,
    tool_name: keyText(r.toolName),
    number: 1,
    duration_ms: r.toolCallSpanId === null ? 0 : durationMs(span),
    outcome: r.outcome,
    failure_class: r.failureClass,
    decision: null,
    feedback: null,
    backoff_ms: null,
    attempts_left: null,
    session_retries_left: null,
    budget_exhausted: null,
    arguments: r.arguments,
    error_type: r.errorType,
    failure_reason: r.reason,
    auto_repair_kind: null,
    auto_repair_pointers: null,
    auto_repair_tool: null,
  };
}

function guardCheckRow(span: NormSpan, m: Meaning, projectId: string, sessionId: string) {
  return {
    // Key columns written out, not spread: a spread literal is several times slower to build.
    project_id: projectId,
    trace_id: span.traceId,
    span_id: span.spanId,
    session_id: sessionId,
    started_at: startTime(span),
    attempt_span_id: span.parentSpanId,
    guard_name: m.guardName as string,
    stage: m.stage,
    verdict: m.verdict as string,
    reason: m.reason,
    decision: m.decision,
    failure_class: m.failureClass,
    duration_us: m.guardDurationUs ?? Number(span.endNs - span.startNs) / 1e3,
    failed_pointers: m.failedPointers,
    guardrail_results: m.guardrailResults as object | null,
  };
}

/**
 * The guard-check row of the guardrail results a span that is no guardrail reports about one
 * component (an in-process guardrail API without a span of its own): under that span, at the
 * first result's time, no duration.
 */
function eventCheckRow(span: NormSpan, c: EventCheck, projectId: string, sessionId: string): GuardCheckRow {
  return {
    project_id: projectId,
    trace_id: span.traceId,
    span_id: c.spanId,
    session_id: sessionId,
    started_at: timestamp(c.timeNs),
    attempt_span_id: span.spanId,
    guard_name: c.guardName,
    stage: null,
    verdict: c.verdict,
    reason: c.reason,
    decision: null,
    failure_class: null,
    duration_us: 0,
    failed_pointers: c.pointers,
    guardrail_results: c.results,
  };
}

function modelCallRow(span: NormSpan, m: Meaning, projectId: string, sessionId: string) {
  return {
    // Key columns written out, not spread: a spread literal is several times slower to build.
    project_id: projectId,
    trace_id: span.traceId,
    span_id: span.spanId,
    session_id: sessionId,
    started_at: startTime(span),
    parent_span_id: span.parentSpanId,
    model: keyText(m.model),
    provider: m.provider,
    duration_ms: durationMs(span),
    input_tokens: m.inputTokens ?? 0,
    output_tokens: m.outputTokens ?? 0,
    // Part of input_tokens (the conventions' reading; conventions/index.ts withCacheTokens), as the price table treats them.
    cached_input_tokens: m.cachedInputTokens ?? 0,
    repair_attempt_span_id: m.repairAttemptSpanId,
    repair_failure_class: m.repairFailureClass,
    step_sequence: m.stepSequence,
  };
}

/** The raw `spans` row of a span; `role` is the derived row made of it (its meaning's role), if any. */
export function spanRow(span: NormSpan, projectId: string, sessionId: string, role: SpanRole = null) {
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
    role,
  };
}

/**
 * The `spans` row of a span as COPY text, all columns but session_id (sql.ts SPANS.head order):
 * the same text as copyLine(spanRow(...), SPANS.head), built without the row object. Ids are
 * validated hex, times and numbers digits: only the free-text and JSON fields need escaping.
 */
export function spanCopyHead(span: NormSpan, projectId: string, role: SpanRole = null): string {
  const parent = span.parentSpanId ?? '\\N';
  const events = span.events.length === 0 ? '[]' : copyField(span.events);
  const links = span.links.length === 0 ? '[]' : copyField(span.links);
  return `${projectId}\t${startTime(span)}\t${span.traceId}\t${span.spanId}\t${parent}\t${copyField(span.name)}\t${span.kind}\t${span.startNs}\t${span.endNs}\t${span.statusCode}\t${copyField(span.statusMessage)}\t${copyField(span.serviceName)}\t${copyField(span.scopeName)}\t${copyField(span.scopeVersion)}\t${copyField(span.attributes)}\t${copyField(span.resource)}\t${events}\t${links}\t${role ?? '\\N'}`;
}

type ToolCallRow = ReturnType<typeof toolCallRow>;
type AttemptRow = ReturnType<typeof attemptRow>;
type GuardCheckRow = ReturnType<typeof guardCheckRow>;
type ModelCallRow = ReturnType<typeof modelCallRow>;

/** Rows of one batch, by table. */
export interface DerivedRows {
  toolCalls: ToolCallRow[];
  attempts: AttemptRow[];
  guardChecks: GuardCheckRow[];
  modelCalls: ModelCallRow[];
}

/** One derived row, with the table it goes to. */
export type Derived = [keyof DerivedRows, { session_id: string; span_id: string; started_at: string }];

/** The derived row of what a span means, with the table it goes to. */
export function deriveOne(span: NormSpan, m: Meaning, projectId: string, sessionId: string): Derived {
  switch (m.role) {
    case 'tool_call':
      return ['toolCalls', toolCallRow(span, m, projectId, sessionId)];
    case 'attempt':
      return ['attempts', attemptRow(span, m, projectId, sessionId)];
    case 'guard_check':
      return ['guardChecks', guardCheckRow(span, m, projectId, sessionId)];
    default:
      return ['modelCalls', modelCallRow(span, m, projectId, sessionId)];
  }
}

/** The attempt rows a span implies (refused calls it reports, another instrumentation's tool call's own attempt). */
export function impliedRows(span: NormSpan, m: Meaning, projectId: string, sessionId: string): Derived[] | null {
  return m.implied === null ? null : m.implied.map((r): Derived => ['attempts', impliedAttemptRow(span, r, projectId, sessionId)]);
}

/** The guard-check rows of the guardrail result events on a span that is no guardrail span (rarely any). */
export function guardEventRows(span: NormSpan, role: SpanRole, projectId: string, sessionId: string): Derived[] | null {
  if (role === 'guard_check') return null;
  const checks = eventChecks(span);
  return checks === null ? null : checks.map((c): Derived => ['guardChecks', eventCheckRow(span, c, projectId, sessionId)]);
}

export function derive(span: NormSpan, projectId: string, sessionId: string, into: DerivedRows): void {
  const m = interpret(span);
  const events = guardEventRows(span, m?.role ?? null, projectId, sessionId);
  if (events) for (const x of events) (into[x[0]] as { session_id: string }[]).push(x[1]);
  if (m === null) return;
  const d = deriveOne(span, m, projectId, sessionId);
  (into[d[0]] as { session_id: string }[]).push(d[1]);
  const extra = impliedRows(span, m, projectId, sessionId);
  if (extra) for (const x of extra) (into[x[0]] as { session_id: string }[]).push(x[1]);
}
