import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Guardtrace } from '../src/guardtrace.ts';
import type { GuardtraceOptions } from '../src/runtime.ts';
import type { Clock } from '../src/types.ts';

/** A clock that only moves when the runtime sleeps; random() walks a fixed sequence. */
export class FakeClock implements Clock {
  t = 1_700_000_000_000;
  readonly sleeps: number[] = [];
  #i = 0;
  constructor(private readonly randoms: number[] = [0.5]) {}
  now(): number {
    return this.t;
  }
  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.t += ms;
  }
  random(): number {
    const r = this.randoms[this.#i % this.randoms.length] ?? 0.5;
    this.#i += 1;
    return r;
  }
}

export function traced(opts: GuardtraceOptions = {}, clock: FakeClock = new FakeClock()) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const gt = new Guardtrace({ tracer: provider.getTracer('test'), clock, ...opts });
  const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
  const named = (prefix: string): ReadableSpan[] => spans().filter((s) => s.name === prefix || s.name.startsWith(`${prefix} `));
  const childrenOf = (parent: ReadableSpan): ReadableSpan[] =>
    spans().filter((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId);
  return { gt, exporter, provider, clock, spans, named, childrenOf };
}
