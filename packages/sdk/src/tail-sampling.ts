/**
 * In-process tail sampling per session. The session decides at its end (it knows whether
 * anything failed) and writes `guardtrace.sampling.weight` on its root span: 0 means
 * "dropped", N means "this kept clean session stands for N". This processor holds a session's
 * spans until its root ends, then forwards them all or drops them all.
 */
import type { Context } from '@opentelemetry/api';
import { ATTR_GEN_AI_CONVERSATION_ID, ATTR_GEN_AI_OPERATION_NAME, ATTR_GUARDTRACE_SAMPLING_WEIGHT, OP_INVOKE_AGENT } from '@guardtrace/semconv';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';

export interface TailSamplingOptions {
  /** Most sessions held at once before spans are forwarded unsampled (fail open). Default 1000. */
  maxSessions?: number;
  /** Most spans held per session. Default 10 000. */
  maxSpansPerSession?: number;
  /**
   * The sessions of this process also have spans from other processes (the agent, an MCP
   * proxy, tool services): forward every span, the parts this process would drop too (their
   * root says weight 0), and let the collector decide per session. A failure seen by any
   * process then keeps the whole session, and one every process would drop is deleted by the
   * collector after its decision wait. Costs the bandwidth of the dropped sessions. Default false.
   */
  crossProcess?: boolean;
}

export class TailSamplingProcessor implements SpanProcessor {
  readonly #inner: SpanProcessor;
  readonly #held = new Map<string, ReadableSpan[]>();
  readonly #maxSessions: number;
  readonly #maxSpans: number;

  constructor(inner: SpanProcessor, opts: TailSamplingOptions = {}) {
    this.#inner = inner;
    this.#maxSessions = opts.maxSessions ?? 1000;
    this.#maxSpans = opts.maxSpansPerSession ?? 10_000;
  }

  onStart(span: Span, parentContext: Context): void {
    this.#inner.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    const sid = span.attributes[ATTR_GEN_AI_CONVERSATION_ID];
    if (typeof sid !== 'string') {
      this.#inner.onEnd(span);
      return;
    }
    const isRoot = span.attributes[ATTR_GEN_AI_OPERATION_NAME] === OP_INVOKE_AGENT;
    const held = this.#held.get(sid) ?? [];
    if (!isRoot) {
      if (held.length >= this.#maxSpans || (!this.#held.has(sid) && this.#held.size >= this.#maxSessions)) {
        this.#inner.onEnd(span);
        return;
      }
      held.push(span);
      this.#held.set(sid, held);
      return;
    }
    this.#held.delete(sid);
    if (span.attributes[ATTR_GUARDTRACE_SAMPLING_WEIGHT] === 0) return;
    for (const s of held) this.#inner.onEnd(s);
    this.#inner.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.#inner.forceFlush();
  }

  async shutdown(): Promise<void> {
    for (const held of this.#held.values()) for (const s of held) this.#inner.onEnd(s);
    this.#held.clear();
    await this.#inner.shutdown();
  }
}
