/**
 * Span names and attribute keys Guardtrace writes and reads.
 *
 * `gen_ai.*` keys follow the OpenTelemetry GenAI semantic conventions (v1.37+); the
 * `gen_ai.guardrail.*` keys follow the shape of the in-progress guardrail proposal and may
 * be renamed upstream (old names would then stay here as documented aliases).
 * Everything else lives under `guardtrace.*`. No Node imports: this module is shared by the
 * SDK, the collector and the browser bundle of the web app.
 */

// ---------------------------------------------------------------- operations / span names

/** `gen_ai.operation.name` of the session root span. @example 'invoke_agent' */
export const OP_INVOKE_AGENT = 'invoke_agent' as const;
/** `gen_ai.operation.name` of a model call. @example 'chat' */
export const OP_CHAT = 'chat' as const;
/** `gen_ai.operation.name` of a logical tool call. @example 'execute_tool' */
export const OP_EXECUTE_TOOL = 'execute_tool' as const;
/** `gen_ai.operation.name` of one guard decision. @example 'apply_guardrail' */
export const OP_APPLY_GUARDRAIL = 'apply_guardrail' as const;
/** Span name (and `gen_ai.operation.name`) of one attempt of a tool call. @example 'guardtrace.attempt' */
export const SPAN_ATTEMPT = 'guardtrace.attempt' as const;

// ---------------------------------------------------------------- gen_ai.* (OTel GenAI)

/** The operation a span represents. @example 'execute_tool' */
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name' as const;
/** Session id: every span of one agent session carries it. @example 'sess_01J9...' */
export const ATTR_GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id' as const;
/** Agent name on `invoke_agent`. @example 'invoice-agent' */
export const ATTR_GEN_AI_AGENT_NAME = 'gen_ai.agent.name' as const;
/** Agent id on `invoke_agent`. @example 'agent_42' */
export const ATTR_GEN_AI_AGENT_ID = 'gen_ai.agent.id' as const;
/** Model provider. @example 'openai' */
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name' as const;
/** Model requested. @example 'gpt-4.1-mini' */
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model' as const;
/** Model that answered. @example 'gpt-4.1-mini-2025-04-14' */
export const ATTR_GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model' as const;
/** Input (prompt) tokens of a model call. @example 4000 */
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens' as const;
/** Output (completion) tokens of a model call. @example 120 */
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens' as const;
/** Deprecated alias of `gen_ai.usage.input_tokens`, still read from older emitters. */
export const ATTR_GEN_AI_USAGE_PROMPT_TOKENS = 'gen_ai.usage.prompt_tokens' as const;
/** Deprecated alias of `gen_ai.usage.output_tokens`, still read from older emitters. */
export const ATTR_GEN_AI_USAGE_COMPLETION_TOKENS = 'gen_ai.usage.completion_tokens' as const;
/**
 * Input tokens served from the provider's prompt cache (included in `gen_ai.usage.input_tokens`);
 * priced at the model's cached-input rate. @example 3000
 */
export const ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens' as const;
/** Older name of `gen_ai.usage.cache_read.input_tokens` (OpenLLMetry and others), still read. */
export const ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS_OLD = 'gen_ai.usage.cache_read_input_tokens' as const;
/**
 * Input tokens written to the provider's prompt cache (included in `gen_ai.usage.input_tokens`);
 * read only to tell an input reported without its cache tokens, priced as ordinary input. @example 2048
 */
