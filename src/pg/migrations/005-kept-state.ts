import { READY_LOCK_CLASS } from '../constants.js';

// Migration 5, as it shipped: never edit it; add the next one.
// maintained state, so that a claim's cost does not grow with the rows above its task. A row's
// line is kept (mdclaim.task_line), not summed from every row above; a [⏰]'s readiness is kept on
// its row (ready), not found by walking its section; the first claimable row is found through one
// index (task_first). mdclaim.rebase(board) makes both right for a whole board (import and add
// call it; so must a writer that inserts rows or changes their line breaks by hand); a trigger
// keeps readiness as tasks become done and are reopened. The view keeps migration 4's not-before
// rule as it was, and the blocked rule now reads the kept readiness.
export const sql = `
  -- The line of a task's marker, less the lock lines above it (those are counted from mdclaim.path_lock):
  -- 1 + the line breaks of every row above it + its lead's. Its own table, so that keeping it never
  -- locks a task row a claimer may be taking.
  CREATE TABLE mdclaim.task_line (
    uid bigint PRIMARY KEY REFERENCES mdclaim.task (uid) ON DELETE CASCADE,
    base int NOT NULL
  );

  -- A [⏰] (status blocked) whose every task above it in its section is done. Kept on [⏰] rows only: a row
  -- of any other status is never read for it (and a claimed [⏰] keeps the value it was claimed with).
  ALTER TABLE mdclaim.task ADD COLUMN ready boolean NOT NULL DEFAULT false;
  -- The request that made the row's claim: a claim made in one statement, whose connection was lost
  -- before its answer came, is found by it (src/pg/token.ts).
  ALTER TABLE mdclaim.task ADD COLUMN token text;
  -- Where next looks first: the open tasks and the ready [⏰], in board order.
  CREATE INDEX task_first ON mdclaim.task (board, position) WHERE status = 'open' OR (status = 'blocked' AND ready);
  DROP INDEX mdclaim.task_waiting;

  -- The line is task_view.line now, from the kept base: no function sums the rows above.
  DROP FUNCTION mdclaim.line_of(int, bigint, int);

  -- Every row's line base and every [⏰]'s readiness for board b, from scratch, writing only the rows
  -- that differ. A section's run is as the file board walks it: the rows since the last row of another
  -- section. It decides readiness as the trigger below does, under the same lock and from a snapshot
  -- taken once the lock is granted (each statement of a volatile function takes its own), and it
  -- writes only [⏰] rows, which no holder has locked.
  CREATE FUNCTION mdclaim.rebase(b int) RETURNS void LANGUAGE sql AS $$
    SELECT pg_advisory_xact_lock(${READY_LOCK_CLASS}, b);

    INSERT INTO mdclaim.task_line (uid, base)
    SELECT uid, 1 + lead_breaks + coalesce(sum(lead_breaks + body_breaks) OVER (ORDER BY position ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)::int
    FROM mdclaim.task WHERE board = b
    ON CONFLICT (uid) DO UPDATE SET base = EXCLUDED.base WHERE mdclaim.task_line.base <> EXCLUDED.base;

    UPDATE mdclaim.task t SET ready = r.ready FROM (
      SELECT uid, status = 'blocked' AND coalesce(count(*) FILTER (WHERE status <> 'done')
        OVER (PARTITION BY run ORDER BY position ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) = 0 AS ready
      FROM (SELECT uid, position, status, count(*) FILTER (WHERE starts) OVER (ORDER BY position) AS run
            FROM (SELECT uid, position, status, section IS DISTINCT FROM lag(section) OVER (ORDER BY position) AS starts
                  FROM mdclaim.task WHERE board = b) s) r
    ) r WHERE t.uid = r.uid AND t.status = 'blocked' AND t.ready <> r.ready;
  $$;

  -- Readiness after the task at \`pos\` became done or stopped being done: only the first task not done
  -- below it can change (every task between is done). It is ready when no task above it in its
  -- section is not done: the last such task above is of another section, or another section's row
  -- lies between them. Both walks go through task_order: the first stops at the next task not done
  -- (usually the next row), and the second runs only when that task is a [⏰].
  CREATE FUNCTION mdclaim.refresh_ready(b int, pos bigint) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE
    y record;
    p record;
    ok boolean;
  BEGIN
    SELECT uid, position, section, status INTO y FROM mdclaim.task
      WHERE board = b AND position > pos AND status <> 'done' ORDER BY position LIMIT 1;
    IF y IS NULL OR y.status <> 'blocked' THEN RETURN; END IF;
    SELECT position, section INTO p FROM mdclaim.task
      WHERE board = b AND position < y.position AND status <> 'done' ORDER BY position DESC LIMIT 1;
    ok := p IS NULL OR p.section IS DISTINCT FROM y.section OR EXISTS (
      SELECT 1 FROM mdclaim.task u WHERE u.board = b AND u.position > p.position AND u.position < y.position
        AND u.section IS DISTINCT FROM y.section);
    UPDATE mdclaim.task SET ready = ok WHERE uid = y.uid AND status = 'blocked' AND ready <> ok;
  END $$;

  -- One writer at a time decides a board's readiness, each seeing the last one's commit (a statement
  -- of this function takes its snapshot after the lock is granted). It waits only for rows that are
  -- blocked, which no holder has locked, so it cannot deadlock with a holder.
  CREATE FUNCTION mdclaim.keep_ready() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_advisory_xact_lock(${READY_LOCK_CLASS}, NEW.board);
    PERFORM mdclaim.refresh_ready(NEW.board, NEW.position);
    RETURN NULL;
  END $$;
  CREATE TRIGGER task_keeps_ready AFTER UPDATE OF status ON mdclaim.task
    FOR EACH ROW WHEN ((OLD.status = 'done') <> (NEW.status = 'done'))
    EXECUTE FUNCTION mdclaim.keep_ready();

  -- History leaves with its board by a trigger, not a foreign key: the key's check on every row
  -- written locked the board's one row in share mode, so every claimer on a board queued on one
  -- row's lock list (a multixact per concurrent claim).
  ALTER TABLE mdclaim.history DROP CONSTRAINT history_board_fkey;
  CREATE FUNCTION mdclaim.board_history_goes() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    DELETE FROM mdclaim.history WHERE board = OLD.id;
    RETURN NULL;
  END $$;
  CREATE TRIGGER board_history_goes AFTER DELETE ON mdclaim.board
    FOR EACH ROW EXECUTE FUNCTION mdclaim.board_history_goes();

  DROP VIEW mdclaim.task_view;
  CREATE VIEW mdclaim.task_view AS
  SELECT s.*, s.waiting_ok AND NOT s.path_blocked AS claimable FROM (
    SELECT t.*,
      CASE WHEN t.key IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM mdclaim.task o WHERE o.board = t.board AND o.key = t.key AND o.uid <> t.uid
      ) THEN t.key ELSE t.hash END AS id,
      (t.status = 'claimed' AND t.expires_at <= now()) AS lapsed,
      -- The 1-based line of the task's marker: its kept base, and one line for every lock taken under a task
      -- above it (locks are few: only live claims take them, so each is looked at). Planned with the
      -- statement that reads it, and computed only where a statement does.
      (SELECT l.base FROM mdclaim.task_line l WHERE l.uid = t.uid) + (SELECT count(*)::int FROM mdclaim.path_lock k
        WHERE (SELECT u.board = t.board AND u.position < t.position FROM mdclaim.task u WHERE u.uid = k.task)) AS line,
      -- Claimable but for paths: migration 4's predicate, the not-before rule as it was, a [⏰] by its kept readiness.
      (t.not_before IS NULL OR t.not_before <= now()) AND CASE t.status
        WHEN 'open' THEN true
        WHEN 'claimed' THEN t.expires_at <= now()
        WHEN 'blocked' THEN t.ready
        ELSE false
      END AS waiting_ok,
      (cardinality(t.writes) + cardinality(t.reads) > 0
        AND EXISTS (SELECT 1 FROM mdclaim.blocking_holds(t.board, t.uid, t.writes, t.reads))) AS path_blocked
    FROM mdclaim.task t
  ) s;

  SELECT mdclaim.rebase(id) FROM mdclaim.board;
  `;
