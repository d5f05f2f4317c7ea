-- The PostgreSQL board's schema at version 9, as the migrations in
-- src/pg/migrations/ leave a fresh database: generated, do not edit.
-- Regenerate with npm run schema (pg_dump, PostgreSQL 15).

--
-- PostgreSQL database dump
--

--
-- Name: mdclaim; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA mdclaim;

--
-- Name: after_blocker(integer, bigint, text[]); Type: FUNCTION; Schema: mdclaim; Owner: -
--

CREATE FUNCTION mdclaim.after_blocker(b integer, me bigint, items text[]) RETURNS json
    LANGUAGE plpgsql STABLE
    AS $$
  DECLARE
    problem text;
    deps bigint[];
    d bigint;
    w record;
  BEGIN
    SELECT (array_agg(a.problem ORDER BY a.ord) FILTER (WHERE a.problem IS NOT NULL))[1],
      array_agg(a.uid ORDER BY a.ord, a.pos) FILTER (WHERE a.uid IS NOT NULL)
    INTO problem, deps FROM mdclaim.after_targets(b, me, items) a;
    IF problem IS NOT NULL THEN RETURN json_build_object('kind', 'line', 'reason', problem); END IF;
    IF deps IS NULL THEN RETURN NULL; END IF;
    -- A cycle needs a task waited for that waits for something itself.
    IF EXISTS (SELECT 1 FROM mdclaim.task t WHERE t.uid = ANY(deps) AND cardinality(t.after) > 0) AND mdclaim.after_reaches(b, deps, me) THEN
      FOREACH d IN ARRAY deps LOOP
        IF d = me THEN RETURN json_build_object('kind', 'line', 'reason', 'waits for itself: a cycle'); END IF;
        IF mdclaim.after_reaches(b, ARRAY[d], me) THEN
          RETURN json_build_object('kind', 'line', 'reason', format('waits for %s, which waits for it in turn: a cycle', mdclaim.id_of(d)));
        END IF;
      END LOOP;
    END IF;
    SELECT t.uid, t.text, t.status, t.by AS holder INTO w FROM unnest(deps) WITH ORDINALITY u(uid, k) JOIN mdclaim.task t ON t.uid = u.uid
    WHERE t.status <> 'done' ORDER BY u.k LIMIT 1;
    IF NOT FOUND THEN RETURN NULL; END IF;
    RETURN json_build_object('kind', 'after', 'task', json_strip_nulls(json_build_object('id', mdclaim.id_of(w.uid), 'text', w.text, 'status', w.status, 'by', w.holder)));
  END $$;

--
-- Name: after_ok(integer, bigint, text[]); Type: FUNCTION; Schema: mdclaim; Owner: -
--

CREATE FUNCTION mdclaim.after_ok(b integer, me bigint, items text[]) RETURNS boolean
    LANGUAGE plpgsql STABLE
    AS $$
  DECLARE
    deps bigint[];
    problem boolean;
  BEGIN
    SELECT array_agg(a.uid) FILTER (WHERE a.uid IS NOT NULL), bool_or(a.problem IS NOT NULL) INTO deps, problem
    FROM mdclaim.after_targets(b, me, items) a;
    IF problem THEN RETURN false; END IF;
    IF deps IS NULL THEN RETURN true; END IF;
    IF EXISTS (SELECT 1 FROM mdclaim.task t WHERE t.uid = ANY(deps) AND t.status <> 'done') THEN RETURN false; END IF;
    RETURN NOT mdclaim.after_reaches(b, deps, me);
  END $$;

--
-- Name: after_reaches(integer, bigint[], bigint); Type: FUNCTION; Schema: mdclaim; Owner: -
--

CREATE FUNCTION mdclaim.after_reaches(b integer, starts bigint[], goal bigint) RETURNS boolean
    LANGUAGE sql STABLE
    AS $$
    WITH RECURSIVE reach(uid) AS (
      SELECT unnest(starts)
      UNION
      SELECT a.uid FROM reach r JOIN mdclaim.task t ON t.uid = r.uid
        CROSS JOIN LATERAL mdclaim.after_targets(b, t.uid, t.after) a
      WHERE cardinality(t.after) > 0 AND a.uid IS NOT NULL
    )
    SELECT EXISTS (SELECT 1 FROM reach WHERE reach.uid = goal)
  $$;

