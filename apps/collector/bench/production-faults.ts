/**
 * The fault side of the production benchmark (bench/production.ts): a frozen database, the
 * collector killed with SIGKILL under load, and Postgres stopped for a while under load. The
 * load is the real OpenTelemetry protobuf exporter with its own retries (test/exporter-helpers.ts).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createApiKey, createPrisma, createProject } from '@guardtrace/db';
import { connectionUrl, freePort, type RunningPostgres, startEmbeddedPostgres } from '@guardtrace/db/dev';
import { migrate } from '@guardtrace/db/server';
import pg from 'pg';
import { clusterPids, signalAll } from '../test/cluster.ts';
import { type Delivery, deliver, makeSpans } from '../test/exporter-helpers.ts';
import { jsonRequest, sdkSession, startCollectorProcess } from '../test/helpers.ts';
import { type BenchKey, load, post, type Row, timed } from './production-kit.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const session = () => JSON.stringify(jsonRequest(sdkSession().spans));

/**
 * Every process of the collector's Postgres cluster stopped (SIGSTOP): how long /readyz, an
 * export with a cached key and one with a key not cached yet take to answer, and with what;
 * then how long ingest takes to come back after SIGCONT.
 */
export async function frozenDatabase(url: string, sql: pg.Pool, k: BenchKey, uncachedKey: string): Promise<Row[]> {
  const warm = await post(url, k.key, session());
  if (warm.status !== 200) throw new Error(`frozen database: the warm-up export got ${warm.status}`);
  const pids = await clusterPids(sql);
  const answer = (r: Response) => `${r.status}${r.headers.get('retry-after') ? ` + Retry-After ${r.headers.get('retry-after')}` : ''}`;
  signalAll(pids, 'SIGSTOP');
  const auth = { authorization: `Bearer ${k.key}` };
  let answers: { r: Response; ms: number }[];
  try {
    answers = await Promise.all([
      timed(() => fetch(`${url}/readyz`)),
      timed(() => post(url, k.key, session())),
      timed(() => post(url, uncachedKey, session())),
      timed(() => fetch(`${url}/v1/sampling`, { headers: auth })),
      timed(() => fetch(`${url}/v1/sessions/sess_frozen`, { headers: auth })),
    ]);
  } finally {
    signalAll(pids, 'SIGCONT');
  }
  const thawed = performance.now();
  let back = 0;
  while ((await post(url, k.key, session())).status !== 200) {
    if (++back > 120) throw new Error('frozen database: ingest did not recover within 60 s of SIGCONT');
    await sleep(500);
  }
  const recovered = performance.now() - thawed;
  const rows: Row[] = [];
  const names = ['/readyz', 'export, key cached', 'export, key not cached', 'GET /v1/sampling', 'GET /v1/sessions/{id}'];
  for (const [i, t] of answers.entries()) {
    const what = names[i];
    rows.push({
      benchmark: `frozen database (SIGSTOP): ${what}`,
      metric: 'answer; time to it',
      value: `${answer(t.r)}; ${(t.ms / 1000).toFixed(2)} s (load ${load()})`,
      target: '503 + Retry-After within 6 s (COLLECTOR_DB_TIMEOUT_MS 5 s + 1 s)',
      pass: t.r.status === 503 && t.r.headers.has('retry-after') && t.ms <= 6_000,
    });
  }
  rows.push({ benchmark: 'frozen database, after SIGCONT', metric: 'time until an export is stored again', value: `${(recovered / 1000).toFixed(2)} s`, target: '(informational)', pass: true });
  return rows;
}

/** Acknowledged spans missing from Postgres, and spans stored more than once, for one project. */
async function tally(sql: pg.Pool, projectId: string, d: Delivery) {
  const { rows } = await sql.query<{ span_id: string; n: number }>('SELECT span_id, count(*)::int AS n FROM spans WHERE project_id = $1 GROUP BY span_id', [projectId]);
  const stored = new Map(rows.map((r) => [r.span_id, r.n]));
  return {
    lost: d.acked.filter((id) => !stored.has(id)).length,
    duplicates: rows.filter((r) => r.n > 1).length,
    stored: rows.length,
  };
}

