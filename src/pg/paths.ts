import { named } from '../format/named.js';
import type { HeldPath, Paths } from '../board/path-types.js';
import { MdclaimError } from '../errors.js';
import type { Task } from '../format/task.js';
import type { Conn } from './db.js';
import { HOLDS, whyNot } from './finish.js';
import { HOLD_COLUMNS, heldBy, lockBoardPaths, toHeldPath, type HoldRow } from './held.js';
import { locksColumn, taskColumns, toTask, type TaskRow } from './rows.js';

// Path locks on the PostgreSQL board, with the file board's contract
// (src/file/path-locks.ts, list-paths.ts): rows of mdclaim.path_lock under
// the holder's task, checked by mdclaim.blocking_holds, the claim's own rule.

export interface PgHolder {
  board: number;
  id: string;
  by: string;
  claimedAt?: string;
}

/** The caller's task, row-locked for the rest of the transaction; NOT_FOUND or CONFLICT as a holder write says it. */
async function heldRow(c: Conn, a: PgHolder): Promise<TaskRow & { lapsed: boolean | null }> {
  const [row] = await c.query<TaskRow & { lapsed: boolean | null }>(
    `SELECT ${taskColumns('t', 'v')}, t.expires_at <= now() AS lapsed FROM mdclaim.task t JOIN mdclaim.task_view v ON v.uid = t.uid
     WHERE ${HOLDS} ORDER BY t.position LIMIT 1 FOR UPDATE OF t`,
    [a.board, a.id, a.by, a.claimedAt ?? null],
  );
  if (!row) throw await whyNot(c, a);
  return row;
}

async function readBack(c: Conn, uid: string): Promise<Task> {
  const [row] = await c.query<TaskRow>(`SELECT ${taskColumns('v')}, ${locksColumn('v')} FROM mdclaim.task_view v WHERE v.uid = $1`, [uid]);
  return toTask(row!);
}

async function locksOf(c: Conn, uid: string): Promise<{ mode: string; path: string }[]> {
  return c.query(`SELECT mode, path FROM mdclaim.path_lock WHERE task = $1 ORDER BY seq`, [uid]);
}

/** Under the board's path lock (taken here, held to the end of the transaction): the first live hold of another task in the way of `want`. */
async function firstBlocker(c: Conn, board: number, uid: string, want: Paths): Promise<HoldRow | undefined> {
  await lockBoardPaths(c, board);
  const [blocker] = await c.query<HoldRow>(
    `SELECT ${HOLD_COLUMNS} FROM mdclaim.blocking_holds($1, $2, $3, $4) h JOIN mdclaim.task_view o ON o.uid = h.task ORDER BY h.position, h.ord LIMIT 1`,
    [board, uid, want.writes, want.reads],
  );
  return blocker;
}

/**
 * Before a heartbeat, in its transaction: renewing a lapsed claim takes its
 * paths back (declared and locked), and a lapsed claim held nothing
 * meanwhile, so refuse with CONFLICT when another live claim holds one of
 * them now, as the file board does (src/file/held.ts, refuseRetaken).
 */
export async function refuseRetaken(c: Conn, a: PgHolder): Promise<void> {
  const row = await heldRow(c, a);
  if (!row.lapsed) return;
  const locks = await locksOf(c, row.uid);
  const want = {
    writes: [...row.writes, ...locks.filter((l) => l.mode === 'write').map((l) => l.path)],
    reads: [...row.reads, ...locks.filter((l) => l.mode === 'read').map((l) => l.path)],
  };
  if (want.writes.length === 0 && want.reads.length === 0) return;
  const blocker = await firstBlocker(c, a.board, row.uid, want);
  if (!blocker) return;
  const other = heldBy(blocker);
  throw new MdclaimError('CONFLICT', `${named(toTask(row))}: the claim by ${a.by} lapsed, and ${other.message} now, so it cannot be renewed`, other.holder === undefined ? {} : { holder: other.holder });
}

