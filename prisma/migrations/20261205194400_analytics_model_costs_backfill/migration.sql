-- Hand-written (data only); schema.prisma is unchanged.
-- Backfill: the per-model rollup of repair turns (analytics_model_daily) of every stored session,
-- so analytics prices the repair turns stored before the collector kept it.
SELECT guardtrace_update_model_costs(coalesce(array_agg(project_id), '{}'), coalesce(array_agg(id), '{}')) FROM sessions;
