#!/usr/bin/env node
/** `guardtrace-migrate` (dist/migrate.js): applies pending migrations to DATABASE_URL; `--status` lists them. */
import { migrateCommand } from '@guardtrace/db/server';
import { migrateEnv } from './env.ts';

process.exitCode = await migrateCommand({ args: process.argv.slice(2), databaseUrl: migrateEnv().databaseUrl });