--
-- Name: after_targets(integer, bigint, text[]); Type: FUNCTION; Schema: mdclaim; Owner: -
--

CREATE FUNCTION mdclaim.after_targets(b integer, me bigint, items text[]) RETURNS TABLE(ord integer, uid bigint, pos bigint, problem text)
    LANGUAGE plpgsql STABLE
    AS $_$
  DECLARE
    item text;
    i int := 0;
    n int;
    whole text;
  BEGIN
    FOREACH item IN ARRAY items LOOP
      i := i + 1;
      IF starts_with(item, 'section ') THEN
        RETURN QUERY SELECT i, t.uid, t.position, NULL::text FROM mdclaim.task t
          WHERE t.board = b AND t.uid <> me AND (t.section = btrim(substr(item, 9)) OR t.worktree = btrim(substr(item, 9))) ORDER BY t.position;
        IF NOT FOUND THEN RETURN QUERY SELECT i, NULL::bigint, NULL::bigint, format('waits for %s, which holds no other task', item); END IF;
        CONTINUE;
      END IF;
      whole := NULL;
      IF item ~ '^[0-9a-f]{12}$' THEN
        whole := item;
      ELSIF item ~ '^[A-Z][A-Z0-9]*-[0-9]+$' THEN
        SELECT count(*) INTO n FROM mdclaim.task t WHERE t.board = b AND t.key = item;
        IF n > 1 THEN
          RETURN QUERY SELECT i, NULL::bigint, NULL::bigint, format('waits for %s, which is on %s tasks: name one by its id', item, n);
          CONTINUE;
        END IF;
        whole := item;
      ELSIF length(item) >= 4 THEN
        -- The start of an id, as the CLI reads one: it must start exactly one task's id.
        SELECT count(DISTINCT x.id), min(x.id) INTO n, whole FROM (
          SELECT mdclaim.id_of(t.uid) AS id FROM mdclaim.task t
          WHERE t.board = b AND (starts_with(t.hash, item) OR starts_with(t.key, item))
        ) x WHERE starts_with(x.id, item);
        IF n > 1 THEN
          RETURN QUERY SELECT i, NULL::bigint, NULL::bigint, format('waits for %s, the start of %s ids: use more of one', item, n);
          CONTINUE;
        END IF;
      END IF;
      -- One query per form, each on its index.
      IF whole ~ '^[0-9a-f]{12}$' THEN
        RETURN QUERY SELECT i, t.uid, t.position, NULL::text FROM mdclaim.task t WHERE t.board = b AND t.hash = whole ORDER BY t.position;
      ELSIF whole IS NOT NULL THEN
        RETURN QUERY SELECT i, t.uid, t.position, NULL::text FROM mdclaim.task t WHERE t.board = b AND t.key = whole ORDER BY t.position;
      END IF;
      IF whole IS NULL OR NOT FOUND THEN RETURN QUERY SELECT i, NULL::bigint, NULL::bigint, format('waits for %s, which names no task', item); END IF;
    END LOOP;
  END $_$;

--
-- Name: path_lock; Type: TABLE; Schema: mdclaim; Owner: -
--

CREATE TABLE mdclaim.path_lock (
    task bigint NOT NULL,
    mode text NOT NULL,
    path text NOT NULL,
    since timestamp with time zone NOT NULL,
    seq bigint NOT NULL,
    CONSTRAINT path_lock_mode_check CHECK ((mode = ANY (ARRAY['write'::text, 'read'::text])))
);

--
-- Name: task; Type: TABLE; Schema: mdclaim; Owner: -
--

