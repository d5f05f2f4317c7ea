import type { Task } from '../format/task.js';
import type { Conn } from './db.js';
import { logged } from './history-sql.js';
import { taskColumns, toTask, type TaskRow } from './rows.js';

// The reaper is one UPDATE: every claim past its own lease (or older than
// the operator's --ttl) goes back to open. Rows a claimer or holder has
// locked are skipped: whatever that transaction does (a renewal, a
// takeover, a finish), the claim is no longer the stale one we saw.

const STALE = `t.board = $1 AND t.status = 'claimed' AND (
  t.lapsed
  OR ($2::bigint IS NOT NULL AND t.claimed_at + $2::bigint * interval '1 millisecond' <= now())
  OR ($3::boolean AND t.claimed_at IS NULL))`;

const REAP = `WITH stale AS MATERIALIZED (
    SELECT t.* FROM mdclaim.task_view t WHERE ${STALE} ORDER BY t.position FOR UPDATE OF t SKIP LOCKED
  ),
  reaped AS (
    UPDATE mdclaim.task t SET status = 'open', by = NULL, claimed_at = NULL, lease_ms = NULL, expires_at = NULL, marker = NULL
    FROM stale WHERE t.uid = stale.uid RETURNING t.uid
  ),
  -- Their locks leave with them, in the same statement.
  unlocked AS (DELETE FROM mdclaim.path_lock l USING stale WHERE l.task = stale.uid),
  ${logged({ from: 'stale', event: `'reaped'`, by: 'NULL', priorBy: 'by', claimedAt: 'claimed_at', leaseMs: 'lease_ms', via: 'reap' })}
  SELECT ${taskColumns('stale')} FROM stale JOIN reaped USING (uid) ORDER BY stale.position`;

const DRY_RUN = `SELECT ${taskColumns('t')} FROM mdclaim.task_view t WHERE ${STALE} ORDER BY t.position`;

export interface PgReap {
  board: number;
  ttlMs?: number;
  includeUntimed: boolean;
  dryRun: boolean;
}

/** Reopen stale claims; returns them as they were before. */
export async function reapStale(c: Conn, a: PgReap): Promise<Task[]> {
  const rows = await c.query<TaskRow>(a.dryRun ? DRY_RUN : REAP, [a.board, a.ttlMs ?? null, a.includeUntimed]);
  return rows.map(toTask);
}
