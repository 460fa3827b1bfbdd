import { describe, expect, it } from 'vitest';
import { listSessions } from '../src/server/queries/sessions.ts';
import { setupTestDatabase } from './db.ts';
import { seedProject, seedSession } from './factories.ts';

const db = setupTestDatabase();
const t0 = new Date('2026-11-20T10:00:00.000Z');
const minutes = (n: number) => new Date(t0.getTime() + n * 60_000);

describe('listSessions', () => {
  it('lists the project sessions newest first with their totals', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const older = await seedSession(prisma, project.id, { startedAt: minutes(0), agentName: 'support-bot' });
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

    const page = await listSessions(prisma, project.id);
    expect(page.total).toBe(2);
    expect(page.rows.map((r) => r.id)).toEqual([newer.id, older.id]);
    expect(page.rows[0]).toMatchObject({
      outcome: 'failed',
      durationMs: 7250,
      toolCallCount: 2,
      attemptCount: 3,
      failedAttemptCount: 2,
      tokens: 1550,
      repairTokens: 350,
      failureClasses: ['invalid_arguments', 'uncertain_side_effect'],
    });
    expect(page.rows[1]).toMatchObject({ agentName: 'support-bot', failureClasses: [] });
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
    expect((await listSessions(prisma, mine.id, { outcome: 'escalated' })).total).toBe(0);
  });

  it('filters by outcome and by failure class of any attempt', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const clean = await seedSession(prisma, project.id, { startedAt: minutes(0) });
    const transient = await seedSession(prisma, project.id, {
      startedAt: minutes(1),
      toolCalls: [
        {
          toolName: 'fetch',
          atMs: 10,
          attempts: [{ outcome: 'failed', failureClass: 'transient', decision: 'retry_backoff' }, { outcome: 'success' }],
        },
      ],
    });
    const escalated = await seedSession(prisma, project.id, {
      startedAt: minutes(2),
      outcome: 'escalated',
      toolCalls: [{ toolName: 'fetch', atMs: 10, attempts: [{ outcome: 'failed', failureClass: 'budget_exhausted' }] }],
    });

    const ids = async (f: Parameters<typeof listSessions>[2]) =>
      (await listSessions(prisma, project.id, f)).rows.map((r) => r.id);
    expect(await ids({ outcome: 'success' })).toEqual([transient.id, clean.id]);
    expect(await ids({ outcome: 'escalated' })).toEqual([escalated.id]);
    expect(await ids({ failureClass: 'transient' })).toEqual([transient.id]);
    expect(await ids({ failureClass: 'transient', outcome: 'escalated' })).toEqual([]);
    expect(await ids({ failureClass: 'fatal' })).toEqual([]);
  });

  it('finds sessions by a case-insensitive part of the id or the agent name', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const a = await seedSession(prisma, project.id, { id: 'conv-Alpha-42', startedAt: minutes(0), agentName: 'billing-agent' });
    const b = await seedSession(prisma, project.id, { id: 'conv-beta-7', startedAt: minutes(1), agentName: 'support-bot' });
    const ids = async (search: string) => (await listSessions(prisma, project.id, { search })).rows.map((r) => r.id);
    expect(await ids('alpha')).toEqual([a.id]);
    expect(await ids('SUPPORT')).toEqual([b.id]);
    expect(await ids('conv-')).toEqual([b.id, a.id]);
    expect(await ids('100%_')).toEqual([]);
  });

  it('pages through sessions without overlap and clamps pages past the end', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const seeded: string[] = [];
    for (let i = 0; i < 7; i++) seeded.unshift((await seedSession(prisma, project.id, { startedAt: minutes(i) })).id);

    const p1 = await listSessions(prisma, project.id, { page: 1, pageSize: 3 });
    const p2 = await listSessions(prisma, project.id, { page: 2, pageSize: 3 });
    const p3 = await listSessions(prisma, project.id, { page: 3, pageSize: 3 });
    expect(p1.pageCount).toBe(3);
    expect([...p1.rows, ...p2.rows, ...p3.rows].map((r) => r.id)).toEqual(seeded);
    const past = await listSessions(prisma, project.id, { page: 99, pageSize: 3 });
    expect(past.page).toBe(3);
    expect(past.rows.map((r) => r.id)).toEqual(p3.rows.map((r) => r.id));
  });
});
