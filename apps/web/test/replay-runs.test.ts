import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '@guardtrace/db';
import type { ReplayChange, ReplayResult } from '@guardtrace/semconv';
import { expect, it } from 'vitest';
import { getReplayRun, listReplayRuns, recordedAttempts, replayRunGroups } from '../src/server/queries/replay-runs.ts';
import { setupTestDatabase } from './db.ts';
import { seedProject } from './factories.ts';

const db = setupTestDatabase();

async function dataset(prisma: PrismaClient, projectId: string) {
  return prisma.dataset.create({ data: { id: randomUUID(), projectId, name: 'reads', sourceKind: 'query', source: 'tool:read_file', itemCount: 1 } });
}

const result = (i: number, change: ReplayChange): ReplayResult => ({
  itemId: `t${i}:s${i}`,
  attempt: 1,
  tool: 'read_file',
  sessionId: `sess-${i}`,
  stepPath: `/sessions/sess-${i}?project=p&call=s${i}`,
  change,
  arguments: { path: `docs/${i}.md` },
  recorded: { allowed: true, decision: 'proceed', failureClass: null, feedback: null, checks: [] },
  now: { allowed: false, decision: 'reject_with_feedback', failureClass: 'guard_violation', feedback: `no ${i}`, checks: [] },
  definition: { recordedHash: null, currentHash: 'ab', changes: [] },
});

async function run(prisma: PrismaClient, projectId: string, datasetId: string, at: string, label: string, results: ReplayResult[]) {
  const counts: Record<string, number> = { unchanged: 4, newly_rejected: 0, newly_allowed: 0, class_changed: 0, feedback_changed: 0, not_replayed: 0 };
  for (const r of results) counts[r.change] = (counts[r.change] ?? 0) + 1;
  return prisma.replayRun.create({
    data: {
      id: randomUUID(),
      projectId,
      datasetId,
      label,
      startedAt: new Date(at),
      finishedAt: new Date(at),
      createdAt: new Date(at),
      summary: { calls: 10, attempts: 4 + results.length, ...counts },
      options: { execute: 'none', failOn: ['newly_rejected'] },
      results: {
        create: results.map((r, ordinal) => ({ ordinal, itemId: r.itemId, attempt: r.attempt, change: r.change, tool: r.tool, sessionId: r.sessionId, stepPath: r.stepPath, result: r as object })),
      },
    },
  });
}

it('lists a dataset\'s runs oldest first with their counts, and finds a run only in its own project and dataset', async () => {
  const prisma = db.prisma();
  const mine = await seedProject(prisma);
  const theirs = await seedProject(prisma);
  const ds = await dataset(prisma, mine.id);
  const other = await dataset(prisma, mine.id);
  const second = await run(prisma, mine.id, ds.id, '2026-12-02T10:00:00Z', 'second', [result(1, 'newly_rejected')]);
  await run(prisma, mine.id, ds.id, '2026-12-01T10:00:00Z', 'first', []);
  await run(prisma, mine.id, other.id, '2026-12-03T10:00:00Z', 'elsewhere', []);

  const runs = await listReplayRuns(prisma, mine.id, ds.id);
  expect(runs.map((r) => r.label)).toEqual(['first', 'second']);
  expect(runs[1]?.counts).toEqual({ unchanged: 4, newly_rejected: 1, newly_allowed: 0, class_changed: 0, feedback_changed: 0, not_replayed: 0 });
  expect(runs[1]).toMatchObject({ calls: 10, attempts: 5, execute: 'none', failOn: ['newly_rejected'], startedAt: '2026-12-02T10:00:00.000Z' });

  expect(await getReplayRun(prisma, mine.id, ds.id, second.id)).toMatchObject({ id: second.id, label: 'second' });
  expect(await getReplayRun(prisma, theirs.id, ds.id, second.id)).toBeNull();
  expect(await getReplayRun(prisma, mine.id, other.id, second.id)).toBeNull();
  expect(await listReplayRuns(prisma, theirs.id, ds.id)).toEqual([]);
});

it('groups a run\'s changed attempts by change, in report order, at most a page each with the whole count', async () => {
  const prisma = db.prisma();
  const p = await seedProject(prisma);
  const ds = await dataset(prisma, p.id);
  const results = [result(0, 'newly_allowed'), result(1, 'newly_rejected'), result(2, 'feedback_changed'), result(3, 'newly_rejected'), result(4, 'newly_rejected')];
  const r = await run(prisma, p.id, ds.id, '2026-12-02T10:00:00Z', 'x', results);
  const dto = await getReplayRun(prisma, p.id, ds.id, r.id);
  const groups = await replayRunGroups(prisma, dto!, 2);
  expect(groups.map((g) => [g.change, g.total, g.results.map((x) => x.itemId)])).toEqual([
    ['newly_rejected', 3, ['t1:s1', 't3:s3']],
    ['newly_allowed', 1, ['t0:s0']],
    ['feedback_changed', 1, ['t2:s2']],
  ]);
  expect(groups[0]?.results[0]).toEqual(results[1]);
});

it('reads the recorded attempts of the listed items from the dataset\'s snapshot', async () => {
  const prisma = db.prisma();
  const p = await seedProject(prisma);
  const ds = await dataset(prisma, p.id);
  const attempts = [
    { number: 1, arguments: { file: 'a' }, outcome: 'rejected', decision: 'reject_with_feedback', failureClass: 'invalid_arguments', feedback: 'x', checks: [] },
    { number: 2, arguments: { path: 'a' }, outcome: 'success', decision: 'proceed', failureClass: null, feedback: null, checks: [] },
  ];
  await prisma.datasetItem.create({ data: { datasetId: ds.id, ordinal: 0, itemId: 't9:s9', item: { id: 't9:s9', attempts } } });
  const got = await recordedAttempts(prisma, ds.id, ['t9:s9', 'tX:sX']);
  expect([...got.keys()]).toEqual(['t9:s9']);
  expect(got.get('t9:s9')).toEqual([
    { number: 1, arguments: { file: 'a' }, failureClass: 'invalid_arguments', checks: [] },
    { number: 2, arguments: { path: 'a' }, failureClass: null, checks: [] },
  ]);
  expect((await recordedAttempts(prisma, ds.id, [])).size).toBe(0);
});
