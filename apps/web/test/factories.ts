import { randomBytes } from 'node:crypto';
import { createProject, type PrismaClient, refreshAnalyticsRollup } from '@guardtrace/db';

/** Fresh ids, so test files and tests never collide and never truncate tables. */
const hex = (bytes: number) => randomBytes(bytes).toString('hex');
export const spanId = () => hex(8);
const traceId = () => hex(16);

export async function seedProject(prisma: PrismaClient, name = `project-${hex(3)}`, createdAt?: Date) {
  const project = await createProject(prisma, name);
  if (createdAt) await prisma.project.update({ where: { id: project.id }, data: { createdAt } });
  return project;
}

interface GuardSeed {
  guardName: string;
  stage?: string;
  verdict: 'pass' | 'fail';
  reason?: string;
  durationUs?: number;
  failureClass?: string;
  /** JSON pointers of the fields a failed check objects to (guard_checks.failed_pointers). */
  failedPointers?: string[];
}

export interface AttemptSeed {
  outcome: 'success' | 'rejected' | 'failed';
  failureClass?: string;
  decision?: string;
  feedback?: string;
  /** The budget that ran out on this attempt (guardtrace.budget.exhausted). */
  budgetExhausted?: string;
  backoffMs?: number;
  arguments?: string;
  failureReason?: string;
  guards?: GuardSeed[];
  /** The tool this attempt named, when not the call's (an unknown name the call was corrected from). */
  toolName?: string;
}

export interface ToolCallSeed {
  toolName: string;
  /** Offset from the session start. */
  atMs: number;
  attempts: AttemptSeed[];
  idempotent?: boolean;
  failureReason?: string;
  /** The SDK's step number (guardtrace.step.sequence), under the session's root span. */
  sequence?: number;
}

interface ModelCallSeed {
  model?: string;
  atMs: number;
  inputTokens: number;
  outputTokens: number;
  /** Cached input (gen_ai.usage.cache_read.input_tokens); 0 when not given. */
  cachedInputTokens?: number;
  repairFailureClass?: string;
  /** The attempt this turn repairs: [tool call index, attempt index] of this session. */
  repairs?: [number, number];
  /** The SDK's step number (guardtrace.step.sequence), under the session's root span. */
  sequence?: number;
}

export interface SessionSeed {
  id?: string;
  agentName?: string;
  userId?: string;
  startedAt: Date;
  durationMs?: number;
  outcome?: 'success' | 'failed' | 'escalated';
  samplingWeight?: number;
  toolCalls?: ToolCallSeed[];
  modelCalls?: ModelCallSeed[];
}

const at = (start: Date, ms: number) => new Date(start.getTime() + ms);

