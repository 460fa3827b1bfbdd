/**
 * Vercel AI SDK 6 integration: Guardtrace tools as AI SDK tools, so `generateText` /
 * `streamText` with tools and `stopWhen: stepCountIs(n)` run every call through the guards,
 * and each step's usage is recorded as a model call (repair turns tagged with the class).
 *
 * ```ts
 * const s = gt.session({ agentName: 'file-agent' });
 * const guarded = guardedAiSdk(s);
 * await generateText({ model, prompt, stopWhen: stepCountIs(6), ...guarded });
 * await s.end();
 * ```
 */
import { ATTR_GEN_AI_CONVERSATION_ID, ATTR_GUARDTRACE_RECORDED_AS, OP_CHAT, OP_EXECUTE_TOOL } from '@guardtrace/semconv';
import { trace } from '@opentelemetry/api';
import { jsonSchema, type LanguageModel, NoSuchToolError, type StepResult, type StopCondition, type Tool, type ToolSet, tool, wrapLanguageModel } from 'ai';
import { z } from 'zod';
import { autoRepairedToolName, correctionNote } from '../auto-repair.ts';
import type { Guardtrace } from '../guardtrace.ts';
import { redactSecrets } from '../sanitize.ts';
import { type Session, sessionCore } from '../session.ts';
import type { CallFailure, CallResult } from '../types.ts';
import { specOf, stopsRun, type ToolMeta } from './adapter.ts';

/** What the model sees when a call is rejected or fails: the sanitized feedback and the decision. */
export interface GuardedToolOutput {
  error: string;
  decision: CallFailure['decision'];
  failureClass: CallFailure['failureClass'];
}

export interface GuardedAiSdkOptions {
  /** Only these registered tools (default: all). */
  tools?: string[];
  /** `gen_ai.provider.name` of the model calls (default: the model's provider). */
  provider?: string;
}

/**
 * A `stopWhen` condition: the last step had a guarded call the policy took away from the model
 * (`escalate_human`, `fail_reconcile`, `abort`; the tool's output says so in `decision`). The AI
 * SDK runs on to its other conditions otherwise, as nothing is thrown into its loop:
 * `stopWhen: [stepCountIs(8), escalationStop]`.
 */
export const escalationStop: StopCondition<ToolSet> = ({ steps }) =>
  steps.at(-1)?.toolResults.some((r) => {
    const out = r.output as Partial<GuardedToolOutput> | null | undefined;
    return typeof out?.decision === 'string' && typeof out.error === 'string' && stopsRun(out.decision);
  }) ?? false;

/** Spread into `generateText`: tools, `prepareStep`, `onStepFinish`, `experimental_repairToolCall`. */
export interface GuardedAiSdk {
  tools: ToolSet;
  /** Numbers the step's model turn; the step runs the same model, through a wrapper that marks the AI SDK's own model span (see {@link markAiSdkSpan}). */
  prepareStep: (o: { model: LanguageModel; stepNumber: number }) => { model: LanguageModel } | undefined;
  onStepFinish: (step: StepResult<ToolSet>) => void;
  experimental_repairToolCall: <T extends { toolCallId: string; toolName: string; input: string }>(o: { toolCall: T; error: unknown }) => Promise<T | null>;
}

/**
 * With the AI SDK's own telemetry on (`experimental_telemetry`), its spans are active while the
 * integration's hooks run: `ai.generateText` / `ai.streamText` in `prepareStep`, `ai.toolCall`
 * while a guarded tool runs, `ai.*.doGenerate` / `doStream` while the model answers. Each gets
 * the session's id (`gen_ai.conversation.id`): generateText usually runs outside the session's
 * span, so its spans are a trace of their own, and the collector files them under the session
 * instead of a session of their own. Guardtrace records the same tool call (`execute_tool`) and
 * model turn (`chat`) on spans of its own, so those AI SDK spans are also marked
 * `guardtrace.recorded_as`: the collector makes no second row of them (counted once: tool
 * calls, attempts, tokens). Only a span of the AI SDK's is touched, never a span of the host's
 * that happens to be active.
 */
