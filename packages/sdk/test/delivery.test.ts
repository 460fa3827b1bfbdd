/**
 * Spans lost on the way to a busy collector are counted by cause: dropped from the full export
 * queue while the collector pushed back (503 + Retry-After), failed, or not sent before
 * shutdown gave up; shutdown waits while the collector keeps accepting spans. The collector
 * here is a real HTTP server that decodes the OTLP protobuf it accepts and counts its spans.
 */
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Guardtrace } from '../src/guardtrace.ts';
import { DROPPED_WARNING_CODE, type SpanProcessorOptions, UNSENT_WARNING_CODE, guardtraceSpanProcessor } from '../src/setup.ts';

const require = createRequire(import.meta.url);
// The 0.210 transformer is the last release whose generated protobufjs code can decode (DESIGN.md).
const root = require('@opentelemetry/otlp-transformer-decode/build/src/generated/root.js');
const Request = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest as {
  decode(b: Uint8Array): { resourceSpans?: { scopeSpans?: { spans?: unknown[] }[] }[] };
};
const spansIn = (body: Buffer): number =>
  (Request.decode(body).resourceSpans ?? []).reduce((n, rs) => n + (rs.scopeSpans ?? []).reduce((m, ss) => m + (ss.spans?.length ?? 0), 0), 0);

/**
 * busy: 503 with Retry-After 1; ok: one request at a time, `delayMs` each, and every
 * `refuseEvery`th request 503 with Retry-After 1; after `acceptLimit` accepted requests it stops answering.
 */
async function busyCollector(opts: { mode: 'busy' | 'ok'; delayMs?: number; acceptLimit?: number; refuseEvery?: number }) {
  const state = { mode: opts.mode, accepted: 0, acceptedRequests: 0, refused: 0, requests: 0 };
  const hung: ServerResponse[] = [];
  let chain = Promise.resolve();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    state.requests += 1;
    if (state.mode === 'busy' || (opts.refuseEvery !== undefined && state.requests % opts.refuseEvery === 0)) {
      state.refused += 1;
      res.writeHead(503, { 'retry-after': '1' }).end();
      return;
    }
    chain = chain.then(async () => {
      if (opts.acceptLimit !== undefined && state.acceptedRequests >= opts.acceptLimit) {
        hung.push(res);
        return;
      }
      if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
      state.accepted += spansIn(Buffer.concat(chunks));
      state.acceptedRequests += 1;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const close = async () => {
    for (const r of hung) r.destroy();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return { state, endpoint: `http://127.0.0.1:${port}`, close };
}

const closers: (() => Promise<unknown>)[] = [];
const warnings: Error[] = [];
const onWarning = (w: Error) => warnings.push(w);
process.on('warning', onWarning);
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  warnings.length = 0;
});
/** Process warnings are emitted on the next tick. */
const tick = () => new Promise((r) => setImmediate(r));
const warningsOf = (code: string, endpoint: string) =>
  warnings.filter((w) => (w as Error & { code?: string }).code === code && w.message.includes(endpoint)).map((w) => w.message);

/** An agent making `calls` guarded calls; every span it makes is also counted in memory. */
async function agent(opts: SpanProcessorOptions, calls: number) {
  const processor = guardtraceSpanProcessor(opts);
  const all = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor(all)] });
  const gt = new Guardtrace({ tracer: provider.getTracer('busy') });
  gt.tool({ name: 'lookup', description: 'lookup', schema: z.object({ id: z.string() }), flags: { readOnly: true }, execute: (a) => a.id });
  for (let i = 0; i < calls; i += 10) {
    const s = gt.session({ agentName: 'busy-agent' });
    for (let j = i; j < Math.min(calls, i + 10); j++) await s.callTool('lookup', { id: `c${j}` });
    await s.end();
  }
  // every span has ended and was counted (the in-memory exporter forgets them at shutdown)
  return { processor, provider, produced: all.getFinishedSpans().length };
}

