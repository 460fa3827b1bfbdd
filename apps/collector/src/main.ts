/** Process entry: env -> database (DATABASE_URL, migrated) -> app -> listen; signals drain. */
import { connectionProblem } from '@guardtrace/db/database-url';
import { applyRetention, inRecovery, maintainSpanPartitions, pendingMigrations, prepareDatabase } from '@guardtrace/db/server';
import { startAlerts } from './alerts/run.ts';
import { buildApp } from './app.ts';
import { boundedDrain } from './drain.ts';
import { parseEnv } from './env.ts';

async function main(): Promise<void> {
  let env: ReturnType<typeof parseEnv>;
  try {
    env = parseEnv();
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
  const log = (line: string) => console.log(`[collector] ${line}`);
  const databaseUrl = env.databaseUrl;
  // A database it cannot reach or sign in to, or a port it cannot listen on: one line saying
  // what to fix, not pg's error object and its stack.
  const fail = (err: unknown): never => {
    const problem = connectionProblem(err, databaseUrl) ?? listenProblem(err, env.host, env.port);
    if (problem === null) throw err;
    console.error(`[collector] failed to start: ${problem}`);
    process.exit(1);
  };
  try {
    await start(env, log);
  } catch (err) {
    fail(err);
  }
}

/** Why listening on host:port failed, for a person (EADDRINUSE, EACCES), or null. */
function listenProblem(err: unknown, host: string, port: number): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'EADDRINUSE') return `port ${port} on ${host} is in use by another process: stop it, or set PORT (and HOST) to another address`;
  if (code === 'EACCES') return `may not listen on port ${port} on ${host} (ports below 1024 need privileges): set PORT to 1024 or above`;
  if (code === 'EADDRNOTAVAIL') return `${host} is not an address of this machine: set HOST to one of its addresses (0.0.0.0 for all)`;
  return null;
}

async function start(env: ReturnType<typeof parseEnv>, log: (line: string) => void): Promise<void> {
  const databaseUrl = env.databaseUrl;
  // The collector writes: a standby (a read replica) would fail its first write with a raw
  // "read-only transaction" error. Said plainly instead (an unreachable server is left to the steps below).
  if (await inRecovery(databaseUrl)) {
    console.error('DATABASE_URL names a read-only standby (the server is in recovery): the collector writes, so point DATABASE_URL at the primary.');
    process.exit(1);
  }
  if (env.migrateOnStart) await prepareDatabase(databaseUrl, { log });
  else if ((await pendingMigrations(databaseUrl)).length === 0) await maintainSpanPartitions(databaseUrl);
  else log('migrations are pending (GUARDTRACE_MIGRATE_ON_START=false): /readyz answers 503 until the migrator (node dist/migrate.js) has run');
  const app = await buildApp({
    databaseUrl,
    logger: { level: env.logLevel },
    redaction: env.redaction,
    ...env.limits,
  });
  // Span partitions are made ahead at start (prepareDatabase) and renewed daily; retention
  // (each project's, else GUARDTRACE_RETENTION_DAYS) runs hourly in one collector at a time:
  // the others find its advisory lock held and skip the run.
  const maintain = () =>
    maintainSpanPartitions(databaseUrl)
      .then((r) => {
        if (r.created.length) app.log.info(r, 'span partitions made');
      })
      .catch((err) => app.log.warn({ error: (err as Error).message }, 'span partition maintenance failed'));
  const retain = () =>
    applyRetention(databaseUrl, { defaultDays: env.retentionDays })
      .then((r) => {
        if (r.deletedSessions || r.dropped.length || r.releasedTraces || r.deletedFromDefault || r.deletedGenAiEvents) app.log.info(r, 'retention applied');
      })
      .catch((err) => app.log.warn({ error: (err as Error).message }, 'retention failed; the next run retries'));
  void retain();
  // Daily: partitions are monthly and made two months ahead, so once a day is plenty.
  const maintenance = setInterval(maintain, 24 * 60 * 60 * 1000);
  maintenance.unref();
  // Hourly: a retention set in the app applies within the hour; a run with nothing to delete is a few index lookups.
  const retention = setInterval(retain, 60 * 60 * 1000);
  retention.unref();
  // Alert rules evaluated every interval, by one collector at a time (src/alerts/evaluate.ts).
  const alerts =
    env.alerts.intervalMs > 0
      ? startAlerts({
          databaseUrl,
          ...env.alerts,
          warn: (msg, err) => app.log.warn({ error: err.message }, msg),
        })
      : null;
  const drain = boundedDrain(app, { limitMs: env.drainTimeoutMs, retryAfterSeconds: env.limits.retryAfterSeconds });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      // A second signal while draining: the operator wants out now.
      process.exit(1);
    }
    stopping = true;
    const since = performance.now();
    app.log.info({ signal, limitSeconds: env.drainTimeoutMs / 1000 }, 'shutting down: draining in-flight requests');
    clearInterval(maintenance);
    clearInterval(retention);
    // Not awaited: a delivery cut by the exit stays pending in the database and is sent again.
    void alerts?.stop();
    try {
      const { drained, cut } = await drain();
      // From this handler to the exit, as the collector's own clock reads it (a busy client sees
      // the exit later than it happens).
      const seconds = Math.round(performance.now() - since) / 1000;
      // Cut at the limit: nothing those requests sent was acknowledged; their clients retry.
      if (!drained) app.log.warn({ cut, seconds, limitSeconds: env.drainTimeoutMs / 1000 }, 'drain limit reached: unanswered requests answered 503');
      else app.log.info({ seconds }, 'drained');
      process.exit(0);
    } catch (err) {
      console.error(err);
      process.exit(1);
    }
  };
  // We own shutdown: drain first (within COLLECTOR_DRAIN_TIMEOUT_SECONDS), then exit 0 (no
  // other SIGINT/SIGTERM handler may exit while requests are still draining).
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
