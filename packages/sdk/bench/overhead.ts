/**
 * Overhead per guarded call against the floor: the same zod parse plus three bare OTel spans
 * (tool, attempt, guard) through a BatchSpanProcessor into an in-memory exporter. Both run
 * side by side in one process, alternating rounds; the median round is reported.
 */
import { context, trace } from '@opentelemetry/api';
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { Guardtrace } from '../src/index.ts';

export const schema = z.object({ path: z.string().min(1), start_line: z.number().int().positive(), end_line: z.number().int().positive() });
export const args = { path: 'src/api/routes.ts', start_line: 3, end_line: 9 };

export function provider() {
  const exporter = new InMemorySpanExporter();
  // queue sized so neither side drops spans during a round; exporter reset between rounds
  const p = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter, { maxQueueSize: 100_000, maxExportBatchSize: 2048, scheduledDelayMillis: 200 })] });
  return { exporter, p, tracer: p.getTracer('bench') };
}

export interface OverheadResult {
  floorUs: number;
  guardedUs: number;
  ratio: number;
  calls: number;
  rounds: number;
}

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

export async function runOverhead(calls = 20_000, rounds = 7): Promise<OverheadResult> {
  const floor = provider();
  const guarded = provider();
  const gt = new Guardtrace({ tracer: guarded.tracer });
  gt.tool({ name: 'read_range', description: 'read lines', schema, flags: { readOnly: true }, execute: (a) => a.end_line - a.start_line });

  const floorCall = (i: number): void => {
    const parsed = schema.safeParse(args);
    if (!parsed.success) throw new Error('unexpected');
    const tool = floor.tracer.startSpan('execute_tool read_range', { attributes: { 'gen_ai.tool.name': 'read_range', 'gen_ai.tool.call.id': `c${i}` } });
    const attempt = floor.tracer.startSpan('guardtrace.attempt', { attributes: { 'guardtrace.attempt': 1 } }, trace.setSpan(context.active(), tool));
    const guard = floor.tracer.startSpan('apply_guardrail schema', { attributes: { 'gen_ai.guardrail.verdict': 'pass' } }, trace.setSpan(context.active(), attempt));
    guard.end();
    attempt.end();
    tool.end();
  };

  const floorUs: number[] = [];
  const guardedUs: number[] = [];
  for (let r = 0; r < rounds + 1; r++) {
    let t0 = performance.now();
    for (let i = 0; i < calls; i++) floorCall(i);
    const f = ((performance.now() - t0) * 1000) / calls;
    await floor.p.forceFlush();
    floor.exporter.reset();

    const s = gt.session({ agentName: 'bench' });
    t0 = performance.now();
    for (let i = 0; i < calls; i++) await s.callTool('read_range', args, { callId: `c${i}` });
    const g = ((performance.now() - t0) * 1000) / calls;
    await s.end();
    await guarded.p.forceFlush();
    guarded.exporter.reset();
    if (r > 0) {
      // round 0 is warm-up (JIT, zod schema compilation)
      floorUs.push(f);
      guardedUs.push(g);
    }
  }
  await floor.p.shutdown();
  await guarded.p.shutdown();
  const fm = median(floorUs);
  const gm = median(guardedUs);
  return { floorUs: fm, guardedUs: gm, ratio: gm / fm, calls, rounds };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await runOverhead());
}
