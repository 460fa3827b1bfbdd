/**
 * `@guardtrace/sdk`: the guard runtime. Exports what packages/sdk/README.md documents, and
 * nothing Node-only (file, command and SQL guards are subpaths; OTel SDK setup is `./setup`).
 * test/exports.test.ts checks both.
 */
export { Guardtrace } from './guardtrace.ts';
export type { GuardtraceOptions, RegisteredTool } from './runtime.ts';
export type { Session, SessionOptions, CallOptions, RecordedToolCall, TokenTotals } from './session.ts';
export type { ToolCall } from './tool-call.ts';
export type { CallSpanOptions } from './span-options.ts';
export type { RecordedAttempt, RecordedGuard } from './record.ts';
export { GuardViolation, TransientFailure, FeedbackRequired, Fatal, ToolTimeout } from './errors.ts';
export { DEFAULT_POLICY, DEFAULT_BACKOFF, FRAMEWORK_CORRECTIONS_CAP, FRAMEWORK_RETRY_WINDOW_MS } from './policy.ts';
export { DEFAULT_BUDGETS } from './budgets.ts';
export type { Budgets, BudgetOverrides } from './budgets.ts';
export { redactSecrets, sanitizeFeedback } from './sanitize.ts';
export type { SanitizeOptions } from './sanitize.ts';
export { idempotencyKey, MemoryIdempotencyStore } from './idempotency.ts';
export type { IdempotencyStore, IdempotencyEntry } from './idempotency.ts';
export { remoteSamplingRate } from './remote-sampling.ts';
export { sessionHash } from './sampling.ts';
export type { RemoteSamplingOptions, RemoteSamplingRate } from './remote-sampling.ts';
export { resourceLock, predicate } from './guards/generic.ts';
export { pointersTo, toPointer } from './pointer.ts';
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
  AutoRepairSetting,
  CaptureMode,
  Correction,
} from './types.ts';
export { correctionNote } from './auto-repair.ts';
export { toolDefinition } from './definition.ts';
export type { CheckExecute, CheckOptions, CheckResult } from './check.ts';
export type { ToolDefinitionSummary } from './definition.ts';
export { diffDefinitions } from './definition-diff.ts';
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

