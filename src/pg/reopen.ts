import { noTask } from '../board/resolve-id.js';
import { notReopenable } from '../board/conflict.js';
import type { Task } from '../format/task.js';
import { ambiguousKey } from '../board/messages.js';
import { ID_MATCH } from './claim.js';
import type { Conn } from './db.js';
import { logged } from './history-sql.js';
import { taskColumns, toTask, type TaskRow } from './rows.js';

// Reopen is one statement, as the file board's reopen is one write: the
// first finished row the id names goes back to open, its commit and reason
// dropped (a failure's ` // Failed: reason` cut from its bytes, up to the
// line's end), and the change is logged as a `released` event via `reopen`
// (it wakes waiting runners as a release does), with who finished it and
// what was dropped.

/** The first line break of the bytes after the text, 1-based in them; NULL when the body has none. */
const BREAK = `least(nullif(position(decode('0d', 'hex') IN substring(t.body FROM t.text_end + 1)), 0),
  nullif(position(decode('0a', 'hex') IN substring(t.body FROM t.text_end + 1)), 0))`;

const REOPEN = `WITH target AS MATERIALIZED (
    SELECT v.uid, v.by AS prior_by, v.commit AS prior_commit, v.reason AS prior_reason FROM mdclaim.task_view v
    WHERE v.board = $1 AND ${ID_MATCH.replaceAll('$ID', '$2')} AND v.status IN ('done', 'failed')
    ORDER BY v.position LIMIT 1 FOR UPDATE OF v
  ),
  changed AS (
    UPDATE mdclaim.task t SET status = 'open', by = NULL, commit = NULL, reason = NULL, marker = NULL,
      -- A person's decision to try again: the attempts field goes too, and the count starts over.
      attempts = NULL, not_before = NULL, tries_len = 0,
      body = CASE WHEN t.status = 'failed'
        THEN substring(t.body FOR t.text_end) || coalesce(substring(t.body FROM t.text_end + ${BREAK}), ''::bytea)
        ELSE overlay(t.body PLACING ''::bytea FROM t.text_end + 1 FOR t.tries_len) END
    FROM target WHERE t.uid = target.uid
    RETURNING t.*, target.prior_by, target.prior_commit, target.prior_reason
  ),
  ${logged({ from: 'changed', event: `'released'`, by: '$3::text', priorBy: 'prior_by', commit: 'prior_commit', reason: 'prior_reason', via: 'reopen' })}
  SELECT ${taskColumns('changed', 'v')} FROM changed JOIN mdclaim.task_view v ON v.uid = changed.uid`;

/** Put the done or failed task `id` names back to open; `by` (optional) is who did it, for the history. */
export async function reopenTask(c: Conn, a: { board: number; id: string; by?: string }): Promise<Task> {
  const rows = await c.query<TaskRow>(REOPEN, [a.board, a.id, a.by ?? null]);
  if (rows[0]) return toTask(rows[0]);
  // Nothing reopened: say why, from the rows as they are now.
  const found = await c.query<TaskRow>(
    `SELECT ${taskColumns('v')} FROM mdclaim.task_view v WHERE v.board = $1 AND (v.hash = $2 OR v.key = $2) ORDER BY v.position`,
    [a.board, a.id],
  );
  if (!found[0]) throw noTask(a.id);
  if (found.length > 1 && found.every((r) => r.id !== a.id)) throw ambiguousKey(a.id, found.map(toTask));
  throw notReopenable(toTask(found[0]));
}
