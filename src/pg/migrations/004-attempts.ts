// Migration 4, as it shipped: never edit it; add the next one.
// the attempts field: how often a task was claimed and when a retry may take it, as the line
// writes them (src/format/attempts.ts); the claimable predicate gains the not-before rule
// (src/board/claimable.ts, isDue); history gains retries and parked tasks. It recreates task_view
// (a view's t.* is fixed when it is made, so the new columns need a new view); the not-before
// rule is the one line marked below, and a later migration that recreates the view keeps it.
export const sql = `
  ALTER TABLE mdclaim.task
    -- The count the line records (NULL: none written: no claim yet, or the one its marker shows).
    ADD COLUMN attempts int,
    -- A retry's wait: no claim takes the task before it (whole seconds, as the line writes it).
    ADD COLUMN not_before timestamptz,
    -- Bytes of the field in body, right after text_end (blanks before it included).
    ADD COLUMN tries_len int NOT NULL DEFAULT 0;

  ALTER TABLE mdclaim.history DROP CONSTRAINT history_event_check;
  ALTER TABLE mdclaim.history ADD CONSTRAINT history_event_check
    CHECK (event IN ('added', 'imported', 'claimed', 'renewed', 'taken over', 'done', 'failed', 'released', 'reaped', 'retried', 'parked'));
  ALTER TABLE mdclaim.history ADD COLUMN attempts int, ADD COLUMN not_before timestamptz;

  -- The attempts a status implies when its line records none: a claim (and what it ended as) is one.
  CREATE FUNCTION mdclaim.implied_attempts(status text) RETURNS int LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN status IN ('open', 'blocked') THEN 0 ELSE 1 END
  $$;

  -- The field after the text, as renderTries writes it: nothing when the marker says as much.
  CREATE FUNCTION mdclaim.tries_field(status text, n int, not_before timestamptz) RETURNS bytea LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN not_before IS NULL AND n <= mdclaim.implied_attempts(status) THEN ''::bytea
      ELSE convert_to(' // Attempts: ' || greatest(n, 1)
        || coalesce(', not before ' || to_char(not_before AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), ''), 'UTF8') END
  $$;

  -- A row's body, field length and recorded count once the field says n (and not_before) for status.
  CREATE FUNCTION mdclaim.set_tries(body bytea, text_end int, tries_len int, status text, n int, not_before timestamptz)
  RETURNS TABLE (body bytea, tries_len int, attempts int) LANGUAGE sql STABLE AS $$
    SELECT overlay(body PLACING f FROM text_end + 1 FOR tries_len), length(f), CASE WHEN length(f) = 0 THEN NULL ELSE greatest(n, 1) END
    FROM mdclaim.tries_field(status, n, not_before) AS f
  $$;

  -- Why a task was parked (src/board/park.ts): \`abandoned after 3 attempts; last held by agent-7\`.
  CREATE FUNCTION mdclaim.park_reason(n int, by text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT 'abandoned after ' || n || ' attempt' || CASE WHEN n = 1 THEN '' ELSE 's' END || coalesce('; last held by ' || by, '')
  $$;

  -- A parked line's body: the text, its attempts, the reason, and the line's ending (what followed the text up to it dropped).
  CREATE FUNCTION mdclaim.parked_body(body bytea, text_end int, n int, by text) RETURNS bytea LANGUAGE sql STABLE AS $$
    SELECT substring(body FOR text_end) || mdclaim.tries_field('failed', n, NULL) || convert_to(' // Failed: ' || mdclaim.park_reason(n, by), 'UTF8')
      || coalesce(substring(body FROM text_end + least(
        nullif(position('\\x0d'::bytea IN substring(body FROM text_end + 1)), 0),
        nullif(position('\\x0a'::bytea IN substring(body FROM text_end + 1)), 0))), ''::bytea)
  $$;

  DROP VIEW mdclaim.task_view;
  CREATE VIEW mdclaim.task_view AS
  SELECT s.*, s.waiting_ok AND NOT s.path_blocked AS claimable FROM (
    SELECT t.*,
      CASE WHEN t.key IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM mdclaim.task o WHERE o.board = t.board AND o.key = t.key AND o.uid <> t.uid
      ) THEN t.key ELSE t.hash END AS id,
      (t.status = 'claimed' AND t.expires_at <= now()) AS lapsed,
      -- Claimable but for paths (migration 1's predicate), and not waiting for a retry's time:
      -- the not-before rule.
      (t.not_before IS NULL OR t.not_before <= now()) AND CASE t.status
        WHEN 'open' THEN true
        WHEN 'claimed' THEN t.expires_at <= now()
        WHEN 'blocked' THEN NOT EXISTS (
          SELECT 1 FROM mdclaim.task u
          WHERE u.board = t.board AND u.position < t.position AND u.status <> 'done'
            AND u.position > coalesce((
              SELECT max(v.position) FROM mdclaim.task v
              WHERE v.board = t.board AND v.position < t.position AND v.section IS DISTINCT FROM t.section
            ), -1)
        )
        ELSE false
      END AS waiting_ok,
      (cardinality(t.writes) + cardinality(t.reads) > 0
        AND EXISTS (SELECT 1 FROM mdclaim.blocking_holds(t.board, t.uid, t.writes, t.reads))) AS path_blocked
    FROM mdclaim.task t
  ) s;
  `;
