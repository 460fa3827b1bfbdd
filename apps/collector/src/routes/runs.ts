/**
 * POST /v1/datasets/:id/runs: a guard regression replay's report (ReplayRunReport JSON), as
 * `guardtrace-replay --upload` sends it, stored as a run of the dataset: one `replay_runs` row
 * (label, times, summary, options) and one `replay_run_results` row per changed attempt, in one
 * transaction. 201 `{ id, url }`, `url` being the run's page in the web app. A dataset of another
 * project is a 404, exactly like one that does not exist; a malformed report a 400 naming its bad
 * fields, and nothing of it is stored.
 */
import { randomUUID } from 'node:crypto';
import type { ReplayRunReport } from '@guardtrace/semconv';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { Principal } from '../auth.ts';
import { CollectorError } from '../errors.ts';
import type { AppContext, Parsed } from '../http/context.ts';
import { parseJsonBody } from '../http/json-body.ts';
import { isUnavailable, timedQuery } from '../pg.ts';
import { parseRunReport } from '../replay-run.ts';

type Deps = Pick<AppContext, 'admit' | 'limits' | 'pool'>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NO_DATASET = 'no dataset with this id in the project of this API key';
// Results per INSERT: 500 rows of nine columns stay far below Postgres's 65,535 parameters (they
// are arrays anyway) and keep each statement's memory small.
const RESULTS_PER_INSERT = 500;

const INSERT_RUN = `INSERT INTO replay_runs (id, project_id, dataset_id, label, started_at, finished_at, summary, options)
 VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb)`;
const INSERT_RESULTS = `INSERT INTO replay_run_results (run_id, ordinal, item_id, attempt, change, tool, session_id, step_path, result)
 SELECT $1::uuid, r.ordinal, r.item_id, r.attempt, r.change, r.tool, r.session_id, r.step_path, r.result::jsonb
 FROM unnest($2::int[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
   AS r(ordinal, item_id, attempt, change, tool, session_id, step_path, result)`;

function reportOf(req: FastifyRequest): ReplayRunReport {
  const parsed = req.body as Parsed | undefined;
  if (!parsed || !Buffer.isBuffer(parsed.body) || parsed.encoding !== 'json') {
    throw new CollectorError(415, 'unsupported Content-Type: send the run report as application/json');
  }
  const checked = parseRunReport(parseJsonBody(parsed.body));
  if (!checked.ok) throw CollectorError.badRequest(checked.message);
  return checked.report;
}

async function store(client: pg.PoolClient, runId: string, projectId: string, datasetId: string, report: ReplayRunReport, timeoutMs: number) {
  await client.query('BEGIN');
  try {
    const found = await client.query(timedQuery('SELECT 1 FROM datasets WHERE id = $1 AND project_id = $2 FOR KEY SHARE', [datasetId, projectId], timeoutMs));
    if (found.rowCount === 0) throw new CollectorError(404, NO_DATASET);
    await client.query(
      timedQuery(
        INSERT_RUN,
        [runId, projectId, datasetId, report.label, report.startedAt, report.finishedAt, JSON.stringify(report.summary), JSON.stringify(report.options)],
        timeoutMs,
      ),
    );
    for (let from = 0; from < report.results.length; from += RESULTS_PER_INSERT) {
      const chunk = report.results.slice(from, from + RESULTS_PER_INSERT);
      await client.query(
        timedQuery(
          INSERT_RESULTS,
          [
            runId,
            chunk.map((_, i) => from + i),
            chunk.map((r) => r.itemId),
            chunk.map((r) => r.attempt),
            chunk.map((r) => r.change),
            chunk.map((r) => r.tool),
            chunk.map((r) => r.sessionId),
            chunk.map((r) => r.stepPath),
            // Postgres jsonb holds no NUL character: one in the text is refused as a 400 below.
            chunk.map((r) => JSON.stringify(r)),
          ],
          timeoutMs,
        ),
      );
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}

export const runsRoute: FastifyPluginAsync<Deps> = async (app, { admit, limits, pool }) => {
  app.post<{ Params: { id: string } }>('/v1/datasets/:id/runs', { onRequest: admit }, async (req, reply) => {
    const principal = req.gt.principal as Principal;
    const datasetId = req.params.id;
    if (!UUID.test(datasetId)) throw new CollectorError(404, NO_DATASET);
    const report = reportOf(req);
    if (report.datasetId !== null && report.datasetId !== datasetId) {
      throw CollectorError.badRequest(`datasetId: the report is of dataset ${JSON.stringify(report.datasetId)}, posted to dataset ${datasetId}`);
    }
    const runId = randomUUID();
    let client: pg.PoolClient | undefined;
    try {
      client = await pool.connect();
      // The transaction as a whole: a large report is still one answer, within the pool's own query timeout.
      await store(client, runId, principal.projectId, datasetId, report, limits.dbTimeoutMs * 4);
    } catch (err) {
      if (err instanceof CollectorError) throw err;
      if (isUnavailable(err)) throw CollectorError.unavailable('database unavailable', limits.retryAfterSeconds, err);
      // 22P05: untranslatable character (a \u0000 in a JSON string).
      if ((err as { code?: string }).code === '22P05') throw CollectorError.badRequest('the report holds a NUL character (\\u0000), which cannot be stored');
      throw err;
    } finally {
      client?.release();
    }
    const url = `/datasets/${datasetId}/runs/${runId}?project=${principal.projectId}`;
    return reply.status(201).type('application/json').send({ id: runId, url });
  });
};
