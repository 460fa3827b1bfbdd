// Alerts' shared parts without Prisma (the collector bundles this; the web imports it too):
// the rules' kinds and checks, what a rule measures, the webhook body and its signed POST, and the price book.

export type { Measure, QueryRows, RuleRow } from './alert-measure.ts';
export { alertFacts, firingSubjects, measure, windowStart, worstSession } from './alert-measure.ts';
export type { AlertEventType, AlertFacts } from './alert-payload.ts';
export { alertBody, alertExplorerQuery, alertLinks, alertSummary } from './alert-payload.ts';
export type { AlertComparison, AlertFormat, AlertKind, AlertRuleInput } from './alert-rules.ts';
export { ALERT_COMPARISONS, ALERT_FORMATS, ALERT_KIND_NAMES, ALERT_KINDS, alertRuleProblem, crosses, isNewKind, MAX_WINDOW_MINUTES, shownToolName } from './alert-rules.ts';
export { PriceBook } from './prices.ts';
export type { WebhookResult } from './webhook.ts';
export { newWebhookSecret, postWebhook, SIGNATURE_HEADER, signWebhook, TIMESTAMP_HEADER } from './webhook.ts';
