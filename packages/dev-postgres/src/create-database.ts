import pg from 'pg';

/**
 * Collation of the databases this package creates: code-point order, compared with memcmp.
 * Ids (trace, span, session) are text in every index, and a libc locale (even C.UTF-8)
 * compares through strcoll: on ingest that was ~10% of Postgres' time. Postgres 17+ has the
 * builtin C.UTF-8 locale (code-point order, Unicode upper/lower); older servers get
 * LC_COLLATE C and keep the server's character classification.
 */
export function collationClause(serverVersionNum: number): string {
  return serverVersionNum >= 170_000
    ? "TEMPLATE template0 LOCALE_PROVIDER builtin BUILTIN_LOCALE 'C.UTF-8'"
    : "TEMPLATE template0 LC_COLLATE 'C'";
}

/** `url` with its database replaced by `database`. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Creates database `name` on the server at `serverUrl` unless it exists; returns its URL. */
export async function createDatabaseIfMissing(serverUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  client.on('error', () => {});
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      const { rows } = await client.query<{ v: number }>(`SELECT current_setting('server_version_num')::int AS v`);
      await client.query(`CREATE DATABASE "${name}" ${collationClause(rows[0]?.v ?? 0)}`);
    }
  } finally {
    await client.end().catch(() => {});
  }
  return withDatabase(serverUrl, name);
}

/** Drops database `name` on the server at `serverUrl` (its connections are closed first). */
export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  const c = new pg.Client({ connectionString: serverUrl });
  c.on('error', () => {});
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
  await c.end().catch(() => {});
}
