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
 * when given, as positional arrays, with each column's position by its key (`at`). For the
 * largest reads, whose callers build each row's object as a literal (`{ traceId: r[at.traceId] }`):
 * V8 makes those at one fixed shape: ~15 times faster than keyed stores into a copy of a
 * template in a microbenchmark of 6,629 rows × 26 columns (0.15 against 2.2 ms).
 */
export async function selectArrays<K extends string>(
  db: PrismaClient,
  columns: { readonly [P in K]: Sql },
  from: Sql,
  orderBy?: Sql,
): Promise<{ rows: unknown[][]; at: { readonly [P in K]: number } }> {
  const keys = Object.keys(columns) as K[];
  const select = listOf(keys.map((k) => columns[k]));
  const rows = await queryArrays(db, orderBy ? sql`SELECT ${select} ${from} ORDER BY ${orderBy}` : sql`SELECT ${select} ${from}`);
  const at = {} as { [P in K]: number };
  keys.forEach((k, i) => {
    at[k] = i;
  });
  return { rows, at };
}

/**
 * The rows `SELECT <columns> <from>` (from: the FROM clause on, with its WHERE), in `orderBy`
 * when given, as objects keyed like `columns`. Values come as node-postgres parses them: cast
 * a column to int4 or float8 for a number, to text for a bigint.
 */
export async function selectColumns<T>(db: PrismaClient, columns: Columns<T>, from: Sql, orderBy?: Sql): Promise<T[]> {
  const { rows, at } = await selectArrays(db, columns as { readonly [P in keyof T & string]: Sql }, from, orderBy);
  const keys = Object.keys(at);
  // Each row starts as a copy of one object that already has every key, so the stores below
  // change values and not the object's shape (adding the keys one by one to `{}` for every row
  // took 1,128 ms of samples in a profile of 46 builds of a 6,600-span replay, the copy 745 ms).
  const template: Record<string, unknown> = {};
  for (const k of keys) template[k] = null;
  return rows.map((values) => {
    const o = { ...template };
    for (let i = 0; i < keys.length; i++) o[keys[i] as string] = values[i];
    return o as T;
  });
}

/** A timestamp column as whole epoch milliseconds (exact: `extract` answers numeric, and float8 holds them exactly). */
export const epochMs = (column: Sql): Sql => sql`floor(extract(epoch from ${column}) * 1000)::float8`;

// The last minute isoOf formatted, as its ISO prefix `YYYY-MM-DDTHH:MM:`.
let cachedMinute = Number.NaN;
let cachedPrefix = '';
// 0000-01-01 to 9999-12-31: the years `toISOString` writes with four digits.
const FIRST_MS = -62_167_219_200_000;
const LAST_MS = 253_402_300_799_999;

/**
 * Epoch milliseconds as the ISO text the page shows (UTC, milliseconds), as `toISOString`
 * writes it. A replay formats ~13,000 times, mostly within a few minutes: the minute's prefix is
 * kept and only seconds and milliseconds are written, since each `Date` made in a request goes
 * through Next's wrapper of the global `Date` (~10 ms a 6,600-span build in a profile).
 */
export function isoOf(ms: number): string {
  if (!Number.isInteger(ms) || ms < FIRST_MS || ms > LAST_MS) return new Date(ms).toISOString();
  const minute = Math.floor(ms / 60_000);
  if (minute !== cachedMinute) {
    cachedPrefix = new Date(minute * 60_000).toISOString().slice(0, 17);
    cachedMinute = minute;
  }
  const rest = ms - minute * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  return `${cachedPrefix}${seconds < 10 ? '0' : ''}${seconds}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}

/** A long text column as a preview: its first `chars` characters and its whole length (null stays null). */
export const previewOf = (column: Sql, chars: number): Sql =>
  sql`CASE WHEN ${column} IS NULL THEN NULL ELSE json_build_object('text', left(${column}, ${chars}::int), 'chars', length(${column})) END`;
