import 'server-only';
import { estimateCost, type PriceBook, type PrismaClient } from '@guardtrace/db';
import { OP_INVOKE_AGENT } from '@guardtrace/semconv';
import { type AutoRepairRow, autoRepairOf } from './auto-repair.ts';
import { numberParts, splitAtRepairs, stepKey } from './call-parts.ts';
import { priceBookOf } from './costs.ts';
import { escalationsOf, markReconcileResends } from './escalations.ts';
import { linkRepairs, MAX_DEPTH, orderByChain, type RepairLink, type StepSequence, sequenceOf, spanTree } from './replay-steps.ts';
import { headerOf } from './session-header.ts';
import { loadSessionRows } from './session-rows.ts';
import { loadSpanFacts, type SpanFacts } from './session-spans.ts';
import type {
  AttemptDto,
  GuardCheckDto,
  GuardrailResultDto,
  GuardStepDto,
  ModelCallStepDto,
  RawSpanStepDto,
  SessionDetailDto,
  SessionHeaderDto,
  ToolCallStepDto,
} from './session-types.ts';

// 240 characters of each payload in the page: enough to recognise a value, small enough that a
// 5,000-span session stays a light page; the rest comes from the payload route on demand.
export const PREVIEW_CHARS = 240;
// Feedback is what the model was told: 600 characters show a whole typical message in place.
const FEEDBACK_PREVIEW_CHARS = 600;

type Unstepped<T> = Omit<T, 'step'>;

