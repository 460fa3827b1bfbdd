/** GET /healthz: the process answers (liveness; it asks nothing of Postgres). */
import type { FastifyPluginAsync } from 'fastify';

export const healthRoute: FastifyPluginAsync = async (app) => {
  app.get('/healthz', async () => ({ status: 'ok' }));
};
