/**
 * The alerts' per-minute rollup's statement in the write transaction of every batch
 * (guardtrace_update_alert_minutes, migration alert_minutes_per_batch): the batch's new attempts
 * and repair turns added to alert_minutes. Run after the rejections' corrections are linked.
 */
import { textArray } from '../sql.ts';

/** `rows`: the keys of the batch's new rows, as the analytics rollup gets them (batch-rows.ts). */
export const updateAlertMinutes = (rows: { kinds: readonly string[]; projects: readonly string[]; traces: readonly string[]; spans: readonly string[] }) =>
  `SELECT guardtrace_update_alert_minutes(${textArray(rows.kinds)}::text[], ${textArray(rows.projects)}::uuid[], ${textArray(rows.traces)}::text[], ${textArray(rows.spans)}::text[]) AS alert_minutes`;
