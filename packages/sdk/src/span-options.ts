import { type Attributes, SpanKind, diag } from '@opentelemetry/api';
import { OP_EXECUTE_TOOL } from '@guardtrace/semconv';

/**
 * How an adapter shapes the spans of one logical tool call (e.g. an MCP server's
 * `tools/call {tool}` span of kind `SERVER`). The SDK's own keys (`gen_ai.operation.name`,
 * `gen_ai.tool.name`, ...) are always written and win over the same keys given here.
 */
export interface CallSpanOptions {
  /** Name of the `execute_tool` span from the tool's name (default `execute_tool {tool}`); after an `unknown_tool` correction it is applied to the corrected name. */
  name?: (toolName: string) => string;
  /** Kind of the `execute_tool` span (default `INTERNAL`). */
  kind?: SpanKind;
  /** Extra attributes of the `execute_tool` span. */
  attributes?: Attributes;
  /** Extra attributes of each `guardtrace.attempt` span the call makes (a continuing call's own options give those of the attempts it makes). */
  attemptAttributes?: Attributes;
}

const KINDS = new Set<unknown>(Object.values(SpanKind).filter((v) => typeof v === 'number'));

function isAttributes(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Throws a clear error for a malformed `span` option (checked once, when the call opens). */
export function checkSpanOptions(o: CallSpanOptions, toolName: string): void {
  const where = `guardtrace: tool call of ${toolName}: option span`;
  if (!isAttributes(o)) throw new TypeError(`${where}: expected an object { name?, kind?, attributes?, attemptAttributes? }, got ${typeof o}`);
  if (o.name !== undefined && typeof o.name !== 'function') throw new TypeError(`${where}.name: expected a function (toolName) => string, got ${typeof o.name}`);
  if (o.kind !== undefined && !KINDS.has(o.kind)) throw new TypeError(`${where}.kind: expected a SpanKind (${[...KINDS].join(', ')}), got ${String(o.kind)}`);
  checkAttributes(o.attributes, `${where}.attributes`);
  checkAttributes(o.attemptAttributes, `${where}.attemptAttributes`);
}

/** Throws a clear error when `v` is given but is not an object of attributes. */
export function checkAttributes(v: unknown, where: string): void {
  if (v !== undefined && !isAttributes(v)) throw new TypeError(`${where}: expected an object of attributes, got ${Array.isArray(v) ? 'an array' : v === null ? 'null' : typeof v}`);
}

/** The `execute_tool` span's name; a name function that throws or returns no text falls back to the default, with a diagnostic. */
export function callSpanName(o: CallSpanOptions | undefined, toolName: string): string {
  if (o?.name) {
    try {
      const name = o.name(toolName);
      if (typeof name === 'string' && name !== '') return name;
      diag.warn(`guardtrace: span.name(${toolName}) returned ${typeof name === 'string' ? 'an empty string' : typeof name}; using the default name`);
    } catch (err) {
      diag.warn(`guardtrace: span.name(${toolName}) threw; using the default name`, err);
    }
  }
  return `${OP_EXECUTE_TOOL} ${toolName}`;
}

/** The SDK's attributes over the adapter's: a new object only when there are extra ones. */
export function withExtra<T extends object>(extra: Attributes | undefined, own: T): T {
  return extra ? Object.assign({}, extra, own) : own;
}
