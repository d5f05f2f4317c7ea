import { MdclaimError } from '../errors.js';
import { notClaimable } from '../board/conflict.js';
import type { Task } from '../format/task.js';
import type { Conn } from './db.js';
import { logged } from './history-sql.js';
import { taskColumns, toTask, type TaskRow } from './rows.js';

// A claim is one statement: pick the first claimable row in board order and
// lock it (a MATERIALIZED CTE, so the planner cannot fold it into the UPDATE
// and update more rows than the LIMIT), then claim it and log it. Under READ
// COMMITTED, FOR UPDATE re-checks the row's own predicate on its newest
// version after taking the lock, so two claimers never both win a row.

const SET_CLAIM = `status = 'claimed', by = $2, claimed_at = date_trunc('second', now()), lease_ms = $3, marker = NULL, commit = NULL, reason = NULL`;

const CLAIM_EVENT = `CASE WHEN was <> 'claimed' THEN 'claimed' WHEN was_by = by THEN 'renewed' ELSE 'taken over' END`;

function claimStatement(picked: string, via: string): string {
  return `WITH picked AS MATERIALIZED (${picked}),
  claimed AS (
    UPDATE mdclaim.task t SET ${SET_CLAIM} FROM picked WHERE t.uid = picked.uid
    RETURNING t.*, picked.was, picked.was_by
  ),
  ${logged({ from: 'claimed', event: CLAIM_EVENT, by: 'by', priorBy: `CASE WHEN was = 'claimed' AND was_by IS DISTINCT FROM by THEN was_by END`, claimedAt: 'claimed_at', leaseMs: 'lease_ms', via })}
  SELECT ${taskColumns('claimed')} FROM claimed`;
}

// Skip rows another claimer has locked: claimers never queue behind each other.
const NEXT = claimStatement(
  `SELECT t.uid, t.status AS was, t.by AS was_by FROM mdclaim.task t
   WHERE t.board = $1 AND t.status IN ('open', 'blocked', 'claimed') AND mdclaim.claimable(t, now())
     AND t.tags @> $4::text[] AND ($5::text IS NULL OR t.section = $5 OR t.worktree = $5)
   ORDER BY t.position LIMIT 1
   FOR UPDATE OF t SKIP LOCKED`,
  'next',
);

/** Rows an id names for a claim: its hash, or its tracker key while no other task has that key. */
export const ID_MATCH = `(t.hash = $ID OR (t.key = $ID AND NOT EXISTS (
  SELECT 1 FROM mdclaim.task o WHERE o.board = t.board AND o.key = $ID AND o.uid <> t.uid)))`;

// Duplicates of one text share an id: take the first claimable (or the caller's own, a renewal).
// Wait for a locked one rather than skip it: its holder may yet give it up.
const CLAIM = claimStatement(
  `SELECT t.uid, t.status AS was, t.by AS was_by FROM mdclaim.task t
   WHERE t.board = $1 AND ${ID_MATCH.replaceAll('$ID', '$4')}
     AND t.status IN ('open', 'blocked', 'claimed')
     AND (mdclaim.claimable(t, now()) OR (t.status = 'claimed' AND t.by = $2))
   ORDER BY t.position LIMIT 1
   FOR UPDATE OF t`,
  'claim',
);

export interface PgNext {
  board: number;
  by: string;
  leaseMs: number;
  tags: readonly string[];
  section?: string;
}

export async function claimNext(c: Conn, a: PgNext): Promise<Task | null> {
  const rows = await c.query<TaskRow>(NEXT, [a.board, a.by, a.leaseMs, a.tags, a.section ?? null]);
  return rows[0] ? toTask(rows[0]) : null;
}

export async function claimById(c: Conn, a: { board: number; id: string; by: string; leaseMs: number }): Promise<Task> {
  const rows = await c.query<TaskRow>(CLAIM, [a.board, a.by, a.leaseMs, a.id]);
  if (rows[0]) return toTask(rows[0]);
  // Nothing claimed: say why, from the rows as they are now.
  const found = await c.query<TaskRow>(
    `SELECT ${taskColumns('t')} FROM mdclaim.task t WHERE t.board = $1 AND ${ID_MATCH.replaceAll('$ID', '$2')} ORDER BY t.position LIMIT 1`,
    [a.board, a.id],
  );
  if (!found[0]) throw new MdclaimError('NOT_FOUND', `no task with id ${a.id}`);
  throw notClaimable(toTask(found[0]));
}
