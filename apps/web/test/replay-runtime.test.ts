/** The replay of what the runtime records (budgets, idempotency, reconcile, escalations) and its payloads, from stored rows. */
import { describe, expect, it } from 'vitest';
import { getSessionDetail, PREVIEW_CHARS } from '../src/server/queries/session.ts';
import { getPayload, PAYLOAD_CHARS } from '../src/server/queries/session-payload.ts';
import type { ModelCallStepDto, ToolCallStepDto } from '../src/server/queries/session-types.ts';
import { setupTestDatabase } from './db.ts';
import { type AttemptSeed, seedProject, seedSession, type ToolCallSeed } from './factories.ts';
import { rawSpan, t0 } from './replay-fixtures.ts';

const db = setupTestDatabase();

describe('replay: what the runtime records', () => {
  it('shows every budget at each attempt, idempotency, reconcile, the store answer and where and why the session escalated', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const s = await seedSession(prisma, project.id, {
      startedAt: t0,
      outcome: 'escalated',
      toolCalls: [
        { toolName: 'charge_card', atMs: 10, idempotent: false, attempts: [{ outcome: 'failed', failureClass: 'uncertain_side_effect', decision: 'fail_reconcile' }] },
        { toolName: 'send_email', atMs: 500, attempts: [{ outcome: 'rejected', failureClass: 'invalid_arguments', decision: 'escalate_human' }] },
      ],
    });
    const [charge, email] = s.toolSpanIds;
    await prisma.toolCall.update({
      where: { projectId_traceId_spanId: { projectId: project.id, traceId: s.traceId, spanId: charge! } },
      data: { idempotencyKey: `idk_${'a'.repeat(200)}` },
    });
    await rawSpan(prisma, project.id, s.id, s.traceId, charge!, 10, { 'guardtrace.reconcile.status': 'committed', 'guardtrace.deduplicated': true });
    await rawSpan(prisma, project.id, s.id, s.traceId, s.attemptSpanIds[1]![0]!, 500, {
      'guardtrace.budget.attempts_left': 0,
      'guardtrace.budget.rejections_left': 0,
      'guardtrace.budget.latency_left_ms': 28750,
      'guardtrace.budget.repair_tokens_left': 182000,
      'guardtrace.escalation.reason': 'repeated_rejection',
    });
    await prisma.attempt.update({
      where: { projectId_traceId_spanId: { projectId: project.id, traceId: s.traceId, spanId: s.attemptSpanIds[1]![0]! } },
      data: { attemptsLeft: 0, sessionRetriesLeft: 7, budgetExhausted: 'rejections_per_task' },
    });
    void email;

    const detail = await getSessionDetail(prisma, project.id, s.id);
    const [c, e] = detail!.steps as ToolCallStepDto[];
    expect(c).toMatchObject({ idempotencyKey: `idk_${'a'.repeat(200)}`, reconcileStatus: 'committed', deduplicated: true });
    expect(e!.attempts[0]!.budgets).toEqual({
      attemptsLeft: 0,
      sessionRetriesLeft: 7,
      rejectionsLeft: 0,
      latencyLeftMs: 28750,
      repairTokensLeft: 182000,
      exhausted: 'rejections_per_task',
    });
    expect(e!.attempts[0]!.escalationReason).toBe('repeated_rejection');
    expect(detail!.escalations).toEqual([
      {
        step: 1,
        attempt: 1,
        toolName: 'charge_card',
        decision: 'fail_reconcile',
        reason: null,
        failureClass: 'uncertain_side_effect',
        reconcileStatus: 'committed',
        kind: 'reconcile',
        why: 'side effect uncertain, not retried; reconcile answered committed',
      },
      {
        step: 2,
        attempt: 1,
        toolName: 'send_email',
        decision: 'escalate_human',
        reason: 'repeated_rejection',
        failureClass: 'invalid_arguments',
        reconcileStatus: null,
        kind: 'budget',
        why: 'because repeated rejection',
      },
    ]);
  });

  it('a charge the reconcile hook proved not made, sent again by the runtime, is no escalation and its error was not shown to the model', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const s = await seedSession(prisma, project.id, {
      startedAt: t0,
      outcome: 'success',
      toolCalls: [
        {
          toolName: 'charge_card',
          atMs: 10,
          idempotent: false,
          attempts: [
            { outcome: 'failed', failureClass: 'uncertain_side_effect', decision: 'fail_reconcile', feedback: 'charge_card failed: Tool call timed out after 150 ms' },
            { outcome: 'success', decision: 'proceed' },
          ],
        },
        // not proved: the runtime does not send it again, and it is an escalation as before
        { toolName: 'charge_card', atMs: 500, idempotent: false, attempts: [{ outcome: 'failed', failureClass: 'uncertain_side_effect', decision: 'fail_reconcile' }] },
      ],
    });
    const [resent, unknown] = s.toolSpanIds;
    await rawSpan(prisma, project.id, s.id, s.traceId, resent!, 10, { 'guardtrace.reconcile.status': 'not_committed' });
    await rawSpan(prisma, project.id, s.id, s.traceId, unknown!, 500, { 'guardtrace.reconcile.status': 'unknown' });
    const detail = await getSessionDetail(prisma, project.id, s.id);
    const [c, u] = detail!.steps as ToolCallStepDto[];
    expect(c!.attempts.map((a) => a.resentAfterReconcile ?? false)).toEqual([true, false]);
    expect(u!.attempts.map((a) => a.resentAfterReconcile ?? false)).toEqual([false]);
    expect(detail!.escalations.map((e) => [e.step, e.why])).toEqual([[u!.step, 'side effect uncertain, not retried; reconcile answered unknown']]);
  });

  it('says why every escalation happened: the recorded reason, the budget, the failed guard, the error, the feedback, else class and decision', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const abort = (extra: Partial<AttemptSeed>): ToolCallSeed => ({
      toolName: 'read_file',
      atMs: 0,
      attempts: [{ outcome: 'failed', failureClass: 'fatal', decision: 'abort', ...extra }],
    });
    const calls: ToolCallSeed[] = [
      // A guard violation the runtime aborted on: the guard's reason.
      {
        toolName: 'read_file',
        atMs: 0,
        attempts: [
          {
            outcome: 'rejected',
            failureClass: 'guard_violation',
            decision: 'abort',
            feedback: 'Paths outside the workspace are not allowed.',
            guards: [
              { guardName: 'schema', verdict: 'pass' },
              { guardName: 'path_injection', verdict: 'fail', reason: 'path escapes the workspace', failureClass: 'guard_violation' },
            ],
          },
        ],
      },
      // A fatal error with its message.
      abort({ failureReason: 'Error: 401 Unauthorized (invalid API key)' }),
      // A fatal error that only repeats its class as the message: the feedback says more.
      abort({ failureReason: 'fatal', feedback: 'The API key was refused; ask an operator.' }),
      // Nothing recorded beyond class and decision.
      abort({}),
      // A budget that ran out, with no escalation reason attribute.
      {
        toolName: 'fetch_fx_rate',
        atMs: 0,
        attempts: [
          { outcome: 'failed', failureClass: 'transient', decision: 'retry_backoff', failureReason: '503 Service Unavailable' },
          { outcome: 'failed', failureClass: 'budget_exhausted', decision: 'escalate_human', budgetExhausted: 'attempts_per_call', failureReason: '503 Service Unavailable' },
        ],
      },
    ];
    const s = await seedSession(prisma, project.id, { startedAt: t0, outcome: 'escalated', toolCalls: calls.map((c, i) => ({ ...c, atMs: i * 1000 })) });
    // The error type alone (no message): named as the error.
    await prisma.attempt.update({
      where: { projectId_traceId_spanId: { projectId: project.id, traceId: s.traceId, spanId: s.attemptSpanIds[3]![0]! } },
      data: { errorType: '401' },
    });
    const calls2 = await seedSession(prisma, project.id, { startedAt: t0, outcome: 'failed', toolCalls: [abort({})] });

    const why = async (id: string) => (await getSessionDetail(prisma, project.id, id))!.escalations.map((e) => [e.step, e.kind, e.why]);
    expect(await why(s.id)).toEqual([
      [1, 'abort', 'aborted after a guard violation failure: path_injection: path escapes the workspace'],
      [2, 'abort', 'aborted after a fatal failure: Error: 401 Unauthorized (invalid API key)'],
      [3, 'abort', 'aborted after a fatal failure: feedback: “The API key was refused; ask an operator.”'],
      [4, 'abort', 'aborted after a fatal failure: error 401'],
      [5, 'budget', 'the attempts per call budget ran out (503 Service Unavailable)'],
    ]);
    expect(await why(calls2.id)).toEqual([[1, 'abort', 'aborted after a fatal failure (no message recorded)']]);
  });

  it('previews payloads in the page and serves them truncated, then whole, from the payload query, scoped by project', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const other = await seedProject(prisma);
    const big = JSON.stringify({ content: 'x'.repeat(40_000) });
    const s = await seedSession(prisma, project.id, {
      startedAt: t0,
      toolCalls: [{ toolName: 'write_file', atMs: 0, attempts: [{ outcome: 'success', arguments: big }] }],
      modelCalls: [{ atMs: 100, inputTokens: 1, outputTokens: 1 }],
    });
    const attempt = s.attemptSpanIds[0]![0]!;
    const model = await prisma.modelCall.findFirstOrThrow({ where: { projectId: project.id, sessionId: s.id } });
    const prompt = JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'y'.repeat(1000) }] }]);
    await rawSpan(prisma, project.id, s.id, s.traceId, model.spanId, 100, { 'gen_ai.input.messages': prompt, 'gen_ai.output.messages': '[]' });

    const detail = await getSessionDetail(prisma, project.id, s.id);
    const call = detail!.steps.find((x) => x.kind === 'tool') as ToolCallStepDto;
    expect(call.attempts[0]!.arguments).toEqual({ text: big.slice(0, PREVIEW_CHARS), chars: big.length });
    const turn = detail!.steps.find((x) => x.kind === 'model') as ModelCallStepDto;
    expect(turn.input).toEqual({ text: prompt.slice(0, PREVIEW_CHARS), chars: prompt.length });
    expect(turn.output).toEqual({ text: '[]', chars: 2 });

    const q = { kind: 'arguments' as const, traceId: s.traceId, spanId: attempt };
    const cut = await getPayload(prisma, project.id, s.id, { ...q, full: false });
    expect(cut).toEqual({ value: big.slice(0, PAYLOAD_CHARS), chars: big.length, truncated: true });
    expect((await getPayload(prisma, project.id, s.id, { ...q, full: true }))?.value).toBe(big);
    expect((await getPayload(prisma, project.id, s.id, { kind: 'input', traceId: s.traceId, spanId: model.spanId, full: false }))?.value).toBe(prompt);
    // Another project, or another session, never sees it.
    expect(await getPayload(prisma, other.id, s.id, { ...q, full: true })).toBeNull();
    expect(await getPayload(prisma, project.id, 'another-session', { ...q, full: true })).toBeNull();
  });
});
