/** The replay of other instrumentations' content and of large sessions, from stored rows. */
import { describe, expect, it } from 'vitest';
import { getSessionDetail, PREVIEW_CHARS } from '../src/server/queries/session.ts';
import { getPayload } from '../src/server/queries/session-payload.ts';
import { loadSpanFacts } from '../src/server/queries/session-spans.ts';
import type { ToolCallStepDto } from '../src/server/queries/session-types.ts';
import { setupTestDatabase } from './db.ts';
import { seedProject, seedSession, seedSessionRow, spanId } from './factories.ts';
import { at, rawSpan, t0 } from './replay-fixtures.ts';

const db = setupTestDatabase();

describe("replay: other instrumentations' content", () => {
  it('reads the prompt, output and tool result each convention writes, first key present and not empty first', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const s = await seedSession(prisma, project.id, { startedAt: t0, toolCalls: [{ toolName: 't', atMs: 5, attempts: [{ outcome: 'success' }] }] });
    const trace = s.traceId;
    const spans: [string, Record<string, unknown>][] = [
      // Vercel AI SDK: a step that only called tools has no text, so its tool calls are its output.
      ['vercel', { 'ai.prompt.messages': '[{"role":"user","content":"hi"}]', 'ai.response.text': '', 'ai.response.toolCalls': '[{"toolName":"t"}]', 'ai.toolCall.result': '{"ok":1}' }],
      ['openinference', { 'input.value': '{"messages":[]}', 'output.value': '{"generations":[]}' }],
      ['traceloop', { 'traceloop.entity.output': '{"station":"LYN-01"}' }],
      ['genai', { 'gen_ai.input.messages': '[1]', 'input.value': 'no', 'gen_ai.output.messages': '[2]', 'gen_ai.tool.call.result': 'r' }],
      // LangSmith's OpenTelemetry export: a run's inputs and outputs as JSON, whatever its type.
      ['langsmith', { 'gen_ai.prompt': '{"messages":[[{"type":"human","content":"port?"}]]}', 'gen_ai.completion': '{"generations":[[{"text":"80"}]]}' }],
    ];
    const ids = new Map(spans.map(([k]) => [k, spanId()]));
    for (const [i, [k, attrs]] of spans.entries()) await rawSpan(prisma, project.id, s.id, trace, ids.get(k) as string, 100 + i, attrs);
    const facts = new Map((await loadSpanFacts(prisma, project.id, s.id, 200)).map((f) => [f.spanId, f]));
    const of = (k: string) => facts.get(ids.get(k) as string);
    expect(of('vercel')).toMatchObject({ input: { text: '[{"role":"user","content":"hi"}]' }, output: { text: '[{"toolName":"t"}]' }, result: { text: '{"ok":1}' } });
    expect(of('openinference')).toMatchObject({ input: { text: '{"messages":[]}' }, output: { text: '{"generations":[]}' }, result: { text: '{"generations":[]}' } });
    expect(of('traceloop')).toMatchObject({ input: null, output: null, result: { text: '{"station":"LYN-01"}' } });
    expect(of('genai')).toMatchObject({ input: { text: '[1]' }, output: { text: '[2]' }, result: { text: 'r' } });
    expect(of('langsmith')).toMatchObject({
      input: { text: '{"messages":[[{"type":"human","content":"port?"}]]}' },
      output: { text: '{"generations":[[{"text":"80"}]]}' },
      result: { text: '{"generations":[[{"text":"80"}]]}' },
    });
    const payload = (kind: 'input' | 'output' | 'result', k: string) => getPayload(prisma, project.id, s.id, { kind, traceId: trace, spanId: ids.get(k) as string, full: true });
    expect((await payload('output', 'vercel'))?.value).toBe('[{"toolName":"t"}]');
    expect((await payload('result', 'traceloop'))?.value).toBe('{"station":"LYN-01"}');
    expect((await payload('input', 'openinference'))?.value).toBe('{"messages":[]}');
  });

  it("reads older GenAI conventions' content: OpenLLMetry's indexed gen_ai.prompt.{i}.* attributes and the gen_ai.content.* events", async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const s = await seedSession(prisma, project.id, { startedAt: t0, toolCalls: [{ toolName: 't', atMs: 5, attempts: [{ outcome: 'success' }] }] });
    const trace = s.traceId;
    const [indexed, events, none] = [spanId(), spanId(), spanId()];
    // OpenLLMetry before the GenAI message attributes (its Python instrumentations, its JS ones before 0.25).
    await rawSpan(prisma, project.id, s.id, trace, indexed, 100, {
      'gen_ai.operation.name': 'chat',
      'gen_ai.prompt.0.role': 'system',
      'gen_ai.prompt.0.content': 'You answer weather questions.',
      'gen_ai.prompt.1.role': 'user',
      'gen_ai.prompt.1.content': 'Weather in Lyon?',
      'gen_ai.completion.0.role': 'assistant',
      'gen_ai.completion.0.content': 'Light rain.',
      'gen_ai.completion.0.finish_reason': 'stop',
    });
    // Semantic conventions 1.26-1.27: the content as span events.
    await rawSpan(
      prisma,
      project.id,
      s.id,
      trace,
      events,
      101,
      { 'gen_ai.operation.name': 'chat' },
      {
        events: [
          { name: 'gen_ai.content.prompt', timeUnixNano: '1', attributes: { 'gen_ai.prompt': '[{"role":"user","content":"Weather in Oslo?"}]' } },
          { name: 'gen_ai.content.completion', timeUnixNano: '2', attributes: { 'gen_ai.completion': '[{"role":"assistant","content":"Snow."}]' } },
        ],
      },
    );
    await rawSpan(prisma, project.id, s.id, trace, none, 102, { 'gen_ai.operation.name': 'chat' }, { events: [{ name: 'other', timeUnixNano: '1', attributes: {} }] });
    const facts = new Map((await loadSpanFacts(prisma, project.id, s.id, 2000)).map((f) => [f.spanId, f]));
    const input = JSON.parse(facts.get(indexed)?.input?.text ?? 'null');
    expect(input).toEqual([
      { role: 'system', content: 'You answer weather questions.' },
      { role: 'user', content: 'Weather in Lyon?' },
    ]);
    expect(JSON.parse(facts.get(indexed)?.output?.text ?? 'null')).toEqual([{ role: 'assistant', content: 'Light rain.', finish_reason: 'stop' }]);
    expect(facts.get(events)).toMatchObject({ input: { text: '[{"role":"user","content":"Weather in Oslo?"}]' }, output: { text: '[{"role":"assistant","content":"Snow."}]' } });
    expect(facts.get(none)).toMatchObject({ input: null, output: null, result: null });
    const payload = (kind: 'input' | 'output', id: string) => getPayload(prisma, project.id, s.id, { kind, traceId: trace, spanId: id, full: true });
    expect(JSON.parse((await payload('input', indexed))?.value ?? 'null')).toEqual(input);
    expect((await payload('output', events))?.value).toBe('[{"role":"assistant","content":"Snow."}]');
  });

  it("reads a model call's GenAI events kept from its log records (genai_events): per-message events in time then arrival order, and the 1.37 operation-details event", async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const s = await seedSession(prisma, project.id, { startedAt: t0, toolCalls: [{ toolName: 't', atMs: 5, attempts: [{ outcome: 'success' }] }] });
    const trace = s.traceId;
    const [messages, details, notModel, own] = [spanId(), spanId(), spanId(), spanId()];
    for (const [i, id] of [messages, details, notModel, own].entries()) {
      await rawSpan(prisma, project.id, s.id, trace, id, 100 + i, id === own ? { 'gen_ai.input.messages': '["own"]' } : { 'gen_ai.operation.name': 'chat' });
    }
    await prisma.span.updateMany({ where: { projectId: project.id, spanId: { in: [messages, details, own] } }, data: { role: 'model_call' } });
    const t = 1_000n;
    const event = (span: string, eventName: string, timeUnixNano: bigint, body: unknown, attributes: Record<string, unknown> = {}) => ({
      projectId: project.id,
      traceId: trace,
      spanId: span,
      recordKey: `${span}-${eventName}-${timeUnixNano}`,
      eventName,
      timeUnixNano,
      time: t0,
      body: body as object,
      attributes: attributes as object,
    });
    // Stored one by one, the choice first (its logs export came first): read by time, then arrival.
    for (const e of [
      event(messages, 'gen_ai.choice', t + 5n, { index: 0, finish_reason: 'stop', message: { content: 'Cloudy.' } }),
      event(messages, 'gen_ai.system.message', t, { content: 'Be brief.' }),
      event(messages, 'gen_ai.user.message', t, { content: 'Weather?' }),
      event(messages, 'gen_ai.assistant.message', t, { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'w', arguments: '{}' } }] }),
      event(messages, 'gen_ai.tool.message', t, { id: 'c1', content: '14C' }),
      event(details, 'gen_ai.client.inference.operation.details', t, null, {
        'gen_ai.system_instructions': [{ type: 'text', content: 'Be brief.' }],
        'gen_ai.input.messages': [{ role: 'user', parts: [{ type: 'text', content: 'Rain?' }] }],
        'gen_ai.output.messages': [{ role: 'assistant', parts: [{ type: 'text', content: 'No.' }], finish_reason: 'stop' }],
      }),
      event(notModel, 'gen_ai.user.message', t, { content: 'not a model call span' }),
      event(own, 'gen_ai.user.message', t, { content: 'the span has its own' }),
    ]) {
      await prisma.genAiEvent.create({ data: e });
    }
    const facts = new Map((await loadSpanFacts(prisma, project.id, s.id, 2000)).map((f) => [f.spanId, f]));
    const json = (id: string, k: 'input' | 'output') => JSON.parse(facts.get(id)?.[k]?.text ?? 'null');
    expect(json(messages, 'input')).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'w', arguments: '{}' } }] },
      { role: 'tool', id: 'c1', content: '14C' },
    ]);
    expect(json(messages, 'output')).toEqual([{ index: 0, finish_reason: 'stop', message: { content: 'Cloudy.' } }]);
    expect(json(details, 'input')).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
      { role: 'user', parts: [{ type: 'text', content: 'Rain?' }] },
    ]);
    expect(json(details, 'output')).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'No.' }], finish_reason: 'stop' }]);
    expect(facts.get(notModel)).toMatchObject({ input: null, output: null });
    expect(json(own, 'input')).toEqual(['own']);
    const payload = await getPayload(prisma, project.id, s.id, { kind: 'output', traceId: trace, spanId: details, full: true });
    expect(JSON.parse(payload?.value ?? 'null')).toEqual(json(details, 'output'));
  });
});

