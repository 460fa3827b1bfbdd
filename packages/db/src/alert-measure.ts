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
 * The rollup rows an example session may come from, per kind: the rows that hold what the rule
 * counts (an escalations rule's example is a session that escalated, not the one that failed most).
 */
const COUNTED_ROWS: Record<AlertKind, string> = {
  failure_count: 'failed_attempts > 0',
  failure_rate: 'failed_attempts > 0',
  escalations: 'escalations > 0',
  exhausted: 'exhausted > 0',
  rejections_unfixed: 'rejections_unfixed > 0',
  repair_tokens: 'repair_input_tokens + repair_output_tokens > 0',
  repair_dollars: 'repair_input_tokens + repair_output_tokens > 0',
  new_failure_class: 'failed_attempts > 0',
  new_failing_tool: 'failed_attempts > 0',
};

/** The measures of a rule at `now`: one per subject that counts (threshold rules: always one, ''). */
export async function measure(q: QueryRows, r: RuleRow, now: Date): Promise<Map<string, Measure>> {
  const from = windowStart(now, r.window_minutes);
  const args = [r.project_id, from, now, r.tool_name, r.failure_class];
  const worstOf = async (extra: string, extraArgs: unknown[]) => {
    // Each rollup row (a minute, tool, class and model) names its example session with its count
    // there: summed per session over the window's rows, a session whose failures (or repair
    // tokens) spread over minutes, classes or models beats one with more in a single row.
    const rows = await q<{ s: string }>(
      `SELECT worst_session_id AS s FROM alert_minutes WHERE ${SCOPE} AND ${CLASS} AND worst_session_id IS NOT NULL AND ${COUNTED_ROWS[r.kind]} ${extra}
       GROUP BY worst_session_id ORDER BY sum(worst_failures) DESC, max(minute) DESC, worst_session_id LIMIT 1`,
      [...args, ...extraArgs],
    );
    return rows[0]?.s ?? null;
  };
  if (r.kind === 'new_failure_class' || r.kind === 'new_failing_tool') return measureNew(q, r, from, now, worstOf);
  let value: number;
  if (r.kind === 'repair_dollars') {
    const rows = await q<{ model: string; i: number; o: number; ci: number }>(
      `SELECT model, sum(repair_input_tokens)::float8 AS i, sum(repair_output_tokens)::float8 AS o, sum(repair_cached_input_tokens)::float8 AS ci
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
      const uncached = Math.max(m.i - m.ci, 0);
      value += (uncached * p.inputPerMTok + m.ci * p.cachedInputPerMTok + m.o * p.outputPerMTok) / 1_000_000;
    }
  } else {
    const sum = SUMS[r.kind] as string;
    const rows = await q<{ v: string | number | null }>(`SELECT (${sum})::float8 AS v FROM alert_minutes WHERE ${SCOPE}`, args);
    value = Number(rows[0]?.v ?? 0);
  }
  // Sums of prices and weights in floating point: $0.70 + $0.10 is 0.7999999999999999, which a
  // rule of >= $0.80 must see as 0.8. Twelve significant digits are more than any measure means.
  value = Number(value.toPrecision(12));
  return new Map([['', { value, worstSessionId: await worstOf('', []) }]]);
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
  worstOf: (extra: string, args: unknown[]) => Promise<string | null>,
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
  for (const row of rows) {
    const worst = await worstOf(`AND ${col} = $6`, [row.subject]);
    out.set(row.subject, { value: Number(row.n), worstSessionId: worst });
  }
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
