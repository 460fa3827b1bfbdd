import { describe, expect, it } from 'vitest';
import { stepFailed } from '../src/lib/replay-nav.ts';
import { getSessionDetail } from '../src/server/queries/session.ts';
import type { GuardStepDto, ToolCallStepDto } from '../src/server/queries/session-types.ts';
import { setupTestDatabase } from './db.ts';
import { seedProject, seedSession, spanId } from './factories.ts';

const db = setupTestDatabase();
const t0 = new Date('2026-12-05T09:00:00.000Z');

describe("another instrumentation's guardrails in the replay", () => {
  it('belong to the tool call they ran under, with their native results and pointer; the rest stay steps', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    // A tool call another instrumentation recorded: no attempts of Guardtrace's.
    const seeded = await seedSession(prisma, project.id, { startedAt: t0, toolCalls: [{ toolName: 'write_file', atMs: 500, attempts: [] }] });
    const toolSpanId = seeded.toolSpanIds[0] as string;
    const base = { projectId: project.id, traceId: seeded.traceId, sessionId: seeded.id, durationUs: 40 };
    const bedrock = {
      component: 'Amazon Bedrock Guardrails',
      provider: 'aws.bedrock',
      policyId: 'gr-abc123',
      policyVersion: '1',
      source: 'INPUT',
      type: 'action',
      value: 'GUARDRAIL_INTERVENED',
      reason: 'Guardrail policy blocked the requested topic',
    };
    await prisma.guardCheck.create({
      data: {
        ...base,
        spanId: spanId(),
        attemptSpanId: toolSpanId,
        guardName: 'Amazon Bedrock Guardrails',
        verdict: 'fail',
        reason: bedrock.reason,
        failedPointers: ['/path'],
        // A value of an unknown shape is left out, not shown.
        guardrailResults: [bedrock, 'junk', { type: 7, riskScore: 'high' }],
        startedAt: new Date(t0.getTime() + 510),
      },
    });
    await prisma.guardCheck.create({
      data: {
        ...base,
        spanId: spanId(),
        attemptSpanId: spanId(),
        guardName: 'Azure AI Content Safety',
        verdict: 'unknown',
        guardrailResults: [{ type: 'severity', value: '4', riskCategory: 'Violence', riskScore: 4 }],
        startedAt: new Date(t0.getTime() + 900),
      },
    });

    const detail = await getSessionDetail(prisma, project.id, seeded.id);
    expect(detail!.steps.map((s) => [s.kind, s.kind === 'guard' ? s.guardName : s.kind === 'tool' ? s.toolName : null])).toEqual([
      ['tool', 'write_file'],
      ['guard', 'Azure AI Content Safety'],
    ]);
    const call = detail!.steps[0] as ToolCallStepDto;
    expect(call.guardChecks).toEqual([
      expect.objectContaining({ guardName: 'Amazon Bedrock Guardrails', verdict: 'fail', reason: bedrock.reason, failedPointers: ['/path'], results: [bedrock, {}] }),
    ]);
    // The call's denied guardrail is a failure to step to; a verdict not derived is not.
    expect(stepFailed(call)).toBe(true);
    const azure = detail!.steps[1] as GuardStepDto;
    expect(azure.results).toEqual([{ type: 'severity', value: '4', riskCategory: 'Violence', riskScore: 4 }]);
    expect(stepFailed(azure)).toBe(false);
  });
});
