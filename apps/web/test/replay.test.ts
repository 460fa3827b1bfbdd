/** The replay's cause and effect, from stored rows. What the runtime records: replay-runtime.test.ts. */
import { describe, expect, it } from 'vitest';
import { getRejectionEffectiveness } from '../src/server/queries/analytics.ts';
import { getSessionDetail } from '../src/server/queries/session.ts';
import type { ModelCallStepDto, ToolCallStepDto } from '../src/server/queries/session-types.ts';
import { setupTestDatabase } from './db.ts';
import { seedProject, seedSession } from './factories.ts';
import { repairTurn, t0 } from './replay-fixtures.ts';

const db = setupTestDatabase();

describe('replay: cause and effect', () => {
  it('puts the repair turn after the rejection it repairs, even when its clock says earlier, and links the corrected call', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const s = await seedSession(prisma, project.id, {
      startedAt: t0,
      toolCalls: [
        {
          toolName: 'reed_file',
          atMs: 1000,
          attempts: [
            { outcome: 'rejected', failureClass: 'unknown_tool', decision: 'reject_with_feedback', feedback: 'Valid tools: read_file' },
            { outcome: 'success' },
          ],
        },
        { toolName: 'write_file', atMs: 3000, attempts: [{ outcome: 'success' }] },
      ],
    });
    // The correction names another tool: the waiting call's second attempt is read_file.
    const [rejected, corrected] = s.attemptSpanIds[0]!;
    await prisma.attempt.update({
      where: { projectId_traceId_spanId: { projectId: project.id, traceId: s.traceId, spanId: corrected! } },
      data: { toolName: 'read_file' },
    });
    // The repair turn's clock is 1 ms *before* the rejected call started (skewed clocks).
    const turn = await repairTurn(prisma, project.id, s.id, s.traceId, 999, rejected!);

    const detail = await getSessionDetail(prisma, project.id, s.id);
    const steps = detail!.steps;
    // Cause → effect: the failed attempt, the repair turn, the corrected attempt (the waiting call's
    // second part), each listed with the tools the model named so far.
    expect(steps.map((x) => (x.kind === 'tool' ? x.toolNames.join(' → ') : x.kind))).toEqual(['reed_file', 'model', 'reed_file → read_file', 'write_file']);
    const model = steps[1] as ModelCallStepDto;
    expect(model.spanId).toBe(turn);
    expect(model.repairs).toEqual({ step: 1, attempt: 1, toolName: 'reed_file' });
    expect(model.corrected).toEqual({ step: 3, attempt: 2, toolName: 'read_file' });
    const [failed, , part2] = steps as ToolCallStepDto[];
    expect([failed!.spanId, failed!.part]).toEqual([part2!.spanId, { index: 0, count: 2, steps: [1, 3] }]);
    expect(part2!.part).toEqual({ index: 1, count: 2, steps: [1, 3] });
    // Each part lasts as long as its own attempts: the rejected one 30 ms, not the whole call's 80 ms.
    expect([failed!.durationMs, part2!.durationMs]).toEqual([30, 30]);
    expect(failed!.attempts.map((a) => [a.number, a.toolName, a.repairedByStep])).toEqual([[1, 'reed_file', 2]]);
    expect(part2!.attempts.map((a) => [a.number, a.toolName, a.repairedByStep])).toEqual([[2, 'read_file', null]]);
    // The call's arguments stay on its first part; the span tree points at it.
    expect(part2!.arguments).toBeNull();
    expect((steps[3] as ToolCallStepDto).part).toBeNull();
  });

  it("says a link the collector inferred (another instrumentation's failure, the first model call after it) is no counted repair", async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const s = await seedSession(prisma, project.id, {
      startedAt: t0,
      toolCalls: [
        { toolName: 'read_config', atMs: 1000, attempts: [{ outcome: 'failed', failureClass: 'missing_resource', decision: undefined }] },
        { toolName: 'read_config', atMs: 3000, attempts: [{ outcome: 'success' }] },
      ],
      // A model turn after the failure that names no attempt (no guardtrace.repair.* attribute).
      modelCalls: [{ atMs: 2000, inputTokens: 700, outputTokens: 20 }],
    });
    const turn = await prisma.modelCall.findFirstOrThrow({ where: { projectId: project.id, sessionId: s.id } });
    // What the collector's link of corrections stores for such a failure.
    await prisma.attempt.update({
      where: { projectId_traceId_spanId: { projectId: project.id, traceId: s.traceId, spanId: s.attemptSpanIds[0]![0]! } },
      data: { repairSpanId: turn.spanId, correctionSpanId: s.toolSpanIds[1]!, correctionAttempt: 1, fixed: true },
    });
    const detail = await getSessionDetail(prisma, project.id, s.id);
    const model = detail!.steps.find((x) => x.kind === 'model') as ModelCallStepDto;
    expect(model.repairs).toEqual({ step: 1, attempt: 1, toolName: 'read_config' });
    expect(model.repairsInferred).toBe(true);
    expect(model.repairFailureClass).toBeNull();
    // The failed attempt says so too (before: "Repaired by the model turn at step 2", as if recorded).
    const failed = detail!.steps.find((x) => x.kind === 'tool') as ToolCallStepDto;
    expect([failed.attempts[0]?.repairedByStep, failed.attempts[0]?.repairedByInferred]).toEqual([2, true]);
    // Its tokens are no repair tokens: the session's count has none.
    expect(detail!.session.repairTokens).toBe(0);
  });

  it('links a repair turn to the next call when the correction is a new call, and orders same-millisecond ties by the chain', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const s = await seedSession(prisma, project.id, {
      startedAt: t0,
      toolCalls: [
        { toolName: 'search', atMs: 500, attempts: [{ outcome: 'rejected', failureClass: 'invalid_arguments', decision: 'reject_with_feedback' }] },
        { toolName: 'grep', atMs: 500, attempts: [{ outcome: 'success' }] },
      ],
    });
    // Every step in the same millisecond: only the chain can order them.
    await repairTurn(prisma, project.id, s.id, s.traceId, 500, s.attemptSpanIds[0]![0]!);
    const detail = await getSessionDetail(prisma, project.id, s.id);
    const names = detail!.steps.map((x) => (x.kind === 'tool' ? x.toolName : x.kind));
    const search = names.indexOf('search');
    const model = names.indexOf('model');
    expect(search).toBeLessThan(model);
    const turn = detail!.steps[model] as ModelCallStepDto;
    expect(turn.repairs?.toolName).toBe('search');
    // The correction is the new call (the first started at or after the repair turn, as the collector
    // links it), wherever the tie of their millisecond puts it in the list.
    expect(turn.corrected).toEqual({ step: names.indexOf('grep') + 1, attempt: 1, toolName: 'grep' });
  });

  it('shows the corrected call analytics counts: another tool name, a new call, a correction that failed again', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const s = await seedSession(prisma, project.id, {
      startedAt: t0,
      toolCalls: [
        { toolName: 'search_codebase', atMs: 100, attempts: [{ outcome: 'rejected', failureClass: 'unknown_tool', decision: 'reject_with_feedback', feedback: 'Did you mean "search_files"?' }] },
        { toolName: 'search_files', atMs: 300, attempts: [{ outcome: 'rejected', failureClass: 'invalid_arguments', decision: 'reject_with_feedback', feedback: 'Missing "query"' }] },
        { toolName: 'search_files', atMs: 500, attempts: [{ outcome: 'success' }] },
      ],
      modelCalls: [
        { atMs: 200, inputTokens: 10, outputTokens: 1, repairs: [0, 0] },
        { atMs: 400, inputTokens: 10, outputTokens: 1, repairs: [1, 0] },
      ],
    });
    const steps = (await getSessionDetail(prisma, project.id, s.id))!.steps;
    expect(steps.map((x) => (x.kind === 'tool' ? x.toolName : x.kind))).toEqual(['search_codebase', 'model', 'search_files', 'model', 'search_files']);
    expect((steps[1] as ModelCallStepDto).corrected).toEqual({ step: 3, attempt: 1, toolName: 'search_files' });
    expect((steps[3] as ModelCallStepDto).corrected).toEqual({ step: 5, attempt: 1, toolName: 'search_files' });
    // The same links, counted: the first correction failed again, the second worked.
    expect(await getRejectionEffectiveness(prisma, project.id, { from: '2026-01-01', to: '2026-12-31' })).toEqual([
      { tool: 'search_files', failureClass: 'invalid_arguments', template: 'Missing "…"', rejections: 1, fixed: 1 },
      { tool: 'search_codebase', failureClass: 'unknown_tool', template: 'Did you mean "…"?', rejections: 1, fixed: 0 },
    ]);
  });

  it("links another instrumentation's failed call to the model's next turn and the call it made (no repair attribute)", async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const s = await seedSession(prisma, project.id, {
      startedAt: t0,
      toolCalls: [
        { toolName: 'search_files', atMs: 100, attempts: [{ outcome: 'failed', failureClass: 'tool_error', failureReason: 'TimeoutError' }] },
        { toolName: 'search_files', atMs: 300, attempts: [{ outcome: 'success' }] },
      ],
      modelCalls: [
        { atMs: 0, inputTokens: 10, outputTokens: 1 },
        { atMs: 200, inputTokens: 10, outputTokens: 1 },
      ],
    });
    const steps = (await getSessionDetail(prisma, project.id, s.id))!.steps;
    expect(steps.map((x) => x.kind)).toEqual(['model', 'tool', 'model', 'tool']);
    expect((steps[1] as ToolCallStepDto).attempts[0]?.repairedByStep).toBe(3);
    expect((steps[2] as ModelCallStepDto).repairs).toEqual({ step: 2, attempt: 1, toolName: 'search_files' });
    expect((steps[2] as ModelCallStepDto).corrected).toEqual({ step: 4, attempt: 1, toolName: 'search_files' });
    expect((steps[0] as ModelCallStepDto).repairs).toBeNull();
    expect(await getRejectionEffectiveness(prisma, project.id, { from: '2026-01-01', to: '2026-12-31' })).toEqual([
      { tool: 'search_files', failureClass: 'tool_error', template: '', rejections: 1, fixed: 1 },
    ]);
  });

  it('orders steps of the same millisecond by their recorded sequence, not by kind or span id', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    // The loop: a turn (1), a call (2), the next turn (3), the next call (4), all at 500 ms.
    // By kind alone both turns would come before both calls; by span id, in any order.
    const s = await seedSession(prisma, project.id, {
      startedAt: t0,
      toolCalls: [
        { toolName: 'grep', atMs: 500, sequence: 4, attempts: [{ outcome: 'success' }] },
        { toolName: 'search', atMs: 500, sequence: 2, attempts: [{ outcome: 'success' }] },
      ],
      modelCalls: [
        { model: 'second-turn', atMs: 500, inputTokens: 1, outputTokens: 1, sequence: 3 },
        { model: 'first-turn', atMs: 500, inputTokens: 1, outputTokens: 1, sequence: 1 },
      ],
    });
    const detail = await getSessionDetail(prisma, project.id, s.id);
    expect(detail!.steps.map((x) => [x.step, x.kind === 'tool' ? x.toolName : x.kind === 'model' ? x.model : x.kind])).toEqual([
      [1, 'first-turn'],
      [2, 'search'],
      [3, 'second-turn'],
      [4, 'grep'],
    ]);
  });

  it('labels internal (backoff) retries as such, not as feedback shown to the model', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const s = await seedSession(prisma, project.id, {
      startedAt: t0,
      toolCalls: [
        {
          toolName: 'fetch_url',
          atMs: 0,
          attempts: [
            { outcome: 'failed', failureClass: 'transient', decision: 'retry_backoff', backoffMs: 400, feedback: 'HTTP 503' },
            { outcome: 'rejected', failureClass: 'invalid_arguments', decision: 'reject_with_feedback', feedback: 'url: invalid' },
          ],
        },
      ],
    });
    const call = (await getSessionDetail(prisma, project.id, s.id))!.steps[0] as ToolCallStepDto;
    expect(call.attempts.map((a) => [a.decision, a.internalRetry, a.backoffMs])).toEqual([
      ['retry_backoff', true, 400],
      ['reject_with_feedback', false, null],
    ]);
  });
});
