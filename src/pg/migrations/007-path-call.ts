// Migration 7, as it shipped: never edit it; add the next one.
// a claim's statement carries the path rule as one call, not as its plan. The view's path rule
// (migration 6) was the body of mdclaim.blocking_holds, which PostgreSQL inlines: every statement
// that reads claimable (a claim reads it for each of its two candidates) carried that body's plan,
// some twenty nodes, which the server set up at every execution though it runs only for a task that
// declares paths. mdclaim.path_blocked asks the same question in PL/pgSQL, whose calls are never
// inlined and whose plan is kept for the session: the view is migration 6's but for that one call.
export const sql = `
  CREATE FUNCTION mdclaim.path_blocked(b int, except_task bigint, writes text[], reads text[]) RETURNS boolean
  LANGUAGE plpgsql STABLE AS $$
  BEGIN
    RETURN EXISTS (SELECT 1 FROM mdclaim.blocking_holds(b, except_task, writes, reads));
  END $$;

  DROP VIEW mdclaim.task_view;
  CREATE VIEW mdclaim.task_view AS
  SELECT s.*, s.waiting_ok AND NOT s.path_blocked AS claimable,
    CASE
      WHEN s.status IN ('done', 'failed') THEN json_build_object('kind', 'status', 'status', s.status)
      WHEN s.status = 'claimed' AND NOT coalesce(s.expires_at <= now(), false) THEN json_build_object('kind', 'claimed')
      WHEN s.not_before > now() THEN json_build_object('kind', 'retry', 'notBefore', to_char(s.not_before AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
      WHEN s.status = 'blocked' AND NOT s.ready THEN json_build_object('kind', 'above', 'task', (
        SELECT mdclaim.id_of(u.uid) FROM mdclaim.task u
        WHERE u.board = s.board AND u.position < s.position AND u.status <> 'done'
          AND u.position > coalesce((
            SELECT max(v.position) FROM mdclaim.task v
            WHERE v.board = s.board AND v.position < s.position AND v.section IS DISTINCT FROM s.section
          ), -1)
        ORDER BY u.position LIMIT 1))
      WHEN s.path_blocked THEN (
        SELECT json_build_object('kind', 'path', 'hold', json_strip_nulls(json_build_object('path', h.path, 'mode', h.mode, 'task', mdclaim.id_of(h.task),
          'by', h.by, 'since', to_char(h.since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'kind', h.kind)))
        FROM mdclaim.blocking_holds(s.board, s.uid, s.writes, s.reads) h ORDER BY h.position, h.ord LIMIT 1)
    END AS blocker
  FROM (
    SELECT t.*,
      CASE WHEN t.key IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM mdclaim.task o WHERE o.board = t.board AND o.key = t.key AND o.uid <> t.uid
      ) THEN t.key ELSE t.hash END AS id,
      (t.status = 'claimed' AND t.expires_at <= now()) AS lapsed,
      (SELECT l.base FROM mdclaim.task_line l WHERE l.uid = t.uid) + (SELECT count(*)::int FROM mdclaim.path_lock k
        WHERE (SELECT u.board = t.board AND u.position < t.position FROM mdclaim.task u WHERE u.uid = k.task)) AS line,
      (t.not_before IS NULL OR t.not_before <= now()) AND CASE t.status
        WHEN 'open' THEN true
        WHEN 'claimed' THEN t.expires_at <= now()
        WHEN 'blocked' THEN t.ready
        ELSE false
      END AS waiting_ok,
      (cardinality(t.writes) + cardinality(t.reads) > 0
        AND mdclaim.path_blocked(t.board, t.uid, t.writes, t.reads)) AS path_blocked
    FROM mdclaim.task t
  ) s;
  `;