export const ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS = 'gen_ai.usage.cache_creation.input_tokens' as const;
/** Older name of `gen_ai.usage.cache_creation.input_tokens` (OpenLLMetry and others), still read. */
export const ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS_OLD = 'gen_ai.usage.cache_creation_input_tokens' as const;
/** Tool name. @example 'read_file' */
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name' as const;
/** Tool call id given by the model. @example 'call_mszuSIzqtI65i1wAUOE8w5H4' */
export const ATTR_GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id' as const;
/** Tool description. @example 'Read a file of the workspace' */
export const ATTR_GEN_AI_TOOL_DESCRIPTION = 'gen_ai.tool.description' as const;
/** Tool type. @example 'function' */
export const ATTR_GEN_AI_TOOL_TYPE = 'gen_ai.tool.type' as const;
/** Arguments of a tool call, JSON text (sanitized). @example '{"path":"src/a.ts"}' */
export const ATTR_GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments' as const;
/** Result of a tool call, JSON text (sanitized, truncated). @example '{"ok":true}' */
export const ATTR_GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result' as const;
/** Messages sent to the model, when the agent opted in to content capture (OTel GenAI). @example '[{"role":"user","parts":[{"type":"text","content":"Fix the test"}]}]' */
export const ATTR_GEN_AI_INPUT_MESSAGES = 'gen_ai.input.messages' as const;
/** Messages the model returned, when the agent opted in to content capture (OTel GenAI). @example '[{"role":"assistant","parts":[{"type":"text","content":"Done"}]}]' */
export const ATTR_GEN_AI_OUTPUT_MESSAGES = 'gen_ai.output.messages' as const;
/** Error type of a failed operation (OTel general convention). @example 'missing_resource' */
export const ATTR_ERROR_TYPE = 'error.type' as const;

/** Guard name on `apply_guardrail`. @example 'file_exists' */
export const ATTR_GEN_AI_GUARDRAIL_NAME = 'gen_ai.guardrail.name' as const;
/** Verdict of a guard: `pass` or `fail`. @example 'fail' */
export const ATTR_GEN_AI_GUARDRAIL_VERDICT = 'gen_ai.guardrail.verdict' as const;
/** Human-readable reason of a failed guard (sanitized). @example 'File not found: componets/Button.tsx' */
export const ATTR_GEN_AI_GUARDRAIL_REASON = 'gen_ai.guardrail.reason' as const;

// ---------------------------------------------------------------- gen_ai.guardrail.* (merged)
// The GenAI guardrail conventions merged in the OpenTelemetry GenAI semantic-conventions
// repository (Development status, docs/gen-ai/gen-ai-guardrails.md): a `gen_ai.apply_guardrail.client`
// span (operation `apply_guardrail`) and `gen_ai.guardrail.result` events, on that span or on the
// span a dedicated in-process guardrail API ran under. Values are the provider's own: emitters
// never translate them into allow/deny; the collector derives pass/fail only by the documented
// table in docs/semantic-conventions.md ("Guardrail results").

/** Event name of one result a guardrail reported (span event). @example 'gen_ai.guardrail.result' */
export const EVENT_GEN_AI_GUARDRAIL_RESULT = 'gen_ai.guardrail.result' as const;
/** Human-readable name of the guardrail service or component (span or result event). @example 'Amazon Bedrock Guardrails' */
export const ATTR_GEN_AI_GUARDRAIL_COMPONENT_NAME = 'gen_ai.guardrail.component.name' as const;
/** Identifier of the guardrail policy or configuration evaluated. @example 'gr-abc123' */
export const ATTR_GEN_AI_GUARDRAIL_POLICY_ID = 'gen_ai.guardrail.policy.id' as const;
/** Version of the guardrail policy or configuration evaluated. @example 'DRAFT' */
export const ATTR_GEN_AI_GUARDRAIL_POLICY_VERSION = 'gen_ai.guardrail.policy.version' as const;
/** Rule, filter or detector inside the policy that produced the result (result event). @example 'topic-policy-financial-advice' */
export const ATTR_GEN_AI_GUARDRAIL_POLICY_RULE_ID = 'gen_ai.guardrail.policy.rule.id' as const;
/** Provider-native name of the result field or kind. @example 'action' */
export const ATTR_GEN_AI_GUARDRAIL_RESULT_TYPE = 'gen_ai.guardrail.result.type' as const;
/** Provider-native result value, as a string. @example 'GUARDRAIL_INTERVENED' */
export const ATTR_GEN_AI_GUARDRAIL_RESULT_VALUE = 'gen_ai.guardrail.result.value' as const;
/** Human-readable explanation reported with the result (low cardinality, no user content). @example 'Prompt attack detected' */
export const ATTR_GEN_AI_GUARDRAIL_RESULT_REASON = 'gen_ai.guardrail.result.reason' as const;
/** Provider-native source or stage of the content evaluated. @example 'tool_input' */
export const ATTR_GEN_AI_GUARDRAIL_SOURCE = 'gen_ai.guardrail.source' as const;
/** Provider-native risk category of one result (result event). @example 'PROMPT_ATTACK' */
export const ATTR_GEN_AI_GUARDRAIL_RISK_CATEGORY = 'gen_ai.guardrail.risk.category' as const;
/** Provider-native risk, confidence or severity score, on the provider's scale (result event). @example 6 */
export const ATTR_GEN_AI_GUARDRAIL_RISK_SCORE = 'gen_ai.guardrail.risk.score' as const;
/** `gen_ai.guardrail.result.type` of Guardtrace's own guards: the guard's verdict, `pass` or `fail`. @example 'verdict' */
export const GUARDRAIL_RESULT_TYPE_VERDICT = 'verdict' as const;

