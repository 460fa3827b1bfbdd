/**
 * The web's heavy reads on a real physical streaming replica (DATABASE_READ_URL), through the
 * same functions the pages call (src/server/db.ts): the explorer reads the replica and shows its
 * lag when replay is paused, a session the replica has not replayed yet is found on the primary,
 * settings read the primary, and a stopped replica sends every read to the primary.
 */
import { createPrisma, type PrismaClient } from '@guardtrace/db';
import { createTestDatabase, type RunningReplica, startStreamingReplica, type TestDatabase, withDatabase } from '@guardtrace/db/dev';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { lagText } from '../src/components/replica-lag.tsx';
import { db, heavyRead, heavyReadFrom, replicaLagNotice } from '../src/server/db.ts';
import { sameFailureNav } from '../src/server/queries/same-failure.ts';
import { getSessionHeader } from '../src/server/queries/session-header.ts';
import { listSessions } from '../src/server/queries/sessions.ts';
import { getProjectSettings, setCleanSampleRate } from '../src/server/queries/settings.ts';
import { seedProject, seedSession, seedSessionRow } from './factories.ts';

let server: TestDatabase;
let replica: RunningReplica | undefined;
let primary: PrismaClient;
let project: string;

beforeAll(async () => {
  server = await createTestDatabase({ ownServer: true, partitions: false });
  primary = createPrisma(server.url, { max: 2 });
  project = (await seedProject(primary)).id;
  await seedSessionRow(primary, project, 'replayed-session');
  await seedSession(primary, project, {
    id: 'failed-while-paused',
    startedAt: new Date('2026-11-21T09:00:00.000Z'),
    toolCalls: [{ toolName: 'lookup_order', atMs: 5, attempts: [{ outcome: 'success' }] }],
  });
  replica = await startStreamingReplica(server.server?.url as string);
  // What the web server reads at its first query (env.ts), as a deployment would set it.
  process.env.DATABASE_URL = server.url;
  process.env.DATABASE_READ_URL = withDatabase(replica.url, 'guardtrace');
  process.env.GUARDTRACE_READ_LAG_NOTICE_SECONDS = '0.3';
  process.env.GUARDTRACE_READ_MAX_LAG_SECONDS = '60';
});
afterAll(async () => {
  // The web's own clients (src/server/db.ts keeps them on globalThis).
  const web = globalThis as unknown as { guardtracePrisma?: PrismaClient; guardtraceReplica?: PrismaClient };
  await Promise.all([web.guardtracePrisma?.$disconnect(), web.guardtraceReplica?.$disconnect()]);
  await primary?.$disconnect();
  await replica?.stop();
  await server?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const listed = async () => (await heavyRead((d) => listSessions(d, project))).rows.map((r) => r.id).sort();
// One check of the replica serves a second of reads (ReadRouter): wait it out for a fresh one.
const CHECK_MS = 1100;

it('reads the explorer from the replica while it is caught up, with no lag notice', async () => {
  const { value, choice } = await heavyReadFrom((d) => listSessions(d, project));
  expect(choice.source).toBe('replica');
  expect(value.rows.map((r) => r.id).sort()).toEqual(['failed-while-paused', 'replayed-session']);
  expect(await replicaLagNotice()).toBeNull();
});

it('shows the replica’s data and its lag while replay is paused; a new session and settings come from the primary', async () => {
  await replica?.caughtUp();
  const pause = createPrisma(process.env.DATABASE_READ_URL as string, { max: 1 });
  await pause.$executeRaw`SELECT pg_wal_replay_pause()`;
  try {
    await seedSessionRow(primary, project, 'written-while-paused');
    expect(await setCleanSampleRate(primary, project, 0.25)).toBe(true);
    const written = performance.now();
    await sleep(CHECK_MS);

    // The explorer: the replica's sessions, and the notice saying how old they may be.
    expect(await listed()).toEqual(['failed-while-paused', 'replayed-session']);
    const notice = await replicaLagNotice();
    expect(notice?.lagMs).toBeGreaterThanOrEqual(performance.now() - written - CHECK_MS);
    expect(notice?.lagMs).toBeGreaterThan(300);
    expect(lagText(notice?.lagMs ?? 0)).toMatch(/^\d+ s$/);

    // A shared link to the new session: not on the replica, found on the primary, and no notice
    // for data that came from the primary.
    const header = await heavyReadFrom((d) => getSessionHeader(d, project, 'written-while-paused'), { orPrimaryWhen: (h) => h === null });
    expect(header.value?.id).toBe('written-while-paused');
    expect(header.choice.source).toBe('primary');
    expect(await replicaLagNotice(header.choice)).toBeNull();

    // A session the replica has, whose failure came in a later batch it has not replayed: its
    // "same failure" navigation is the primary's answer, not "session 1 of 0" from the replica.
    const failing = { toolName: 'lookup_order', failureClass: 'invalid_arguments' };
    const first = await primary.attempt.findFirstOrThrow({ where: { projectId: project, sessionId: 'failed-while-paused' } });
    await primary.attempt.create({
      data: {
        projectId: project,
        traceId: first.traceId,
        spanId: 'a'.repeat(16),
        sessionId: first.sessionId,
        toolCallSpanId: first.toolCallSpanId,
        toolName: failing.toolName,
        number: 2,
        startedAt: new Date(first.startedAt.getTime() + 100),
        durationMs: 30,
        arguments: '{}',
        outcome: 'rejected',
        failureClass: failing.failureClass,
        decision: 'reject_with_feedback',
      },
    });
    const nav = await heavyReadFrom((d) => sameFailureNav(d, project, 'failed-while-paused', { ...failing, pointer: null }), { orPrimaryWhen: (n) => !n });
    expect(nav.choice.source).toBe('primary');
    expect(nav.value).toMatchObject({ position: 1, total: 1 });

    // Settings read the primary: the rate just set, which the replica does not have yet.
    expect((await getProjectSettings(db(), project))?.cleanSampleRate).toBe(0.25);
    expect((await heavyRead((d) => getProjectSettings(d, project)))?.cleanSampleRate).toBe(1);
  } finally {
    await pause.$executeRaw`SELECT pg_wal_replay_resume()`;
    await pause.$disconnect();
  }
  await replica?.caughtUp();
  await sleep(CHECK_MS);
  expect(await listed()).toEqual(['failed-while-paused', 'replayed-session', 'written-while-paused']);
  expect(await replicaLagNotice()).toBeNull();
});

it('reads everything from the primary once the replica is stopped', async () => {
  await replica?.stop();
  replica = undefined;
  await seedSessionRow(primary, project, 'after-the-replica-stopped');
  expect(await listed()).toEqual(['after-the-replica-stopped', 'failed-while-paused', 'replayed-session', 'written-while-paused']);
  const { choice } = await heavyReadFrom((d) => listSessions(d, project));
  expect(choice).toMatchObject({ source: 'primary', fallback: 'unreachable' });
  expect(await replicaLagNotice()).toBeNull();
});

it('says the lag in seconds, rounded up, and in minutes beyond two', () => {
  expect([lagText(1), lagText(999), lagText(1000), lagText(12_001), lagText(119_000), lagText(120_000), lagText(600_000)]).toEqual([
    '1 s',
    '1 s',
    '1 s',
    '13 s',
    '119 s',
    '2 min',
    '10 min',
  ]);
});
