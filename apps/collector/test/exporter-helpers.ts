/** Real OTel JS exporters driven span batch by span batch, recording which batches were acknowledged. */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BasicTracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base';

/** `n` finished spans with fresh ids (one trace per 10 spans, a session id on each). */
export function makeSpans(n: number): ReadableSpan[] {
  const out: ReadableSpan[] = [];
  const collect: SpanProcessor = {
    onStart: () => {},
    onEnd: (s) => {
      out.push(s);
    },
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  const tracer = new BasicTracerProvider({ spanProcessors: [collect] }).getTracer('load');
  for (let i = 0; i < n; i++) {
    tracer
      .startSpan(`execute_tool t${i % 7}`, {
        attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': `t${i % 7}`, 'gen_ai.conversation.id': `sess_load_${Math.floor(i / 10)}` },
      })
      .end();
  }
  return out;
}

export interface Delivery {
  acked: string[];
  failed: number;
}

/**
 * Export `spans` in batches with `concurrency` exports in flight, through the real protobuf
 * exporter and its own retry policy (5 attempts, backoff, Retry-After). Resolves when every
 * batch settled.
 */
export async function deliver(url: string, key: string, spans: ReadableSpan[], opts: { batch: number; concurrency: number; pauseMs?: number; timeoutMillis?: number }): Promise<Delivery> {
  const exporter = new OTLPTraceExporter({ url, headers: { authorization: `Bearer ${key}` }, timeoutMillis: opts.timeoutMillis ?? 30_000, concurrencyLimit: opts.concurrency * 2 });
  const result: Delivery = { acked: [], failed: 0 };
  let next = 0;
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (next < spans.length) {
        const batch = spans.slice(next, next + opts.batch);
        next += opts.batch;
        const code = await new Promise<number>((resolve) => exporter.export(batch, (r) => resolve(r.code)));
        if (code === 0) result.acked.push(...batch.map((s) => s.spanContext().spanId));
        else result.failed += batch.length;
        if (opts.pauseMs) await new Promise((r) => setTimeout(r, opts.pauseMs));
      }
    }),
  );
  await exporter.shutdown();
  return result;
}