describe('delivery to a busy collector', () => {
  it('counts the spans the full queue dropped apart from shutdown losses, and says which in the warning', async () => {
    const c = await busyCollector({ mode: 'busy' });
    closers.push(c.close);
    const a = await agent({ endpoint: c.endpoint, apiKey: 'k', batch: { maxQueueSize: 200, maxExportBatchSize: 50, scheduledDelayMillis: 10 }, shutdownTimeoutMillis: 3000 }, 300);
    // the collector kept the first export waiting: the queue filled and the rest was dropped
    const during = a.processor.stats();
    expect(during.droppedQueueFull).toBeGreaterThan(0);
    await tick();
    expect(warningsOf(DROPPED_WARNING_CODE, c.endpoint)).toEqual([expect.stringContaining('the export queue is full (maxQueueSize 200)')]);
    // the collector pushes back (503 + Retry-After 1) a while longer, then recovers
    for (let i = 0; i < 250 && c.state.refused === 0; i++) await new Promise((r) => setTimeout(r, 20));
    c.state.mode = 'ok';
    await a.provider.shutdown();

    expect(c.state.refused).toBeGreaterThan(0);
    const s = a.processor.stats();
    const produced = a.produced;
    expect(s.produced).toBe(produced);
    expect(s.exported).toBe(c.state.accepted);
    expect(s.exported).toBeGreaterThan(0);
    expect({ failed: s.failed, unsent: s.unsentAtShutdown, pending: s.pending }).toEqual({ failed: 0, unsent: 0, pending: 0 });
    expect(s.exported + s.droppedQueueFull + s.failed + s.unsentAtShutdown).toBe(produced);
    await tick();
    const report = warningsOf(UNSENT_WARNING_CODE, c.endpoint);
    expect(report).toEqual([
      `guardtrace: ${s.droppedQueueFull} of ${produced} spans could not be sent to ${c.endpoint}: ${s.droppedQueueFull} dropped from the export queue (queue full: maxQueueSize 200, while the collector fell behind; raise batch.maxQueueSize)`,
    ]);
  }, 30_000);

  it('waits on shutdown while the collector makes progress, past the bound, and sends every span', async () => {
    // one request at a time, 150 ms each: draining takes seconds, each request far less than the 1 s bound
    const c = await busyCollector({ mode: 'ok', delayMs: 150 });
    closers.push(c.close);
    const a = await agent({ endpoint: c.endpoint, apiKey: 'k', batch: { maxQueueSize: 10_000, maxExportBatchSize: 100 }, shutdownTimeoutMillis: 1000 }, 600);
    const queued = a.processor.stats().pending;
    expect(queued).toBeGreaterThan(1000);
    const t0 = performance.now();
    await a.provider.shutdown();
    const waited = performance.now() - t0;
    // at least ten more requests of 150 ms each were answered after shutdown began
    expect(waited).toBeGreaterThan(1500);
    const s = a.processor.stats();
    expect(s).toEqual({ produced: a.produced, exported: a.produced, droppedQueueFull: 0, failed: 0, unsentAtShutdown: 0, pending: 0 });
    expect(c.state.accepted).toBe(a.produced);
    await tick();
    expect(warningsOf(UNSENT_WARNING_CODE, c.endpoint)).toEqual([]);
  }, 60_000);

  it('sends again, during shutdown, the batches a live collector pushed back with 503 + Retry-After', async () => {
    const c = await busyCollector({ mode: 'ok', delayMs: 20, refuseEvery: 2 });
    closers.push(c.close);
    const a = await agent({ endpoint: c.endpoint, apiKey: 'k', batch: { maxQueueSize: 10_000, maxExportBatchSize: 100, scheduledDelayMillis: 60_000 }, shutdownTimeoutMillis: 1000 }, 300);
    await a.provider.shutdown();
    expect(c.state.refused).toBeGreaterThan(2);
    expect(a.processor.stats()).toEqual({ produced: a.produced, exported: a.produced, droppedQueueFull: 0, failed: 0, unsentAtShutdown: 0, pending: 0 });
    expect(c.state.accepted).toBe(a.produced);
  }, 60_000);

  it('bounds a stalled shutdown and reports what was not sent before it, apart from the queue', async () => {
    // three requests are answered, then the collector stops answering
    const c = await busyCollector({ mode: 'ok', acceptLimit: 3 });
    closers.push(c.close);
    const a = await agent({ endpoint: c.endpoint, apiKey: 'k', batch: { maxQueueSize: 10_000, maxExportBatchSize: 100, scheduledDelayMillis: 10 }, shutdownTimeoutMillis: 500 }, 300);
    const t0 = performance.now();
    await a.provider.shutdown();
    // a hang check, not a benchmark: no progress for 500 ms ends it (two windows at most, plus a loaded machine)
    expect(performance.now() - t0).toBeLessThan(5000);
    const s = a.processor.stats();
    const produced = a.produced;
    expect(s.exported).toBe(c.state.accepted);
    expect(s.exported).toBe(300);
    expect(s.droppedQueueFull).toBe(0);
    expect(s.unsentAtShutdown).toBe(produced - s.exported - s.failed);
    expect(s.unsentAtShutdown).toBeGreaterThan(0);
    await tick();
    expect(warningsOf(UNSENT_WARNING_CODE, c.endpoint)).toEqual([
      expect.stringMatching(new RegExp(`^guardtrace: ${produced - s.exported} of ${produced} spans could not be sent to ${c.endpoint}: .*${s.unsentAtShutdown} not sent before shutdown \\(no span accepted for 500 ms`)),
    ]);
    expect(warningsOf(UNSENT_WARNING_CODE, c.endpoint)[0]).not.toContain('dropped from the export queue');
  }, 30_000);
});
