import { notHolder } from '../board/conflict.js';
import { noTask } from '../board/resolve-id.js';
import { MdclaimError } from '../errors.js';
import type { Task } from '../format/task.js';
import type { Conn } from './db.js';
import { ambiguousKey } from '../board/messages.js';
import { logged } from './history-sql.js';
import { setTries } from './tries-sql.js';
import { bareMarker } from './bare-sql.js';
import { locksColumn, taskColumns, toTask, type TaskRow } from './rows.js';

// The transitions only the holder may make. Each is one statement that
// changes the row only while it holds the caller's claim: `by = $3`, and
// with a fence `claimed_at = $4` too, so a write meant for one claim can
// never land on a later one (a takeover, even by the same `by`). A heartbeat
// first checks, in its transaction, that a lapsed claim's paths are still
// free (refuseRetaken, in paths.ts).

export type HolderVerb = 'heartbeat' | 'done' | 'fail' | 'release' | 'retry';

// A retry's wait ends on a whole second, rounded up from now + the delay ($5, in ms), as the file board writes it.
const NOT_BEFORE = `to_timestamp(ceil(extract(epoch FROM now() + $5::bigint * interval '1 millisecond')))`;
const OPEN = `status = 'open', by = NULL, claimed_at = NULL, lease_ms = NULL, expires_at = NULL, marker = ${bareMarker('t')}`;

const SET: Record<HolderVerb, string> = {
  heartbeat: `claimed_at = date_trunc('second', now()), expires_at = date_trunc('second', now()) + t.lease_ms * interval '1 millisecond', marker = ${bareMarker('t')}`,
  done: `status = 'done', claimed_at = NULL, lease_ms = NULL, expires_at = NULL, commit = $5, marker = NULL`,
  // The reason goes where the text (and its attempts field) ends, as the file board writes it.
  fail: `status = 'failed', claimed_at = NULL, lease_ms = NULL, expires_at = NULL, reason = $5, body = overlay(t.body PLACING $6::bytea FROM t.text_end + t.tries_len + 1 FOR 0), marker = NULL`,
  // A task handed back unworked: its claim's attempt goes back with it (src/file/finish.ts).
  release: `${OPEN}, not_before = NULL,
    ${setTries(`'open'`, 'coalesce(t.attempts, 1) - 1', 'NULL')}`,
  // Back for a retry: the attempt kept, and the wait written on the line.
  retry: `${OPEN}, not_before = ${NOT_BEFORE},
    ${setTries(`'open'`, 'coalesce(t.attempts, 1)', NOT_BEFORE)}`,
};

// The parameter that carries the request's token (NULL in a transaction): after the verb's own.
const TOKEN: Record<HolderVerb, string> = { heartbeat: '$5', release: '$5', done: '$6', retry: '$6', fail: '$7' };

const EVENT: Record<HolderVerb, string> = { heartbeat: `'renewed'`, done: `'done'`, fail: `'failed'`, release: `'released'`, retry: `'retried'` };

// A holder operation reaches the caller's own task among duplicates, and by a
// tracker key even when several lines carry it, unless the caller holds
// several of those lines with different texts (then the key names none).
export const MINE = (t: string) => `${t}.status = 'claimed' AND ${t}.by = $3 AND ($4::timestamptz IS NULL OR ${t}.claimed_at = $4::timestamptz)`;
export const HOLDS = `t.board = $1 AND (t.hash = $2 OR t.key = $2) AND ${MINE('t')}
  AND (t.hash = $2 OR NOT EXISTS (SELECT 1 FROM mdclaim.task o WHERE o.board = t.board AND o.key = $2 AND ${MINE('o')} AND o.text <> t.text))`;

function statement(verb: HolderVerb): string {
  return `WITH target AS MATERIALIZED (
    SELECT t.uid FROM mdclaim.task t WHERE ${HOLDS} ORDER BY t.position LIMIT 1 FOR UPDATE OF t
  ),
  changed AS (
    UPDATE mdclaim.task t SET ${SET[verb]}, token = ${TOKEN[verb]}::text FROM target WHERE t.uid = target.uid RETURNING t.*
  ),
  -- The claim's locks leave with it, in the same statement.
  ${verb === 'heartbeat' ? '' : 'unlocked AS (DELETE FROM mdclaim.path_lock l USING target WHERE l.task = target.uid),'}
  ${logged({
    from: 'changed',
    event: EVENT[verb],
    by: '$3::text',
    ...(verb === 'heartbeat' ? { claimedAt: 'claimed_at', leaseMs: 'lease_ms' } : {}),
    ...(verb === 'done' ? { commit: 'commit' } : {}),
    ...(verb === 'fail' ? { reason: 'reason' } : {}),
    via: verb,
  })}
  SELECT ${taskColumns('changed', 'v')}${verb === 'heartbeat' ? `, ${locksColumn('changed')}` : ''} FROM changed JOIN mdclaim.task_view v ON v.uid = changed.uid`;
}

const STATEMENTS = Object.fromEntries((Object.keys(SET) as HolderVerb[]).map((v) => [v, statement(v)])) as Record<HolderVerb, string>;

export interface HolderArgs {
  board: number;
  id: string;
  by: string;
  claimedAt?: string;
  /** done: the commit; fail: the folded reason; retry: the delay in milliseconds. */
  value?: string;
  /** fail: the bytes appended to the line (` // Failed: reason`), empty without a reason. */
  suffix?: Buffer;
}

/**
 * The holder's write, one statement. Run alone (in autocommit), `token` marks the row it writes,
 * so that the write is found if the connection is lost before its answer comes (token.ts).
 */
export async function holderWrite(c: Conn, verb: HolderVerb, a: HolderArgs, token: string | null = null): Promise<Task> {
  const params: unknown[] = [a.board, a.id, a.by, a.claimedAt ?? null];
  if (verb === 'done' || verb === 'fail' || verb === 'retry') params.push(a.value ?? null);
  if (verb === 'fail') params.push(a.suffix ?? Buffer.alloc(0));
  params.push(token);
  if (`$${params.length}` !== TOKEN[verb]) throw new Error(`${verb}: parameters out of step with the statement`);
  const rows = await c.query<TaskRow>(STATEMENTS[verb], params);
  if (rows[0]) return toTask(rows[0]);
  throw await whyNot(c, a);
}

/** Zero rows changed: NOT_FOUND, a key that names several of the caller's tasks, or CONFLICT naming whoever holds the task now. */
export async function whyNot(c: Conn, a: HolderArgs): Promise<MdclaimError> {
  const rows = await c.query<TaskRow & { mine: boolean }>(
    `SELECT ${taskColumns('v')}, (${MINE('v')}) AS mine
     FROM mdclaim.task_view v WHERE v.board = $1 AND (v.hash = $2 OR v.key = $2)
     ORDER BY (v.status = 'claimed' AND v.by = $3) DESC, (v.status = 'claimed') DESC, v.position`,
    [a.board, a.id, a.by, a.claimedAt ?? null],
  );
  const first = rows[0];
  if (!first) return noTask(a.id);
  const mine = rows.filter((r) => r.mine);
  if (mine.length > 1) return ambiguousKey(a.id, mine.map(toTask).sort((x, y) => x.line - y.line), `tasks claimed by ${a.by}`);
  return notHolder(toTask(first), { by: a.by, ...(a.claimedAt === undefined ? {} : { claimedAt: a.claimedAt }) });
}

