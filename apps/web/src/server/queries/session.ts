import 'server-only';
import type { PrismaClient } from '@guardtrace/db';
import { OP_INVOKE_AGENT } from '@guardtrace/semconv';
import { orderSteps } from './replay-order.ts';
import { loadSpanFacts, type SpanFacts } from './session-spans.ts';
import type {
  AttemptDto,
  EscalationDto,
  GuardCheckDto,
  GuardStepDto,
  ModelCallStepDto,
  PreviewDto,
  RawSpanStepDto,
  SessionDetailDto,
  SessionHeaderDto,
  SpanNodeDto,
  TimelineStepDto,
  ToolCallStepDto,
} from './session-types.ts';

// 240 characters of each payload in the page: enough to recognise a value, small enough that a
// 5,000-span session stays a light page; the rest comes from the payload route on demand.
export const PREVIEW_CHARS = 240;
// Feedback is what the model was told: 600 characters show a whole typical message in place.
const FEEDBACK_PREVIEW_CHARS = 600;

type Unstepped<T> = Omit<T, 'step'>;
// Distributes over the union, so each kind keeps its own fields.
type StepDraft = TimelineStepDto extends infer T ? (T extends TimelineStepDto ? Unstepped<T> : never) : never;

function preview(text: string | null | undefined, max = PREVIEW_CHARS): PreviewDto | null {
  if (text === null || text === undefined) return null;
  return { text: text.length > max ? text.slice(0, max) : text, chars: text.length };
}

const key = (traceId: string, spanId: string) => `${traceId}:${spanId}`;
const INTERNAL_RETRY = new Set(['retry_backoff']);
const ESCALATING = new Set(['escalate_human', 'fail_reconcile', 'abort']);

