import { describe, expect, it } from 'vitest';
import { explorerHref } from '../src/lib/explorer-link.ts';
import { parseSessionQuery } from '../src/lib/session-query.ts';
import {
  getClassShares,
  getRejectionEffectiveness,
  getRepairTokensByDay,
  getRetryExhaustion,
  getSessionCosts,
  getToolClassCosts,
  lastDays,
  parseAnalyticsWindow,
} from '../src/server/queries/analytics.ts';
import { listSessions } from '../src/server/queries/sessions.ts';
import { setupTestDatabase } from './db.ts';
import { type AttemptSeed, seedProject, seedSession, type ToolCallSeed } from './factories.ts';

const db = setupTestDatabase();
const now = new Date('2026-11-30T15:00:00.000Z');
const daysAgo = (n: number, hour = 10) => new Date(Date.UTC(2026, 10, 30 - n, hour));
const week = lastDays(7, now);
const month = lastDays(30, now);

const rejected = (failureClass: string, feedback: string): AttemptSeed => ({
  outcome: 'rejected',
  failureClass,
  decision: 'reject_with_feedback',
  feedback,
});
const ok: AttemptSeed = { outcome: 'success' };
const call = (toolName: string, attempts: AttemptSeed[]): ToolCallSeed => ({ toolName, atMs: 0, attempts });

describe('analytics window in the URL', () => {
  it('reads a preset range, a custom from/to, and explains bad values', () => {
    expect(parseAnalyticsWindow({}, now)).toEqual({ window: { from: '2026-11-01', to: '2026-11-30' }, range: 30, error: null });
    expect(parseAnalyticsWindow({ range: '7' }, now)).toEqual({ window: week, range: 7, error: null });
    expect(parseAnalyticsWindow({ from: '2026-02-01', to: '2026-02-28' }, now)).toEqual({
      window: { from: '2026-02-01', to: '2026-02-28' },
      range: null,
      error: null,
    });
    expect(parseAnalyticsWindow({ range: '12' }, now).error).toBe('range: expected one of 7, 30, 90 (days), got "12"');
    expect(parseAnalyticsWindow({ from: '2026-02-30', to: '2026-03-01' }, now).error).toBe(
      'from: expected a date as YYYY-MM-DD, got "2026-02-30"',
    );
    expect(parseAnalyticsWindow({ from: '2026-03-02', to: '2026-03-01' }, now).error).toBe('from (2026-03-02) is after to (2026-03-01)');
    expect(parseAnalyticsWindow({ from: '2026-03-02' }, now)).toMatchObject({ range: 30, error: 'from and to: give both dates, or neither' });
    expect(parseAnalyticsWindow({ from: '2024-01-01', to: '2026-01-01' }, now).error).toMatch(/spans 732 days; at most 366/);
  });

  it('links a segment to the explorer filtered by class and tool, a cost bucket by tokens, and either to the window by start day', () => {
    const p = '3f0c0f5e-1111-4a4a-8b8b-000000000001';
    expect(explorerHref(p, { failureClass: 'invalid_arguments', tool: 'write_file' })).toBe(
      `/sessions?project=${p}&q=class:invalid_arguments%20tool:write_file`,
    );
    expect(explorerHref(p, { failureClass: 'transient' })).toBe(`/sessions?project=${p}&q=class:transient`);
    expect(explorerHref(p, { failureClass: 'transient', tool: 'my tool:"x"' })).toBe(
      `/sessions?project=${p}&q=class:transient%20tool:%22my%20tool:%5C%22x%5C%22%22`,
    );
    // A window and a cost bucket: the days the sessions started, both included; tokens from min up to (not including) max.
    const days = { from: '2026-11-03', to: '2026-12-02' };
    expect(explorerHref(p, { failureClass: 'transient', days })).toBe(
      `/sessions?project=${p}&q=class:transient%20started:%3E%3D2026-11-03%20started:%3C%3D2026-12-02`,
    );
    // The failure panels' window: the days of the failed attempts (analytics counts failures by them).
    expect(explorerHref(p, { failureClass: 'transient', tool: 'search', failedDays: days })).toBe(
      `/sessions?project=${p}&q=class:transient%20tool:search%20failed:%3E%3D2026-11-03%20failed:%3C%3D2026-12-02`,
    );
    expect(explorerHref(p, { failureClass: 'transient', failedDays: { from: '2026-12-02', to: '2026-12-02' } })).toBe(
      `/sessions?project=${p}&q=class:transient%20failed:2026-12-02`,
    );
    expect(explorerHref(p, { tokens: { min: 10_000, max: 20_000 }, days: { from: '2026-12-02', to: '2026-12-02' } })).toBe(
      `/sessions?project=${p}&q=tokens:%3E%3D10000%20tokens:%3C20000%20started:2026-12-02`,
    );
    // The first bucket has no lower bound worth writing, the last no upper one.
    expect(explorerHref(p, { tokens: { min: 0, max: 1_000 } })).toBe(`/sessions?project=${p}&q=tokens:%3C1000`);
    expect(explorerHref(p, { tokens: { min: 1_000_000, max: null } })).toBe(`/sessions?project=${p}&q=tokens:%3E%3D1000000`);
  });
});

