import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { runFileAgent } from './file-agent.ts';
import { runInvoiceAgent } from './invoice-agent.ts';
import { runLangChainExample } from './langchain-agent.ts';
import { runAgentsExample } from './openai-agents-agent.ts';

function memory() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { tracer: provider.getTracer('examples'), spans: () => exporter.getFinishedSpans() };
}

describe('file-agent example (third seed)', () => {
  it('offers path candidates, rejects a concurrent edit, rolls back a breaking edit and ends compiling', async () => {
    const m = memory();
    const run = await runFileAgent({ tracer: m.tracer });
    expect(run.steps.map((s) => `${s.tool}:${s.decision}`).sort()).toEqual(
      [
        'read_file:replan',
        'read_file:proceed',
        'edit_file:replan',
        'edit_file:reject_with_feedback',
        'edit_file:proceed',
        'edit_file:reject_with_feedback',
        'edit_file:proceed',
      ].sort(),
    );
    const fb = (i: number) => run.steps[i]?.feedback ?? '';
    expect(fb(0)).toContain('Available paths matching **/Button.tsx:\n- src/components/Button.tsx\n- src/ui/Button.tsx');
    const lock = run.steps.find((s) => s.feedback?.includes('is already being edited by operation'));
    expect(lock?.decision).toBe('replan');
    const gate = run.steps.find((s) => s.feedback?.includes('Validation failed after edit to src/api/routes.ts'));
    expect(gate?.feedback).toContain("TypeScript error TS2304: Cannot find name 'UserId'.");
    expect(run.steps.find((s) => s.feedback?.includes('has 1 lines, edit targets lines 9-12'))?.decision).toBe('reject_with_feedback');
    expect(run.finalRoutes).toContain('export type UserId = string;');
    expect(run.outcome).toBe('success');
    const gates = m.spans().filter((s) => s.name === 'apply_guardrail tsc --noEmit');
    expect(gates.map((g) => g.attributes['gen_ai.guardrail.verdict'])).toContain('fail');
    expect(m.spans().every((s) => s.attributes['gen_ai.conversation.id'] === run.sessionId)).toBe(true);
  }, 120_000);
});

describe('invoice-agent example (second seed)', () => {
  it('retries the 503, widens the empty lookup once, reconciles the timed-out charge and never charges twice', async () => {
    const m = memory();
    const run = await runInvoiceAgent({ tracer: m.tracer });
    expect(run.steps).toEqual([
      { tool: 'lookup_customer', ok: false, decision: 'corrected_retry' },
      { tool: 'lookup_customer', ok: true, decision: 'proceed' },
      { tool: 'charge_card', ok: false, decision: 'fail_reconcile', reconcile: 'committed' },
      { tool: 'charge_card', ok: true, decision: 'proceed', deduplicated: true },
    ]);
    expect(run.charges).toBe(1);
    expect(run.outcome).toBe('escalated');
    const lookupAttempts = m.spans().filter((s) => s.name === 'guardtrace.attempt' && s.attributes['gen_ai.tool.name'] === 'lookup_customer');
    expect(lookupAttempts.map((a) => [a.attributes['guardtrace.decision'], a.attributes['error.type']])).toEqual([
      ['retry_backoff', '503'],
      ['corrected_retry', 'FeedbackRequired'],
      ['proceed', undefined],
    ]);
    const charge = m.spans().find((s) => s.name === 'guardtrace.attempt' && s.attributes['guardtrace.decision'] === 'fail_reconcile');
    expect(charge?.attributes).toMatchObject({ 'guardtrace.failure.class': 'uncertain_side_effect', 'error.type': 'ETIMEDOUT' });
  }, 120_000);
});

/** The attempts of an example run as [tool, failure class, decision], in order. */
const attemptsOf = (spans: ReturnType<ReturnType<typeof memory>['spans']>) =>
  spans.filter((s) => s.name === 'guardtrace.attempt').map((a) => [a.attributes['gen_ai.tool.name'], a.attributes['guardtrace.failure.class'], a.attributes['guardtrace.decision']]);
const EXAMPLE_ATTEMPTS = [
  ['get_weather', 'invalid_arguments', 'reject_with_feedback'],
  ['get_weather', undefined, 'proceed'],
  ['get_forecast', 'unknown_tool', 'reject_with_feedback'],
  ['get_time', undefined, 'proceed'],
  ['book_table', 'transient', 'retry_backoff'],
  ['book_table', undefined, 'proceed'],
];

describe('openai-agents example', () => {
  it('corrects the weather call, continues the unknown tool with get_time, retries the 503, all in the group id session', async () => {
    const m = memory();
    const run = await runAgentsExample({ tracer: m.tracer });
    expect(run.sessionId).toBe('conv_lunch_paris');
    // the turns after the rejected weather call and the unknown tool, 110 tokens each
    expect(run.repairTokens).toBe(220);
    expect(run.outcome).toBe('success');
    expect(run.steps.map((s) => s.tool)).toEqual(['get_weather', 'get_weather', 'get_forecast', 'get_time', 'book_table']);
    expect(run.steps[0]?.output).toContain('Unexpected field: "town" (did you mean "city"?)');
    expect(run.steps[2]?.output).toContain('Valid tools (closest first):');
    expect(run.executed).toEqual(['get_weather Paris', 'get_time Paris', 'book_table Chez Nous', 'book_table Chez Nous']);
    expect(attemptsOf(m.spans())).toEqual(EXAMPLE_ATTEMPTS);
    expect(m.spans().every((s) => s.attributes['gen_ai.conversation.id'] === 'conv_lunch_paris')).toBe(true);
  });
});

describe('langchain example', () => {
  it('feeds back error ToolMessages, continues the unknown tool with get_time, retries the 503, all in the thread session', async () => {
    const m = memory();
    const run = await runLangChainExample({ tracer: m.tracer });
    expect(run.outcome).toBe('success');
    expect(run.steps.map((s) => [s.tool, s.status])).toEqual([
      ['get_weather', 'error'],
      ['get_weather', 'success'],
      ['get_forecast', 'error'],
      ['get_time', 'success'],
      ['book_table', 'success'],
    ]);
    expect(run.steps[2]?.content).toContain('- get_time');
    expect(run.executed).toEqual(['get_weather Paris', 'get_time Paris', 'book_table Chez Nous', 'book_table Chez Nous']);
    expect(attemptsOf(m.spans())).toEqual(EXAMPLE_ATTEMPTS);
    expect(m.spans().every((s) => s.attributes['gen_ai.conversation.id'] === 'thread_lunch_paris')).toBe(true);
  });
});
