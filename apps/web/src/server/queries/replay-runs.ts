import 'server-only';
import type { PrismaClient } from '@guardtrace/db';
import { type DatasetItemAttempt, REPLAY_CHANGE, type ReplayChange, type ReplayResult } from '@guardtrace/semconv';
import type { RecordedAttempt } from '@/lib/replay-run';

/** The changes a run page lists, in this order: what a guard change broke first. */
export const CHANGE_ORDER = [
  REPLAY_CHANGE.NEWLY_REJECTED,
  REPLAY_CHANGE.NEWLY_ALLOWED,
  REPLAY_CHANGE.CLASS_CHANGED,
  REPLAY_CHANGE.FEEDBACK_CHANGED,
  REPLAY_CHANGE.NOT_REPLAYED,
] as const satisfies readonly ReplayChange[];

type ListedChange = (typeof CHANGE_ORDER)[number];

/** Counts per change of a run (its summary as uploaded; 0 where the report had none). */
export type ChangeCounts = Record<ReplayChange, number>;

export interface ReplayRunDto {
  id: string;
  datasetId: string;
  label: string | null;
  startedAt: string;
  finishedAt: string;
  createdAt: string;
  calls: number;
  attempts: number;
  counts: ChangeCounts;
  execute: string;
  failOn: string[];
}

export interface ReplayRunGroup {
  change: ListedChange;
  /** Attempts with this change in the run (the summary's count). */
  total: number;
  /** The first of them in report order, at most `perGroup`. */
  results: ReplayResult[];
}

function counts(summary: unknown): ChangeCounts {
  const s = (summary ?? {}) as Record<string, unknown>;
  const out = {} as ChangeCounts;
  for (const c of Object.values(REPLAY_CHANGE)) out[c] = typeof s[c] === 'number' ? (s[c] as number) : 0;
  return out;
}

function toDto(r: {
  id: string;
  datasetId: string;
  label: string | null;
  startedAt: Date;
  finishedAt: Date;
  createdAt: Date;
  summary: unknown;
  options: unknown;
}): ReplayRunDto {
  const s = (r.summary ?? {}) as Record<string, unknown>;
  const o = (r.options ?? {}) as { execute?: unknown; failOn?: unknown };
  return {
    id: r.id,
    datasetId: r.datasetId,
    label: r.label,
    startedAt: r.startedAt.toISOString(),
    finishedAt: r.finishedAt.toISOString(),
    createdAt: r.createdAt.toISOString(),
    calls: typeof s.calls === 'number' ? s.calls : 0,
    attempts: typeof s.attempts === 'number' ? s.attempts : 0,
    counts: counts(r.summary),
    execute: typeof o.execute === 'string' ? o.execute : 'none',
    failOn: Array.isArray(o.failOn) ? o.failOn.filter((x): x is string => typeof x === 'string') : [],
  };
}

// Runs a dataset page lists: a year of daily CI runs and more; older ones stay stored.
const RUNS_LISTED = 500;

/** A dataset's runs, oldest first (the page reads them as a time line). */
export async function listReplayRuns(db: PrismaClient, projectId: string, datasetId: string): Promise<ReplayRunDto[]> {
  const rows = await db.replayRun.findMany({ where: { projectId, datasetId }, orderBy: { createdAt: 'desc' }, take: RUNS_LISTED });
  return rows.map(toDto).reverse();
}

/** A run of the project's dataset, or null (another project's run is null too). */
export async function getReplayRun(db: PrismaClient, projectId: string, datasetId: string, runId: string): Promise<ReplayRunDto | null> {
  const row = await db.replayRun.findFirst({ where: { id: runId, projectId, datasetId } });
  return row ? toDto(row) : null;
}

/** The run's changed attempts grouped by change, each group in report order, at most `perGroup` each. */
export async function replayRunGroups(db: PrismaClient, run: ReplayRunDto, perGroup: number): Promise<ReplayRunGroup[]> {
  const groups: ReplayRunGroup[] = [];
  for (const change of CHANGE_ORDER) {
    if (run.counts[change] === 0) {
      // A summary that says none may still come with results (a hand-made report): look anyway, once, cheaply.
      const any = await db.replayRunResult.findFirst({ where: { runId: run.id, change }, select: { ordinal: true } });
      if (!any) continue;
    }
    const rows = await db.replayRunResult.findMany({ where: { runId: run.id, change }, orderBy: { ordinal: 'asc' }, take: perGroup, select: { result: true } });
    groups.push({ change, total: Math.max(run.counts[change], rows.length), results: rows.map((r) => r.result as unknown as ReplayResult) });
  }
  return groups;
}

/**
 * The recorded attempts of the dataset's items `itemIds` (the dataset is a snapshot: they are
 * there whatever retention did to the spans), for the argument diff of calls of several attempts.
 */
export async function recordedAttempts(db: PrismaClient, datasetId: string, itemIds: string[]): Promise<Map<string, RecordedAttempt[]>> {
  const out = new Map<string, RecordedAttempt[]>();
  if (itemIds.length === 0) return out;
  const rows = await db.$queryRaw<{ item_id: string; attempts: unknown }[]>`
    SELECT item_id, item->'attempts' AS attempts FROM dataset_items WHERE dataset_id = ${datasetId}::uuid AND item_id = ANY(${itemIds}::text[])`;
  for (const r of rows) {
    if (!Array.isArray(r.attempts)) continue;
    out.set(
      r.item_id,
      (r.attempts as DatasetItemAttempt[]).map((a) => ({ number: a.number, arguments: a.arguments, failureClass: a.failureClass, checks: Array.isArray(a.checks) ? a.checks : [] })),
    );
  }
  return out;
}
