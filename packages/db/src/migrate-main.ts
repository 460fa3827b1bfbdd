/** `pnpm --filter @guardtrace/db migrate` in the workspace (the built bin is the collector's dist/migrate.js). */
import { migrateCommand } from './migrate-command.ts';

process.exitCode = await migrateCommand({ args: process.argv.slice(2), databaseUrl: process.env.DATABASE_URL || undefined });
