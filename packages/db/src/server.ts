// Node-only: embedded Postgres, migrator, test databases. Never imported by the web app.
export { connectionUrl, freePort, startEmbeddedPostgres } from './embedded.ts';
export { startThrowawayPostgres, sweepThrowaways } from './throwaway.ts';
export type { EmbeddedOptions, RunningPostgres } from './embedded.ts';
export { DEFAULT_MIGRATIONS_DIR, MigrationError, migrate, pendingMigrations, readMigrations } from './migrate.ts';
export type { MigrateResult, Migration } from './migrate.ts';
export { collationAdvice, createTestDatabase, DEFAULT_DATA_DIR, ensureDatabase, REPO_ROOT } from './database.ts';
export type { Database, TestDatabase } from './database.ts';
export { maintainSpanPartitions, partitionMonths } from './partitions.ts';
export type { PartitionReport } from './partitions.ts';