/**
 * The replay: header totals, every step (no cap: all tool calls, attempts, guard checks, model
 * calls and other instrumentations' spans) in cause-and-effect order, and the span tree.
 * Payload values are previews. Null when the id is unknown.
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
  const [session, toolCalls, attempts, guardChecks, modelCalls, spans] = await Promise.all([
    db.session.findUnique({ where: { projectId_id: { projectId, id: sessionId } } }),
    db.toolCall.findMany({ where: scope }),
    db.attempt.findMany({ where: scope, orderBy: [{ number: 'asc' }, { startedAt: 'asc' }, { spanId: 'asc' }] }),
    db.guardCheck.findMany({ where: scope, orderBy: [{ startedAt: 'asc' }, { spanId: 'asc' }] }),
    db.modelCall.findMany({ where: scope }),
    loadSpanFacts(db, projectId, sessionId, PREVIEW_CHARS),
  ]);
  if (!session) return null;

  const facts = new Map<string, SpanFacts>(spans.map((s) => [key(s.traceId, s.spanId), s]));
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
    const f = facts.get(key(t.traceId, t.spanId));
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
      arguments: preview(t.arguments),
      result: f?.result ?? null,
      reconcileStatus: f?.reconcileStatus ?? null,
      deduplicated: f?.deduplicated ?? false,
      escalationReason: f?.escalationReason ?? null,
      attempts: [],
    });
  }

  const derived = new Set<string>([...toolCalls, ...guardChecks, ...modelCalls].map((r) => key(r.traceId, r.spanId)));
  const toolOfAttempt = new Map<string, string>();
  for (const a of attempts) {
    const f = facts.get(key(a.traceId, a.spanId));
    const attempt: AttemptDto = {
      spanId: a.spanId,
      number: a.number,
      toolName: a.toolName,
      startedAt: a.startedAt.toISOString(),
      durationMs: a.durationMs,
      outcome: a.outcome,
      failureClass: a.failureClass,
      decision: a.decision,
      feedback: preview(a.feedback, FEEDBACK_PREVIEW_CHARS),
      internalRetry: a.decision !== null && INTERNAL_RETRY.has(a.decision),
      backoffMs: a.backoffMs,
      budgets: {
        attemptsLeft: a.attemptsLeft,
        sessionRetriesLeft: a.sessionRetriesLeft,
        rejectionsLeft: f?.rejectionsLeft ?? null,
        latencyLeftMs: f?.latencyLeftMs ?? null,
        repairTokensLeft: f?.repairTokensLeft ?? null,
        exhausted: a.budgetExhausted,
      },
      escalationReason: f?.escalationReason ?? null,
      circuitState: f?.circuitState ?? null,
      fallbackTool: f?.fallbackTool ?? null,
      arguments: preview(a.arguments),
      errorType: a.errorType,
      failureReason: a.failureReason,
      guardChecks: checksByAttempt.get(key(a.traceId, a.spanId)) ?? [],
      repairedByStep: null,
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
    toolOfAttempt.set(a.spanId, parentKey);
  }
  for (const t of tools.values()) {
    if (!t.result) t.result = [...t.attempts].reverse().map((a) => facts.get(key(t.traceId, a.spanId))?.result).find(Boolean) ?? null;
  }

  const models: Unstepped<ModelCallStepDto>[] = modelCalls.map((m) => {
    const f = facts.get(key(m.traceId, m.spanId));
    return {
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
      repairs: null,
      corrected: null,
      input: f?.input ?? null,
      output: f?.output ?? null,
    };
  });

  const roots = spans.filter((s) => isAgentRoot(s.name, s.operation));
  const rootKeys = new Set(roots.map((r) => key(r.traceId, r.spanId)));
  const depthOf = spanDepths(spans, rootKeys);
  const raw: Unstepped<RawSpanStepDto>[] = spans
    .filter((s) => !derived.has(key(s.traceId, s.spanId)) && !rootKeys.has(key(s.traceId, s.spanId)))
    .map((s) => ({
      kind: 'span',
      spanId: s.spanId,
      traceId: s.traceId,
      parentSpanId: s.parentSpanId,
      name: s.name,
      serviceName: s.serviceName,
      startedAt: s.startedAt,
      durationMs: s.durationMs,
      statusCode: s.statusCode,
      statusMessage: s.statusMessage,
      depth: depthOf(key(s.traceId, s.spanId)),
      eventCount: s.eventCount,
      linkCount: s.linkCount,
    }));

  const steps = orderByChain([...models, ...guards, ...tools.values(), ...raw], facts, toolOfAttempt);
  linkRepairs(steps, toolOfAttempt);

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

  return { session: header, steps, spanTree: spanTree(spans, steps), escalations: escalationsOf(steps) };
}

const RANK = { model: 0, guard: 1, tool: 2, span: 3 } as const;

/** Steps in cause-and-effect order (see replay-order.ts), numbered from 1. */
function orderByChain(drafts: StepDraft[], facts: Map<string, SpanFacts>, toolOfAttempt: Map<string, string>): TimelineStepDto[] {
  const nodes = drafts.map((d) => {
    const ms = BigInt(Date.parse(d.startedAt));
    const ns = facts.get(key(d.traceId, d.spanId))?.startNs;
    // The raw span's nanoseconds order what the derived row's milliseconds tie, when both agree.
    const startNs = ns !== undefined && ns / 1_000_000n === ms ? ns : ms * 1_000_000n;
    return {
    draft: d,
    key: key(d.traceId, d.spanId),
    startNs,
    rank: RANK[d.kind],
    spanId: d.spanId,
    };
  });
  const edges: { before: string; after: string }[] = [];
  for (const d of drafts) {
    const k = key(d.traceId, d.spanId);
    const parent = d.kind === 'span' ? d.parentSpanId : facts.get(k)?.parentSpanId;
    if (parent) edges.push({ before: key(d.traceId, parent), after: k });
    // The repair turn follows the call whose attempt it repairs.
    if (d.kind === 'model' && d.repairAttemptSpanId) {
      const tool = toolOfAttempt.get(d.repairAttemptSpanId);
      if (tool) edges.push({ before: tool, after: k });
    }
  }
  return orderSteps(nodes, edges).map((n, i) => ({ ...n.draft, step: i + 1 }) as TimelineStepDto);
}

/** Fills the repair links both ways: attempt → repairing turn → corrected call. */
function linkRepairs(steps: TimelineStepDto[], toolOfAttempt: Map<string, string>): void {
  const stepOfKey = new Map(steps.map((s) => [key(s.traceId, s.spanId), s]));
  for (const m of steps) {
    if (m.kind !== 'model' || !m.repairAttemptSpanId) continue;
    const tool = stepOfKey.get(toolOfAttempt.get(m.repairAttemptSpanId) ?? '');
    if (tool?.kind !== 'tool') continue;
    const i = tool.attempts.findIndex((a) => a.spanId === m.repairAttemptSpanId);
    const failed = tool.attempts[i];
    if (!failed) continue;
    failed.repairedByStep = m.step;
    m.repairs = { step: tool.step, attempt: failed.number, toolName: failed.toolName ?? tool.toolName };
    // The correction is the same call's next attempt (a waiting call, maybe naming another tool),
    // else the first tool call after the repair turn.
    const next = tool.attempts[i + 1];
    if (next) m.corrected = { step: tool.step, attempt: next.number, toolName: next.toolName ?? tool.toolName };
    else {
      const after = steps.slice(m.step).find((s): s is ToolCallStepDto => s.kind === 'tool');
      if (after) m.corrected = { step: after.step, attempt: after.attempts[0]?.number ?? null, toolName: after.toolName };
    }
  }
}

