import { Agent, Runner, setTraceProcessors, setTracingDisabled, ToolCallError } from '@openai/agents';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { outputsSeen, ScriptedModel } from '../../examples/openai-agents-agent.ts';
import { traced } from '../../test/helpers.ts';
import { Fatal, TransientFailure } from '../errors.ts';
import { GuardtraceEscalation, guardAgentsTools } from './openai-agents.ts';

const weatherDefs = (calls: string[]) => [
  {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: z.object({ city: z.string() }),
    execute: ({ city }: { city: string }) => {
      calls.push(`get_weather:${city}`);
      return { city, sky: 'clear', apiKey: 'sk-proj-abcdefghijklmnopqrstuv' };
    },
  },
  {
    name: 'get_time',
    description: 'Local time in a city',
    parameters: z.object({ city: z.string() }),
    execute: ({ city }: { city: string }) => {
      calls.push(`get_time:${city}`);
      return `12:00 in ${city}`;
    },
  },
  {
    name: 'book_table',
    description: 'Book a restaurant table',
    parameters: z.object({ restaurant: z.string(), people: z.number().int() }),
    execute: ({ restaurant }: { restaurant: string }) => {
      calls.push(`book_table:${restaurant}`);
      if (calls.filter((c) => c.startsWith('book_table')).length === 1) throw new TransientFailure('503 from booking API');
      return { booked: restaurant };
    },
  },
];

beforeAll(() => {
  // keep the SDK's own tracing on (its trace carries the group id) but export nothing
  setTraceProcessors([]);
  // the SDK turns its tracing off when NODE_ENV is test
  setTracingDisabled(false);
});

