import 'server-only';
import type { PriceBook, PrismaClient } from '@guardtrace/db';
import { ATTR_GUARDTRACE_DISCOVERY_FOR_CALL_ID } from '@guardtrace/semconv';
import { type CostDto, estimateSessionCosts } from './costs.ts';
import type { SessionHeaderDto } from './session-types.ts';

/** A session's header: its row's totals, trace ids, estimated cost (session.ts builds it with the steps, the page alone). */
type SessionRow = NonNullable<Awaited<ReturnType<PrismaClient['session']['findUnique']>>>;

export function headerOf(session: SessionRow, traceIds: string[], cost: CostDto, genAiEvents = false, runtimeToolCallCount = 0): SessionHeaderDto {
  return {
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
    runtimeToolCallCount,
    attemptCount: session.attemptCount,
    failedAttemptCount: session.failedAttemptCount,
    errorSpanCount: session.errorSpanCount,
    modelCallCount: session.modelCallCount,
    inputTokens: Number(session.inputTokens),
    outputTokens: Number(session.outputTokens),
    repairTokens: Number(session.repairTokens),
    cost,
    samplingWeight: session.samplingWeight,
    traceIds: [...traceIds].sort(),
    genAiEvents,
  };
}

/**
 * The session's header alone (its row and its trace ids), for the page's first paint: the
 * steps come separately (the replay route), so a 5,000-span session's page is as light as any.
 * Null when the id is unknown in the project.
 */
export async function getSessionHeader(db: PrismaClient, projectId: string, sessionId: string, book?: PriceBook): Promise<SessionHeaderDto | null> {
  const [session, traces, costs, events, runtime] = await Promise.all([
    db.session.findUnique({ where: { projectId_id: { projectId, id: sessionId } } }),
    db.$queryRaw<{ trace_id: string }[]>`
      SELECT trace_id FROM spans WHERE project_id = ${projectId}::uuid AND session_id = ${sessionId}
      UNION SELECT trace_id FROM tool_calls WHERE project_id = ${projectId}::uuid AND session_id = ${sessionId}
      UNION SELECT trace_id FROM model_calls WHERE project_id = ${projectId}::uuid AND session_id = ${sessionId}`,
    estimateSessionCosts(db, projectId, [sessionId], book),
    // Its model calls' GenAI events by the genai_events key's prefix: a probe a model call, the first found ends it.
    db.$queryRaw<{ found: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM model_calls m
        JOIN genai_events e ON e.project_id = m.project_id AND e.trace_id = m.trace_id AND e.span_id = m.span_id
        WHERE m.project_id = ${projectId}::uuid AND m.session_id = ${sessionId}) AS found`,
    // Tool calls the runtime ran itself (a declared discovery tool): counted among the session's tool calls, not the model's.
    db.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM spans WHERE project_id = ${projectId}::uuid AND session_id = ${sessionId}
        AND role = 'tool_call' AND attributes ? ${ATTR_GUARDTRACE_DISCOVERY_FOR_CALL_ID}`,
  ]);
  return session
    ? headerOf(session, traces.map((t) => t.trace_id), costs.get(sessionId) as CostDto, events[0]?.found === true, runtime[0]?.n ?? 0)
    : null;
}
