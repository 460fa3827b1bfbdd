import { expect, it } from 'vitest';
import { readMigrations } from '../src/migrate.ts';
import { LATEST_MIGRATION } from '../src/schema-version.ts';

it("LATEST_MIGRATION names prisma/migrations' last migration (the web's /readyz waits for it)", async () => {
  const last = (await readMigrations()).at(-1)?.name;
  expect(LATEST_MIGRATION, 'a new migration: set LATEST_MIGRATION in packages/db/src/schema-version.ts to its folder name').toBe(last);
});
