import 'server-only';
import type { PrismaClient } from '@guardtrace/db';
import { CONTENT_SQL } from './session-spans.ts';

/** Values the replay loads on demand, one at a time. */
export const PAYLOAD_KINDS = ['arguments', 'feedback', 'result', 'input', 'output', 'span', 'definition'] as const;
export type PayloadKind = (typeof PAYLOAD_KINDS)[number];

// 16 KB on expand: a whole typical file or prompt, still instant to render; the rest with `full`.
export const PAYLOAD_CHARS = 16_384;

export interface PayloadDto {
  value: string;
  /** Length of the whole value in characters. */
  chars: number;
  truncated: boolean;
}

/**
 * One payload of one span of one session of one project (never another project's), cut to
 * PAYLOAD_CHARS unless `full`. Null when there is no such span or it has no such value.
 */
export async function getPayload(
  db: PrismaClient,
  projectId: string,
  sessionId: string,
  q: { kind: PayloadKind; traceId: string; spanId: string; full: boolean },
): Promise<PayloadDto | null> {
  const where = { projectId, sessionId, traceId: q.traceId, spanId: q.spanId };
  let text: string | null = null;
  if (q.kind === 'arguments' || q.kind === 'feedback') {
    const select = { arguments: true, feedback: true } as const;
    const attempt = await db.attempt.findFirst({ where, select });
    if (attempt) text = q.kind === 'arguments' ? attempt.arguments : attempt.feedback;
    else if (q.kind === 'arguments') text = (await db.toolCall.findFirst({ where, select: { arguments: true } }))?.arguments ?? null;
  } else if (q.kind === 'definition') {
    // A tool call's readable definition (ToolDefinitionSummary, as its dataset item carries it).
    const rows = await db.$queryRaw<{ v: string }[]>`
      SELECT d.summary::text AS v FROM tool_calls t
      JOIN tool_definitions d ON d.project_id = t.project_id AND d.hash = t.definition_hash
      WHERE t.project_id = ${projectId}::uuid AND t.session_id = ${sessionId} AND t.trace_id = ${q.traceId} AND t.span_id = ${q.spanId}
      LIMIT 1`;
    text = rows[0]?.v ?? null;
  } else if (q.kind === 'span') {
    const span = await db.span.findFirst({ where, select: { name: true, attributes: true, resource: true, events: true, links: true } });
    if (span) text = JSON.stringify(span, null, 2);
  } else {
    const rows = await db.$queryRaw<{ v: string | null }[]>`
      SELECT ${CONTENT_SQL[q.kind]} AS v FROM spans
      WHERE project_id = ${projectId}::uuid AND session_id = ${sessionId} AND trace_id = ${q.traceId} AND span_id = ${q.spanId}
      LIMIT 1`;
    text = rows[0]?.v ?? null;
  }
  if (text === null) return null;
  const truncated = !q.full && text.length > PAYLOAD_CHARS;
  return { value: truncated ? text.slice(0, PAYLOAD_CHARS) : text, chars: text.length, truncated };
}
