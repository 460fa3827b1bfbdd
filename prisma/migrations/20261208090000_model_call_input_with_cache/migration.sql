-- Hand-written (data only); schema.prisma is unchanged.
-- A model call's input_tokens count its prompt-cache reads (cached_input_tokens) and writes, as
-- every convention the collector reads says. An emitter that copies Anthropic's usage fields as
-- they are (the AI SDK 5's Anthropic provider, hand-written GenAI spans) reports the cache tokens
-- beside the input instead: the collector stored its 40 uncached input tokens as the input and its
-- 2,000 cache reads as cached, so the session's input tokens missed the 2,000 and the price rule
-- (cached input above the input leaves no uncached input) priced the 40 at nothing. The collector
-- now stores the input of such a call (cache tokens above the input) as their sum; this does the
-- same to the calls stored before (their cache writes were not kept: only the reads are added) and
-- recounts their sessions' totals, analytics rollup and per-model rollups whole. (Alert minutes
-- already past are left: rules read the last minutes only.)
CREATE TEMP TABLE gt_cache_input_backfill (project_id uuid NOT NULL, session_id text NOT NULL);

WITH changed AS (
  UPDATE model_calls SET input_tokens = input_tokens + cached_input_tokens
  WHERE cached_input_tokens > input_tokens
  RETURNING project_id, session_id
)
INSERT INTO gt_cache_input_backfill SELECT DISTINCT project_id, session_id FROM changed;

SELECT guardtrace_refresh_sessions(coalesce(array_agg(b.project_id), '{}'), coalesce(array_agg(b.session_id), '{}'))
FROM gt_cache_input_backfill b;

SELECT guardtrace_refresh_analytics(coalesce(array_agg(b.project_id), '{}'), coalesce(array_agg(b.session_id), '{}'))
FROM gt_cache_input_backfill b JOIN sessions s ON s.project_id = b.project_id AND s.id = b.session_id;

SELECT guardtrace_update_model_costs(coalesce(array_agg(b.project_id), '{}'), coalesce(array_agg(b.session_id), '{}'))
FROM gt_cache_input_backfill b;

DROP TABLE gt_cache_input_backfill;
