import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'prisma/config';

const here = path.dirname(fileURLToPath(import.meta.url));
// `prisma generate` never runs the schema engine, but looks for one and would try to
// download it; any existing non-executable file satisfies the lookup offline.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.join(here, 'prisma.config.ts');

export default defineConfig({
  schema: path.join(here, '../../prisma/schema.prisma'),
  migrations: { path: path.join(here, '../../prisma/migrations') },
  // Unset is fine for `generate`; migrations are applied by our own migrator.
  datasource: { url: process.env.DATABASE_URL ?? '' },
});
