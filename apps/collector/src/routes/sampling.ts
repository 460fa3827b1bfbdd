/** GET /v1/sampling: the clean-session sample rate of the key's project, read by the SDK. */
import type { FastifyPluginAsync } from 'fastify';
import type { Principal } from '../auth.ts';
import { CollectorError } from '../errors.ts';
import type { AppContext } from '../http/context.ts';
import { isUnavailable, timedQuery } from '../pg.ts';

type Deps = Pick<AppContext, 'admit' | 'limits' | 'pool'>;

export const samplingRoute: FastifyPluginAsync<Deps> = async (app, { admit, limits, pool }) => {
  app.get('/v1/sampling', { onRequest: admit }, async (req) => {
    const principal = req.gt.principal as Principal;
    try {
      const { rows } = await pool.query<{ rate: number }>(
        timedQuery('SELECT clean_sample_rate AS rate FROM projects WHERE id = $1', [principal.projectId], limits.dbTimeoutMs),
      );
      return { cleanSampleRate: rows[0]?.rate ?? 1 };
    } catch (err) {
      if (isUnavailable(err)) throw CollectorError.unavailable('database unavailable', limits.retryAfterSeconds, err);
      throw err;
    }
  });
};
