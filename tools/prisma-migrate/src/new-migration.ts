/**
 * Writes prisma/migrations/<timestamp>_<name>/migration.sql for the difference between the
 * schema at the last migration (prisma/migrations/schema.snapshot.prisma) and
 * prisma/schema.prisma. Usage: pnpm --filter @guardtrace/prisma-migrate new <name>
 */
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT, startThrowawayPostgres } from '@guardtrace/db/dev';
import { diffSql } from './diff.ts';

const name = (process.argv[2] ?? '').replace(/[^a-z0-9_]+/gi, '_').toLowerCase();
if (!name) {
  console.error('usage: new-migration <name>   (e.g. add_session_user)');
  process.exit(2);
}
const schemaPath = path.join(REPO_ROOT, 'prisma/schema.prisma');
const migrationsDir = path.join(REPO_ROOT, 'prisma/migrations');
const snapshotPath = path.join(migrationsDir, 'schema.snapshot.prisma');

const to = await fs.readFile(schemaPath, 'utf8');
const from = existsSync(snapshotPath) ? await fs.readFile(snapshotPath, 'utf8') : null;
const pg = await startThrowawayPostgres();
try {
  const sql = await diffSql(from, to, pg.url);
  if (!sql.trim() || /^-- This is an empty migration/m.test(sql)) {
    console.log('schema.prisma has no changes since the last migration');
  } else {
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const dir = path.join(migrationsDir, `${stamp}_${name}`);
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, 'migration.sql'), sql);
    await fs.writeFile(snapshotPath, to);
    console.log(`wrote ${path.relative(REPO_ROOT, dir)}/migration.sql`);
  }
} finally {
  await pg.stop();
}
