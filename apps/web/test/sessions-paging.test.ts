/** The session list (sessions.test.ts): sorting, keyset paging, held sessions, the capped count and foreign cursors. */
import { describe, expect, it } from 'vitest';
import { SESSION_SORTS, type SessionSort } from '../src/lib/session-sort.ts';
import { encodeCursor, orderBy } from '../src/server/queries/session-sort.ts';
import { listSessions, projectHasHeldSessions, type SessionListQuery } from '../src/server/queries/sessions.ts';
import { setupTestDatabase } from './db.ts';
import { seedProject, seedSession } from './factories.ts';
import { failing, minutes } from './sessions-fixtures.ts';

const db = setupTestDatabase();

describe('listSessions', () => {
  it('sorts by every column (counts scaled by sampling weight), ties broken by id', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const one = (id: string, n: number, more: Partial<Parameters<typeof seedSession>[2]> = {}) =>
      seedSession(prisma, project.id, { id, startedAt: minutes(n), ...more });
    // s-a: 1 call, 1 attempt, 100 tokens, weight 20 -> 20 calls, 20 attempts, 2,000 tokens.
    await one('s-a', 0, {
      agentName: 'beta',
      userId: 'u_2',
      durationMs: 1000,
      samplingWeight: 20,
      toolCalls: [{ toolName: 't', atMs: 1, attempts: [{ outcome: 'success' }] }],
      modelCalls: [{ atMs: 0, inputTokens: 60, outputTokens: 40 }],
    });
    // s-b: 2 calls, 4 attempts, 1,500 tokens, weight 1.
    await one('s-b', 1, {
      agentName: 'alpha',
      outcome: 'failed',
      durationMs: 9000,
      toolCalls: [failing('t', 'transient'), failing('u', 'transient')],
      modelCalls: [{ atMs: 0, inputTokens: 1000, outputTokens: 500 }],
    });
    // s-c: same start as s-b (a tie on `started`), no user, no calls.
    await one('s-c', 1, { agentName: 'alpha', outcome: 'escalated', durationMs: 500 });

    const order = async (sort: SessionSort, dir?: 'asc' | 'desc') =>
      (await listSessions(prisma, project.id, { sort, dir })).rows.map((r) => r.id);
    expect(await order('started')).toEqual(['s-c', 's-b', 's-a']);
    expect(await order('started', 'asc')).toEqual(['s-a', 's-b', 's-c']);
    expect(await order('session')).toEqual(['s-a', 's-b', 's-c']);
    expect(await order('agent')).toEqual(['s-b', 's-c', 's-a']);
    expect(await order('agent', 'desc')).toEqual(['s-a', 's-c', 's-b']);
    expect(await order('user')).toEqual(['s-b', 's-c', 's-a']);
    expect(await order('status')).toEqual(['s-c', 's-b', 's-a']);
    expect(await order('duration')).toEqual(['s-b', 's-a', 's-c']);
    expect(await order('tool_calls')).toEqual(['s-a', 's-b', 's-c']);
    expect(await order('attempts')).toEqual(['s-a', 's-b', 's-c']);
    expect(await order('retry_rate')).toEqual(['s-b', 's-c', 's-a']);
    expect(await order('tokens')).toEqual(['s-a', 's-b', 's-c']);
    expect(await order('tokens', 'asc')).toEqual(['s-c', 's-b', 's-a']);

    // Every sort reads its keyset index (same expression), so pages stay index range scans.
    for (const sort of SESSION_SORTS) {
      const plan = await prisma.$transaction(async (tx) => {
        await tx.$executeRaw`SET LOCAL enable_seqscan = off`;
        await tx.$executeRaw`SET LOCAL enable_sort = off`;
        return tx.$queryRaw<{ 'QUERY PLAN': string }[]>`EXPLAIN SELECT s.id FROM sessions s
          WHERE s.project_id = ${project.id}::uuid ${orderBy(sort, 'desc', true)} LIMIT 26`;
      });
      const text = plan.map((r) => r['QUERY PLAN']).join('\n');
      expect(text, sort).toMatch(/Index (Only )?Scan/);
      expect(text, sort).not.toContain('Sort ');
    }
  });

  it('pages by keyset forward and back across equal sort values without gaps or repeats', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    // 8 sessions on only 3 distinct start times and 2 distinct token totals.
    for (let i = 0; i < 8; i++) {
      await seedSession(prisma, project.id, {
        id: `tie-${i}`,
        startedAt: minutes(i % 3),
        modelCalls: [{ atMs: 0, inputTokens: i % 2 ? 10 : 20, outputTokens: 0 }],
      });
    }
    for (const [sort, dir] of [
      ['started', 'desc'],
      ['tokens', 'desc'],
      ['tokens', 'asc'],
      ['agent', 'asc'],
    ] as const) {
      const all = (await listSessions(prisma, project.id, { sort, dir, pageSize: 50 })).rows.map((r) => r.id);
      expect(all).toHaveLength(8);
      const pages: string[][] = [];
      let page = await listSessions(prisma, project.id, { sort, dir, pageSize: 3 });
      expect(page.prev).toBeNull();
      pages.push(page.rows.map((r) => r.id));
      while (page.next) {
        page = await listSessions(prisma, project.id, { sort, dir, pageSize: 3, after: page.next });
        pages.push(page.rows.map((r) => r.id));
        expect(page.total).toBe(8);
      }
      expect(pages.map((p) => p.length)).toEqual([3, 3, 2]);
      expect(pages.flat()).toEqual(all);
      // And back from the last page to the first.
      const back: string[][] = [pages[2] as string[]];
      while (page.prev) {
        page = await listSessions(prisma, project.id, { sort, dir, pageSize: 3, before: page.prev });
        back.unshift(page.rows.map((r) => r.id));
      }
      expect(back).toEqual(pages);
    }
  });

  it('leaves out sessions held for a sampling decision (weight 0) unless sampling:pending or sampling:all asks for them', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const kept = await seedSession(prisma, project.id, { startedAt: minutes(0) });
    const sampled = await seedSession(prisma, project.id, { startedAt: minutes(1), samplingWeight: 4 });
    expect(await projectHasHeldSessions(prisma, project.id)).toBe(false);
    const held = await seedSession(prisma, project.id, { startedAt: minutes(2), samplingWeight: 0, agentName: 'quiet-bot' });
    expect(await projectHasHeldSessions(prisma, project.id)).toBe(true);
    const ids = async (q: SessionListQuery) => {
      const list = await listSessions(prisma, project.id, q);
      return { ids: list.rows.map((r) => r.id), total: list.total };
    };
    // Newest first: the held session is the newest, and still not listed or counted.
    expect(await ids({})).toEqual({ ids: [sampled.id, kept.id], total: 2 });
    expect(await ids({ filters: { sampling: 'kept' } })).toEqual({ ids: [sampled.id, kept.id], total: 2 });
    expect(await ids({ filters: { sampling: 'pending' } })).toEqual({ ids: [held.id], total: 1 });
    expect(await ids({ filters: { sampling: 'all' } })).toEqual({ ids: [held.id, sampled.id, kept.id], total: 3 });
    // Other filters and free text apply on top, and never bring a held session back.
    expect(await ids({ terms: ['quiet'] })).toEqual({ ids: [], total: 0 });
    expect(await ids({ filters: { sampling: 'pending', agent: 'quiet-bot' } })).toEqual({ ids: [held.id], total: 1 });
    // Paging by keyset skips it too: a one-row page then the next.
    const first = await listSessions(prisma, project.id, { pageSize: 1 });
    const second = await listSessions(prisma, project.id, { pageSize: 1, after: first.next as string });
    expect([...first.rows, ...second.rows].map((r) => r.id)).toEqual([sampled.id, kept.id]);
    expect(second.next).toBeNull();
  });

  it('counts matching sessions up to a cap and says when there are more', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    for (let i = 0; i < 5; i++) await seedSession(prisma, project.id, { startedAt: minutes(i) });
    expect(await listSessions(prisma, project.id, { countCap: 3 })).toMatchObject({ total: 3, totalCapped: true });
    expect(await listSessions(prisma, project.id, { countCap: 5 })).toMatchObject({ total: 5, totalCapped: false });
    expect(await listSessions(prisma, project.id)).toMatchObject({ total: 5, totalCapped: false });
    // A word whose lookup already saw more sessions than the cap reads "cap+" without a count;
    // under the cap, the count decides.
    for (let i = 5; i < 7; i++) await seedSession(prisma, project.id, { startedAt: minutes(i), toolCalls: [failing('lookup_customer', 'missing_resource')] });
    const word = { terms: ['lookup_customer'], rareTermSessions: 1 };
    expect(await listSessions(prisma, project.id, { ...word, countCap: 1 })).toMatchObject({ total: 1, totalCapped: true });
    expect(await listSessions(prisma, project.id, { ...word, countCap: 2 })).toMatchObject({ total: 2, totalCapped: false });
  });

  it('ignores a cursor it did not make, or made for another sort, and says so', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    await seedSession(prisma, project.id, { startedAt: minutes(0) });
    const first = await listSessions(prisma, project.id);
    const cases: [string, RegExp][] = [
      ['%%%', /not readable/],
      [Buffer.from('{"a":1}').toString('base64url'), /not one this page made/],
      [encodeCursor({ sort: 'tokens', value: '1', id: 'x' }), /belongs to the “tokens” sort/],
      [encodeCursor({ sort: 'started', value: "1'; DROP TABLE sessions; --", id: 'x' }), /malformed value/],
    ];
    for (const [after, message] of cases) {
      const page = await listSessions(prisma, project.id, { after });
      expect(page.cursorError).toMatch(message);
      expect(page.rows.map((r) => r.id)).toEqual(first.rows.map((r) => r.id));
    }
  });
});
