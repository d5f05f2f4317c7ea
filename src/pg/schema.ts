// The PostgreSQL board's schema, as numbered migrations: a database holds
// version N when migrations 1..N have run. Never edit a migration that has
// shipped; add the next one.

/** The advisory-lock class of every mdclaim lock (`mdcl`), paired with 0 for migrations or a board's id. */
export const LOCK_CLASS = 0x6d64636c;
/** The advisory-lock class of a board's path holds (`mdpa`), paired with the board's id (see docs/postgres.md). */
export const PATHS_LOCK_CLASS = 0x6d647061;
/** The advisory-lock class that keeps a board's [⏰] readiness one writer at a time (`mdrd`), paired with the board's id. */
export const READY_LOCK_CLASS = 0x6d647264;
export const NOTIFY_CHANNEL = 'mdclaim';

export const MIGRATIONS: readonly string[] = [
  // 1: boards, tasks, history; the claimable predicate and the id rule in one place each.
  `
  CREATE TABLE mdclaim.board (
    id serial PRIMARY KEY,
    name text NOT NULL UNIQUE,
    -- Bytes after the last task's line: the rest of the document.
    tail bytea NOT NULL DEFAULT ''
  );

  CREATE TABLE mdclaim.task (
    uid bigserial PRIMARY KEY,
    board int NOT NULL REFERENCES mdclaim.board (id) ON DELETE CASCADE,
    -- Board order. Gaps let add insert without moving rows; positions only ever grow.
    position bigint NOT NULL,
    -- lead || marker || body of every row in order, then the board's tail, is the document.
    lead bytea NOT NULL,
    -- The marker as imported, kept until the first write so export gives the file back exactly.
    marker bytea,
    body bytea NOT NULL,
    text_end int NOT NULL,
    lead_breaks int NOT NULL,
    body_breaks int NOT NULL,
    text text NOT NULL,
    key text,
    hash text NOT NULL,
    tags text[] NOT NULL,
    section text,
    worktree text,
    status text NOT NULL CHECK (status IN ('open', 'blocked', 'claimed', 'done', 'failed')),
    by text,
    -- Whole seconds, as the file board writes them; set from now() only.
    claimed_at timestamptz,
    lease_ms bigint,
    -- claimed_at + the claim's own lease: when it lapses, whoever looks.
    expires_at timestamptz,
    commit text,
    reason text,
    CHECK (status = 'claimed' OR (claimed_at IS NULL AND lease_ms IS NULL)),
    CHECK ((claimed_at IS NULL) = (lease_ms IS NULL) AND (claimed_at IS NULL) = (expires_at IS NULL))
  );
  -- Board order, with what line numbers are summed from (an index-only scan).
  CREATE INDEX task_order ON mdclaim.task (board, position) INCLUDE (lead_breaks, body_breaks);
  -- next reads the first waiting task in board order, and lapsed claims by when they lapsed:
  -- live claims above the first open task are never scanned.
  CREATE INDEX task_waiting ON mdclaim.task (board, position) WHERE status IN ('open', 'blocked');
  CREATE INDEX task_lapsing ON mdclaim.task (board, expires_at) WHERE status = 'claimed';
  CREATE INDEX task_hash ON mdclaim.task (board, hash);
  CREATE INDEX task_key ON mdclaim.task (board, key) WHERE key IS NOT NULL;

  -- Append-only: written in the same statement as the change it records;
  -- gone only with its board (the cascade runs below a trigger, depth > 1).
  CREATE TABLE mdclaim.history (
    seq bigserial PRIMARY KEY,
    board int NOT NULL REFERENCES mdclaim.board (id) ON DELETE CASCADE,
    task bigint NOT NULL,
    hash text NOT NULL,
    key text,
    text text NOT NULL,
    at timestamptz NOT NULL DEFAULT now(),
    event text NOT NULL CHECK (event IN ('added', 'imported', 'claimed', 'renewed', 'taken over', 'done', 'failed', 'released', 'reaped')),
    by text,
    prior_by text,
    claimed_at timestamptz,
    lease_ms bigint,
    commit text,
    reason text,
    via text NOT NULL
  );
  CREATE INDEX history_task ON mdclaim.history (board, hash);
  CREATE INDEX history_key ON mdclaim.history (board, key) WHERE key IS NOT NULL;
  CREATE FUNCTION mdclaim.history_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF pg_trigger_depth() <= 1 THEN
      RAISE EXCEPTION 'mdclaim.history is append-only';
    END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER history_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON mdclaim.history
    FOR EACH STATEMENT EXECUTE FUNCTION mdclaim.history_is_append_only();

  -- Wake waiting runners when a task may have become claimable (delivered at commit).
  CREATE FUNCTION mdclaim.notify_work() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_notify('${NOTIFY_CHANNEL}', NEW.board::text);
    RETURN NULL;
  END $$;
  CREATE TRIGGER history_wakes_runners AFTER INSERT ON mdclaim.history
    FOR EACH ROW WHEN (NEW.event IN ('released', 'reaped', 'added', 'imported', 'done'))
    EXECUTE FUNCTION mdclaim.notify_work();

  -- The 1-based line of a task's marker: the line breaks of every row above it and of its lead.
  CREATE FUNCTION mdclaim.line_of(board int, pos bigint, lead_breaks int) RETURNS int
  LANGUAGE sql STABLE AS $$
    SELECT 1 + lead_breaks + coalesce((
      SELECT sum(u.lead_breaks + u.body_breaks)::int FROM mdclaim.task u WHERE u.board = $1 AND u.position < $2
    ), 0)
  $$;

  -- Every task with the two rules that look beyond its own row, each stated
  -- once. A view, not functions: the planner inlines a view into each query,
  -- while a SQL function with a subquery runs once per row.
  CREATE VIEW mdclaim.task_view AS
  SELECT t.*,
    -- The id: the tracker key while exactly one task on the board has it, else the text hash.
    CASE WHEN t.key IS NOT NULL AND NOT EXISTS (
      SELECT 1 FROM mdclaim.task o WHERE o.board = t.board AND o.key = t.key AND o.uid <> t.uid
    ) THEN t.key ELSE t.hash END AS id,
    -- A timed claim past its own lease.
    (t.status = 'claimed' AND t.expires_at <= now()) AS lapsed,
    -- The one claimable predicate (src/board/claimable.ts): open; or blocked
    -- with every task above it in its section done (the section as the file
    -- board walks it: the run since the last task of another section); or a
    -- claim past its own lease.
    CASE t.status
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
    END AS claimable
  FROM mdclaim.task t;
  `,
  // 2: path locks. The paths a task's text declares, normalised at import/add;
  // the locks a holder takes while working; what live claims hold; and the
  // claimable predicate gains the path rule (src/board/claimable.ts, blockingHold).
  `
  ALTER TABLE mdclaim.task ADD COLUMN writes text[] NOT NULL DEFAULT '{}', ADD COLUMN reads text[] NOT NULL DEFAULT '{}';

  -- Locks taken while working; they leave with the claim, in the statement that ends it.
  CREATE TABLE mdclaim.path_lock (
    task bigint NOT NULL REFERENCES mdclaim.task (uid) ON DELETE CASCADE,
    mode text NOT NULL CHECK (mode IN ('write', 'read')),
    path text NOT NULL,
    since timestamptz NOT NULL,
    -- The order they were taken in: the order export writes their lines.
    seq bigserial NOT NULL,
    PRIMARY KEY (task, path)
  );

  -- Do two normal paths (src/format/paths.ts) name something in common? The same path; a
  -- directory (trailing /) and anything under it; the tree ./ and anything; a file and the
  -- directory of the same name.
  CREATE FUNCTION mdclaim.overlaps(a text, b text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
    SELECT a = b OR a = './' OR b = './'
      OR (right(a, 1) = '/' AND starts_with(b, a)) OR (right(b, 1) = '/' AND starts_with(a, b))
      OR a = b || '/' OR b = a || '/'
  $$;

  -- Every path a live claim holds: declared on its task, or locked under it. A lapsed claim holds nothing.
  CREATE VIEW mdclaim.held_path AS
  SELECT t.board, t.uid AS task, t.position, d.ord, d.mode, d.path, t.by, t.claimed_at AS since, 'declared' AS kind
  FROM mdclaim.task t CROSS JOIN LATERAL (
    SELECT 'write' AS mode, w.path, w.ord FROM unnest(t.writes) WITH ORDINALITY AS w(path, ord)
    UNION ALL
    SELECT 'read', r.path, 1000000 + r.ord FROM unnest(t.reads) WITH ORDINALITY AS r(path, ord)
  ) d
  WHERE t.status = 'claimed' AND (t.expires_at IS NULL OR t.expires_at > now())
  UNION ALL
  SELECT t.board, t.uid, t.position, 2000000 + l.seq, l.mode, l.path, t.by, l.since, 'locked'
  FROM mdclaim.task t JOIN mdclaim.path_lock l ON l.task = t.uid
  WHERE t.status = 'claimed' AND (t.expires_at IS NULL OR t.expires_at > now());

  -- The path rule, once: what live claims on tasks other than \`except\` hold in the way of writing
  -- \`writes\` and reading \`reads\`: any hold overlapping a write, a write overlapping a read.
  CREATE FUNCTION mdclaim.blocking_holds(b int, except_task bigint, writes text[], reads text[]) RETURNS SETOF mdclaim.held_path
  LANGUAGE sql STABLE AS $$
    SELECT h.* FROM mdclaim.held_path h
    WHERE h.board = b AND h.task IS DISTINCT FROM except_task
      AND (EXISTS (SELECT 1 FROM unnest(writes) w WHERE mdclaim.overlaps(w, h.path))
        OR (h.mode = 'write' AND EXISTS (SELECT 1 FROM unnest(reads) r WHERE mdclaim.overlaps(r, h.path))))
    ORDER BY h.position, h.ord
  $$;

  DROP VIEW mdclaim.task_view;
  CREATE VIEW mdclaim.task_view AS
  SELECT s.*, s.waiting_ok AND NOT s.path_blocked AS claimable FROM (
    SELECT t.*,
      CASE WHEN t.key IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM mdclaim.task o WHERE o.board = t.board AND o.key = t.key AND o.uid <> t.uid
      ) THEN t.key ELSE t.hash END AS id,
      (t.status = 'claimed' AND t.expires_at <= now()) AS lapsed,
      -- Claimable but for paths (migration 1's predicate).
      CASE t.status
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
      -- A live claim on another task holds a path in the way of this task's declared paths.
      (cardinality(t.writes) + cardinality(t.reads) > 0
        AND EXISTS (SELECT 1 FROM mdclaim.blocking_holds(t.board, t.uid, t.writes, t.reads))) AS path_blocked
    FROM mdclaim.task t
  ) s;
  `,
  // 3: line numbers count lock lines. Export writes a task's locks as lines
  // under it (they live in mdclaim.path_lock, not in the row's bytes), so a
  // task's line is one further down for every lock above it, as in the file.
  `
  CREATE OR REPLACE FUNCTION mdclaim.line_of(board int, pos bigint, lead_breaks int) RETURNS int
  LANGUAGE sql STABLE AS $$
    SELECT 1 + lead_breaks + coalesce((
      SELECT sum(u.lead_breaks + u.body_breaks)::int FROM mdclaim.task u WHERE u.board = $1 AND u.position < $2
    ), 0) + (
      SELECT count(*)::int FROM mdclaim.path_lock l JOIN mdclaim.task u ON u.uid = l.task WHERE u.board = $1 AND u.position < $2
    )
  $$;
  `,
  // 4: the attempts field: how often a task was claimed and when a retry may take it, as the line
  // writes them (src/format/attempts.ts); the claimable predicate gains the not-before rule
  // (src/board/claimable.ts, isDue); history gains retries and parked tasks. It recreates task_view
  // (a view's t.* is fixed when it is made, so the new columns need a new view); the not-before
  // rule is the one line marked below, and a later migration that recreates the view keeps it.
  `
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
  `,
  // 5: maintained state, so that a claim's cost does not grow with the rows above its task. A row's
  // line is kept (mdclaim.task_line), not summed from every row above; a [⏰]'s readiness is kept on
  // its row (ready), not found by walking its section; the first claimable row is found through one
  // index (task_first). mdclaim.rebase(board) makes both right for a whole board (import and add
  // call it; so must a writer that inserts rows or changes their line breaks by hand); a trigger
  // keeps readiness as tasks become done and are reopened. The view keeps migration 4's not-before
  // rule as it was, and the blocked rule now reads the kept readiness.
  `
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
  `,
  // 6: the view says why a task is not claimable, beside claimable, so what a person sees of a task
  // (list, status, watch) is the answer next and claim act on (src/board/claimable.ts, blockerOf).
  // Migration 5's view as it was, and one column more: blocker, NULL exactly when claimable, else
  // the first of: its status (done, failed), a live claim, a retry's time, a [⏰]'s task above (by
  // its kept readiness), a live hold on a path in its way (the first blocking_holds gives).
  `
  CREATE FUNCTION mdclaim.id_of(uid bigint) RETURNS text LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN t.key IS NOT NULL AND NOT EXISTS (
      SELECT 1 FROM mdclaim.task o WHERE o.board = t.board AND o.key = t.key AND o.uid <> t.uid
    ) THEN t.key ELSE t.hash END FROM mdclaim.task t WHERE t.uid = $1
  $$;

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
        FROM mdclaim.blocking_holds(s.board, s.uid, s.writes, s.reads) h LIMIT 1)
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
        AND EXISTS (SELECT 1 FROM mdclaim.blocking_holds(t.board, t.uid, t.writes, t.reads))) AS path_blocked
    FROM mdclaim.task t
  ) s;
  `,
];

export const LATEST = MIGRATIONS.length;
