/**
 * Sessions from other instrumentations, as they put them on the wire (no `guardtrace.*`
 * attributes): the Vercel AI SDK (`ai.*` spans, session and user in telemetry metadata),
 * plain OpenTelemetry GenAI (`gen_ai.*`, guardrail decisions) and OpenInference (Arize's
 * `openinference.span.kind`, `llm.*`, `tool.*`, `session.id`). Some of their tool calls fail
 * with an error status and an exception event.
 */
import {
  ATTR_ERROR_TYPE,
  ATTR_EXCEPTION_MESSAGE,
  ATTR_EXCEPTION_TYPE,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_GUARDRAIL_DECISION,
  ATTR_GEN_AI_GUARDRAIL_NAME,
  ATTR_GEN_AI_GUARDRAIL_VERDICT_REASON,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_USER_ID,
  EVENT_EXCEPTION,
  OP_APPLY_GUARDRAIL,
  OP_CHAT,
  OP_EXECUTE_TOOL,
  OP_INVOKE_AGENT,
} from '@guardtrace/semconv';
import { type Attrs, type SpanGroup, TraceBuilder } from './otlp.ts';
import type { Rng } from './random.ts';
import type { SessionPlan } from './plan.ts';
import { TOOLS, type ToolDef } from './tools.ts';

const NODE_RESOURCE = { 'telemetry.sdk.language': 'nodejs', 'telemetry.sdk.name': 'opentelemetry' };
const PY_RESOURCE = { 'telemetry.sdk.language': 'python', 'telemetry.sdk.name': 'opentelemetry' };

function exception(atMs: number, type: string, message: string) {
  return [{ atMs, name: EVENT_EXCEPTION, attrs: { [ATTR_EXCEPTION_TYPE]: type, [ATTR_EXCEPTION_MESSAGE]: message, 'exception.stacktrace': `${type}: ${message}\n    at execute (tools.js:41:11)\n    at async runTool (agent.js:88:5)` } }];
}

const pickTool = (r: Rng): ToolDef => TOOLS[r.pick(['read_file', 'search_files', 'lookup_customer', 'query_db', 'fetch_fx_rate'])] as ToolDef;

/** The AI SDK's `generateText` with tools: one `doGenerate` per step, `ai.toolCall` between them. */
export function vercelAiSession(plan: SessionPlan, r: Rng): SpanGroup[] {
  const b = new TraceBuilder(plan.traceId, plan.startNs);
  const root = b.id();
  const model = r.pick(['gpt-4.1-mini', 'gpt-4.1']);
  const meta = { 'ai.telemetry.metadata.sessionId': plan.sessionId, 'ai.telemetry.metadata.userId': plan.userId, 'ai.telemetry.functionId': 'support-chat' };
  const steps = r.int(2, 4);
  let t = 1;
  let inTotal = 0;
  let outTotal = 0;
  let failed: ToolDef | null = null;
  for (let s = 0; s < steps; s++) {
    const input = 1500 + 900 * s;
    const output = r.int(20, 200);
    inTotal += input;
    outTotal += output;
    const dur = 200 + output * 9;
    b.add({
      name: 'ai.generateText.doGenerate', parent: root, atMs: t, durMs: dur, kind: 3,
      attrs: {
        'operation.name': 'ai.generateText.doGenerate support-chat', 'ai.operationId': 'ai.generateText.doGenerate',
        'ai.model.id': model, 'ai.model.provider': 'openai.responses', ...meta,
        'ai.usage.inputTokens': input, 'ai.usage.outputTokens': output,
        'ai.response.finishReason': s === steps - 1 ? 'stop' : 'tool-calls',
        'gen_ai.system': 'openai.responses', 'gen_ai.request.model': model,
      },
    });
    plan.expected.modelCalls++;
    plan.expected.inputTokens += input;
    plan.expected.outputTokens += output;
    t += dur + 2;
    if (s === steps - 1) break;
    // After a tool error the model reads it and calls the tool again (a new call id): the correction.
    const tool: ToolDef = failed ?? pickTool(r);
    const fail = r.chance(0.3);
    failed = fail ? tool : null;
    const tdur = r.int(5, 400);
    b.add({
      name: 'ai.toolCall', parent: root, atMs: t, durMs: tdur,
      attrs: {
        'operation.name': 'ai.toolCall support-chat', 'ai.operationId': 'ai.toolCall', ...meta,
        'ai.toolCall.name': tool.name, 'ai.toolCall.id': `call_${r.hex(12)}`, 'ai.toolCall.args': JSON.stringify(tool.args(r)),
        'ai.toolCall.result': fail ? undefined : JSON.stringify(tool.result(r)),
      },
      error: fail ? 'upstream returned 502 Bad Gateway' : undefined,
      events: fail ? exception(t + tdur, 'Error', 'upstream returned 502 Bad Gateway') : undefined,
    });
    t += tdur + 2;
  }
  b.add({
    id: root, name: 'ai.generateText', parent: null, atMs: 0, durMs: t,
    attrs: {
      'operation.name': 'ai.generateText support-chat', 'ai.operationId': 'ai.generateText', 'ai.model.id': model,
      'ai.model.provider': 'openai.responses', ...meta, 'ai.usage.inputTokens': inTotal, 'ai.usage.outputTokens': outTotal,
    },
  });
  Object.assign(plan.expected, { spans: b.spans.length, userId: plan.userId });
  return [{ resource: { 'service.name': 'support-web', ...NODE_RESOURCE }, scope: { name: 'ai', version: '6.0.325' }, spans: b.spans }];
}

