import { parseDeclared } from '../../format/declared.js';
import type { Conn } from '../db.js';
// Migration 2, as it shipped: never edit it; add the next one.
// path locks. The paths a task's text declares, normalised at import/add;
// the locks a holder takes while working; what live claims hold; and the
// claimable predicate gains the path rule (src/board/claimable.ts, blockingHold).
export const sql = `
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
  `;

/** Then the paths the text of the rows already there declares, read with the file board's parser (SQL cannot run it). */
export async function after(c: Conn): Promise<void> {
  const rows = await c.query<{ uid: string; text: string }>(`SELECT uid, text FROM mdclaim.task WHERE text ~ '\\{[ \\t]*(writes|reads)[ \\t]*:'`);
  for (const r of rows) {
    const d = parseDeclared(r.text);
    if (d.writes.length > 0 || d.reads.length > 0) await c.query('UPDATE mdclaim.task SET writes = $2, reads = $3 WHERE uid = $1', [r.uid, d.writes, d.reads]);
  }
}
