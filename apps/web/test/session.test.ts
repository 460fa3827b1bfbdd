import { describe, expect, it } from 'vitest';
import { getSessionDetail } from '../src/server/queries/session.ts';
import { getSessionHeader } from '../src/server/queries/session-header.ts';
import type { ModelCallStepDto, ToolCallStepDto } from '../src/server/queries/session-types.ts';
import { setupTestDatabase } from './db.ts';
import { seedProject, seedRawSpans, seedSession, seedSessionRow, spanId } from './factories.ts';

const db = setupTestDatabase();
const t0 = new Date('2026-11-21T09:00:00.000Z');

describe('getSessionDetail', () => {
  it('returns model and tool calls in time order with attempts and guard checks in order', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const seeded = await seedSession(prisma, project.id, {
      startedAt: t0,
      outcome: 'success',
      toolCalls: [
        {
          toolName: 'read_file',
          atMs: 1000,
          attempts: [
            {
              outcome: 'rejected',
              failureClass: 'invalid_arguments',
              decision: 'reject_with_feedback',
              feedback: 'Field "path" is required (string).',
              arguments: '{"file":"a.txt"}',
              guards: [{ guardName: 'schema', stage: 'schema', verdict: 'fail', reason: 'path: required', durationUs: 8 }],
            },
            {
              outcome: 'success',
              arguments: '{"path":"a.txt"}',
              guards: [
                { guardName: 'schema', stage: 'schema', verdict: 'pass' },
                { guardName: 'file_exists', stage: 'logical', verdict: 'pass' },
              ],
            },
          ],
        },
        { toolName: 'search', atMs: 3000, attempts: [{ outcome: 'success' }] },
      ],
      modelCalls: [
        { atMs: 0, inputTokens: 900, outputTokens: 100 },
        { atMs: 2000, inputTokens: 400, outputTokens: 80, repairFailureClass: 'invalid_arguments' },
      ],
    });

    const detail = await getSessionDetail(prisma, project.id, seeded.id);
    expect(detail).not.toBeNull();
    expect(detail!.session).toMatchObject({ id: seeded.id, outcome: 'success', repairTokens: 480 });
    expect(detail!.steps.map((s) => [s.step, s.kind])).toEqual([
      [1, 'model'],
      [2, 'tool'],
      [3, 'model'],
      [4, 'tool'],
    ]);
    const readFile = detail!.steps[1] as ToolCallStepDto;
    expect(readFile.toolName).toBe('read_file');
    expect(readFile.attempts.map((a) => [a.number, a.outcome, a.failureClass])).toEqual([
      [1, 'rejected', 'invalid_arguments'],
      [2, 'success', null],
    ]);
    expect(readFile.attempts[0]!.feedback).toEqual({ text: 'Field "path" is required (string).', chars: 34 });
    expect(readFile.attempts[0]!.guardChecks).toEqual([
      expect.objectContaining({ guardName: 'schema', verdict: 'fail', reason: 'path: required', durationUs: 8 }),
    ]);
    expect(readFile.attempts[1]!.guardChecks.map((g) => g.guardName)).toEqual(['schema', 'file_exists']);
    expect((detail!.steps[2] as ModelCallStepDto).repairFailureClass).toBe('invalid_arguments');
    expect(detail!.session.traceIds).toEqual([seeded.traceId]);
  });

  it('shows each stored time as UTC ISO text cut to the millisecond, as Postgres keeps microseconds', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const seeded = await seedSession(prisma, project.id, {
      startedAt: t0,
      toolCalls: [{ toolName: 'read_file', atMs: 1000, attempts: [{ outcome: 'success', guards: [{ guardName: 'schema', verdict: 'pass' }] }] }],
      modelCalls: [{ atMs: 0, inputTokens: 1, outputTokens: 1 }],
    });
    // .123987: cut (not rounded) to .123, like the page's other times.
    const at = '2026-11-21T09:00:01.123987Z';
    for (const table of ['tool_calls', 'attempts', 'guard_checks', 'model_calls']) {
      await prisma.$executeRawUnsafe(`UPDATE ${table} SET started_at = $1::timestamptz WHERE project_id = $2::uuid AND session_id = $3`, at, project.id, seeded.id);
    }
    const detail = await getSessionDetail(prisma, project.id, seeded.id);
    const tool = detail!.steps.find((s) => s.kind === 'tool') as ToolCallStepDto;
    const model = detail!.steps.find((s) => s.kind === 'model') as ModelCallStepDto;
    expect([tool.startedAt, tool.attempts[0]!.startedAt, tool.attempts[0]!.guardChecks[0]!.startedAt, model.startedAt]).toEqual(Array(4).fill('2026-11-21T09:00:01.123Z'));
  });

  it("carries the failure reasons of calls and attempts, a failed guard's reason and the session's user", async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const userId = `u${'x'.repeat(199)}`;
    const seeded = await seedSession(prisma, project.id, {
      startedAt: t0,
      userId,
      outcome: 'failed',
      toolCalls: [
        {
          toolName: 'weather',
          atMs: 10,
          failureReason: 'Error: weather service answered 503 for Oslo',
          attempts: [
            {
              outcome: 'rejected',
              failureClass: 'invalid_arguments',
              failureReason: 'Invalid input for tool weather: Type validation failed',
              guards: [{ guardName: 'gen_ai.guardrail', verdict: 'fail', reason: 'pii: email address in "to"' }],
            },
            { outcome: 'failed', failureClass: 'transient', failureReason: 'Error: weather service answered 503 for Oslo' },
          ],
        },
        { toolName: 'search', atMs: 100, attempts: [{ outcome: 'success' }] },
      ],
    });

    const detail = await getSessionDetail(prisma, project.id, seeded.id);
    expect(detail!.session.userId).toBe(userId);
    const [weather, search] = detail!.steps as ToolCallStepDto[];
    expect(weather!.failureReason).toBe('Error: weather service answered 503 for Oslo');
    expect(weather!.attempts.map((a) => [a.outcome, a.failureReason])).toEqual([
      ['rejected', 'Invalid input for tool weather: Type validation failed'],
      ['failed', 'Error: weather service answered 503 for Oslo'],
    ]);
    expect(weather!.attempts[0]!.guardChecks).toEqual([
      expect.objectContaining({ guardName: 'gen_ai.guardrail', verdict: 'fail', reason: 'pii: email address in "to"' }),
    ]);
    expect(search!.failureReason).toBeNull();
    expect(search!.attempts[0]!.failureReason).toBeNull();
  });

  it('keeps the failure reason of an attempt whose tool-call span never arrived', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const seeded = await seedSession(prisma, project.id, {
      startedAt: t0,
      toolCalls: [
        {
          toolName: 'wether',
          atMs: 10,
          attempts: [{ outcome: 'rejected', failureClass: 'unknown_tool', failureReason: "Model tried to call unavailable tool 'wether'." }],
        },
      ],
    });
    await prisma.toolCall.deleteMany({ where: { projectId: project.id, sessionId: seeded.id } });

    const detail = await getSessionDetail(prisma, project.id, seeded.id);
    const stand = detail!.steps[0] as ToolCallStepDto;
    expect(stand.failureReason).toBeNull();
    expect(stand.attempts[0]).toMatchObject({ failureClass: 'unknown_tool', failureReason: "Model tried to call unavailable tool 'wether'." });
  });

  it("shows another instrumentation's guardrail decisions outside any attempt as steps, with their reason", async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const seeded = await seedSession(prisma, project.id, {
      startedAt: t0,
      toolCalls: [{ toolName: 'send_email', atMs: 500, attempts: [{ outcome: 'success', guards: [{ guardName: 'schema', verdict: 'pass' }] }] }],
    });
    const base = { projectId: project.id, traceId: seeded.traceId, sessionId: seeded.id, durationUs: 40 };
    const reason = 'PII detected in output (violations: sensitive_info_disclosure: high)';
    // Under the agent root (no attempt), and under no parent at all.
    await prisma.guardCheck.create({
      data: { ...base, spanId: spanId(), attemptSpanId: spanId(), guardName: 'Content Filter', verdict: 'fail', reason, startedAt: new Date(t0.getTime() + 100) },
    });
    await prisma.guardCheck.create({
      data: { ...base, spanId: spanId(), attemptSpanId: null, guardName: 'jailbreak', verdict: 'pass', startedAt: new Date(t0.getTime() + 900) },
    });

    const detail = await getSessionDetail(prisma, project.id, seeded.id);
    expect(detail!.steps.map((s) => [s.step, s.kind, s.kind === 'guard' ? [s.guardName, s.verdict, s.reason] : null])).toEqual([
      [1, 'guard', ['Content Filter', 'fail', reason]],
      [2, 'tool', null],
      [3, 'guard', ['jailbreak', 'pass', null]],
    ]);
    // The attempt keeps its own check, and only it.
    expect((detail!.steps[1] as ToolCallStepDto).attempts[0]!.guardChecks.map((g) => g.guardName)).toEqual(['schema']);
  });

  it('shows spans of other instrumentations as raw steps, with the totals of their session row', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const sessionId = 'conv-from-another-sdk';
    // The row the collector writes for them (its rule, sql.ts): the header shows it as stored.
    await seedSessionRow(prisma, project.id, sessionId, { userId: 'u_17', outcome: 'failed', spanCount: 4, failedAttemptCount: 1, inputTokens: 1200n });
    const first = await seedRawSpans(prisma, project.id, sessionId, t0, [
      { name: 'invoke_agent planner', atMs: 0, durationMs: 3000, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'planner' } },
      { name: 'http GET /weather', atMs: 500, attributes: { 'http.method': 'GET' }, statusCode: 2 },
    ]);
    const [rootId, httpId] = first.spanIds;
    await seedRawSpans(prisma, project.id, sessionId, t0, [{ name: 'db.query', atMs: 200, parentSpanId: rootId }], first.traceId);
    await seedRawSpans(prisma, project.id, sessionId, t0, [{ name: 'dns.lookup', atMs: 501, parentSpanId: httpId }], first.traceId);

    const detail = await getSessionDetail(prisma, project.id, sessionId);
    expect(detail!.session).toMatchObject({ id: sessionId, agentName: 'planner', userId: 'u_17', outcome: 'failed', spanCount: 4, failedAttemptCount: 1, inputTokens: 1200, durationMs: 3000 });
    expect(detail!.steps.map((s) => (s.kind === 'span' ? [s.name, s.depth] : s.kind))).toEqual([
      ['db.query', 0],
      ['http GET /weather', 0],
      ['dns.lookup', 1],
    ]);
    const http = detail!.steps[1]!;
    expect(http.kind === 'span' && http.statusCode).toBe(2);
  });

  it('computes no totals of its own: spans without a session row are no session', async () => {
    // Before, the page summed raw spans into a header of its own (no user, no outcome, other
    // failure counts) when a session had no row: a second rule. Now only the row is read.
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    await seedRawSpans(prisma, project.id, 'rowless', t0, [{ name: 'invoke_agent planner', atMs: 0, attributes: { 'gen_ai.agent.name': 'planner' } }]);
    expect(await getSessionDetail(prisma, project.id, 'rowless')).toBeNull();
    expect(await getSessionHeader(prisma, project.id, 'rowless')).toBeNull();
  });

  it('hides raw spans that have derived rows and keeps the rest', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const seeded = await seedSession(prisma, project.id, {
      startedAt: t0,
      toolCalls: [{ toolName: 'lookup', atMs: 100, attempts: [{ outcome: 'success' }] }],
    });
    const toolSpan = seeded.toolSpanIds[0]!;
    await prisma.span.create({
      data: {
        projectId: project.id,
        startTime: new Date(t0.getTime() + 100),
        traceStart: t0,
        traceId: seeded.traceId,
        spanId: toolSpan,
        sessionId: seeded.id,
        name: 'execute_tool lookup',
        startTimeUnixNano: 1n,
        endTimeUnixNano: 2n,
      },
    });
    await seedRawSpans(prisma, project.id, seeded.id, t0, [{ name: 'vector.search', atMs: 50 }], seeded.traceId);

    const detail = await getSessionDetail(prisma, project.id, seeded.id);
    expect(detail!.steps.map((s) => (s.kind === 'span' ? s.name : s.kind))).toEqual(['vector.search', 'tool']);
  });

  it('shows attempts whose tool-call span never arrived under a stand-in tool call', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const seeded = await seedSession(prisma, project.id, {
      startedAt: t0,
      toolCalls: [{ toolName: 'send_email', atMs: 10, attempts: [{ outcome: 'failed', failureClass: 'transient' }] }],
    });
    await prisma.toolCall.deleteMany({ where: { projectId: project.id, sessionId: seeded.id } });

    const detail = await getSessionDetail(prisma, project.id, seeded.id);
    expect(detail!.steps).toHaveLength(1);
    const stand = detail!.steps[0] as ToolCallStepDto;
    expect(stand).toMatchObject({ kind: 'tool', toolName: 'send_email', spanId: seeded.toolSpanIds[0] });
    expect(stand.attempts.map((a) => a.failureClass)).toEqual(['transient']);
  });

  it('is scoped by project and returns null for unknown sessions', async () => {
    const prisma = db.prisma();
    const mine = await seedProject(prisma);
    const theirs = await seedProject(prisma);
    const seeded = await seedSession(prisma, theirs.id, {
      startedAt: t0,
      toolCalls: [{ toolName: 'secret_tool', atMs: 1, attempts: [{ outcome: 'success' }] }],
    });
    expect(await getSessionDetail(prisma, mine.id, seeded.id)).toBeNull();
    expect(await getSessionHeader(prisma, mine.id, seeded.id)).toBeNull();
    expect(await getSessionDetail(prisma, theirs.id, 'nope')).toBeNull();
    expect(await getSessionHeader(prisma, theirs.id, 'nope')).toBeNull();

    await seedSession(prisma, mine.id, { id: seeded.id, startedAt: t0, agentName: 'mine' });
    const detail = await getSessionDetail(prisma, mine.id, seeded.id);
    expect(detail!.session.agentName).toBe('mine');
    expect(detail!.steps).toEqual([]);
    expect(await getSessionHeader(prisma, mine.id, seeded.id)).toEqual(detail!.session);
  });

  it("gives the page the same header as the whole replay, trace ids included, and the replay route's steps without the span tree", async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const seeded = await seedSession(prisma, project.id, {
      startedAt: t0,
      outcome: 'success',
      toolCalls: [{ toolName: 'read_file', atMs: 10, attempts: [{ outcome: 'success', arguments: '{"path":"a"}' }] }],
      modelCalls: [{ atMs: 0, inputTokens: 10, outputTokens: 2 }],
    });
    const detail = await getSessionDetail(prisma, project.id, seeded.id);
    const header = await getSessionHeader(prisma, project.id, seeded.id);
    expect(header).toEqual(detail!.session);
    expect(header!.traceIds.length).toBeGreaterThan(0);
    const withoutTree = await getSessionDetail(prisma, project.id, seeded.id, { spanTree: false });
    expect(withoutTree!.spanTree).toEqual([]);
    expect(withoutTree!.steps).toEqual(detail!.steps);
  });
});
