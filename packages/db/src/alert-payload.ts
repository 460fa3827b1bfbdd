/**
 * The body of an alert webhook, generic JSON or Slack-compatible (`{"text": ...}` with mrkdwn
 * links), with its links: the sessions explorer filtered to the alert (its query language,
 * apps/web/src/lib/session-query.ts: `class:`, `tool:`, `decision:`, `budget:`, `failed:`, `unfixed:`, `repaired:`) and the
 * replay of the session that failed most in the window. Links are absolute under the web's
 * base URL (GUARDTRACE_BASE_URL, where browsers reach it), relative paths without one.
 */
import { ALERT_COMPARISONS, ALERT_KINDS, type AlertComparison, type AlertFormat, type AlertKind, crosses, isNewKind, shownToolName } from './alert-rules.ts';

export type AlertEventType = 'firing' | 'resolved' | 'test';

export interface AlertFacts {
  eventId: string;
  type: AlertEventType;
  at: Date;
  projectId: string;
  rule: {
    id: string;
    name: string;
    kind: AlertKind;
    failureClass: string | null;
    toolName: string | null;
    windowMinutes: number;
    comparison: AlertComparison;
    threshold: number;
  };
  /** The new failure class or tool of a new_* rule; null otherwise. */
  subject: string | null;
  value: number;
  windowStart: Date;
  worstSessionId: string | null;
  /** Where browsers reach the web app, e.g. https://guardtrace.example.com; null: links are paths. */
  webUrl: string | null;
}

/** The decisions after a failed attempt that the Escalations alert counts (as its rollup, alert_minutes.escalations). */
const ESCALATION_DECISIONS = ['escalate_human', 'fail_reconcile', 'abort'] as const;

/** The kinds that sum repair turns (alert_minutes.repair_*_tokens, at the turn's minute). */
const REPAIR_KINDS: readonly AlertKind[] = ['repair_tokens', 'repair_dollars'];