CREATE TABLE mdclaim.task (
    uid bigint NOT NULL,
    board integer NOT NULL,
    "position" bigint NOT NULL,
    lead bytea NOT NULL,
    marker bytea,
    body bytea NOT NULL,
    text_end integer NOT NULL,
    lead_breaks integer NOT NULL,
    body_breaks integer NOT NULL,
    text text NOT NULL,
    key text,
    hash text NOT NULL,
    tags text[] NOT NULL,
    section text,
    worktree text,
    status text NOT NULL,
    by text,
    claimed_at timestamp with time zone,
    lease_ms bigint,
    expires_at timestamp with time zone,
    commit text,
    reason text,
    writes text[] DEFAULT '{}'::text[] NOT NULL,
    reads text[] DEFAULT '{}'::text[] NOT NULL,
    attempts integer,
    not_before timestamp with time zone,
    tries_len integer DEFAULT 0 NOT NULL,
    ready boolean DEFAULT false NOT NULL,
    token text,
    after text[] DEFAULT '{}'::text[] NOT NULL,
    CONSTRAINT task_check CHECK (((status = 'claimed'::text) OR ((claimed_at IS NULL) AND (lease_ms IS NULL)))),
    CONSTRAINT task_check1 CHECK ((((claimed_at IS NULL) = (lease_ms IS NULL)) AND ((claimed_at IS NULL) = (expires_at IS NULL)))),
    CONSTRAINT task_status_check CHECK ((status = ANY (ARRAY['open'::text, 'blocked'::text, 'claimed'::text, 'done'::text, 'failed'::text])))
);

--
-- Name: held_path; Type: VIEW; Schema: mdclaim; Owner: -
--

CREATE VIEW mdclaim.held_path AS
 SELECT t.board,
    t.uid AS task,
    t."position",
    d.ord,
    d.mode,
    d.path,
    t.by,
    t.claimed_at AS since,
    'declared'::text AS kind
   FROM (mdclaim.task t
     CROSS JOIN LATERAL ( SELECT 'write'::text AS mode,
            w.path,
            w.ord
           FROM unnest(t.writes) WITH ORDINALITY w(path, ord)
        UNION ALL
         SELECT 'read'::text,
            r.path,
            (1000000 + r.ord)
           FROM unnest(t.reads) WITH ORDINALITY r(path, ord)) d)
  WHERE ((t.status = 'claimed'::text) AND ((t.expires_at IS NULL) OR (t.expires_at > now())))
UNION ALL
 SELECT t.board,
    t.uid AS task,
    t."position",
    (2000000 + l.seq) AS ord,
    l.mode,
    l.path,
    t.by,
    l.since,
    'locked'::text AS kind
   FROM (mdclaim.task t
     JOIN mdclaim.path_lock l ON ((l.task = t.uid)))
  WHERE ((t.status = 'claimed'::text) AND ((t.expires_at IS NULL) OR (t.expires_at > now())));

--
-- Name: blocking_holds(integer, bigint, text[], text[]); Type: FUNCTION; Schema: mdclaim; Owner: -
--

CREATE FUNCTION mdclaim.blocking_holds(b integer, except_task bigint, writes text[], reads text[]) RETURNS SETOF mdclaim.held_path
    LANGUAGE sql STABLE
    AS $$
    SELECT h.* FROM mdclaim.held_path h
    WHERE h.board = b AND h.task IS DISTINCT FROM except_task
      AND (EXISTS (SELECT 1 FROM unnest(writes) w WHERE mdclaim.overlaps(w, h.path))
        OR (h.mode = 'write' AND EXISTS (SELECT 1 FROM unnest(reads) r WHERE mdclaim.overlaps(r, h.path))))
    ORDER BY h.position, h.ord
  $$;

--
-- Name: board_history_goes(); Type: FUNCTION; Schema: mdclaim; Owner: -
--

CREATE FUNCTION mdclaim.board_history_goes() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
  BEGIN
    DELETE FROM mdclaim.history WHERE board = OLD.id;
    RETURN NULL;
  END $$;

--
-- Name: history_is_append_only(); Type: FUNCTION; Schema: mdclaim; Owner: -
--

CREATE FUNCTION mdclaim.history_is_append_only() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
  BEGIN
    IF pg_trigger_depth() <= 1 THEN
      RAISE EXCEPTION 'mdclaim.history is append-only';
    END IF;
    RETURN NULL;
  END $$;

--
-- Name: id_of(bigint); Type: FUNCTION; Schema: mdclaim; Owner: -
--

