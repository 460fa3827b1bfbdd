/**
 * The in-flight memory bound under the three floods of issue 13: 64 clients each sending, again
 * and again for 15 s, one of
 *   gzip:     a ~60 kB gzip body that inflates to a 15.5 MB OTLP JSON request;
 *   protobuf: an 8.4 MB OTLP protobuf request, uncompressed;
 *   json:     a 15.5 MB OTLP JSON request, uncompressed;
 * each request one span with a long attribute. The built collector (dist/main.js) runs as its
 * own process on a throwaway Postgres with its default 256 MiB bound; its RSS is sampled every
 * 100 ms. Target (issue 13): peak RSS <= bound + 256 MiB under each flood, every refusal a
 * 429/503 with Retry-After. Prints the results; not part of the test suite. Floods to run are
 * named on the command line (default: all three, one collector each).
 *   pnpm --filter @guardtrace/collector build && pnpm --filter @guardtrace/collector exec tsx bench/gzip-flood.ts [gzip|protobuf|json]...
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import { createApiKey, createPrisma, createProject } from '@guardtrace/db';
import { createTestDatabase, freePort } from '@guardtrace/db/dev';
import { toProtobuf } from './payload.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
// The floods: 64 clients; 15.5 MB JSON (gzip or not), 8.4 MB protobuf.
const CLIENTS = 64;
const FLOODS = {
  gzip: { bytes: 15_500_000, contentType: 'application/json', gzip: true },
  protobuf: { bytes: 8_400_000, contentType: 'application/x-protobuf', gzip: false },
  json: { bytes: 15_500_000, contentType: 'application/json', gzip: false },
} as const;
export type Flood = keyof typeof FLOODS;
export const FLOOD_KINDS = Object.keys(FLOODS) as Flood[];
const FLOOD_MS = 15_000;
const BOUND_MIB = 256; // the collector's default COLLECTOR_MAX_INFLIGHT_BYTES

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

function body(kind: Flood): Buffer {
  const f = FLOODS[kind];
  const now = BigInt(Date.now()) * 1_000_000n;
  const request = {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'flood' } }] },
        scopeSpans: [
          {
            scope: { name: 'flood' },
            spans: [
              {
                traceId: randomBytes(16).toString('hex'),
                spanId: randomBytes(8).toString('hex'),
                name: 'flood',
                startTimeUnixNano: String(now),
                endTimeUnixNano: String(now + 1_000_000n),
                attributes: [{ key: 'pad', value: { stringValue: 'x'.repeat(f.bytes) } }],
              },
            ],
          },
        ],
      },
    ],
  };
  if (kind === 'protobuf') return toProtobuf(request);
  const json = Buffer.from(JSON.stringify(request));
  return f.gzip ? zlib.gzipSync(json, { level: 9 }) : json;
}

function post(port: number, key: string, kind: Flood, payload: Buffer): Promise<{ status: number; retryAfter?: string }> {
  const f = FLOODS[kind];
  const headers: http.OutgoingHttpHeaders = { 'content-type': f.contentType, authorization: `Bearer ${key}`, 'content-length': payload.length };
  if (f.gzip) headers['content-encoding'] = 'gzip';
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/traces',
        headers,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined }));
      },
    );
    req.on('error', () => resolve({ status: -1 }));
    req.end(payload);
  });
}

/** One flood against a fresh collector and database; returns what it measured (also printed). */
export async function flood(kind: Flood, ms: number = FLOOD_MS) {
  const db = await createTestDatabase();
  const prisma = createPrisma(db.url, { max: 1 });
  const project = await createProject(prisma, 'flood');
  const { key } = await createApiKey(prisma, project.id, 'flood');
  await prisma.$disconnect();
  const port = await freePort();
  const collector = spawn(process.execPath, ['--max-semi-space-size=64', path.join(HERE, '../dist/main.js')], {
    env: { ...process.env, DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', COLLECTOR_RATE_LIMIT_RPS: '0' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    for (const deadline = Date.now() + 60_000; ; ) {
      if (await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false)) break;
      if (Date.now() > deadline) throw new Error('collector not ready');
      await new Promise((r) => setTimeout(r, 200));
    }
    const payload = body(kind);
    const idle = rssMiB(collector.pid as number);
    let peak = idle;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMiB(collector.pid as number));
    }, 100);
    const statuses = new Map<string, number>();
    let refusalsWithoutRetryAfter = 0;
    const end = Date.now() + ms;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (Date.now() < end) {
          const r = await post(port, key, kind, payload);
          statuses.set(String(r.status), (statuses.get(String(r.status)) ?? 0) + 1);
          if ((r.status === 429 || r.status === 503) && !r.retryAfter) refusalsWithoutRetryAfter++;
        }
      }),
    );
    clearInterval(sampler);
    // Every request answered: nothing may stay counted against the bound.
    const metrics = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text());
    const inFlightAfter = Number(/^guardtrace_collector_inflight_bytes (\S+)$/m.exec(metrics)?.[1] ?? Number.NaN);
    const result = {
      flood: kind,
      sentBytes: payload.length,
      decodedBytes: FLOODS[kind].bytes,
      clients: CLIENTS,
      idleRssMiB: Math.round(idle),
      peakRssMiB: Math.round(peak),
      targetMiB: BOUND_MIB + 256,
      met: peak <= BOUND_MIB + 256,
      statuses: Object.fromEntries(statuses),
      refusalsWithoutRetryAfter,
      inFlightBytesAfter: inFlightAfter,
    };
    console.log(JSON.stringify(result, null, 2));
    return result;
  } finally {
    collector.kill('SIGTERM');
    await new Promise((r) => collector.once('exit', r));
    await db.close();
  }
}

// Run as a script (not imported by bench/production.ts): the floods named on the command line.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const asked = process.argv.slice(2);
  for (const a of asked) if (!(a in FLOODS)) throw new Error(`unknown flood ${a}: expected one of ${FLOOD_KINDS.join(', ')}`);
  for (const kind of asked.length ? (asked as Flood[]) : FLOOD_KINDS) await flood(kind);
}