function markAiSdkSpan(sessionId: string, op?: typeof OP_EXECUTE_TOOL | typeof OP_CHAT): void {
  const span = trace.getActiveSpan();
  // the SDK's span objects carry their name (ReadableSpan); the API's interface does not
  const name = (span as { name?: unknown } | undefined)?.name;
  if (!span || typeof name !== 'string' || !name.startsWith('ai.')) return;
  span.setAttribute(ATTR_GEN_AI_CONVERSATION_ID, sessionId);
  const recorded = op === OP_EXECUTE_TOOL ? name === 'ai.toolCall' : op === OP_CHAT && /^ai\.\w+\.do(Generate|Stream)$/.test(name);
  if (recorded && op) span.setAttribute(ATTR_GUARDTRACE_RECORDED_AS, op);
}

/** The step's model, through a middleware that marks the AI SDK's model span (one wrapper per model). */
function modelMarker(sessionId: string): (model: LanguageModel) => LanguageModel {
  const wrappers = new WeakMap<object, LanguageModel>();
  return (model) => {
    if (typeof model === 'string' || model.specificationVersion !== 'v3') return model;
    let wrapped = wrappers.get(model);
    if (!wrapped) {
      wrapped = wrapLanguageModel({
        model,
        middleware: {
          specificationVersion: 'v3',
          wrapGenerate: ({ doGenerate }) => {
            markAiSdkSpan(sessionId, OP_CHAT);
            return doGenerate();
          },
          wrapStream: ({ doStream }) => {
            markAiSdkSpan(sessionId, OP_CHAT);
            return doStream();
          },
        },
      });
      wrappers.set(model, wrapped);
    }
    return wrapped;
  };
}

function feedbackOutput(r: CallFailure): GuardedToolOutput {
  return { error: r.feedback, decision: r.decision, failureClass: r.failureClass };
}

function modelInfo(model: LanguageModel): { id: string; provider?: string } {
  if (typeof model === 'string') {
    const [provider, ...rest] = model.split('/');
    return rest.length > 0 ? { id: rest.join('/'), provider: provider as string } : { id: model };
  }
  return { id: model.modelId, provider: model.provider };
}