const key = (traceId: string, spanId: string) => `${traceId}:${spanId}`;
const INTERNAL_RETRY = new Set(['retry_backoff']);

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
  /** `book`: the prices to cost model turns at (default: the project's, read from `db`). */
  opts: { spanTree?: boolean; book?: PriceBook } = {},
): Promise<SessionDetailDto | null> {
  // The steps alone need no guard-check span: their rows carry what the steps show (see below
  // for the few that stand alone). The span tree shows every span.
  const stepsOnly = opts.spanTree === false;
  const [session, rows, spans, prices] = await Promise.all([
    db.session.findUnique({ where: { projectId_id: { projectId, id: sessionId } } }),
    loadSessionRows(db, projectId, sessionId, PREVIEW_CHARS, FEEDBACK_PREVIEW_CHARS),
    loadSpanFacts(db, projectId, sessionId, PREVIEW_CHARS, { withoutGuardChecks: stepsOnly }),
    opts.book ?? priceBookOf(db, projectId),
  ]);
  if (!session) return null;
  const { toolCalls, attempts, guardChecks, modelCalls } = rows;

  // Each row's key made once: a 6,629-span session looks its spans up ~40,000 times.
  const spanKeys = spans.map((s) => key(s.traceId, s.spanId));
  const facts = new Map<string, SpanFacts>();
  // Indexed loops here: `entries()` made a pair per row (2.4 MB a 6,629-span build, in a heap profile).
  for (let i = 0; i < spans.length; i++) facts.set(spanKeys[i] as string, spans[i] as SpanFacts);
  const attemptKeys = attempts.map((a) => key(a.traceId, a.spanId));
  const checksByAttempt = new Map<string, GuardCheckDto[]>(attemptKeys.map((k) => [k, []]));
  // Another instrumentation's guardrails under a tool call's span belong to that call.
  const checksByTool = new Map<string, GuardCheckDto[]>(toolCalls.map((t) => [key(t.traceId, t.spanId), []]));
  // Guard decisions outside any attempt or call (e.g. guardrail spans under the agent) are steps of their own.
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
      startedAt: g.startedAt,
      durationUs: g.durationUs,
      results: resultList(g.guardrailResults),
    };
    const parent = g.attemptSpanId ? key(g.traceId, g.attemptSpanId) : null;
    const checks = parent === null ? undefined : (checksByAttempt.get(parent) ?? checksByTool.get(parent));
    if (checks) checks.push(check);
    else guards.push({ ...check, kind: 'guard', traceId: g.traceId });
  }
  // A guard check outside any attempt is a step, ordered by its span's parent and nanoseconds:
  // read those few spans when the first read left them out.
  const unread = guards.filter((g) => !facts.has(key(g.traceId, g.spanId)));
  if (stepsOnly && unread.length > 0) {
    const wanted = new Set(unread.map((g) => key(g.traceId, g.spanId)));
    for (const s of await loadSpanFacts(db, projectId, sessionId, PREVIEW_CHARS, { spanIds: unread.map((g) => g.spanId) })) {
      const k = key(s.traceId, s.spanId);
      if (!wanted.has(k)) continue;
      spans.push(s);
      spanKeys.push(k);
      facts.set(k, s);
    }
  }
  // The parent of each guard-check span left unread (its check's attempt_span_id is its parent
  // span id): a span under it keeps its depth.
  const unreadParents = new Map<string, string>();
  for (const g of guardChecks) {
    const k = key(g.traceId, g.spanId);
    if (g.attemptSpanId && !facts.has(k)) unreadParents.set(k, key(g.traceId, g.attemptSpanId));
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
      startedAt: t.startedAt,
      durationMs: t.durationMs,
      outcome: t.outcome,
      failureClass: t.failureClass,
      failureReason: t.failureReason,
      definitionHash: t.definitionHash,
      decision: t.decision,
      flags: { readOnly: t.readOnly, idempotent: t.idempotent, destructive: t.destructive, external: t.external },
      idempotencyKey: t.idempotencyKey,
      arguments: t.arguments,
      result: f?.result ?? null,
      reconcileStatus: f?.reconcileStatus ?? null,
      deduplicated: f?.deduplicated ?? false,
      escalationReason: f?.escalationReason ?? null,
      discoveryFor: f?.discoveryFor ?? null,
      toolNames: [],
      part: null,
      attempts: [],
      guardChecks: checksByTool.get(key(t.traceId, t.spanId)) ?? [],
    });
  }

  const derived = new Set<string>();
  for (const rows of [toolCalls, guardChecks, modelCalls]) for (const r of rows) derived.add(key(r.traceId, r.spanId));
  const toolOfAttempt = new Map<string, string>();
  const repairLinks = new Map<string, RepairLink>();
  const inCode: [AttemptDto, Unstepped<ToolCallStepDto>, AutoRepairRow][] = [];
  for (let i = 0; i < attempts.length; i++) {
    const a = attempts[i] as (typeof attempts)[number];
    if (a.repairSpanId || a.correctionSpanId) {
      repairLinks.set(a.spanId, { repairSpanId: a.repairSpanId, correctionSpanId: a.correctionSpanId, correctionAttempt: a.correctionAttempt });
    }
    const k = attemptKeys[i] as string;
    const f = facts.get(k);
    const attempt: AttemptDto = {
      spanId: a.spanId,
      number: a.number,
      toolName: a.toolName,
      startedAt: a.startedAt,
      durationMs: a.durationMs,
      outcome: a.outcome,
      failureClass: a.failureClass,
      decision: a.decision,
      feedback: a.feedback,
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
      arguments: a.arguments,
      errorType: a.errorType,
      failureReason: a.failureReason,
      guardChecks: checksByAttempt.get(k) ?? [],
      repairedByStep: null,
      autoRepair: null,
    };
    derived.add(k);
    // An attempt whose tool-call span never arrived still shows, under a stand-in tool call.
    const parentKey = key(a.traceId, a.toolCallSpanId ?? a.spanId);
    let tool = tools.get(parentKey);
    if (!tool) {
      tool = standInToolCall(a.toolCallSpanId ?? a.spanId, a.traceId, a.toolName ?? 'unknown tool', attempt.startedAt);
      tools.set(parentKey, tool);
    }
    tool.attempts.push(attempt);
    toolOfAttempt.set(a.spanId, parentKey);
    if (a.autoRepairKind !== null) inCode.push([attempt, tool, { kind: a.autoRepairKind, pointers: pointerList(a.autoRepairPointers), tool: a.autoRepairTool }]);
  }
  // Repairs in code, once each call holds all its attempts: the corrected one is the next.
  for (const [attempt, tool, row] of inCode) {
    attempt.autoRepair = autoRepairOf(attempt, row, tool.attempts.find((x) => x.number === attempt.number + 1));
  }
  for (const t of tools.values()) markReconcileResends(t);
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
      startedAt: m.startedAt,
      durationMs: m.durationMs,
      inputTokens: m.inputTokens,
      outputTokens: m.outputTokens,
      cachedInputTokens: m.cachedInputTokens,
      cost: estimateCost([m], prices),
      repairFailureClass: m.repairFailureClass,
      repairAttemptSpanId: m.repairAttemptSpanId,
      repairs: null,
      repairsInferred: false,
      corrected: null,
      input: f?.input ?? null,
      output: f?.output ?? null,
    };
  });

  const rootKeys = new Set(spanKeys.filter((_, i) => isAgentRoot((spans[i] as SpanFacts).name, (spans[i] as SpanFacts).operation)));
  const depthOf = spanDepths(spans, spanKeys, rootKeys, unreadParents);
  const raw: Unstepped<RawSpanStepDto>[] = [];
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i] as SpanFacts;
    const k = spanKeys[i] as string;
    if (derived.has(k) || rootKeys.has(k)) continue;
    raw.push({
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
      depth: depthOf(k),
      eventCount: s.eventCount,
      linkCount: s.linkCount,
    });
  }

  const sequences = new Map<string, StepSequence>();
  for (const rows of [toolCalls, modelCalls]) {
    for (const r of rows) {
      const s = sequenceOf(r);
      if (s) sequences.set(key(r.traceId, r.spanId), s);
    }
  }
  // A waiting call the model repaired is listed in parts (call-parts.ts): each attempt then belongs to its part's step.
  const repaired = new Set<string>();
  for (const m of models) if (m.repairAttemptSpanId) repaired.add(m.repairAttemptSpanId);
  const toolSteps = splitAtRepairs([...tools.values()], repaired);
  for (const t of toolSteps) if (t.part) for (const a of t.attempts) toolOfAttempt.set(a.spanId, stepKey(t));
  const steps = orderByChain([...models, ...guards, ...toolSteps, ...raw], facts, toolOfAttempt, sequences);
  numberParts(steps);
  linkRepairs(steps, toolOfAttempt, repairLinks);

  const traceIds = new Set<string>();
  for (const rows of [spans, toolCalls, guardChecks, modelCalls]) for (const r of rows) traceIds.add(r.traceId);
  let runtimeCalls = 0;
  for (const t of tools.values()) if (t.discoveryFor) runtimeCalls++;
  const header = headerOf(session, [...traceIds], estimateCost(modelCalls, prices), false, runtimeCalls);

  // The span tree is every span again: the replay loads it only when the tree view opens.
  return { session: header, steps, spanTree: opts.spanTree === false ? [] : spanTree(spans, steps), escalations: escalationsOf(steps) };
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
    toolNames: [],
    part: null,
    attempts: [],
  } satisfies Unstepped<ToolCallStepDto>;
}

