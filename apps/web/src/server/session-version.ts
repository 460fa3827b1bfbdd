import 'server-only';
import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '@guardtrace/db';

/**
 * What a session's replay is built from changes only through a write of the collector, and
 * every such write updates the session's row (its totals and `updated_at`, sql.ts); retention
 * and the sampling sweep delete the row with the rest. The row's span count and `updated_at`
 * therefore name the stored state the replay shows. Its model turns' costs are priced when read,
 * by the project's prices (costs.ts): a digest of those prices is part of the version too.
 */
export interface SessionVersion {
  spanCount: number;
  updatedAt: Date;
  prices: string;
}

/** The session's row read from `db`, the prices' digest from `pricesDb` (the primary: set in Settings). */
export async function sessionVersion(db: PrismaClient, projectId: string, sessionId: string, pricesDb = db): Promise<SessionVersion | null> {
  const [row, prices] = await Promise.all([
    db.session.findUnique({ where: { projectId_id: { projectId, id: sessionId } }, select: { spanCount: true, updatedAt: true } }),
    pricesDb.$queryRaw<{ digest: string }[]>`
      SELECT left(md5(coalesce(string_agg(model || ':' || input_per_mtok || ':' || cached_input_per_mtok || ':' || output_per_mtok, ','
        ORDER BY model), '')), 12) AS digest
      FROM model_prices WHERE project_id = ${projectId}::uuid`,
  ]);
  return row ? { ...row, prices: prices[0]?.digest ?? '' } : null;
}

/**
 * Changes with every server start, so an answer built by another version of the app (another
 * shape of the steps) is never revalidated into use after an upgrade.
 */
const PROCESS = randomUUID().slice(0, 8);

/** A weak ETag of the replay answer `part` built from the session at `v`. */
export function replayEtag(v: SessionVersion, part: string): string {
  return `W/"${PROCESS}.${part}.${v.spanCount}.${v.updatedAt.getTime()}.${v.prices}"`;
}
