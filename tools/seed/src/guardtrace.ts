/**
 * Sessions shaped like the Guardtrace SDK's spans (packages/sdk: session.ts, tool-call.ts,
 * record.ts, guard-span.ts): `invoke_agent` root, `chat` model turns, `execute_tool` logical
 * calls, `guardtrace.attempt` attempts and `apply_guardrail` guard decisions, with the same
 * names and attributes. Each tool call follows one of the scenarios below: every failure class,
 * repairs by the model, internal retries with backoff, idempotent replays and escalations.
 */
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GUARDTRACE_SAMPLING_WEIGHT,
  ATTR_GUARDTRACE_SESSION_OUTCOME,
  ATTR_GUARDTRACE_USER_ID,
  ATTR_GUARDTRACE_VERSION,
  OP_INVOKE_AGENT,
  sessionSamplingWeight,
} from '@guardtrace/semconv';
import { type Attrs, type SpanGroup, TraceBuilder } from './otlp.ts';
import type { SessionPlan } from './plan.ts';
import type { Rng } from './random.ts';
import { type AttemptSpec, Ctx, clean, logical, modelTurn, SCHEMA_VERSION, schema, toolCall } from './sdk-spans.ts';
import { AGENTS, HALLUCINATED, TOOLS, type ToolDef } from './tools.ts';

type Scenario =
  | 'clean'
  | 'invalid_arguments'
  | 'unknown_tool'
  | 'missing_resource'
  | 'transient'
  | 'execution_feedback'
  | 'guard_violation'
  | 'uncertain_side_effect'
  | 'idempotent_replay'
  | 'budget_exhausted'
  | 'fatal';

// Most tool calls go through clean; failures in the proportions the seeds describe
// (schema and transient failures common, fatal ones rare).
const SCENARIOS: readonly (readonly [Scenario, number])[] = [
  ['clean', 620],
  ['invalid_arguments', 90],
  ['unknown_tool', 40],
  ['missing_resource', 50],
  ['transient', 60],
  ['execution_feedback', 40],
  ['guard_violation', 25],
  ['uncertain_side_effect', 15],
  ['idempotent_replay', 30],
  ['budget_exhausted', 20],
  ['fatal', 10],
];

/**
 * What the model's corrected call (after a repair turn) runs into: the same mix as any call, less
 * the scenarios bound to one tool of their own (a corrected `write_file` does not become a card
 * charge). No separate "fix rate" is assumed: we found no published rate of tool calls fixed by
 * structured feedback to cite, so a correction fails as often as any call of its tool would.
 */
const CORRECTIONS = SCENARIOS.filter(([s]) => s === 'clean' || s === 'invalid_arguments' || s === 'unknown_tool' || s === 'transient' || s === 'fatal');
// A correction that fails again is repaired again at most this many times, then the agent moves on.
const MAX_CORRECTIONS = 3;

/**
 * The model's corrected call after the repair turn of a failed one: its own `execute_tool` span
 * with a new call id, as the AI SDK, OpenAI Agents and the SDK's instrument-only API record it.
 */
function corrected(c: Ctx, tool: ToolDef, depth: number): void {
  if (depth >= MAX_CORRECTIONS) return;
  step(c, c.r.weighted(CORRECTIONS), tool, depth + 1);
}

/**
 * One tool call of `scenario` (with the model turns around it that the scenario needs), of `tool`
 * or one drawn from the agent's; `depth` counts the corrections that led to it.
 */
