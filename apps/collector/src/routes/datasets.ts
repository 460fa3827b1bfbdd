/**
 * Datasets of the key's project (guard regression replay; packages/db/src/datasets.ts):
 * - GET /v1/datasets: `{ datasets: [{ id, name, itemCount, createdAt, status, sourceKind, source }] }`, newest first.
 * - GET /v1/datasets/:id: its items as NDJSON (one DatasetItem a line, in order), streamed a page
 *   at a time (keyset cursor on the ordinal: memory stays one page whatever the size).
 * - POST /v1/datasets `{ name, query, description? }`: a dataset of the calls the explorer query
 *   matches (same parser and meaning as the web app) → 201 `{ id, name, itemCount }`; 400 says
 *   what is wrong with the query or the body. With `Prefer: respond-async`: 202 `{ id, name,
 *   itemCount, status }` as soon as the dataset exists, its items copied after the answer.
 * Another project's dataset is a 404, as one that does not exist; one not fully saved (building,
 * failed, interrupted) a 409 saying so, never a partial stream.
 */
import { Readable } from 'node:stream';
import { createDataset, DatasetInputError, type DatasetRow, datasetItemLines, getDataset, listDatasets, pgQueryable } from '@guardtrace/db/datasets';
import type { FastifyPluginAsync } from 'fastify';
import type { Principal } from '../auth.ts';
import { CollectorError } from '../errors.ts';
import type { AppContext, Parsed } from '../http/context.ts';
import { parseJsonBody } from '../http/json-body.ts';
import { isUnavailable } from '../pg.ts';

type Deps = Pick<AppContext, 'admit' | 'limits' | 'pool'>;

const NOT_FOUND = 'no dataset with this id in the project of this API key';

export const datasetsRoute: FastifyPluginAsync<Deps> = async (app, { admit, limits, pool }) => {
  const db = pgQueryable(pool);
  const guarded = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      if (err instanceof DatasetInputError) throw CollectorError.badRequest(err.message);
      if (isUnavailable(err)) throw CollectorError.unavailable('database unavailable', limits.retryAfterSeconds, err);
      throw err;
    }
  };

  app.get('/v1/datasets', { onRequest: admit }, async (req) => {
    const principal = req.gt.principal as Principal;
    const rows = await guarded(() => listDatasets(db, principal.projectId));
    return { datasets: rows.map(summary) };
  });

  app.get<{ Params: { id: string } }>('/v1/datasets/:id', { onRequest: admit }, async (req, reply) => {
    const principal = req.gt.principal as Principal;
    const dataset = await guarded(() => getDataset(db, principal.projectId, req.params.id));
    if (dataset === null) throw new CollectorError(404, NOT_FOUND);
    // A partial dataset replayed as if whole would report fewer changes than there are.
    if (dataset.status !== 'ready') throw new CollectorError(409, notReady(dataset));
    async function* lines() {
      for await (const json of datasetItemLines(db, dataset?.id as string)) yield `${json}\n`;
    }
    return reply.type('application/x-ndjson').header('x-guardtrace-dataset-items', String(dataset.itemCount)).send(Readable.from(lines()));
  });

  app.post('/v1/datasets', { onRequest: admit }, async (req, reply) => {
    const principal = req.gt.principal as Principal;
    const parsed = req.body as Parsed | undefined;
    if (parsed?.encoding !== 'json') throw CollectorError.badRequest('send a JSON body (content-type: application/json): { "name": "...", "query": "..." }');
    const body = parseJsonBody(parsed.body);
    const { name, query, description } = (body ?? {}) as Record<string, unknown>;
    if (typeof name !== 'string') throw CollectorError.badRequest('"name" must be a string: the dataset\'s name');
    if (typeof query !== 'string') throw CollectorError.badRequest('"query" must be a string: an explorer query, e.g. "tool:read_file class:guard_violation"');
    if (description !== undefined && description !== null && typeof description !== 'string') throw CollectorError.badRequest('"description" must be a string when given');
    const input = { projectId: principal.projectId, name, description: (description as string | null | undefined) ?? null, source: { kind: 'query' as const, query } };
    if (!/\brespond-async\b/i.test(String(req.headers.prefer ?? ''))) {
      const row = await guarded(() => createDataset(db, input));
      return reply.code(201).send({ id: row.id, name: row.name, itemCount: row.itemCount });
    }
    // `Prefer: respond-async` (RFC 7240): answer 202 once the dataset's row exists (a bad query is
    // still a 400) and copy its items after the answer; GET /v1/datasets shows its count growing
    // and its status. A collector stopped mid-copy leaves it `interrupted` (packages/db/src/datasets.ts).
    let created: (id: string) => void = () => {};
    const started = new Promise<string>((resolve) => {
      created = resolve;
    });
    const done = createDataset(db, { ...input, onCreated: (id) => created(id) });
    done.catch((err) => {
      if (!(err instanceof DatasetInputError)) req.log.error({ err }, 'dataset copy failed');
    });
    const id = await guarded(() => Promise.race([started, done.then((d) => d.id)]));
    const row = await guarded(() => getDataset(db, principal.projectId, id));
    return reply
      .code(202)
      .header('location', `/v1/datasets/${id}`)
      .send({ id, name: input.name.trim(), itemCount: row?.itemCount ?? 0, status: row?.status ?? 'building' });
  });
};

function notReady(d: DatasetRow): string {
  const n = d.itemCount.toLocaleString('en-US');
  if (d.status === 'building') return `dataset "${d.name}" is still being saved (${n} calls so far): try again when it is ready`;
  return `dataset "${d.name}" is incomplete: its saving ${d.status === 'failed' ? 'failed' : 'stopped'} after ${n} calls; save it again`;
}

function summary(d: DatasetRow) {
  return { id: d.id, name: d.name, itemCount: d.itemCount, createdAt: d.createdAt, status: d.status, sourceKind: d.sourceKind, source: d.source };
}
