/**
 * `pnpm bench capacity` (20,000 sessions), or `pnpm --filter @guardtrace/e2e exec tsx
 * bench/capacity.ts [sessions]`: the figures
 * docs/deployment.md plans capacity with, measured on one run. The seed's sessions (`pnpm seed`,
 * tools/seed: seed 1, 29 days) are sent through the collector process (tsx src/main.ts, as the
 * collector benchmark runs it) into a throwaway embedded Postgres; then:
 * - the collector's CPU seconds (its own process_cpu_seconds_total) and Postgres' (every process
 *   of the cluster, from /proc: the postmaster, its live children, and the children that exited)
 *   per span, so spans/s per core of each;
 * - the bytes on disk of every table with its indexes and TOAST (pg_total_relation_size, span
 *   partitions summed), per million spans, after VACUUM ANALYZE.
 * Writes bench/capacity.json (scripts/bench.ts puts it in docs/benchmarks.md). Linux only (/proc).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApiKey, createPrisma, createProject } from '@guardtrace/db';
import { createTestDatabase } from '@guardtrace/db/dev';
import { sendSeed } from '@guardtrace/seed';

const here = path.dirname(fileURLToPath(import.meta.url));
const collectorDir = path.resolve(here, '../../apps/collector');
const SESSIONS = Number(process.argv[2] ?? 10_000);
// The seed's clock: sessions end near this instant, spread over the 29 days before it.
const UNTIL_MS = Date.UTC(2026, 11, 1);
// /proc's clock ticks per second (USER_HZ: 100 on Linux).
const TICKS = 100;

function get(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http.get(url, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
      });
      res.on('end', () => resolve(text));
    }).on('error', reject);
  });
}

async function startCollector(databaseUrl: string): Promise<{ url: string; proc: ChildProcess }> {
  const tsx = createRequire(path.join(collectorDir, 'package.json')).resolve('tsx');
  const proc = spawn(process.execPath, ['--max-semi-space-size=64', '--import', tsx, 'src/main.ts'], {
    cwd: collectorDir,
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

const collectorCpu = async (url: string) =>
  Number(/^guardtrace_collector_process_cpu_seconds_total (\S+)$/m.exec(await get(`${url}/metrics`))?.[1] ?? Number.NaN);

/** Fields of /proc/PID/stat after the command name: [state, ppid, ...]. */
function stat(pid: number): string[] | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return s.slice(s.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** CPU seconds of the cluster: the postmaster with its exited children, and its live children. */
function clusterCpu(postmaster: number): number {
  const own = stat(postmaster);
  if (!own) throw new Error(`no postmaster ${postmaster}`);
  // utime, stime, cutime, cstime: fields 14-17 of stat, 12-15 after the command name.
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const f = stat(Number(name));
    if (f && Number(f[1]) === postmaster) ticks += Number(f[11]) + Number(f[12]);
  }
  return ticks / TICKS;
}