// ---------------------------------------------------------------- guardtrace.*

/** Schema version of the guardtrace.* attributes of a session's spans, on its invoke_agent span only (constant per session). @example 1 */
export const ATTR_GUARDTRACE_VERSION = 'guardtrace.version' as const;
/** 1-based attempt number within a tool call. @example 2 */
export const ATTR_GUARDTRACE_ATTEMPT = 'guardtrace.attempt' as const;
/** Outcome of an attempt or tool call. See {@link OUTCOMES}. @example 'failed' */
export const ATTR_GUARDTRACE_OUTCOME = 'guardtrace.outcome' as const;
/** Failure class of a failed attempt. See {@link FAILURE_CLASSES}. @example 'transient' */
export const ATTR_GUARDTRACE_FAILURE_CLASS = 'guardtrace.failure.class' as const;
/** Decision taken after an attempt or guard. See {@link DECISIONS}. @example 'retry_backoff' */
export const ATTR_GUARDTRACE_DECISION = 'guardtrace.decision' as const;
/** Feedback shown to the model, sanitized. @example 'Missing required field "content"' */
export const ATTR_GUARDTRACE_FEEDBACK = 'guardtrace.feedback' as const;
/** Backoff waited before the next attempt, in ms. @example 412 */
export const ATTR_GUARDTRACE_BACKOFF_MS = 'guardtrace.backoff_ms' as const;
/** Attempts left for this call after this attempt. @example 1 */
export const ATTR_GUARDTRACE_BUDGET_ATTEMPTS_LEFT = 'guardtrace.budget.attempts_left' as const;
/** Retries left in the session after this attempt. @example 7 */
export const ATTR_GUARDTRACE_BUDGET_SESSION_RETRIES_LEFT = 'guardtrace.budget.session_retries_left' as const;
/** Name of the budget that was exhausted, if any. @example 'session_retries' */
export const ATTR_GUARDTRACE_BUDGET_EXHAUSTED = 'guardtrace.budget.exhausted' as const;
/** Guard stage on `apply_guardrail`. See {@link GUARD_STAGES}. @example 'logical' */
export const ATTR_GUARDTRACE_GUARD_STAGE = 'guardtrace.guard.stage' as const;
/** Guard duration in microseconds. @example 14 */
export const ATTR_GUARDTRACE_GUARD_DURATION_US = 'guardtrace.guard.duration_us' as const;
/** Tool flag: the tool only reads. @example true */
export const ATTR_GUARDTRACE_TOOL_READ_ONLY = 'guardtrace.tool.read_only' as const;
/** Tool flag: repeating the call has no further effect. @example false */
export const ATTR_GUARDTRACE_TOOL_IDEMPOTENT = 'guardtrace.tool.idempotent' as const;
/** Tool flag: the call destroys data. @example false */
export const ATTR_GUARDTRACE_TOOL_DESTRUCTIVE = 'guardtrace.tool.destructive' as const;
/** Tool flag: the call reaches a system outside the process. @example true */
export const ATTR_GUARDTRACE_TOOL_EXTERNAL = 'guardtrace.tool.external' as const;
/** Idempotency key made at intent time. @example 'idk_3f9a...' */
export const ATTR_GUARDTRACE_IDEMPOTENCY_KEY = 'guardtrace.idempotency_key' as const;
/** Span id of the attempt a model call repairs. @example '5fb397be34d26b51' */
export const ATTR_GUARDTRACE_REPAIR_ATTEMPT_SPAN_ID = 'guardtrace.repair.attempt_span_id' as const;
/** Failure class that a model call repairs: its tokens are repair tokens of that class. @example 'invalid_arguments' */
export const ATTR_GUARDTRACE_REPAIR_FAILURE_CLASS = 'guardtrace.repair.failure_class' as const;
/** Session outcome on `invoke_agent`. See {@link SESSION_OUTCOMES}. @example 'escalated' */
export const ATTR_GUARDTRACE_SESSION_OUTCOME = 'guardtrace.session.outcome' as const;
/** Sampling weight: how many sessions this kept session stands for. @example 10 */
export const ATTR_GUARDTRACE_SAMPLING_WEIGHT = 'guardtrace.sampling.weight' as const;
/** User the session runs for (repair-token budget is per user). @example 'user_17' */
export const ATTR_GUARDTRACE_USER_ID = 'guardtrace.user.id' as const;

