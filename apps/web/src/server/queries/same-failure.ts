import 'server-only';
import type { PrismaClient } from '@guardtrace/db';

/** What makes two failures "the same": the tool, the failure class, and the failed field when known. */
export interface FailureSignature {
  toolName: string;
  failureClass: string;
  /** A JSON pointer a failed check of the attempt recorded; null matches any field. */
  pointer: string | null;
}

interface SessionRef {
  id: string;
  startedAt: string;
}

export interface SameFailureNav {
  /** 1-based position of the current session among the sessions with this failure, by start. */
  position: number;
  total: number;
  previous: SessionRef | null;
  next: SessionRef | null;
}

interface Row {
  previous_id: string | null;
  previous_at: Date | null;
  next_id: string | null;
  next_at: Date | null;
  before: bigint;
  total: bigint;
  own: boolean;
}

/**
 * The sessions before and after `sessionId` (by start time, then id: a keyset, no offsets) of
 * one project that have an attempt of the same tool failing with the same class, and when a
 * pointer is given, a failed check of that attempt pointing at the same field. Null when the
 * session has no such failure stored (or no row to order it by).
 */
export async function sameFailureNav(db: PrismaClient, projectId: string, sessionId: string, sig: FailureSignature): Promise<SameFailureNav | null> {
  const { toolName, failureClass, pointer } = sig;
  const rows = await db.$queryRaw<Row[]>`
    WITH cur AS (
      SELECT started_at, id FROM sessions WHERE project_id = ${projectId}::uuid AND id = ${sessionId}
    ), matching AS (
      -- Without a field: the sessions of the (project, tool, class, session) index alone. With
      -- one: the failed checks pointing at it first (guard_checks_failed_pointers_idx, a GIN
      -- index), then their attempts by key. Only the branch whose condition holds runs.
      SELECT s.id, s.started_at
      FROM sessions s
      WHERE s.project_id = ${projectId}::uuid
        AND s.id IN (
          SELECT a.session_id FROM attempts a
          WHERE ${pointer}::text IS NULL AND a.project_id = ${projectId}::uuid
            AND a.tool_name = ${toolName} AND a.failure_class = ${failureClass}
          UNION ALL
          SELECT a.session_id FROM guard_checks g
          JOIN attempts a ON a.project_id = g.project_id AND a.trace_id = g.trace_id AND a.span_id = g.attempt_span_id
          WHERE ${pointer}::text IS NOT NULL AND g.project_id = ${projectId}::uuid
            AND g.verdict = 'fail' AND g.failed_pointers @> jsonb_build_array(${pointer}::text)
            AND a.session_id = g.session_id AND a.tool_name = ${toolName} AND a.failure_class = ${failureClass})
    )
    SELECT
      (SELECT m.id FROM matching m, cur WHERE (m.started_at, m.id) < (cur.started_at, cur.id) ORDER BY m.started_at DESC, m.id DESC LIMIT 1) AS previous_id,
      (SELECT m.started_at FROM matching m, cur WHERE (m.started_at, m.id) < (cur.started_at, cur.id) ORDER BY m.started_at DESC, m.id DESC LIMIT 1) AS previous_at,
      (SELECT m.id FROM matching m, cur WHERE (m.started_at, m.id) > (cur.started_at, cur.id) ORDER BY m.started_at, m.id LIMIT 1) AS next_id,
      (SELECT m.started_at FROM matching m, cur WHERE (m.started_at, m.id) > (cur.started_at, cur.id) ORDER BY m.started_at, m.id LIMIT 1) AS next_at,
      (SELECT count(*) FROM matching m, cur WHERE (m.started_at, m.id) < (cur.started_at, cur.id))::bigint AS before,
      (SELECT count(*) FROM matching)::bigint AS total,
      EXISTS (SELECT 1 FROM matching m WHERE m.id = cur.id) AS own
    FROM cur`;
  const r = rows[0];
  // Not the session's own failure here: a read replica behind the replay's read (it has the
  // session's row, not yet the attempt) answered "session 1 of 0"; the route then asks the primary.
  if (!r?.own) return null;
  return {
    position: Number(r.before) + 1,
    total: Number(r.total),
    previous: r.previous_id && r.previous_at ? { id: r.previous_id, startedAt: r.previous_at.toISOString() } : null,
    next: r.next_id && r.next_at ? { id: r.next_id, startedAt: r.next_at.toISOString() } : null,
  };
}
