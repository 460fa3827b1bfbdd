/**
 * The proxy's OpenTelemetry pipeline: a tracer provider with two processors, the session
 * enricher (below) and the SDK's `guardtraceSpanProcessor` to the collector.
 *
 * A `tools/call` request's spans are shaped through the SDK's public API (the `span` option of
 * `callTool` and the tool's `ctx.setAttributes`, see proxy.ts and tools.ts). What is left here
 * is the session's `invoke_agent` span: the SDK starts it inside `gt.session()`, offers no
 * option for its attributes and does not hand out its span context, yet it should carry the
 * connection's MCP keys and parent the proxy's own request spans (`tools/list`). So a span
 * processor recognises it as it starts (by `gen_ai.operation.name` and the session id the
 * proxy registered), adds those keys and keeps its context.
 */
import { type Attributes, type Span, type SpanContext, type Tracer, diag } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { guardtraceSpanProcessor } from '@guardtrace/sdk/setup';
import { ATTR_GEN_AI_CONVERSATION_ID, ATTR_GEN_AI_OPERATION_NAME, OP_INVOKE_AGENT } from '@guardtrace/semconv';
import type { CollectorTarget } from './env.ts';
import { VERSION } from './version.ts';

/** Adds the connection's MCP attributes to a session's `invoke_agent` span and keeps its context; see the module comment. */
export class McpSpanEnricher implements SpanProcessor {
  readonly #sessions = new Map<string, { attrs: Attributes; root?: SpanContext }>();

  /** Attributes of the session's root span (transport, MCP session id, protocol version). */
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

  onStart(span: Span & { readonly attributes?: Attributes }): void {
    const a = span.attributes ?? {};
    if (a[ATTR_GEN_AI_OPERATION_NAME] !== OP_INVOKE_AGENT) return;
    const sessionId = a[ATTR_GEN_AI_CONVERSATION_ID];
    const session = typeof sessionId === 'string' ? this.#sessions.get(sessionId) : undefined;
    if (!session || session.root) return;
    session.root = span.spanContext();
    span.setAttributes(session.attrs);
  }

  onEnd(): void {}
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
