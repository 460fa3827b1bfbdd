import 'server-only';
import type { PrismaClient } from '@guardtrace/db';
import { ATTR_GEN_AI_OPERATION_NAME, OP_INVOKE_AGENT } from '@guardtrace/semconv';
import type {
  AttemptDto,
  GuardCheckDto,
  GuardStepDto,
  ModelCallStepDto,
  RawSpanStepDto,
  SessionDetailDto,
  SessionHeaderDto,
  TimelineStepDto,
  ToolCallStepDto,
} from './session-types.ts';

// 2,000 rows of each kind: far beyond a readable replay, and still a sub-second page.
export const SESSION_ROW_LIMIT = 2000;
// 8 KB of attributes per raw span: enough to read, small enough to keep the page light.
const ATTRIBUTES_MAX_CHARS = 8192;

type Json = unknown;
type Unstepped<T> = Omit<T, 'step'>;

/**
 * The session page: header totals and the time-ordered timeline; null when the id is unknown.
 * The totals are the collector's session row, read as stored: the collector writes one for
 * every session it stores spans of, whatever convention they follow (one rule, in
 * apps/collector/src/sql.ts), and nothing here computes them.
 */
export async function getSessionDetail(
  db: PrismaClient,
  projectId: string,
  sessionId: string,
): Promise<SessionDetailDto | null> {
  const scope = { projectId, sessionId };
  const take = SESSION_ROW_LIMIT + 1;
  const [session, toolCalls, attempts, guardChecks, modelCalls, spans] = await Promise.all([
    db.session.findUnique({ where: { projectId_id: { projectId, id: sessionId } } }),
    db.toolCall.findMany({ where: scope, orderBy: [{ startedAt: 'asc' }, { spanId: 'asc' }], take }),
    db.attempt.findMany({ where: scope, orderBy: [{ number: 'asc' }, { startedAt: 'asc' }], take }),
    db.guardCheck.findMany({ where: scope, orderBy: [{ startedAt: 'asc' }, { spanId: 'asc' }], take }),
    db.modelCall.findMany({ where: scope, orderBy: [{ startedAt: 'asc' }, { spanId: 'asc' }], take }),
    db.span.findMany({
      where: scope,
      orderBy: [{ startTime: 'asc' }, { spanId: 'asc' }],
      take,
      select: {
        spanId: true,
        traceId: true,
        parentSpanId: true,
        name: true,
        serviceName: true,
        startTime: true,
        startTimeUnixNano: true,
        endTimeUnixNano: true,
        statusCode: true,
        statusMessage: true,
        attributes: true,
      },
    }),
  ]);
  if (!session) return null;
  const truncated = [toolCalls, attempts, guardChecks, modelCalls, spans].some((r) => r.length > SESSION_ROW_LIMIT);
  for (const rows of [toolCalls, attempts, guardChecks, modelCalls, spans]) rows.splice(SESSION_ROW_LIMIT);

  const key = (traceId: string, spanId: string) => `${traceId}:${spanId}`;
  const attemptKeys = new Set(attempts.map((a) => key(a.traceId, a.spanId)));
  const checksByAttempt = new Map<string, GuardCheckDto[]>();
  // Guard decisions outside any attempt (another instrumentation's guardrail spans) are steps of their own.
  const guards: Unstepped<GuardStepDto>[] = [];
  for (const g of guardChecks) {
    const check: GuardCheckDto = {
      spanId: g.spanId,
      guardName: g.guardName,
      stage: g.stage,
      verdict: g.verdict,
      reason: g.reason,
      decision: g.decision,
      failureClass: g.failureClass,
      failedPointers: pointerList(g.failedPointers),
      startedAt: g.startedAt.toISOString(),
      durationUs: g.durationUs,
    };
    const k = g.attemptSpanId ? key(g.traceId, g.attemptSpanId) : null;
    if (k && attemptKeys.has(k)) checksByAttempt.set(k, [...(checksByAttempt.get(k) ?? []), check]);
    else guards.push({ ...check, kind: 'guard', traceId: g.traceId });
  }

  const tools = new Map<string, Unstepped<ToolCallStepDto>>();
  for (const t of toolCalls) {
    tools.set(key(t.traceId, t.spanId), {
      kind: 'tool',
      spanId: t.spanId,
      traceId: t.traceId,
      toolName: t.toolName,
      callId: t.callId,
      startedAt: t.startedAt.toISOString(),
      durationMs: t.durationMs,
      outcome: t.outcome,
      failureClass: t.failureClass,
      failureReason: t.failureReason,
      decision: t.decision,
      flags: { readOnly: t.readOnly, idempotent: t.idempotent, destructive: t.destructive, external: t.external },
      idempotencyKey: t.idempotencyKey,
      arguments: t.arguments,
      attempts: [],
    });
  }

  const derived = new Set<string>([...toolCalls, ...guardChecks, ...modelCalls].map((r) => key(r.traceId, r.spanId)));
  for (const a of attempts) {
    const attempt: AttemptDto = {
      spanId: a.spanId,
      number: a.number,
      startedAt: a.startedAt.toISOString(),
      durationMs: a.durationMs,
      outcome: a.outcome,
      failureClass: a.failureClass,
      decision: a.decision,
      feedback: a.feedback,
      backoffMs: a.backoffMs,
      attemptsLeft: a.attemptsLeft,
      sessionRetriesLeft: a.sessionRetriesLeft,
      budgetExhausted: a.budgetExhausted,
      arguments: a.arguments,
      errorType: a.errorType,
      failureReason: a.failureReason,
      guardChecks: checksByAttempt.get(key(a.traceId, a.spanId)) ?? [],
    };
    derived.add(key(a.traceId, a.spanId));
    // An attempt whose tool-call span never arrived still shows, under a stand-in tool call.
    const parentKey = key(a.traceId, a.toolCallSpanId ?? a.spanId);
    let tool = tools.get(parentKey);
    if (!tool) {
      tool = standInToolCall(a.toolCallSpanId ?? a.spanId, a.traceId, a.toolName ?? 'unknown tool', attempt.startedAt);
      tools.set(parentKey, tool);
    }
    tool.attempts.push(attempt);
  }

  const models: Unstepped<ModelCallStepDto>[] = modelCalls.map((m) => ({
    kind: 'model',
    spanId: m.spanId,
    traceId: m.traceId,
    model: m.model,
    provider: m.provider,
    startedAt: m.startedAt.toISOString(),
    durationMs: m.durationMs,
    inputTokens: m.inputTokens,
    outputTokens: m.outputTokens,
    repairFailureClass: m.repairFailureClass,
    repairAttemptSpanId: m.repairAttemptSpanId,
  }));

  const roots = spans.filter((s) => isAgentRoot(s.name, s.attributes));
  const depthOf = spanDepths(spans, new Set(roots.map((r) => key(r.traceId, r.spanId))), key);
  const raw: Unstepped<RawSpanStepDto>[] = spans
    .filter((s) => !derived.has(key(s.traceId, s.spanId)) && !roots.includes(s))
    .map((s) => ({
      kind: 'span',
      spanId: s.spanId,
      traceId: s.traceId,
      parentSpanId: s.parentSpanId,
      name: s.name,
      serviceName: s.serviceName,
      startedAt: s.startTime.toISOString(),
      durationMs: Number(s.endTimeUnixNano - s.startTimeUnixNano) / 1e6,
      statusCode: s.statusCode,
      statusMessage: s.statusMessage,
      attributes: attributesText(s.attributes),
      depth: depthOf(key(s.traceId, s.spanId)),
    }));

  // Same millisecond: the model turn comes before the tool call it asked for.
  const rank = { model: 0, guard: 1, tool: 2, span: 3 } as const;
  const steps: TimelineStepDto[] = [...models, ...guards, ...tools.values(), ...raw]
    .sort(
      (a, b) =>
        a.startedAt.localeCompare(b.startedAt) || rank[a.kind] - rank[b.kind] || a.spanId.localeCompare(b.spanId),
    )
    .map((s, i) => ({ ...s, step: i + 1 }) as TimelineStepDto);

  const traceIds = new Set<string>([...spans, ...toolCalls, ...modelCalls].map((r) => r.traceId));
  const header: SessionHeaderDto = {
    id: session.id,
    agentName: session.agentName,
    serviceName: session.serviceName,
    userId: session.userId,
    startedAt: session.startedAt.toISOString(),
    endedAt: session.endedAt?.toISOString() ?? null,
    durationMs: session.endedAt ? session.endedAt.getTime() - session.startedAt.getTime() : null,
    outcome: session.outcome,
    spanCount: session.spanCount,
    toolCallCount: session.toolCallCount,
    attemptCount: session.attemptCount,
    failedAttemptCount: session.failedAttemptCount,
    modelCallCount: session.modelCallCount,
    inputTokens: Number(session.inputTokens),
    outputTokens: Number(session.outputTokens),
    repairTokens: Number(session.repairTokens),
    samplingWeight: session.samplingWeight,
    traceIds: [...traceIds].sort(),
  };

  return { session: header, steps, truncated };
}

