/**
 * connectionProblem: the collector and the migrator stop with one line saying what to fix when
 * they cannot reach or sign in to their database. Each case is a real failure: a throwaway
 * Postgres with a wrong password or a missing database, a closed port, a server that never answers.
 */
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPrisma } from '../src/client.ts';
import { connectionProblem } from '../src/database-url.ts';
import { type RunningPostgres, startThrowawayPostgres } from '../src/dev.ts';

let server: RunningPostgres;
beforeAll(async () => {
  server = await startThrowawayPostgres();
});
afterAll(async () => {
  await server?.stop();
});

/** The error connecting to `url` (and running one query) gives, or the test fails. */
async function failure(url: string, timeoutMs = 10_000): Promise<unknown> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  try {
    await c.connect();
    await c.query('SELECT 1');
  } catch (err) {
    return err;
  } finally {
    await c.end().catch(() => {});
  }
  throw new Error(`connected to ${url}`);
}

function withPart(url: string, change: (u: URL) => void): string {
  const u = new URL(url);
  change(u);
  return u.toString();
}

/** A port nothing listens on: one the system gave out and took back. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

it('a wrong password: names the user and server, never the password', async () => {
  const url = withPart(server.url, (u) => {
    u.password = 'not-the-Pa55word';
  });
  const problem = connectionProblem(await failure(url), url);
  expect(problem).toMatch(/^DATABASE_URL: Postgres at 127\.0\.0\.1:\d+\/\w+ refused the password of user "postgres": check the user and password in DATABASE_URL/);
  expect(problem).toContain('percent-encoded');
  expect(problem).not.toContain('not-the-Pa55word');
});

it('a database that does not exist: names it and says how to fix it', async () => {
  const url = withPart(server.url, (u) => {
    u.pathname = '/no_such_db';
  });
  const problem = connectionProblem(await failure(url), url, 'DATABASE_READ_URL');
  expect(problem).toMatch(/^DATABASE_READ_URL: database "no_such_db" does not exist at 127\.0\.0\.1:\d+\/no_such_db: create it/);
});

it('a port nothing listens on, and a host that does not resolve', async () => {
  const port = await closedPort();
  const url = `postgres://postgres:secret@127.0.0.1:${port}/guardtrace`;
  expect(connectionProblem(await failure(url), url)).toBe(
    `DATABASE_URL: nothing accepts connections at 127.0.0.1:${port}: is Postgres running there, and listening on that address and port (listen_addresses, port)?`,
  );
  const dns = 'postgres://postgres:secret@no-such-host.invalid:5432/guardtrace';
  expect(connectionProblem(await failure(dns), dns)).toMatch(/^DATABASE_URL: the host of no-such-host\.invalid:5432 is not found \(DNS\)/);
});

it('a server that accepts the connection and never answers: the connect timeout, said as such', async () => {
  const silent = net.createServer(() => {});
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const port = (silent.address() as net.AddressInfo).port;
  try {
    const url = `postgres://postgres:secret@127.0.0.1:${port}/guardtrace`;
    expect(connectionProblem(await failure(url, 300), url)).toMatch(new RegExp(`^DATABASE_URL: no answer from 127\\.0\\.0\\.1:${port} in time`));
  } finally {
    silent.close();
  }
});

it('a query that fails on a working connection is not a connection problem', async () => {
  const c = new pg.Client({ connectionString: server.url });
  await c.connect();
  try {
    const err = await c.query('SELECT * FROM no_such_table').catch((e: unknown) => e);
    expect(connectionProblem(err, server.url)).toBeNull();
  } finally {
    await c.end();
  }
  expect(connectionProblem('text', server.url)).toBeNull();
});

it("reads pg's error inside Prisma's (the web app's client): the same lines", async () => {
  const prismaFailure = async (url: string) => {
    const p = createPrisma(url, { max: 1 });
    try {
      return await p.$queryRaw`SELECT 1`.then(
        () => null,
        (e: unknown) => e,
      );
    } finally {
      await p.$disconnect().catch(() => {});
    }
  };
  const wrong = withPart(server.url, (u) => {
    u.password = 'not-the-Pa55word';
  });
  expect(connectionProblem(await prismaFailure(wrong), wrong)).toMatch(/^DATABASE_URL: Postgres at [^ ]+ refused the password of user "postgres"/);
  const missing = withPart(server.url, (u) => {
    u.pathname = '/no_such_db';
  });
  expect(connectionProblem(await prismaFailure(missing), missing)).toMatch(/^DATABASE_URL: database "no_such_db" does not exist at /);
  const closed = `postgres://postgres:secret@127.0.0.1:${await closedPort()}/guardtrace`;
  expect(connectionProblem(await prismaFailure(closed), closed)).toMatch(/^DATABASE_URL: cannot reach Postgres at 127\.0\.0\.1:\d+ \(/);
});