CREATE FUNCTION mdclaim.id_of(uid bigint) RETURNS text
    LANGUAGE sql STABLE
    AS $_$
    SELECT CASE WHEN t.key IS NOT NULL AND NOT EXISTS (
      SELECT 1 FROM mdclaim.task o WHERE o.board = t.board AND o.key = t.key AND o.uid <> t.uid
    ) THEN t.key ELSE t.hash END FROM mdclaim.task t WHERE t.uid = $1
  $_$;

--
-- Name: implied_attempts(text); Type: FUNCTION; Schema: mdclaim; Owner: -
--

CREATE FUNCTION mdclaim.implied_attempts(status text) RETURNS integer
    LANGUAGE sql IMMUTABLE
    AS $$
    SELECT CASE WHEN status IN ('open', 'blocked') THEN 0 ELSE 1 END
  $$;

--
-- Name: keep_ready(); Type: FUNCTION; Schema: mdclaim; Owner: -
--

CREATE FUNCTION mdclaim.keep_ready() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
  BEGIN
    PERFORM pg_advisory_xact_lock(1835299428, NEW.board);
    PERFORM mdclaim.refresh_ready(NEW.board, NEW.position);
    RETURN NULL;
  END $$;

--
-- Name: notify_work(); Type: FUNCTION; Schema: mdclaim; Owner: -
--

CREATE FUNCTION mdclaim.notify_work() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
  BEGIN
    PERFORM pg_notify('mdclaim', NEW.board::text);
    RETURN NULL;
  END $$;

--
-- Name: overlaps(text, text); Type: FUNCTION; Schema: mdclaim; Owner: -
--

CREATE FUNCTION mdclaim."overlaps"(a text, b text) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $$
    SELECT a = b OR a = './' OR b = './'
      OR (right(a, 1) = '/' AND starts_with(b, a)) OR (right(b, 1) = '/' AND starts_with(a, b))
      OR a = b || '/' OR b = a || '/'
  $$;

--
-- Name: park_reason(integer, text); Type: FUNCTION; Schema: mdclaim; Owner: -
--

CREATE FUNCTION mdclaim.park_reason(n integer, by text) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $$
    SELECT 'abandoned after ' || n || ' attempt' || CASE WHEN n = 1 THEN '' ELSE 's' END || coalesce('; last held by ' || by, '')
  $$;

--
-- Name: parked_body(bytea, integer, integer, text); Type: FUNCTION; Schema: mdclaim; Owner: -
--

CREATE FUNCTION mdclaim.parked_body(body bytea, text_end integer, n integer, by text) RETURNS bytea
    LANGUAGE sql STABLE
    AS $$
    SELECT substring(body FOR text_end) || mdclaim.tries_field('failed', n, NULL) || convert_to(' // Failed: ' || mdclaim.park_reason(n, by), 'UTF8')
      || coalesce(substring(body FROM text_end + least(
        nullif(position('\x0d'::bytea IN substring(body FROM text_end + 1)), 0),
        nullif(position('\x0a'::bytea IN substring(body FROM text_end + 1)), 0))), ''::bytea)
  $$;

--
-- Name: path_blocked(integer, bigint, text[], text[]); Type: FUNCTION; Schema: mdclaim; Owner: -
--

CREATE FUNCTION mdclaim.path_blocked(b integer, except_task bigint, writes text[], reads text[]) RETURNS boolean
    LANGUAGE plpgsql STABLE
    AS $$
  BEGIN
    RETURN EXISTS (SELECT 1 FROM mdclaim.blocking_holds(b, except_task, writes, reads));
  END $$;

--
-- Name: rebase(integer); Type: FUNCTION; Schema: mdclaim; Owner: -
--

CREATE FUNCTION mdclaim.rebase(b integer) RETURNS void
    LANGUAGE sql
    AS $$
    SELECT pg_advisory_xact_lock(1835299428, b);

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

--
-- Name: refresh_ready(integer, bigint); Type: FUNCTION; Schema: mdclaim; Owner: -
--

CREATE FUNCTION mdclaim.refresh_ready(b integer, pos bigint) RETURNS void
    LANGUAGE plpgsql
    AS $$
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

--
-- Name: set_tries(bytea, integer, integer, text, integer, timestamp with time zone); Type: FUNCTION; Schema: mdclaim; Owner: -
--

