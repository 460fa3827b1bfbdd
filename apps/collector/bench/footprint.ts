/**
 * What the production processes need: CPU and memory (RSS) of the built collector
 * (apps/collector/dist/main.js) and the standalone web server, idle and under a short load,
 * on a throwaway Postgres. Prints a Markdown table for docs/deployment.md.
 *   pnpm turbo run build --filter=@guardtrace/collector --filter=@guardtrace/web
 *   pnpm --filter @guardtrace/collector exec tsx bench/footprint.ts
 * Linux only (reads /proc).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createApiKey, createPrisma, createProject, createSignInLink, ensureOwner, signInLinkPath } from '@guardtrace/db';
import { createTestDatabase, freePort } from '@guardtrace/db/dev';
import { fileURLToPath } from 'node:url';
import { request, SPANS_PER_SESSION, toProtobuf } from './payload.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** The web app's production launcher beside Next's standalone server (a process, never an import). */
const WEB_SERVE = path.join(ROOT, 'apps/web/.next/standalone/apps/web/serve.mjs');

// Long enough for start-up work (JIT, first queries, timers) to settle, short enough to run often.
const IDLE_MS = 10_000;
// A short load: long enough for the heap to reach its working size.
const LOAD_MS = 10_000;
// Distinct exports made before the load (17 ms each here): 350,000 spans, more than 10 s at the
// benchmark's peak, so no span is sent twice (a duplicate costs the collector less).
const BODIES = 700;
// 100 sessions (500 spans) an export: the OTel batch processor's default batch is 512 spans.
const SESSIONS_PER_REQUEST = 100;
// 8 exports in flight: a handful of agent fleets' OpenTelemetry Collectors sending at once.
const COLLECTOR_CONCURRENCY = 8;
// 4 page views in flight: a small team clicking through sessions at the same moment.
const WEB_CONCURRENCY = 4;
const CLK_TCK = 100; // USER_HZ on Linux

interface Sample {
  rssMiB: number;
  cpuSeconds: number;
}

function sample(pid: number): Sample {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of stat; the slice starts at field 3.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return { rssMiB: rssKb / 1024, cpuSeconds: ticks / CLK_TCK };
}

/** Peak RSS and mean CPU (cores) of `pid` while `work` runs. */
async function measure(pid: number, work: () => Promise<void>): Promise<{ peakMiB: number; endMiB: number; cores: number }> {
  const start = sample(pid);
  const t0 = performance.now();
  let peak = start.rssMiB;
  const timer = setInterval(() => {
    peak = Math.max(peak, sample(pid).rssMiB);
  }, 100);
  await work();
  clearInterval(timer);
  const end = sample(pid);
  const wallSeconds = (performance.now() - t0) / 1000;
  return { peakMiB: Math.max(peak, end.rssMiB), endMiB: end.rssMiB, cores: (end.cpuSeconds - start.cpuSeconds) / wallSeconds };
}

function start(args: string[], env: NodeJS.ProcessEnv, cwd: string): ChildProcess {
  return spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited with ${child.exitCode}`);
    const ok = await fetch(url).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} was not ready within 60 s`);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function exchange(url: string, opts: { method: string; headers?: Record<string, string>; body?: Buffer }): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method, headers: opts.headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const send = async (url: string, opts: { method: string; headers?: Record<string, string>; body?: Buffer }): Promise<number> =>
  (await exchange(url, opts)).statusCode ?? 0;

/** `concurrency` loops calling `one` until `ms` have passed; returns how many calls succeeded. */
async function loop(ms: number, concurrency: number, one: () => Promise<boolean>): Promise<number> {
  const end = Date.now() + ms;
  let ok = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) if (await one()) ok++;
    }),
  );
  return ok;
}

