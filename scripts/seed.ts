/**
 * `pnpm seed --sessions 50000`: realistic agent sessions sent through a collector over
 * OTLP/HTTP (tools/seed), so the collector itself writes raw spans and derived rows.
 *
 *   pnpm seed --sessions 5000 --key gt_...            # into `pnpm start`'s collector (:4318)
 *   pnpm seed --sessions 5000 --embedded              # a throwaway database, collector and web app
 *
 * Options: --endpoint URL (default $GUARDTRACE_ENDPOINT or http://127.0.0.1:4318), --key KEY
 * (default $GUARDTRACE_API_KEY), --seed N (1), --days N (30), --until ISO-DATE (now),
 * --concurrency N (8), --embedded, --exit (with --embedded: stop once seeded).
 */
import { parseArgs } from 'node:util';
import { freePort } from '@guardtrace/db/dev';
import { SeedError, sendSeed } from '@guardtrace/seed';
import cliProgress from 'cli-progress';
import { startSystem } from './system.ts';

function fail(message: string): never {
  console.error(`pnpm seed: ${message}`);
  process.exit(2);
}

function positiveInt(name: string, raw: string | undefined, def?: number): number {
  if (raw === undefined) {
    if (def === undefined) fail(`--${name} is required (a whole number above 0, e.g. --${name} 1000)`);
    return def;
  }
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) fail(`--${name} must be a whole number above 0, got "${raw}"`);
  return n;
}

let args: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    options: {
      sessions: { type: 'string' },
      endpoint: { type: 'string' },
      key: { type: 'string' },
      seed: { type: 'string' },
      days: { type: 'string' },
      until: { type: 'string' },
      concurrency: { type: 'string' },
      embedded: { type: 'boolean', default: false },
      exit: { type: 'boolean', default: false },
    },
    strict: true,
  }).values;
}
try {
  args = parse();
} catch (err) {
  fail((err as Error).message);
}

const sessions = positiveInt('sessions', args.sessions);
const seed = positiveInt('seed', args.seed, 1);
const days = positiveInt('days', args.days, 30);
const concurrency = positiveInt('concurrency', args.concurrency, 8);
const untilMs = args.until === undefined ? Date.now() : Date.parse(args.until);
if (!Number.isFinite(untilMs)) fail(`--until must be a date (e.g. 2026-12-01T12:00:00Z), got "${args.until}"`);

let endpoint = args.endpoint ?? process.env.GUARDTRACE_ENDPOINT ?? 'http://127.0.0.1:4318';
let apiKey = args.key ?? process.env.GUARDTRACE_API_KEY ?? '';
let system: Awaited<ReturnType<typeof startSystem>> | undefined;
if (args.embedded) {
  console.log('starting a throwaway database, collector and web app...');
  system = await startSystem({
    throwaway: true,
    collectorPort: await freePort(),
    webPort: await freePort(),
    demo: 'never',
    build: true,
    childOutput: () => {},
    log: () => {},
  });
  endpoint = system.collectorUrl;
  apiKey = system.createdApiKey ?? '';
} else if (!apiKey) {
  fail(
    'no API key: pass --key (or set GUARDTRACE_API_KEY). `pnpm start` prints the default key the first time it ' +
      'creates the database; later, create one in the web app under Settings > API keys.',
  );
}

// A bar on a terminal; elsewhere (CI logs, pipes) one line at the end, not one per request.
const bar = process.stderr.isTTY
  ? new cliProgress.SingleBar(
      { format: 'seeding [{bar}] {percentage}% | {value}/{total} sessions | {spans} spans | {rate} spans/s | eta {eta_formatted}', stream: process.stderr },
      cliProgress.Presets.shades_classic,
    )
  : undefined;
bar?.start(sessions, 0, { spans: 0, rate: 0 });
const t0 = performance.now();
let code = 0;
try {
  const result = await sendSeed({
    seed,
    sessions,
    days,
    untilMs,
    endpoint,
    apiKey,
    concurrency,
    onProgress: (p) => bar?.update(p.sessions, { spans: p.spans, rate: Math.round(p.spans / ((performance.now() - t0) / 1000)) }),
  });
  bar?.stop();
  const seconds = result.ms / 1000;
  console.log(
    `seeded ${result.sessions} sessions (${result.spans} spans, ${result.requests} requests, ${result.retries} retried) ` +
      `into ${endpoint} in ${seconds.toFixed(1)} s: ${Math.round(result.sessions / seconds)} sessions/s, ${Math.round(result.spans / seconds)} spans/s; ${result.largeSessions} large sessions (~5,000 spans each)`,
  );
} catch (err) {
  bar?.stop();
  console.error(`pnpm seed: ${err instanceof SeedError ? err.message : (err as Error).stack}`);
  code = 1;
}

if (system && !args.exit && code === 0) {
  console.log(`\n  Web app:        ${system.webUrl}/sessions\n  OTLP endpoint:  ${system.collectorUrl}/v1/traces\n  API key:        ${system.createdApiKey}\nPress Ctrl-C to stop (the database is thrown away).`);
  const stop = async () => {
    await system?.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} else {
  await system?.stop();
  process.exit(code);
}
