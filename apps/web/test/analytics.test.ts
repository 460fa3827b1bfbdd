import { describe, expect, it } from 'vitest';
import { getClassSummary, getRepairTokensByDay, getTokenTotals } from '../src/server/queries/analytics.ts';
import { setupTestDatabase } from './db.ts';
import { seedProject, seedSession } from './factories.ts';

const db = setupTestDatabase();
const now = new Date('2026-11-30T15:00:00.000Z');
const daysAgo = (n: number, hour = 10) => new Date(Date.UTC(2026, 10, 30 - n, hour));

describe('analytics', () => {
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

    const days = await getRepairTokensByDay(prisma, project.id, 7, now);
    expect(days).toHaveLength(7);
    expect(days[0]!.day).toBe('2026-11-24');
    expect(days.at(-1)).toEqual({ day: '2026-11-30', byClass: { invalid_arguments: 400 } });
    expect(days.find((d) => d.day === '2026-11-28')!.byClass).toEqual({ invalid_arguments: 320, transient: 230 });
    expect(days.filter((d) => Object.keys(d.byClass).length === 0)).toHaveLength(5);

    const totals = await getTokenTotals(prisma, project.id, 7, now);
    expect(totals).toEqual({ storedSessions: 2, estimatedSessions: 5, tokens: 1650 + 400, repairTokens: 550 + 400 });
  });

  it('summarises attempts, sessions and decisions per failure class', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const transientCall = {
      toolName: 'fetch',
      atMs: 0,
      attempts: [
        { outcome: 'failed' as const, failureClass: 'transient', decision: 'retry_backoff' },
        { outcome: 'failed' as const, failureClass: 'transient', decision: 'escalate_human' },
      ],
    };
    await seedSession(prisma, project.id, { startedAt: daysAgo(1), toolCalls: [transientCall] });
    await seedSession(prisma, project.id, {
      startedAt: daysAgo(1, 11),
      toolCalls: [transientCall, { toolName: 'x', atMs: 0, attempts: [{ outcome: 'rejected', failureClass: 'unknown_tool', decision: 'reject_with_feedback' }] }],
      modelCalls: [{ atMs: 5, inputTokens: 70, outputTokens: 30, repairFailureClass: 'unknown_tool' }],
    });

    const summary = await getClassSummary(prisma, project.id, 30, now);
    expect(summary).toEqual([
      { failureClass: 'unknown_tool', attempts: 1, sessions: 1, repairTokens: 100, decisions: { reject_with_feedback: 1 } },
      { failureClass: 'transient', attempts: 4, sessions: 2, repairTokens: 0, decisions: { retry_backoff: 2, escalate_human: 2 } },
    ]);
  });

  it('never counts another project’s rows', async () => {
    const prisma = db.prisma();
    const mine = await seedProject(prisma);
    const theirs = await seedProject(prisma);
    await seedSession(prisma, theirs.id, {
      startedAt: daysAgo(1),
      toolCalls: [{ toolName: 'x', atMs: 0, attempts: [{ outcome: 'failed', failureClass: 'fatal', decision: 'abort' }] }],
      modelCalls: [{ atMs: 0, inputTokens: 10, outputTokens: 10, repairFailureClass: 'fatal' }],
    });
    expect(await getClassSummary(prisma, mine.id, 30, now)).toEqual([]);
    expect((await getRepairTokensByDay(prisma, mine.id, 30, now)).every((d) => Object.keys(d.byClass).length === 0)).toBe(true);
    expect(await getTokenTotals(prisma, mine.id, 30, now)).toEqual({ storedSessions: 0, estimatedSessions: 0, tokens: 0, repairTokens: 0 });
  });
});
