/**
 * A real Guardtrace agent for the replay's tests and benchmark: the SDK, its OTLP exporter and the
 * collector, no hand-made rows. Each cycle is a model turn, a call that fails (a hallucinated tool
 * name, or arguments the schema rejects), the repair turn the model spends on it and the corrected
 * call (naming the real tool): 7 spans a cycle with their guard spans. `repeatAt` makes one cycle's
 * model send its rejected call again unchanged (escalated); `unlimited` raises every budget out of reach.
 */
import { Guardtrace } from '@guardtrace/sdk';
import { setupGuardtrace } from '@guardtrace/sdk/setup';
import { z } from 'zod';

export interface ReplayAgentOptions {
  endpoint: string;
  apiKey: string;
  sessionId: string;
  cycles: number;
  userId?: string;
  /**
   * The cycle in which the model, after the repair turn, sends the rejected call again unchanged
   * before correcting it: the SDK escalates that call (`repeated_call`) and the correction is a new call.
   */
  repeatAt?: number;
  /** Raise every session budget out of reach (a long session that never escalates); default: the SDK's budgets. */
  unlimited?: boolean;
}

// Budgets no cycle count of a test or benchmark reaches.
const OUT_OF_REACH = 1_000_000_000;

/** Runs one session of `cycles` fail-repair-correct cycles and flushes its spans to the collector. */
export async function runReplayAgent(o: ReplayAgentOptions): Promise<void> {
  // A busy machine's collector may answer 503 for a while: give the exporter time to deliver every span.
  const otel = setupGuardtrace({
    endpoint: o.endpoint,
    apiKey: o.apiKey,
    serviceName: 'replay-agent',
    register: false,
    flushOnExit: false,
    timeoutMillis: 60_000,
    shutdownTimeoutMillis: 180_000,
  });
  const budgets = { sessionRetries: OUT_OF_REACH, rejectionsPerTask: OUT_OF_REACH, addedLatencyMs: OUT_OF_REACH, repairTokens: { perUser: OUT_OF_REACH } };
  // autoRepair off: `reed_file` has one sound correction, and this agent's mistakes are the model's to repair
  const gt = new Guardtrace({ tracer: otel.tracer, autoRepair: false, ...(o.unlimited ? { budgets } : {}) });
  gt.tool({
    name: 'read_file',
    description: 'Read a file of the workspace',
    schema: z.object({ path: z.string() }),
    flags: { readOnly: true },
    execute: (a) => `contents of ${a.path}`,
  });
  const s = gt.session({ id: o.sessionId, agentName: 'replay-agent', ...(o.userId ? { userId: o.userId } : {}) });
  for (let i = 0; i < o.cycles; i++) {
    s.recordModelCall({ model: 'gpt-test', provider: 'openai', inputTokens: 1200 + i, outputTokens: 40 });
    // Even cycles: a hallucinated tool name; odd cycles: a required field missing.
    const failed = i % 2 === 0 ? await s.callTool('reed_file', { path: `src/f${i}.ts` }) : await s.callTool('read_file', { file: `src/f${i}.ts` });
    if (failed.ok) throw new Error(`cycle ${i}: the failing call passed its guards`);
    s.recordModelCall({ model: 'gpt-test', provider: 'openai', inputTokens: 300, outputTokens: 20, repairs: failed });
    if (i === o.repeatAt) {
      const again = i % 2 === 0 ? await s.callTool('reed_file', { path: `src/f${i}.ts` }) : await s.callTool('read_file', { file: `src/f${i}.ts` });
      if (again.ok || again.escalation?.reason !== 'repeated_call') throw new Error(`cycle ${i}: the repeated call was not escalated: ${JSON.stringify(again)}`);
    }
    const fixed = await s.callTool('read_file', { path: `src/f${i}.ts` });
    if (!fixed.ok) throw new Error(`cycle ${i}: the corrected call failed: ${JSON.stringify(fixed)}`);
  }
  await s.end();
  await otel.shutdown();
}
