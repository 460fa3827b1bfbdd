import { describe, expect, it } from 'vitest';
import type { Attributes, NormSpan, SpanEvent } from '../span.ts';
import { testSpan } from '../test-span.ts';
import { classify, interpret, sessionId } from './index.ts';

const span = testSpan;

const event = (name: string, attributes: Attributes): SpanEvent => ({ timeUnixNano: '1', name, attributes });

describe('classify', () => {
  it('decides by operation name, then span kinds, then names, then usage', () => {
    expect(classify(span('x', { 'gen_ai.operation.name': 'guardtrace.attempt' }))).toBe('attempt');
    expect(classify(span('x', { 'gen_ai.operation.name': 'run_guardrail' }))).toBe('guard_check');
    expect(classify(span('x', { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.usage.input_tokens': 9 }))).toBeNull();
    expect(classify(span('x', { 'openinference.span.kind': 'CHAIN', 'llm.token_count.prompt': 9 }))).toBeNull();
    expect(classify(span('x', { 'openinference.span.kind': 'GUARDRAIL' }))).toBe('guard_check');
    expect(classify(span('x', { 'traceloop.span.kind': 'tool' }))).toBe('tool_call');
    expect(classify(span('guardtrace.attempt', {}))).toBe('attempt');
    expect(classify(span('run_guardrail pii', {}))).toBe('guard_check');
    expect(classify(span('ai.toolCall', { 'ai.operationId': 'ai.toolCall' }))).toBe('tool_call');
    // The AI SDK's outer spans sum their steps; the steps are the model calls.
    expect(classify(span('ai.generateText', { 'ai.operationId': 'ai.generateText', 'ai.usage.inputTokens': 9 }))).toBeNull();
    expect(classify(span('ai.generateText.doGenerate', { 'ai.operationId': 'ai.generateText.doGenerate', 'ai.usage.inputTokens': 9 }))).toBe('model_call');
    expect(classify(span('openai.completion', { 'gen_ai.usage.prompt_tokens': 9 }))).toBe('model_call');
    expect(classify(span('http GET', {}))).toBeNull();
  });

  it("derives no row from another instrumentation's span that a Guardtrace span records too (guardtrace.recorded_as)", () => {
    // guardedAiSdk beside the AI SDK's own telemetry: execute_tool and chat are the rows
    const marked = { 'guardtrace.recorded_as': 'execute_tool' };
    expect(classify(span('ai.toolCall', { 'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': 'get_weather', ...marked }))).toBeNull();
    expect(classify(span('ai.generateText.doGenerate', { 'ai.operationId': 'ai.generateText.doGenerate', 'ai.usage.inputTokens': 9, 'gen_ai.usage.input_tokens': 9, 'guardtrace.recorded_as': 'chat' }))).toBeNull();
    expect(interpret(span('ai.toolCall', { 'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': 'get_weather', ...marked }))).toBeNull();
  });

  it("derives no row from OpenInference's TOOL span of a LangChain run guardLangChainTools marked in its metadata, only of the tool it names", () => {
    const tool = (name: string, metadata: string) => span(name, { 'openinference.span.kind': 'TOOL', 'tool.name': name, metadata });
    const runOf = (name: string) => JSON.stringify({ thread_id: 't1', 'guardtrace.recorded_as': 'execute_tool', 'guardtrace.recorded_tool': name });
    expect(classify(tool('get_weather', runOf('get_weather')))).toBeNull();
    // a tool the guarded tool calls inherits the metadata: its own span still counts
    expect(classify(tool('geocode', runOf('get_weather')))).toBe('tool_call');
    // unmarked, malformed or another value: a tool call as before
    expect(classify(tool('get_weather', JSON.stringify({ thread_id: 't1' })))).toBe('tool_call');
    expect(classify(tool('get_weather', '{"guardtrace.recorded_as": broken'))).toBe('tool_call');
    expect(classify(tool('get_weather', JSON.stringify({ 'guardtrace.recorded_as': 'chat', 'guardtrace.recorded_tool': 'get_weather' })))).toBe('tool_call');
    // an LLM span under it (inherited metadata) is still a model call
    expect(classify(span('ChatOpenAI', { 'openinference.span.kind': 'LLM', 'llm.token_count.prompt': 9, metadata: runOf('get_weather') }))).toBe('model_call');
  });
});

describe('sessionId', () => {
  it("takes the GenAI conversation id first, the Vercel AI SDK's metadata last", () => {
    expect(sessionId(span('x', { 'ai.telemetry.metadata.sessionId': 'v', 'session.id': 'oi' }))).toBe('oi');
    expect(sessionId(span('x', { 'ai.telemetry.metadata.sessionId': 'v' }))).toBe('v');
    expect(sessionId(span('x', { 'ai.telemetry.metadata.sessionId': 'v' }, { resource: { 'gen_ai.conversation.id': 'r' } }))).toBe('r');
    expect(sessionId(span('x', { 'ai.telemetry.metadata.sessionId': '' }))).toBeNull();
  });
});

describe('guardrail verdicts', () => {
  const verdict = (attrs: Attributes, statusCode = 0) => interpret(span('x', { 'gen_ai.operation.name': 'apply_guardrail', ...attrs }, { statusCode }))?.verdict;
  it('fail on deny, block or passed=false in any of the shapes; pass on the other decisions', () => {
    expect(verdict({ 'gen_ai.guardrail.verdict.type': 'deny' })).toBe('fail');
    expect(verdict({ 'gen_ai.guardrail.verdict.type': 'allow', 'gen_ai.guardrail.action.type': 'block' })).toBe('fail');
    expect(verdict({ 'gen_ai.security.decision.type': 'DENY' })).toBe('fail');
    expect(verdict({ 'gen_ai.guardrail.decision': 'deny' })).toBe('fail');
    expect(verdict({ 'gen_ai.guardrail.passed': false })).toBe('fail');
    expect(verdict({ 'gen_ai.guardrail.passed': 'false' })).toBe('fail');
    for (const d of ['allow', 'warn', 'modify', 'audit']) expect(verdict({ 'gen_ai.security.decision.type': d })).toBe('pass');
    expect(verdict({ 'gen_ai.guardrail.passed': true })).toBe('pass');
    // Guardtrace's own verdict wins; without any decision the status decides.
    expect(verdict({ 'gen_ai.guardrail.verdict': 'pass', 'gen_ai.guardrail.decision': 'deny' })).toBe('pass');
    expect(verdict({}, 2)).toBe('fail');
    expect(verdict({})).toBe('pass');
  });

  it("read the reason, and the findings' categories as violations", () => {
    const m = interpret(
      span('run_guardrail tool_guard', { 'gen_ai.operation.name': 'run_guardrail', 'gen_ai.guardrail.verdict.type': 'deny', 'gen_ai.guardrail.security.risk.category': 'excessive_agency' }),
    );
    expect(m).toMatchObject({ guardName: 'tool_guard', verdict: 'fail', reason: 'violation: excessive_agency' });
    const withEvents = interpret(
      span('apply_guardrail g', { 'gen_ai.operation.name': 'apply_guardrail', 'gen_ai.security.decision.type': 'deny' }, {
        events: [event('gen_ai.guardrail.security.finding', { 'gen_ai.guardrail.security.risk.category': 'pii' }), event('other', { 'gen_ai.security.risk.category': 'ignored' })],
      }),
    );
    expect(withEvents?.reason).toBe('violations: pii');
  });
});

describe('failure reasons', () => {
  const failedCall = (more: Partial<NormSpan>) => interpret(span('execute_tool t', { 'gen_ai.operation.name': 'execute_tool' }, { statusCode: 2, ...more }));
  it('come from the last exception event, else the status message', () => {
    const events = [
      event('exception', { 'exception.type': 'Error', 'exception.message': 'first' }),
      event('retry', {}),
      event('exception', { 'exception.type': 'TimeoutError', 'exception.message': 'took 30 s' }),
    ];
    expect(failedCall({ events, statusMessage: 'status text' })?.failureReason).toBe('TimeoutError: took 30 s');
    expect(failedCall({ events: [event('exception', { 'exception.type': 'AbortError' })] })?.failureReason).toBe('AbortError');
    expect(failedCall({ statusMessage: 'status text' })?.failureReason).toBe('status text');
    expect(failedCall({ statusMessage: '' })?.failureReason).toBeNull();
    const attempt = interpret(span('guardtrace.attempt', {}, { statusCode: 2, events }));
    expect(attempt).toMatchObject({ outcome: 'failed', errorType: 'TimeoutError', failureReason: 'TimeoutError: took 30 s' });
  });
});

describe('Vercel AI SDK refused tool calls', () => {
  // The shape ai 6.0.325 records in `ai.prompt.messages` of the step after a refused call
  // (recorded from a real generateText run; test/conventions-ai-sdk.test.ts runs it live).
  const assistant = {
    role: 'assistant',
    content: [
      { type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: { town: 'Paris' } },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'wether', input: { city: 'Paris' } },
      { type: 'tool-call', toolCallId: 'c3', toolName: 'weather', input: { city: 'Oslo' } },
    ],
  };
  const results = {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'c1', toolName: 'weather', output: { type: 'error-text', value: 'Invalid input for tool weather: Type validation failed: ...' } },
      { type: 'tool-result', toolCallId: 'c2', toolName: 'wether', output: { type: 'error-text', value: "Model tried to call unavailable tool 'wether'. Available tools: weather." } },
      // A tool whose execute threw: it has an ai.toolCall span of its own.
      { type: 'tool-result', toolCallId: 'c3', toolName: 'weather', output: { type: 'error-text', value: 'upstream 503' } },
    ],
  };
  const step = (messages: unknown[] | string) =>
    span('ai.generateText.doGenerate', {
      'ai.operationId': 'ai.generateText.doGenerate',
      'ai.usage.inputTokens': 10,
      'ai.prompt.messages': typeof messages === 'string' ? messages : JSON.stringify(messages),
    });

  it('become rejected calls with their class, arguments and the SDK text, under stable ids', () => {
    const s = step([{ role: 'user', content: [] }, assistant, results]);
    const rejected = interpret(s)?.implied;
    const common = { toolCallSpanId: null, outcome: 'rejected', errorType: null };
    expect(rejected?.map(({ spanId: _, ...r }) => r)).toEqual([
      { ...common, toolName: 'weather', callId: 'c1', arguments: '{"town":"Paris"}', failureClass: 'invalid_arguments', reason: 'Invalid input for tool weather: Type validation failed: ...' },
      { ...common, toolName: 'wether', callId: 'c2', arguments: '{"city":"Paris"}', failureClass: 'unknown_tool', reason: "Model tried to call unavailable tool 'wether'. Available tools: weather." },
    ]);
    expect(rejected?.every((r) => /^[0-9a-f]{16}$/.test(r.spanId))).toBe(true);
    expect(interpret(s)?.implied?.map((r) => r.spanId)).toEqual(rejected?.map((r) => r.spanId));
  });

  it('are read once: on the step right after them, not again from later steps', () => {
    const later = step([{ role: 'user', content: [] }, assistant, results, { role: 'assistant', content: [{ type: 'text', text: 'sorry' }] }, { role: 'user', content: [] }]);
    expect(interpret(later)?.implied).toBeNull();
  });

  it('are skipped when the messages are truncated or not the SDK shape', () => {
    const json = JSON.stringify([assistant, results]);
    expect(interpret(step(`${json.slice(0, 200)}…[TRUNCATED:900 chars]`))?.implied).toBeNull();
    expect(interpret(step('{"error-text":1}'))?.implied).toBeNull();
    // Hostile shapes: wrong types anywhere, and nesting deeper than JSON.parse can take.
    const odd = [null, 5, { role: 'assistant', content: 'x' }, { role: 'tool', content: [null, 7, { type: 'tool-result', output: 'error-text' }, { type: 'tool-result', output: { type: 'error-text', value: 9 } }] }];
    expect(interpret(step(odd))?.implied).toBeNull();
    const deep = `${'['.repeat(200_000)}"error-text"${']'.repeat(200_000)}`;
    expect(interpret(step(deep))?.implied).toBeNull();
  });
});

describe("another instrumentation's tool call", () => {
  const failed = { statusCode: 2, statusMessage: 'boom' };
  const shapes: [string, string, Attributes][] = [
    ['OpenTelemetry GenAI', 'execute_tool search', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search' }],
    ['Vercel AI SDK', 'ai.toolCall', { 'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': 'search' }],
    ['OpenInference', 'search', { 'openinference.span.kind': 'TOOL', 'tool.name': 'search' }],
    ['OpenLLMetry', 'search.tool', { 'traceloop.span.kind': 'tool', 'traceloop.entity.name': 'search' }],
  ];
  it.each(shapes)('%s: implies its one attempt, failed with tool_error when it failed, success otherwise', (_, name, attrs) => {
    const bad = span(name, attrs, failed);
    const m = interpret(bad);
    expect(m?.role).toBe('tool_call');
    expect(m?.failureClass).toBe('tool_error');
    const [own, ...more] = m?.implied ?? [];
    expect(more).toEqual([]);
    expect(own).toMatchObject({ toolCallSpanId: bad.spanId, toolName: 'search', outcome: 'failed', failureClass: 'tool_error', reason: 'boom' });
    expect(own?.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(own?.spanId).not.toBe(bad.spanId);
    const good = interpret(span(name, attrs));
    expect(good?.implied).toEqual([expect.objectContaining({ outcome: 'success', failureClass: null, reason: null })]);
  });

  it("Guardtrace's own calls imply nothing: their attempts are spans of their own", () => {
    const own = span('execute_tool search', { 'gen_ai.operation.name': 'execute_tool', 'guardtrace.attempt': 2, 'guardtrace.outcome': 'failed' }, failed);
    expect(interpret(own)?.implied).toBeNull();
  });

  it('takes a mapped class when the error is recognisable (error.type, exception, status message)', () => {
    const cls = (attrs: Attributes, more: Partial<NormSpan>) => interpret(span('execute_tool t', { 'gen_ai.operation.name': 'execute_tool', ...attrs }, { statusCode: 2, ...more }))?.failureClass;
    expect(cls({ 'error.type': 'TimeoutError' }, {})).toBe('transient');
    expect(cls({}, { statusMessage: 'upstream answered 503' })).toBe('transient');
    expect(cls({}, { events: [event('exception', { 'exception.type': 'Error', 'exception.message': "ENOENT: no such file or directory, open 'a.txt'" })] })).toBe('missing_resource');
    expect(cls({}, { statusMessage: 'Received tool input did not match expected schema' })).toBe('invalid_arguments');
    expect(cls({}, { statusMessage: '401 Unauthorized' })).toBe('fatal');
    expect(cls({}, { statusMessage: 'EACCES: permission denied' })).toBe('guard_violation');
    expect(cls({}, { statusMessage: 'station closed for maintenance' })).toBe('tool_error');
    expect(cls({}, {})).toBe('tool_error');
  });
});

describe('the budget that ran out on an attempt', () => {
  const attempt = (attrs: Attributes) => interpret(span('guardtrace.attempt', { 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': 3, ...attrs }));
  it('is the named one, else the escalation reason when that names a budget, whatever was decided next', () => {
    expect(attempt({ 'guardtrace.budget.exhausted': 'session_retries', 'guardtrace.escalation.reason': 'session_retries' })?.budgetExhausted).toBe('session_retries');
    // An outage handed back to the model after its attempts ran out (the SDK of 2026-12-06 named no budget on it).
    expect(attempt({ 'guardtrace.decision': 'replan', 'guardtrace.escalation.reason': 'attempts_per_call' })?.budgetExhausted).toBe('attempts_per_call');
    expect(attempt({ 'guardtrace.decision': 'escalate_human', 'guardtrace.escalation.reason': 'circuit_breaker' })?.budgetExhausted).toBe('circuit_breaker');
    // Reasons that spend no budget: the class's own retries, a repeat, corrections that stopped progressing.
    for (const reason of ['class_retries', 'repeated_rejection', 'repeated_call', 'no_progress', 'something_new']) {
      expect(attempt({ 'guardtrace.decision': 'escalate_human', 'guardtrace.escalation.reason': reason })?.budgetExhausted).toBeNull();
    }
    expect(attempt({ 'guardtrace.decision': 'retry_backoff' })?.budgetExhausted).toBeNull();
  });
});
