import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { createAgent, createMiddleware, FakeToolCallingModel } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { traced } from '../../test/helpers.ts';
import { Fatal, TransientFailure } from '../errors.ts';
import { GuardtraceEscalation, guardLangChainTools } from './langchain.ts';

function lunchTools(calls: string[]) {
  return [
    tool(
      ({ city }) => {
        calls.push(`get_weather:${city}`);
        return JSON.stringify({ city, sky: 'clear', token: 'sk-proj-abcdefghijklmnopqrstuv' });
      },
      { name: 'get_weather', description: 'Weather for a city', schema: z.object({ city: z.string() }) },
    ),
    tool(
      ({ city }) => {
        calls.push(`get_time:${city}`);
        return `12:00 in ${city}`;
      },
      { name: 'get_time', description: 'Local time in a city', schema: z.object({ city: z.string() }) },
    ),
    // a JSON-schema tool: the schema guard validates with the zod schema made from it
    tool(
      (input) => {
        const { restaurant } = input as { restaurant: string };
        calls.push(`book_table:${restaurant}`);
        if (calls.filter((c) => c.startsWith('book_table')).length === 1) throw new TransientFailure('503 from booking API');
        return `booked ${restaurant}`;
      },
      {
        name: 'book_table',
        description: 'Book a restaurant table',
        schema: { type: 'object', properties: { restaurant: { type: 'string' }, people: { type: 'integer' } }, required: ['restaurant', 'people'], additionalProperties: false },
      },
    ),
  ];
}

const toolMessages = (messages: BaseMessage[]): Record<string, ToolMessage> =>
  Object.fromEntries(messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => [m.tool_call_id, m]));

