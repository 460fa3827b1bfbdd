-- The explorer's search text of a session (session_search) was rebuilt from all its attempts after
-- every UPDATE of any of its attempts: the correction links (guardtrace_link_corrections) and the
-- alerts' rollup (attempts.alert_unfixed_at) update attempts in most batches of a session with
-- rejections, so each such batch of a long session read and re-indexed its whole text (O(session)
-- a batch). Now only the sessions whose attempts' text columns (tool_name, arguments, feedback) or
-- session changed are rebuilt.
CREATE OR REPLACE FUNCTION guardtrace_session_search_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Only sessions an attempt moved into or out of, or whose text columns changed: a correction
  -- link or an alert mark set on one attempt leaves its session's text as it is (rebuilding it
  -- read every attempt of the session: 78 ms a statement at 10,000 attempts).
  PERFORM guardtrace_session_search_rebuild(array_agg(c.project_id), array_agg(c.session_id))
  FROM (
    SELECT o.project_id, o.session_id FROM removed o
    WHERE NOT EXISTS (SELECT 1 FROM added n WHERE n.project_id = o.project_id AND n.trace_id = o.trace_id
      AND n.span_id = o.span_id AND n.session_id = o.session_id AND n.tool_name IS NOT DISTINCT FROM o.tool_name
      AND n.arguments IS NOT DISTINCT FROM o.arguments AND n.feedback IS NOT DISTINCT FROM o.feedback)
    UNION
    SELECT n.project_id, n.session_id FROM added n
    WHERE NOT EXISTS (SELECT 1 FROM removed o WHERE o.project_id = n.project_id AND o.trace_id = n.trace_id
      AND o.span_id = n.span_id AND o.session_id = n.session_id AND o.tool_name IS NOT DISTINCT FROM n.tool_name
      AND o.arguments IS NOT DISTINCT FROM n.arguments AND o.feedback IS NOT DISTINCT FROM n.feedback)
  ) AS c
  HAVING count(*) > 0;
  RETURN NULL;
END $$;
