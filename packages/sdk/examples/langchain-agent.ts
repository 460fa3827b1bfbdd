/**
 * A LangChain `createAgent` agent whose tools run through Guardtrace, offline: LangChain's
 * own `FakeToolCallingModel` plays the model. Its first weather call uses a wrong field
 * (rejected with a ToolMessage of status "error", corrected as attempt 2), it calls a tool
 * that does not exist (told the valid names; its next call continues that call), and the
 * booking API answers 503 once (retried inside the SDK). `configurable.thread_id` is the
 * Guardtrace session id.
 *
 *   tsx examples/langchain-agent.ts
 *   GUARDTRACE_ENDPOINT=... GUARDTRACE_API_KEY=... tsx examples/langchain-agent.ts   # also exports the session
 */
import { pathToFileURL } from 'node:url';
import { HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import type { Tracer } from '@opentelemetry/api';
import { FakeToolCallingModel, createAgent } from 'langchain';
import { z } from 'zod';
import { Guardtrace, TransientFailure } from '../src/index.ts';
import { guardLangChainTools } from '../src/integrations/langchain.ts';
import { setupGuardtrace } from '../src/setup.ts';

export interface LangChainExampleRun {
  sessionId: string;
  outcome: string;
  /** The ToolMessages the agent loop fed back to the model, in order. */
  steps: { callId: string; tool: string; status: string; content: string }[];
  /** Tool bodies that actually ran. */
  executed: string[];
}

export async function runLangChainExample(opts: { tracer?: Tracer } = {}): Promise<LangChainExampleRun> {
  const gt = new Guardtrace({ ...(opts.tracer ? { tracer: opts.tracer } : {}), backoff: { baseMs: 10, maxMs: 50 } });
  const executed: string[] = [];
  const tools = [
    tool(({ city }) => {
      executed.push(`get_weather ${city}`);
      return JSON.stringify({ city, sky: 'clear', tempC: 21 });
    }, {
      name: 'get_weather',
      description: 'Current weather for a city',
      schema: z.object({ city: z.string() }),
    }),
    tool(({ city }) => {
      executed.push(`get_time ${city}`);
      return `12:00 in ${city}`;
    }, {
      name: 'get_time',
      description: 'Local time in a city',
      schema: z.object({ city: z.string() }),
    }),
    tool(
      ({ restaurant, people }) => {
        executed.push(`book_table ${restaurant}`);
        if (executed.filter((e) => e.startsWith('book_table')).length === 1) throw new TransientFailure('booking API answered 503');
        return `booked ${restaurant} for ${people}`;
      },
      { name: 'book_table', description: 'Book a restaurant table', schema: z.object({ restaurant: z.string(), people: z.number().int().min(1) }) },
    ),
  ];
  const guarded = guardLangChainTools(gt, tools, { agentName: 'concierge', meta: { get_weather: { flags: { readOnly: true } }, get_time: { flags: { readOnly: true } } } });
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
  const thread = 'thread_lunch_paris';
  const result = await agent.invoke({ messages: [new HumanMessage('Plan my lunch in Paris')] }, { configurable: { thread_id: thread } });
  const outcome = (await guarded.sessions.end(thread))[thread] ?? '';
  const steps = result.messages
    .filter((m): m is ToolMessage => ToolMessage.isInstance(m))
    .map((m) => ({ callId: m.tool_call_id, tool: m.name ?? '', status: m.status ?? '', content: String(m.content) }));
  return { sessionId: thread, outcome, steps, executed };
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const endpoint = process.env.GUARDTRACE_ENDPOINT;
  const apiKey = process.env.GUARDTRACE_API_KEY;
  const otel = endpoint && apiKey ? setupGuardtrace({ endpoint, apiKey, serviceName: 'langchain-example' }) : undefined;
  const run = await runLangChainExample(otel ? { tracer: otel.tracer } : {});
  for (const st of run.steps) console.log(`${st.callId} ${st.tool.padEnd(12)} ${st.status.padEnd(7)} -> ${st.content.replaceAll('\n', '\n    ')}`);
  console.log(`tool bodies run: ${run.executed.join(', ')}`);
  console.log(`session ${run.sessionId}: ${run.outcome}`);
  await otel?.shutdown();
}
