import 'server-only';
import { sql } from '@guardtrace/db';
import { SESSION_SORTS, type SessionSort, type SortDirection } from '@/lib/session-sort';

type Sql = ReturnType<typeof sql>;

interface SortSpec {
  /** The sort value; identical to its index in prisma/unexpressible.sql (or schema.prisma). */
  expr: Sql;
  /** The value of a cursor, cast back to the expression's type. */
  cast: (v: string) => Sql;
  /** Accepts only what Postgres printed for this type, so a forged cursor is an error here, not in SQL. */
  valid: (v: string) => boolean;
}

const text = (v: string) => sql`${v}::text`;
const float = (v: string) => sql`${v}::float8`;
const isText = (v: string) => v.length <= 1000;
const isFloat = (v: string) => /^-?\d+(\.\d+)?(e[+-]?\d+)?$/.test(v) && Number.isFinite(Number(v));

const SORTS: Record<SessionSort, SortSpec> = {
  session: { expr: sql`s.id`, cast: text, valid: isText },
  agent: { expr: sql`coalesce(s.agent_name, '')`, cast: text, valid: isText },
  user: { expr: sql`coalesce(s.user_id, '')`, cast: text, valid: isText },
  status: { expr: sql`coalesce(s.outcome, '')`, cast: text, valid: isText },
  started: {
    expr: sql`s.started_at`,
    cast: (v) => sql`${v}::timestamptz`,
    valid: (v) => /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{1,6})?[+-]\d\d(:\d\d)?$/.test(v),
  },
  duration: {
    expr: sql`coalesce(extract(epoch from (s.ended_at - s.started_at)), -1)`,
    cast: (v) => sql`${v}::numeric`,
    valid: (v) => /^-?\d{1,15}(\.\d{1,6})?$/.test(v),
  },
  tool_calls: { expr: sql`(s.tool_call_count * s.sampling_weight)`, cast: float, valid: isFloat },
  attempts: { expr: sql`(s.attempt_count * s.sampling_weight)`, cast: float, valid: isFloat },
  retry_rate: {
    expr: sql`(CASE WHEN s.tool_call_count > 0 THEN greatest(s.attempt_count - s.tool_call_count, 0)::float8 / s.tool_call_count ELSE 0 END)`,
    cast: float,
    valid: isFloat,
  },
  tokens: { expr: sql`((s.input_tokens + s.output_tokens) * s.sampling_weight)`, cast: float, valid: isFloat },
};

export function sortExpr(sort: SessionSort): Sql {
  return SORTS[sort].expr;
}

/** Where a page starts: strictly after (or before) the row with this sort value and id. */
export interface Cursor {
  sort: SessionSort;
  value: string;
  id: string;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.sort, c.value, c.id]), 'utf8').toString('base64url');
}

/** The cursor, or an error message saying what is wrong with it. */
export function decodeCursor(token: string, sort: SessionSort): Cursor | { error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return { error: 'The page cursor in the URL is not readable.' };
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 3 ||
    !(SESSION_SORTS as readonly unknown[]).includes(parsed[0]) ||
    typeof parsed[1] !== 'string' ||
    typeof parsed[2] !== 'string'
  ) {
    return { error: 'The page cursor in the URL is not one this page made.' };
  }
  const [cursorSort, value, id] = parsed as [SessionSort, string, string];
  if (cursorSort !== sort) return { error: `The page cursor in the URL belongs to the “${cursorSort}” sort, not “${sort}”.` };
  if (!SORTS[sort].valid(value) || id.length > 1000) return { error: 'The page cursor in the URL holds a malformed value.' };
  return { sort, value, id };
}

/**
 * Rows past the cursor in reading order (`forward`), or before it (then read in reverse and
 * flipped by the caller). The row comparison matches the index (project, value, id).
 */
export function keysetCondition(c: Cursor, dir: SortDirection, forward: boolean): Sql {
  const { expr, cast } = SORTS[c.sort];
  const ascending = (dir === 'asc') === forward;
  return ascending
    ? sql`AND (${expr}, s.id) > (${cast(c.value)}, ${c.id}::text)`
    : sql`AND (${expr}, s.id) < (${cast(c.value)}, ${c.id}::text)`;
}

export function orderBy(sort: SessionSort, dir: SortDirection, forward: boolean): Sql {
  const expr = SORTS[sort].expr;
  return (dir === 'asc') === forward ? sql`ORDER BY ${expr} ASC, s.id ASC` : sql`ORDER BY ${expr} DESC, s.id DESC`;
}
