/**
 * What a rule measures over its window, read from the alerts' per-minute rollup (alert_minutes)
 * and, for "seen before", the daily analytics rollup: never the spans. One computation for the
 * collector's evaluation (pg) and the web's test alert (Prisma), so a test reports what the
 * evaluation at that moment would.
 */
import type { AlertEventType, AlertFacts } from './alert-payload.ts';
import { type AlertKind, crosses, isNewKind } from './alert-rules.ts';
import { PriceBook } from './prices.ts';

/**
 * Runs a query with $1.. parameters and resolves to its rows: `(text, values) => client.query(text, values).then((r) => r.rows)`
 * with pg, `(text, values) => prisma.$queryRawUnsafe(text, ...values)` with Prisma.
 */
export type QueryRows = <T>(text: string, values: unknown[]) => Promise<T[]>;

export interface RuleRow {
  id: string;
  project_id: string;
  name: string;
  kind: AlertKind;
  failure_class: string | null;
  tool_name: string | null;
  window_minutes: number;
  comparison: 'gt' | 'gte' | 'lt' | 'lte';
  threshold: number;
  webhook_url: string;
  format: 'generic' | 'slack';
  muted: boolean;
}

/** One measured subject: '' for a threshold rule, the class or tool of a new_* rule. */
export interface Measure {
  value: number;
  worstSessionId: string | null;
}

const MINUTE_MS = 60_000;

/**
 * The window's first minute: the rollup's whole minutes that hold the last `window_minutes`
 * minutes before `now`, the current one included (so N to N + 1 minutes: a failure in the
 * seconds after one evaluation is still in the next one's window, whatever the window).
 */
export function windowStart(now: Date, minutes: number): Date {
  return new Date(Math.floor((now.getTime() - minutes * MINUTE_MS) / MINUTE_MS) * MINUTE_MS);
}

// The rows of the rule's project and window, of its tool when it names one ($1..$4).
const SCOPE = `project_id = $1::uuid AND minute >= $2::timestamptz AND minute <= $3::timestamptz AND ($4::text IS NULL OR tool_name = $4)`;
// ... and of its class when it names one ($5).
const CLASS = `($5::text IS NULL OR failure_class = $5)`;

const SUMS: Partial<Record<AlertKind, string>> = {
  failure_count: `sum(failed_attempts) FILTER (WHERE ${CLASS})`,
  escalations: `sum(escalations) FILTER (WHERE ${CLASS})`,
  exhausted: `sum(exhausted) FILTER (WHERE ${CLASS})`,
  rejections_unfixed: `sum(rejections_unfixed) FILTER (WHERE ${CLASS})`,
  repair_tokens: `sum(repair_input_tokens + repair_output_tokens) FILTER (WHERE ${CLASS})`,
  // A class's failed attempts among all the attempts (of the tool, if named), in percent; the
  // attempts weighted by sampling (failed sessions are always kept: weight 1).
  failure_rate: `100.0 * sum(failed_attempts) FILTER (WHERE ${CLASS}) / nullif(sum(weighted_attempts), 0)`,
};

/**
 * The measures of a rule at `now`: one per subject that counts (threshold rules: always one, '').
 * Their worst session is left null: worstSession() finds it for the events that are sent.
 */