const db = await createTestDatabase();
const prisma = createPrisma(db.url, { max: 2 });
const project = await createProject(prisma, 'footprint');
const { key } = await createApiKey(prisma, project.id, 'footprint');
// The pages need a signed-in user (a request without a session is sent to the sign-in page).
const signIn = signInLinkPath((await createSignInLink(prisma, (await ensureOwner(prisma)).id)).token);
await prisma.$disconnect();
const children: ChildProcess[] = [];
const rows: string[] = [];
try {
  // The collector, as its `start` script runs it.
  const collectorPort = await freePort();
  const collector = start(
    ['--max-semi-space-size=64', path.join(ROOT, 'apps/collector/dist/main.js')],
    { DATABASE_URL: db.url, PORT: String(collectorPort), LOG_LEVEL: 'warn', COLLECTOR_RATE_LIMIT_RPS: '0' },
    path.join(ROOT, 'apps/collector'),
  );
  children.push(collector);
  const collectorUrl = `http://127.0.0.1:${collectorPort}`;
  await waitReady(`${collectorUrl}/readyz`, collector);
  const cIdle = await measure(collector.pid as number, () => sleep(IDLE_MS));
  const bodies = Array.from({ length: BODIES }, () => toProtobuf(request(SESSIONS_PER_REQUEST)));
  let n = 0;
  let exports = 0;
  const cLoad = await measure(collector.pid as number, async () => {
    exports = await loop(LOAD_MS, COLLECTOR_CONCURRENCY, async () => {
      const body = bodies[n++ % bodies.length] as Buffer;
      const status = await send(`${collectorUrl}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${key}` },
        body,
      });
      return status === 200;
    });
  });
  const spansPerSecond = Math.round((exports * SESSIONS_PER_REQUEST * SPANS_PER_SESSION) / (LOAD_MS / 1000));
  rows.push(
    `| collector | ${cIdle.endMiB.toFixed(0)} MiB, ${cIdle.cores.toFixed(3)} cores | ${cLoad.peakMiB.toFixed(0)} MiB peak, ${cLoad.cores.toFixed(2)} cores | ${spansPerSecond.toLocaleString('en-US')} spans/s (${COLLECTOR_CONCURRENCY} exports of ${SESSIONS_PER_REQUEST * SPANS_PER_SESSION} spans in flight, protobuf${n > BODIES ? '; some sent twice' : ''}) |`,
  );

  // The standalone web server, as its `start` script runs it.
  const webPort = await freePort();
  const web = start(['--max-semi-space-size=64', WEB_SERVE], { DATABASE_URL: db.url, PORT: String(webPort), GUARDTRACE_WEB_HOST: '127.0.0.1' }, path.join(ROOT, 'apps/web'));
  children.push(web);
  const webUrl = `http://127.0.0.1:${webPort}`;
  await waitReady(`${webUrl}/sessions`, web);
  const wIdle = await measure(web.pid as number, () => sleep(IDLE_MS));
  const signedIn = await exchange(`${webUrl}${signIn}`, { method: 'GET' });
  const cookie = (signedIn.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
  if (signedIn.statusCode !== 302 || !cookie) throw new Error(`sign-in link refused: HTTP ${signedIn.statusCode}`);
  const pages = ['/sessions', '/analytics', '/settings', '/sessions?sort=tokens'];
  let p = 0;
  let views = 0;
  const wLoad = await measure(web.pid as number, async () => {
    views = await loop(LOAD_MS, WEB_CONCURRENCY, async () => (await send(`${webUrl}${pages[p++ % pages.length]}`, { method: 'GET', headers: { cookie } })) === 200);
  });
  // A page that answers anything but 200 (a redirect to sign-in) is not a page view.
  if (views === 0) throw new Error('the web app served no page under load (every view answered other than 200)');
  rows.push(
    `| web (standalone) | ${wIdle.endMiB.toFixed(0)} MiB, ${wIdle.cores.toFixed(3)} cores | ${wLoad.peakMiB.toFixed(0)} MiB peak, ${wLoad.cores.toFixed(2)} cores | ${(views / (LOAD_MS / 1000)).toFixed(1)} pages/s (${WEB_CONCURRENCY} page views in flight over ${pages.join(', ')}) |`,
  );
} finally {
  for (const c of children) c.kill('SIGTERM');
  await sleep(1000);
  await db.close();
}
const cpu = os.cpus();
console.log(
  [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpu.length} x ${cpu[0]?.model ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, Postgres on the same machine (throwaway embedded Postgres 18).`,
    `Idle: ${IDLE_MS / 1000} s after ready; load: ${LOAD_MS / 1000} s. RSS from /proc/<pid>/status (VmRSS), sampled every 100 ms; CPU from utime+stime.`,
    '',
    '| process | idle | short load | load |',
    '| --- | --- | --- | --- |',
    ...rows,
  ].join('\n'),
);
agent.destroy();
process.exit(0);
