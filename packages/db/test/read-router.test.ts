/**
 * Reads from a real physical streaming replica (dev-postgres' startStreamingReplica, from the
 * embedded binaries): the router sends reads to it while it is caught up or lags less than the
 * maximum, measures its lag from WAL positions, and falls back to the primary when it lags
 * beyond the maximum, is stopped, or lacks a row the primary has.
 */
import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPrisma, type PrismaClient } from '../src/client.ts';
import { createTestDatabase, type RunningReplica, startStreamingReplica, type TestDatabase, withDatabase } from '../src/dev.ts';
import { createProject } from '../src/keys.ts';
import { ReadRouter } from '../src/read-router.ts';

let db: TestDatabase;
let replica: RunningReplica | undefined;
let primary: PrismaClient;
let onReplica: PrismaClient;
let project: { id: string; name: string };

beforeAll(async () => {
  db = await createTestDatabase({ partitions: false, ownServer: true });
  primary = createPrisma(db.url, { max: 2 });
  project = await createProject(primary, 'before');
  replica = await startStreamingReplica(db.server?.url as string);
  onReplica = createPrisma(withDatabase(replica.url, 'guardtrace'), { max: 2, connectionTimeoutMillis: 1000 });
});
afterAll(async () => {
  await onReplica?.$disconnect();
  await primary?.$disconnect();
  await replica?.stop();
  await db?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nameOf = (c: PrismaClient) => c.project.findUnique({ where: { id: project.id }, select: { name: true } }).then((p) => p?.name ?? null);
const inRecovery = (c: PrismaClient) => c.$queryRaw<{ r: boolean }[]>`SELECT pg_is_in_recovery() AS r`.then((x) => x[0]?.r);
// Every check fresh: the tests decide when time passes.
const router = (maxLagMs = 60_000) => new ReadRouter({ primary, replica: onReplica, maxLagMs, checkEveryMs: 0 });

it('reads the primary while a lagging replica’s age has no bound yet (no earlier check, nothing replayed since it started)', async () => {
  await onReplica.$executeRaw`SELECT pg_wal_replay_pause()`;
  try {
    await primary.project.update({ where: { id: project.id }, data: { name: 'before' } });
    const { value, choice } = await router().read(inRecovery);
    expect(choice).toMatchObject({ source: 'primary', fallback: 'lagging' });
    expect(value).toBe(false);
  } finally {
    await onReplica.$executeRaw`SELECT pg_wal_replay_resume()`;
  }
  await replica?.caughtUp();
  expect((await router().choose()).source).toBe('replica');
});

it('reads from the replica while it is caught up, with lag 0 however long nothing is written', async () => {
  const r = router();
  const { value, choice } = await r.read(inRecovery);
  expect(choice).toMatchObject({ source: 'replica', fallback: null, lagMs: 0 });
  expect(value).toBe(true);
  // Idle after a write: the replay timestamp ages, the replica misses nothing.
  await primary.project.update({ where: { id: project.id }, data: { name: 'before' } });
  await replica?.caughtUp();
  await sleep(300);
  const [age] = await onReplica.$queryRaw<{ ms: number }[]>`SELECT (extract(epoch FROM now() - pg_last_xact_replay_timestamp()) * 1000)::float8 AS ms`;
  expect(age?.ms).toBeGreaterThanOrEqual(300);
  // Polled: a record the primary writes on its own (a checkpoint, a snapshot of running
  // transactions) may be between the two reads of one check for a millisecond.
  await expect.poll(async () => (await r.choose()).lagMs, { timeout: 2000 }).toBe(0);
});

it('shows the replica’s old data with its lag while replay is paused; the primary has the new', async () => {
  const r = router();
  expect((await r.choose()).source).toBe('replica'); // a sample of the primary while caught up
  await onReplica.$executeRaw`SELECT pg_wal_replay_pause()`;
  try {
    await primary.project.update({ where: { id: project.id }, data: { name: 'after' } });
    const written = performance.now();
    await sleep(400);
    const checked = performance.now();
    const { value, choice } = await r.read(nameOf);
    expect(choice.source).toBe('replica');
    expect(value).toBe('before');
    expect(await nameOf(primary)).toBe('after');
    // The replica lacks a write made `checked - written` ms before the check: its data is at least that old.
    expect(choice.lagMs).toBeGreaterThanOrEqual(checked - written - 20);
    expect(choice.lagMs).toBeLessThan(10_000);

    // Beyond the maximum: the primary, saying why.
    const strict = router(100);
    const fallback = await strict.read(nameOf);
    expect(fallback.value).toBe('after');
    expect(fallback.choice).toMatchObject({ source: 'primary', fallback: 'lagging', lagMs: 0 });

    // A row the replica has not replayed yet (a session the collector has just written): the primary has it.
    const fresh = await createProject(primary, 'written just now');
    const found = await r.read((c) => c.project.findUnique({ where: { id: fresh.id } }), { orPrimaryWhen: (p) => p === null });
    expect(found.value?.name).toBe('written just now');
    expect(found.choice.source).toBe('primary');
  } finally {
    await onReplica.$executeRaw`SELECT pg_wal_replay_resume()`;
  }
  await replica?.caughtUp();
  const resumed = await r.read(nameOf);
  expect(resumed).toMatchObject({ value: 'after', choice: { source: 'replica', lagMs: 0 } });
});

it('runs again on the primary a read the replica does not answer in time, and says so once', async () => {
  const told: string[] = [];
  // A replica client whose reads time out after 300 ms; the read sleeps for 1 s there (a replica
  // that stopped answering: the read waited for ever).
  const slow = createPrisma(withDatabase(replica?.url as string, 'guardtrace'), { max: 1, connectionTimeoutMillis: 1000, queryTimeoutMillis: 300 });
  try {
    const r = new ReadRouter({ primary, replica: slow, maxLagMs: 60_000, checkEveryMs: 0, failureHoldMs: 0, onChange: (c) => told.push(`${c.source}:${c.fallback}`) });
    const read = (c: PrismaClient) => c.$queryRaw<{ r: boolean }[]>`SELECT pg_is_in_recovery() AS r FROM pg_sleep(1)`.then((x) => x[0]?.r);
    const t = performance.now();
    const { value, choice } = await r.read(read);
    expect(value).toBe(false);
    expect(choice).toMatchObject({ source: 'primary', fallback: 'unreachable' });
    expect(performance.now() - t).toBeLessThan(10_000);
    // Reads stay on the primary until a check (run beside them) finds the replica answering again.
    for (let i = 0; i < 100 && (await r.choose()).source !== 'replica'; i++) await sleep(50);
    await r.choose();
    // Each change told once: to the replica, to the primary, back to the replica.
    expect(told).toEqual(['replica:null', 'primary:unreachable', 'replica:null']);
  } finally {
    await slow.$disconnect();
  }
});

it('after a read fails on the replica, reads stay on the primary for a hold that doubles with each failure in a row, though checks pass', async () => {
  // A replica whose checks answer while reads on it fail (a frozen server whose open connections
  // still answer): before, each check sent the reads back and each next read failed again.
  let now = 0;
  const r = new ReadRouter({ primary, replica: onReplica, maxLagMs: 60_000, checkEveryMs: 0, clock: () => now });
  const failing = (c: PrismaClient) => (c === onReplica ? Promise.reject(new Error('connection timeout')) : inRecovery(c));
  expect((await r.read(failing)).choice).toMatchObject({ source: 'primary', fallback: 'unreachable' });
  // Back on the replica once a check (run beside the reads) has found it answering: polled for 1 s.
  const back = async () => {
    for (let i = 0; i < 20; i++) {
      if ((await r.choose()).source === 'replica') return true;
      await sleep(50);
    }
    return false;
  };
  now = 14_000;
  // Within the hold, however the checks answer (before: back at the first check).
  expect(await back()).toBe(false);
  expect(await r.choose()).toMatchObject({ source: 'primary', fallback: 'unreachable' });
  now = 15_000;
  expect(await back()).toBe(true);
  // A second failure in a row: 30 s.
  expect((await r.read(failing)).choice.source).toBe('primary');
  now = 15_000 + 29_000;
  expect(await back()).toBe(false);
  now = 15_000 + 30_000;
  expect(await back()).toBe(true);
  expect((await r.read(inRecovery)).choice.source).toBe('replica');
  // A read that succeeded on the replica: the next failure holds 15 s again.
  expect((await r.read(failing)).choice.source).toBe('primary');
  now = 45_000 + 15_000;
  expect(await back()).toBe(true);
});

it('while a hung replica gives no answer, reads go to the primary at once, each next check running beside them', async () => {
  // A server that accepts connections and never answers (a hung host, a dropped network).
  const silent = net.createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const hung = createPrisma(`postgres://guardtrace@127.0.0.1:${(silent.address() as net.AddressInfo).port}/guardtrace`, { max: 1, connectionTimeoutMillis: 5_000 });
  try {
    const r = new ReadRouter({ primary, replica: hung, maxLagMs: 60_000, checkEveryMs: 0, checkTimeoutMs: 1500 });
    // The first check waits out its timeout: nothing was known yet.
    expect(await r.choose()).toMatchObject({ source: 'primary', fallback: 'unreachable' });
    // The next ones answer from what is known, not after another 1.5 s each (the page waited 2 s a read).
    for (let i = 0; i < 3; i++) {
      const first = await Promise.race([r.choose(), sleep(700).then(() => 'waited for a check' as const)]);
      expect(first).toMatchObject({ source: 'primary', fallback: 'unreachable' });
    }
    expect((await r.read(nameOf)).value).toBe('after');
  } finally {
    await hung.$disconnect().catch(() => {});
    silent.close();
  }
});

it('does not read a server that no longer follows the primary (a promoted standby), and reads the primary itself as caught up', async () => {
  const second = await startStreamingReplica(db.server?.url as string);
  const promoted = createPrisma(withDatabase(second.url, 'guardtrace'), { max: 1, connectionTimeoutMillis: 1000 });
  try {
    const r = new ReadRouter({ primary, replica: promoted, maxLagMs: 60_000, checkEveryMs: 0 });
    expect((await r.choose()).source).toBe('replica');
    await promoted.$executeRaw`SELECT pg_promote(true, 30)`;
    expect(await inRecovery(promoted)).toBe(false);
    // Its data stays as it was, read as caught up before: now the primary, and why.
    expect(await r.choose()).toMatchObject({ source: 'primary', fallback: 'not_a_replica' });
    const itself = new ReadRouter({ primary, replica: primary, maxLagMs: 60_000, checkEveryMs: 0 });
    expect(await itself.choose()).toMatchObject({ source: 'replica', lagMs: 0 });
  } finally {
    await promoted.$disconnect();
    await second.stop();
  }
});

it('reads the primary when the replica stops, also for a read already routed to it', async () => {
  const r = router();
  const before = await r.choose();
  expect(before.source).toBe('replica');
  await replica?.stop();
  replica = undefined;
  // Routed to the replica before it stopped: the read fails there and runs on the primary.
  const late = await r.read(nameOf, { choice: before });
  expect(late).toMatchObject({ value: 'after', choice: { source: 'primary', fallback: 'unreachable' } });
  // The next check finds it gone.
  expect(await r.choose()).toMatchObject({ source: 'primary', fallback: 'unreachable' });
  expect((await r.read(inRecovery)).value).toBe(false);
});

it('reads the primary, with no check at all, when no replica is configured', async () => {
  const r = new ReadRouter({ primary, maxLagMs: 1000 });
  expect(r.hasReplica).toBe(false);
  expect(await r.choose()).toMatchObject({ source: 'primary', fallback: null, lagMs: 0 });
});
