/**
 * Alert rules (Settings > Alerts; evaluated by the collector, apps/collector/src/alerts): what a
 * rule can measure, and the check of a rule's fields, shared by the web's form and the collector.
 */
import { FAILURE_CLASSES } from '@guardtrace/semconv';

/** What a rule measures over its window, from the alerts' per-minute rollup (alert_minutes). */
export const ALERT_KINDS = {
  failure_count: { label: 'Failed attempts', unit: 'attempts' },
  failure_rate: { label: 'Failure rate', unit: '%' },
  escalations: { label: 'Escalations', unit: 'escalations' },
  exhausted: { label: 'Budget or retry exhaustion', unit: 'attempts' },
  rejections_unfixed: { label: 'Rejections not fixed next', unit: 'rejections' },
  repair_tokens: { label: 'Repair tokens', unit: 'tokens' },
  repair_dollars: { label: 'Repair cost', unit: 'USD' },
  new_failure_class: { label: 'New failure class', unit: 'classes' },
  new_failing_tool: { label: 'New tool failing', unit: 'tools' },
} as const;
export type AlertKind = keyof typeof ALERT_KINDS;
export const ALERT_KIND_NAMES = Object.keys(ALERT_KINDS) as AlertKind[];

/** The kinds that fire per new failure class or tool (subject), with no threshold. */
export const isNewKind = (k: AlertKind): boolean => k === 'new_failure_class' || k === 'new_failing_tool';

/**
 * A rule's tool as a person reads it: quoted when it has spaces around it (stored as its spans sent
 * it), which HTML and chat clients would fold away. The settings page and the alert's summary alike.
 */
export const shownToolName = (name: string): string => (name.trim() === name ? name : JSON.stringify(name));

export const ALERT_COMPARISONS = { gt: '>', gte: '≥', lt: '<', lte: '≤' } as const;
export type AlertComparison = keyof typeof ALERT_COMPARISONS;

export const ALERT_FORMATS = ['generic', 'slack'] as const;
export type AlertFormat = (typeof ALERT_FORMATS)[number];

/**
 * The longest window: a day. The collector keeps alert_minutes two days (a window, plus the part
 * of the day before it that the new_* kinds read as "seen before").
 */
export const MAX_WINDOW_MINUTES = 1440;

/** The largest threshold: above any count, rate, token sum or dollar sum a day's window holds. */
export const MAX_THRESHOLD = 1e12;

export interface AlertRuleInput {
  name: string;
  kind: AlertKind;
  failureClass: string | null;
  toolName: string | null;
  windowMinutes: number;
  comparison: AlertComparison;
  threshold: number;
  webhookUrl: string;
  format: AlertFormat;
}

/** True when `value` crosses the rule's threshold. */
export function crosses(value: number, comparison: AlertComparison, threshold: number): boolean {
  switch (comparison) {
    case 'gt':
      return value > threshold;
    case 'gte':
      return value >= threshold;
    case 'lt':
      return value < threshold;
    case 'lte':
      return value <= threshold;
  }
}

/** The first thing wrong with a rule's fields, in words, or null. */
export function alertRuleProblem(r: AlertRuleInput): string | null {
  if (!r.name.trim() || r.name.length > 120) return 'Name the rule (at most 120 characters)';
  if (!(r.kind in ALERT_KINDS)) return `Unknown metric "${r.kind}"`;
  if (!Number.isInteger(r.windowMinutes) || r.windowMinutes < 1 || r.windowMinutes > MAX_WINDOW_MINUTES) {
    return `Window: a whole number of minutes from 1 to ${MAX_WINDOW_MINUTES}`;
  }
  if (!(r.comparison in ALERT_COMPARISONS)) return `Unknown comparison "${r.comparison}"`;
  if (!Number.isFinite(r.threshold) || r.threshold < 0) return 'Threshold: a decimal number, 0 or more (such as 3 or 0.25)';
  // A threshold no window can reach makes a rule that never fires, which reads as "all is well".
  if (r.threshold > MAX_THRESHOLD) return 'Threshold: at most 1,000,000,000,000';
  if (r.kind === 'failure_rate' && r.threshold > 100) return 'Threshold: a failure rate is a percentage, at most 100';
  // Every window's value is 0 or more: "≥ 0" holds in every window (a rule that always fires, even
  // for a tool that never ran) and "< 0" in none (one that never fires). Not for the new_* kinds,
  // which have no threshold.
  if (!isNewKind(r.kind) && r.threshold === 0 && (r.comparison === 'gte' || r.comparison === 'lt')) {
    return r.comparison === 'gte'
      ? 'Threshold: “≥ 0” holds in every window, so the rule would always fire; use “> 0” to fire on any'
      : 'Threshold: “< 0” holds in no window (a value is 0 or more), so the rule would never fire';
  }
  if (!(ALERT_FORMATS as readonly string[]).includes(r.format)) return `Unknown format "${r.format}"`;
  let url: URL;
  try {
    url = new URL(r.webhookUrl);
  } catch {
    return 'Webhook URL: enter an absolute http:// or https:// URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'Webhook URL: enter an absolute http:// or https:// URL';
  // fetch() refuses such a URL (every delivery would fail), and the password would be stored with the rule.
  if (url.username || url.password) {
    return 'Webhook URL: without a user name or password (a delivery cannot send them); the receiver checks X-Guardtrace-Signature instead';
  }
  if (r.webhookUrl.length > 2000) return 'Webhook URL: at most 2,000 characters';
  for (const [label, v] of [
    ['Failure class', r.failureClass],
    ['Tool', r.toolName],
  ] as const) {
    // 256: the longest name a tool's indexed column holds (a longer one is stored shortened to 256
    // bytes with a marker, apps/collector/src/key-text.ts), so a rule can name any stored tool.
    if (v !== null && (v.trim().length === 0 || v.length > 256)) return `${label}: at most 256 characters`;
  }
  // A class the stored attempts cannot have would measure 0 for ever (and its link find nothing).
  if (r.failureClass !== null && !(FAILURE_CLASSES as readonly string[]).includes(r.failureClass)) {
    return `Failure class: one of ${FAILURE_CLASSES.join(', ')} (or empty for any), not “${r.failureClass}”`;
  }
  return null;
}