function standInToolCall(spanId: string, traceId: string, toolName: string, startedAt: string) {
  return {
    kind: 'tool',
    spanId,
    traceId,
    toolName,
    callId: null,
    startedAt,
    durationMs: 0,
    outcome: null,
    failureClass: null,
    failureReason: null,
    decision: null,
    flags: { readOnly: null, idempotent: null, destructive: null, external: null },
    idempotencyKey: null,
    arguments: null,
    attempts: [],
  } satisfies Unstepped<ToolCallStepDto>;
}

// 8 levels of indentation: deeper trees stay readable instead of drifting off the page.
const MAX_DEPTH = 8;

/** Nesting of each span under its ancestors in this session (agent roots not counted). */
function spanDepths(
  spans: { traceId: string; spanId: string; parentSpanId: string | null }[],
  rootKeys: Set<string>,
  key: (traceId: string, spanId: string) => string,
): (k: string) => number {
  const parentOf = new Map<string, string | null>();
  for (const s of spans) parentOf.set(key(s.traceId, s.spanId), s.parentSpanId ? key(s.traceId, s.parentSpanId) : null);
  return (k) => {
    let depth = 0;
    let parent = parentOf.get(k) ?? null;
    while (parent && parentOf.has(parent) && !rootKeys.has(parent) && depth < MAX_DEPTH) {
      depth++;
      parent = parentOf.get(parent) ?? null;
    }
    return depth;
  };
}

function attr(attributes: Json, name: string): unknown {
  return attributes && typeof attributes === 'object' ? (attributes as Record<string, unknown>)[name] : undefined;
}

function isAgentRoot(name: string, attributes: Json): boolean {
  return attr(attributes, ATTR_GEN_AI_OPERATION_NAME) === OP_INVOKE_AGENT || name.startsWith(`${OP_INVOKE_AGENT} `);
}

function attributesText(attributes: Json): string {
  const text = JSON.stringify(attributes ?? {}, null, 2);
  return text.length > ATTRIBUTES_MAX_CHARS ? `${text.slice(0, ATTRIBUTES_MAX_CHARS)}\n… (truncated)` : text;
}

/** Cheap check for the page's 404: the session's row (the collector writes one for every session). */
export async function sessionExists(db: PrismaClient, projectId: string, sessionId: string): Promise<boolean> {
  const session = await db.session.findUnique({ where: { projectId_id: { projectId, id: sessionId } }, select: { id: true } });
  return session !== null;
}

/** The stored pointers of a failed check (a JSON array of strings), or none. */
function pointerList(v: Json): string[] {
  return Array.isArray(v) ? v.filter((p): p is string => typeof p === 'string') : [];
}
