import { describe, expect, it } from 'vitest';
import { exportSession } from '../src/server/queries/export.ts';
import { setupTestDatabase } from './db.ts';
import { seedProject, seedRawSpans } from './factories.ts';

const db = setupTestDatabase();

describe('session export', () => {
  it("serves a session's raw spans of its own project as an OTLP JSON request, in start order", async () => {
    const prisma = db.prisma();
    const mine = await seedProject(prisma);
    const theirs = await seedProject(prisma);
    const start = new Date('2026-11-30T12:00:00Z');
    const { traceId, spanIds } = await seedRawSpans(prisma, mine.id, 'exported', start, [
      { name: 'second', atMs: 20, attributes: { 'gen_ai.conversation.id': 'exported', n: 3, ratio: 0.5, tags: ['a', 'b'], obj: { k: true } } },
      { name: 'first', atMs: 10, statusCode: 2 },
    ]);
    const result = await exportSession(prisma, mine.id, 'exported');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.document.resourceSpans).toHaveLength(1);
    const spans = (result.document.resourceSpans[0] as { scopeSpans: { spans: Record<string, unknown>[] }[] }).scopeSpans[0]?.spans ?? [];
    expect(spans.map((s) => s.name)).toEqual(['first', 'second']);
    expect(spans[0]).toMatchObject({ traceId, spanId: spanIds[1], status: { code: 2 }, startTimeUnixNano: String(BigInt(start.getTime() + 10) * 1_000_000n) });
    // (jsonb keeps keys in its own order: compared by key.)
    const byKey = (a: unknown) => [...(a as { key: string }[])].sort((x, y) => x.key.localeCompare(y.key));
    expect(byKey(spans[1]?.attributes)).toEqual(byKey([
      { key: 'gen_ai.conversation.id', value: { stringValue: 'exported' } },
      { key: 'n', value: { intValue: '3' } },
      { key: 'ratio', value: { doubleValue: 0.5 } },
      { key: 'tags', value: { arrayValue: { values: [{ stringValue: 'a' }, { stringValue: 'b' }] } } },
      { key: 'obj', value: { kvlistValue: { values: [{ key: 'k', value: { boolValue: true } }] } } },
    ]));
    // Another project's key to the same id finds nothing.
    expect(await exportSession(prisma, theirs.id, 'exported')).toEqual({ ok: false, reason: 'not-found' });
  });
});
