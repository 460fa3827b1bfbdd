/**
 * Sessions shaped like the Guardtrace SDK's spans (packages/sdk: session.ts, tool-call.ts,
 * record.ts, guard-span.ts): `invoke_agent` root, `chat` model turns, `execute_tool` logical
 * calls, `guardtrace.attempt` attempts and `apply_guardrail` guard decisions, with the same
 * names and attributes. Each tool call follows one of the scenarios below: every failure class,
 * repairs by the model, internal retries with backoff, idempotent replays and escalations.
 */
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_GUARDRAIL_NAME,
  ATTR_GEN_AI_GUARDRAIL_REASON,
  ATTR_GEN_AI_GUARDRAIL_VERDICT,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_DESCRIPTION,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GUARDTRACE_ATTEMPT,
  ATTR_GUARDTRACE_BACKOFF_MS,
  ATTR_GUARDTRACE_BUDGET_ATTEMPTS_LEFT,
  ATTR_GUARDTRACE_BUDGET_EXHAUSTED,
  ATTR_GUARDTRACE_BUDGET_SESSION_RETRIES_LEFT,
  ATTR_GUARDTRACE_DECISION,
  ATTR_GUARDTRACE_DEDUPLICATED,
  ATTR_GUARDTRACE_ESCALATION_REASON,
  ATTR_GUARDTRACE_FAILURE_CLASS,
  ATTR_GUARDTRACE_FEEDBACK,
  ATTR_GUARDTRACE_GUARD_CANDIDATES,
  ATTR_GUARDTRACE_GUARD_DURATION_US,
  ATTR_GUARDTRACE_GUARD_STAGE,
  ATTR_GUARDTRACE_IDEMPOTENCY_KEY,
  ATTR_GUARDTRACE_INTENT_ID,
  ATTR_GUARDTRACE_OUTCOME,
  ATTR_GUARDTRACE_RECONCILE_STATUS,
  ATTR_GUARDTRACE_REPAIR_ATTEMPT_SPAN_ID,
  ATTR_GUARDTRACE_REPAIR_FAILURE_CLASS,
  ATTR_GUARDTRACE_REPAIR_TOKENS,
  ATTR_GUARDTRACE_SAMPLING_WEIGHT,
  ATTR_GUARDTRACE_STEP_SEQUENCE,
  ATTR_GUARDTRACE_SESSION_OUTCOME,
  ATTR_GUARDTRACE_TOOL_DESTRUCTIVE,
  ATTR_GUARDTRACE_TOOL_EXTERNAL,
  ATTR_GUARDTRACE_TOOL_IDEMPOTENT,
  ATTR_GUARDTRACE_TOOL_READ_ONLY,
  ATTR_GUARDTRACE_USER_ID,
  ATTR_GUARDTRACE_VERSION,
  type Decision,
  type FailureClass,
  OP_APPLY_GUARDRAIL,
  OP_CHAT,
  OP_EXECUTE_TOOL,
  OP_INVOKE_AGENT,
  SPAN_ATTEMPT,
  sessionSamplingWeight,
} from '@guardtrace/semconv';
import type { Attrs, SpanGroup } from './otlp.ts';
import { TraceBuilder } from './otlp.ts';
import type { Rng } from './random.ts';
import type { Expected, SessionPlan } from './session.ts';
import { AGENTS, type AgentDef, HALLUCINATED, TOOLS, type ToolDef } from './tools.ts';

/** Schema version the SDK stamps on its spans (packages/sdk's SCHEMA_VERSION). */
const SCHEMA_VERSION = '1';

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

interface GuardSpec {
  name: string;
  stage: 'schema' | 'logical' | 'execution' | 'post_execution';
  fail?: { reason: string; failureClass: FailureClass; decision: Decision; candidates?: string[] };
}

interface AttemptSpec {
  outcome: 'success' | 'rejected' | 'failed';
  failureClass?: FailureClass;
  decision: Decision;
  feedback?: string;
  backoffMs?: number;
  errorType?: string;
  exhausted?: boolean;
  escalation?: string;
  deduplicated?: boolean;
  guards: GuardSpec[];
  args?: Record<string, unknown>;
}