CREATE FUNCTION mdclaim.set_tries(body bytea, text_end integer, tries_len integer, status text, n integer, not_before timestamp with time zone) RETURNS TABLE(body bytea, tries_len integer, attempts integer)
    LANGUAGE sql STABLE
    AS $$
    SELECT overlay(body PLACING f FROM text_end + 1 FOR tries_len), length(f), CASE WHEN length(f) = 0 THEN NULL ELSE greatest(n, 1) END
    FROM mdclaim.tries_field(status, n, not_before) AS f
  $$;

--
-- Name: tries_field(text, integer, timestamp with time zone); Type: FUNCTION; Schema: mdclaim; Owner: -
--

CREATE FUNCTION mdclaim.tries_field(status text, n integer, not_before timestamp with time zone) RETURNS bytea
    LANGUAGE sql STABLE
    AS $$
    SELECT CASE WHEN not_before IS NULL AND n <= mdclaim.implied_attempts(status) THEN ''::bytea
      ELSE convert_to(' // Attempts: ' || greatest(n, 1)
        || coalesce(', not before ' || to_char(not_before AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), ''), 'UTF8') END
  $$;

--
-- Name: board; Type: TABLE; Schema: mdclaim; Owner: -
--

CREATE TABLE mdclaim.board (
    id integer NOT NULL,
    name text NOT NULL,
    tail bytea DEFAULT '\x'::bytea NOT NULL
);

--
-- Name: board_id_seq; Type: SEQUENCE; Schema: mdclaim; Owner: -
--

CREATE SEQUENCE mdclaim.board_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: board_id_seq; Type: SEQUENCE OWNED BY; Schema: mdclaim; Owner: -
--

ALTER SEQUENCE mdclaim.board_id_seq OWNED BY mdclaim.board.id;

--
-- Name: history; Type: TABLE; Schema: mdclaim; Owner: -
--

CREATE TABLE mdclaim.history (
    seq bigint NOT NULL,
    board integer NOT NULL,
    task bigint NOT NULL,
    hash text NOT NULL,
    key text,
    text text NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL,
    event text NOT NULL,
    by text,
    prior_by text,
    claimed_at timestamp with time zone,
    lease_ms bigint,
    commit text,
    reason text,
    via text NOT NULL,
    attempts integer,
    not_before timestamp with time zone,
    paths text[],
    CONSTRAINT history_event_check CHECK ((event = ANY (ARRAY['added'::text, 'imported'::text, 'claimed'::text, 'renewed'::text, 'taken over'::text, 'done'::text, 'failed'::text, 'released'::text, 'reaped'::text, 'retried'::text, 'parked'::text, 'locked'::text, 'unlocked'::text])))
);

--
-- Name: history_seq_seq; Type: SEQUENCE; Schema: mdclaim; Owner: -
--

CREATE SEQUENCE mdclaim.history_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: history_seq_seq; Type: SEQUENCE OWNED BY; Schema: mdclaim; Owner: -
--

ALTER SEQUENCE mdclaim.history_seq_seq OWNED BY mdclaim.history.seq;

--
-- Name: meta; Type: TABLE; Schema: mdclaim; Owner: -
--

CREATE TABLE mdclaim.meta (
    version integer NOT NULL
);

--
-- Name: path_lock_seq_seq; Type: SEQUENCE; Schema: mdclaim; Owner: -
--

CREATE SEQUENCE mdclaim.path_lock_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: path_lock_seq_seq; Type: SEQUENCE OWNED BY; Schema: mdclaim; Owner: -
--

ALTER SEQUENCE mdclaim.path_lock_seq_seq OWNED BY mdclaim.path_lock.seq;

--
-- Name: task_line; Type: TABLE; Schema: mdclaim; Owner: -
--

CREATE TABLE mdclaim.task_line (
    uid bigint NOT NULL,
    base integer NOT NULL
);

--
-- Name: task_uid_seq; Type: SEQUENCE; Schema: mdclaim; Owner: -
--

CREATE SEQUENCE mdclaim.task_uid_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: task_uid_seq; Type: SEQUENCE OWNED BY; Schema: mdclaim; Owner: -
--

ALTER SEQUENCE mdclaim.task_uid_seq OWNED BY mdclaim.task.uid;

