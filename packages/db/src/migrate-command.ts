/**
 * `guardtrace-migrate`: applies pending migrations to DATABASE_URL (and makes the span
 * partitions), or with `--status` lists the pending ones. Any number may run at once (several
 * collectors starting, a deploy job): Prisma's advisory lock lets one apply each migration and
 * the others find it applied. The collector's build compiles it to dist/migrate.js.
 */
import { inRecovery, prepareDatabase } from './database.ts';
import { connectionProblem, databaseUrlProblem } from './database-url.ts';
import { MigrationError, pendingMigrations } from './migrate.ts';

const USAGE = `usage: guardtrace-migrate [--status]
  Applies pending migrations to the Postgres database in DATABASE_URL.
  --status  list pending migrations; exit 1 when there are any, 0 when up to date`;

export interface MigrateCommandOptions {
  args: string[];
  /** DATABASE_URL, as the caller's environment parser read it. */
  databaseUrl: string | undefined;
  out?: (line: string) => void;
  err?: (line: string) => void;
}

/** Runs the command; resolves to the process' exit code (0 done, 1 failed or pending, 2 usage). */
export async function migrateCommand(opts: MigrateCommandOptions): Promise<number> {
  const out = opts.out ?? ((l: string) => console.log(l));
  const err = opts.err ?? ((l: string) => console.error(l));
  const unknown = opts.args.filter((a) => a !== '--status');
  if (opts.args.includes('--help') || opts.args.includes('-h') || unknown.length) {
    (unknown.length ? err : out)(USAGE);
    return unknown.length ? 2 : 0;
  }
  if (!opts.databaseUrl) {
    err('DATABASE_URL is required: set it to the postgres:// URL of the Guardtrace database');
    return 2;
  }
  const problem = databaseUrlProblem(opts.databaseUrl);
  if (problem) {
    err(`DATABASE_URL ${problem}`);
    return 2;
  }
  try {
    if (opts.args.includes('--status')) {
      const pending = await pendingMigrations(opts.databaseUrl);
      out(pending.length ? `pending migrations:\n${pending.map((m) => `  ${m}`).join('\n')}` : 'database is up to date');
      return pending.length ? 1 : 0;
    }
    // A standby cannot be migrated (its raw error is "cannot execute CREATE TABLE in a read-only transaction").
    if (await inRecovery(opts.databaseUrl)) {
      err('DATABASE_URL names a read-only standby (the server is in recovery): migrations are applied on the primary; point DATABASE_URL at it.');
      return 1;
    }
    await prepareDatabase(opts.databaseUrl, { log: out });
    out('database is up to date');
    return 0;
  } catch (e) {
    const problem = connectionProblem(e, opts.databaseUrl);
    if (problem !== null) err(problem);
    else err(e instanceof MigrationError ? e.message : `migration failed: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}
