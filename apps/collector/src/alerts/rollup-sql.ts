/**
 * The alerts' per-minute rollup's statement in the write transaction of every batch
 * (guardtrace_update_alert_minutes, migration alert_minutes_per_batch): the batch's new attempts
 * and repair turns added to alert_minutes, and the earlier attempts of a session whose sampling
 * weight changed (or that a re-key moved into another session) counted again at the new one. Run
 * after the rejections' corrections are linked.
 */
import { textArray } from '../sql.ts';

/**
 * `projectIds`, `ids`: the batch's sessions (text[] literals), whose attempts are counted again
 * when their sampling weight changed (migration alert_minutes_reweighted); `rows`: the keys of
 * the batch's new rows, as the analytics rollup gets them (batch-rows.ts), and (kind 'A') of the
 * attempts a re-key moved into one of the batch's sessions; `movedFrom`: the sessions they moved
 * out of (keyed by trace id) with the weight they were counted at (migration
 * alert_minutes_moved_attempts): they are counted at their new session's from now on.
 */
export const updateAlertMinutes = (
  projectIds: string,
  ids: string,
  rows: { kinds: readonly string[]; projects: readonly string[]; traces: readonly string[]; spans: readonly string[] },
  movedFrom: readonly { project_id: string; id: string; weight: number }[] = [],
) =>
  `SELECT guardtrace_update_alert_minutes(${projectIds}::uuid[], ${ids}::text[], ${textArray(rows.kinds)}::text[], ${textArray(rows.projects)}::uuid[], ${textArray(rows.traces)}::text[], ${textArray(rows.spans)}::text[], ${textArray(movedFrom.map((m) => m.project_id))}::uuid[], ${textArray(movedFrom.map((m) => m.id))}::text[], ${textArray(movedFrom.map((m) => String(m.weight)))}::float8[]) AS alert_minutes`;
