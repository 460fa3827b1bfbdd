-- Hand-written (data only); schema.prisma is unchanged.
-- `attempts.budget_exhausted` names the budget that ran out. The SDK of 2026-12-06 named none on a
-- call it handed back to the model after the call's attempts ran out (decision `replan`, reason
-- `attempts_per_call`), so analytics' retry exhaustion and the alert rule on it missed the most
-- common exhaustion, an outage. The collector now reads the budget from the escalation reason
-- when the span names none; this backfills the attempts stored before, from their spans, and
-- recounts the analytics rollup of their sessions whole. (Alert minutes already past are left:
-- rules read the last minutes only.)
CREATE TEMP TABLE gt_exhausted_backfill (project_id uuid NOT NULL, session_id text NOT NULL);

WITH changed AS (
  UPDATE attempts a SET budget_exhausted = s.attributes->>'guardtrace.escalation.reason'
  FROM spans s
  WHERE a.budget_exhausted IS NULL AND a.decision = 'replan'
    AND s.project_id = a.project_id AND s.session_id = a.session_id AND s.start_time = a.started_at
    AND s.trace_id = a.trace_id AND s.span_id = a.span_id
    AND s.attributes->>'guardtrace.escalation.reason' IN
      ('attempts_per_call', 'session_retries', 'rejections_per_task', 'added_latency', 'repair_tokens', 'circuit_breaker', 'corrections_per_call')
  RETURNING a.project_id, a.session_id
)
INSERT INTO gt_exhausted_backfill SELECT DISTINCT project_id, session_id FROM changed;

SELECT guardtrace_update_analytics(
  coalesce(array_agg(b.project_id), '{}'), coalesce(array_agg(b.session_id), '{}'), coalesce(array_agg(false), '{}'),
  '{}', '{}', '{}', '{}')
FROM gt_exhausted_backfill b JOIN sessions s ON s.project_id = b.project_id AND s.id = b.session_id;

DROP TABLE gt_exhausted_backfill;
