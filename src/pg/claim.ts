import { bareMarker } from './bare-sql.js';
import { noTask } from '../board/resolve-id.js';
import { refusal } from '../board/conflict.js';
import { taskLine, withOwnLine, type TaskBlocker } from '../board/standing.js';
import { FAILED_SEP } from '../format/task.js';
import type { Task } from '../format/task.js';
import { RolledBack, type Conn } from './db.js';
import { logged } from './history-sql.js';
import { lockBoardPaths, PathRace } from './held.js';
import { fromJson, taskColumns, taskJson, toTask, type TaskRow } from './rows.js';
import { MAX_ATTEMPTS } from '../format/attempts.js';
import { setTries } from './tries-sql.js';
import { ambiguousKey } from '../board/messages.js';

// A claim is one statement: pick the first claimable row in board order and
// lock it (a MATERIALIZED CTE, so the planner cannot fold it into the UPDATE
// and update more rows than the LIMIT), then claim it and log it. Under READ
// COMMITTED, FOR UPDATE re-checks the row's own predicate on its newest
// version after taking the lock, so two claimers never both win a row (the
// ⏰ rule too: readiness is kept on the row). Sent alone, in autocommit, it is
// the whole claim in one round trip (see claimNextAlone).

// Attempts (migration 4): a claim (a takeover too) counts an attempt where the line counts, or the claimer's budget ($B) asks,
// up to the most a line can write (src/file/claim.ts, claimChange); any claim ends a retry's wait.
const SET_ATTEMPTS = `not_before = NULL, ${setTries(`'claimed'`,
  `least(coalesce(t.attempts, mdclaim.implied_attempts(picked.was)) + CASE WHEN t.attempts IS NOT NULL OR $B::int IS NOT NULL THEN 1 ELSE 0 END, ${MAX_ATTEMPTS})`,
  'NULL')}`;

const SET_CLAIM = `status = 'claimed', by = $2, claimed_at = date_trunc('second', now()), lease_ms = $3,
  expires_at = date_trunc('second', now()) + $3::bigint * interval '1 millisecond', marker = ${bareMarker('t')}, commit = NULL, reason = NULL,
  ${SET_ATTEMPTS}`;

// A claim never renews (a live claim is claimable by no one): a claim of a lapsed one, its holder's own too, takes it over.
const CLAIM_EVENT = `CASE WHEN was <> 'claimed' THEN 'claimed' ELSE 'taken over' END`;

/**
 * Whether a claim of task_view row `v` needs a transaction: paths kept on the row, or a text that may
 * keep the line from being claimed (see withOwnLine: it is then refused or passed over, and only a
 * transaction can give the claim back): a declaration, as mdclaim's declaration parser starts one, or
 * the failure reason's separator. Read with the candidate itself, from the row it locks.
 */
const DEFERS = `(cardinality(v.writes) + cardinality(v.reads) > 0 OR v.text ~ '\\{[ \\t]*(writes|reads)[ \\t]*:'
  OR strpos(' ' || v.text, '${FAILED_SEP}') > 0) AS defers`;

/**
 * `picked` names the one row to claim, with its `defers` (DEFERS); `before` may define the CTEs it reads; `budget` is the
 * parameter of the claimer's attempts budget, `token` the one of its request's token. With `alone`
 * (a parameter), the statement runs by itself, in autocommit, and claims only a task that declares
 * no paths: a task that does is returned as `deferred`, unclaimed, for a transaction to claim (the
 * path check needs a statement after the claim's).
 */
function claimStatement(picked: string, via: string, budget: string, token: string, alone = 'false', before = ''): string {
  return `WITH ${before}picked AS MATERIALIZED (${picked}),
  deferred AS (SELECT ${alone}::boolean AND coalesce((SELECT defers FROM picked), false) AS deferred),
  -- A claim starts without locks: a lapsed holder's, or lock lines an open task was imported with (as on the file board).
  dropped AS (DELETE FROM mdclaim.path_lock l USING picked, deferred WHERE l.task = picked.uid AND NOT deferred.deferred),
  claimed AS (
    UPDATE mdclaim.task t SET ${SET_CLAIM.replaceAll('$B', budget)}, token = ${token}::text FROM picked, deferred
    WHERE t.uid = picked.uid AND NOT deferred.deferred
    RETURNING t.*, picked.was, picked.was_by
  ),
  ${logged({ from: 'claimed', event: CLAIM_EVENT, by: 'by', priorBy: `CASE WHEN was = 'claimed' THEN was_by END`, claimedAt: 'claimed_at', leaseMs: 'lease_ms', via })}
  -- One row: the claimed task's columns (NULL when none was claimed) and whether the pick was deferred.
  SELECT ${taskJson('claimed', 'v')} AS task, deferred.deferred
  FROM deferred LEFT JOIN (claimed JOIN mdclaim.task_view v ON v.uid = claimed.uid) ON true`;
}

