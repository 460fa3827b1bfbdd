/**
 * OpenTelemetry's own conventions from other emitters: GenAI guardrail spans (no JS emitter yet:
 * written through the same OTel SDK in the shapes of the proposals, cited per case), error status
 * and exception events, error.type.
 */
import { type Attributes, context, SpanStatusCode, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { conventionsSuite, exportingTracerTo, totalsAgree } from './conventions-support.ts';
import { type Env, hex } from './helpers.ts';

let env: Env;
let url: string;
conventionsSuite((s) => {
  ({ env, url } = s);
});
const exportingTracer = (service: string) => exportingTracerTo(env, url, service);
const expectTotalsAgree = (sessionId: string) => totalsAgree(env, sessionId);

describe('OpenTelemetry GenAI guardrails (proposals; no JS emitter yet)', () => {
  it('stores deny and passed=false decisions as failed checks with their reason and violations', async () => {
    const sessionId = `guard_${hex(6)}`;
    const { tracer, done } = exportingTracer('guarded-agent');
    const c = { 'gen_ai.conversation.id': sessionId };
    const root = tracer.startSpan('invoke_agent support', { attributes: { ...c, 'gen_ai.operation.name': 'invoke_agent' } });
    const under = trace.setSpan(context.active(), root);
    const guard = (name: string, attributes: Attributes, findings: Attributes[] = []) => {
      const s = tracer.startSpan(name, { attributes: { ...c, ...attributes } }, under);
      for (const f of findings) s.addEvent(f['gen_ai.guardrail.security.risk.category'] ? 'gen_ai.guardrail.security.finding' : 'gen_ai.security.finding', f);
      s.end();
    };
    // semconv-genai#427: run_guardrail, gen_ai.guardrail.component.name / verdict.type / verdict.reason / action.type.
    guard('run_guardrail pii_filter', {
      'gen_ai.operation.name': 'run_guardrail',
      'gen_ai.guardrail.component.name': 'pii_filter',
      'gen_ai.guardrail.target.type': 'input',
      'gen_ai.guardrail.verdict.type': 'deny',
      'gen_ai.guardrail.verdict.reason': 'email address in input',
      'gen_ai.guardrail.action.type': 'block',
    });
    guard('run_guardrail jailbreak', { 'gen_ai.operation.name': 'run_guardrail', 'gen_ai.guardrail.component.name': 'jailbreak', 'gen_ai.guardrail.verdict.type': 'allow' });
    // The security guardian prototype: apply_guardrail, gen_ai.security.decision.type and gen_ai.security.finding events.
    guard(
      'apply_guardrail Content Filter',
      { 'gen_ai.operation.name': 'apply_guardrail', 'gen_ai.guardian.name': 'Content Filter', 'gen_ai.security.decision.type': 'deny', 'gen_ai.security.decision.reason': 'PII detected in output' },
      [
        { 'gen_ai.security.risk.category': 'sensitive_info_disclosure', 'gen_ai.security.risk.severity': 'high' },
        { 'gen_ai.security.risk.category': 'prompt_injection', 'gen_ai.security.risk.severity': 'medium' },
      ],
    );
    guard('apply_guardrail Topic', { 'gen_ai.operation.name': 'apply_guardrail', 'gen_ai.guardian.name': 'Topic', 'gen_ai.security.decision.type': 'warn' });
    // Keys instrumentations write outside any proposal.
    guard('guardrail toxicity', { 'gen_ai.operation.name': 'apply_guardrail', 'gen_ai.guardrail.name': 'toxicity', 'gen_ai.guardrail.passed': false });
    guard('guardrail policy', { 'gen_ai.operation.name': 'apply_guardrail', 'gen_ai.guardrail.name': 'policy', 'gen_ai.guardrail.decision': 'deny' });
    root.end();
    await done();

    const rows = (await env.sql.query('SELECT guard_name, verdict, reason FROM guard_checks WHERE project_id = $1 AND session_id = $2 ORDER BY guard_name COLLATE "C"', [env.projectId, sessionId])).rows;
    expect(rows).toEqual([
      { guard_name: 'Content Filter', verdict: 'fail', reason: 'PII detected in output (violations: sensitive_info_disclosure: high, prompt_injection: medium)' },
      { guard_name: 'Topic', verdict: 'pass', reason: null },
      { guard_name: 'jailbreak', verdict: 'pass', reason: null },
      { guard_name: 'pii_filter', verdict: 'fail', reason: 'email address in input' },
      { guard_name: 'policy', verdict: 'fail', reason: null },
      { guard_name: 'toxicity', verdict: 'fail', reason: null },
    ]);
  });
});

describe('error status and exception events (OpenTelemetry general conventions)', () => {
  it('become the failure reason of the tool call and the attempt', async () => {
    const sessionId = `err_${hex(6)}`;
    const { tracer, done } = exportingTracer('failing-agent');
    const c = { 'gen_ai.conversation.id': sessionId };
    // A call with its attempts as spans of their own says so, as the SDK does (guardtrace.attempt: attempts used).
    const call = tracer.startSpan('execute_tool read_file', { attributes: { ...c, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'read_file', 'guardtrace.attempt': 1 } });
    const attempt = tracer.startSpan('guardtrace.attempt', { attributes: { ...c, 'gen_ai.operation.name': 'guardtrace.attempt', 'gen_ai.tool.name': 'read_file' } }, trace.setSpan(context.active(), call));
    attempt.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream 503' });
    attempt.end();
    call.recordException(new TypeError("Cannot read properties of undefined (reading 'path')"));
    call.setStatus({ code: SpanStatusCode.ERROR });
    call.end();
    const fine = tracer.startSpan('execute_tool list', { attributes: { ...c, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'list' } });
    // A handled exception on a call that succeeded is no failure reason.
    fine.recordException(new Error('cache miss'));
    fine.end();
    await done();

    const calls = (await env.sql.query('SELECT tool_name, outcome, failure_reason FROM tool_calls WHERE project_id = $1 AND session_id = $2 ORDER BY tool_name', [env.projectId, sessionId])).rows;
    expect(calls).toEqual([
      { tool_name: 'list', outcome: 'success', failure_reason: null },
      { tool_name: 'read_file', outcome: 'failed', failure_reason: "TypeError: Cannot read properties of undefined (reading 'path')" },
    ]);
    const atts = (await env.sql.query('SELECT tool_name, outcome, failure_reason, error_type FROM attempts WHERE project_id = $1 AND session_id = $2 ORDER BY tool_name', [env.projectId, sessionId])).rows;
    expect(atts).toEqual([
      // The call without attempt spans of its own: its one implied attempt, and no failure reason from a handled exception.
      { tool_name: 'list', outcome: 'success', failure_reason: null, error_type: null },
      { tool_name: 'read_file', outcome: 'failed', failure_reason: 'upstream 503', error_type: null },
    ]);
  });

  it('a tool call that reports its failure by error.type alone (no ERROR status) failed, with that class', async () => {
    // The GenAI conventions' execute_tool span: `error.type` is set if and only if the operation ended
    // in an error (its status SHOULD be ERROR too, but an instrumentation may set only error.type).
    const sessionId = `errtype_${hex(6)}`;
    const { tracer, done } = exportingTracer('genai-agent');
    const c = { 'gen_ai.conversation.id': sessionId, 'gen_ai.operation.name': 'execute_tool' };
    const root = tracer.startSpan('invoke_agent support', { attributes: { 'gen_ai.conversation.id': sessionId, 'gen_ai.operation.name': 'invoke_agent' } });
    const under = trace.setSpan(context.active(), root);
    tracer
      .startSpan('execute_tool get_invoice', { attributes: { ...c, 'gen_ai.tool.name': 'get_invoice', 'gen_ai.tool.call.id': 'call_1', 'error.type': 'TimeoutError' } }, under)
      .end();
    tracer.startSpan('execute_tool list_invoices', { attributes: { ...c, 'gen_ai.tool.name': 'list_invoices', 'gen_ai.tool.call.id': 'call_2' } }, under).end();
    root.end();
    await done();

    const calls = (await env.sql.query('SELECT tool_name, outcome, failure_class FROM tool_calls WHERE project_id = $1 AND session_id = $2 ORDER BY tool_name', [env.projectId, sessionId])).rows;
    expect(calls).toEqual([
      { tool_name: 'get_invoice', outcome: 'failed', failure_class: 'transient' },
      { tool_name: 'list_invoices', outcome: 'success', failure_class: null },
    ]);
    const atts = (await env.sql.query('SELECT tool_name, outcome, failure_class, error_type FROM attempts WHERE project_id = $1 AND session_id = $2 ORDER BY tool_name', [env.projectId, sessionId])).rows;
    expect(atts).toEqual([
      { tool_name: 'get_invoice', outcome: 'failed', failure_class: 'transient', error_type: 'TimeoutError' },
      { tool_name: 'list_invoices', outcome: 'success', failure_class: null, error_type: null },
    ]);
    expect(await expectTotalsAgree(sessionId)).toMatchObject({ attempt_count: 2, failed_attempt_count: 1 });
  });
});

describe("LangSmith's OpenTelemetry export (langsmith 0.12, experimental/otel/translator)", () => {
  it('takes the session from the run metadata thread_id, a tool run inputs as its arguments (gen_ai.prompt)', async () => {
    const thread = `thread_${hex(6)}`;
    const { tracer, done } = exportingTracer('langsmith-agent');
    // The translator writes metadata as langsmith.metadata.<key>, inputs and outputs as JSON in gen_ai.prompt / gen_ai.completion.
    const root = tracer.startSpan('AgentExecutor', {
      attributes: { 'langsmith.span.kind': 'chain', 'gen_ai.operation.name': 'chain', 'langsmith.metadata.thread_id': thread, 'gen_ai.prompt': '{"input":"port?"}' },
    });
    const under = trace.setSpan(context.active(), root);
    const chat = tracer.startSpan('ChatOpenAI', {
      attributes: {
        'langsmith.span.kind': 'llm', 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.system': 'openai',
        'gen_ai.usage.input_tokens': 120, 'gen_ai.usage.output_tokens': 15,
        'gen_ai.prompt': '{"messages":[[{"type":"human","content":"port?"}]]}', 'gen_ai.completion': '{"generations":[[{"text":""}]]}',
      },
    }, under);
    chat.end();
    const tool = tracer.startSpan('read_config', {
      attributes: { 'langsmith.span.kind': 'tool', 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'read_config', 'gen_ai.tool.call.id': 'call_1', 'gen_ai.prompt': '{"input":"{\\"path\\":\\"config.yml\\"}"}', 'gen_ai.completion': '{"output":"port: 80"}' },
    }, under);
    tool.end();
    root.end();
    await done();
    const call = (await env.sql.query('SELECT session_id, tool_name, call_id, arguments, outcome FROM tool_calls WHERE project_id = $1 AND session_id = $2', [env.projectId, thread])).rows;
    expect(call).toEqual([{ session_id: thread, tool_name: 'read_config', call_id: 'call_1', arguments: '{"input":"{\\"path\\":\\"config.yml\\"}"}', outcome: 'success' }]);
    const totals = await expectTotalsAgree(thread);
    expect(totals).toMatchObject({ span_count: 3, tool_call_count: 1, model_call_count: 1, input_tokens: '120' });
  });
});
