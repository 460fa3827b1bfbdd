/**
 * Tool definitions (`guardtrace.tool.definition`: the SDK's JSON summary of a tool's schema,
 * guards, flags and policy, sent on the first call of each tool in a session), kept once per
 * project and hash in `tool_definitions`, the first seen winning. A tool call span's definition
 * is read while its rows are prepared, written by the batch's transaction with ON CONFLICT DO
 * NOTHING, and remembered once committed: a definition this process has stored costs nothing
 * more for ten minutes (most sessions send a hash already stored; it was a row trigger on `spans`, ~20 µs of
 * Postgres a new session: bench/notes.md). A summary that is no JSON object, or that Postgres'
 * jsonb refuses (a \u0000 escape), loses the definition only: the span is stored all the same.
 */
import { ATTR_GEN_AI_TOOL_NAME, ATTR_GUARDTRACE_TOOL_DEFINITION } from '@guardtrace/semconv';
import { storableText } from './copy.ts';
import { definitionHash } from './mapping.ts';
import type { NormSpan } from './span.ts';
import { textArray } from './sql.ts';

/** One definition to store: its project, hash, tool, summary (JSON text) and the start of the span that carried it. */
export interface DefinitionRow {
  projectId: string;
  hash: string;
  tool: string;
  summary: string;
  firstSeen: string;
}

/**
 * `project/hash` of the definitions this process has committed, each until when it is trusted
 * (bounded: cleared when full, which only costs a re-insert that does nothing). Trusted for a
 * while only, so a row deleted meanwhile (by hand, by a future retention rule) is written again by
 * a later call that carries the summary.
 */
const stored = new Map<string, number>();
const STORED_MAX = 50_000;
const TRUSTED_MS = 10 * 60_000;

/** The definition a tool call span carries and this process has not stored yet, else null. */
export function spanDefinition(projectId: string, span: NormSpan, startTime: string): DefinitionRow | null {
  const summary = span.attributes[ATTR_GUARDTRACE_TOOL_DEFINITION];
  if (typeof summary !== 'string') return null;
  const hash = definitionHash(span);
  if (hash === null || (stored.get(`${projectId}/${hash}`) ?? 0) > Date.now()) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(summary);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const named = (parsed as { tool?: unknown }).tool;
  const attr = span.attributes[ATTR_GEN_AI_TOOL_NAME];
  const tool = typeof named === 'string' ? named : typeof attr === 'string' ? attr : '';
  // A `\u0000` in the summary's JSON decodes to what Postgres text cannot hold (copy.ts).
  return { projectId, hash, tool: storableText(tool), summary: storableText(summary), firstSeen: startTime };
}

/**
 * The statement storing a batch's definitions (the first of each project and hash in batch
 * order), or null with none. Values inlined as literals: the write transaction's script runs on
 * the simple protocol.
 */
export function storeDefinitions(rows: readonly DefinitionRow[]): string | null {
  if (rows.length === 0) return null;
  const seen = new Set<string>();
  const first = rows.filter((r) => {
    const k = `${r.projectId}/${r.hash}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  const col = (f: (r: DefinitionRow) => string) => textArray(first.map(f));
  return `INSERT INTO tool_definitions (project_id, hash, tool_name, summary, first_seen_at)
SELECT d.p::uuid, d.h, d.t, d.j, d.f::timestamptz
FROM (SELECT p, h, t, guardtrace_try_jsonb(s) AS j, f, n
      FROM unnest(${col((r) => r.projectId)}::text[], ${col((r) => r.hash)}::text[], ${col((r) => r.tool)}::text[], ${col((r) => r.summary)}::text[], ${col((r) => r.firstSeen)}::text[])
      WITH ORDINALITY AS u(p, h, t, s, f, n)) d
WHERE jsonb_typeof(d.j) = 'object'
ORDER BY d.n
ON CONFLICT DO NOTHING`;
}

/** After the batch's commit: its definitions are stored (by it or by an earlier writer). */
export function rememberDefinitions(rows: readonly DefinitionRow[]): void {
  if (stored.size + rows.length > STORED_MAX) stored.clear();
  const until = Date.now() + TRUSTED_MS;
  for (const r of rows) stored.set(`${r.projectId}/${r.hash}`, until);
}