export async function measure(q: QueryRows, r: RuleRow, now: Date): Promise<Map<string, Measure>> {
  const from = windowStart(now, r.window_minutes);
  const args = [r.project_id, from, now, r.tool_name, r.failure_class];
  if (r.kind === 'new_failure_class' || r.kind === 'new_failing_tool') return measureNew(q, r, from, now);
  let value: number;
  if (r.kind === 'repair_dollars') {
    const rows = await q<{ model: string; u: number; o: number; ci: number }>(
      `SELECT model, sum(repair_uncached_input_tokens)::float8 AS u, sum(repair_output_tokens)::float8 AS o, sum(repair_cached_input_tokens)::float8 AS ci
       FROM alert_minutes WHERE ${SCOPE} AND ${CLASS} AND model <> '' GROUP BY model`,
      args,
    );
    const prices = await q<{ model: string; inputPerMTok: number; outputPerMTok: number; cachedInputPerMTok: number }>(
      `SELECT model, input_per_mtok AS "inputPerMTok", output_per_mtok AS "outputPerMTok", cached_input_per_mtok AS "cachedInputPerMTok"
       FROM model_prices WHERE project_id = $1::uuid`,
      [r.project_id],
    );
    const book = new PriceBook(prices);
    value = 0;
    // A model without a price adds nothing (as the web's estimates leave it out).
    for (const m of rows) {
      const p = book.lookup(m.model)?.price;
      if (!p) continue;
      // each turn's uncached input as it is priced alone (costOf), summed by the rollup
      value += (m.u * p.inputPerMTok + m.ci * p.cachedInputPerMTok + m.o * p.outputPerMTok) / 1_000_000;
    }
  } else {
    const sum = SUMS[r.kind] as string;
    const rows = await q<{ v: string | number | null }>(`SELECT (${sum})::float8 AS v FROM alert_minutes WHERE ${SCOPE}`, args);
    value = Number(rows[0]?.v ?? 0);
  }
  // Sums of prices and weights in floating point: $0.70 + $0.10 is 0.7999999999999999, which a
  // rule of >= $0.80 must see as 0.8. Twelve significant digits are more than any measure means.
  value = Number(value.toPrecision(12));
  return new Map([['', { value, worstSessionId: null }]]);
}

/**
 * A new_* rule: each failure class (or tool) with failed attempts in the window and none before
 * it, as far as the rollups remember (alert_minutes since the window's UTC day began, analytics_daily before).
 */
async function measureNew(
  q: QueryRows,
  r: RuleRow,
  from: Date,
  now: Date,
): Promise<Map<string, Measure>> {
  const col = r.kind === 'new_failure_class' ? 'failure_class' : 'tool_name';
  // The other dimension's filter: a new class of this tool, a new failing tool of this class.
  const other = r.kind === 'new_failure_class' ? r.tool_name : r.failure_class;
  const otherCol = r.kind === 'new_failure_class' ? 'tool_name' : 'failure_class';
  const dayStart = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate()));
  const rows = await q<{ subject: string; n: number }>(
    `SELECT w.${col} AS subject, sum(w.failed_attempts)::float8 AS n
     FROM alert_minutes w
     WHERE w.project_id = $1::uuid AND w.minute >= $2::timestamptz AND w.minute <= $3::timestamptz AND w.${col} <> '' AND w.failed_attempts > 0
       AND ($4::text IS NULL OR w.${otherCol} = $4)
     GROUP BY w.${col}
     HAVING NOT EXISTS (
         SELECT 1 FROM alert_minutes b WHERE b.project_id = $1::uuid AND b.minute >= $5::timestamptz AND b.minute < $2::timestamptz AND b.${col} = w.${col}
           AND b.failed_attempts > 0 AND ($4::text IS NULL OR b.${otherCol} = $4))
       AND NOT EXISTS (
         SELECT 1 FROM analytics_daily d WHERE d.project_id = $1::uuid AND d.day < ($5::timestamptz AT TIME ZONE 'UTC')::date AND d.${col} = w.${col}
           AND d.failed_attempts > 0 AND ($4::text IS NULL OR d.${otherCol} = $4))`,
    [r.project_id, from, now, other, dayStart],
  );
  const out = new Map<string, Measure>();
  for (const row of rows) out.set(row.subject, { value: Number(row.n), worstSessionId: null });
  return out;
}

/**
 * The subjects the evaluation at that moment fires for, with their measures: a threshold rule's one
 * ('') when its value crosses the threshold; every new failure class or tool of a new_* rule.
 */
