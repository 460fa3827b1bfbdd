/**
 * `pnpm --filter @guardtrace/collector exec tsx bench/profile.ts [requests] [--cpu-prof]`: where a
 * write transaction's time goes under the ingest benchmark's load. Runs the collector process at
 * peak (the benchmark's requests, 16 in flight) on a database with `track_functions = all`, then
 * prints the writer's transaction time (its own histogram, /metrics) beside the time Postgres
 * spent in each function called from it (pg_stat_user_functions: the per-batch SQL steps and the
 * triggers), and a raw COPY of the same number of rows; with the CPU seconds of each side (the
 * collector's own counter; Postgres' from /proc: the postmaster, its live and its exited children),
 * which a busy shared machine disturbs far less than wall-clock rates. `--cpu-prof` writes the collector's V8
 * CPU profile to $TMPDIR/guardtrace-collector-profile/ (open it in Chrome DevTools).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApiKey, createPrisma, createProject } from '@guardtrace/db';
import { createTestDatabase } from '@guardtrace/db/dev';
import pg from 'pg';
import { copyRows } from './copy-rows.ts';
import { request, SPANS_PER_SESSION, toProtobuf } from './payload.ts';
import { tableRows } from './rows.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const SESSIONS_PER_REQUEST = 100;
const CONCURRENCY = 16;

async function startCollector(databaseUrl: string, cpuProf: boolean): Promise<{ url: string; proc: ChildProcess }> {
  const tsx = createRequire(import.meta.url).resolve('tsx');
  const dir = path.join(os.tmpdir(), 'guardtrace-collector-profile');
  if (cpuProf) mkdirSync(dir, { recursive: true });
  const args = ['--max-semi-space-size=64', ...(cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : []), '--import', tsx, 'src/main.ts'];
  const proc = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error', COLLECTOR_RATE_LIMIT_RPS: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout?.on('data', (d) => {
      const m = /collector listening on (\S+)/.exec(String(d));
      if (m?.[1]) resolve(m[1]);
    });
    proc.once('exit', (code) => reject(new Error(`collector exited ${code}`)));
  });
  return { url, proc };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function call(url: string, method: string, p: string, headers: Record<string, string | number>, body?: Buffer): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: p, method, agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
      });
      res.on('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`${res.statusCode}: ${text.slice(0, 200)}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function peak(url: string, key: string, bodies: Buffer[]) {
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++] as Buffer;
        await call(url, 'POST', '/v1/traces', { 'content-type': 'application/x-protobuf', authorization: `Bearer ${key}`, 'content-length': body.length }, body);
      }
    }),
  );
  return (performance.now() - t) / 1000;
}

/** Sum and count of the writer's transaction-time histogram. */
async function batchSeconds(url: string): Promise<{ sum: number; count: number }> {
  const text = await call(url, 'GET', '/metrics', {});
  const sum = Number(/^guardtrace_collector_batch_duration_seconds_sum (\S+)$/m.exec(text)?.[1] ?? 0);
  const count = Number(/^guardtrace_collector_batch_duration_seconds_count (\S+)$/m.exec(text)?.[1] ?? 0);
  return { sum, count };
}

/** Fields of /proc/PID/stat after the command name: [state, ppid, ...]. */
function stat(pid: number): string[] | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return s.slice(s.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** CPU seconds of the cluster (USER_HZ 100): the postmaster with its exited children, and its live children. */
function clusterCpu(postmaster: number): number {
  const own = stat(postmaster) as string[];
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const f = stat(Number(name));
    if (f && Number(f[1]) === postmaster) ticks += Number(f[11]) + Number(f[12]);
  }
  return ticks / 100;
}

async function collectorCpu(url: string): Promise<number> {
  const text = await call(url, 'GET', '/metrics', {});
  return Number(/^guardtrace_collector_process_cpu_seconds_total (\S+)$/m.exec(text)?.[1] ?? Number.NaN);
}

