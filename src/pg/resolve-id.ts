import { isPrefix, resolvePrefix } from '../board/resolve-id.js';
import type { Conn } from './db.js';

/** The whole id `id` names on a PostgreSQL board: itself, or the one id it is the start of (the file board's rule). */
export async function resolveIn(c: Conn, board: number, id: string): Promise<string> {
  if (!isPrefix(id)) return id;
  const rows = await c.query<{ id: string; text: string }>(
    `SELECT v.id, v.text FROM mdclaim.task_view v WHERE v.board = $1 AND starts_with(v.id, $2) ORDER BY v.position`,
    [board, id],
  );
  return resolvePrefix(id, rows);
}