describe('OpenAI Agents SDK guarded tools', () => {
  it('runs a real Runner loop: rejected then corrected call, unknown tool continued by the right one, transient retry', async () => {
    const { gt, named } = traced();
    const calls: string[] = [];
    const guarded = guardAgentsTools(gt, weatherDefs(calls), {
      agentName: 'concierge',
      userId: () => 'user_7',
      model: 'scripted',
      meta: { get_weather: { flags: { readOnly: true } } },
    });
    const model = new ScriptedModel([
      { call: ['call_1', 'get_weather', '{"town":"Paris"}'] },
      { call: ['call_2', 'get_weather', '{"city":"Paris"}'] },
      { call: ['call_3', 'get_forecast', '{"city":"Paris"}'] },
      { call: ['call_4', 'get_time', '{"city":"Paris"}'] },
      { call: ['call_5', 'book_table', '{"restaurant":"Chez Nous","people":2}'] },
      { text: 'Sunny, noon, table booked.' },
    ]);
    const agent = new Agent({ name: 'concierge', instructions: 'Help.', model, tools: guarded.tools });
    const runner = new Runner({ groupId: 'conv_42', workflowName: 'concierge' });

    const result = await runner.run(agent, 'Plan my lunch in Paris', { ...guarded.runOptions, maxTurns: 10 });
    expect(result.finalOutput).toBe('Sunny, noon, table booked.');
    expect(guarded.sessions.find('conv_42')?.userId).toBe('user_7');
    expect(await guarded.sessions.end()).toEqual({ conv_42: 'success' });

    expect(calls).toEqual(['get_weather:Paris', 'get_time:Paris', 'book_table:Chez Nous', 'book_table:Chez Nous']);
    const seen = outputsSeen(model);
    expect(seen.call_1).toContain('Unexpected field: "town"');
    expect(seen.call_2).toContain('"sky":"clear"');
    expect(seen.call_2).not.toContain('sk-proj-abcdefghijklmnopqrstuv');
    expect(seen.call_3).toContain('Unknown tool "get_forecast"');
    expect(seen.call_3).toMatch(/- get_weather[\s\S]*- get_time|- get_time[\s\S]*- get_weather/);
    expect(seen.call_5).toBe('{"booked":"Chez Nous"}');

    const tools = named('execute_tool');
    expect(tools.map((t) => [t.name, t.attributes['guardtrace.attempt'], t.attributes['guardtrace.outcome']])).toEqual([
      ['execute_tool get_weather', 2, 'success'],
      ['execute_tool get_time', 2, 'success'],
      ['execute_tool book_table', 2, 'success'],
    ]);
    const attempts = named('guardtrace.attempt').map((a) => [a.attributes['gen_ai.tool.name'], a.attributes['guardtrace.failure.class'], a.attributes['guardtrace.decision']]);
    expect(attempts).toEqual([
      ['get_weather', 'invalid_arguments', 'reject_with_feedback'],
      ['get_weather', undefined, 'proceed'],
      ['get_forecast', 'unknown_tool', 'reject_with_feedback'],
      ['get_time', undefined, 'proceed'],
      ['book_table', 'transient', 'retry_backoff'],
      ['book_table', undefined, 'proceed'],
    ]);
    // the made-up name's attempt ran on the adapter's stand-in {} (the SDK hands over no arguments):
    // it records none, where the rejected get_weather records what the model sent
    const args = named('guardtrace.attempt').map((a) => a.attributes['gen_ai.tool.call.arguments']);
    expect(args[2]).toBeUndefined();
    expect(args[0]).toBe('{"town":"Paris"}');
    // every model request is a chat span (from the run's usage); the turn after a failed call is its repair
    const chats = named('chat');
    expect(chats.map((c) => c.attributes['guardtrace.repair.failure_class'])).toEqual([undefined, 'invalid_arguments', undefined, 'unknown_tool', undefined, undefined]);
    expect(chats.map((c) => c.attributes['gen_ai.usage.input_tokens'])).toEqual([100, 100, 100, 100, 100, 100]);
    expect(chats[1]?.attributes['guardtrace.repair.tokens']).toBe(110);
    const root = named('invoke_agent')[0];
    expect(root?.attributes).toMatchObject({ 'gen_ai.conversation.id': 'conv_42', 'gen_ai.agent.name': 'concierge', 'guardtrace.user.id': 'user_7' });
  });

  it('stops the run with GuardtraceEscalation when the policy aborts, and keeps one session per run without a trace', async () => {
    const { gt, named } = traced();
    const guarded = guardAgentsTools(
      gt,
      [{ name: 'drop_db', description: 'Drop a database', parameters: z.object({ name: z.string() }), execute: () => { throw new Fatal('credentials revoked'); } }],
      { agentName: 'ops' },
    );
    const model = new ScriptedModel([{ call: ['call_1', 'drop_db', '{"name":"prod"}'] }, { text: 'unreachable' }]);
    const agent = new Agent({ name: 'ops', model, tools: guarded.tools });
    const runner = new Runner({ tracingDisabled: true });
    const err = await runner.run(agent, 'drop prod', guarded.runOptions).catch((e: unknown) => e);
    // the SDK surfaces a failing tool as its ToolCallError, with the thrown error as `error`
    expect(err).toBeInstanceOf(ToolCallError);
    const cause = (err as ToolCallError).error;
    expect(cause).toBeInstanceOf(GuardtraceEscalation);
    expect((cause as GuardtraceEscalation).result).toMatchObject({ tool: 'drop_db', decision: 'abort', failureClass: 'fatal' });
    expect(model.requests).toHaveLength(1);
    const outcomes = await guarded.sessions.end();
    expect(Object.keys(outcomes)).toHaveLength(1);
    expect(Object.keys(outcomes)[0]).toMatch(/^run_/);
    expect(Object.values(outcomes)).toEqual(['failed']);
    expect(named('execute_tool drop_db')[0]?.attributes['guardtrace.decision']).toBe('abort');
  });

  it('an unknown tool named twice escalates: the run stops before the next model call', async () => {
    const { gt } = traced();
    const guarded = guardAgentsTools(gt, weatherDefs([]), { agentName: 'concierge' });
    const model = new ScriptedModel([
      { call: ['call_1', 'get_forecast', '{"city":"Paris"}'] },
      { call: ['call_2', 'get_forecast', '{"city":"Paris"}'] },
      { text: 'unreachable' },
    ]);
    const agent = new Agent({ name: 'concierge', model, tools: guarded.tools });
    const err = await new Runner({ groupId: 'conv_esc' }).run(agent, 'forecast?', guarded.runOptions).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GuardtraceEscalation);
    expect((err as GuardtraceEscalation).result).toMatchObject({ tool: 'get_forecast', decision: 'escalate_human', failureClass: 'unknown_tool' });
    expect(model.requests).toHaveLength(2);
    expect(await guarded.sessions.end()).toEqual({ conv_esc: 'escalated' });
  });

  it('with the SDK tracing off, the unknown tool and its correction share the run session (attempt 2)', async () => {
    const { gt, named } = traced();
    const calls: string[] = [];
    const guarded = guardAgentsTools(gt, weatherDefs(calls), { agentName: 'concierge' });
    const model = new ScriptedModel([
      { call: ['call_1', 'get_forecast', '{"city":"Oslo"}'] },
      { call: ['call_2', 'get_time', '{"city":"Oslo"}'] },
      { text: 'noon' },
    ]);
    const agent = new Agent({ name: 'concierge', model, tools: guarded.tools });
    await new Runner({ tracingDisabled: true }).run(agent, 'time?', guarded.runOptions);
    const outcomes = await guarded.sessions.end();
    expect(Object.keys(outcomes)).toEqual([expect.stringMatching(/^run_/)]);
    expect(calls).toEqual(['get_time:Oslo']);
    expect(named('execute_tool').map((t) => [t.name, t.attributes['guardtrace.attempt']])).toEqual([['execute_tool get_time', 2]]);
  });

  it('never auto-repairs a made-up name: the SDK hands over no arguments, only a placeholder', async () => {
    const { gt, named } = traced();
    const calls: string[] = [];
    const listCities = {
      name: 'list_cities',
      description: 'Cities of a country (all by default)',
      parameters: z.object({ country: z.string().optional() }),
      execute: ({ country }: { country?: string }) => {
        calls.push(`list_cities:${country ?? 'all'}`);
        return ['Oslo'];
      },
    };
    const guarded = guardAgentsTools(gt, [listCities], { agentName: 'concierge', meta: { list_cities: { flags: { readOnly: true } } } });
    const model = new ScriptedModel([{ call: ['call_1', 'list_city', '{"country":"NO"}'] }, { text: 'none' }]);
    await new Runner({ tracingDisabled: true }).run(new Agent({ name: 'concierge', model, tools: guarded.tools }), 'cities?', guarded.runOptions);
    await guarded.sessions.end();
    // list_cities({}) would satisfy the schema, but {} is not what the model sent
    expect(calls).toEqual([]);
    expect(outputsSeen(model).call_1).toContain('Unknown tool "list_city"');
    expect(named('guardtrace.attempt').map((a) => a.attributes['guardtrace.decision'])).toEqual(['reject_with_feedback']);
  });

  it("records each model call with the model its agent names, through a handoff and with tracing off", async () => {
    const { gt, named } = traced();
    const calls: string[] = [];
    const guarded = guardAgentsTools(gt, weatherDefs(calls).slice(0, 2), { agentName: 'concierge' });
    // the Runner resolves the agents' model names through its provider: scripted models stand in for them
    const scripted: Record<string, ScriptedModel> = {
      'gpt-4.1-mini': new ScriptedModel([
        { call: ['call_1', 'get_weather', '{"city":"Oslo"}'] },
        { call: ['call_2', 'transfer_to_clock', '{}'] },
      ]),
      'gpt-4.1': new ScriptedModel([{ call: ['call_3', 'get_time', '{"city":"Oslo"}'] }, { text: 'clear, noon' }]),
    };
    const modelProvider = { getModel: async (name?: string) => scripted[name ?? ''] as ScriptedModel };
    const clock = new Agent({ name: 'clock', model: 'gpt-4.1', tools: guarded.tools });
    const front = new Agent({ name: 'front', model: 'gpt-4.1-mini', tools: guarded.tools, handoffs: [clock] });
    const result = await new Runner({ modelProvider, groupId: 'conv_models' }).run(front, 'Weather and time in Oslo?', guarded.runOptions);
    expect(result.finalOutput).toBe('clear, noon');
    await guarded.sessions.end();
    expect(calls).toEqual(['get_weather:Oslo', 'get_time:Oslo']);
    // before: every call "unknown" (the option's default), so the web could price none of them.
    // Calls are recorded from the run's per-request usage at each guarded tool call: the handoff's
    // request (front's) and the clock's first are two calls, each named by the agent that made it
    // (before 2026-12-08 they were one call of 200 tokens named gpt-4.1, priced as such).
    expect(named('chat').map((c) => [c.attributes['gen_ai.request.model'], c.attributes['gen_ai.usage.input_tokens']])).toEqual([
      ['gpt-4.1-mini', 100],
      ['gpt-4.1-mini', 100],
      ['gpt-4.1', 100],
      ['gpt-4.1', 100],
    ]);

    // tracing off: the run's context object finds the model; the option names a Model object's calls
    const { gt: gt2, named: named2 } = traced();
    const guarded2 = guardAgentsTools(gt2, weatherDefs([]).slice(0, 1), { agentName: 'concierge', model: 'fallback-model' });
    const one = new ScriptedModel([{ call: ['call_1', 'get_weather', '{"city":"Oslo"}'] }, { text: 'clear' }]);
    const byName = { getModel: async () => one };
    await new Runner({ modelProvider: byName, tracingDisabled: true }).run(
      new Agent({ name: 'front', model: 'gpt-4.1-nano', tools: guarded2.tools }),
      'Weather?',
      { ...guarded2.runOptions, context: { user: 'u1' } },
    );
    const object = new ScriptedModel([{ call: ['call_1', 'get_weather', '{"city":"Rome"}'] }, { text: 'clear' }]);
    await new Runner({ tracingDisabled: true }).run(new Agent({ name: 'front', model: object, tools: guarded2.tools }), 'Weather?', {
      ...guarded2.runOptions,
      context: { user: 'u2' },
    });
    await guarded2.sessions.end();
    // (each run's last call is recorded when its session ends)
    expect(named2('chat').map((c) => c.attributes['gen_ai.request.model'])).toEqual(['gpt-4.1-nano', 'fallback-model', 'gpt-4.1-nano', 'fallback-model']);
  });

  it('records every model call of two runs of one conversation (the same groupId), the first run\'s last one too', async () => {
    const { gt, named } = traced();
    const guarded = guardAgentsTools(gt, weatherDefs([]).slice(0, 2), { agentName: 'concierge' });
    const runner = new Runner({ groupId: 'conv_two_runs' });
    const first = new ScriptedModel([{ call: ['call_1', 'get_weather', '{"city":"Oslo"}'] }, { text: 'clear' }]);
    await runner.run(new Agent({ name: 'front', model: first, tools: guarded.tools }), 'Weather?', guarded.runOptions);
    const second = new ScriptedModel([{ call: ['call_2', 'get_time', '{"city":"Oslo"}'] }, { text: 'noon' }]);
    await runner.run(new Agent({ name: 'front', model: second, tools: guarded.tools }), 'Time?', guarded.runOptions);
    await guarded.sessions.end();
    // before: 3 calls (the first run's answer, after its last tool call, was never recorded)
    expect(named('chat').map((c) => c.attributes['gen_ai.usage.input_tokens'])).toEqual([100, 100, 100, 100]);
    expect(new Set(named('chat').map((c) => c.attributes['gen_ai.conversation.id']))).toEqual(new Set(['conv_two_runs']));
  });

  it('records each request\'s prompt-cache reads as its cached input tokens', async () => {
    const { gt, named } = traced();
    const guarded = guardAgentsTools(gt, weatherDefs([]).slice(0, 1), { agentName: 'concierge' });
    const model = new ScriptedModel([{ call: ['call_1', 'get_weather', '{"city":"Oslo"}'], cached: 64 }, { text: 'clear' }]);
    await new Runner({ groupId: 'conv_cached' }).run(new Agent({ name: 'front', model, tools: guarded.tools }), 'Weather?', guarded.runOptions);
    await guarded.sessions.end();
    // before: no cached tokens recorded, so the 64 were priced at the full input rate
    expect(named('chat').map((c) => [c.attributes['gen_ai.usage.input_tokens'], c.attributes['gen_ai.usage.cache_read.input_tokens']])).toEqual([
      [100, 64],
      [100, undefined],
    ]);
  });

  it('refuses a definition without a zod schema, saying which tool and what it needs', () => {
    const { gt } = traced();
    const def = { name: 'raw', description: 'x', parameters: { type: 'object' } as unknown as z.ZodObject, execute: () => 'x' };
    expect(() => guardAgentsTools(gt, [def], { agentName: 'a' })).toThrow('Agents SDK tool "raw" needs a zod 4 object as "parameters"');
  });
});
