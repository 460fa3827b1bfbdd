import 'server-only';
import { type PrismaClient, queryArrays, type Sql, sql } from '@guardtrace/db';

/**
 * A query that reads many rows as positional arrays straight from the driver (`queryArrays`),
 * turned into objects here. For a 5,000-span session the replay reads ~20,000 rows: through
 * `$queryRaw` their mapping was most of the time, and as one `json_agg` text Postgres spent
 * most of its time escaping JSON and Node decoding it (apps/web/bench/notes.md, "Replay data
 * route"). Each column is named once, beside its SQL expression, so the two cannot drift apart.
 */
export type Columns<T> = { readonly [K in keyof T]: Sql };

function listOf(exprs: Sql[]): Sql {
  const [head, ...rest] = exprs;
  if (!head) throw new Error('selectColumns: no columns');
  return rest.reduce((acc, e) => sql`${acc}, ${e}`, head);
}

/**
 * The rows `SELECT <columns> <from>` (from: the FROM clause on, with its WHERE), in `orderBy`
 * when given, as objects keyed like `columns`. Values come as node-postgres parses them: cast
 * a column to int4 or float8 for a number, to text for a bigint.
 */
export async function selectColumns<T>(db: PrismaClient, columns: Columns<T>, from: Sql, orderBy?: Sql): Promise<T[]> {
  const keys = Object.keys(columns) as (keyof T & string)[];
  const select = listOf(keys.map((k) => columns[k]));
  const rows = await queryArrays(db, orderBy ? sql`SELECT ${select} ${from} ORDER BY ${orderBy}` : sql`SELECT ${select} ${from}`);
  return rows.map((values) => {
    const o: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) o[keys[i] as string] = values[i];
    return o as T;
  });
}

/** A timestamp column as whole epoch milliseconds (exact: `extract` answers numeric, and float8 holds them exactly). */
export const epochMs = (column: Sql): Sql => sql`floor(extract(epoch from ${column}) * 1000)::float8`;

/** Epoch milliseconds as the ISO text the page shows (UTC, milliseconds). */
export const isoOf = (ms: number): string => new Date(ms).toISOString();

/** A long text column as a preview: its first `chars` characters and its whole length (null stays null). */
export const previewOf = (column: Sql, chars: number): Sql =>
  sql`CASE WHEN ${column} IS NULL THEN NULL ELSE json_build_object('text', left(${column}, ${chars}::int), 'chars', length(${column})) END`;