// ---------------------------------------------------------------- guardtrace.* (added by the SDK)

/** Intent id the idempotency key was made from (a regenerated call keeps it). @example 'intent_charge_inv_88' */
export const ATTR_GUARDTRACE_INTENT_ID = 'guardtrace.intent.id' as const;
/** Rejections (reject_with_feedback) left in the task after this attempt. @example 1 */
export const ATTR_GUARDTRACE_BUDGET_REJECTIONS_LEFT = 'guardtrace.budget.rejections_left' as const;
/** Added latency (backoff + failed attempts) left in the session after this attempt, in ms. @example 28750 */
export const ATTR_GUARDTRACE_BUDGET_LATENCY_LEFT_MS = 'guardtrace.budget.latency_left_ms' as const;
/** Repair tokens left for the session's user in the rolling window. @example 182000 */
export const ATTR_GUARDTRACE_BUDGET_REPAIR_TOKENS_LEFT = 'guardtrace.budget.repair_tokens_left' as const;
/** Why a call escalated instead of being retried or rejected. See {@link ESCALATION_REASONS}. @example 'repeated_rejection' */
export const ATTR_GUARDTRACE_ESCALATION_REASON = 'guardtrace.escalation.reason' as const;
/** Tool proposed instead when the decision is `fallback_tool`. @example 'write_file' */
export const ATTR_GUARDTRACE_FALLBACK_TOOL = 'guardtrace.fallback.tool' as const;
/**
 * On a tool call the runtime ran by itself, not the model: the discovery tool a tool declares
 * (`discover`), run after a call of it was handed back (`replan`) so the model gets valid choices.
 * The value is the call id of the call it ran for; its answer is part of that call's feedback.
 * @example 'c3'
 */