/** What one session builds as it goes: its trace, clock (ms from its start) and totals. */
class Ctx {
  t = 0;
  turn = 0;
  /** The last step number taken (guardtrace.step.sequence), as the SDK's session counts them. */
  steps = 0;
  sessionRetries = 8;
  outcome: 'success' | 'failed' | 'escalated' = 'success';
  readonly root: string;

  constructor(
    readonly r: Rng,
    readonly b: TraceBuilder,
    readonly sessionId: string,
    readonly agent: AgentDef,
    readonly expected: Expected,
  ) {
    this.root = b.id();
  }

  worse(o: 'failed' | 'escalated'): void {
    if (this.outcome === 'success' || o === 'escalated') this.outcome = o;
  }
}

/** A model turn: replays the context (4k system + 2k per step), so later turns cost more. */
function modelTurn(c: Ctx, outputTokens: number, repair?: { attempt: string; failureClass: FailureClass }): void {
  c.turn++;
  const input = 4000 + 2000 * c.turn;
  const dur = 250 + outputTokens * c.r.int(8, 20);
  c.b.add({
    name: `${OP_CHAT} ${c.agent.model}`,
    parent: c.root,
    atMs: c.t,
    durMs: dur,
    kind: 3,
    attrs: {
      [ATTR_GEN_AI_OPERATION_NAME]: OP_CHAT,
      [ATTR_GEN_AI_CONVERSATION_ID]: c.sessionId,
      [ATTR_GEN_AI_REQUEST_MODEL]: c.agent.model,
      [ATTR_GEN_AI_RESPONSE_MODEL]: `${c.agent.model}-2026-04-14`,
      [ATTR_GEN_AI_PROVIDER_NAME]: c.agent.provider,
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: input,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: outputTokens,
      [ATTR_GUARDTRACE_REPAIR_ATTEMPT_SPAN_ID]: repair?.attempt,
      [ATTR_GUARDTRACE_REPAIR_FAILURE_CLASS]: repair?.failureClass,
      [ATTR_GUARDTRACE_REPAIR_TOKENS]: repair ? input + outputTokens : undefined,
      [ATTR_GUARDTRACE_STEP_SEQUENCE]: ++c.steps,
    },
  });
  c.t += dur + c.r.int(2, 30);
  c.expected.modelCalls++;
  c.expected.inputTokens += input;
  c.expected.outputTokens += outputTokens;
  if (repair) c.expected.repairTokens += input + outputTokens;
}

