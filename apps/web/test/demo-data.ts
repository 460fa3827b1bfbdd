import type { PrismaClient } from '@guardtrace/db';
import { seedProject, seedRawSpans, seedSession, type SessionSeed } from './factories.ts';

type Scenario = Omit<SessionSeed, 'startedAt'>;

const checks = (verdict: 'pass' | 'fail', reason?: string) => [
  { guardName: 'schema', stage: 'schema', verdict: verdict, reason, durationUs: 9 },
  ...(verdict === 'pass' ? [{ guardName: 'path_safety', stage: 'logical', verdict: 'pass' as const, durationUs: 21 }] : []),
];

/** The demo agent's scenarios (issue 2), as derived rows. */
const SCENARIOS: Record<string, Scenario> = {
  clean: {
    agentName: 'support-bot',
    outcome: 'success',
    toolCalls: [{ toolName: 'search_orders', atMs: 900, attempts: [{ outcome: 'success', arguments: '{"customer":"c_118"}', guards: checks('pass') }] }],
    modelCalls: [
      { atMs: 0, inputTokens: 1840, outputTokens: 96 },
      { atMs: 1300, inputTokens: 2110, outputTokens: 310 },
    ],
  },
  wrongArgument: {
    agentName: 'code-agent',
    outcome: 'success',
    toolCalls: [
      {
        toolName: 'read_file',
        atMs: 700,
        attempts: [
          {
            outcome: 'rejected',
            failureClass: 'invalid_arguments',
            decision: 'reject_with_feedback',
            arguments: '{"file_path":"src/app.ts"}',
            feedback:
              'Invalid arguments for read_file:\n- path: required (string), missing\n- file_path: unknown field; did you mean "path"?',
            guards: checks('fail', 'path: Required; unrecognized key "file_path"'),
          },
          { outcome: 'success', arguments: '{"path":"src/app.ts"}', guards: checks('pass') },
        ],
      },
    ],
    modelCalls: [
      { atMs: 0, inputTokens: 2400, outputTokens: 120 },
      { atMs: 760, inputTokens: 2650, outputTokens: 95, repairFailureClass: 'invalid_arguments' },
    ],
  },
  unknownTool: {
    agentName: 'code-agent',
    outcome: 'success',
    toolCalls: [
      {
        toolName: 'search_codebase',
        atMs: 600,
        attempts: [
          {
            outcome: 'rejected',
            failureClass: 'unknown_tool',
            decision: 'reject_with_feedback',
            arguments: '{"query":"deprecated api"}',
            feedback: 'Unknown tool "search_codebase". Valid tools: read_file, grep, list_dir, write_file.',
            guards: [{ guardName: 'tool_exists', stage: 'schema', verdict: 'fail', reason: 'not registered', durationUs: 3 }],
          },
        ],
      },
      { toolName: 'grep', atMs: 1900, attempts: [{ outcome: 'success', arguments: '{"pattern":"deprecatedApi"}', guards: checks('pass') }] },
    ],
    modelCalls: [
      { atMs: 0, inputTokens: 1900, outputTokens: 80 },
      { atMs: 650, inputTokens: 2050, outputTokens: 70, repairFailureClass: 'unknown_tool' },
    ],
  },
  transient: {
    agentName: 'travel-agent',
    outcome: 'success',
    toolCalls: [
      {
        toolName: 'get_weather',
        atMs: 800,
        attempts: [
          { outcome: 'failed', failureClass: 'transient', decision: 'retry_backoff', backoffMs: 250, arguments: '{"city":"Lisbon"}', guards: checks('pass') },
          { outcome: 'failed', failureClass: 'transient', decision: 'retry_backoff', backoffMs: 520, arguments: '{"city":"Lisbon"}', guards: checks('pass') },
          { outcome: 'success', arguments: '{"city":"Lisbon"}', guards: checks('pass') },
        ],
      },
    ],
    modelCalls: [
      { atMs: 0, inputTokens: 1200, outputTokens: 60 },
      { atMs: 2600, inputTokens: 1500, outputTokens: 180 },
    ],
  },
  uncertainCharge: {
    agentName: 'billing-agent',
    outcome: 'failed',
    toolCalls: [
      {
        toolName: 'charge_card',
        atMs: 1100,
        idempotent: false,
        attempts: [
          {
            outcome: 'failed',
            failureClass: 'uncertain_side_effect',
            decision: 'fail_reconcile',
            arguments: '{"amount_cents":4999,"customer":"c_77"}',
            feedback: 'The charge timed out and may have gone through. Do not retry; it is being reconciled by idempotency key.',
            guards: checks('pass'),
          },
        ],
      },
    ],
    modelCalls: [
      { atMs: 0, inputTokens: 1500, outputTokens: 90 },
      { atMs: 1500, inputTokens: 1700, outputTokens: 140, repairFailureClass: 'uncertain_side_effect' },
    ],
  },
  budgetExhausted: {
    agentName: 'code-agent',
    outcome: 'escalated',
    toolCalls: [
      {
        toolName: 'run_tests',
        atMs: 500,
        attempts: [
          { outcome: 'failed', failureClass: 'execution_feedback', decision: 'corrected_retry', feedback: 'FAIL src/sum.test.ts: expected 4, got 5', guards: checks('pass') },
          { outcome: 'failed', failureClass: 'execution_feedback', decision: 'corrected_retry', feedback: 'FAIL src/sum.test.ts: expected 4, got 3', guards: checks('pass') },
          { outcome: 'failed', failureClass: 'budget_exhausted', decision: 'escalate_human', feedback: 'Retry budget exhausted after 3 attempts; escalated to a human with the attempt history.', guards: checks('pass') },
        ],
      },
    ],
    modelCalls: [
      { atMs: 0, inputTokens: 3100, outputTokens: 400 },
      { atMs: 900, inputTokens: 3600, outputTokens: 380, repairFailureClass: 'execution_feedback' },
      { atMs: 1800, inputTokens: 4100, outputTokens: 350, repairFailureClass: 'execution_feedback' },
    ],
  },
};

/** A demo project: every scenario on each of the last few days, plus a foreign-instrumentation session. */
export async function seedDemo(prisma: PrismaClient, now = new Date(), days = 5) {
  const project = await seedProject(prisma, 'demo', new Date(now.getTime() - 30 * 86_400_000));
  let sessions = 0;
  for (let day = days - 1; day >= 0; day--) {
    for (const [i, scenario] of Object.values(SCENARIOS).entries()) {
      const startedAt = new Date(now.getTime() - day * 86_400_000 - (i + 1) * 7 * 60_000);
      await seedSession(prisma, project.id, { ...scenario, startedAt, durationMs: 4000 + i * 900 });
      sessions++;
    }
  }
  const foreignStart = new Date(now.getTime() - 3 * 60_000);
  await prisma.session.create({
    data: { projectId: project.id, id: 'langchain-conv-42', agentName: 'planner', serviceName: 'other-service', startedAt: foreignStart, endedAt: new Date(foreignStart.getTime() + 2400), spanCount: 3 },
  });
  await seedRawSpans(prisma, project.id, 'langchain-conv-42', foreignStart, [
    { name: 'invoke_agent planner', atMs: 0, durationMs: 2400, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'planner' } },
    { name: 'chat gpt-4o-mini', atMs: 100, durationMs: 900, attributes: { 'gen_ai.request.model': 'gpt-4o-mini' } },
    { name: 'http GET api.example.com/weather', atMs: 1100, durationMs: 300, statusCode: 2, attributes: { 'http.response.status_code': 503 } },
  ]);
  await seedProject(prisma, 'staging');
  return { projectId: project.id, sessions };
}