/** Call inside a transaction. The same decisions as the file board's lockPaths, under the board's path lock. */
export async function lockPaths(c: Conn, a: PgHolder, want: Paths): Promise<Task> {
  const row = await heldRow(c, a);
  if (row.lapsed) {
    const t = toTask(row);
    throw new MdclaimError('CONFLICT', `${named(t)}: the claim by ${a.by} lapsed at ${t.expiresAt ?? 'an unknown time'}; heartbeat it before locking paths`, { holder: a.by });
  }
  const blocker = await firstBlocker(c, a.board, row.uid, want);
  if (blocker) throw heldBy(blocker);
  let kept = await locksOf(c, row.uid);
  const replaced: string[] = [];
  const added: { mode: string; path: string }[] = [];
  for (const path of want.writes) {
    if (row.writes.includes(path) || added.some((x) => x.path === path) || kept.some((l) => l.mode === 'write' && l.path === path)) continue;
    if (kept.some((l) => l.path === path)) replaced.push(path);
    kept = kept.filter((l) => l.path !== path);
    added.push({ mode: 'write', path });
  }
  for (const path of want.reads) {
    if (row.writes.includes(path) || row.reads.includes(path) || added.some((x) => x.path === path) || kept.some((l) => l.path === path)) continue;
    added.push({ mode: 'read', path });
  }
  if (replaced.length > 0) await c.query('DELETE FROM mdclaim.path_lock WHERE task = $1 AND path = ANY($2::text[])', [row.uid, replaced]);
  // One at a time: seq keeps the order they were asked for.
  for (const l of added) {
    await c.query(`INSERT INTO mdclaim.path_lock (task, mode, path, since) VALUES ($1, $2, $3, date_trunc('second', now()))`, [row.uid, l.mode, l.path]);
  }
  // Taken, then let go (a read lock a write lock replaced), as a file board's journal says it.
  await logPaths(c, row.uid, 'locked', a.by, added.map((l) => `${l.mode}:${l.path}`), 'lock');
  await logPaths(c, row.uid, 'unlocked', a.by, replaced.map((p) => `read:${p}`), 'lock');
  return readBack(c, row.uid);
}

/** Call inside a transaction. Let go of the named locks, or of all of them; a path not locked is NOT_FOUND. */
export async function unlockPaths(c: Conn, a: PgHolder, paths: readonly string[] | undefined): Promise<Task> {
  const row = await heldRow(c, a);
  if (paths === undefined) {
    const gone = await c.query<{ mode: string; path: string }>(`${GONE('task = $1')}`, [row.uid]);
    await logPaths(c, row.uid, 'unlocked', a.by, gone.map((l) => `${l.mode}:${l.path}`), 'unlock');
    return readBack(c, row.uid);
  }
  const locks = await locksOf(c, row.uid);
  for (const path of paths) {
    if (locks.some((l) => l.path === path)) continue;
    const isDeclared = row.writes.includes(path) || row.reads.includes(path);
    const t = toTask(row);
    throw new MdclaimError('NOT_FOUND', `${named(t)} has no lock on ${path}${isDeclared ? " (it is declared on the task's line, and held until the task is finished)" : ''}`);
  }
  const gone = await c.query<{ mode: string; path: string }>(GONE('task = $1 AND path = ANY($2::text[])'), [row.uid, paths]);
  await logPaths(c, row.uid, 'unlocked', a.by, gone.map((l) => `${l.mode}:${l.path}`), 'unlock');
  return readBack(c, row.uid);
}

/** Delete the locks `where` names; returns them in the order they were taken. */
const GONE = (where: string) => `WITH gone AS (DELETE FROM mdclaim.path_lock WHERE ${where} RETURNING mode, path, seq) SELECT mode, path FROM gone ORDER BY seq`;

/** The history row of path locks taken or let go (none when no path changed): `write:P` or `read:P` each (migration 8). */
async function logPaths(c: Conn, task: string, event: 'locked' | 'unlocked', by: string, paths: readonly string[], via: string): Promise<void> {
  if (paths.length === 0) return;
  await c.query(
    `INSERT INTO mdclaim.history (board, task, hash, key, text, event, by, paths, attempts, via)
     SELECT board, uid, hash, key, text, $2, $3, $4::text[], attempts, $5 FROM mdclaim.task WHERE uid = $1`,
    [task, event, by, paths, via],
  );
}

/** Every path a live claim holds now, in board order: declared writes, declared reads, then locks as taken. */
export async function listPaths(c: Conn, board: number): Promise<HeldPath[]> {
  const rows = await c.query<HoldRow>(
    `SELECT ${HOLD_COLUMNS} FROM mdclaim.held_path h JOIN mdclaim.task_view o ON o.uid = h.task WHERE h.board = $1 ORDER BY h.position, h.ord`,
    [board],
  );
  return rows.map(toHeldPath);
}

/** The holds in the way of `want` when all are the caller's; else CONFLICT naming the first other holder. */
export async function checkPaths(c: Conn, board: number, by: string, want: Paths): Promise<HeldPath[]> {
  const rows = await c.query<HoldRow>(
    `SELECT ${HOLD_COLUMNS} FROM mdclaim.blocking_holds($1, NULL, $2, $3) h JOIN mdclaim.task_view o ON o.uid = h.task ORDER BY h.position, h.ord`,
    [board, want.writes, want.reads],
  );
  const other = rows.find((r) => r.by !== by);
  if (other) throw heldBy(other);
  return rows.map(toHeldPath);
}
