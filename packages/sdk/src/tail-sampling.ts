/**
 * In-process tail sampling per session. The session decides at its end (it knows whether
 * anything failed) and writes `guardtrace.sampling.weight` on its root span: 0 means
 * "dropped", N means "this kept clean session stands for N". This processor holds a session's
 * spans until its root ends, then forwards them all or drops them all.
 *
 * Spans outside any session (no `gen_ai.conversation.id`: the host's request span around the
 * session, another instrumentation's HTTP or LLM spans) follow the sessions of their trace: each
 * is held until its trace's local roots (spans whose parent is in no span of this process) have
 * ended and every session seen in the trace is decided, then forwarded, unless every such session
 * was dropped. Forwarded alone, the request span of a dropped session would reach the collector as
 * a session of its own (keyed by its trace id, empty, "success").
 */

import { ATTR_GEN_AI_CONVERSATION_ID, ATTR_GEN_AI_OPERATION_NAME, ATTR_GUARDTRACE_SAMPLING_WEIGHT, OP_INVOKE_AGENT } from '@guardtrace/semconv';
import { type Context, isSpanContextValid, trace } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';

export interface TailSamplingOptions {
  /** Most sessions held at once before spans are forwarded unsampled (fail open). Default 1000. */
  maxSessions?: number;
  /** Most spans held per session, and per trace outside its sessions. Default 10 000. */
  maxSpansPerSession?: number;
  /** Most traces whose spans outside a session are held at once; a trace beyond it passes them at once. Default 1000. */
  maxTraces?: number;
  /**
   * The sessions of this process also have spans from other processes (the agent, an MCP
   * proxy, tool services): forward every span, the parts this process would drop too (their
   * root says weight 0), and let the collector decide per session. A failure seen by any
   * process then keeps the whole session, and one every process would drop is deleted by the
   * collector after its decision wait. Costs the bandwidth of the dropped sessions. Default false.
   */
  crossProcess?: boolean;
}

/** A trace's spans outside any session, held until it settles. */
interface TraceHold {
  /** Its local roots still open (span ids). */
  roots: Set<string>;
  /** The sessions (conversation ids) its spans belong to. */
  sessions: Set<string>;
  held: ReadableSpan[];
}

/** Decisions kept for traces that settle after their session ended (the host's request span). */
const DECISIONS_KEPT = 10_000;

export class TailSamplingProcessor implements SpanProcessor {
  readonly #inner: SpanProcessor;
  readonly #held = new Map<string, ReadableSpan[]>();
  readonly #maxSessions: number;
  readonly #maxSpans: number;
  readonly #maxTraces: number;
  readonly #traces = new Map<string, TraceHold>();
  /** Sessions whose root started and has not ended. */
  readonly #open = new Set<string>();
  /** Whether a decided session was kept, most recent last. */
  readonly #decided = new Map<string, boolean>();
  /** Traces waiting for a session's decision to settle. */
  readonly #waiting = new Map<string, Set<string>>();

  constructor(inner: SpanProcessor, opts: TailSamplingOptions = {}) {
    this.#inner = inner;
    this.#maxSessions = opts.maxSessions ?? 1000;
    this.#maxSpans = opts.maxSpansPerSession ?? 10_000;
    this.#maxTraces = opts.maxTraces ?? 1000;
  }

  onStart(span: Span, parentContext: Context): void {
    this.#inner.onStart(span, parentContext);
    const { traceId, spanId } = span.spanContext();
    const sid = span.attributes[ATTR_GEN_AI_CONVERSATION_ID];
    // bounded: a session never ended (no `end()`) stops being waited for, its traces' other spans go
    if (typeof sid === 'string' && span.attributes[ATTR_GEN_AI_OPERATION_NAME] === OP_INVOKE_AGENT && this.#open.size < 2 * this.#maxSessions) this.#open.add(sid);
    const parent = trace.getSpanContext(parentContext);
    const localRoot = !parent || !isSpanContextValid(parent) || parent.isRemote === true || parent.traceId !== traceId;
    let hold = this.#traces.get(traceId);
    if (!hold && localRoot && this.#traces.size < this.#maxTraces) {
      hold = { roots: new Set(), sessions: new Set(), held: [] };
      this.#traces.set(traceId, hold);
    }
    if (!hold) return;
    if (localRoot) hold.roots.add(spanId);
    if (typeof sid === 'string') hold.sessions.add(sid);
  }

  onEnd(span: ReadableSpan): void {
    const { traceId, spanId } = span.spanContext();
    const hold = this.#traces.get(traceId);
    hold?.roots.delete(spanId);
    const sid = span.attributes[ATTR_GEN_AI_CONVERSATION_ID];
    if (typeof sid !== 'string') {
      if (hold && hold.held.length < this.#maxSpans) hold.held.push(span);
      else this.#inner.onEnd(span);
      if (hold) this.#settle(traceId);
      return;
    }
    hold?.sessions.add(sid);
    this.#sessionSpan(span, sid);
    if (hold) this.#settle(traceId);
  }

  /** A span of session `sid`: held until its root ends, then forwarded with it or dropped. */
  #sessionSpan(span: ReadableSpan, sid: string): void {
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
    this.#open.delete(sid);
    const kept = span.attributes[ATTR_GUARDTRACE_SAMPLING_WEIGHT] !== 0;
    this.#decided.delete(sid);
    this.#decided.set(sid, kept);
    if (this.#decided.size > DECISIONS_KEPT) this.#decided.delete(this.#decided.keys().next().value as string);
    if (kept) {
      for (const s of held) this.#inner.onEnd(s);
      this.#inner.onEnd(span);
    }
    const waiting = this.#waiting.get(sid);
    this.#waiting.delete(sid);
    for (const traceId of waiting ?? []) this.#settle(traceId);
  }

  /**
   * Once a trace's local roots have ended and each of its sessions is decided (or not this
   * process's to decide): its spans outside the sessions go, unless every session was dropped.
   */
  #settle(traceId: string): void {
    const hold = this.#traces.get(traceId);
    if (!hold || hold.roots.size > 0) return;
    for (const sid of hold.sessions) {
      if (!this.#decided.has(sid) && (this.#open.has(sid) || this.#held.has(sid))) {
        const w = this.#waiting.get(sid) ?? new Set<string>();
        w.add(traceId);
        this.#waiting.set(sid, w);
        return;
      }
    }
    this.#traces.delete(traceId);
    let dropped = hold.sessions.size > 0;
    for (const sid of hold.sessions) if (this.#decided.get(sid) !== false) dropped = false;
    if (!dropped) for (const s of hold.held) this.#inner.onEnd(s);
  }

  forceFlush(): Promise<void> {
    return this.#inner.forceFlush();
  }

  async shutdown(): Promise<void> {
    for (const held of this.#held.values()) for (const s of held) this.#inner.onEnd(s);
    this.#held.clear();
    for (const hold of this.#traces.values()) for (const s of hold.held) this.#inner.onEnd(s);
    this.#traces.clear();
    await this.#inner.shutdown();
  }
}
