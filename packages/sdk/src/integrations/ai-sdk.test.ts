import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { traced } from '../../test/helpers.ts';
import { GuardViolation } from '../errors.ts';
import { escalationStop, type GuardedToolOutput, guardedAiSdk, registerAiSdkTools } from './ai-sdk.ts';

type Gen = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
const usage = (input: number, output: number): Gen['usage'] => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});
const toolCall = (id: string, toolName: string, input: string, step: number): Gen => ({
  content: [{ type: 'tool-call', toolCallId: id, toolName, input }],
  finishReason: { unified: 'tool-calls', raw: undefined },
  usage: usage(4000 + 2000 * step, 60),
  warnings: [],
});

describe('AI SDK 6 guarded tools', () => {
  it('runs a real multi-step generateText loop through the guards and records usage per step', async () => {
    const { gt, named } = traced();
    const files: Record<string, string> = {};
    registerAiSdkTools(
      gt,
      {
        create_file: {
          description: 'Create a file',
          inputSchema: z.object({ path: z.string(), content: z.string() }),
          execute: ({ path, content }: { path: string; content: string }) => {
            files[path] = content;
            return { written: path };
          },
        },
      },
      { create_file: { flags: { destructive: false } } },
    );
    const script: Gen[] = [
      toolCall('call_1', 'create_file', '{"filepath":"src/a.ts","content":"x"}', 0),
      toolCall('call_2', 'create_file', '{"path":"src/a.ts","content":"x"}', 1),
      toolCall('call_3', 'write_files', '{"path":"src/b.ts"}', 2),
      { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage: usage(10_000, 20), warnings: [] },
    ];
    let i = 0;
    const model = new MockLanguageModelV3({ provider: 'mock-provider', modelId: 'mock-model', doGenerate: async () => script[i++]! });
    const s = gt.session({ id: 'ai_sdk_1', agentName: 'ai-sdk-agent' });
    const result = await generateText({ model, prompt: 'create src/a.ts', stopWhen: stepCountIs(6), ...guardedAiSdk(s) });
    await s.end();

    expect(result.text).toBe('done');
    expect(result.steps).toHaveLength(4);
    expect(files).toEqual({ 'src/a.ts': 'x' });
    // the model's second prompt carries the schema guard's feedback as the tool result
    const toolMsg = model.doGenerateCalls[1]?.prompt.find((m) => m.role === 'tool');
    const part = toolMsg?.role === 'tool' ? toolMsg.content[0] : undefined;
    const output = part?.type === 'tool-result' && part.output.type === 'json' ? (part.output.value as { error: string }) : undefined;
    expect(output?.error).toContain('Missing required field: "path"');
    expect(output?.error).toContain('Unexpected field: "filepath" (did you mean "path"?)');

    const tools = named('execute_tool');
    expect(tools.map((t) => t.name)).toEqual(['execute_tool create_file', 'execute_tool write_files']);
    expect(tools[0]?.attributes).toMatchObject({ 'guardtrace.attempt': 2, 'guardtrace.outcome': 'success', 'gen_ai.tool.call.id': 'call_1' });
    expect(tools[1]?.attributes).toMatchObject({ 'guardtrace.failure.class': 'unknown_tool' });
    const chats = named('chat');
    expect(chats.map((c) => c.attributes['gen_ai.usage.input_tokens'])).toEqual([4000, 6000, 8000, 10_000]);
    expect(chats.map((c) => c.attributes['guardtrace.repair.failure_class'])).toEqual([undefined, 'invalid_arguments', undefined, 'unknown_tool']);
    expect(chats[0]?.attributes).toMatchObject({ 'gen_ai.request.model': 'mock-model', 'gen_ai.provider.name': 'mock-provider' });
    // each step's model turn, recorded when the step finished, keeps its number from the step's
    // start: before the calls it asked for (call_1's correction in step 2 continues call_1)
    const seq = (x: (typeof chats)[number] | undefined) => x?.attributes['guardtrace.step.sequence'];
    expect(chats.map(seq)).toEqual([1, 3, 4, 6]);
    expect(tools.map(seq)).toEqual([2, 5]);
  });
});