/** Where and why the session escalated: each attempt or call whose decision handed it on. */
function escalationsOf(steps: TimelineStepDto[]): EscalationDto[] {
  const out: EscalationDto[] = [];
  for (const s of steps) {
    if (s.kind !== 'tool') continue;
    const hits = s.attempts.filter((a) => (a.decision && ESCALATING.has(a.decision)) || a.escalationReason);
    for (const a of hits) {
      out.push({
        step: s.step,
        attempt: a.number,
        toolName: a.toolName ?? s.toolName,
        decision: a.decision,
        reason: a.escalationReason ?? s.escalationReason ?? a.budgets.exhausted,
        failureClass: a.failureClass,
      });
    }
    if (!hits.length && ((s.decision && ESCALATING.has(s.decision)) || s.escalationReason)) {
      out.push({ step: s.step, attempt: null, toolName: s.toolName, decision: s.decision, reason: s.escalationReason, failureClass: s.failureClass });
    }
  }
  return out;
}

/** Every span, depth first under its parent (children in start order), with the step it is. */
function spanTree(spans: SpanFacts[], steps: TimelineStepDto[]): SpanNodeDto[] {
  const stepOf = new Map(steps.map((s) => [key(s.traceId, s.spanId), s.step]));
  const known = new Set(spans.map((s) => key(s.traceId, s.spanId)));
  const children = new Map<string, SpanFacts[]>();
  const tops: SpanFacts[] = [];
  const sorted = [...spans].sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : a.spanId.localeCompare(b.spanId)));
  for (const s of sorted) {
    const p = s.parentSpanId ? key(s.traceId, s.parentSpanId) : null;
    if (p && known.has(p)) children.set(p, [...(children.get(p) ?? []), s]);
    else tops.push(s);
  }
  const out: SpanNodeDto[] = [];
  const stack: { s: SpanFacts; depth: number }[] = tops.reverse().map((s) => ({ s, depth: 0 }));
  while (stack.length) {
    const { s, depth } = stack.pop() as { s: SpanFacts; depth: number };
    const k = key(s.traceId, s.spanId);
    out.push({
      spanId: s.spanId,
      traceId: s.traceId,
      parentSpanId: s.parentSpanId,
      name: s.name,
      serviceName: s.serviceName,
      scopeName: s.scopeName,
      startedAt: s.startedAt,
      durationMs: s.durationMs,
      statusCode: s.statusCode,
      statusMessage: s.statusMessage,
      depth: Math.min(depth, MAX_DEPTH * 2),
      eventCount: s.eventCount,
      linkCount: s.linkCount,
      step: stepOf.get(k) ?? null,
    });
    for (const c of [...(children.get(k) ?? [])].reverse()) stack.push({ s: c, depth: depth + 1 });
  }
  return out;
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
    result: null,
    reconcileStatus: null,
    deduplicated: false,
    escalationReason: null,
    attempts: [],
  } satisfies Unstepped<ToolCallStepDto>;
}

// 8 levels of indentation: deeper trees stay readable instead of drifting off the page.
const MAX_DEPTH = 8;

/** Nesting of each span under its ancestors in this session (agent roots not counted). */
function spanDepths(
  spans: { traceId: string; spanId: string; parentSpanId: string | null }[],
  rootKeys: Set<string>,
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

function isAgentRoot(name: string, operation: string | null): boolean {
  return operation === OP_INVOKE_AGENT || name.startsWith(`${OP_INVOKE_AGENT} `);
}

/** Cheap check for the page's 404: the session's row (the collector writes one for every session). */
export async function sessionExists(db: PrismaClient, projectId: string, sessionId: string): Promise<boolean> {
  const session = await db.session.findUnique({ where: { projectId_id: { projectId, id: sessionId } }, select: { id: true } });
  return session !== null;
}

/** The stored pointers of a failed check (a JSON array of strings), or none. */
function pointerList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((p): p is string => typeof p === 'string') : [];
}