--
-- Name: task_view; Type: VIEW; Schema: mdclaim; Owner: -
--

CREATE VIEW mdclaim.task_view AS
 SELECT s.uid,
    s.board,
    s."position",
    s.lead,
    s.marker,
    s.body,
    s.text_end,
    s.lead_breaks,
    s.body_breaks,
    s.text,
    s.key,
    s.hash,
    s.tags,
    s.section,
    s.worktree,
    s.status,
    s.by,
    s.claimed_at,
    s.lease_ms,
    s.expires_at,
    s.commit,
    s.reason,
    s.writes,
    s.reads,
    s.attempts,
    s.not_before,
    s.tries_len,
    s.ready,
    s.token,
    s.after,
    s.id,
    s.lapsed,
    s.line,
    s.waiting_ok,
    s.path_blocked,
    s.after_ok,
    s.after_blocker,
    (s.waiting_ok AND s.after_ok AND (NOT s.path_blocked)) AS claimable,
        CASE
            WHEN (s.status = ANY (ARRAY['done'::text, 'failed'::text])) THEN json_build_object('kind', 'status', 'status', s.status)
            WHEN ((s.status = 'claimed'::text) AND (NOT COALESCE((s.expires_at <= now()), false))) THEN json_build_object('kind', 'claimed')
            WHEN ((s.after_blocker ->> 'kind'::text) = 'line'::text) THEN s.after_blocker
            WHEN (s.not_before > now()) THEN json_build_object('kind', 'retry', 'notBefore', to_char((s.not_before AT TIME ZONE 'UTC'::text), 'YYYY-MM-DD"T"HH24:MI:SS"Z"'::text))
            WHEN ((s.status = 'blocked'::text) AND (NOT s.ready)) THEN json_build_object('kind', 'above', 'task', ( SELECT mdclaim.id_of(u.uid) AS id_of
               FROM mdclaim.task u
              WHERE ((u.board = s.board) AND (u."position" < s."position") AND (u.status <> 'done'::text) AND (u."position" > COALESCE(( SELECT max(v."position") AS max
                       FROM mdclaim.task v
                      WHERE ((v.board = s.board) AND (v."position" < s."position") AND (v.section IS DISTINCT FROM s.section))), ('-1'::integer)::bigint)))
              ORDER BY u."position"
             LIMIT 1))
            WHEN (s.after_blocker IS NOT NULL) THEN s.after_blocker
            WHEN s.path_blocked THEN ( SELECT json_build_object('kind', 'path', 'hold', json_strip_nulls(json_build_object('path', h.path, 'mode', h.mode, 'task', mdclaim.id_of(h.task), 'by', h.by, 'since', to_char((h.since AT TIME ZONE 'UTC'::text), 'YYYY-MM-DD"T"HH24:MI:SS"Z"'::text), 'kind', h.kind))) AS json_build_object
               FROM mdclaim.blocking_holds(s.board, s.uid, s.writes, s.reads) h(board, task, "position", ord, mode, path, by, since, kind)
              ORDER BY h."position", h.ord
             LIMIT 1)
            ELSE NULL::json
        END AS blocker
   FROM ( SELECT t.uid,
            t.board,
            t."position",
            t.lead,
            t.marker,
            t.body,
            t.text_end,
            t.lead_breaks,
            t.body_breaks,
            t.text,
            t.key,
            t.hash,
            t.tags,
            t.section,
            t.worktree,
            t.status,
            t.by,
            t.claimed_at,
            t.lease_ms,
            t.expires_at,
            t.commit,
            t.reason,
            t.writes,
            t.reads,
            t.attempts,
            t.not_before,
            t.tries_len,
            t.ready,
            t.token,
            t.after,
                CASE
                    WHEN ((t.key IS NOT NULL) AND (NOT (EXISTS ( SELECT 1
                       FROM mdclaim.task o
                      WHERE ((o.board = t.board) AND (o.key = t.key) AND (o.uid <> t.uid)))))) THEN t.key
                    ELSE t.hash
                END AS id,
            ((t.status = 'claimed'::text) AND (t.expires_at <= now())) AS lapsed,
            (( SELECT l.base
                   FROM mdclaim.task_line l
                  WHERE (l.uid = t.uid)) + ( SELECT (count(*))::integer AS count
                   FROM mdclaim.path_lock k
                  WHERE ( SELECT ((u.board = t.board) AND (u."position" < t."position"))
                           FROM mdclaim.task u
                          WHERE (u.uid = k.task)))) AS line,
            (((t.not_before IS NULL) OR (t.not_before <= now())) AND
                CASE t.status
                    WHEN 'open'::text THEN true
                    WHEN 'claimed'::text THEN (t.expires_at <= now())
                    WHEN 'blocked'::text THEN t.ready
                    ELSE false
                END) AS waiting_ok,
            (((cardinality(t.writes) + cardinality(t.reads)) > 0) AND mdclaim.path_blocked(t.board, t.uid, t.writes, t.reads)) AS path_blocked,
            ((cardinality(t.after) = 0) OR mdclaim.after_ok(t.board, t.uid, t.after)) AS after_ok,
                CASE
                    WHEN ((cardinality(t.after) > 0) AND ((t.status = ANY (ARRAY['open'::text, 'blocked'::text])) OR ((t.status = 'claimed'::text) AND (t.expires_at <= now())))) THEN mdclaim.after_blocker(t.board, t.uid, t.after)
                    ELSE NULL::json
                END AS after_blocker
           FROM mdclaim.task t) s;

