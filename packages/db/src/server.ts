// Node-only, production-safe: migrator, span partitions, database preparation. Never imported
// by the web app's pages. The embedded Postgres and test databases are in `./dev`.

export { collationAdvice, inRecovery, prepareDatabase } from './database.ts';
export type { MigrateResult, Migration } from './migrate.ts';
export { DEFAULT_MIGRATIONS_DIR, MigrationError, migrate, pendingMigrations, readMigrations } from './migrate.ts';
export type { MigrateCommandOptions } from './migrate-command.ts';
export { migrateCommand } from './migrate-command.ts';
export type { PartitionReport } from './partitions.ts';
export { maintainSpanPartitions, partitionMonths } from './partitions.ts';
export type { RetentionOptions, RetentionReport } from './retention.ts';
export { applyRetention, RETENTION_LOCK } from './retention.ts';
