/** GET /metrics: this collector's Prometheus metrics (metrics.ts). */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../http/context.ts';

export const metricsRoute: FastifyPluginAsync<Pick<AppContext, 'metrics'>> = async (app, { metrics }) => {
  app.get('/metrics', async (_req, reply) => {
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
};