/** Inserts a session row and its derived tool calls, attempts, guard checks and model calls. */
export async function seedSession(prisma: PrismaClient, projectId: string, seed: SessionSeed) {
  const id = seed.id ?? `sess_${hex(6)}`;
  const trace = traceId();
  const base = { projectId, traceId: trace, sessionId: id };
  // The steps' parent: the session's root span, as the SDK records them (no span row of its own here).
  const rootSpanId = spanId();
  const toolCalls = seed.toolCalls ?? [];
  const modelCalls = seed.modelCalls ?? [];
  const toolSpanIds: string[] = [];
  const attemptSpanIds: string[][] = [];
  let attemptCount = 0;
  let failedAttemptCount = 0;

  for (const tc of toolCalls) {
    const toolSpan = spanId();
    toolSpanIds.push(toolSpan);
    const last = tc.attempts.at(-1);
    await prisma.toolCall.create({
      data: {
        ...base,
        spanId: toolSpan,
        toolName: tc.toolName,
        callId: `call_${hex(4)}`,
        startedAt: at(seed.startedAt, tc.atMs),
        durationMs: 40 * tc.attempts.length,
        outcome: last?.outcome ?? null,
        failureClass: tc.attempts.find((a) => a.failureClass)?.failureClass ?? null,
        failureReason: tc.failureReason ?? null,
        decision: last?.decision ?? null,
        attempts: tc.attempts.length,
        idempotent: tc.idempotent ?? true,
        arguments: tc.attempts[0]?.arguments ?? '{}',
        ...(tc.sequence !== undefined ? { parentSpanId: rootSpanId, stepSequence: tc.sequence } : {}),
      },
    });
    const ids: string[] = [];
    for (const [i, a] of tc.attempts.entries()) {
      const attemptSpan = spanId();
      ids.push(attemptSpan);
      attemptCount++;
      if (a.outcome !== 'success') failedAttemptCount++;
      const startedAt = at(seed.startedAt, tc.atMs + i * 40);
      await prisma.attempt.create({
        data: {
          ...base,
          spanId: attemptSpan,
          toolCallSpanId: toolSpan,
          toolName: a.toolName ?? tc.toolName,
          number: i + 1,
          startedAt,
          durationMs: 30,
          outcome: a.outcome,
          failureClass: a.failureClass ?? null,
          decision: a.decision ?? (a.outcome === 'success' ? 'proceed' : null),
          feedback: a.feedback ?? null,
          budgetExhausted: a.budgetExhausted ?? null,
          backoffMs: a.backoffMs ?? null,
          arguments: a.arguments ?? '{}',
          failureReason: a.failureReason ?? null,
        },
      });
      for (const [j, g] of (a.guards ?? []).entries()) {
        await prisma.guardCheck.create({
          data: {
            ...base,
            spanId: spanId(),
            attemptSpanId: attemptSpan,
            guardName: g.guardName,
            stage: g.stage ?? 'schema',
            verdict: g.verdict,
            reason: g.reason ?? null,
            failureClass: g.failureClass ?? null,
            ...(g.failedPointers ? { failedPointers: g.failedPointers } : {}),
            startedAt: at(startedAt, j),
            durationUs: g.durationUs ?? 12,
          },
        });
      }
    }
    attemptSpanIds.push(ids);
  }

  let inputTokens = 0;
  let outputTokens = 0;
  let repairTokens = 0;
  for (const m of modelCalls) {
    inputTokens += m.inputTokens;
    outputTokens += m.outputTokens;
    if (m.repairFailureClass || m.repairs) repairTokens += m.inputTokens + m.outputTokens;
    await prisma.modelCall.create({
      data: {
        ...base,
        spanId: spanId(),
        model: m.model ?? 'gpt-test',
        provider: 'openai',
        startedAt: at(seed.startedAt, m.atMs),
        durationMs: 500,
        inputTokens: m.inputTokens,
        outputTokens: m.outputTokens,
        cachedInputTokens: m.cachedInputTokens ?? 0,
        repairFailureClass: m.repairFailureClass ?? null,
        repairAttemptSpanId: m.repairs ? (attemptSpanIds[m.repairs[0]]?.[m.repairs[1]] ?? null) : null,
        ...(m.sequence !== undefined ? { parentSpanId: rootSpanId, stepSequence: m.sequence } : {}),
      },
    });
  }

  const durationMs = seed.durationMs ?? 5000;
  await prisma.session.create({
    data: {
      projectId,
      id,
      agentName: seed.agentName ?? 'test-agent',
      serviceName: 'test-service',
      userId: seed.userId ?? null,
      startedAt: seed.startedAt,
      endedAt: at(seed.startedAt, durationMs),
      outcome: seed.outcome ?? 'success',
      spanCount: 1 + toolCalls.length + attemptCount + modelCalls.length,
      toolCallCount: toolCalls.length,
      attemptCount,
      failedAttemptCount,
      modelCallCount: modelCalls.length,
      inputTokens: BigInt(inputTokens),
      outputTokens: BigInt(outputTokens),
      repairTokens: BigInt(repairTokens),
      samplingWeight: seed.samplingWeight ?? 1,
    },
  });
  // The analytics rollup, as the collector keeps it in the transaction that stores the rows.
  await refreshAnalyticsRollup(prisma, projectId, [id]);
  return { id, traceId: trace, toolSpanIds, attemptSpanIds };
}

export interface RawSpanSeed {
  name: string;
  atMs: number;
  durationMs?: number;
  parentSpanId?: string;
  attributes?: Record<string, unknown>;
  statusCode?: number;
}

/** A session row as the collector writes it (its totals as given), for sessions seeded as raw spans. */
export async function seedSessionRow(
  prisma: PrismaClient,
  projectId: string,
  id: string,
  row: Partial<Omit<Parameters<PrismaClient['session']['create']>[0]['data'], 'projectId' | 'id'>> = {},
) {
  const startedAt = new Date('2026-11-21T09:00:00.000Z');
  return prisma.session.create({
    data: { projectId, id, startedAt, endedAt: new Date(startedAt.getTime() + 3000), agentName: 'planner', serviceName: 'other-service', spanCount: 1, ...row },
  });
}

/** Raw spans only (another instrumentation's spans: no derived rows). */
export async function seedRawSpans(
  prisma: PrismaClient,
  projectId: string,
  sessionId: string,
  start: Date,
  spans: RawSpanSeed[],
  trace = traceId(),
) {
  const ids: string[] = [];
  for (const s of spans) {
    const id = spanId();
    ids.push(id);
    const startNs = BigInt(start.getTime() + s.atMs) * 1_000_000n;
    await prisma.span.create({
      data: {
        projectId,
        startTime: at(start, s.atMs),
        // The trace's start (the spans' partition key); the session's start stands in for it here.
        traceStart: start,
        traceId: trace,
        spanId: id,
        parentSpanId: s.parentSpanId ?? null,
        sessionId,
        name: s.name,
        startTimeUnixNano: startNs,
        endTimeUnixNano: startNs + BigInt((s.durationMs ?? 10) * 1_000_000),
        statusCode: s.statusCode ?? 0,
        serviceName: 'other-service',
        attributes: (s.attributes ?? {}) as object,
      },
    });
  }
  return { traceId: trace, spanIds: ids };
}