export const ATTR_GUARDTRACE_DISCOVERY_FOR_CALL_ID = 'guardtrace.discovery.for_call_id' as const;
/** Answer of the tool's reconcile hook after an uncertain side effect. See {@link RECONCILE_STATUSES}. @example 'committed' */
export const ATTR_GUARDTRACE_RECONCILE_STATUS = 'guardtrace.reconcile.status' as const;
/** Circuit-breaker state of the tool when the attempt started. See {@link CIRCUIT_STATES}. @example 'open' */
export const ATTR_GUARDTRACE_CIRCUIT_STATE = 'guardtrace.circuit.state' as const;
/** True when the call was answered from the idempotency store instead of running again. @example true */
export const ATTR_GUARDTRACE_DEDUPLICATED = 'guardtrace.deduplicated' as const;
/**
 * On another instrumentation's span whose tool call or model call a Guardtrace integration
 * records on a span of its own (the Vercel AI SDK's `ai.toolCall` and `ai.*.doGenerate` /
 * `doStream` under `guardedAiSdk`): the operation of that span. The collector derives no row
 * from such a span, so nothing is counted twice. @example 'chat'
 */
export const ATTR_GUARDTRACE_RECORDED_AS = 'guardtrace.recorded_as' as const;
/**
 * The tool a LangChain tool run records, beside `guardtrace.recorded_as` in the run's metadata
 * (`guardLangChainTools` sets both on the run of the original tool): a tracer that exports run
 * metadata (OpenInference's LangChain instrumentation: its `metadata` JSON) carries them to the
 * run's tool span, and the collector derives no row from a tool span of that tool so marked.
 * Child runs inherit the metadata; the tool name keeps a nested tool's span counted.
 * @example 'get_weather'
 */
export const ATTR_GUARDTRACE_RECORDED_TOOL = 'guardtrace.recorded_tool' as const;
/** Bounded list of valid candidates a guard offered (paths, tool names), closest first. @example ['src/components/Button.tsx'] */
export const ATTR_GUARDTRACE_GUARD_CANDIDATES = 'guardtrace.guard.candidates' as const;
/** JSON pointers (RFC 6901) into the attempt's arguments of the fields a failed guard objects to; `''` is the whole arguments value. @example ['/items/3/qty'] */
export const ATTR_GUARDTRACE_GUARD_POINTERS = 'guardtrace.guard.pointers' as const;
/** On an attempt with decision `auto_repair`: what was corrected in code. See {@link AUTO_REPAIR_KINDS}. @example 'tool_name' */
export const ATTR_GUARDTRACE_AUTO_REPAIR_KIND = 'guardtrace.auto_repair.kind' as const;
/**
 * On an attempt with decision `auto_repair`: JSON pointers into the repaired arguments (the next
 * attempt's) of what was corrected; the pointers before are the failed guard's
 * `guardtrace.guard.pointers`. Empty for a tool name. @example ['/query']
 */
export const ATTR_GUARDTRACE_AUTO_REPAIR_POINTERS = 'guardtrace.auto_repair.pointers' as const;
/** On an attempt with decision `auto_repair` of kind `tool_name`: the tool the call ran as instead. @example 'search_files' */
export const ATTR_GUARDTRACE_AUTO_REPAIR_TOOL = 'guardtrace.auto_repair.tool' as const;
/** Number of repair tokens (input + output) of a model call that repairs a failed attempt. @example 18000 */
export const ATTR_GUARDTRACE_REPAIR_TOKENS = 'guardtrace.repair.tokens' as const;
/**
 * Order of a step (model turn or tool call) in its session, as the SDK's loop took them: 1, 2, 3…
 * counted by each session object in its process, so it compares only steps under the same
 * `invoke_agent` span. The replay orders steps by it where no repair or parent link does, never
 * by start times that tie within a millisecond. @example 7
 */
export const ATTR_GUARDTRACE_STEP_SEQUENCE = 'guardtrace.step.sequence' as const;

// ---------------------------------------------------------------- read from other emitters
// The collector reads these from spans Guardtrace's SDK does not write. Guardrail keys follow
// the OpenTelemetry GenAI guardrail proposals, which are not in a released semconv yet: the
// `run_guardrail` span (semconv-genai#427: gen_ai.guardrail.component/verdict/action.*) and the
// earlier `apply_guardrail` "security guardian" prototype (gen_ai.security.decision.*,
// gen_ai.security.finding events). Exception keys are the OTel general `exception` event.

