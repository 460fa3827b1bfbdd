/**
 * Scripted demo agent: six deterministic sessions through the real guard runtime, exported
 * over OTLP to a Guardtrace collector. `runDemo` is what `pnpm start` seeds the web app with;
 * `tsx examples/demo-agent.ts` runs it against GUARDTRACE_ENDPOINT / GUARDTRACE_API_KEY.
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import type { Tracer } from '@opentelemetry/api';
import type { SessionOutcome } from '@guardtrace/semconv';
import { replayInputTokens } from '../src/cost.ts';
import { Guardtrace, type CallResult, type Session } from '../src/index.ts';
import { setupGuardtrace } from '../src/setup.ts';
import { type DemoScript, registerDemoTools } from './demo-tools.ts';

export interface DemoOptions {
  endpoint: string;
  apiKey: string;
  serviceName?: string;
}

/** A scripted model: each turn replays the context (4k system + 2k per step) and is recorded on the session. */
class ScriptedModel {
  #step = 0;
  constructor(private readonly session: Session, private readonly model = 'gpt-4.1-mini') {}
  /** A model turn takes time: ~0.2 ms per output token (kept short so the demo stays fast). */
  async turn(outputTokens: number, repairs?: CallResult): Promise<void> {
    this.#step += 1;
    const startTime = Date.now();
    await new Promise((r) => setTimeout(r, Math.round(outputTokens / 5)));
    const call: Parameters<Session['recordModelCall']>[0] = {
      model: this.model,
      provider: 'openai',
      inputTokens: replayInputTokens(this.#step),
      outputTokens,
      startTime,
      endTime: Date.now(),
    };
    if (repairs && !repairs.ok) call.repairs = repairs;
    this.session.recordModelCall(call);
  }
}

type Scenario = (s: Session, m: ScriptedModel, script: DemoScript) => Promise<void>;

const scenarios: { name: string; agent: string; run: Scenario }[] = [
  {
    name: 'clean-success',
    agent: 'file-agent',
    run: async (s, m) => {
      await m.turn(60);
      await s.callTool('read_file', '{"path":"src/components/Button.tsx"}', { callId: 'call_read_1' });
      await m.turn(240);
      await s.callTool('create_file', { path: 'src/components/Button.test.tsx', content: "import { Button } from './Button';\n" }, { callId: 'call_create_1' });
      await m.turn(90);
    },
  },
  {
    name: 'renamed-parameter',
    agent: 'file-agent',
    run: async (s, m) => {
      await m.turn(70);
      const bad = await s.callTool('create_file', '{"filepath":"src/main.py","content":"print(1)\\n"}', { callId: 'call_create_a' });
      await m.turn(80, bad);
      await s.callTool('create_file', '{"path":"src/main.py","content":"print(1)\\n"}', { callId: 'call_create_b' });
      await m.turn(50);
    },
  },
  {
    name: 'hallucinated-tool',
    agent: 'file-agent',
    run: async (s, m) => {
      await m.turn(55);
      const bad = await s.callTool('search_codebase', '{"query":"Button.tsx"}', { callId: 'call_search_a' });
      await m.turn(60, bad);
      await s.callTool('search_files', '{"name":"Button.tsx"}', { callId: 'call_search_b' });
      await m.turn(120);
    },
  },
  {
    name: 'transient-503',
    agent: 'invoice-agent',
    run: async (s, m, script) => {
      script.lookupFailures = 1;
      await m.turn(45);
      await s.callTool('lookup_customer', '{"email":"dana@acme.io"}', { callId: 'call_lookup_1' });
      await m.turn(110);
    },
  },
  {
    name: 'charge-timeout-reconcile',
    agent: 'invoice-agent',
    run: async (s, m, script) => {
      await m.turn(45);
      await s.callTool('lookup_customer', '{"email":"dana@acme.io"}', { callId: 'call_lookup_2' });
      await m.turn(60);
      script.chargeHangsMs = 400;
      await s.callTool('charge_card', '{"customer_id":"cus_4821","amount_cents":12900,"currency":"usd"}', {
        callId: 'call_charge_1',
        intentId: 'invoice_INV-2031',
      });
      script.chargeHangsMs = 0;
      await m.turn(90);
    },
  },
  {
    name: 'retry-budget-exhausted',
    agent: 'invoice-agent',
    run: async (s, m, script) => {
      script.fxAlwaysDown = true;
      await m.turn(40);
      // after each call's retries the outage comes back to the model (replan), which answers it with
      // a turn and calls again, until the outage outlasts the budgets: the tool's circuit opens
      // after 5 failed calls
      for (let i = 1; i <= 8; i++) {
        const r = await s.callTool('fetch_fx_rate', '{"from":"USD","to":"EUR"}', { callId: `call_fx_${i}` });
        if (r.ok || r.decision !== 'replan') break;
        await m.turn(35, r);
      }
      script.fxAlwaysDown = false;
      await m.turn(75);
    },
  },
];

/** Runs every scenario as its own session with the given tracer; returns each session's id and outcome. */
export async function runDemoSessions(tracer: Tracer): Promise<{ id: string; scenario: string; outcome: SessionOutcome }[]> {
  const script: DemoScript = { lookupFailures: 0, chargeHangsMs: 0, fxAlwaysDown: false };
  // short backoffs (and no 6 s retry window before an outage escalates) keep the whole demo under a few seconds
  const gt = new Guardtrace({ tracer, backoff: { baseMs: 40, maxMs: 200 }, policy: { transient: { retryWindowMs: 0 } } });
  registerDemoTools(gt, script);
  const run = randomUUID().slice(0, 8);
  const out: { id: string; scenario: string; outcome: SessionOutcome }[] = [];
  for (const sc of scenarios) {
    const s = gt.session({ id: `demo-${sc.name}-${run}`, agentName: sc.agent, userId: 'demo-user' });
    await sc.run(s, new ScriptedModel(s), script);
    out.push({ id: s.id, scenario: sc.name, outcome: await s.end() });
  }
  return out;
}

/** Runs every scenario as its own session, exports them over OTLP, and flushes before resolving. */
export async function runDemo(opts: DemoOptions): Promise<{ sessions: number }> {
  const otel = setupGuardtrace({
    endpoint: opts.endpoint,
    apiKey: opts.apiKey,
    serviceName: opts.serviceName ?? 'guardtrace-demo',
    register: false,
    flushOnExit: false,
  });
  try {
    const sessions = await runDemoSessions(otel.tracer);
    return { sessions: sessions.length };
  } finally {
    await otel.shutdown();
  }
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const endpoint = process.env.GUARDTRACE_ENDPOINT ?? 'http://localhost:4318';
  const apiKey = process.env.GUARDTRACE_API_KEY;
  if (!apiKey) {
    console.error('GUARDTRACE_API_KEY is not set (create a key in the web app, Settings > API keys)');
    process.exit(1);
  }
  const t0 = Date.now();
  const { sessions } = await runDemo({ endpoint, apiKey });
  console.log(`sent ${sessions} demo sessions to ${endpoint} in ${Date.now() - t0} ms`);
}