--
-- Name: board id; Type: DEFAULT; Schema: mdclaim; Owner: -
--

ALTER TABLE ONLY mdclaim.board ALTER COLUMN id SET DEFAULT nextval('mdclaim.board_id_seq'::regclass);

--
-- Name: history seq; Type: DEFAULT; Schema: mdclaim; Owner: -
--

ALTER TABLE ONLY mdclaim.history ALTER COLUMN seq SET DEFAULT nextval('mdclaim.history_seq_seq'::regclass);

--
-- Name: path_lock seq; Type: DEFAULT; Schema: mdclaim; Owner: -
--

ALTER TABLE ONLY mdclaim.path_lock ALTER COLUMN seq SET DEFAULT nextval('mdclaim.path_lock_seq_seq'::regclass);

--
-- Name: task uid; Type: DEFAULT; Schema: mdclaim; Owner: -
--

ALTER TABLE ONLY mdclaim.task ALTER COLUMN uid SET DEFAULT nextval('mdclaim.task_uid_seq'::regclass);

--
-- Name: board board_name_key; Type: CONSTRAINT; Schema: mdclaim; Owner: -
--

ALTER TABLE ONLY mdclaim.board
    ADD CONSTRAINT board_name_key UNIQUE (name);

--
-- Name: board board_pkey; Type: CONSTRAINT; Schema: mdclaim; Owner: -
--

ALTER TABLE ONLY mdclaim.board
    ADD CONSTRAINT board_pkey PRIMARY KEY (id);

--
-- Name: history history_pkey; Type: CONSTRAINT; Schema: mdclaim; Owner: -
--

ALTER TABLE ONLY mdclaim.history
    ADD CONSTRAINT history_pkey PRIMARY KEY (seq);

--
-- Name: path_lock path_lock_pkey; Type: CONSTRAINT; Schema: mdclaim; Owner: -
--

ALTER TABLE ONLY mdclaim.path_lock
    ADD CONSTRAINT path_lock_pkey PRIMARY KEY (task, path);

--
-- Name: task_line task_line_pkey; Type: CONSTRAINT; Schema: mdclaim; Owner: -
--

ALTER TABLE ONLY mdclaim.task_line
    ADD CONSTRAINT task_line_pkey PRIMARY KEY (uid);

--
-- Name: task task_pkey; Type: CONSTRAINT; Schema: mdclaim; Owner: -
--

ALTER TABLE ONLY mdclaim.task
    ADD CONSTRAINT task_pkey PRIMARY KEY (uid);

--
-- Name: history_at; Type: INDEX; Schema: mdclaim; Owner: -
--

CREATE INDEX history_at ON mdclaim.history USING btree (board, at);

--
-- Name: history_key; Type: INDEX; Schema: mdclaim; Owner: -
--

CREATE INDEX history_key ON mdclaim.history USING btree (board, key) WHERE (key IS NOT NULL);

