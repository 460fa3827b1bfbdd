-- guardtrace_refresh_analytics (the sampling sweep, the rollups' rebuild) recounts sessions with
-- guardtrace_update_analytics, which since migration analytics_daily_upserts_last keeps its change
-- of the shared daily rows pending for the end of the transaction: it adds that change itself.
CREATE OR REPLACE FUNCTION guardtrace_refresh_analytics(projects uuid[], ids text[]) RETURNS void
LANGUAGE sql AS $fn$
  SELECT guardtrace_link_corrections(projects, ids, array_fill(NULL::timestamptz, ARRAY[coalesce(cardinality(ids), 0)]));
  SELECT guardtrace_update_analytics(projects, ids, array_fill(false, ARRAY[coalesce(cardinality(ids), 0)]),
    '{}', '{}', '{}', '{}');
  SELECT guardtrace_apply_analytics_pending();
$fn$;