describe('analytics panels', () => {
  it("counts as stored the sessions its link lists: not those held at weight 0 for a sampling decision", async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const kept = await seedSession(prisma, project.id, { startedAt: daysAgo(1), modelCalls: [{ atMs: 0, inputTokens: 100, outputTokens: 10 }] });
    // Every process would drop it: held at weight 0 until the collector's decision wait ends.
    await seedSession(prisma, project.id, { startedAt: daysAgo(1), samplingWeight: 0, modelCalls: [{ atMs: 0, inputTokens: 100, outputTokens: 10 }] });
    const costs = await getSessionCosts(prisma, project.id, week);
    // The card's link, run as the explorer runs it.
    const q = new URL(explorerHref(project.id, { days: week }), 'http://x').searchParams.get('q') ?? '';
    const listed = await listSessions(prisma, project.id, { filters: parseSessionQuery(q).filters });
    expect(listed.rows.map((r) => r.id)).toEqual([kept.id]);
    expect(costs.storedSessions).toBe(listed.total);
    expect(costs.estimatedSessions).toBe(1);
  });

  it('sums repair tokens per UTC day and class, weighted by sampling, with empty days present', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    await seedSession(prisma, project.id, {
      startedAt: daysAgo(2),
      modelCalls: [
        { atMs: 0, inputTokens: 1000, outputTokens: 100 },
        { atMs: 10, inputTokens: 300, outputTokens: 20, repairFailureClass: 'invalid_arguments' },
        { atMs: 20, inputTokens: 200, outputTokens: 30, repairFailureClass: 'transient' },
      ],
    });
    await seedSession(prisma, project.id, {
      startedAt: daysAgo(0),
      samplingWeight: 4,
      modelCalls: [{ atMs: 0, inputTokens: 50, outputTokens: 50, repairFailureClass: 'invalid_arguments' }],
    });
    await seedSession(prisma, project.id, {
      startedAt: daysAgo(9),
      modelCalls: [{ atMs: 0, inputTokens: 999, outputTokens: 1, repairFailureClass: 'fatal' }],
    });

    const days = await getRepairTokensByDay(prisma, project.id, week);
    expect(days).toHaveLength(7);
    expect(days[0]!.day).toBe('2026-11-24');
    expect(days.at(-1)).toEqual({ day: '2026-11-30', byClass: { invalid_arguments: 400 } });
    expect(days.find((d) => d.day === '2026-11-28')!.byClass).toEqual({ invalid_arguments: 320, transient: 230 });
    expect(days.filter((d) => Object.keys(d.byClass).length === 0)).toHaveLength(5);

    const costs = await getSessionCosts(prisma, project.id, week);
    expect(costs).toMatchObject({ storedSessions: 2, estimatedSessions: 5, tokens: 1650 + 400, repairTokens: 550 + 400 });
    // 1,650 tokens (1 session) and 100 tokens (4 sessions by weight).
    expect(costs.histogram.filter((b) => b.sessions > 0)).toEqual([
      { min: 0, max: 1000, sessions: 4 },
      { min: 1000, max: 2000, sessions: 1 },
    ]);
  });

  it('ranks tool × class by tokens spent on failed attempts, and gives each class its token share', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    await seedSession(prisma, project.id, {
      startedAt: daysAgo(1),
      samplingWeight: 2,
      toolCalls: [call('write_file', [rejected('invalid_arguments', 'Missing "content"'), ok]), call('fetch', [{ outcome: 'failed', failureClass: 'transient' }, ok])],
      modelCalls: [
        { atMs: 0, inputTokens: 1000, outputTokens: 0 },
        { atMs: 5, inputTokens: 300, outputTokens: 0, repairs: [0, 0] },
        { atMs: 6, inputTokens: 100, outputTokens: 0, repairs: [1, 0] },
      ],
    });
    await seedSession(prisma, project.id, {
      startedAt: daysAgo(2),
      toolCalls: [call('fetch', [{ outcome: 'failed', failureClass: 'transient' }, ok])],
      modelCalls: [{ atMs: 5, inputTokens: 50, outputTokens: 0, repairs: [0, 0] }],
    });

    expect(await getToolClassCosts(prisma, project.id, month)).toEqual([
      { tool: 'write_file', failureClass: 'invalid_arguments', failedTokens: 600, failedAttempts: 1, sessions: 1 },
      { tool: 'fetch', failureClass: 'transient', failedTokens: 250, failedAttempts: 2, sessions: 2 },
    ]);
    expect(await getClassShares(prisma, project.id, month)).toEqual([
      { failureClass: 'invalid_arguments', failedTokens: 600, failedAttempts: 1, sessions: 1 },
      { failureClass: 'transient', failedTokens: 250, failedAttempts: 2, sessions: 2 },
    ]);
    // All tokens: (1,000 + 300 + 100) × 2 + 50.
    expect((await getSessionCosts(prisma, project.id, month)).tokens).toBe(2850);
    // A window that ends before the second session's day leaves it out.
    expect(await getToolClassCosts(prisma, project.id, { from: '2026-11-20', to: '2026-11-28' })).toEqual([
      { tool: 'fetch', failureClass: 'transient', failedTokens: 50, failedAttempts: 1, sessions: 1 },
    ]);
  });

  it('counts each session once per segment and class, whatever its feedback templates and days', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    // One session, three failures of one tool under two feedback templates.
    await seedSession(prisma, project.id, {
      startedAt: daysAgo(2),
      toolCalls: [
        call('write_file', [rejected('invalid_arguments', 'Missing required field "content"'), ok]),
        call('write_file', [rejected('invalid_arguments', 'Missing required field "path"'), ok]),
        call('write_file', [rejected('invalid_arguments', 'Expected at most 3 files, got 12'), ok]),
      ],
    });
    const one = { tool: 'write_file', failureClass: 'invalid_arguments', failedTokens: 0, failedAttempts: 3, sessions: 1 };
    expect(await getToolClassCosts(prisma, project.id, month)).toEqual([one]);
    expect(await getClassShares(prisma, project.id, month)).toEqual([{ failureClass: 'invalid_arguments', failedTokens: 0, failedAttempts: 3, sessions: 1 }]);
    // A second session: 2. It starts before midnight and fails on both days: once in a window of both.
    await seedSession(prisma, project.id, {
      startedAt: daysAgo(4, 23),
      toolCalls: [
        { toolName: 'write_file', atMs: 0, attempts: [rejected('invalid_arguments', 'Missing required field "mode"')] },
        { toolName: 'write_file', atMs: 2 * 3_600_000, attempts: [rejected('invalid_arguments', 'Expected at most 3 files, got 9')] },
      ],
    });
    expect(await getToolClassCosts(prisma, project.id, month)).toEqual([{ ...one, failedAttempts: 5, sessions: 2 }]);
    expect((await getClassShares(prisma, project.id, month))[0]?.sessions).toBe(2);
    // A window of the second session's later day alone holds it once, and not the first session.
    const later = { from: '2026-11-26', to: '2026-11-26' };
    expect((await getToolClassCosts(prisma, project.id, later))[0]).toMatchObject({ failedAttempts: 1, sessions: 1 });
    expect((await getClassShares(prisma, project.id, later))[0]).toMatchObject({ failedAttempts: 1, sessions: 1 });
  });

  it('ranks tools by retry exhaustion, with the classes of the exhausted calls', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const exhausted = (cls: string): AttemptSeed => ({ outcome: 'failed', failureClass: cls, decision: 'escalate_human', budgetExhausted: 'attempts_per_call' });
    await seedSession(prisma, project.id, {
      startedAt: daysAgo(1),
      toolCalls: [
        call('fetch', [{ outcome: 'failed', failureClass: 'transient' }, exhausted('transient')]),
        call('fetch', [exhausted('transient')]),
        call('deploy', [exhausted('execution_feedback')]),
        call('read_file', [ok]),
      ],
    });
    await seedSession(prisma, project.id, { startedAt: daysAgo(1), toolCalls: [call('fetch', [exhausted('fatal')])] });
    expect(await getRetryExhaustion(prisma, project.id, month)).toEqual([
      {
        tool: 'fetch',
        exhausted: 3,
        attempts: 4,
        byClass: [
          { failureClass: 'transient', exhausted: 2 },
          { failureClass: 'fatal', exhausted: 1 },
        ],
      },
      { tool: 'deploy', exhausted: 1, attempts: 1, byClass: [{ failureClass: 'execution_feedback', exhausted: 1 }] },
    ]);
  });

  it('measures rejection effectiveness per tool, class and feedback template (values masked)', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    await seedSession(prisma, project.id, {
      startedAt: daysAgo(3),
      toolCalls: [
        call('write_file', [rejected('invalid_arguments', 'Missing required field "content"'), ok]),
        call('write_file', [rejected('invalid_arguments', 'Missing required field "path"'), rejected('invalid_arguments', 'Missing required field "mode"')]),
        call('write_file', [rejected('invalid_arguments', 'Expected at most 3 files, got 12')]),
        call('serch', [rejected('unknown_tool', "No tool 'serch'; did you mean 'search'?"), ok]),
      ],
    });
    expect(await getRejectionEffectiveness(prisma, project.id, month)).toEqual([
      { tool: 'write_file', failureClass: 'invalid_arguments', template: 'Missing required field "…"', rejections: 3, fixed: 1 },
      { tool: 'serch', failureClass: 'unknown_tool', template: 'No tool "…"; did you mean "…"?', rejections: 1, fixed: 1 },
      { tool: 'write_file', failureClass: 'invalid_arguments', template: 'Expected at most N files, got N', rejections: 1, fixed: 0 },
    ]);
  });

  it('never counts another project’s rows', async () => {
    const prisma = db.prisma();
    const mine = await seedProject(prisma);
    const theirs = await seedProject(prisma);
    await seedSession(prisma, theirs.id, {
      startedAt: daysAgo(1),
      toolCalls: [call('x', [{ outcome: 'failed', failureClass: 'fatal', decision: 'abort', budgetExhausted: 'session_retries' }])],
      modelCalls: [{ atMs: 0, inputTokens: 10, outputTokens: 10, repairFailureClass: 'fatal' }],
    });
    expect(await getToolClassCosts(prisma, mine.id, month)).toEqual([]);
    expect(await getClassShares(prisma, mine.id, month)).toEqual([]);
    expect(await getRetryExhaustion(prisma, mine.id, month)).toEqual([]);
    expect(await getRejectionEffectiveness(prisma, mine.id, month)).toEqual([]);
    expect((await getRepairTokensByDay(prisma, mine.id, month)).every((d) => Object.keys(d.byClass).length === 0)).toBe(true);
    expect(await getSessionCosts(prisma, mine.id, month)).toMatchObject({ storedSessions: 0, estimatedSessions: 0, tokens: 0, repairTokens: 0 });
  });
});