/** `gen_ai.operation.name` of a guardrail run in semconv-genai#427. @example 'run_guardrail' */
export const OP_RUN_GUARDRAIL = 'run_guardrail' as const;
/** Guardrail decision in semconv-genai#427: `allow`, `deny`, `warn`, `modify`, `audit`. @example 'deny' */
export const ATTR_GEN_AI_GUARDRAIL_VERDICT_TYPE = 'gen_ai.guardrail.verdict.type' as const;
/** Human-readable reason of a guardrail decision in semconv-genai#427. @example 'email address in input' */
export const ATTR_GEN_AI_GUARDRAIL_VERDICT_REASON = 'gen_ai.guardrail.verdict.reason' as const;
/** What the caller did after the guardrail in semconv-genai#427: `allow`, `block`, `modify`. @example 'block' */
export const ATTR_GEN_AI_GUARDRAIL_ACTION_TYPE = 'gen_ai.guardrail.action.type' as const;
/** Guardrail decision as some instrumentations write it (not in a proposal). @example 'deny' */
export const ATTR_GEN_AI_GUARDRAIL_DECISION = 'gen_ai.guardrail.decision' as const;
/** Whether the guardrail passed, as some instrumentations write it (not in a proposal). @example false */
export const ATTR_GEN_AI_GUARDRAIL_PASSED = 'gen_ai.guardrail.passed' as const;
/** Guardian name in the `apply_guardrail` security prototype. @example 'Content Filter' */
export const ATTR_GEN_AI_GUARDIAN_NAME = 'gen_ai.guardian.name' as const;
/** Decision in the `apply_guardrail` security prototype: `allow`, `deny`, `warn`, `modify`, `audit`. @example 'deny' */
export const ATTR_GEN_AI_SECURITY_DECISION_TYPE = 'gen_ai.security.decision.type' as const;
/** Reason of the decision in the `apply_guardrail` security prototype. @example 'PII detected in output' */
export const ATTR_GEN_AI_SECURITY_DECISION_REASON = 'gen_ai.security.decision.reason' as const;
/** Risk category of one finding (event attribute). @example 'sensitive_info_disclosure' */
export const ATTR_GEN_AI_SECURITY_RISK_CATEGORY = 'gen_ai.security.risk.category' as const;
/** Risk severity of one finding (event attribute). @example 'high' */
export const ATTR_GEN_AI_SECURITY_RISK_SEVERITY = 'gen_ai.security.risk.severity' as const;
/** Event name of one violation found by a guardrail (security prototype). @example 'gen_ai.security.finding' */
export const EVENT_GEN_AI_SECURITY_FINDING = 'gen_ai.security.finding' as const;
/** Event name of one violation found by a guardrail (semconv-genai#427). @example 'gen_ai.guardrail.security.finding' */
export const EVENT_GEN_AI_GUARDRAIL_SECURITY_FINDING = 'gen_ai.guardrail.security.finding' as const;
/** Risk category of one finding in semconv-genai#427 (span or event attribute). @example 'excessive_agency' */
export const ATTR_GEN_AI_GUARDRAIL_SECURITY_RISK_CATEGORY = 'gen_ai.guardrail.security.risk.category' as const;
/** Event name of a recorded exception (OTel general convention). @example 'exception' */
export const EVENT_EXCEPTION = 'exception' as const;
/** Exception type on the `exception` event. @example 'TypeError' */
export const ATTR_EXCEPTION_TYPE = 'exception.type' as const;
/** Exception message on the `exception` event. @example 'upstream 503' */
export const ATTR_EXCEPTION_MESSAGE = 'exception.message' as const;
/** User of the session (OTel general convention; OpenInference too). @example 'user_17' */
export const ATTR_USER_ID = 'user.id' as const;
