/**
 * A small seed run through a real collector process into a real Postgres: the collector
 * itself writes the raw spans and the derived rows, and they say what the generator meant.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApiKey, createPrisma, createProject, type PrismaClient } from '@guardtrace/db';
import { createTestDatabase, type TestDatabase } from '@guardtrace/db/dev';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Expected, type GeneratedSession, generateSession, sendSeed } from '../src/index.ts';

const COLLECTOR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../apps/collector');
// A fixed end time: the run, and so this test, never depends on the day it runs.
const UNTIL = Date.UTC(2026, 5, 15, 12);
const OPTIONS = { seed: 7, sessions: 20, untilMs: UNTIL, days: 2 };

let db: TestDatabase;
let prisma: PrismaClient;
let collector: ChildProcess;
let endpoint: string;
let projectId: string;
let apiKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url, { max: 2 });
  const project = await createProject(prisma, 'seed test');
  projectId = project.id;
  apiKey = (await createApiKey(prisma, projectId, 'seed')).key;
  const tsx = createRequire(import.meta.url).resolve('tsx');
  collector = spawn(process.execPath, ['--import', tsx, 'src/main.ts'], {
    cwd: COLLECTOR,
    env: { ...process.env, DATABASE_URL: db.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  endpoint = await new Promise<string>((resolve, reject) => {
    collector.stdout?.on('data', (d) => {
      const m = /collector listening on (\S+)/.exec(String(d));
      if (m?.[1]) resolve(m[1]);
    });
    collector.once('exit', (code) => reject(new Error(`collector exited ${code}`)));
  });
});

afterAll(async () => {
  collector?.kill('SIGTERM');
  await prisma?.$disconnect();
  await db?.close();
});

describe('pnpm seed', () => {
  it('is deterministic: the same seed gives the same sessions, another seed others', () => {
    const a = JSON.stringify(generateSession(OPTIONS, 3).groups);
    expect(JSON.stringify(generateSession(OPTIONS, 3).groups)).toBe(a);
    expect(JSON.stringify(generateSession({ ...OPTIONS, seed: 8 }, 3).groups)).not.toBe(a);
  });

  it('sends sessions the collector stores with the totals they were generated with', async () => {
    const sent: GeneratedSession[] = [];
    const progress: number[] = [];
    const result = await sendSeed({
      ...OPTIONS,
      endpoint,
      apiKey,
      concurrency: 3,
      spansPerRequest: 60,
      onSession: (s) => sent.push(s),
      onProgress: (p) => progress.push(p.sessions),
    });
    expect(result.sessions).toBe(20);
    expect(progress.at(-1)).toBe(20);
    expect(progress.length).toBeGreaterThan(1);
    const spans = sent.reduce((n, s) => n + s.plan.expected.spans, 0);
    expect(result.spans).toBe(spans);
    expect(await prisma.span.count({ where: { projectId } })).toBe(spans);

    const rows = await prisma.session.findMany({ where: { projectId } });
    expect(rows).toHaveLength(20);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const { plan } of sent) {
      const row = byId.get(plan.sessionId);
      expect(row, plan.sessionId).toBeDefined();
      const e: Expected = plan.expected;
      expect(row?.spanCount, plan.sessionId).toBe(e.spans);
      expect(row?.userId).toBe(plan.userId);
      expect(row?.modelCallCount).toBe(e.modelCalls);
      expect(Number(row?.inputTokens)).toBe(e.inputTokens);
      expect(Number(row?.outputTokens)).toBe(e.outputTokens);
      expect(row?.startedAt.getTime()).toBe(Number(plan.startNs / 1_000_000n));
      if (e.convention === 'guardtrace') {
        expect(row?.toolCallCount).toBe(e.toolCalls);
        expect(row?.attemptCount).toBe(e.attempts);
        expect(row?.failedAttemptCount).toBe(e.failedAttempts);
        expect(Number(row?.repairTokens)).toBe(e.repairTokens);
        expect(row?.outcome).toBe(e.outcome);
        expect(row?.agentName).toBe(e.agentName);
        expect(row?.samplingWeight).toBe(e.samplingWeight);
        // The SDK's step numbers: 1…n over the session's turns and calls, in the order they started.
        const where = { projectId, sessionId: plan.sessionId };
        const steps = [
          ...(await prisma.toolCall.findMany({ where, select: { startedAt: true, stepSequence: true } })),
          ...(await prisma.modelCall.findMany({ where, select: { startedAt: true, stepSequence: true } })),
        ].sort((a, b) => (a.stepSequence ?? 0) - (b.stepSequence ?? 0));
        expect(steps.map((x) => x.stepSequence)).toEqual(steps.map((_, i) => i + 1));
        for (let i = 1; i < steps.length; i++) expect(steps[i]!.startedAt.getTime()).toBeGreaterThanOrEqual(steps[i - 1]!.startedAt.getTime());
      }
    }
    // A realistic mix: other instrumentations beside the SDK's, failures, repairs and escalations.
    const conventions = new Set(sent.map((s) => s.plan.expected.convention));
    expect(conventions.has('guardtrace')).toBe(true);
    expect(conventions.size).toBeGreaterThan(1);
    expect(await prisma.attempt.count({ where: { projectId, outcome: { not: 'success' } } })).toBeGreaterThan(0);
    expect(await prisma.modelCall.count({ where: { projectId, repairFailureClass: { not: null } } })).toBeGreaterThan(0);
    // Corrections are their own calls after the repair turn: analytics' "Fixed next" counts some
    // of the rejections as fixed (those whose correction succeeded), not none and not all.
    const [fixes] = await prisma.$queryRaw<{ rejections: number; fixed: number }[]>`
      SELECT sum(rejections)::int AS rejections, sum(rejections_fixed)::int AS fixed FROM analytics_session_parts
      WHERE project_id = ${projectId}::uuid`;
    expect(fixes?.fixed).toBeGreaterThan(0);
    expect(fixes?.fixed).toBeLessThan(fixes?.rejections ?? 0);
  });

  it('is idempotent: sending the same run again adds nothing', async () => {
    const before = await prisma.span.count({ where: { projectId } });
    await sendSeed({ ...OPTIONS, endpoint, apiKey });
    expect(await prisma.span.count({ where: { projectId } })).toBe(before);
    expect(await prisma.session.count({ where: { projectId } })).toBe(20);
  });

  it('says what is wrong with a bad key or endpoint', async () => {
    await expect(sendSeed({ ...OPTIONS, sessions: 1, endpoint, apiKey: 'gt_wrong' })).rejects.toThrow(/answered 401.*--key/);
    await expect(sendSeed({ ...OPTIONS, sessions: 1, endpoint: 'localhost:4318', apiKey })).rejects.toThrow(/--endpoint/);
  });
});