// Span names, attribute keys and enums (from @guardtrace/semconv, re-exported by name so
// users filter spans without a second import; test/exports.test.ts keeps the lists equal).
export {
  OP_INVOKE_AGENT,
  OP_CHAT,
  OP_EXECUTE_TOOL,
  OP_APPLY_GUARDRAIL,
  SPAN_ATTEMPT,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS_OLD,
  ATTR_GEN_AI_USAGE_PROMPT_TOKENS,
  ATTR_GEN_AI_USAGE_COMPLETION_TOKENS,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_DESCRIPTION,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_GUARDRAIL_NAME,
  ATTR_GEN_AI_GUARDRAIL_VERDICT,
  ATTR_GEN_AI_GUARDRAIL_REASON,
  EVENT_GEN_AI_GUARDRAIL_RESULT,
  ATTR_GEN_AI_GUARDRAIL_COMPONENT_NAME,
  ATTR_GEN_AI_GUARDRAIL_POLICY_ID,
  ATTR_GEN_AI_GUARDRAIL_POLICY_VERSION,
  ATTR_GEN_AI_GUARDRAIL_POLICY_RULE_ID,
  ATTR_GEN_AI_GUARDRAIL_RESULT_TYPE,
  ATTR_GEN_AI_GUARDRAIL_RESULT_VALUE,
  ATTR_GEN_AI_GUARDRAIL_RESULT_REASON,
  ATTR_GEN_AI_GUARDRAIL_SOURCE,
  ATTR_GEN_AI_GUARDRAIL_RISK_CATEGORY,
  ATTR_GEN_AI_GUARDRAIL_RISK_SCORE,
  GUARDRAIL_RESULT_TYPE_VERDICT,
  ATTR_GUARDTRACE_VERSION,
  ATTR_GUARDTRACE_ATTEMPT,
  ATTR_GUARDTRACE_OUTCOME,
  ATTR_GUARDTRACE_FAILURE_CLASS,
  ATTR_GUARDTRACE_DECISION,
  ATTR_GUARDTRACE_FEEDBACK,
  ATTR_GUARDTRACE_BACKOFF_MS,
  ATTR_GUARDTRACE_BUDGET_ATTEMPTS_LEFT,
  ATTR_GUARDTRACE_BUDGET_SESSION_RETRIES_LEFT,
  ATTR_GUARDTRACE_BUDGET_EXHAUSTED,
  ATTR_GUARDTRACE_GUARD_STAGE,
  ATTR_GUARDTRACE_GUARD_DURATION_US,
  ATTR_GUARDTRACE_TOOL_READ_ONLY,
  ATTR_GUARDTRACE_TOOL_IDEMPOTENT,
  ATTR_GUARDTRACE_TOOL_DESTRUCTIVE,
  ATTR_GUARDTRACE_TOOL_EXTERNAL,
  ATTR_GUARDTRACE_IDEMPOTENCY_KEY,
  ATTR_GUARDTRACE_REPAIR_ATTEMPT_SPAN_ID,
  ATTR_GUARDTRACE_REPAIR_FAILURE_CLASS,
  ATTR_GUARDTRACE_SESSION_OUTCOME,
  ATTR_GUARDTRACE_SAMPLING_WEIGHT,
  ATTR_GUARDTRACE_USER_ID,
  ATTR_GUARDTRACE_INTENT_ID,
  ATTR_GUARDTRACE_BUDGET_REJECTIONS_LEFT,
  ATTR_GUARDTRACE_BUDGET_LATENCY_LEFT_MS,
  ATTR_GUARDTRACE_BUDGET_REPAIR_TOKENS_LEFT,
  ATTR_GUARDTRACE_ESCALATION_REASON,
  ATTR_GUARDTRACE_FALLBACK_TOOL,
  ATTR_GUARDTRACE_RECONCILE_STATUS,
  ATTR_GUARDTRACE_CIRCUIT_STATE,
  ATTR_GUARDTRACE_DEDUPLICATED,
  ATTR_GUARDTRACE_RECORDED_AS,
  ATTR_GUARDTRACE_GUARD_CANDIDATES,
  ATTR_GUARDTRACE_GUARD_POINTERS,
  ATTR_GUARDTRACE_AUTO_REPAIR_KIND,
  ATTR_GUARDTRACE_AUTO_REPAIR_POINTERS,
  ATTR_GUARDTRACE_AUTO_REPAIR_TOOL,
  ATTR_GUARDTRACE_REPAIR_TOKENS,
  ATTR_GUARDTRACE_STEP_SEQUENCE,
  ATTR_GUARDTRACE_TOOL_DEFINITION_HASH,
  ATTR_GUARDTRACE_TOOL_DEFINITION,
  DATASET_ITEM_FORMAT,
  REPLAY_RUN_FORMAT,
  REPLAY_CHANGE,
  OP_RUN_GUARDRAIL,
  ATTR_GEN_AI_GUARDRAIL_VERDICT_TYPE,
  ATTR_GEN_AI_GUARDRAIL_VERDICT_REASON,
  ATTR_GEN_AI_GUARDRAIL_ACTION_TYPE,
  ATTR_GEN_AI_GUARDRAIL_DECISION,
  ATTR_GEN_AI_GUARDRAIL_PASSED,
  ATTR_GEN_AI_GUARDIAN_NAME,
  ATTR_GEN_AI_SECURITY_DECISION_TYPE,
  ATTR_GEN_AI_SECURITY_DECISION_REASON,
  ATTR_GEN_AI_SECURITY_RISK_CATEGORY,
  ATTR_GEN_AI_SECURITY_RISK_SEVERITY,
  EVENT_GEN_AI_SECURITY_FINDING,
  EVENT_GEN_AI_GUARDRAIL_SECURITY_FINDING,
  ATTR_GEN_AI_GUARDRAIL_SECURITY_RISK_CATEGORY,
  EVENT_EXCEPTION,
  ATTR_EXCEPTION_TYPE,
  ATTR_EXCEPTION_MESSAGE,
  ATTR_USER_ID,
} from '@guardtrace/semconv';
export {
  FAILURE_CLASSES,
  DECISIONS,
  AUTO_REPAIR_KINDS,
  GUARD_STAGES,
  OUTCOMES,
  SESSION_OUTCOMES,
  GUARD_VERDICTS,
  isFailureClass,
  isDecision,
  ESCALATION_REASONS,
  BUDGET_REASONS,
  isBudgetReason,
  RECONCILE_STATUSES,
  CIRCUIT_STATES,
  sessionSamplingWeight,
  MODEL_INPUT_EVENT,
  MODEL_INPUT_INDEXED_PREFIX,
  MODEL_INPUT_KEYS,
  MODEL_OUTPUT_EVENT,
  MODEL_OUTPUT_INDEXED_PREFIX,
  MODEL_OUTPUT_KEYS,
  TOOL_RESULT_KEYS,
} from '@guardtrace/semconv';
export type {
  FailureClass,
  Decision,
  AutoRepairKind,
  GuardStage,
  Outcome,
  SessionOutcome,
  GuardVerdict,
  EscalationReason,
  BudgetReason,
  ReconcileStatus,
  CircuitState,
  DatasetItem,
  DatasetItemAttempt,
  DatasetItemCheck,
  ReplayChange,
  ReplayDecision,
  ReplayResult,
  ReplayRunReport,
} from '@guardtrace/semconv';
