/**
 * The alerts' per-minute rollup's statement in the write transaction of every batch
 * (guardtrace_update_alert_minutes, migration alert_minutes_per_batch): the batch's new attempts
 * and repair turns added to alert_minutes, and the earlier attempts of a session whose sampling
 * weight changed counted again at the new one. Run after the rejections' corrections are linked.
 */
import { textArray } from '../sql.ts';

/**
 * `projectIds`, `ids`: the batch's sessions (text[] literals), whose attempts are counted again
 * when their sampling weight changed (migration alert_minutes_reweighted); `rows`: the keys of
 * the batch's new rows, as the analytics rollup gets them (batch-rows.ts).
 */
export const updateAlertMinutes = (
  projectIds: string,
  ids: string,
  rows: { kinds: readonly string[]; projects: readonly string[]; traces: readonly string[]; spans: readonly string[] },
) =>
  `SELECT guardtrace_update_alert_minutes(${projectIds}::uuid[], ${ids}::text[], ${textArray(rows.kinds)}::text[], ${textArray(rows.projects)}::uuid[], ${textArray(rows.traces)}::text[], ${textArray(rows.spans)}::text[]) AS alert_minutes`;