/** Builds the AI SDK tool set and step hooks for one Guardtrace session. */
export function guardedAiSdk(session: Session, opts: GuardedAiSdkOptions = {}): GuardedAiSdk {
  const rt = sessionCore(session).rt;
  const markedModel = modelMarker(session.id);
  const names = opts.tools ?? [...rt.tools.keys()];
  let failedThisStep: CallFailure | undefined;
  let failedLastStep: CallFailure | undefined;
  // The step's model turn is recorded when the step finishes, after the tools it called ran: its
  // step number is taken when it starts, so the replay lists it before those calls.
  let step: { start: number; model: { id: string; provider?: string }; sequence?: number | undefined } = { start: Date.now(), model: { id: 'unknown' } };

  const note = (r: CallResult): void => {
    if (!r.ok) failedThisStep ??= r;
  };
  // auto-repair: a made-up name with one sound correction is routed to that tool under its
  // own name (tool call id → the name the model sent), and what was corrected is told to the
  // model before the result (tool call id → the note)
  const routed = new Map<string, string>();
  const corrected = new Map<string, string>();
  const modelOutput = ({ toolCallId, output }: { toolCallId: string; output: unknown }) => {
    const text = corrected.get(toolCallId);
    if (typeof output === 'string') return { type: 'text' as const, value: text === undefined ? output : `${text}\n\n${output}` };
    const value = (output ?? null) as never;
    return { type: 'json' as const, value: text === undefined ? value : ({ corrections: text, result: value } as never) };
  };

  const tools: ToolSet = {};
  for (const name of names) {
    const spec = rt.tools.get(name);
    if (!spec) throw new Error(`guardtrace: tool "${name}" is not registered`);
    let schema: Record<string, unknown>;
    try {
      schema = z.toJSONSchema(spec.schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    } catch {
      schema = { type: 'object' };
    }
    // The model sees the real contract; validation is the schema guard's job, so the AI SDK
    // accepts any input instead of answering with its own error text.
    tools[name] = tool({
      description: spec.description,
      inputSchema: jsonSchema<unknown>(schema as never, { validate: (value) => ({ success: true, value }) }),
      execute: async (input: unknown, o: { toolCallId: string }) => {
        markAiSdkSpan(session.id, OP_EXECUTE_TOOL);
        const r = await session.callTool(routed.get(o.toolCallId) ?? name, input, { callId: o.toolCallId });
        note(r);
        const text = correctionNote(r);
        if (r.ok && text !== undefined) corrected.set(o.toolCallId, text);
        // the model sees the result redacted of secrets; feedback is sanitized already
        return r.ok ? redactSecrets(r.value) : feedbackOutput(r);
      },
      toModelOutput: modelOutput,
    }) as Tool;
  }

  return {
    tools,
    prepareStep: ({ model }) => {
      step = { start: Date.now(), model: modelInfo(model), sequence: sessionCore(session).reserveStep() };
      markAiSdkSpan(session.id);
      const marked = markedModel(model);
      return marked === model ? undefined : { model: marked };
    },
    onStepFinish: (s) => {
      const call: Parameters<Session['recordModelCall']>[0] = {
        model: step.model.id,
        responseModel: s.response?.modelId,
        inputTokens: s.usage?.inputTokens ?? 0,
        outputTokens: s.usage?.outputTokens ?? 0,
        startTime: step.start,
      };
      const cached = s.usage?.inputTokenDetails?.cacheReadTokens ?? s.usage?.cachedInputTokens;
      if (cached) call.cachedInputTokens = cached;
      const provider = opts.provider ?? step.model.provider;
      if (provider) call.provider = provider;
      if (failedLastStep) call.repairs = failedLastStep;
      sessionCore(session).recordModelCall(call, step.sequence);
      step.sequence = undefined; // a step number is used once (a step without prepareStep takes a new one)
      failedLastStep = failedThisStep;
      failedThisStep = undefined;
    },
    experimental_repairToolCall: async ({ toolCall, error }) => {
      if (!NoSuchToolError.isInstance(error)) return null;
      // one sound correction: the AI SDK runs the call as that tool, whose execute runs it
      // through the runtime under the name the model sent (auto-repaired, recorded, told)
      const target = autoRepairedToolName(rt, toolCall.toolName, toolCall.input);
      if (target !== undefined && target in tools) {
        routed.set(toolCall.toolCallId, toolCall.toolName);
        return { ...toolCall, toolName: target };
      }
      // a hallucinated tool name: run it through the runtime so it is rejected, recorded and counted
      note(await session.callTool(toolCall.toolName, toolCall.input, { callId: toolCall.toolCallId }));
      return null;
    },
  };
}

/** An AI SDK tool definition with a zod input schema (the shape `tool({...})` takes). */
export interface AiSdkToolDef {
  description?: string;
  inputSchema: z.ZodType;
  // biome-ignore lint/suspicious/noExplicitAny: mirrors the AI SDK's own loosely typed execute
  execute?: (input: any, options: any) => unknown;
}

/**
 * Registers existing AI SDK tool definitions as Guardtrace tools (schema from `inputSchema`),
 * with the flags, guards and reconcile hooks the AI SDK has no place for.
 */
export function registerAiSdkTools(gt: Guardtrace, defs: Record<string, AiSdkToolDef>, meta: Record<string, ToolMeta> = {}): void {
  for (const [name, def] of Object.entries(defs)) {
    const execute = def.execute;
    if (!execute) throw new Error(`guardtrace: AI SDK tool "${name}" has no execute function`);
    gt.tool(
      specOf(name, def.description ?? name, def.inputSchema, (args, ctx) => execute(args, { toolCallId: ctx.callId, messages: [], abortSignal: ctx.signal }), meta[name]),
    );
  }
}