// As the web's explorer links (apps/web/src/lib/explorer-link.ts): a value with spaces, quotes or a colon is quoted.
function term(field: string, value: string): string {
  return /[\s":\\]/.test(value) ? `${field}:"${value.replace(/["\\]/g, '\\$&')}"` : `${field}:${value}`;
}

// The window's first minute, as the explorer's `failed:` reads a UTC minute (2026-11-30T12:48Z).
const minute = (d: Date) => `${d.toISOString().slice(0, 16)}Z`;

/**
 * The explorer's query for the alert's sessions: a failed attempt of its class and tool since the
 * window's first minute to its last (`failed:`: the time of the attempt, as the alert counts it,
 * whenever its session began), so the list holds the sessions the alert counted, not every one since midnight.
 */
export function alertExplorerQuery(f: Pick<AlertFacts, 'rule' | 'subject' | 'windowStart' | 'at'>): string {
  const terms: string[] = [];
  const cls = f.rule.kind === 'new_failure_class' ? f.subject : f.rule.failureClass;
  const tool = f.rule.kind === 'new_failing_tool' ? f.subject : f.rule.toolName;
  if (cls) terms.push(term('class', cls));
  if (tool) terms.push(term('tool', tool));
  // The decisions the Escalations alert counts (guardtrace_update_alert_minutes), on the failed
  // attempt itself: an aborted session's status is "failed", not "escalated".
  if (f.rule.kind === 'escalations') terms.push(`decision:${ESCALATION_DECISIONS.join(',')}`);
  // The attempts the exhaustion alert counts: those naming a budget that ran out, not any failure.
  if (f.rule.kind === 'exhausted') terms.push('budget:any');
  // To the minute of the evaluation (the window's last): a failure after the alert is not one it counted.
  // A rejection not fixed next counts at the minute its correction failed (attempts.alert_unfixed_at),
  // whenever it was rejected: `unfixed:` compares that minute. Repair tokens and cost count the
  // model turns that repaired a failure, at the turn's minute: `repaired:`. Every other kind, the failure's own.
  const key = f.rule.kind === 'rejections_unfixed' ? 'unfixed' : REPAIR_KINDS.includes(f.rule.kind) ? 'repaired' : 'failed';
  terms.push(`${key}:>=${minute(f.windowStart)}`, `${key}:<=${minute(f.at)}`);
  return terms.join(' ');
}

export function alertLinks(f: AlertFacts): { explorer: string; worstSession: string | null } {
  const base = f.webUrl ? f.webUrl.replace(/\/+$/, '') : '';
  const project = encodeURIComponent(f.projectId);
  const q = encodeURIComponent(alertExplorerQuery(f)).replaceAll('%3A', ':');
  return {
    explorer: `${base}/sessions?project=${project}&q=${q}`,
    worstSession: f.worstSessionId ? `${base}/sessions/${encodeURIComponent(f.worstSessionId)}?project=${project}` : null,
  };
}

// Below 1, four significant digits (a repair cost of $0.00003 read "0.0000 USD" with four decimals).
const SMALL = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 4, useGrouping: false });
const num = (v: number) => (Number.isInteger(v) ? String(v) : v < 1 ? SMALL.format(v) : v.toFixed(2));

/** The comparison that holds when a value does not cross: a resolution reads "0 < 5", not "0 ≥ 5". */
const NOT_CROSSING = { gt: '≤', gte: '<', lt: '≥', lte: '>' } as const satisfies Record<keyof typeof ALERT_COMPARISONS, string>;

/**
 * One line saying what happened, e.g. "FIRING: Checkout timeouts — Failed attempts (class timeout): 12 ≥ 10 over 5 min"
 * (a resolution or a test below the threshold: "3 < 10").
 */
export function alertSummary(f: AlertFacts): string {
  const k = ALERT_KINDS[f.rule.kind];
  const scope = [f.rule.failureClass && `class ${f.rule.failureClass}`, f.rule.toolName && `tool ${shownToolName(f.rule.toolName)}`].filter(Boolean).join(', ');
  const what = `${k.label}${scope ? ` (${scope})` : ''}`;
  const head = f.type === 'test' ? 'TEST' : f.type === 'firing' ? 'FIRING' : 'RESOLVED';
  const unit = k.unit === '%' ? '%' : k.unit === 'USD' ? ' USD' : '';
  // The new_* kinds' label already says what is new: the measure names the subject and its count.
  const measure =
    isNewKind(f.rule.kind)
      ? `${f.subject ?? ''} (${num(f.value)} failed attempt${f.value === 1 ? '' : 's'})`
      : `${num(f.value)}${unit} ${(crosses(f.value, f.rule.comparison, f.rule.threshold) ? ALERT_COMPARISONS : NOT_CROSSING)[f.rule.comparison]} ${num(f.rule.threshold)}${unit}`;
  return `${head}: ${f.rule.name} — ${what}: ${measure} over ${f.rule.windowMinutes} min`;
}

/**
 * Text as Slack's mrkdwn shows it: `&`, `<` and `>` escaped (Slack's rule), so a rule or tool named
 * `<!channel>` or `a <b> c` is shown as written instead of pinging a channel or making a link.
 */
function slackText(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** The JSON body of a webhook in the rule's format. */
export function alertBody(f: AlertFacts, format: AlertFormat): string {
  const links = alertLinks(f);
  const summary = alertSummary(f);
  if (format === 'slack') {
    const replay = links.worstSession ? ` · <${links.worstSession}|Worst session's replay>` : '';
    return JSON.stringify({ text: `${slackText(summary)}\n<${links.explorer}|Open in the explorer>${replay}` });
  }
  return JSON.stringify({
    type: `alert.${f.type}`,
    id: f.eventId,
    at: f.at.toISOString(),
    projectId: f.projectId,
    rule: f.rule,
    subject: f.subject,
    value: f.value,
    window: { start: f.windowStart.toISOString(), end: f.at.toISOString(), minutes: f.rule.windowMinutes },
    summary,
    links,
  });
}