/** An agent instrumented with OpenTelemetry's GenAI conventions only, with a guardrail in front of its tools. */
export function otelGenAiSession(plan: SessionPlan, r: Rng): SpanGroup[] {
  const b = new TraceBuilder(plan.traceId, plan.startNs);
  const root = b.id();
  const conv = { [ATTR_GEN_AI_CONVERSATION_ID]: plan.sessionId };
  let t = 1;
  const turns = r.int(2, 4);
  let failed: ToolDef | null = null;
  for (let i = 0; i < turns; i++) {
    const input = 2000 + 1200 * i;
    const output = r.int(20, 250);
    const dur = 300 + output * 10;
    b.add({
      name: `${OP_CHAT} gpt-4.1`, parent: root, atMs: t, durMs: dur, kind: 3,
      attrs: { [ATTR_GEN_AI_OPERATION_NAME]: OP_CHAT, ...conv, [ATTR_GEN_AI_REQUEST_MODEL]: 'gpt-4.1', [ATTR_GEN_AI_PROVIDER_NAME]: 'openai', [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: input, [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: output },
    });
    plan.expected.modelCalls++;
    plan.expected.inputTokens += input;
    plan.expected.outputTokens += output;
    t += dur + 2;
    if (i === turns - 1) break;
    const tool: ToolDef = failed ?? pickTool(r);
    const deny = r.chance(0.2);
    b.add({
      name: `${OP_APPLY_GUARDRAIL} content-policy`, parent: root, atMs: t, durMs: 3,
      attrs: { [ATTR_GEN_AI_OPERATION_NAME]: OP_APPLY_GUARDRAIL, ...conv, [ATTR_GEN_AI_GUARDRAIL_NAME]: 'content-policy', [ATTR_GEN_AI_GUARDRAIL_DECISION]: deny ? 'deny' : 'allow', [ATTR_GEN_AI_GUARDRAIL_VERDICT_REASON]: deny ? 'tool arguments contain a customer e-mail address' : undefined },
    });
    t += 4;
    if (deny) continue;
    const fail = r.chance(0.25);
    failed = fail ? tool : null;
    const tdur = r.int(5, 600);
    b.add({
      name: `${OP_EXECUTE_TOOL} ${tool.name}`, parent: root, atMs: t, durMs: tdur,
      attrs: { [ATTR_GEN_AI_OPERATION_NAME]: OP_EXECUTE_TOOL, ...conv, [ATTR_GEN_AI_TOOL_NAME]: tool.name, [ATTR_GEN_AI_TOOL_CALL_ID]: `call_${r.hex(12)}`, [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: JSON.stringify(tool.args(r)), [ATTR_ERROR_TYPE]: fail ? 'TimeoutError' : undefined },
      error: fail ? 'tool timed out after 30 s' : undefined,
      events: fail ? exception(t + tdur, 'TimeoutError', 'tool timed out after 30 s') : undefined,
    });
    t += tdur + 2;
  }
  const rootAttrs: Attrs = { [ATTR_GEN_AI_OPERATION_NAME]: OP_INVOKE_AGENT, ...conv, [ATTR_GEN_AI_AGENT_NAME]: 'research-agent', [ATTR_USER_ID]: plan.userId };
  b.add({ id: root, name: `${OP_INVOKE_AGENT} research-agent`, parent: null, atMs: 0, durMs: t, attrs: rootAttrs });
  Object.assign(plan.expected, { spans: b.spans.length, userId: plan.userId, agentName: 'research-agent' });
  return [{ resource: { 'service.name': 'research-service', ...PY_RESOURCE }, scope: { name: 'opentelemetry.instrumentation.openai_v2', version: '2.3b0' }, spans: b.spans }];
}

/** A LangChain agent traced by OpenInference: AGENT root, LLM and TOOL children. */
export function openInferenceSession(plan: SessionPlan, r: Rng): SpanGroup[] {
  const b = new TraceBuilder(plan.traceId, plan.startNs);
  const root = b.id();
  const ids = { 'session.id': plan.sessionId, 'user.id': plan.userId };
  let t = 1;
  const turns = r.int(2, 3);
  let failed: ToolDef | null = null;
  for (let i = 0; i < turns; i++) {
    const prompt = 1800 + 1000 * i;
    const completion = r.int(20, 180);
    const dur = 250 + completion * 8;
    b.add({
      name: 'ChatOpenAI', parent: root, atMs: t, durMs: dur, kind: 3,
      attrs: { 'openinference.span.kind': 'LLM', ...ids, 'llm.model_name': 'gpt-4o-mini', 'llm.provider': 'openai', 'llm.system': 'openai', 'llm.token_count.prompt': prompt, 'llm.token_count.completion': completion, 'llm.token_count.total': prompt + completion },
    });
    plan.expected.modelCalls++;
    plan.expected.inputTokens += prompt;
    plan.expected.outputTokens += completion;
    t += dur + 2;
    if (i === turns - 1) break;
    const tool: ToolDef = failed ?? pickTool(r);
    const fail = r.chance(0.25);
    failed = fail ? tool : null;
    const tdur = r.int(5, 300);
    b.add({
      name: tool.name, parent: root, atMs: t, durMs: tdur,
      attrs: { 'openinference.span.kind': 'TOOL', ...ids, 'tool.name': tool.name, 'tool_call.id': `call_${r.hex(12)}`, 'input.value': JSON.stringify(tool.args(r)), 'output.value': fail ? undefined : JSON.stringify(tool.result(r)) },
      error: fail ? `ToolException: ${tool.name} failed` : undefined,
      events: fail ? exception(t + tdur, 'ToolException', `${tool.name} failed`) : undefined,
    });
    t += tdur + 2;
  }
  b.add({ id: root, name: 'AgentExecutor', parent: null, atMs: 0, durMs: t, attrs: { 'openinference.span.kind': 'AGENT', ...ids, 'input.value': 'Where is the invoice for ACME?' } });
  Object.assign(plan.expected, { spans: b.spans.length, userId: plan.userId });
  return [{ resource: { 'service.name': 'langchain-agent', ...PY_RESOURCE, 'openinference.project.name': 'default' }, scope: { name: 'openinference.instrumentation.langchain', version: '0.1.40' }, spans: b.spans }];
}
