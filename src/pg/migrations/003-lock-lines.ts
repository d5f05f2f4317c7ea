// Migration 3, as it shipped: never edit it; add the next one.
// line numbers count lock lines. Export writes a task's locks as lines
// under it (they live in mdclaim.path_lock, not in the row's bytes), so a
// task's line is one further down for every lock above it, as in the file.
export const sql = `
  CREATE OR REPLACE FUNCTION mdclaim.line_of(board int, pos bigint, lead_breaks int) RETURNS int
  LANGUAGE sql STABLE AS $$
    SELECT 1 + lead_breaks + coalesce((
      SELECT sum(u.lead_breaks + u.body_breaks)::int FROM mdclaim.task u WHERE u.board = $1 AND u.position < $2
    ), 0) + (
      SELECT count(*)::int FROM mdclaim.path_lock l JOIN mdclaim.task u ON u.uid = l.task WHERE u.board = $1 AND u.position < $2
    )
  $$;
  `;
