/**
 * An OpenAI Agents SDK agent whose tools run through Guardtrace, offline: a scripted
 * implementation of the SDK's `Model` interface plays the model. Its first weather call uses
 * a wrong field (rejected, corrected as attempt 2), it calls a tool that does not exist (told
 * the valid names; its next call continues that call), and the booking API answers 503 once
 * (retried inside the SDK). The run's trace group id is the Guardtrace session id.
 *
 *   tsx examples/openai-agents-agent.ts
 *   GUARDTRACE_ENDPOINT=... GUARDTRACE_API_KEY=... tsx examples/openai-agents-agent.ts   # also exports the session
 */
import { pathToFileURL } from 'node:url';
import { Agent, type Model, type ModelRequest, type ModelResponse, Runner, setTraceProcessors, setTracingDisabled, Usage } from '@openai/agents';
import type { Tracer } from '@opentelemetry/api';
import { z } from 'zod';
import { Guardtrace, TransientFailure } from '../src/index.ts';
import { guardAgentsTools } from '../src/integrations/openai-agents.ts';
import { setupGuardtrace } from '../src/setup.ts';

/** One scripted response; `cached`: its prompt-cache reads (part of its 100 input tokens). */
export type ScriptedTurn = ({ call: [callId: string, name: string, args: string] } | { text: string }) & { cached?: number };

/** The SDK's public `Model` interface, answered from a script: one response per turn; requests are kept. */
export class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  #i = 0;
  constructor(private readonly turns: ScriptedTurn[]) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const turn = this.turns[this.#i++];
    if (!turn) throw new Error(`scripted model: the script has no turn ${this.#i}`);
    const output: ModelResponse['output'] =
      'call' in turn
        ? [{ type: 'function_call', callId: turn.call[0], name: turn.call[1], arguments: turn.call[2], status: 'completed' }]
        : [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text }] }];
    const details = turn.cached === undefined ? {} : { inputTokensDetails: { cached_tokens: turn.cached } };
    return { usage: new Usage({ requests: 1, inputTokens: 100, outputTokens: 10, totalTokens: 110, ...details }), output, responseId: `resp_${this.#i}` };
  }
  // biome-ignore lint/correctness/useYield: the scripted model does not stream
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('scripted model: streaming is not scripted');
  }
}

/** The tool outputs the model was sent in its last request, by call id. */
export function outputsSeen(model: ScriptedModel): Record<string, string> {
  const input = model.requests.at(-1)?.input;
  const out: Record<string, string> = {};
  for (const item of Array.isArray(input) ? input : []) {
    if (item.type !== 'function_call_result') continue;
    const o = item.output;
    out[item.callId] = typeof o === 'string' ? o : 'type' in o && o.type === 'text' ? o.text : JSON.stringify(o);
  }
  return out;
}

export interface AgentsExampleRun {
  sessionId: string;
  outcome: string;
  finalOutput: string;
  /** What the model was sent back for each of its calls, in order. */
  steps: { callId: string; tool: string; output: string }[];
  /** Tool bodies that actually ran. */
  executed: string[];
  /** Tokens of the model turns that answered a rejected call. */
  repairTokens: number;
}

const SCRIPT: ScriptedTurn[] = [
  { call: ['call_1', 'get_weather', '{"town":"Paris"}'] },
  { call: ['call_2', 'get_weather', '{"city":"Paris"}'] },
  { call: ['call_3', 'get_forecast', '{"city":"Paris"}'] },
  { call: ['call_4', 'get_time', '{"city":"Paris"}'] },
  { call: ['call_5', 'book_table', '{"restaurant":"Chez Nous","people":2}'] },
  { text: 'Clear sky, it is noon, and your table at Chez Nous is booked.' },
];

export async function runAgentsExample(opts: { tracer?: Tracer } = {}): Promise<AgentsExampleRun> {
  // the SDK's own tracing on (its trace carries the group id; the SDK turns it off when
  // NODE_ENV is test), sending nothing to OpenAI
  setTraceProcessors([]);
  setTracingDisabled(false);
  const gt = new Guardtrace({ ...(opts.tracer ? { tracer: opts.tracer } : {}), backoff: { baseMs: 10, maxMs: 50 } });
  const executed: string[] = [];
  const guarded = guardAgentsTools(
    gt,
    [
      {
        name: 'get_weather',
        description: 'Current weather for a city',
        parameters: z.object({ city: z.string() }),
        execute: ({ city }: { city: string }) => {
          executed.push(`get_weather ${city}`);
          return { city, sky: 'clear', tempC: 21 };
        },
      },
      {
        name: 'get_time',
        description: 'Local time in a city',
        parameters: z.object({ city: z.string() }),
        execute: ({ city }: { city: string }) => {
          executed.push(`get_time ${city}`);
          return `12:00 in ${city}`;
        },
      },
      {
        name: 'book_table',
        description: 'Book a restaurant table',
        parameters: z.object({ restaurant: z.string(), people: z.number().int().min(1) }),
        execute: ({ restaurant, people }: { restaurant: string; people: number }) => {
          executed.push(`book_table ${restaurant}`);
          if (executed.filter((e) => e.startsWith('book_table')).length === 1) throw new TransientFailure('booking API answered 503');
          return { booked: restaurant, people };
        },
      },
    ],
    { agentName: 'concierge', model: 'scripted-model', meta: { get_weather: { flags: { readOnly: true } }, get_time: { flags: { readOnly: true } } } },
  );
  const model = new ScriptedModel(SCRIPT);
  const agent = new Agent({ name: 'concierge', instructions: 'Plan lunch.', model, tools: guarded.tools });
  const result = await new Runner({ groupId: 'conv_lunch_paris', workflowName: 'concierge' }).run(agent, 'Plan my lunch in Paris', guarded.runOptions);
  const session = guarded.sessions.find('conv_lunch_paris');
  const outcomes = await guarded.sessions.end();
  const seen = outputsSeen(model);
  const steps = SCRIPT.flatMap((t) => ('call' in t ? [{ callId: t.call[0], tool: t.call[1], output: seen[t.call[0]] ?? '' }] : []));
  const [sessionId, outcome] = Object.entries(outcomes)[0] ?? ['', ''];
  return { sessionId, outcome, finalOutput: String(result.finalOutput), steps, executed, repairTokens: session?.tokens.repair ?? 0 };
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const endpoint = process.env.GUARDTRACE_ENDPOINT;
  const apiKey = process.env.GUARDTRACE_API_KEY;
  const otel = endpoint && apiKey ? setupGuardtrace({ endpoint, apiKey, serviceName: 'openai-agents-example' }) : undefined;
  const run = await runAgentsExample(otel ? { tracer: otel.tracer } : {});
  for (const st of run.steps) console.log(`${st.callId} ${st.tool.padEnd(12)} -> ${st.output.replaceAll('\n', '\n    ')}`);
  console.log(`tool bodies run: ${run.executed.join(', ')}`);
  console.log(`agent: ${run.finalOutput}`);
  console.log(`session ${run.sessionId}: ${run.outcome}; ${run.repairTokens} of the model's tokens went to repairing rejected calls`);
  await otel?.shutdown();
}
