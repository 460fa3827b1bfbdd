/** The session list: totals, project scope, the query language's filters, prices and free text. Sorting, paging and counting: sessions-paging.test.ts. */
import { describe, expect, it } from 'vitest';
import { parseSessionQuery } from '../src/lib/session-query.ts';
import { estimateSessionCosts } from '../src/server/queries/costs.ts';
import { getSessionDetail } from '../src/server/queries/session.ts';
import { listSessions, projectHasSessions, type SessionListQuery } from '../src/server/queries/sessions.ts';
import { setupTestDatabase } from './db.ts';
import { seedProject, seedSession } from './factories.ts';
import { failing, minutes } from './sessions-fixtures.ts';

const db = setupTestDatabase();

describe('listSessions', () => {
  it('lists the project sessions newest first with their totals, classes and retry rate', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    expect(await projectHasSessions(prisma, project.id)).toBe(false);
    const older = await seedSession(prisma, project.id, { startedAt: minutes(0), agentName: 'support-bot', userId: 'u_1' });
    const newer = await seedSession(prisma, project.id, {
      startedAt: minutes(5),
      durationMs: 7250,
      outcome: 'failed',
      toolCalls: [
        {
          toolName: 'read_file',
          atMs: 100,
          attempts: [
            { outcome: 'rejected', failureClass: 'invalid_arguments', decision: 'reject_with_feedback' },
            { outcome: 'rejected', failureClass: 'invalid_arguments', decision: 'reject_with_feedback' },
            { outcome: 'success' },
          ],
        },
        { toolName: 'charge_card', atMs: 900, attempts: [{ outcome: 'failed', failureClass: 'uncertain_side_effect' }] },
      ],
      modelCalls: [
        { atMs: 0, inputTokens: 1000, outputTokens: 200 },
        { atMs: 400, inputTokens: 300, outputTokens: 50, repairFailureClass: 'invalid_arguments' },
      ],
    });

    expect(await projectHasSessions(prisma, project.id)).toBe(true);
    const page = await listSessions(prisma, project.id);
    expect(page.total).toBe(2);
    expect(page.rows.map((r) => r.id)).toEqual([newer.id, older.id]);
    expect(page.rows[0]).toMatchObject({
      outcome: 'failed',
      durationMs: 7250,
      toolCallCount: 2,
      attemptCount: 4,
      failedAttemptCount: 3,
      tokens: 1550,
      repairTokens: 350,
      retryRate: 1,
      failureClasses: ['invalid_arguments', 'uncertain_side_effect'],
      classCounts: [
        { failureClass: 'invalid_arguments', count: 2 },
        { failureClass: 'uncertain_side_effect', count: 1 },
      ],
    });
    expect(page.rows[1]).toMatchObject({ agentName: 'support-bot', userId: 'u_1', failureClasses: [], retryRate: 0 });
    expect([page.prev, page.next]).toEqual([null, null]);
  });

  it('never returns another project’s sessions, even with the same session id', async () => {
    const prisma = db.prisma();
    const mine = await seedProject(prisma);
    const theirs = await seedProject(prisma);
    const shared = `sess_shared_${mine.id.slice(0, 8)}`;
    await seedSession(prisma, mine.id, { id: shared, startedAt: minutes(1), agentName: 'mine' });
    await seedSession(prisma, theirs.id, { id: shared, startedAt: minutes(2), agentName: 'theirs' });
    await seedSession(prisma, theirs.id, { startedAt: minutes(3), outcome: 'escalated' });

    const page = await listSessions(prisma, mine.id);
    expect(page.rows.map((r) => [r.id, r.agentName])).toEqual([[shared, 'mine']]);
    expect((await listSessions(prisma, mine.id, { filters: { status: 'escalated' } })).total).toBe(0);
  });

  it('applies each filter of the query language, alone and together', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const clean = await seedSession(prisma, project.id, { startedAt: minutes(0), userId: 'u_17', agentName: 'x' });
    const invalid = await seedSession(prisma, project.id, {
      startedAt: minutes(1),
      userId: 'u_17',
      agentName: 'y',
      toolCalls: [failing('read_file', 'invalid_arguments'), { toolName: 'list_dir', atMs: 50, attempts: [{ outcome: 'success' }] }],
    });
    const escalated = await seedSession(prisma, project.id, {
      startedAt: minutes(2),
      outcome: 'escalated',
      userId: 'u_18',
      agentName: 'x',
      toolCalls: [
        { toolName: 'fetch', atMs: 10, attempts: [{ outcome: 'failed', failureClass: 'transient' }, { outcome: 'failed', failureClass: 'budget_exhausted' }] },
        failing('read_file', 'invalid_arguments'),
      ],
    });

    const ids = async (q: SessionListQuery) => (await listSessions(prisma, project.id, q)).rows.map((r) => r.id);
    expect(await ids({ filters: { status: 'success' } })).toEqual([invalid.id, clean.id]);
    expect(await ids({ filters: { status: 'escalated' } })).toEqual([escalated.id]);
    expect(await ids({ filters: { classes: ['invalid_arguments'] } })).toEqual([escalated.id, invalid.id]);
    expect(await ids({ filters: { classes: ['invalid_arguments', 'transient'] } })).toEqual([escalated.id]);
    expect(await ids({ filters: { classes: ['fatal'] } })).toEqual([]);
    // has:errors: failed attempts inside, whatever the outcome says (`invalid` succeeded after a rejection).
    expect(await ids({ filters: { has: ['errors'] } })).toEqual([escalated.id, invalid.id]);
    expect(await ids({ filters: { has: ['errors'], status: 'success' } })).toEqual([invalid.id]);
    // ...or error spans inside (a failed model call, a chain), with no failed attempt.
    const where = { projectId_id: { projectId: project.id, id: clean.id } };
    await prisma.session.update({ where, data: { errorSpanCount: 1 } });
    expect(await ids({ filters: { has: ['errors'], status: 'success' } })).toEqual([invalid.id, clean.id]);
    await prisma.session.update({ where, data: { errorSpanCount: 0 } });
    expect(await ids({ filters: { tools: ['read_file'] } })).toEqual([escalated.id, invalid.id]);
    expect(await ids({ filters: { tools: ['read_file', 'list_dir'] } })).toEqual([invalid.id]);
    expect(await ids({ filters: { tools: ['read'] } })).toEqual([]);
    expect(await ids({ filters: { attempts: [{ op: '>', value: 2 }] } })).toEqual([escalated.id, invalid.id]);
    expect(await ids({ filters: { attempts: [{ op: '>=', value: 4 }] } })).toEqual([escalated.id]);
    expect(await ids({ filters: { attempts: [{ op: '<', value: 1 }] } })).toEqual([clean.id]);
    expect(await ids({ filters: { attempts: [{ op: '=', value: 3 }] } })).toEqual([invalid.id]);
    expect(await ids({ filters: { attempts: [{ op: '>', value: 0 }, { op: '<=', value: 3 }] } })).toEqual([invalid.id]);
    expect(await ids({ filters: { user: 'u_17' } })).toEqual([invalid.id, clean.id]);
    expect(await ids({ filters: { agent: 'x' } })).toEqual([escalated.id, clean.id]);
    expect(await ids({ filters: { user: 'u_17', agent: 'x' } })).toEqual([clean.id]);
    expect(await ids({ filters: { classes: ['invalid_arguments'], tools: ['read_file'], attempts: [{ op: '>', value: 2 }], user: 'u_18' } })).toEqual([
      escalated.id,
    ]);
    expect((await listSessions(prisma, project.id, { filters: { tools: ['read_file'] } })).total).toBe(2);
  });

  it('reads class:, tool: and failed: as one failed attempt, on its own day, whenever the session started (as analytics counts)', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const day = 86_400_000;
    // A conversation begun on 2026-11-05 whose read_file call failed on 2026-11-25 (20 days later).
    const longRunning = await seedSession(prisma, project.id, {
      startedAt: new Date('2026-11-05T08:00:00.000Z'),
      toolCalls: [{ ...failing('read_file', 'invalid_arguments'), atMs: 20 * day }],
    });
    // A timeout of fetch beside a read_file call that worked: not a read_file timeout.
    const mixed = await seedSession(prisma, project.id, {
      startedAt: minutes(1),
      toolCalls: [failing('fetch', 'transient'), { toolName: 'read_file', atMs: 80, attempts: [{ outcome: 'success' }] }],
    });
    const readTimeout = await seedSession(prisma, project.id, { startedAt: minutes(3), toolCalls: [failing('read_file', 'transient')] });

    const ids = async (q: SessionListQuery) => (await listSessions(prisma, project.id, q)).rows.map((r) => r.id);
    const parsed = async (q: string) => ids({ filters: parseSessionQuery(q).filters });
    expect(await parsed('class:transient')).toEqual([readTimeout.id, mixed.id]);
    expect(await parsed('class:transient tool:read_file')).toEqual([readTimeout.id]);
    expect(await parsed('tool:read_file')).toEqual([readTimeout.id, mixed.id, longRunning.id]);
    expect(await parsed('tool:read_file failed:2026-11-20')).toEqual([readTimeout.id]);
    // Each tool with a failure of the classes: neither session has a transient failure of both.
    expect(await parsed('class:transient tool:read_file tool:fetch')).toEqual([]);
    expect(await parsed('class:transient class:invalid_arguments tool:read_file')).toEqual([]);
    // By the failure's day, not the session's start.
    expect(await parsed('failed:>=2026-11-21')).toEqual([longRunning.id]);
    expect(await parsed('started:>=2026-11-21')).toEqual([]);
    expect(await parsed('failed:2026-11-20')).toEqual([readTimeout.id, mixed.id]);
    expect(await parsed('class:invalid_arguments tool:read_file failed:>=2026-11-21 failed:<=2026-11-30')).toEqual([longRunning.id]);
    expect(await parsed('class:invalid_arguments failed:<2026-11-25')).toEqual([]);
    expect(await parsed('failed:>2026-11-25')).toEqual([]);
    // An attempt that names no tool of its own is its tool call's (another instrumentation's attempt).
    await prisma.attempt.updateMany({ where: { projectId: project.id, sessionId: readTimeout.id }, data: { toolName: null } });
    expect(await parsed('class:transient tool:read_file failed:2026-11-20')).toEqual([readTimeout.id]);
    expect(await parsed('class:transient tool:fetch')).toEqual([mixed.id]);

    // A call the library refused without a tool call span (a hallucinated tool name) is a call of that tool.
    const refused = await seedSession(prisma, project.id, { startedAt: minutes(5) });
    await prisma.attempt.create({
      data: {
        projectId: project.id,
        traceId: 'f'.repeat(32),
        spanId: 'e'.repeat(16),
        sessionId: refused.id,
        toolName: 'search_codebase',
        number: 1,
        startedAt: minutes(5),
        durationMs: 0,
        outcome: 'rejected',
        failureClass: 'unknown_tool',
      },
    });
    expect(await parsed('tool:search_codebase')).toEqual([refused.id]);
    expect(await parsed('class:unknown_tool tool:search_codebase failed:2026-11-20')).toEqual([refused.id]);
    expect(await parsed('tool:search_codebase tool:read_file')).toEqual([]);

    // A made-up name the model corrected within the same call (the SDK's unknown_tool rejection,
    // then the call goes on as search_files): the call named that tool too, and is found by it.
    const corrected = await seedSession(prisma, project.id, {
      startedAt: minutes(7),
      toolCalls: [
        {
          toolName: 'search_files',
          atMs: 0,
          attempts: [{ outcome: 'rejected', failureClass: 'unknown_tool', decision: 'reject_with_feedback', toolName: 'search_codebase' }, { outcome: 'success' }],
        },
      ],
    });
    expect(await parsed('tool:search_codebase')).toEqual([corrected.id, refused.id]);
    expect(await parsed('tool:search_files')).toEqual([corrected.id]);
  });

  it('prices a session in the list as its calls priced alone, as its page does, when a call reports cached input beside its input', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const s = await seedSession(prisma, project.id, {
      startedAt: minutes(9),
      modelCalls: [
        { model: 'claude-sonnet-4-5', atMs: 0, inputTokens: 100, cachedInputTokens: 1000, outputTokens: 10 },
        { model: 'claude-sonnet-4-5', atMs: 10, inputTokens: 5000, outputTokens: 100 },
      ],
    });
    const listed = (await estimateSessionCosts(prisma, project.id, [s.id])).get(s.id);
    const page = (await getSessionDetail(prisma, project.id, s.id))?.session.cost;
    // before: $0.01440 (the 1,000 cached tokens priced against the other call's 5,000 input), the page $0.01695
    expect(listed?.usd).toBeCloseTo(0.01695, 8);
    expect(listed?.usd).toBeCloseTo(page?.usd ?? Number.NaN, 10);
  });

  it('filters by the session’s own tokens and by the UTC day it started, as analytics’ cost buckets and days count them', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const day = (iso: string) => new Date(iso);
    // 9,999 / 10,000 / 19,999 / 20,000 tokens: the edges of the 10K-20K bucket ([10,000, 20,000)).
    const tokens = (n: number) => [{ atMs: 0, inputTokens: n - 1, outputTokens: 1 }];
    const below = await seedSession(prisma, project.id, { startedAt: day('2026-11-02T23:59:59.999Z'), modelCalls: tokens(9_999) });
    const low = await seedSession(prisma, project.id, { startedAt: day('2026-11-03T00:00:00.000Z'), modelCalls: tokens(10_000) });
    const high = await seedSession(prisma, project.id, { startedAt: day('2026-12-02T23:59:59.999Z'), modelCalls: tokens(19_999) });
    const above = await seedSession(prisma, project.id, { startedAt: day('2026-12-03T00:00:00.000Z'), modelCalls: tokens(20_000), samplingWeight: 4 });

    const ids = async (q: SessionListQuery) => (await listSessions(prisma, project.id, q)).rows.map((r) => r.id);
    const bucket = { tokens: [{ op: '>=' as const, value: 10_000 }, { op: '<' as const, value: 20_000 }] };
    expect(await ids({ filters: bucket })).toEqual([high.id, low.id]);
    // Not scaled by the sampling weight: the ×4 session has 20,000 tokens of its own.
    expect(await ids({ filters: { tokens: [{ op: '=', value: 20_000 }] } })).toEqual([above.id]);
    expect(await ids({ filters: { tokens: [{ op: '>', value: 19_999 }] } })).toEqual([above.id]);
    expect(await ids({ filters: { tokens: [{ op: '<=', value: 9_999 }] } })).toEqual([below.id]);

    const window = { started: [{ op: '>=' as const, day: '2026-11-03' }, { op: '<=' as const, day: '2026-12-02' }] };
    expect(await ids({ filters: window })).toEqual([high.id, low.id]);
    expect(await ids({ filters: { started: [{ op: '=', day: '2026-11-02' }] } })).toEqual([below.id]);
    expect(await ids({ filters: { started: [{ op: '>', day: '2026-12-02' }] } })).toEqual([above.id]);
    expect(await ids({ filters: { started: [{ op: '<', day: '2026-11-03' }] } })).toEqual([below.id]);
    expect(await ids({ filters: { ...bucket, started: [{ op: '=', day: '2026-11-03' }] } })).toEqual([low.id]);
    expect((await listSessions(prisma, project.id, { filters: window })).total).toBe(2);
  });

  it('finds free text in ids, agents and users, and through the trigram index in tool names, arguments and feedback', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const a = await seedSession(prisma, project.id, { id: 'conv-Alpha-42', startedAt: minutes(0), agentName: 'billing-agent', userId: 'carol' });
    const b = await seedSession(prisma, project.id, {
      id: 'conv-beta-7',
      startedAt: minutes(1),
      agentName: 'support-bot',
      toolCalls: [failing('lookup_customer', 'missing_resource', { arguments: '{"email":"Dana@Example.com"}', feedback: 'No customer with that e-mail' })],
    });
    const c = await seedSession(prisma, project.id, {
      id: 'conv-gamma',
      startedAt: minutes(2),
      toolCalls: [failing('read_file', 'invalid_arguments', { arguments: '{"path":"100%_done.txt"}', feedback: 'path must be relative' })],
    });
    // Each term both ways: looked up in the index first (rare), and checked session by session (common).
    const ids = async (...terms: string[]) => {
      const rare = (await listSessions(prisma, project.id, { terms })).rows.map((r) => r.id);
      const common = (await listSessions(prisma, project.id, { terms, rareTermSessions: 0 })).rows.map((r) => r.id);
      expect(common).toEqual(rare);
      return rare;
    };
    expect(await ids('alpha')).toEqual([a.id]);
    expect(await ids('SUPPORT')).toEqual([b.id]);
    expect(await ids('CAROL')).toEqual([a.id]);
    expect(await ids('conv-')).toEqual([c.id, b.id, a.id]);
    expect(await ids('lookup_cust')).toEqual([b.id]);
    expect(await ids('dana@example')).toEqual([b.id]);
    expect(await ids('must be RELATIVE')).toEqual([c.id]);
    expect(await ids('100%_')).toEqual([c.id]);
    expect(await ids('1000%')).toEqual([]);
    expect(await ids('_done')).toEqual([c.id]);
    expect(await ids('conv-', 'e-mail')).toEqual([b.id]);
    expect(await ids('nothing-like-this')).toEqual([]);

    // The sessions' search text has a trigram index: Postgres can answer the lookup from it.
    const plan = await prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SET LOCAL enable_seqscan = off`;
      return tx.$queryRaw<{ 'QUERY PLAN': string }[]>`EXPLAIN SELECT d.session_id FROM session_search d WHERE d.text ILIKE ${'%relative%'}::text`;
    });
    expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toContain('session_search_text_trgm_idx');
  });
});