async function main() {
  const requests = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 120);
  const cpuProf = process.argv.includes('--cpu-prof');
  const db = await createTestDatabase();
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  const { rows: dbRows } = await admin.query<{ d: string }>('SELECT current_database() AS d');
  const backend = (await admin.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid as number;
  const postmaster = Number(stat(backend)?.[1]);
  await admin.query(`ALTER DATABASE "${dbRows[0]?.d}" SET track_functions = 'all'`);
  const prisma = createPrisma(db.url, { max: 1 });
  const project = await createProject(prisma, 'profile');
  const copyProject = await createProject(prisma, 'profile-copy');
  const { key } = await createApiKey(prisma, project.id);
  await prisma.$disconnect();
  const { url, proc } = await startCollector(db.url, cpuProf);
  try {
    // Warm-up (plans, JIT), then counters from zero.
    await peak(url, key, Array.from({ length: 16 }, () => toProtobuf(request(SESSIONS_PER_REQUEST))));
    await admin.query('SELECT pg_stat_reset()');
    const before = await batchSeconds(url);
    const bodies = Array.from({ length: requests }, () => toProtobuf(request(SESSIONS_PER_REQUEST)));
    const load = os.loadavg();
    const [pg0, js0] = [clusterCpu(postmaster), await collectorCpu(url)];
    const wall = await peak(url, key, bodies);
    const [pg1, js1] = [clusterCpu(postmaster), await collectorCpu(url)];
    const after = await batchSeconds(url);
    const spans = requests * SESSIONS_PER_REQUEST * SPANS_PER_SESSION;
    // Statistics reach the view when a backend ends its transaction and reports (at most once a second).
    await new Promise((r) => setTimeout(r, 1500));
    const { rows } = await admin.query<{ funcname: string; calls: string; total_time: number; self_time: number }>(
      `SELECT funcname, calls, total_time, self_time FROM pg_stat_user_functions ORDER BY total_time DESC`,
    );
    const txSeconds = after.sum - before.sum;
    const batches = after.count - before.count;
    console.log(`load average at start: ${load.map((l) => l.toFixed(2)).join(' ')}; now ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log(`ingest: ${spans} spans in ${wall.toFixed(2)} s = ${(spans / wall).toFixed(0)} spans/s`);
    console.log(`write transactions: ${batches}, ${txSeconds.toFixed(2)} s in all (${((1000 * txSeconds) / batches).toFixed(1)} ms each, ${(spans / batches).toFixed(0)} spans each)`);
    console.table(
      rows.map((r) => ({
        function: r.funcname,
        calls: Number(r.calls),
        'total s': (r.total_time / 1000).toFixed(2),
        'self s': (r.self_time / 1000).toFixed(2),
        'ms / call': (r.total_time / Number(r.calls)).toFixed(2),
        '% of tx time': ((100 * r.total_time) / 1000 / txSeconds).toFixed(1),
      })),
    );
    // A raw COPY of as many rows, for scale.
    const targets = tableRows(copyProject.id, Array.from({ length: requests }, () => request(SESSIONS_PER_REQUEST)));
    const pg2 = clusterCpu(postmaster);
    const t = performance.now();
    await admin.query('BEGIN');
    for (const [target, r] of targets) await copyRows(admin as unknown as pg.PoolClient, target.table, r, target.columns);
    await admin.query('COMMIT');
    const copySeconds = (performance.now() - t) / 1000;
    const pgCopy = clusterCpu(postmaster) - pg2;
    const us = (seconds: number) => `${((1e6 * seconds) / spans).toFixed(1)} µs`;
    console.log(`CPU a span: ingest Postgres ${us(pg1 - pg0)} + collector ${us(js1 - js0)}; raw COPY Postgres ${us(pgCopy)}`);
    console.log(`raw COPY of the same count: ${copySeconds.toFixed(2)} s = ${(spans / copySeconds).toFixed(0)} spans/s; ingest ${((100 * copySeconds) / wall).toFixed(0)}% of it`);
  } finally {
    agent.destroy();
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
    await admin.end();
    await db.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