// 8 levels of indentation: deeper trees stay readable instead of drifting off the page.

/** Nesting of each span under its ancestors in this session (agent roots not counted); `unread`: parents of spans not read. */
function spanDepths(
  spans: { traceId: string; spanId: string; parentSpanId: string | null }[],
  spanKeys: string[],
  rootKeys: Set<string>,
  unread: Map<string, string>,
): (k: string) => number {
  const parentOf = new Map<string, string | null>(unread);
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i] as (typeof spans)[number];
    parentOf.set(spanKeys[i] as string, s.parentSpanId ? key(s.traceId, s.parentSpanId) : null);
  }
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

/** The stored pointers of a failed check (a JSON array of strings), or none. */
function pointerList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((p): p is string => typeof p === 'string') : [];
}

const RESULT_TEXT_KEYS = ['component', 'provider', 'policyId', 'policyVersion', 'ruleId', 'source', 'type', 'value', 'reason', 'riskCategory'] as const;

/** The stored native results of a guardrail (guard_checks.guardrail_results), their known keys only. */
function resultList(v: unknown): GuardrailResultDto[] {
  if (!Array.isArray(v)) return [];
  const out: GuardrailResultDto[] = [];
  for (const r of v) {
    if (r === null || typeof r !== 'object') continue;
    const o = r as Record<string, unknown>;
    const dto: GuardrailResultDto = {};
    for (const k of RESULT_TEXT_KEYS) if (typeof o[k] === 'string') dto[k] = o[k];
    if (typeof o.riskScore === 'number') dto.riskScore = o.riskScore;
    out.push(dto);
  }
  return out;
}
