/**
 * Heap of one session of 1,000,000 guarded calls: a cheap read-only tool with its schema
 * guard and one predicate guard, every span exported through a BatchSpanProcessor to an
 * exporter that drops the spans once exported (so the exporter holds nothing). Run in its
 * own process with `--expose-gc` (run.ts does): gc() before every reading.
 *
 * Prints one JSON line: heap used after a 1k warm-up, after 100k and after 1M calls.
 */
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { Guardtrace, predicate } from '../src/index.ts';

const CALLS = 1_000_000;
const CHECKPOINTS = [1_000, 100_000, CALLS];

/** Counts and drops: keeps no reference to a span after `export` returns. */
class DroppingExporter implements SpanExporter {
  exported = 0;
  export(spans: ReadableSpan[], done: (r: { code: number }) => void): void {
    this.exported += spans.length;
    done({ code: 0 });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export interface MemoryResult {
  calls: number;
  /** heapUsed in MiB after gc(), by call count. */
  heapMiB: Record<string, number>;
  spansExported: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

async function main(): Promise<void> {
  if (!gc) throw new Error('bench/memory.ts needs --expose-gc (node --expose-gc --import tsx bench/memory.ts)');
  const exporter = new DroppingExporter();
  // queue sized as setupGuardtrace's (8192): a full queue would drop spans and hide growth behind drops
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter, { maxQueueSize: 8192, maxExportBatchSize: 512, scheduledDelayMillis: 50 })] });
  const gt = new Guardtrace({ tracer: provider.getTracer('memory-bench') });
  gt.tool({
    name: 'read_range',
    description: 'read lines',
    schema: z.object({ path: z.string().min(1), start_line: z.number().int().positive(), end_line: z.number().int().positive() }),
    flags: { readOnly: true },
    guards: [predicate<{ start_line: number; end_line: number }>({ name: 'range_order', test: (a) => Number(a.end_line) >= Number(a.start_line), message: 'end_line must not be before start_line' })],
    execute: (a) => a.end_line - a.start_line,
  });
  const s = gt.session({ agentName: 'memory-bench' });
  const heapMiB: Record<string, number> = {};
  const args = { path: 'src/api/routes.ts', start_line: 3, end_line: 9 };
  for (let i = 1; i <= CALLS; i++) {
    const r = await s.callTool('read_range', args);
    if (!r.ok) throw new Error(`call ${i} failed: ${r.feedback}`);
    // let the batch processor's timer run now and then, as an agent's model calls would
    if (i % 2048 === 0) await new Promise((resolve) => setImmediate(resolve));
    if (CHECKPOINTS.includes(i)) {
      await provider.forceFlush();
      gc();
      gc();
      heapMiB[String(i)] = process.memoryUsage().heapUsed / 2 ** 20;
    }
  }
  await s.end();
  await provider.shutdown();
  const result: MemoryResult = { calls: CALLS, heapMiB, spansExported: exporter.exported };
  console.log(JSON.stringify(result));
}

await main();