async function main() {
  // Span partitions of the seed's month (its 29 days end on UNTIL_MS).
  const db = await createTestDatabase({ partitions: new Date(UNTIL_MS - 86_400_000) });
  const prisma = createPrisma(db.url, { max: 1 });
  const backend = (await prisma.$queryRawUnsafe<{ pid: number }[]>('SELECT pg_backend_pid() AS pid'))[0]?.pid as number;
  const postmaster = Number(stat(backend)?.[1]);
  const project = await createProject(prisma, 'capacity');
  const { key } = await createApiKey(prisma, project.id);
  const { url, proc } = await startCollector(db.url);
  const rows: { benchmark: string; metric: string; value: string; target: string; pass: boolean }[] = [];
  try {
    const cpu0 = await collectorCpu(url);
    const pg0 = clusterCpu(postmaster);
    const load0 = os.loadavg();
    const r = await sendSeed({ endpoint: url, apiKey: key, seed: 1, sessions: SESSIONS, untilMs: UNTIL_MS, days: 29 });
    const load1 = os.loadavg();
    const collectorSeconds = (await collectorCpu(url)) - cpu0;
    const pgSeconds = clusterCpu(postmaster) - pg0;
    const wall = r.ms / 1000;
    await prisma.$executeRawUnsafe('VACUUM ANALYZE');
    const sizes = await prisma.$queryRawUnsafe<{ table: string; bytes: bigint; rows: bigint }[]>(
      `SELECT coalesce(i.inhparent::regclass::text, c.oid::regclass::text) AS table,
         sum(pg_total_relation_size(c.oid))::bigint AS bytes, sum(c.reltuples)::bigint AS rows
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_inherits i ON i.inhrelid = c.oid
       WHERE n.nspname = 'public' AND c.relkind = 'r'
       GROUP BY 1 HAVING sum(pg_total_relation_size(c.oid)) > 16384 ORDER BY 2 DESC`,
    );
    const total = sizes.reduce((a, s) => a + Number(s.bytes), 0);
    const perMillion = (b: number) => (b / r.spans) * 1e6;
    const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
    console.log(`load average ${load0.map((l) => l.toFixed(1)).join(' ')} at start, ${load1.map((l) => l.toFixed(1)).join(' ')} at end`);
    console.log(`${r.sessions} sessions, ${r.spans} spans in ${wall.toFixed(1)} s: ${(r.spans / wall).toFixed(0)} spans/s`);
    console.log(`collector CPU ${collectorSeconds.toFixed(1)} s (${(r.spans / collectorSeconds).toFixed(0)} spans per CPU second); Postgres CPU ${pgSeconds.toFixed(1)} s (${(r.spans / pgSeconds).toFixed(0)} spans per CPU second)`);
    console.table(sizes.map((s) => ({ table: s.table, rows: Number(s.rows), size: mib(Number(s.bytes)), 'per 1M spans': mib(perMillion(Number(s.bytes))) })));
    console.log(`all tables: ${mib(total)}, ${mib(perMillion(total))} per million spans`);
    const row = (benchmark: string, metric: string, value: string) => ({ benchmark, metric, value, target: '(informational)', pass: true });
    const n = (x: number) => Math.round(x).toLocaleString('en-US');
    const us = (seconds: number) => `${((1e6 * seconds) / r.spans).toFixed(1)} µs`;
    rows.push(
      row(`${n(r.sessions)} seed sessions through one collector`, 'spans (wall time, spans/s)', `${n(r.spans)} (${wall.toFixed(1)} s, ${n(r.spans / wall)} spans/s)`),
      row('collector CPU', 'a span (spans per core-second)', `${us(collectorSeconds)} (${n(r.spans / collectorSeconds)})`),
      row('Postgres CPU (every process of the cluster)', 'a span (spans per core-second)', `${us(pgSeconds)} (${n(r.spans / pgSeconds)})`),
      row('Postgres size, all tables with indexes and TOAST', 'per million spans', mib(perMillion(total))),
      ...sizes
        .filter((t) => Number(t.bytes) >= 2 ** 20)
        .map((t) => row(`Postgres size: ${t.table}`, 'per million spans', mib(perMillion(Number(t.bytes))))),
    );
    writeFileSync(
      path.join(here, 'capacity.json'),
      `${JSON.stringify(
        {
          machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
          date: new Date().toISOString(),
          method:
            `e2e/bench/capacity.ts: ${n(r.sessions)} sessions of \`pnpm seed\` (seed 1, 29 days, OTLP/JSON, ~500 spans a request, 8 in flight) through one collector process (tsx src/main.ts) into an empty throwaway embedded Postgres on the same machine; CPU seconds of the collector (process_cpu_seconds_total) and of every Postgres process (/proc) over the seed; sizes by pg_total_relation_size after VACUUM ANALYZE. Load average ${load0[0]?.toFixed(1)} at the start, ${load1[0]?.toFixed(1)} at the end.`,
          rows,
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    proc.kill('SIGTERM');
    await new Promise((res) => proc.once('exit', res));
    await prisma.$disconnect();
    await db.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