describe('replay: large sessions and other instrumentations', () => {
  it('loads a 5,000-span session whole: every tool call, attempt and model call, no cap', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const sessionId = `big-${spanId()}`;
    const trace = spanId() + spanId();
    const base = { projectId: project.id, traceId: trace, sessionId };
    const calls = 1250;
    const toolIds = Array.from({ length: calls }, () => spanId());
    await prisma.toolCall.createMany({
      data: toolIds.map((id, i) => ({ ...base, spanId: id, toolName: `tool_${i}`, startedAt: at(i * 10), durationMs: 5 })),
    });
    await prisma.attempt.createMany({
      data: toolIds.flatMap((id, i) => [
        { ...base, spanId: spanId(), toolCallSpanId: id, number: 1, startedAt: at(i * 10), durationMs: 1, outcome: 'rejected', failureClass: 'invalid_arguments' },
        { ...base, spanId: spanId(), toolCallSpanId: id, number: 2, startedAt: at(i * 10 + 2), durationMs: 1, outcome: 'success' },
      ]),
    });
    await prisma.modelCall.createMany({
      data: toolIds.map((_, i) => ({ ...base, spanId: spanId(), startedAt: at(i * 10 + 1), durationMs: 1, inputTokens: 10, outputTokens: 1 })),
    });
    // The session row as the collector writes it (the page reads its totals from there).
    await seedSessionRow(prisma, project.id, sessionId, { toolCallCount: calls, attemptCount: 2 * calls, spanCount: 4 * calls });
    const detail = await getSessionDetail(prisma, project.id, sessionId);
    const tools = detail!.steps.filter((x): x is ToolCallStepDto => x.kind === 'tool');
    expect(tools).toHaveLength(calls);
    expect(tools.flatMap((t) => t.attempts)).toHaveLength(2 * calls);
    expect(detail!.steps.filter((x) => x.kind === 'model')).toHaveLength(calls);
    expect(detail!.steps.at(-1)!.step).toBe(2 * calls);
    expect(detail!.session.attemptCount).toBe(2 * calls);
  });

  it('reads the steps without guard-check spans and shows exactly what a read of every span shows', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const sessionId = `guarded-${spanId()}`;
    const trace = spanId() + spanId();
    const [root, tool, attempt, guard, query, model, guardrail] = Array.from({ length: 7 }, () => spanId());
    // A span as the collector stores it: `role` names the row made of it. Times in microseconds from t0.
    const span = (id: string, parent: string | null, us: number, name: string, role: string | null, attributes: object = {}) => {
      const startNs = BigInt(t0.getTime()) * 1_000_000n + BigInt(us) * 1_000n;
      return prisma.span.create({
        data: { projectId: project.id, startTime: new Date(t0.getTime() + Math.floor(us / 1000)), traceStart: t0, traceId: trace, spanId: id, parentSpanId: parent, sessionId, name, role, startTimeUnixNano: startNs, endTimeUnixNano: startNs + 500_000n, attributes },
      });
    };
    const base = { projectId: project.id, traceId: trace, sessionId };
    await span(root!, null, 0, 'invoke_agent planner', null, { 'gen_ai.operation.name': 'invoke_agent' });
    await span(tool!, root!, 10_000, 'execute_tool lookup', 'tool_call');
    await prisma.toolCall.create({ data: { ...base, spanId: tool!, toolName: 'lookup', startedAt: at(10), durationMs: 2, outcome: 'success', attempts: 1 } });
    await span(attempt!, tool!, 10_100, 'guardtrace.attempt', 'attempt');
    await prisma.attempt.create({ data: { ...base, spanId: attempt!, toolCallSpanId: tool!, toolName: 'lookup', number: 1, startedAt: at(10), durationMs: 1, outcome: 'success' } });
    // The SDK's guard check under its attempt, and a database query its precondition ran (raw).
    await span(guard!, attempt!, 10_200, 'apply_guardrail exists', 'guard_check');
    await prisma.guardCheck.create({ data: { ...base, spanId: guard!, attemptSpanId: attempt!, guardName: 'exists', stage: 'precondition', verdict: 'pass', startedAt: at(10), durationUs: 300 } });
    await span(query!, guard!, 10_300, 'SELECT accounts', null);
    // Another instrumentation's guardrail outside any attempt, in the same millisecond as a model
    // turn that started 600 µs before it: only the spans' nanoseconds order the two.
    await span(model!, root!, 20_100, 'chat gpt-test', 'model_call');
    await prisma.modelCall.create({ data: { ...base, spanId: model!, parentSpanId: root!, model: 'gpt-test', startedAt: at(20), durationMs: 1, inputTokens: 5, outputTokens: 1 } });
    await span(guardrail!, root!, 20_700, 'apply_guardrail moderation', 'guard_check');
    await prisma.guardCheck.create({ data: { ...base, spanId: guardrail!, attemptSpanId: root!, guardName: 'moderation', verdict: 'fail', reason: 'flagged', startedAt: at(20), durationUs: 200 } });
    await seedSessionRow(prisma, project.id, sessionId, { spanCount: 7, toolCallCount: 1, attemptCount: 1, modelCallCount: 1 });

    const unread = (await loadSpanFacts(prisma, project.id, sessionId, PREVIEW_CHARS, { withoutGuardChecks: true })).map((s) => s.spanId);
    expect(unread.sort()).toEqual([root, tool, attempt, query, model].sort());
    const full = await getSessionDetail(prisma, project.id, sessionId);
    const stepsOnly = await getSessionDetail(prisma, project.id, sessionId, { spanTree: false });
    expect(stepsOnly!.steps).toEqual(full!.steps);
    expect(stepsOnly!.escalations).toEqual(full!.escalations);
    expect(full!.steps.map((x) => [x.kind, x.spanId])).toEqual([
      ['tool', tool],
      ['span', query],
      ['model', model],
      ['guard', guardrail],
    ]);
    // The query sits under the guard check, under its attempt, under the tool call.
    expect(full!.steps.find((x) => x.spanId === query)).toMatchObject({ kind: 'span', depth: 3 });
  });

  it('builds the span tree depth first with events and links counted, and serves resource, events and links on demand', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const sessionId = `otel-${spanId()}`;
    const trace = spanId() + spanId();
    const [root, child, grandchild, sibling] = [spanId(), spanId(), spanId(), spanId()];
    const exception = { name: 'exception', timeUnixNano: '1', attributes: { 'exception.type': 'TypeError', 'exception.message': 'boom', 'exception.stacktrace': 'TypeError: boom\n    at run (agent.ts:3:9)' } };
    await rawSpan(prisma, project.id, sessionId, trace, root!, 0, { 'gen_ai.operation.name': 'invoke_agent' });
    await rawSpan(prisma, project.id, sessionId, trace, sibling!, 300, {}, { parentSpanId: root });
    await rawSpan(prisma, project.id, sessionId, trace, child!, 100, {}, { parentSpanId: root, events: [exception], links: [{ traceId: trace, spanId: sibling }], resource: { 'service.name': 'weather-agent' } });
    await rawSpan(prisma, project.id, sessionId, trace, grandchild!, 200, {}, { parentSpanId: child });
    await seedSessionRow(prisma, project.id, sessionId, { spanCount: 4 });

    const detail = await getSessionDetail(prisma, project.id, sessionId);
    expect(detail!.spanTree.map((n) => [n.spanId, n.depth])).toEqual([
      [root, 0],
      [child, 1],
      [grandchild, 2],
      [sibling, 1],
    ]);
    expect(detail!.spanTree[1]).toMatchObject({ eventCount: 1, linkCount: 1 });
    const stored = await getPayload(prisma, project.id, sessionId, { kind: 'span', traceId: trace, spanId: child!, full: true });
    const span = JSON.parse(stored!.value);
    expect(span.resource).toEqual({ 'service.name': 'weather-agent' });
    expect(span.events[0].attributes['exception.stacktrace']).toContain('agent.ts:3:9');
    expect(span.links).toEqual([{ traceId: trace, spanId: sibling }]);
  });
});