// The first claimable task in board order is the first of two candidates:
// the first waiting task (open, or a ready ⏰), read through task_first, and
// the first claim past its lease, read through task_lapsing, so that live
// claims and blocked ⏰ are never scanned. Rows another claimer has locked are skipped:
// claimers never queue behind each other. (When both candidates exist, the
// one not taken stays locked until this statement commits.)
// $9: the rows next passes over (see PassOver).
// The tags asked for, as a CASE: the plan is generic, made once per connection for every request, and the planner
// takes a bare `tags @> $4` to keep 1 row in 200 (its default for containment), which with the board's statistics
// taken while most of it is open (a board just imported) priced walking task_first in order above reading the
// whole table and sorting it. A CASE it prices at one in two, and no tags asked (`next` alone) is true at once.
const TAGS = `CASE WHEN cardinality($4::text[]) = 0 THEN true ELSE v.tags @> $4::text[] END`;
const FILTER = `v.board = $1 AND ${TAGS} AND ($5::text IS NULL OR v.section = $5 OR v.worktree = $5) AND v.uid <> ALL($9::bigint[])`;
const NEXT_ARGS = 9;
const NEXT = claimStatement(
  `SELECT uid, was, was_by, defers FROM (SELECT * FROM waiting UNION ALL SELECT * FROM lapsing) first ORDER BY position LIMIT 1`,
  'next',
  '$6',
  '$7',
  '$8',
  `waiting AS MATERIALIZED (
     SELECT v.uid, v.position, v.status AS was, v.by AS was_by, ${DEFERS} FROM mdclaim.task_view v
     WHERE ${FILTER} AND (v.status = 'open' OR (v.status = 'blocked' AND v.ready)) AND v.claimable
     ORDER BY v.position LIMIT 1 FOR UPDATE OF v SKIP LOCKED),
   lapsing AS MATERIALIZED (
     SELECT v.uid, v.position, v.status AS was, v.by AS was_by, ${DEFERS} FROM mdclaim.task_view v
     WHERE ${FILTER} AND v.status = 'claimed' AND v.expires_at <= now() AND v.claimable
     ORDER BY v.position LIMIT 1 FOR UPDATE OF v SKIP LOCKED),
   `,
);

/** Rows an id names for a claim: its hash, or its tracker key while no other task has that key. */
export const ID_MATCH = `(v.hash = $ID OR (v.key = $ID AND v.id = $ID))`;

// Duplicates of one text share an id: take the first claimable. A live claim is claimable by no one, its
// holder's name included (heartbeat renews it). Wait for a locked one rather than skip it: its holder may yet give it up.
const CLAIM = claimStatement(
  `SELECT v.uid, v.status AS was, v.by AS was_by, ${DEFERS} FROM mdclaim.task_view v
   WHERE v.board = $1 AND ${ID_MATCH.replaceAll('$ID', '$4')}
     AND v.status IN ('open', 'blocked', 'claimed') AND v.claimable
   ORDER BY v.position LIMIT 1
   FOR UPDATE OF v`,
  'claim',
  '$5',
  '$6',
  '$7',
);

export interface PgNext {
  board: number;
  by: string;
  leaseMs: number;
  tags: readonly string[];
  section?: string;
  maxAttempts?: number;
}

function nextParams(a: PgNext, token: string | null, alone: boolean, passed: readonly string[] = []): unknown[] {
  const params = [a.board, a.by, a.leaseMs, a.tags, a.section ?? null, a.maxAttempts ?? null, token, alone, passed];
  if (params.length !== NEXT_ARGS) throw new Error('next: parameters out of step with the statement');
  return params;
}

/** The one row a claim statement returns: the claimed task (taskJson), and whether the pick was deferred. */
type Claimed = { task: Parameters<typeof fromJson>[0] | null; deferred: boolean };

/** The claimed task's row, null when none was claimed, 'deferred' when the pick needs a transaction. */
function claimed([row]: Claimed[]): TaskRow | null | 'deferred' {
  if (row!.deferred) return 'deferred';
  return row!.task === null ? null : fromJson(row!.task);
}

/** A task next would take but for what its own line says (see withOwnLine): roll back, and claim again passing over its row. */
export class PassOver extends RolledBack {
  constructor(readonly uid: string, readonly task: Task, readonly reason: string) {
    super(reason);
  }
}

