/**
 * Overhead of a guarded call with export, in one process, rounds interleaved:
 *
 * (a) `session.callTool` with the tracer of `setupGuardtrace` (batch processor + OTLP/HTTP
 *     protobuf exporter) sending to a local HTTP server on port 0 that answers 200, once per
 *     content capture mode: `all` (the default), `failures` (a clean session not sampled in
 *     for content: `cleanSessionRate` 0, no tail sampler, so its spans are still exported) and
 *     `none`;
 * (b) the OTel floor: the same zod parse and tool body under three nested plain
 *     `tracer.startActiveSpan` spans (the tree Guardtrace emits: tool, attempt, guard), a
 *     BatchSpanProcessor with setupGuardtrace's batch settings and the same exporter
 *     (`guardtraceExporter`) to the same server; (b1) the same with one span only;
 * (c) the floor of (b) with no span processor: spans made, nothing exported.
 *
 * Cost is this process's CPU time (user + system, the in-process server's included) per call:
 * on a shared machine wall time mostly measures the neighbours. Every timed round includes the
 * flush of its spans to the server, and all arms yield to the event loop every 256 calls (an agent waits on its model between calls), so the exporter
 * sends while the calls run rather than dropping a full queue.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { type CaptureMode, Guardtrace } from '../src/index.ts';
import { guardtraceExporter, setupGuardtrace } from '../src/setup.ts';

const schema = z.object({ path: z.string().min(1), start_line: z.number().int().positive(), end_line: z.number().int().positive() });
const args = { path: 'src/api/routes.ts', start_line: 3, end_line: 9 };
const toolBody = (a: z.infer<typeof schema>): number => a.end_line - a.start_line;
/** setupGuardtrace's batch settings (src/setup.ts), for the floor's processor too. */
const BATCH = { maxQueueSize: 8192, maxExportBatchSize: 512, scheduledDelayMillis: 1000 };
const YIELD_EVERY = 256;

export interface ExportOverheadResult {
  calls: number;
  rounds: number;
  /** CPU µs per call (user + system of this process, server included), median round. */
  guardedUs: number;
  floorExportUs: number;
  floorOneSpanExportUs: number;
  floorNoExportUs: number;
  /** Per-round ratios, sorted: min, median, max. */
  vsFloorExport: [number, number, number];
  vsFloorOneSpan: [number, number, number];
  vsFloorNoExport: [number, number, number];
  /** Request bytes the server received per arm (similar payloads mean a like-for-like export). */
  bytes: { guarded: number; floor: number; floorOneSpan: number };
  /** The guarded arm per capture mode (the fields above are `all`'s). */
  capture: Record<CaptureMode, CaptureArm>;
}

export interface CaptureArm {
  guardedUs: number;
  vsFloorExport: [number, number, number];
  vsFloorNoExport: [number, number, number];
  /** Request bytes received for this arm, all rounds. */
  bytes: number;
  /** Spans this arm handed to the exporter, and those dropped from its full queue (never sent, so not in `bytes`). */
  spans: number;
  dropped: number;
}

export const CAPTURE_MODES: readonly CaptureMode[] = ['all', 'failures', 'none'];

function otlpServer() {
  const bytes = new Map<string, number>();
  const server = createServer((req, res) => {
    const key = req.headers.authorization ?? '';
    req.on('data', (c: Buffer) => bytes.set(key, (bytes.get(key) ?? 0) + c.length));
    req.on('end', () => {
      // an empty ExportTraceServiceResponse: full success
      res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': '0' });
      res.end();
    });
  });
  return { server, bytes };
}

