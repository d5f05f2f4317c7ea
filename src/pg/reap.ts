import type { Task } from '../format/task.js';
import type { Conn } from './db.js';
import { logged } from './history-sql.js';
import { setTries } from './tries-sql.js';
import { bareMarker } from './bare-sql.js';
import { taskColumns, toTask, type TaskRow } from './rows.js';

// The reaper is one statement: every claim past its own lease (or older than
// the operator's --ttl) goes back to open, or, with a budget ($4), is parked
// once its task has had that many attempts. Rows a claimer or holder has
// locked are skipped: whatever that transaction does (a renewal, a
// takeover, a finish), the claim is no longer the stale one we saw.

const STALE = `t.board = $1 AND t.status = 'claimed' AND (
  t.lapsed
  OR ($2::bigint IS NOT NULL AND t.claimed_at + $2::bigint * interval '1 millisecond' <= now())
  OR ($3::boolean AND t.claimed_at IS NULL))`;

/** Has a claim's task used up the budget in `max` (src/board/park.ts, atBudget)? */
const AT_BUDGET = (t: string, max: string) => `(${max}::int IS NOT NULL AND coalesce(${t}.attempts, 1) >= ${max}::int)`;

/** Reopen or park the rows of CTE `stale` (budget `max`), log each, and return them as they were. */
function reapRows(stale: string, max: string, via: string): string {
  return `reaped AS (
    UPDATE mdclaim.task t SET status = 'open', by = NULL, claimed_at = NULL, lease_ms = NULL, expires_at = NULL, marker = ${bareMarker('t')},
      -- The lapsed claim stays counted where the line counts, or a budget asks for it.
      ${setTries(`'open'`, `CASE WHEN t.attempts IS NOT NULL OR ${max}::int IS NOT NULL THEN coalesce(t.attempts, 1) ELSE 0 END`, 'NULL')}
    FROM ${stale} s WHERE t.uid = s.uid AND NOT ${AT_BUDGET('s', max)} RETURNING t.uid, t.attempts
  ),
  parked AS (
    UPDATE mdclaim.task t SET status = 'failed', by = NULL, claimed_at = NULL, lease_ms = NULL, expires_at = NULL, marker = NULL, commit = NULL,
      reason = mdclaim.park_reason(coalesce(t.attempts, 1), s.by),
      body = mdclaim.parked_body(t.body, t.text_end, coalesce(t.attempts, 1), s.by),
      tries_len = length(mdclaim.tries_field('failed', coalesce(t.attempts, 1), NULL)),
      attempts = CASE WHEN coalesce(t.attempts, 1) > 1 THEN t.attempts END
    FROM ${stale} s WHERE t.uid = s.uid AND ${AT_BUDGET('s', max)} RETURNING t.uid, t.attempts
  ),
  -- Their locks leave with them, in the same statement.
  unlocked AS (DELETE FROM mdclaim.path_lock l USING ${stale} s WHERE l.task = s.uid),
  ${logged({
    from: stale,
    event: `CASE WHEN ${AT_BUDGET(stale, max)} THEN 'parked' ELSE 'reaped' END`,
    by: 'NULL',
    priorBy: 'by',
    claimedAt: 'claimed_at',
    leaseMs: 'lease_ms',
    reason: `CASE WHEN ${AT_BUDGET(stale, max)} THEN mdclaim.park_reason(coalesce(attempts, 1), by) END`,
    // The rows as they were are logged; what they count after is what the reopen or the parking wrote.
    attempts: `(SELECT n.attempts FROM (SELECT uid, attempts FROM reaped UNION ALL SELECT uid, attempts FROM parked) n WHERE n.uid = ${stale}.uid)`,
    via,
  })}
  SELECT ${taskColumns(stale)} FROM ${stale} WHERE uid IN (SELECT uid FROM reaped UNION ALL SELECT uid FROM parked) ORDER BY position`;
}

const REAP = `WITH stale AS MATERIALIZED (
    SELECT t.* FROM mdclaim.task_view t WHERE ${STALE} ORDER BY t.position FOR UPDATE OF t SKIP LOCKED
  ),
  ${reapRows('stale', '$4', 'reap')}`;

const DRY_RUN = `SELECT ${taskColumns('t')} FROM mdclaim.task_view t WHERE ${STALE} ORDER BY t.position`;

export interface PgReap {
  board: number;
  ttlMs?: number;
  includeUntimed: boolean;
  dryRun: boolean;
  maxAttempts?: number;
}

/** Reopen stale claims (park those at the budget); returns them as they were before. */
export async function reapStale(c: Conn, a: PgReap): Promise<Task[]> {
  const params = [a.board, a.ttlMs ?? null, a.includeUntimed];
  const rows = await c.query<TaskRow>(a.dryRun ? DRY_RUN : REAP, a.dryRun ? params : [...params, a.maxAttempts ?? null]);
  return rows.map(toTask);
}

// A claimer with a budget parks the lapsed claims at it that it would otherwise take over:
// those its filter ($3 tags, $4 section) or id ($5) reaches, in the claim's own transaction.
const park = (via: 'next' | 'claim') => `WITH stale AS MATERIALIZED (
    SELECT t.* FROM mdclaim.task_view t
    WHERE t.board = $1 AND t.status = 'claimed' AND t.claimable AND ${AT_BUDGET('t', '$2')}
      AND ($3::text[] IS NULL OR t.tags @> $3::text[]) AND ($4::text IS NULL OR t.section = $4 OR t.worktree = $4)
      AND ($5::text IS NULL OR t.hash = $5 OR (t.key = $5 AND t.id = $5))
    ORDER BY t.position FOR UPDATE OF t SKIP LOCKED
  ),
  ${reapRows('stale', '$2', via)}`;
const PARK = { next: park('next'), claim: park('claim') };

/** Park the lapsed claims a budgeted claimer reaches; returns them as they were before. */
export async function parkAtBudget(c: Conn, a: { board: number; maxAttempts: number; via: 'next' | 'claim'; tags?: readonly string[]; section?: string; id?: string }): Promise<Task[]> {
  const rows = await c.query<TaskRow>(PARK[a.via], [a.board, a.maxAttempts, a.tags ?? null, a.section ?? null, a.id ?? null]);
  return rows.map(toTask);
}