/** SIGKILL the built collector while the exporter sends `spans` spans; start it again on the same port. */
export async function killUnderLoad(databaseUrl: string, sql: pg.Pool, k: BenchKey, spans: number): Promise<Row> {
  const port = await freePort();
  let proc = (await startCollectorProcess(databaseUrl, port, { built: true })).proc;
  const sending = deliver(`http://127.0.0.1:${port}/v1/traces`, k.key, makeSpans(spans), { batch: 50, concurrency: 4, pauseMs: 5 });
  // Kill once a tenth is stored (polling: independent of the machine's speed).
  for (;;) {
    const n = Number((await sql.query('SELECT count(*)::int AS n FROM spans WHERE project_id = $1', [k.projectId])).rows[0].n);
    if (n >= spans / 10) break;
    await sleep(10);
  }
  const killed = proc;
  killed.kill('SIGKILL');
  await new Promise((r) => killed.once('exit', r));
  await sleep(800);
  proc = (await startCollectorProcess(databaseUrl, port, { built: true })).proc;
  const d = await sending;
  const t = await tally(sql, k.projectId, d);
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
  return {
    benchmark: `kill -9 of the collector under load (${spans.toLocaleString('en-US')} spans, real OTLP exporter, 4 exports in flight)`,
    metric: 'acknowledged spans lost; stored twice',
    value: `${t.lost} of ${d.acked.length.toLocaleString('en-US')}; ${t.duplicates} (exporter gave up on ${d.failed}) (load ${load()})`,
    target: '0; 0',
    pass: t.lost === 0 && t.duplicates === 0,
  };
}

/** Postgres stopped for `seconds` while the exporter sends, then started again on the same folder and port. */
export async function postgresStopped(seconds: number): Promise<Row> {
  const base = await fs.mkdtemp(path.join(os.tmpdir(), 'gt-prodbench-'));
  await fs.chmod(base, 0o755);
  const dataDir = path.join(base, 'pg');
  const port = await freePort();
  let server: RunningPostgres | undefined = await startEmbeddedPostgres({ dataDir, port });
  const admin = new pg.Client({ connectionString: connectionUrl(port) });
  await admin.connect();
  await admin.query('CREATE DATABASE guardtrace');
  await admin.end();
  const url = connectionUrl(port, 'guardtrace');
  await migrate(url);
  const prisma = createPrisma(url, { max: 1 });
  const project = await createProject(prisma, 'outage');
  const { key } = await createApiKey(prisma, project.id);
  await prisma.$disconnect();
  // Retry-After 1 s, as the outage test: the exporter's retries come back soon after Postgres does.
  const { proc, url: collectorUrl } = await startCollectorProcess(url, 0, { built: true, env: { COLLECTOR_RETRY_AFTER_SECONDS: '1' } });
  try {
    // Two exports of 50 spans in flight, 250 ms apart: enough batches to span the outage and 10 s after it.
    const spans = Math.ceil(((seconds + 10) * 1000) / 250) * 2 * 50;
    const sending = deliver(`${collectorUrl}/v1/traces`, key, makeSpans(spans), { batch: 50, concurrency: 2, pauseMs: 250 });
    await sleep(2_000);
    await server.stop();
    server = undefined;
    const during = await post(collectorUrl, key, session());
    await sleep(seconds * 1000);
    server = await startEmbeddedPostgres({ dataDir, port });
    const d = await sending;
    const sql = new pg.Pool({ connectionString: url, max: 1 });
    const t = await tally(sql, project.id, d);
    await sql.end();
    return {
      benchmark: `Postgres stopped ${seconds} s under load (${spans.toLocaleString('en-US')} spans, real OTLP exporter)`,
      metric: 'acknowledged spans lost; stored twice; answer while down',
      value: `${t.lost} of ${d.acked.length.toLocaleString('en-US')}; ${t.duplicates}; ${during.status} + Retry-After ${during.headers.get('retry-after')} (exporter gave up on ${d.failed} after its retries) (load ${load()})`,
      target: '0; 0; 503 + Retry-After',
      pass: t.lost === 0 && t.duplicates === 0 && during.status === 503,
    };
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
    await server?.stop();
    await fs.rm(base, { recursive: true, force: true });
  }
}