function step(c: Ctx, scenario: Scenario, forTool?: ToolDef, depth = 0): void {
  const { r } = c;
  const tool = forTool ?? (TOOLS[r.pick(c.agent.tools)] as ToolDef);
  switch (scenario) {
    case 'clean':
      toolCall(c, tool, tool.name, [clean(tool)]);
      return;
    case 'invalid_arguments': {
      const field = Object.keys(tool.args(r))[0] ?? 'path';
      const reason = `${field}: Required (expected string)`;
      const bad = toolCall(c, tool, tool.name, [{
        outcome: 'rejected', failureClass: 'invalid_arguments', decision: 'reject_with_feedback',
        feedback: `Missing required field "${field}" (string). Allowed fields: ${Object.keys(tool.args(r)).join(', ')}.`,
        args: { [`${field}_name`]: 'x' },
        guards: [{ name: 'schema', stage: 'schema', fail: { reason, failureClass: 'invalid_arguments', decision: 'reject_with_feedback' } }],
      }]);
      modelTurn(c, r.int(40, 120), { attempt: bad, failureClass: 'invalid_arguments' });
      corrected(c, tool, depth);
      return;
    }
    case 'unknown_tool': {
      const wrong = HALLUCINATED[tool.name] ?? `${tool.name}_v2`;
      const bad = toolCall(c, tool, wrong, [{
        outcome: 'rejected', failureClass: 'unknown_tool', decision: 'reject_with_feedback',
        feedback: `Unknown tool "${wrong}". Valid tools: ${c.agent.tools.join(', ')}. Did you mean "${tool.name}"?`,
        guards: [{ name: 'known_tool', stage: 'schema', fail: { reason: `no tool named ${wrong}`, failureClass: 'unknown_tool', decision: 'reject_with_feedback', candidates: [tool.name] } }],
      }]);
      modelTurn(c, r.int(30, 90), { attempt: bad, failureClass: 'unknown_tool' });
      corrected(c, tool, depth);
      return;
    }
    case 'missing_resource': {
      const file = TOOLS.read_file as ToolDef;
      const bad = toolCall(c, file, file.name, [{
        outcome: 'rejected', failureClass: 'missing_resource', decision: 'replan',
        feedback: 'File "src/components/button.tsx" does not exist. Closest: src/components/Button.tsx',
        args: { path: 'src/components/button.tsx' },
        guards: [schema, { name: 'file_exists', stage: 'logical', fail: { reason: 'no such file: src/components/button.tsx', failureClass: 'missing_resource', decision: 'replan', candidates: ['src/components/Button.tsx'] } }],
      }]);
      modelTurn(c, r.int(40, 100), { attempt: bad, failureClass: 'missing_resource' });
      corrected(c, file, depth);
      return;
    }
    case 'transient': {
      // Internal retries: the SDK backs off and tries again; the model is not involved.
      const failures = r.int(1, 2);
      const attempts: AttemptSpec[] = [];
      for (let i = 0; i < failures; i++) {
        attempts.push({
          outcome: 'failed', failureClass: 'transient', decision: 'retry_backoff', backoffMs: 40 * 2 ** i + r.int(0, 30),
          errorType: r.pick(['503', '429', 'ETIMEDOUT', 'ECONNRESET']), guards: [schema, logical(tool)],
        });
      }
      attempts.push(clean(tool));
      toolCall(c, tool, tool.name, attempts);
      return;
    }
    case 'execution_feedback': {
      const code = TOOLS.write_file as ToolDef;
      const bad = toolCall(c, code, code.name, [{
        outcome: 'failed', failureClass: 'execution_feedback', decision: 'reject_with_feedback',
        feedback: "src/app.ts(12,7): error TS2322: Type 'string' is not assignable to type 'number'.",
        guards: [schema, logical(code), { name: 'typecheck', stage: 'post_execution', fail: { reason: 'TS2322 at src/app.ts:12:7', failureClass: 'execution_feedback', decision: 'reject_with_feedback' } }],
      }]);
      modelTurn(c, r.int(120, 400), { attempt: bad, failureClass: 'execution_feedback' });
      corrected(c, code, depth);
      return;
    }
    case 'guard_violation': {
      const target = r.chance(0.5) ? (TOOLS.read_file as ToolDef) : (TOOLS.query_db as ToolDef);
      const sql = target.name === 'query_db';
      toolCall(c, target, target.name, [{
        outcome: 'rejected', failureClass: 'guard_violation', decision: r.chance(0.5) ? 'abort' : 'reject_with_feedback',
        feedback: sql ? 'Only read-only statements are allowed (found DROP TABLE).' : 'Paths outside the workspace are not allowed.',
        args: sql ? { sql: 'DROP TABLE invoices' } : { path: '../../etc/passwd' },
        guards: [schema, sql
          ? { name: 'sql_read_only', stage: 'logical', fail: { reason: 'statement DROP is not read-only', failureClass: 'guard_violation', decision: 'abort' } }
          : { name: 'path_injection', stage: 'logical', fail: { reason: 'path escapes the workspace', failureClass: 'guard_violation', decision: 'abort' } }],
      }]);
      c.worse('failed');
      return;
    }
    case 'uncertain_side_effect': {
      const charge = TOOLS.charge_card as ToolDef;
      const key = `idk_${r.hex(16)}`;
      toolCall(c, charge, charge.name, [{
        outcome: 'failed', failureClass: 'uncertain_side_effect', decision: 'fail_reconcile', errorType: 'ETIMEDOUT',
        guards: [schema, logical(charge)],
      }], { idempotencyKey: key, reconcile: r.pick(['committed', 'not_committed', 'unknown']) });
      c.worse('escalated');
      return;
    }
    case 'idempotent_replay': {
      // The model asks for the same side effect twice: the second call is answered from the store.
      const email = TOOLS.send_email as ToolDef;
      const key = `idk_${r.hex(16)}`;
      toolCall(c, email, email.name, [clean(email)], { idempotencyKey: key });
      modelTurn(c, r.int(20, 60));
      toolCall(c, email, email.name, [{ ...clean(email), deduplicated: true }], { idempotencyKey: key });
      return;
    }
    case 'budget_exhausted': {
      const flaky = (TOOLS.fetch_fx_rate as ToolDef);
      const attempts: AttemptSpec[] = [0, 1, 2].map((i) => ({
        outcome: 'failed', failureClass: 'transient', decision: 'retry_backoff', backoffMs: 40 * 2 ** i + r.int(0, 30),
        errorType: '503', guards: [schema, logical(flaky)],
      }));
      const last = attempts[2] as AttemptSpec;
      Object.assign(last, { failureClass: 'budget_exhausted', decision: 'escalate_human', backoffMs: undefined, exhausted: 'attempts_per_call', escalation: 'attempts_per_call' });
      toolCall(c, flaky, flaky.name, attempts);
      c.worse('escalated');
      return;
    }
    case 'fatal':
      toolCall(c, tool, tool.name, [{
        outcome: 'failed', failureClass: 'fatal', decision: 'abort', errorType: '401',
        feedback: undefined, guards: [schema, logical(tool)],
      }]);
      c.worse('failed');
      return;
  }
}

