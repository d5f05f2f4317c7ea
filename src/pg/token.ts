import type { Conn } from './db.js';
import { taskColumns, toTask, type TaskRow } from './rows.js';
import type { Task } from '../format/task.js';

// A write run alone, in autocommit, has no COMMIT to ask about when its
// connection is lost: it marks the row it writes with its request's token
// (mdclaim.task.token, migration 5), and the row carrying the token is its
// answer, looked for once the lost session can no longer commit (Db.with).

let requests = 0;
/** This process, the instant it first asked, and a random part: the same for all its requests, made once. */
let mine: string | undefined;

/** A token no other request carries: this process's own part, and this request's count. */
export function requestToken(): string {
  mine ??= `${process.pid}.${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 10)}`;
  return `${mine}.${(++requests).toString(36)}`;
}

/** The row the write with `token` wrote, if it was made. */
export async function writtenWith(c: Conn, board: number, token: string): Promise<Task | undefined> {
  const [row] = await c.query<TaskRow>(`SELECT ${taskColumns('v')} FROM mdclaim.task_view v WHERE v.board = $1 AND v.token = $2`, [board, token]);
  return row ? toTask(row) : undefined;
}
