import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { traced } from '../../test/helpers.ts';
import { guardedAiSdk, registerAiSdkTools } from './ai-sdk.ts';

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