describe('AI SDK successful results', () => {
  it('reach the model redacted of secrets', async () => {
    const { gt } = traced();
    const key = 'AKIAIOSFODNN7EXAMPLE';
    registerAiSdkTools(gt, {
      read_config: {
        description: 'Read the deployment config',
        inputSchema: z.object({ name: z.string() }),
        execute: () => ({ region: 'eu', env: `line1\n${key}`, list: [`token sk-proj-abcdefghijklmnopqrstuv`] }),
      },
    }, { read_config: { flags: { readOnly: true } } });
    const script: Gen[] = [
      toolCall('call_1', 'read_config', '{"name":"prod"}', 0),
      { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage: usage(5000, 20), warnings: [] },
    ];
    let i = 0;
    const model = new MockLanguageModelV3({ provider: 'mock-provider', modelId: 'mock-model', doGenerate: async () => script[i++]! });
    const s = gt.session({ agentName: 'ai-sdk-agent' });
    await generateText({ model, prompt: 'read prod', stopWhen: stepCountIs(3), ...guardedAiSdk(s) });
    await s.end();
    const prompt = JSON.stringify(model.doGenerateCalls[1]?.prompt);
    expect(prompt).toContain('[REDACTED KEY]');
    expect(prompt).not.toContain(key);
    expect(prompt).not.toContain('sk-proj-abcdefghijklmnopqrstuv');
  });
});

describe('AI SDK auto-repair', () => {
  it('runs a made-up tool name and a misnamed argument as the one sound correction, and tells the model', async () => {
    const { gt, named } = traced();
    const ran: unknown[] = [];
    registerAiSdkTools(gt, {
      search_files: {
        description: 'Search the files',
        inputSchema: z.object({ query: z.string() }),
        execute: (a: { query: string }) => {
          ran.push(a);
          return { hits: [`src/${a.query}.ts`] };
        },
      },
      read_note: { description: 'Read a note', inputSchema: z.object({ note_id: z.string() }), execute: () => 'note text' },
    }, { search_files: { flags: { readOnly: true } }, read_note: { flags: { readOnly: true } } });
    const script: Gen[] = [
      toolCall('call_1', 'search_codebase', '{"query":"Button"}', 0),
      toolCall('call_2', 'read_note', '{"note":"n1"}', 1),
      { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage: usage(9000, 20), warnings: [] },
    ];
    let i = 0;
    const model = new MockLanguageModelV3({ provider: 'mock-provider', modelId: 'mock-model', doGenerate: async () => script[i++]! });
    const s = gt.session({ id: 'ai_sdk_ar', agentName: 'ai-sdk-agent' });
    const result = await generateText({ model, prompt: 'find Button', stopWhen: stepCountIs(5), ...guardedAiSdk(s) });
    await s.end();

    expect(result.text).toBe('done');
    expect(ran).toEqual([{ query: 'Button' }]);
    const toolOutput = (call: number) => {
      const msg = model.doGenerateCalls[call]?.prompt.filter((m) => m.role === 'tool').at(-1);
      return msg?.role === 'tool' ? msg.content[0] : undefined;
    };
    const first = toolOutput(1);
    expect(first?.type === 'tool-result' && first.toolName).toBe('search_files');
    expect(first?.type === 'tool-result' && first.output).toEqual({
      type: 'json',
      value: { corrections: 'Corrected and ran (use the corrected call next time):\n- called `search_files`; `search_codebase` does not exist', result: { hits: ['src/Button.ts'] } },
    });
    const second = toolOutput(2);
    expect(second?.type === 'tool-result' && second.output).toEqual({
      type: 'text',
      value: 'Corrected and ran (use the corrected call next time):\n- used argument `note_id` for `note`; read_note has no argument `note`\n\nnote text',
    });
    // no model turn repaired anything: no repair tokens
    expect(s.tokens.repair).toBe(0);
    expect(named('chat').map((c) => c.attributes['guardtrace.repair.failure_class'])).toEqual([undefined, undefined, undefined]);
    const calls = named('execute_tool');
    expect(calls.map((c) => [c.name, c.attributes['guardtrace.attempt'], c.attributes['guardtrace.outcome']])).toEqual([
      ['execute_tool search_files', 2, 'success'],
      ['execute_tool read_note', 2, 'success'],
    ]);
    const decisions = named('guardtrace.attempt').map((a) => [a.attributes['gen_ai.tool.name'], a.attributes['guardtrace.decision'], a.attributes['guardtrace.auto_repair.kind']]);
    expect(decisions).toEqual([
      ['search_codebase', 'auto_repair', 'tool_name'],
      ['search_files', 'proceed', undefined],
      ['read_note', 'auto_repair', 'argument_name'],
      ['read_note', 'proceed', undefined],
    ]);
  });
});

