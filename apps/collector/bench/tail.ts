/**
 * `pnpm --filter @guardtrace/collector exec tsx bench/tail.ts [spans/s] [seconds]`: where the slowest
 * acknowledgements at a steady rate come from. Sends the ingest benchmark's requests (500 spans)
 * open loop at the given rate to the collector process on a fresh embedded Postgres, samples
 * Postgres' background work and lock waits every 20 ms, and prints p50/p90/p99, the WAL written
 * a span, the checkpoints, and for each of the slowest 2% of requests what Postgres was doing
 * meanwhile. `WAL=8GB` sets max_wal_size first, `PG_SET=wal_compression=lz4,...` other settings
 * (ALTER SYSTEM), to compare.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApiKey, createPrisma, createProject } from '@guardtrace/db';
import { createTestDatabase } from '@guardtrace/db/dev';
import pg from 'pg';
import { request, toProtobuf } from './payload.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
async function startCollector(databaseUrl: string): Promise<{ url: string; proc: ChildProcess }> {
  const tsx = createRequire(import.meta.url).resolve('tsx');
  const proc = spawn(process.execPath, ['--max-semi-space-size=64', '--import', tsx, 'src/main.ts'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error', COLLECTOR_RATE_LIMIT_RPS: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve) => {
    proc.stdout?.on('data', (d) => {
      const m = /collector listening on (\S+)/.exec(String(d));
      if (m?.[1]) resolve(m[1]);
    });
  });
  return { url, proc };
}
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
function post(url: string, key: string, body: Buffer): Promise<void> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: '/v1/traces', method: 'POST', agent, headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${key}`, 'content-length': body.length } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(String(res.statusCode)))));
    });
    req.on('error', reject);
    req.end(body);
  });
}
async function main() {
  const rate = Number(process.argv[2] ?? 6500);
  const seconds = Number(process.argv[3] ?? 40);
  const db = await createTestDatabase();
  const prisma = createPrisma(db.url, { max: 1 });
  const project = await createProject(prisma, 'tail');
  const { key } = await createApiKey(prisma, project.id);
  await prisma.$disconnect();
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  if (process.env.WAL) await admin.query(`ALTER SYSTEM SET max_wal_size = '${process.env.WAL}'`);
  // `PG_SET=name=value,...`: other settings to compare (ALTER SYSTEM, then a reload).
  for (const kv of (process.env.PG_SET ?? '').split(',').filter(Boolean)) {
    const [name, value] = kv.split('=');
    await admin.query(`ALTER SYSTEM SET ${name} = '${value}'`);
  }
  await admin.query('SELECT pg_reload_conf()');
  await new Promise((r) => setTimeout(r, 200));
  console.log((await admin.query(`SELECT current_setting('max_wal_size') AS w, current_setting('checkpoint_timeout') AS t, current_setting('synchronous_commit') AS s, current_setting('full_page_writes') AS f, current_setting('wal_compression') AS c`)).rows[0]);
  const lsn0 = (await admin.query('SELECT pg_current_wal_lsn() AS l')).rows[0].l;
  const { url, proc } = await startCollector(db.url);
  const events: { t: number; what: string }[] = [];
  const t0 = performance.now();
  let polling = true;
  const poll = (async () => {
    while (polling) {
      const { rows } = await admin.query(`SELECT backend_type, wait_event_type, wait_event, left(query, 60) AS q FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND (backend_type <> 'client backend' OR state = 'active')`);
      for (const r of rows) if (r.backend_type !== 'client backend' && !['walwriter', 'background writer', 'checkpointer', 'autovacuum launcher', 'logical replication launcher', 'io worker'].includes(r.backend_type) || r.wait_event_type === 'Lock') events.push({ t: performance.now() - t0, what: `${r.backend_type} ${r.wait_event_type}/${r.wait_event} ${r.q}` });
      const ck = await admin.query(`SELECT num_requested + num_timed AS n FROM pg_stat_checkpointer`).catch(() => ({ rows: [{ n: -1 }] }));
      events.push({ t: performance.now() - t0, what: `ckpt ${ck.rows[0]?.n}` });
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const interval = 1000 / (rate / 500);
  // Fresh sessions in every request (a re-sent span would be skipped).
  const bodies = Array.from({ length: Math.floor((seconds * 1000) / interval) }, () => toProtobuf(request(100)));
  const lat: { t: number; ms: number }[] = [];
  const pending: Promise<void>[] = [];
  const n = Math.floor((seconds * 1000) / interval);
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const s = performance.now();
    pending.push(
      post(url, key, bodies[i % bodies.length] as Buffer).then(() => {
        lat.push({ t: s - t0, ms: performance.now() - s });
      }),
    );
  }
  await Promise.all(pending);
  polling = false;
  await poll;
  const sorted = [...lat].sort((a, b) => a.ms - b.ms);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]?.ms.toFixed(1);
  const wal = (await admin.query(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS b`, [lsn0])).rows[0].b;
  const ck = (await admin.query('SELECT num_timed, num_requested FROM pg_stat_checkpointer')).rows[0];
  console.log(`WAL ${(Number(wal) / 1e6).toFixed(0)} MB = ${(Number(wal) / (lat.length * 500)).toFixed(0)} bytes a span; checkpoints`, ck);
  console.log(`requests ${lat.length} p50 ${q(0.5)} p90 ${q(0.9)} p99 ${q(0.99)} max ${q(1)}`);
  const worst = [...lat].sort((a, b) => b.ms - a.ms).slice(0, Math.ceil(lat.length * 0.02));
  for (const w of worst.sort((a, b) => a.t - b.t)) {
    const near = events.filter((e) => e.t >= w.t - 50 && e.t <= w.t + w.ms && !e.what.startsWith('ckpt')).map((e) => e.what);
    const ck = events.filter((e) => e.t >= w.t && e.t <= w.t + w.ms && e.what.startsWith('ckpt')).map((e) => e.what);
    console.log(`at ${(w.t / 1000).toFixed(2)} s: ${w.ms.toFixed(1)} ms; ${[...new Set(near)].join(' | ').slice(0, 400)} ${[...new Set(ck)].join(',')}`);
  }
  proc.kill();
  await admin.end();
  await db.close();
}
main();
