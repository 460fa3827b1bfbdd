/** Migrate a database to just before one migration, as a database made before it existed. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_MIGRATIONS_DIR, migrate, readMigrations } from '../src/server.ts';

/** Applies the migrations before the one whose name ends with `suffix` (it must exist). */
export async function migrateUntil(url: string, suffix: string): Promise<void> {
  const all = await readMigrations();
  const at = all.findIndex((m) => m.name.endsWith(suffix));
  if (at <= 0) throw new Error(`migrateUntil: no migration named *${suffix} after the first one in ${DEFAULT_MIGRATIONS_DIR}`);
  const before = await fs.mkdtemp(path.join(os.tmpdir(), 'gt-migrations-'));
  try {
    for (const m of all.slice(0, at)) {
      await fs.cp(path.join(DEFAULT_MIGRATIONS_DIR, m.name), path.join(before, m.name), { recursive: true });
    }
    await migrate(url, { dir: before });
  } finally {
    await fs.rm(before, { recursive: true, force: true });
  }
}