describe("AI SDK telemetry (experimental_telemetry) beside the integration", () => {
  it("marks the AI SDK's own tool and model spans with the Guardtrace span that records the same call, so the collector counts each once", async () => {
    // the host's OpenTelemetry setup registers a context manager: the AI SDK's spans are active while tools and models run
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    try {
      const { gt, provider, spans, named } = traced();
      registerAiSdkTools(gt, {
        get_weather: { description: 'Weather', inputSchema: z.object({ city: z.string() }), execute: ({ city }: { city: string }) => ({ city, tempC: 20 }) },
      });
      const script: Gen[] = [
        toolCall('call_1', 'get_weather', '{"town":"Paris"}', 0),
        toolCall('call_2', 'get_weather', '{"city":"Paris"}', 1),
        { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage: usage(8000, 20), warnings: [] },
      ];
      let i = 0;
      const model = new MockLanguageModelV3({ provider: 'mock-provider', modelId: 'mock-model', doGenerate: async () => script[i++]! });
      const s = gt.session({ id: 'ai_sdk_telemetry', agentName: 'ai-sdk-agent' });
      const result = await generateText({
        model,
        prompt: 'weather in Paris',
        stopWhen: stepCountIs(5),
        experimental_telemetry: { isEnabled: true, tracer: provider.getTracer('ai') },
        ...guardedAiSdk(s),
      });
      await s.end();
      expect(result.text).toBe('done');

      const marks = (name: string) => spans().filter((x) => x.name === name).map((x) => x.attributes['guardtrace.recorded_as']);
      expect(marks('ai.toolCall')).toEqual(['execute_tool', 'execute_tool']);
      expect(marks('ai.generateText.doGenerate')).toEqual(['chat', 'chat', 'chat']);
      // the outer span makes no row anyway, and Guardtrace's own spans are not marked
      expect(marks('ai.generateText')).toEqual([undefined]);
      // the AI SDK's spans are a trace of their own (generateText ran outside the session's span):
      // each names the session, so the collector files them under it, not under a session of their own
      const aiSpans = spans().filter((x) => x.name.startsWith('ai.'));
      expect(aiSpans).toHaveLength(6);
      expect(new Set(aiSpans.map((x) => x.attributes['gen_ai.conversation.id']))).toEqual(new Set(['ai_sdk_telemetry']));
      expect(aiSpans[0]?.spanContext().traceId).not.toBe(named('invoke_agent')[0]?.spanContext().traceId);
      expect(named('chat').map((c) => c.attributes['guardtrace.recorded_as'])).toEqual([undefined, undefined, undefined]);
      expect(named('chat').map((c) => c.attributes['gen_ai.request.model'])).toEqual(['mock-model', 'mock-model', 'mock-model']);
      expect(named('execute_tool')).toHaveLength(1);
    } finally {
      context.disable();
    }
  });

  it("leaves the host's own active span unmarked when the AI SDK's telemetry is off", async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    try {
      const { gt, provider, spans } = traced();
      registerAiSdkTools(gt, { get_weather: { description: 'Weather', inputSchema: z.object({ city: z.string() }), execute: ({ city }: { city: string }) => city } });
      const script: Gen[] = [
        toolCall('call_1', 'get_weather', '{"city":"Paris"}', 0),
        { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage: usage(8000, 20), warnings: [] },
      ];
      let i = 0;
      const model = new MockLanguageModelV3({ provider: 'mock-provider', modelId: 'mock-model', doGenerate: async () => script[i++]! });
      const s = gt.session({ agentName: 'ai-sdk-agent' });
      await provider.getTracer('host').startActiveSpan('handle_request', async (root) => {
        await generateText({ model, prompt: 'weather', stopWhen: stepCountIs(3), ...guardedAiSdk(s) });
        root.end();
      });
      await s.end();
      expect(spans().filter((x) => x.attributes['guardtrace.recorded_as'] !== undefined)).toEqual([]);
    } finally {
      context.disable();
    }
  });
});

describe('AI SDK escalations', () => {
  it('escalationStop ends generateText at the step whose guarded call escalated; without it the loop goes on to stopWhen', async () => {
    const run = async (stop: boolean) => {
      const { gt } = traced();
      registerAiSdkTools(gt, {
        book_table: {
          description: 'Book a table',
          inputSchema: z.object({ restaurant: z.string() }),
          execute: () => {
            throw new GuardViolation('the restaurant is closed today');
          },
        },
      });
      let i = 0;
      const model = new MockLanguageModelV3({ doGenerate: async () => toolCall(`call_${++i}`, 'book_table', '{"restaurant":"A"}', i) });
      const s = gt.session({ agentName: 'ai-sdk-agent' });
      const result = await generateText({ model, prompt: 'book A', stopWhen: stop ? [stepCountIs(8), escalationStop] : stepCountIs(8), ...guardedAiSdk(s) });
      await s.end();
      return result.steps.map((st) => st.toolResults.map((r) => (r.output as GuardedToolOutput).decision).join());
    };
    // the same rejection twice escalates (repeated_rejection); the tool's output says so
    expect(await run(true)).toEqual(['replan', 'escalate_human']);
    expect(await run(false)).toHaveLength(8);
  });
});
