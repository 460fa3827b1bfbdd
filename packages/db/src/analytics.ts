import type { PrismaClient } from './client.ts';

/**
 * Rebuilds the analytics rollups (analytics_daily, and analytics_model_daily's repair turns per model) of a project's stored sessions from their
 * derived rows: what the collector does for the sessions of every batch it writes, for rows
 * written some other way (bulk seeds, fixtures, an import). Idempotent.
 */
export async function refreshAnalyticsRollup(db: PrismaClient, projectId: string, sessionIds?: readonly string[]): Promise<void> {
  if (sessionIds) {
    await db.$queryRaw`SELECT guardtrace_refresh_analytics(
      array_fill(${projectId}::uuid, ARRAY[${sessionIds.length}::int]), ${sessionIds as string[]}::text[])::text AS done`;
    await db.$queryRaw`SELECT guardtrace_update_model_costs(
      array_fill(${projectId}::uuid, ARRAY[${sessionIds.length}::int]), ${sessionIds as string[]}::text[])::text AS done`;
    return;
  }
  await db.$queryRaw`SELECT guardtrace_refresh_analytics(array_agg(project_id), array_agg(id))::text AS done
    FROM sessions WHERE project_id = ${projectId}::uuid`;
  await db.$queryRaw`SELECT guardtrace_update_model_costs(array_agg(project_id), array_agg(id))::text AS done
    FROM sessions WHERE project_id = ${projectId}::uuid`;
}