/** Call inside a transaction, passing over the rows `passed`; PathRace means roll back and try again, PassOver the same without its row. */
export async function claimNext(c: Conn, a: PgNext, passed: readonly string[] = []): Promise<Task | null> {
  const row = claimed(await c.query<Claimed>(NEXT, nextParams(a, null, false, passed)));
  // In a transaction (`alone` false), a pick is never deferred.
  if (row === null || row === 'deferred') return null;
  // The SQL picked it claimable but for its own line, which the code states (blockerOf's first case, ownLine).
  const task = toTask(row);
  const line = taskLine(task);
  if (line !== null) throw new PassOver(row.uid, task, refusal(task, line).message);
  await pathsStillFree(c, a.board, row);
  return task;
}

/**
 * next as one statement on its own, in autocommit (one round trip): the claim, when the first
 * claimable task declares no paths; 'deferred' when it does (claim it with claimNext, in a
 * transaction). `token` marks the claim, so that it is found if the connection is lost (token.ts).
 */
export async function claimNextAlone(c: Conn, a: PgNext, token: string): Promise<Task | null | 'deferred'> {
  const row = claimed(await c.query<Claimed>(NEXT, nextParams(a, token, true)));
  return row === 'deferred' || row === null ? row : toTask(row);
}

/**
 * Without a `token`, call inside a transaction (PathRace means roll back and try again). With one,
 * the claim runs alone, in autocommit (as claimNextAlone): 'deferred' when its task declares paths,
 * to be claimed again in a transaction.
 */
export async function claimById(
  c: Conn, a: { board: number; id: string; by: string; leaseMs: number; maxAttempts?: number }, token: string | null = null,
): Promise<Task | 'deferred'> {
  const row = claimed(await c.query<Claimed>(CLAIM, [a.board, a.by, a.leaseMs, a.id, a.maxAttempts ?? null, token, token !== null]));
  if (row === 'deferred') return row;
  if (row !== null) {
    if (token === null) await pathsStillFree(c, a.board, row);
    return toTask(row);
  }
  // Nothing claimed: say why, from the rows as they are now, by the view's answer (with the text of a hold's task, which the refusal names).
  const found = await c.query<TaskRow & { blocker: TaskBlocker | null; hold_text: string | null }>(
    `SELECT ${taskColumns('v')}, v.blocker, CASE WHEN v.blocker->>'kind' = 'path' THEN (
       SELECT o.text FROM mdclaim.task_view o WHERE o.board = v.board AND o.id = v.blocker->'hold'->>'task' ORDER BY o.position LIMIT 1) END AS hold_text
     FROM mdclaim.task_view v WHERE v.board = $1 AND (v.hash = $2 OR v.key = $2) ORDER BY v.position`,
    [a.board, a.id],
  );
  if (!found[0]) throw noTask(a.id);
  // Every row answering to the id under another id: a key shared by several tasks (their ids are their hashes).
  if (found.length > 1 && found.every((r) => r.id !== a.id)) throw ambiguousKey(a.id, found.map(toTask));
  // The answer for the first row not finished (else the first), its own line's rule first, as every board refuses it.
  const first = found.find((r) => r.status !== 'done' && r.status !== 'failed') ?? found[0];
  const task = toTask(first);
  const b = withOwnLine(task, first.blocker);
  throw refusal(task, b?.kind === 'path' ? { kind: 'path', hold: { by: b.hold.by, path: b.hold.path, mode: b.hold.mode, task: { id: b.hold.task, text: first.hold_text ?? '' } } } : b, Date.now(), a.by);
}

/**
 * The claim statement saw only claims committed before it began: two
 * claimers may each have taken a task whose paths overlap the other's. So a
 * claim of a task that declares paths takes the board's path lock (as every
 * lockPaths does) and looks again in a statement of its own, which sees every
 * claim committed before the lock was granted; a conflict now means another
 * claim won the race, and this one rolls back (docs/postgres.md).
 */
async function pathsStillFree(c: Conn, board: number, r: TaskRow): Promise<void> {
  // The row keeps only the paths that normalise; its text still says what the line declares (USAGE rolls the claim back).
  const task = toTask(r);
  const line = taskLine(task);
  if (line !== null) throw refusal(task, line);
  if (r.writes.length === 0 && r.reads.length === 0) return;
  await lockBoardPaths(c, board);
  const [raced] = await c.query(`SELECT 1 FROM mdclaim.blocking_holds($1, $2, $3, $4) LIMIT 1`, [board, r.uid, r.writes, r.reads]);
  if (raced) throw new PathRace();
}

