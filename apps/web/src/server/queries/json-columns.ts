import 'server-only';
import { type PrismaClient, type Sql, sql } from '@guardtrace/db';

/**
 * A query that answers many rows as one JSON text of positional arrays (`[[v1, v2, …], …]`),
 * decoded into objects here. For a 5,000-span session the replay reads ~20,000 rows: as row
 * objects through the driver that mapping is most of the time; as one JSON array of objects
 * the repeated key names are over half of the text Postgres builds and Node decodes (4.7 MB
 * against 2.2 MB for the spans, apps/web/bench/notes.md "Replay data route"). Each column is
 * named once, beside its SQL expression, so the two cannot drift apart.
 */
export type Columns<T> = { readonly [K in keyof T]: Sql };

/** `json_build_array(expr1, expr2, …)` in the columns' order. */
function jsonArrayOf(exprs: Sql[]): Sql {
  const [head, ...rest] = exprs;
  if (!head) throw new Error('jsonArrayOf: no columns');
  const list = rest.reduce((acc, e) => sql`${acc}, ${e}`, head);
  return sql`json_build_array(${list})`;
}

/**
 * The rows `SELECT <columns> <from>` (from: the FROM clause on, with its WHERE), in `orderBy`
 * when given, as objects keyed like `columns`.
 */
export async function jsonColumns<T>(db: PrismaClient, columns: Columns<T>, from: Sql, orderBy?: Sql): Promise<T[]> {
  const keys = Object.keys(columns) as (keyof T & string)[];
  const array = jsonArrayOf(keys.map((k) => columns[k]));
  const agg = orderBy ? sql`json_agg(${array} ORDER BY ${orderBy})` : sql`json_agg(${array})`;
  const [r] = await db.$queryRaw<{ rows: string | null }[]>`SELECT ${agg}::text AS rows ${from}`;
  if (!r?.rows) return [];
  const arrays = JSON.parse(r.rows) as unknown[][];
  return arrays.map((values) => {
    const o: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) o[keys[i] as string] = values[i];
    return o as T;
  });
}

/** A timestamp column as whole epoch milliseconds (exact: `extract` answers numeric). */
export const epochMs = (column: Sql): Sql => sql`floor(extract(epoch from ${column}) * 1000)::int8`;

/** Epoch milliseconds as the ISO text the page shows (UTC, milliseconds), like `to_char` did. */
export const isoOf = (ms: number): string => new Date(ms).toISOString();

/** A long text column as a preview: its first `chars` characters and its whole length (null stays null). */
export const previewOf = (column: Sql, chars: number): Sql =>
  sql`CASE WHEN ${column} IS NULL THEN NULL ELSE json_build_object('text', left(${column}, ${chars}::int), 'chars', length(${column})) END`;