/** One logical tool call with its attempts; returns the span id of its last attempt. */
function toolCall(c: Ctx, tool: ToolDef, name: string, attempts: AttemptSpec[], opts: { idempotencyKey?: string; reconcile?: string } = {}): string {
  const { r, b } = c;
  const toolSpan = b.id();
  const callId = `call_${r.hex(12)}`;
  const start = c.t;
  // The number is taken when the call opens, as the SDK does (its span is added once it ends).
  const sequence = ++c.steps;
  const baseArgs = tool.args(r);
  const flags = {
    [ATTR_GUARDTRACE_TOOL_READ_ONLY]: Boolean(tool.readOnly),
    [ATTR_GUARDTRACE_TOOL_IDEMPOTENT]: Boolean(tool.idempotent || tool.readOnly),
    [ATTR_GUARDTRACE_TOOL_DESTRUCTIVE]: Boolean(tool.destructive),
    [ATTR_GUARDTRACE_TOOL_EXTERNAL]: Boolean(tool.external),
  };
  let last = '';
  let attemptsLeft = 3;
  for (let n = 1; n <= attempts.length; n++) {
    const a = attempts[n - 1] as AttemptSpec;
    const attempt = b.id();
    last = attempt;
    const at = c.t;
    let g = at + 0.05;
    for (const guard of a.guards) {
      const us = guard.stage === 'schema' ? r.int(5, 60) : guard.stage === 'post_execution' ? r.int(20_000, 900_000) : r.int(30, 4000);
      b.add({
        name: `${OP_APPLY_GUARDRAIL} ${guard.name}`,
        parent: attempt,
        atMs: g,
        durMs: us / 1000,
        attrs: {
          [ATTR_GEN_AI_OPERATION_NAME]: OP_APPLY_GUARDRAIL,
          [ATTR_GEN_AI_CONVERSATION_ID]: c.sessionId,
          [ATTR_GEN_AI_GUARDRAIL_NAME]: guard.name,
          [ATTR_GEN_AI_GUARDRAIL_VERDICT]: guard.fail ? 'fail' : 'pass',
          [ATTR_GEN_AI_GUARDRAIL_REASON]: guard.fail?.reason,
          [ATTR_GUARDTRACE_GUARD_STAGE]: guard.stage,
          [ATTR_GUARDTRACE_GUARD_DURATION_US]: us,
          [ATTR_GUARDTRACE_FAILURE_CLASS]: guard.fail?.failureClass,
          [ATTR_ERROR_TYPE]: guard.fail?.failureClass,
          [ATTR_GUARDTRACE_DECISION]: guard.fail?.decision,
          [ATTR_GUARDTRACE_GUARD_CANDIDATES]: guard.fail?.candidates,
        },
        error: guard.fail?.failureClass,
      });
      g += us / 1000 + 0.01;
    }
    // Execution time: only when the call got past its guards (a rejection never runs the tool).
    const ran = a.outcome !== 'rejected';
    const dur = g - at + (ran ? r.int(5, tool.external ? 900 : 120) : 0.1);
    if (a.outcome !== 'success') attemptsLeft = Math.max(0, attemptsLeft - 1);
    if (a.decision === 'retry_backoff' || a.decision === 'reject_with_feedback') c.sessionRetries = Math.max(0, c.sessionRetries - 1);
    const ok = a.outcome === 'success';
    b.add({
      id: attempt,
      name: SPAN_ATTEMPT,
      parent: toolSpan,
      atMs: at,
      durMs: dur,
      attrs: {
        [ATTR_GEN_AI_OPERATION_NAME]: SPAN_ATTEMPT,
        [ATTR_GEN_AI_CONVERSATION_ID]: c.sessionId,
        [ATTR_GEN_AI_TOOL_NAME]: name,
        [ATTR_GEN_AI_TOOL_CALL_ID]: callId,
        [ATTR_GUARDTRACE_ATTEMPT]: n,
        [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: JSON.stringify(a.args ?? baseArgs),
        [ATTR_GUARDTRACE_OUTCOME]: a.outcome,
        [ATTR_GUARDTRACE_FAILURE_CLASS]: a.failureClass,
        [ATTR_GUARDTRACE_DECISION]: a.decision,
        [ATTR_GUARDTRACE_FEEDBACK]: a.feedback,
        [ATTR_GUARDTRACE_BACKOFF_MS]: a.backoffMs,
        [ATTR_ERROR_TYPE]: ok ? undefined : (a.errorType ?? a.failureClass),
        [ATTR_GUARDTRACE_BUDGET_ATTEMPTS_LEFT]: attemptsLeft,
        [ATTR_GUARDTRACE_BUDGET_SESSION_RETRIES_LEFT]: c.sessionRetries,
        [ATTR_GUARDTRACE_BUDGET_EXHAUSTED]: a.exhausted || undefined,
        [ATTR_GUARDTRACE_ESCALATION_REASON]: a.escalation,
        [ATTR_GEN_AI_TOOL_CALL_RESULT]: ok ? JSON.stringify(tool.result(r)) : undefined,
        [ATTR_GUARDTRACE_IDEMPOTENCY_KEY]: ok ? opts.idempotencyKey : undefined,
        [ATTR_GUARDTRACE_DEDUPLICATED]: a.deduplicated || undefined,
      },
      error: ok ? undefined : (a.errorType ?? a.failureClass),
    });
    c.expected.attempts++;
    if (!ok) c.expected.failedAttempts++;
    if (a.decision === 'escalate_human') c.expected.escalated = true;
    c.t = at + dur + (a.backoffMs ?? 0) + 0.2;
  }
  const final = attempts[attempts.length - 1] as AttemptSpec;
  const ok = final.outcome === 'success';
  b.add({
    id: toolSpan,
    name: `${OP_EXECUTE_TOOL} ${name}`,
    parent: c.root,
    atMs: start,
    durMs: c.t - start,
    attrs: {
      [ATTR_GEN_AI_OPERATION_NAME]: OP_EXECUTE_TOOL,
      [ATTR_GEN_AI_CONVERSATION_ID]: c.sessionId,
      [ATTR_GEN_AI_TOOL_NAME]: name,
      [ATTR_GEN_AI_TOOL_CALL_ID]: callId,
      [ATTR_GEN_AI_TOOL_TYPE]: 'function',
      [ATTR_GEN_AI_TOOL_DESCRIPTION]: name === tool.name ? tool.description : undefined,
      [ATTR_GUARDTRACE_VERSION]: SCHEMA_VERSION,
      [ATTR_GUARDTRACE_INTENT_ID]: opts.idempotencyKey ? `intent_${opts.idempotencyKey.slice(4, 12)}` : undefined,
      ...flags,
      [ATTR_GUARDTRACE_ATTEMPT]: attempts.length,
      [ATTR_GUARDTRACE_OUTCOME]: final.outcome,
      [ATTR_GUARDTRACE_DECISION]: final.decision,
      [ATTR_GUARDTRACE_FAILURE_CLASS]: ok ? undefined : final.failureClass,
      [ATTR_ERROR_TYPE]: ok ? undefined : final.failureClass,
      [ATTR_GUARDTRACE_IDEMPOTENCY_KEY]: opts.idempotencyKey,
      [ATTR_GUARDTRACE_DEDUPLICATED]: final.deduplicated || undefined,
      [ATTR_GUARDTRACE_ESCALATION_REASON]: final.escalation,
      [ATTR_GUARDTRACE_RECONCILE_STATUS]: opts.reconcile,
      [ATTR_GUARDTRACE_STEP_SEQUENCE]: sequence,
    },
    error: ok ? undefined : final.failureClass,
  });
  c.expected.toolCalls++;
  if (final.decision === 'escalate_human') c.expected.escalated = true;
  c.t += c.r.int(1, 20);
  return last;
}

const schema: GuardSpec = { name: 'schema', stage: 'schema' };
const logical = (tool: ToolDef): GuardSpec =>
  tool.external ? { name: 'rate_limit', stage: 'logical' } : { name: tool.readOnly ? 'file_exists' : 'path_injection', stage: 'logical' };
const clean = (tool: ToolDef): AttemptSpec => ({ outcome: 'success', decision: 'proceed', guards: post(tool, [schema, logical(tool)]) });
const post = (tool: ToolDef, g: GuardSpec[]): GuardSpec[] =>
  tool.name === 'write_file' || tool.name === 'create_file' ? [...g, { name: 'typecheck', stage: 'post_execution' }] : g;

/** One tool call of `scenario` (with the model turns around it that the scenario needs). */
function step(c: Ctx, scenario: Scenario): void {
  const { r } = c;
  const tool = TOOLS[r.pick(c.agent.tools)] as ToolDef;
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
      toolCall(c, tool, tool.name, [clean(tool)]);
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
      toolCall(c, tool, tool.name, [clean(tool)]);
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
      toolCall(c, file, file.name, [clean(file)]);
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
      toolCall(c, code, code.name, [clean(code)]);
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
      Object.assign(last, { failureClass: 'budget_exhausted', decision: 'escalate_human', backoffMs: undefined, exhausted: true, escalation: 'attempts_per_call' });
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
    if (c.outcome === 'failed' && r.chance(0.6)) break;
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