export function firingSubjects(r: RuleRow, measures: Map<string, Measure>): Map<string, Measure> {
  const out = new Map<string, Measure>();
  for (const [subject, m] of measures) {
    if (isNewKind(r.kind) || crosses(m.value, r.comparison, r.threshold)) out.set(subject, m);
  }
  return out;
}

/**
 * The facts of one event of a rule's subject (its webhook body is alertBody of these): one builder
 * for the evaluation's firings and resolutions and the settings page's test, so a test's payload is
 * the firing's but for its type. `subject`: the new class or tool of a new_* rule (null when a test
 * finds none new); ignored for a threshold rule.
 */
export function alertFacts(
  r: RuleRow,
  e: { eventId: string; type: AlertEventType; at: Date; webUrl: string | null },
  subject: string | null,
  m: Measure,
): AlertFacts {
  return {
    eventId: e.eventId,
    type: e.type,
    at: e.at,
    projectId: r.project_id,
    rule: {
      id: r.id,
      name: r.name,
      kind: r.kind,
      failureClass: r.failure_class,
      toolName: r.tool_name,
      windowMinutes: r.window_minutes,
      comparison: r.comparison,
      threshold: r.threshold,
    },
    subject: isNewKind(r.kind) ? subject : null,
    value: m.value,
    windowStart: windowStart(e.at, r.window_minutes),
    worstSessionId: m.worstSessionId,
    webUrl: e.webUrl,
  };
}

/** An attempt's tool: its own name, else its tool call's (as the rollups and the explorer read it). */
const toolOf = (a: string) =>
  `coalesce(${a}.tool_name, (SELECT c.tool_name FROM tool_calls c WHERE c.project_id = ${a}.project_id AND c.trace_id = ${a}.trace_id AND c.span_id = ${a}.tool_call_span_id LIMIT 1), '')`;

/**
 * Not a session held at weight 0 (one every process would drop, kept only until the collector's
 * decision wait ends): the explorer does not list those, and the example must be one it lists.
 */
const KEPT = (x: string) => `NOT EXISTS (SELECT 1 FROM sessions s WHERE s.project_id = ${x}.project_id AND s.id = ${x}.session_id AND s.sampling_weight = 0)`;

/** What an attempt must be to count for each attempt-counting kind (as guardtrace_update_alert_minutes counts it). */
const COUNTED: Partial<Record<AlertKind, string>> = {
  failure_count: `a.outcome IS DISTINCT FROM 'success'`,
  failure_rate: `a.outcome IS DISTINCT FROM 'success'`,
  new_failure_class: `a.outcome IS DISTINCT FROM 'success'`,
  new_failing_tool: `a.outcome IS DISTINCT FROM 'success'`,
  escalations: `a.outcome IS DISTINCT FROM 'success' AND a.decision IN ('escalate_human', 'fail_reconcile', 'abort')`,
  // Whatever its outcome (as the rollup, analytics' retry exhaustion and the explorer's budget: count it).
  exhausted: `a.budget_exhausted IS NOT NULL`,
  // Counted at the minute its correction failed, not the rejection's own.
  rejections_unfixed: `a.alert_unfixed_at IS NOT NULL`,
};

/**
 * The session that holds the most of what the rule counted over its window at `now` (of `subject`,
 * a new_* rule's class or tool): the most failed attempts (escalations, exhausted budgets, rejections
 * not fixed next) of the rule's class and tool, or the most repair tokens (dollars) answering them;
 * ties go to the session whose last such event is latest. It is counted from the sessions' attempts
 * and repair turns in the window, exactly, because the per-minute rollup keeps one example session a
 * row (a session second in every row it is in, but first over the window, was missed). Run for the
 * events that are sent (a firing, a resolution, a test), not at every evaluation. Null when none.
 */
