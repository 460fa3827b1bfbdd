/** Rows the replay tests write without the collector: raw spans and repair turns, at fixed times. */
import { type PrismaClient, refreshAnalyticsRollup } from '@guardtrace/db';
import { spanId } from './factories.ts';

export const t0 = new Date('2026-11-21T09:00:00.000Z');
export const at = (ms: number) => new Date(t0.getTime() + ms);

/** A raw span row for a derived row's span id, carrying the attributes the derived rows do not keep. */
export async function rawSpan(
  prisma: PrismaClient,
  projectId: string,
  sessionId: string,
  traceId: string,
  id: string,
  atMs: number,
  attributes: Record<string, unknown>,
  extra: { events?: object[]; links?: object[]; resource?: object; parentSpanId?: string } = {},
) {
  const startNs = BigInt(t0.getTime() + atMs) * 1_000_000n;
  await prisma.span.create({
    data: {
      projectId,
      startTime: at(atMs),
      traceStart: t0,
      traceId,
      spanId: id,
      parentSpanId: extra.parentSpanId ?? null,
      sessionId,
      name: `span ${id}`,
      startTimeUnixNano: startNs,
      endTimeUnixNano: startNs + 5_000_000n,
      attributes: attributes as object,
      events: (extra.events ?? []) as object[],
      links: (extra.links ?? []) as object[],
      resource: (extra.resource ?? {}) as object,
    },
  });
}

export async function repairTurn(prisma: PrismaClient, projectId: string, sessionId: string, traceId: string, atMs: number, attemptSpanId: string) {
  const id = spanId();
  await prisma.modelCall.create({
    data: {
      projectId,
      traceId,
      sessionId,
      spanId: id,
      model: 'gpt-test',
      startedAt: at(atMs),
      durationMs: 100,
      inputTokens: 300,
      outputTokens: 20,
      repairAttemptSpanId: attemptSpanId,
      repairFailureClass: 'unknown_tool',
    },
  });
  // Written without the collector: link the session's rejections as its write transaction would.
  await refreshAnalyticsRollup(prisma, projectId, [sessionId]);
  return id;
}
