export { Guardtrace } from './guardtrace.ts';
export type { GuardtraceOptions, RegisteredTool } from './runtime.ts';
export { LockTable, SDK_VERSION } from './runtime.ts';
export { Session } from './session.ts';
export type { SessionOptions, CallOptions, TokenTotals } from './session.ts';
export { ToolCall } from './tool-call.ts';
export type { RecordedAttempt, RecordedGuard } from './record.ts';
export { GuardViolation, TransientFailure, FeedbackRequired, Fatal, ToolTimeout } from './errors.ts';
export { classifyError, parseRetryAfter } from './classify.ts';
export type { Classification } from './classify.ts';
export { DEFAULT_POLICY, DEFAULT_BACKOFF, backoffDelay, decide, mergePolicy } from './policy.ts';
export type { BudgetView, DecideInput, DecideOutput } from './policy.ts';
export { DEFAULT_BUDGETS, RepairLedger, CircuitBreakers } from './budgets.ts';
export type { Budgets, BudgetOverrides } from './budgets.ts';
export { sanitizeFeedback } from './sanitize.ts';
export type { SanitizeOptions } from './sanitize.ts';
export { checkSchema, contractExcerpt } from './schema-guard.ts';
export { idempotencyKey, canonicalJson, MemoryIdempotencyStore } from './idempotency.ts';
export type { IdempotencyStore, IdempotencyEntry } from './idempotency.ts';
export { rankNames } from './unknown-tool.ts';
export { replayInputTokens, SEED_REPLAY_MODEL } from './cost.ts';
export type { ReplayModel } from './cost.ts';
export { samplingWeight, sessionHash } from './sampling.ts';
export { remoteSamplingRate } from './remote-sampling.ts';
export type { RemoteSamplingOptions, RemoteSamplingRate } from './remote-sampling.ts';
export { resourceLock, predicate } from './guards/generic.ts';
export type { Loose, PathsOf } from './guards/args.ts';
export type {
  ToolFlags,
  ToolSpec,
  ToolContext,
  Guard,
  GuardContext,
  LockTableLike,
  GuardOutcome,
  GuardPass,
  GuardFail,
  GuardRecord,
  AttemptRecord,
  CallResult,
  CallSuccess,
  CallFailure,
  Escalation,
  ModelCall,
  RepairRef,
  ReconcileResult,
  ClassPolicy,
  PolicyTable,
  PolicyOverrides,
  BackoffConfig,
  Clock,
} from './types.ts';
export {
  openAITools,
  runOpenAIToolCalls,
  runOpenAIResponseCalls,
  recordOpenAIUsage,
  anthropicTools,
  runAnthropicToolUses,
  recordAnthropicUsage,
} from './integrations/messages.ts';
export type {
  ToolRun,
  OpenAIToolCall,
  OpenAIToolMessage,
  OpenAIFunctionCallItem,
  OpenAIFunctionCallOutput,
  AnthropicToolUse,
  AnthropicToolResult,
} from './integrations/messages.ts';
