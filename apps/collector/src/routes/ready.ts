/**
 * GET /readyz: Postgres answers within dbTimeoutMs and every migration is applied (checked
 * until it is once: applied migrations do not un-apply); else 503, with Retry-After when the
 * database is unreachable. The queue depth is in the answer.
 */
import { pendingMigrations } from '@guardtrace/db/server';
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../http/context.ts';
import { timedQuery, withTimeout } from '../pg.ts';

type Deps = Pick<AppContext, 'databaseUrl' | 'limits' | 'log' | 'pool' | 'writer'>;

export const readyRoute: FastifyPluginAsync<Deps> = async (app, { databaseUrl, limits, log, pool, writer }) => {
  let migrationsChecked = false;
  app.get('/readyz', async (_req, reply) => {
    try {
      await pool.query(timedQuery('SELECT 1', [], limits.dbTimeoutMs));
      if (!migrationsChecked) {
        const pending = await withTimeout(
          pendingMigrations(databaseUrl),
          limits.dbTimeoutMs,
          () => new Error('migration check timed out'),
        );
        if (pending.length > 0) {
          return reply.status(503).send({ status: 'migrations pending', pending });
        }
        migrationsChecked = true; // applied migrations do not un-apply
      }
      return { status: 'ready', queuedSpans: writer.queuedSpans };
    } catch (err) {
      // The error's text stays in the log (it may name hosts, users and tables).
      log('readiness check failed', err);
      return reply
        .status(503)
        .header('retry-after', String(limits.retryAfterSeconds))
        .send({ status: 'database unreachable' });
    }
  });
};
