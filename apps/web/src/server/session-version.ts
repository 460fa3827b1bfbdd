import 'server-only';
import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '@guardtrace/db';

/**
 * What a session's replay is built from changes only through a write of the collector, and
 * every such write of spans updates the session's row (its totals and `updated_at`, sql.ts); a
 * model call's GenAI events (/v1/logs) do not, so their last one is part of the version; retention
 * and the sampling sweep delete the row with the rest. The row's span count and `updated_at`
 * therefore name the stored state the replay shows. Its model turns' costs are priced when read,
 * by the project's prices (costs.ts): a digest of those prices is part of the version too.
 */
export interface SessionVersion {
  spanCount: number;
  updatedAt: Date;
  prices: string;
  /**
   * The last GenAI event (genai_events, from /v1/logs) stored of its model calls: a prompt or
   * completion arriving after its span changes the replay without touching the session's row.
   */
  events: string;
}

/** The session's row read from `db`, the prices' digest from `pricesDb` (the primary: set in Settings). */
export async function sessionVersion(db: PrismaClient, projectId: string, sessionId: string, pricesDb = db): Promise<SessionVersion | null> {
  const [row, prices, events] = await Promise.all([
    db.session.findUnique({ where: { projectId_id: { projectId, id: sessionId } }, select: { spanCount: true, updatedAt: true } }),
    pricesDb.$queryRaw<{ digest: string }[]>`
      SELECT left(md5(coalesce(string_agg(model || ':' || input_per_mtok || ':' || cached_input_per_mtok || ':' || output_per_mtok, ','
        ORDER BY model), '')), 12) AS digest
      FROM model_prices WHERE project_id = ${projectId}::uuid`,
    // Each model call's events by the genai_events key's prefix: a few index probes a session.
    db.$queryRaw<{ seq: string }[]>`
      SELECT coalesce(max(e.seq), 0)::text AS seq FROM model_calls m
      JOIN genai_events e ON e.project_id = m.project_id AND e.trace_id = m.trace_id AND e.span_id = m.span_id
      WHERE m.project_id = ${projectId}::uuid AND m.session_id = ${sessionId}`,
  ]);
  return row ? { ...row, prices: prices[0]?.digest ?? '', events: events[0]?.seq ?? '0' } : null;
}

/**
 * Changes with every server start, so an answer built by another version of the app (another
 * shape of the steps) is never revalidated into use after an upgrade.
 */
const PROCESS = randomUUID().slice(0, 8);

/** A weak ETag of the replay answer `part` built from the session at `v`. */
export function replayEtag(v: SessionVersion, part: string): string {
  return `W/"${PROCESS}.${part}.${v.spanCount}.${v.updatedAt.getTime()}.${v.prices}.${v.events}"`;
}
