import { NOTIFY_CHANNEL } from '../constants.js';

// Migration 1, as it shipped: never edit it; add the next one.
// boards, tasks, history; the claimable predicate and the id rule in one place each.
export const sql = `
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
  `;
