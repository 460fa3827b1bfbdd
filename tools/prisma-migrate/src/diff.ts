/**
 * Prisma's own SQL for a schema change, computed offline: Prisma 7's migrate commands need
 * a native engine download, but Prisma 6.19's CLI runs its WASM schema engine through a
 * driver adapter against any reachable Postgres (an embedded one here).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const PRISMA6_CLI = path.join(here, '../node_modules/prisma/build/index.js');

/** Schema text as Prisma 6 wants it: generators dropped, datasource given a url. */
function toPrisma6Schema(schema: string): string {
  const noGenerators = schema.replace(/generator\s+\w+\s*\{[^}]*\}/g, '');
  return noGenerators.replace(/datasource\s+(\w+)\s*\{([^}]*)\}/, (_m, name: string, body: string) => {
    const cleaned = body.replace(/^\s*url\s*=.*$/m, '');
    return `datasource ${name} {${cleaned}  url = env("DATABASE_URL")\n}`;
  });
}

const CONFIG = `
import { defineConfig } from 'prisma/config';
import { PrismaPg } from '@prisma/adapter-pg';
export default defineConfig({
  engine: 'js',
  experimental: { adapter: true },
  schema: 'to.prisma',
  adapter: async () => new PrismaPg({ connectionString: process.env.DATABASE_URL }),
});
`;

/**
 * SQL that takes a database from schema `from` (null: empty) to schema `to`.
 * `databaseUrl` must point at a reachable Postgres (used as Prisma's shadow connection).
 */
export async function diffSql(from: string | null, to: string, databaseUrl: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(here, '../.tmp-'));
  try {
    await fs.writeFile(path.join(dir, 'to.prisma'), toPrisma6Schema(to));
    if (from !== null) await fs.writeFile(path.join(dir, 'from.prisma'), toPrisma6Schema(from));
    // The config imports packages: it must live where node_modules resolves.
    const configFile = path.join(dir, 'prisma.config.ts');
    await fs.writeFile(configFile, CONFIG);
    const engineStub = path.join(dir, 'engine-stub');
    await fs.writeFile(engineStub, '');
    const args = [
      PRISMA6_CLI,
      'migrate',
      'diff',
      '--config',
      configFile,
      ...(from === null ? ['--from-empty'] : ['--from-schema-datamodel', path.join(dir, 'from.prisma')]),
      '--to-schema-datamodel',
      path.join(dir, 'to.prisma'),
      '--script',
    ];
    const { stdout } = await run(process.execPath, args, {
      cwd: dir,
      maxBuffer: 64 * 1024 * 1024,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PRISMA_HIDE_UPDATE_MESSAGE: '1',
        CHECKPOINT_DISABLE: '1',
        // Never run: the WASM engine does the work; the file only has to exist.
        PRISMA_QUERY_ENGINE_LIBRARY: engineStub,
        PRISMA_SCHEMA_ENGINE_BINARY: engineStub,
      },
    });
    return stdout;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

