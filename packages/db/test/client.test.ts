import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPrisma, type PrismaClient, queryArrays, sql } from '../src/client.ts';
import { createTestDatabase, type TestDatabase } from '../src/dev.ts';

// queryArrays: positional rows through the pool under a createPrisma client, for the reads of
// thousands of rows that Prisma's own mapping makes slow (the replay's).
let db: TestDatabase;
let prisma: PrismaClient;
beforeAll(async () => {
  db = await createTestDatabase({ partitions: false });
  prisma = createPrisma(db.url, { max: 2 });
});
afterAll(async () => {
  await prisma?.$disconnect();
  await db?.close();
});

it('answers rows as arrays in column order, with parameters bound and values typed by the driver', async () => {
  const word = "it's \u00e9";
  const rows = await queryArrays(
    prisma,
    sql`SELECT n::int4, n * 1.5::float8, n % 2 = 0, ${word} || n, NULL::text, json_build_object('n', n), (2^60)::int8 + n
        FROM generate_series(1, ${3}::int) AS n ORDER BY n`,
  );
  expect(rows).toEqual([
    [1, 1.5, false, "it's \u00e91", null, { n: 1 }, '1152921504606846977'],
    [2, 3, true, "it's \u00e92", null, { n: 2 }, '1152921504606846978'],
    [3, 4.5, false, "it's \u00e93", null, { n: 3 }, '1152921504606846979'],
  ]);
});

it('runs beside Prisma queries, within the client’s connection limit', async () => {
  const [a, b, c, d] = await Promise.all([
    queryArrays(prisma, sql`SELECT pg_backend_pid()`),
    queryArrays(prisma, sql`SELECT pg_backend_pid()`),
    queryArrays(prisma, sql`SELECT pg_backend_pid()`),
    prisma.$queryRaw<{ n: number }[]>`SELECT 1::int AS n`,
  ]);
  expect(new Set([a, b, c].map((r) => r[0]?.[0])).size).toBeLessThanOrEqual(2);
  expect(d[0]?.n).toBe(1);
});

it('reports a SQL error with its message, and refuses a client it did not make', async () => {
  await expect(queryArrays(prisma, sql`SELECT no_such_column FROM generate_series(1, 1)`)).rejects.toThrow(/no_such_column/);
  const foreign = Object.create(prisma) as PrismaClient;
  await expect(queryArrays(foreign, sql`SELECT 1`)).rejects.toThrow(/not made by createPrisma/);
});

it('serves a client made by another copy of this module (Next’s production build holds two)', async () => {
  // A second instance of the module, as a bundler's second graph has: its own module-level state.
  const second = '../src/client.ts?second-graph';
  const copy = (await import(/* @vite-ignore */ second)) as typeof import('../src/client.ts');
  expect(copy.queryArrays).not.toBe(queryArrays);
  const other = copy.createPrisma(db.url, { max: 1 });
  try {
    expect(await queryArrays(other, sql`SELECT 41 + 1`)).toEqual([[42]]);
    expect(await copy.queryArrays(prisma, sql`SELECT 'both ways'`)).toEqual([['both ways']]);
  } finally {
    await other.$disconnect();
  }
});

it('closes its connections on $disconnect, and opens new ones when used again', async () => {
  const own = createPrisma(db.url, { max: 1 });
  const pidOf = async () => (await queryArrays(own, sql`SELECT pg_backend_pid()`))[0]?.[0];
  const first = await pidOf();
  expect(await pidOf()).toBe(first);
  await own.$disconnect();
  // The server ends the backend once the client has said goodbye: asked until it is gone.
  await expect
    .poll(async () => (await queryArrays(prisma, sql`SELECT count(*)::int FROM pg_stat_activity WHERE pid = ${first}::int`))[0]?.[0], { timeout: 10_000 })
    .toBe(0);
  const second = await pidOf();
  expect(second).not.toBe(first);
  await own.$disconnect();
});
