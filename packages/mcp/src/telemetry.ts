/**
 * The proxy's OpenTelemetry pipeline: a tracer provider with two processors, the MCP
 * enricher (below) and the SDK's `guardtraceSpanProcessor` to the collector.
 *
 * The SDK writes the session, tool-call, attempt and guard spans; the proxy cannot reach into
 * them (it uses the SDK's public API only), so the enricher adds the MCP conventions' keys as
 * each span starts: it recognises the SDK's spans by their `gen_ai.*` attributes and looks up
 * what the proxy registered for that session and JSON-RPC request.
 */
import { type Attributes, type Span, type SpanContext, type Tracer, diag } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { guardtraceSpanProcessor } from '@guardtrace/sdk/setup';
import {
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  OP_EXECUTE_TOOL,
  OP_INVOKE_AGENT,
  SPAN_ATTEMPT,
} from '@guardtrace/semconv';
import { ATTR_JSONRPC_REQUEST_ID, ATTR_MCP_METHOD_NAME } from '@guardtrace/semconv/mcp';
import type { CollectorTarget } from './env.ts';
import { VERSION } from './version.ts';

const key = (sessionId: unknown, callId: unknown): string => `${String(sessionId)}\n${String(callId)}`;

/** Adds MCP attributes to the SDK's spans as they start; see the module comment. */
export class McpSpanEnricher implements SpanProcessor {
  readonly #sessions = new Map<string, { attrs: Attributes; root?: SpanContext }>();
  readonly #calls = new Map<string, Attributes>();
  readonly #attempts = new Map<string, Span>();

  /** Attributes of every span of the session (transport, MCP session id, protocol version). */
  openSession(sessionId: string, attrs: Attributes): void {
    this.#sessions.set(sessionId, { attrs });
  }
  closeSession(sessionId: string): void {
    this.#sessions.delete(sessionId);
  }
  /** Context of the session's `invoke_agent` span, to parent the proxy's own request spans. */
  rootOf(sessionId: string): SpanContext | undefined {
    return this.#sessions.get(sessionId)?.root;
  }
  /** Registers the request that is about to call a tool: its `execute_tool` and attempt spans get these. */
  expectCall(sessionId: string, callId: string, attrs: Attributes): void {
    this.#calls.set(key(sessionId, callId), attrs);
  }
  forgetCall(sessionId: string, callId: string): void {
    this.#calls.delete(key(sessionId, callId));
  }
  /** The running attempt span of a call (to record what the upstream answered). */
  attemptOf(sessionId: string, callId: string): Span | undefined {
    return this.#attempts.get(key(sessionId, callId));
  }

  onStart(span: Span & { readonly attributes?: Attributes; readonly name?: string }): void {
    const a = span.attributes ?? {};
    const sessionId = a[ATTR_GEN_AI_CONVERSATION_ID];
    if (typeof sessionId !== 'string') return;
    const session = this.#sessions.get(sessionId);
    if (!session) return;
    const op = a[ATTR_GEN_AI_OPERATION_NAME];
    if (op === OP_INVOKE_AGENT) {
      session.root = span.spanContext();
      span.setAttributes(session.attrs);
      return;
    }
    const call = this.#calls.get(key(sessionId, a[ATTR_GEN_AI_TOOL_CALL_ID]));
    if (!call) return;
    if (op === OP_EXECUTE_TOOL) {
      span.setAttributes({ ...session.attrs, ...call });
      // the conventions' span name, `{mcp.method.name} {target}`; gen_ai.operation.name stays execute_tool
      span.updateName(`${String(call[ATTR_MCP_METHOD_NAME])} ${String(a[ATTR_GEN_AI_TOOL_NAME])}`);
    } else if (op === SPAN_ATTEMPT) {
      span.setAttribute(ATTR_JSONRPC_REQUEST_ID, String(call[ATTR_JSONRPC_REQUEST_ID]));
      this.#attempts.set(key(sessionId, a[ATTR_GEN_AI_TOOL_CALL_ID]), span);
    }
  }

  onEnd(span: ReadableSpan): void {
    if (span.name !== SPAN_ATTEMPT) return;
    const k = key(span.attributes[ATTR_GEN_AI_CONVERSATION_ID], span.attributes[ATTR_GEN_AI_TOOL_CALL_ID]);
    const live = this.#attempts.get(k);
    if (live && live.spanContext().spanId === span.spanContext().spanId) this.#attempts.delete(k);
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export interface ProxyTelemetry {
  /** Undefined when no collector is configured: guards and policy still run, no spans are made. */
  tracer: Tracer | undefined;
  enricher: McpSpanEnricher;
  shutdown(): Promise<void>;
}

export function startTelemetry(target: CollectorTarget | undefined, serviceName: string): ProxyTelemetry {
  const enricher = new McpSpanEnricher();
  if (!target) return { tracer: undefined, enricher, shutdown: async () => {} };
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName, 'service.version': VERSION, 'telemetry.sdk.name': '@guardtrace/mcp' }),
    spanProcessors: [enricher, guardtraceSpanProcessor({ endpoint: target.endpoint, apiKey: target.apiKey })],
  });
  let stopped: Promise<void> | undefined;
  return {
    tracer: provider.getTracer('@guardtrace/mcp', VERSION),
    enricher,
    shutdown: () => {
      stopped ??= provider.shutdown().catch((err: unknown) => diag.warn('guardtrace-mcp: telemetry shutdown failed', err));
      return stopped;
    },
  };
}
