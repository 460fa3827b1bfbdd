/**
 * The newest migration this code needs (prisma/migrations' last folder). The web app's /readyz
 * answers 503 until the database has it, so a load balancer does not send traffic to a web build
 * that is ahead of the schema (the collector migrates, or waits for the migrator, itself). A new
 * migration updates this name: test/schema-version.test.ts fails until it does.
 */
export const LATEST_MIGRATION = '20261208090000_model_call_input_with_cache';