export async function worstSession(q: QueryRows, r: RuleRow, subject: string | null, now: Date): Promise<string | null> {
  const from = windowStart(now, r.window_minutes);
  // The rollup's minutes <= now: every event before the end of now's minute.
  const end = new Date(Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS + MINUTE_MS);
  const tool = r.kind === 'new_failing_tool' ? subject : r.tool_name;
  const cls = r.kind === 'new_failure_class' ? subject : r.failure_class;
  const args = [r.project_id, from, end, tool, cls];
  if (r.kind === 'repair_tokens' || r.kind === 'repair_dollars') {
    // Repair turns started in the window, under the class and tool of the attempt each answers
    // (found by span id in the project), else the class the turn names.
    const rows = await q<{ s: string; model: string; i: number; o: number; ci: number; last: Date }>(
      `SELECT m.session_id AS s, coalesce(m.model, '') AS model, sum(m.input_tokens)::float8 AS i, sum(m.output_tokens)::float8 AS o,
         sum(m.cached_input_tokens)::float8 AS ci, max(m.started_at) AS last
       FROM model_calls m
       LEFT JOIN LATERAL (SELECT x.failure_class, ${toolOf('x')} AS tool FROM attempts x
         WHERE x.project_id = m.project_id AND x.span_id = m.repair_attempt_span_id LIMIT 1) a ON true
       WHERE m.project_id = $1::uuid AND m.started_at >= $2::timestamptz AND m.started_at < $3::timestamptz
         AND (m.repair_attempt_span_id IS NOT NULL OR m.repair_failure_class IS NOT NULL) AND ${KEPT('m')}
         AND ($4::text IS NULL OR coalesce(a.tool, '') = $4) AND ($5::text IS NULL OR coalesce(a.failure_class, m.repair_failure_class, '') = $5)
       GROUP BY m.session_id, coalesce(m.model, '')`,
      args,
    );
    const book =
      r.kind === 'repair_dollars'
        ? new PriceBook(
            await q<{ model: string; inputPerMTok: number; outputPerMTok: number; cachedInputPerMTok: number }>(
              `SELECT model, input_per_mtok AS "inputPerMTok", output_per_mtok AS "outputPerMTok", cached_input_per_mtok AS "cachedInputPerMTok"
               FROM model_prices WHERE project_id = $1::uuid`,
              [r.project_id],
            ),
          )
        : null;
    const per = new Map<string, { n: number; last: number }>();
    for (const row of rows) {
      let n = row.i + row.o;
      if (book) {
        // A model without a price adds nothing (as the measure leaves it out).
        const p = book.lookup(row.model)?.price;
        n = p ? (Math.max(row.i - row.ci, 0) * p.inputPerMTok + row.ci * p.cachedInputPerMTok + row.o * p.outputPerMTok) / 1_000_000 : 0;
      }
      const e = per.get(row.s) ?? { n: 0, last: 0 };
      per.set(row.s, { n: e.n + n, last: Math.max(e.last, new Date(row.last).getTime()) });
    }
    // As the measure rounds its sum: $0.70 + $0.10 ties with $0.80.
    for (const e of per.values()) e.n = Number(e.n.toPrecision(12));
    let best: [string, { n: number; last: number }] | null = null;
    for (const e of per) {
      if (e[1].n <= 0) continue;
      if (best === null || e[1].n > best[1].n || (e[1].n === best[1].n && (e[1].last > best[1].last || (e[1].last === best[1].last && e[0] < best[0])))) best = e;
    }
    return best?.[0] ?? null;
  }
  const time = r.kind === 'rejections_unfixed' ? 'a.alert_unfixed_at' : 'a.started_at';
  const rows = await q<{ s: string }>(
    `SELECT a.session_id AS s FROM attempts a
     WHERE a.project_id = $1::uuid AND ${time} >= $2::timestamptz AND ${time} < $3::timestamptz AND ${COUNTED[r.kind]} AND ${KEPT('a')}
       AND ($5::text IS NULL OR coalesce(a.failure_class, '') = $5) AND ($4::text IS NULL OR ${toolOf('a')} = $4)
     GROUP BY a.session_id ORDER BY count(*) DESC, max(${time}) DESC, a.session_id LIMIT 1`,
    args,
  );
  return rows[0]?.s ?? null;
}