describe('LangChain guarded tools', () => {
  it("runs the original tool with run metadata saying Guardtrace records it, beside the caller's own", async () => {
    const { gt } = traced();
    const seen: unknown[] = [];
    const lookup = tool(
      (_input: { city: string }, config?: { metadata?: Record<string, unknown> }) => {
        seen.push(config?.metadata);
        return 'ok';
      },
      { name: 'lookup', description: 'Look a city up', schema: z.object({ city: z.string() }) },
    );
    const guarded = guardLangChainTools(gt, [lookup], { agentName: 'a' });
    await guarded.tools[0]?.invoke({ city: 'Lyon' }, { configurable: { thread_id: 't-meta' }, metadata: { team: 'ops' } });
    await guarded.sessions.end('t-meta');
    expect(seen).toEqual([expect.objectContaining({ team: 'ops', 'guardtrace.recorded_as': 'execute_tool', 'guardtrace.recorded_tool': 'lookup' })]);
  });

  it('runs a real createAgent loop: rejected then corrected call, unknown tool continued by the right one, transient retry', async () => {
    const { gt, named } = traced();
    const calls: string[] = [];
    const guarded = guardLangChainTools(gt, lunchTools(calls), { agentName: 'concierge', meta: { get_weather: { flags: { readOnly: true } } } });
    const model = new FakeToolCallingModel({
      toolCalls: [
        [{ name: 'get_weather', args: { town: 'Paris' }, id: 'call_1' }],
        [{ name: 'get_weather', args: { city: 'Paris' }, id: 'call_2' }],
        [{ name: 'get_forecast', args: { city: 'Paris' }, id: 'call_3' }],
        [{ name: 'get_time', args: { city: 'Paris' }, id: 'call_4' }],
        [{ name: 'book_table', args: { restaurant: 'Chez Nous', people: 2 }, id: 'call_5' }],
        [],
      ],
    });
    const agent = createAgent({ model, tools: guarded.tools, middleware: [guarded.middleware] });
    const result = await agent.invoke({ messages: [new HumanMessage('Plan my lunch in Paris')] }, { configurable: { thread_id: 'thread_9', user_id: 'user_3' } });

    expect(guarded.sessions.find('thread_9')?.userId).toBe('user_3');
    expect(await guarded.sessions.end('thread_9')).toEqual({ thread_9: 'success' });
    expect(calls).toEqual(['get_weather:Paris', 'get_time:Paris', 'book_table:Chez Nous', 'book_table:Chez Nous']);

    const seen = toolMessages(result.messages);
    expect(seen.call_1?.status).toBe('error');
    expect(seen.call_1?.content).toContain('Unexpected field: "town"');
    expect(seen.call_2?.status).toBe('success');
    expect(seen.call_2?.content).toContain('"sky":"clear"');
    expect(seen.call_2?.content).not.toContain('sk-proj-abcdefghijklmnopqrstuv');
    expect(seen.call_3?.status).toBe('error');
    expect(seen.call_3?.content).toContain('Unknown tool "get_forecast"');
    expect(seen.call_3?.content).toMatch(/- get_weather[\s\S]*- get_time|- get_time[\s\S]*- get_weather/);
    expect(seen.call_4?.content).toBe('12:00 in Paris');
    expect(seen.call_5?.content).toBe('booked Chez Nous');
    expect(result.messages.at(-1)).toBeInstanceOf(AIMessage);

    expect(named('execute_tool').map((t) => [t.name, t.attributes['guardtrace.attempt'], t.attributes['guardtrace.outcome']])).toEqual([
      ['execute_tool get_weather', 2, 'success'],
      ['execute_tool get_time', 2, 'success'],
      ['execute_tool book_table', 2, 'success'],
    ]);
    expect(named('guardtrace.attempt').map((a) => [a.attributes['gen_ai.tool.name'], a.attributes['guardtrace.failure.class'], a.attributes['guardtrace.decision']])).toEqual([
      ['get_weather', 'invalid_arguments', 'reject_with_feedback'],
      ['get_weather', undefined, 'proceed'],
      ['get_forecast', 'unknown_tool', 'reject_with_feedback'],
      ['get_time', undefined, 'proceed'],
      ['book_table', 'transient', 'retry_backoff'],
      ['book_table', undefined, 'proceed'],
    ]);
    expect(named('invoke_agent')[0]?.attributes).toMatchObject({ 'gen_ai.conversation.id': 'thread_9', 'guardtrace.user.id': 'user_3' });
    // every model turn is a chat span; the turn after a failed call is recorded as its repair
    const chats = named('chat');
    expect(chats.map((c) => c.attributes['guardtrace.repair.failure_class'])).toEqual([undefined, 'invalid_arguments', undefined, 'unknown_tool', undefined, undefined]);
    expect(chats.every((c) => c.attributes['gen_ai.conversation.id'] === 'thread_9' && c.attributes['gen_ai.request.model'] === 'FakeToolCallingModel')).toBe(true);
  });

  it('ends the createAgent run with GuardtraceEscalation when the policy aborts', async () => {
    const { gt } = traced();
    const drop = tool(
      () => {
        throw new Fatal('credentials revoked');
      },
      { name: 'drop_db', description: 'Drop a database', schema: z.object({ name: z.string() }) },
    );
    const guarded = guardLangChainTools(gt, [drop], { agentName: 'ops' });
    const model = new FakeToolCallingModel({ toolCalls: [[{ name: 'drop_db', args: { name: 'prod' }, id: 'call_1' }], []] });
    const agent = createAgent({ model, tools: guarded.tools, middleware: [guarded.middleware] });
    const err = await agent.invoke({ messages: [new HumanMessage('drop prod')] }, { configurable: { thread_id: 't_ops' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GuardtraceEscalation);
    expect((err as GuardtraceEscalation).result).toMatchObject({ tool: 'drop_db', decision: 'abort', failureClass: 'fatal' });
    expect(await guarded.sessions.end()).toEqual({ t_ops: 'failed' });
  });

  it('an unknown tool named twice escalates out of the middleware and ends the createAgent run', async () => {
    const { gt } = traced();
    const guarded = guardLangChainTools(gt, lunchTools([]), { agentName: 'concierge' });
    const model = new FakeToolCallingModel({
      toolCalls: [[{ name: 'get_forecast', args: { city: 'Paris' }, id: 'c1' }], [{ name: 'get_forecast', args: { city: 'Paris' }, id: 'c2' }], []],
    });
    const agent = createAgent({ model, tools: guarded.tools, middleware: [guarded.middleware] });
    const err = await agent.invoke({ messages: [new HumanMessage('forecast?')] }, { configurable: { thread_id: 't_esc' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GuardtraceEscalation);
    expect((err as GuardtraceEscalation).result).toMatchObject({ tool: 'get_forecast', decision: 'escalate_human', failureClass: 'unknown_tool' });
    expect(await guarded.sessions.end()).toEqual({ t_esc: 'escalated' });
  });

  it('records the model turns\' prompt-cache reads (usage_metadata.input_token_details.cache_read) as cached input', async () => {
    const { gt, named } = traced();
    const guarded = guardLangChainTools(gt, lunchTools([]), { agentName: 'concierge' });
    const model = new FakeToolCallingModel({ toolCalls: [[{ name: 'get_time', args: { city: 'Oslo' }, id: 'call_1' }], []] });
    // the provider's usage, as a chat model integration reports it (input_tokens counts every input type)
    let turn = 0;
    const usage = createMiddleware({
      name: 'ProviderUsage',
      wrapModelCall: async (request, handler) => {
        const response = await handler(request);
        turn += 1;
        response.usage_metadata = { input_tokens: 1200, output_tokens: 30, total_tokens: 1230, input_token_details: turn === 1 ? { cache_read: 1024 } : {} };
        return response;
      },
    });
    const agent = createAgent({ model, tools: guarded.tools, middleware: [guarded.middleware, usage] });
    await agent.invoke({ messages: [new HumanMessage('time in Oslo?')] }, { configurable: { thread_id: 'thread_cached' } });
    await guarded.sessions.end('thread_cached');
    // before: [1200, undefined] twice (the 1,024 cached tokens priced at the full input rate)
    expect(named('chat').map((c) => [c.attributes['gen_ai.usage.input_tokens'], c.attributes['gen_ai.usage.cache_read.input_tokens']])).toEqual([
      [1200, 1024],
      [1200, undefined],
    ]);
  });

  it('works in a hand loop: bindTools on the fake model, ToolMessages back, one session per guard without a thread id', async () => {
    const { gt, named } = traced();
    const calls: string[] = [];
    const guarded = guardLangChainTools(gt, lunchTools(calls), { agentName: 'loop' });
    const byName = new Map(guarded.tools.map((t) => [t.name, t]));
    const model = new FakeToolCallingModel({
      toolCalls: [[{ name: 'get_time', args: { city: 7 }, id: 'c1' }], [{ name: 'get_time', args: { city: 'Oslo' }, id: 'c2' }], []],
    }).bindTools(guarded.tools);
    const messages: BaseMessage[] = [new HumanMessage('time in Oslo?')];
    for (let turn = 0; turn < 5; turn++) {
      const ai = (await model.invoke(messages)) as AIMessage;
      messages.push(ai);
      if (!ai.tool_calls?.length) break;
      for (const tc of ai.tool_calls) messages.push((await byName.get(tc.name)?.invoke({ ...tc, type: 'tool_call' })) as ToolMessage);
    }
    const seen = toolMessages(messages);
    expect(seen.c1?.status).toBe('error');
    expect(seen.c1?.content).toContain('city');
    expect(seen.c2?.content).toBe('12:00 in Oslo');
    expect(calls).toEqual(['get_time:Oslo']);
    const ended = await guarded.sessions.end();
    expect(Object.keys(ended)[0]).toMatch(/^lc_/);
    expect(named('execute_tool get_time')[0]?.attributes['guardtrace.attempt']).toBe(2);
  });

  it('refuses a tool whose schema is neither zod 4 nor JSON schema, naming it', () => {
    const { gt } = traced();
    const odd = tool(() => 'x', { name: 'odd', description: 'x', schema: z.object({ a: z.string() }) });
    Object.defineProperty(odd, 'schema', { value: { _def: { typeName: 'ZodObject' } } });
    expect(() => guardLangChainTools(gt, [odd], { agentName: 'a' })).toThrow('LangChain tool "odd" needs a zod 4 or JSON schema');
  });
});

describe('LangChain auto-repair', () => {
  it('runs a made-up tool name as its one sound correction inside createAgent, and the ToolMessage starts with what was corrected', async () => {
    const { gt, named } = traced();
    const calls: string[] = [];
    const guarded = guardLangChainTools(gt, lunchTools(calls), { agentName: 'concierge', meta: { get_weather: { flags: { readOnly: true } } } });
    const model = new FakeToolCallingModel({ toolCalls: [[{ name: 'get_weathers', args: { city: 'Oslo' }, id: 'call_1' }], []] });
    const agent = createAgent({ model, tools: guarded.tools, middleware: [guarded.middleware] });
    const result = await agent.invoke({ messages: [new HumanMessage('Weather in Oslo?')] }, { configurable: { thread_id: 'thread_ar' } });
    await guarded.sessions.end('thread_ar');

    expect(calls).toEqual(['get_weather:Oslo']);
    const seen = toolMessages(result.messages).call_1;
    expect(seen?.status).toBe('success');
    expect(String(seen?.content)).toMatch(/^Corrected and ran \(use the corrected call next time\):\n- called `get_weather`; `get_weathers` does not exist\n\n\{"city":"Oslo"/);
    // the model turn after it repairs nothing
    expect(named('chat').map((c) => c.attributes['guardtrace.repair.failure_class'])).toEqual([undefined, undefined]);
    expect(named('guardtrace.attempt').map((a) => a.attributes['guardtrace.decision'])).toEqual(['auto_repair', 'proceed']);
  });
});
