/**
 * OpenLLMetry (Traceloop): its workflow/task/agent/tool spans (`traceloop.span.kind`,
 * `traceloop.entity.name/input`), its `session_id` association property. Its LLM spans use gen_ai.*
 * usage (genai.ts).
 */
import type { Attributes, NormSpan } from '../span.ts';
import type { Meaning, SpanRole } from './meaning.ts';
import { str, text } from './read.ts';

const SPAN_KIND = 'traceloop.span.kind';
const ENTITY_NAME = 'traceloop.entity.name';
const ENTITY_INPUT = 'traceloop.entity.input';
/**
 * The session of Traceloop's SDK: its standard `session_id` association property
 * (`withAssociationProperties({ [AssociationProperty.SESSION_ID]: ... })`), on every span under it.
 */
export const SESSION_ID_KEY = 'traceloop.association.properties.session_id';
/**
 * Its user: the standard `user_id` association property, then `userId` (the Vercel AI SDK's
 * `telemetry.metadata.userId`, as Traceloop's SDK rewrites the AI SDK's spans).
 */
export const USER_ID_KEYS = ['traceloop.association.properties.user_id', 'traceloop.association.properties.userId'] as const;

/** Tool spans; undefined otherwise (workflows and tasks are decided by the other conventions). */
export function role(a: Attributes): SpanRole | undefined {
  return str(a, SPAN_KIND) === 'tool' ? 'tool_call' : undefined;
}

/** Whether the span follows this convention at all (one lookup: most spans do not). */
export function applies(a: Attributes): boolean {
  return a[SPAN_KIND] !== undefined;
}

export function read(span: NormSpan, m: Meaning): void {
  if (m.role !== 'tool_call') return;
  const a = span.attributes;
  m.toolName ??= text(a, ENTITY_NAME);
  m.arguments ??= text(a, ENTITY_INPUT);
}
