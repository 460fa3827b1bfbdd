/**
 * Every request's life in the collector: its state is made when it arrives (refused with 503 +
 * Retry-After while the app is closing), its share of the in-flight memory bound goes with its
 * answer (or with the client, when it goes away first), and its answer is counted in the
 * metrics. While closing, answers carry `Connection: close` (a kept-alive socket would hold
 * close() open).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CollectorError } from '../errors.ts';
import type { AppContext, RequestState } from './context.ts';

export function registerLifecycle(app: FastifyInstance, ctx: Pick<AppContext, 'limits' | 'memory' | 'metrics'>): void {
  const { limits, memory, metrics } = ctx;
  const release = (req: FastifyRequest) => memory.release(req.gt.held);
  let closing = false;
  app.decorateRequest('gt', null as unknown as RequestState);
  app.addHook('onRequest', async (req) => {
    req.gt = { held: { reserved: 0, used: 0 } };
    if (closing) throw CollectorError.unavailable('collector is shutting down', limits.retryAfterSeconds);
  });
  app.addHook('onResponse', async (req, reply) => {
    release(req);
    metrics.requests.observe(
      { route: req.routeOptions.url ?? 'unknown', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    if (reply.statusCode === 429 || reply.statusCode === 503) {
      metrics.overloaded.inc({ reason: reply.statusCode === 429 ? 'rate_limit' : 'unavailable' });
    }
  });
  app.addHook('onRequestAbort', async (req) => release(req));
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_req, reply) => {
    if (closing) reply.header('connection', 'close');
  });
}