/** A Guardtrace SDK session: `calls` tool calls, each of a scenario drawn at random. */
export function guardtraceSession(plan: SessionPlan, r: Rng, calls: number): SpanGroup[] {
  const agent = r.pick(AGENTS);
  const b = new TraceBuilder(plan.traceId, plan.startNs);
  const c = new Ctx(r, b, plan.sessionId, agent, plan.expected);
  c.t = r.int(1, 5);
  for (let i = 0; i < calls; i++) {
    modelTurn(c, r.int(30, 300));
    step(c, r.weighted(SCENARIOS));
    // A failed session often stops there; a large one runs all its calls (the replay's large case).
    if (!plan.large && c.outcome === 'failed' && r.chance(0.6)) break;
  }
  modelTurn(c, r.int(40, 200));
  const outcome = c.outcome;
  const attrs: Attrs = {
    [ATTR_GEN_AI_OPERATION_NAME]: OP_INVOKE_AGENT,
    [ATTR_GEN_AI_CONVERSATION_ID]: plan.sessionId,
    [ATTR_GEN_AI_AGENT_NAME]: agent.name,
    [ATTR_GUARDTRACE_USER_ID]: plan.userId,
    [ATTR_GUARDTRACE_VERSION]: SCHEMA_VERSION,
    [ATTR_GUARDTRACE_SESSION_OUTCOME]: outcome,
    // The one process of this session kept it (at its clean weight): a session with any failed
    // attempt (repaired or not) or another outcome than success is kept at 1, by the rule the
    // collector stores the weight with.
    [ATTR_GUARDTRACE_SAMPLING_WEIGHT]: sessionSamplingWeight(outcome !== 'success' || plan.expected.failedAttempts > 0, plan.cleanWeight, false),
  };
  b.add({ id: c.root, name: `${OP_INVOKE_AGENT} ${agent.name}`, parent: null, atMs: 0, durMs: c.t, attrs, error: outcome === 'success' ? undefined : outcome });
  Object.assign(plan.expected, { outcome, agentName: agent.name, userId: plan.userId, spans: b.spans.length, samplingWeight: attrs[ATTR_GUARDTRACE_SAMPLING_WEIGHT] });
  return [{
    resource: { 'service.name': agent.service, 'telemetry.sdk.language': 'nodejs', 'telemetry.sdk.name': 'opentelemetry', 'deployment.environment.name': 'production' },
    scope: { name: '@guardtrace/sdk', version: '0.1.0' },
    spans: b.spans,
  }];
}
