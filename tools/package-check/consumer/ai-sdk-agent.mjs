// The AI SDK integration as an agent that also turns the AI SDK's own telemetry on: a real
// generateText loop with ai/test's mock model, exported through setupGuardtrace (the global
// provider, so the AI SDK's spans go the same way), from the installed tarballs only.
import { Guardtrace } from '@guardtrace/sdk';
import { guardedAiSdk, registerAiSdkTools } from '@guardtrace/sdk/ai-sdk';
import { setupGuardtrace } from '@guardtrace/sdk/setup';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';

const [endpoint, apiKey, sessionId] = process.argv.slice(2);
const otel = setupGuardtrace({ endpoint, apiKey, serviceName: 'consumer-ai-sdk', flushOnExit: false, shutdownTimeoutMillis: 30_000 });
const gt = new Guardtrace({ tracer: otel.tracer });
registerAiSdkTools(gt, { get_weather: { description: 'Weather in a city', inputSchema: z.object({ city: z.string() }), execute: ({ city }) => ({ city, tempC: 20 }) } });
const usage = (input, output) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});
const call = (id, input) => ({ content: [{ type: 'tool-call', toolCallId: id, toolName: 'get_weather', input }], finishReason: { unified: 'tool-calls', raw: undefined }, usage: usage(100, 10), warnings: [] });
// a call with a wrong field, its correction, then the answer: 2 attempts of 1 call, 3 model turns
const script = [call('call_1', '{"town":"Paris"}'), call('call_2', '{"city":"Paris"}'), { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage: usage(100, 5), warnings: [] }];
let i = 0;
const model = new MockLanguageModelV3({ provider: 'mock', modelId: 'mock-model', doGenerate: async () => script[i++] });
const s = gt.session({ id: sessionId, agentName: 'consumer-ai-sdk' });
const result = await generateText({ model, prompt: 'weather in Paris', stopWhen: stepCountIs(5), experimental_telemetry: { isEnabled: true }, ...guardedAiSdk(s) });
const outcome = await s.end();
await otel.shutdown();
console.log(JSON.stringify({ text: result.text, outcome, exported: otel.stats().exported }));
