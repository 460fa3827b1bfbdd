/**
 * `pnpm --filter @guardtrace/sdk exec tsx bench/busy-collector.ts`: one process makes 10,000
 * guarded calls (1,000 sessions of 10) as fast as it can against a live but busy collector, a
 * local HTTP server that answers one request at a time (20 ms + 1 ms per 10 spans) and every
 * 4th request with 503 + Retry-After: 1; for each batch setting, what was exported, dropped
 * from the full queue, failed, or left unsent at shutdown, and how long the calls and the
 * shutdown took. The queue/batch sizing in the README comes from this run.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { Guardtrace } from '../src/guardtrace.ts';
import { type BatchOptions, guardtraceSpanProcessor } from '../src/setup.ts';

const require = createRequire(import.meta.url);
const root = require('@opentelemetry/otlp-transformer-decode/build/src/generated/root.js');
const Request = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest as {
  decode(b: Uint8Array): { resourceSpans?: { scopeSpans?: { spans?: unknown[] }[] }[] };
};
const spansIn = (body: Buffer): number =>
  (Request.decode(body).resourceSpans ?? []).reduce((n, rs) => n + (rs.scopeSpans ?? []).reduce((m, ss) => m + (ss.spans?.length ?? 0), 0), 0);

async function busyCollector() {
  const state = { accepted: 0, refused: 0, requests: 0 };
  let chain = Promise.resolve();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    state.requests += 1;
    if (state.requests % 4 === 0) {
      state.refused += 1;
      res.writeHead(503, { 'retry-after': '1' }).end();
      return;
    }
    chain = chain.then(async () => {
      const n = spansIn(Buffer.concat(chunks));
      await new Promise((r) => setTimeout(r, 20 + n / 10));
      state.accepted += n;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { state, endpoint: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

async function run(name: string, batch: BatchOptions | undefined, shutdownTimeoutMillis: number) {
  const c = await busyCollector();
  const processor = guardtraceSpanProcessor({ endpoint: c.endpoint, apiKey: 'k', shutdownTimeoutMillis, ...(batch ? { batch } : {}) });
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  const gt = new Guardtrace({ tracer: provider.getTracer('bench') });
  gt.tool({ name: 'lookup', description: 'lookup', schema: z.object({ id: z.string() }), flags: { readOnly: true }, execute: (a) => ({ id: a.id }) });
  const t0 = performance.now();
  for (let i = 0; i < 1000; i++) {
    const s = gt.session({ agentName: 'busy' });
    for (let j = 0; j < 10; j++) await s.callTool('lookup', { id: `c${i}_${j}` });
    await s.end();
    // a service yields to its event loop between requests
    if (i % 25 === 0) await new Promise((r) => setImmediate(r));
  }
  const calls = performance.now() - t0;
  const t1 = performance.now();
  await provider.shutdown();
  const shutdown = performance.now() - t1;
  const s = processor.stats();
  await c.close();
  return { name, callsMs: Math.round(calls), shutdownMs: Math.round(shutdown), ...s, receivedByCollector: c.state.accepted, refused503: c.state.refused };
}

process.on('warning', () => {}); // the counts are printed below
const rows = [
  await run('default (8192 / 512 / 1000 ms), shutdown 1 s', undefined, 1000),
  await run('maxQueueSize 65536, maxExportBatchSize 2048, scheduledDelayMillis 500, shutdown 1 s', { maxQueueSize: 65_536, maxExportBatchSize: 2048, scheduledDelayMillis: 500 }, 1000),
];
console.log(JSON.stringify(rows, null, 2));
