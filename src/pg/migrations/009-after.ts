import { parseAfter } from '../../format/after.js';
import { bytes } from '../../format/bytes.js';
import { textHash, trackerKey } from '../../format/id.js';
import type { Conn } from '../db.js';

// Migration 9, as it shipped: never edit it; add the next one.
// tasks that wait for others (`{after: …}`, src/format/after.ts): the items a task's text declares,
// kept on its row at import/add; what they name, resolved as src/board/after.ts resolves them
// (mdclaim.after_targets); and the view's rule gains the after rule where blockerOf has it (a
// refusal of the line before a retry's wait, a wait after the ⏰ one). As the path rule, it is one
// PL/pgSQL call, made only for a task that declares what it waits for: claimable asks after_ok,
// which stops at the first task waited for that is not done; blocker asks after_blocker, the whole
// answer. A claim's plan is migration 7's, and a board without `{after: …}` pays nothing.
export const sql = `
  ALTER TABLE mdclaim.task ADD COLUMN after text[] NOT NULL DEFAULT '{}';
  -- A section waited for is found by its heading or its worktree name.
  CREATE INDEX task_section ON mdclaim.task (board, section);
  CREATE INDEX task_worktree ON mdclaim.task (board, worktree) WHERE worktree IS NOT NULL;

  -- What each item of a task's after names, in the order written, each task in board order; or one
  -- row with why the item names no task to wait for.
  CREATE FUNCTION mdclaim.after_targets(b int, me bigint, items text[]) RETURNS TABLE (ord int, uid bigint, pos bigint, problem text)
  LANGUAGE plpgsql STABLE AS $$
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
  END $$;

  -- Does any task of starts reach goal, through what each waits for?
  CREATE FUNCTION mdclaim.after_reaches(b int, starts bigint[], goal bigint) RETURNS boolean LANGUAGE sql STABLE AS $$
    WITH RECURSIVE reach(uid) AS (
      SELECT unnest(starts)
      UNION
      SELECT a.uid FROM reach r JOIN mdclaim.task t ON t.uid = r.uid
        CROSS JOIN LATERAL mdclaim.after_targets(b, t.uid, t.after) a
      WHERE cardinality(t.after) > 0 AND a.uid IS NOT NULL
    )
    SELECT EXISTS (SELECT 1 FROM reach WHERE reach.uid = goal)
  $$;

  -- May a task with these items be claimed as far as they go (after_blocker would be NULL)? The
  -- question a claim asks, answered as soon as a task waited for is not done: the usual case, where
  -- no cycle needs looking for.
  CREATE FUNCTION mdclaim.after_ok(b int, me bigint, items text[]) RETURNS boolean
  LANGUAGE plpgsql STABLE AS $$
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

  -- The after rule (src/board/after.ts, Dependencies.answer): an item that names no task, then a
  -- cycle, refuse the line; else the first task waited for that is not done; else NULL.
  CREATE FUNCTION mdclaim.after_blocker(b int, me bigint, items text[]) RETURNS json
  LANGUAGE plpgsql STABLE AS $$
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

  DROP VIEW mdclaim.task_view;
  CREATE VIEW mdclaim.task_view AS
  SELECT s.*, s.waiting_ok AND s.after_ok AND NOT s.path_blocked AS claimable,
    CASE
      WHEN s.status IN ('done', 'failed') THEN json_build_object('kind', 'status', 'status', s.status)
      WHEN s.status = 'claimed' AND NOT coalesce(s.expires_at <= now(), false) THEN json_build_object('kind', 'claimed')
      WHEN s.after_blocker->>'kind' = 'line' THEN s.after_blocker
      WHEN s.not_before > now() THEN json_build_object('kind', 'retry', 'notBefore', to_char(s.not_before AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
      WHEN s.status = 'blocked' AND NOT s.ready THEN json_build_object('kind', 'above', 'task', (
        SELECT mdclaim.id_of(u.uid) FROM mdclaim.task u
        WHERE u.board = s.board AND u.position < s.position AND u.status <> 'done'
          AND u.position > coalesce((
            SELECT max(v.position) FROM mdclaim.task v
            WHERE v.board = s.board AND v.position < s.position AND v.section IS DISTINCT FROM s.section
          ), -1)
        ORDER BY u.position LIMIT 1))
      WHEN s.after_blocker IS NOT NULL THEN s.after_blocker
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
        AND mdclaim.path_blocked(t.board, t.uid, t.writes, t.reads)) AS path_blocked,
      (cardinality(t.after) = 0 OR mdclaim.after_ok(t.board, t.uid, t.after)) AS after_ok,
      CASE WHEN cardinality(t.after) > 0 AND (t.status IN ('open', 'blocked') OR (t.status = 'claimed' AND t.expires_at <= now()))
        THEN mdclaim.after_blocker(t.board, t.uid, t.after) END AS after_blocker
    FROM mdclaim.task t
  ) s;
  `;

/** Rows imported before this migration that declare `{after: …}`: their items, and their hash and key without them (src/format/id.ts). */
export async function after(c: Conn): Promise<void> {
  const rows = await c.query<{ uid: string; text: string }>(`SELECT uid, text FROM mdclaim.task WHERE text ~ '\\{[ \\t]*after[ \\t]*:'`);
  for (const r of rows) {
    const b = bytes(r.text);
    await c.query('UPDATE mdclaim.task SET after = $2, hash = $3, key = $4 WHERE uid = $1', [r.uid, parseAfter(r.text), textHash(b, 0, b.length), trackerKey(b, 0, b.length)]);
  }
}