function floorCall(tracer: Tracer, i: number, spans: 1 | 3): number {
  return tracer.startActiveSpan('execute_tool read_range', { attributes: { 'gen_ai.tool.name': 'read_range', 'gen_ai.tool.call.id': `c${i}` } }, (tool) => {
    const run = (): number => {
      const parsed = schema.safeParse(args);
      if (!parsed.success) throw new Error('unexpected');
      return toolBody(parsed.data);
    };
    let out: number;
    if (spans === 1) out = run();
    else {
      out = tracer.startActiveSpan('guardtrace.attempt', { attributes: { 'guardtrace.attempt': 1 } }, (attempt) => {
        const v = tracer.startActiveSpan('apply_guardrail schema', { attributes: { 'gen_ai.guardrail.verdict': 'pass' } }, (guard) => {
          const r = run();
          guard.end();
          return r;
        });
        attempt.end();
        return v;
      });
    }
    tool.end();
    return out;
  });
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const sorted3 = (xs: number[]): [number, number, number] => {
  const s = [...xs].sort((a, b) => a - b);
  return [s[0]!, s[Math.floor(s.length / 2)]!, s[s.length - 1]!];
};

export async function runExportOverhead(calls = 5_000, rounds = 11): Promise<ExportOverheadResult> {
  const { server, bytes } = otlpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    // (a) registers the AsyncLocalStorage context manager every arm's startActiveSpan nests with
    const telemetry = setupGuardtrace({ endpoint, apiKey: 'guarded', serviceName: 'bench', flushOnExit: false });
    const gts = new Map<CaptureMode, Guardtrace>();
    for (const capture of CAPTURE_MODES) {
      // `failures`: the session is not sampled in for content (rate 0); with no tail sampler its spans are exported all the same
      const gt = new Guardtrace({ tracer: telemetry.tracer, capture, ...(capture === 'failures' ? { sampling: { cleanSessionRate: 0 } } : {}) });
      gt.tool({ name: 'read_range', description: 'read lines', schema, flags: { readOnly: true }, execute: toolBody });
      gts.set(capture, gt);
    }
    const guardedBytes = (): number => bytes.get('Bearer guarded') ?? 0;
    const armBytes = new Map<CaptureMode, number>(CAPTURE_MODES.map((m) => [m, 0]));
    const armSpans = new Map<CaptureMode, { spans: number; dropped: number }>(CAPTURE_MODES.map((m) => [m, { spans: 0, dropped: 0 }]));
    const armUs = new Map<CaptureMode, number[]>(CAPTURE_MODES.map((m) => [m, []]));
    const withExport = (apiKey: string) =>
      new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(guardtraceExporter({ endpoint, apiKey }), BATCH)] });
    const floor = withExport('floor');
    const floorOne = withExport('floor-one-span');
    const bare = new BasicTracerProvider();

    // CPU time of this process (user + system) per call: the machine is shared, and a process
    // descheduled by its neighbours loses wall time but no CPU time; the server's share is small
    const time = async (body: (i: number) => unknown, flush: () => Promise<void>): Promise<number> => {
      const c0 = process.cpuUsage();
      for (let i = 0; i < calls; i++) {
        await body(i);
        if (i % YIELD_EVERY === YIELD_EVERY - 1) await tick();
      }
      await flush();
      const c = process.cpuUsage(c0);
      return (c.user + c.system) / calls;
    };
    const us = { a: [] as number[], b: [] as number[], b1: [] as number[], c: [] as number[] };
    const noFlush = async (): Promise<void> => {};
    for (let r = 0; r < rounds + 1; r++) {
      const byMode = new Map<CaptureMode, number>();
      for (const m of CAPTURE_MODES) {
        const s = gts.get(m)!.session({ agentName: 'bench' });
        const b0 = guardedBytes();
        const st0 = telemetry.stats();
        byMode.set(m, await time((i) => s.callTool('read_range', args, { callId: `c${i}` }), () => telemetry.forceFlush()));
        await s.end();
        armBytes.set(m, armBytes.get(m)! + guardedBytes() - b0);
        const st = telemetry.stats();
        const n = armSpans.get(m)!;
        n.spans += st.produced - st0.produced;
        n.dropped += st.droppedQueueFull - st0.droppedQueueFull;
      }
      const a = byMode.get('all')!;
      const ft = floor.getTracer('bench');
      const b = await time((i) => floorCall(ft, i, 3), () => floor.forceFlush());
      const f1 = floorOne.getTracer('bench');
      const b1 = await time((i) => floorCall(f1, i, 1), () => floorOne.forceFlush());
      const bt = bare.getTracer('bench');
      const c = await time((i) => floorCall(bt, i, 3), noFlush);
      if (r === 0) continue; // warm-up round: JIT, zod compilation, first connections
      for (const m of CAPTURE_MODES) armUs.get(m)!.push(byMode.get(m)!);
      us.a.push(a);
      us.b.push(b);
      us.b1.push(b1);
      us.c.push(c);
    }
    await Promise.all([telemetry.shutdown(), floor.shutdown(), floorOne.shutdown(), bare.shutdown()]);
    const ratios = (xs: number[], of: number[] = us.a) => sorted3(of.map((a, i) => a / xs[i]!));
    const med = (xs: number[]) => sorted3(xs)[1];
    return {
      calls,
      rounds,
      guardedUs: med(us.a),
      floorExportUs: med(us.b),
      floorOneSpanExportUs: med(us.b1),
      floorNoExportUs: med(us.c),
      vsFloorExport: ratios(us.b),
      vsFloorOneSpan: ratios(us.b1),
      vsFloorNoExport: ratios(us.c),
      capture: Object.fromEntries(CAPTURE_MODES.map((m) => {
        const xs = armUs.get(m)!;
        return [m, { guardedUs: med(xs), vsFloorExport: ratios(us.b, xs), vsFloorNoExport: ratios(us.c, xs), bytes: armBytes.get(m)!, ...armSpans.get(m)! }];
      })) as Record<CaptureMode, CaptureArm>,
      bytes: { guarded: armBytes.get('all')!, floor: bytes.get('Bearer floor') ?? 0, floorOneSpan: bytes.get('Bearer floor-one-span') ?? 0 },
    };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await runExportOverhead());
}
