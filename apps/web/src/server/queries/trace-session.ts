/** Where a trace's spans are now: a link made under a trace id follows its trace into its session. */
import type { PrismaClient } from '@guardtrace/db';

/** The session a trace's spans are stored under now (the trace index), or null when the trace is not stored. */
export async function sessionOfTrace(db: PrismaClient, projectId: string, traceId: string): Promise<string | null> {
  const row = await db.trace.findUnique({ where: { projectId_traceId: { projectId, traceId } }, select: { sessionId: true } });
  return row?.sessionId ?? null;
}