--
-- Name: history_task; Type: INDEX; Schema: mdclaim; Owner: -
--

CREATE INDEX history_task ON mdclaim.history USING btree (board, hash);

--
-- Name: task_first; Type: INDEX; Schema: mdclaim; Owner: -
--

CREATE INDEX task_first ON mdclaim.task USING btree (board, "position") WHERE ((status = 'open'::text) OR ((status = 'blocked'::text) AND ready));

--
-- Name: task_hash; Type: INDEX; Schema: mdclaim; Owner: -
--

CREATE INDEX task_hash ON mdclaim.task USING btree (board, hash);

--
-- Name: task_key; Type: INDEX; Schema: mdclaim; Owner: -
--

CREATE INDEX task_key ON mdclaim.task USING btree (board, key) WHERE (key IS NOT NULL);

--
-- Name: task_lapsing; Type: INDEX; Schema: mdclaim; Owner: -
--

CREATE INDEX task_lapsing ON mdclaim.task USING btree (board, expires_at) WHERE (status = 'claimed'::text);

--
-- Name: task_order; Type: INDEX; Schema: mdclaim; Owner: -
--

CREATE INDEX task_order ON mdclaim.task USING btree (board, "position") INCLUDE (lead_breaks, body_breaks);

--
-- Name: task_section; Type: INDEX; Schema: mdclaim; Owner: -
--

CREATE INDEX task_section ON mdclaim.task USING btree (board, section);

--
-- Name: task_worktree; Type: INDEX; Schema: mdclaim; Owner: -
--

CREATE INDEX task_worktree ON mdclaim.task USING btree (board, worktree) WHERE (worktree IS NOT NULL);

--
-- Name: board board_history_goes; Type: TRIGGER; Schema: mdclaim; Owner: -
--

CREATE TRIGGER board_history_goes AFTER DELETE ON mdclaim.board FOR EACH ROW EXECUTE FUNCTION mdclaim.board_history_goes();

--
-- Name: history history_append_only; Type: TRIGGER; Schema: mdclaim; Owner: -
--

CREATE TRIGGER history_append_only BEFORE DELETE OR UPDATE OR TRUNCATE ON mdclaim.history FOR EACH STATEMENT EXECUTE FUNCTION mdclaim.history_is_append_only();

--
-- Name: history history_wakes_runners; Type: TRIGGER; Schema: mdclaim; Owner: -
--

CREATE TRIGGER history_wakes_runners AFTER INSERT ON mdclaim.history FOR EACH ROW WHEN ((new.event = ANY (ARRAY['released'::text, 'reaped'::text, 'added'::text, 'imported'::text, 'done'::text]))) EXECUTE FUNCTION mdclaim.notify_work();

--
-- Name: task task_keeps_ready; Type: TRIGGER; Schema: mdclaim; Owner: -
--

CREATE TRIGGER task_keeps_ready AFTER UPDATE OF status ON mdclaim.task FOR EACH ROW WHEN (((old.status = 'done'::text) <> (new.status = 'done'::text))) EXECUTE FUNCTION mdclaim.keep_ready();

--
-- Name: path_lock path_lock_task_fkey; Type: FK CONSTRAINT; Schema: mdclaim; Owner: -
--

ALTER TABLE ONLY mdclaim.path_lock
    ADD CONSTRAINT path_lock_task_fkey FOREIGN KEY (task) REFERENCES mdclaim.task(uid) ON DELETE CASCADE;

--
-- Name: task task_board_fkey; Type: FK CONSTRAINT; Schema: mdclaim; Owner: -
--

ALTER TABLE ONLY mdclaim.task
    ADD CONSTRAINT task_board_fkey FOREIGN KEY (board) REFERENCES mdclaim.board(id) ON DELETE CASCADE;

--
-- Name: task_line task_line_uid_fkey; Type: FK CONSTRAINT; Schema: mdclaim; Owner: -
--

ALTER TABLE ONLY mdclaim.task_line
    ADD CONSTRAINT task_line_uid_fkey FOREIGN KEY (uid) REFERENCES mdclaim.task(uid) ON DELETE CASCADE;

--
-- PostgreSQL database dump complete
--
