import type { TaskBoard } from '../../board/types.js';
import { usage } from '../../errors.js';
import type { PgBoard } from '../../pg/board.js';

/** The commands that exist only for a PostgreSQL board refuse a file board as a usage error. */
export function pgBoard(board: TaskBoard, command: string, flag: string): PgBoard {
  if (!('exportDocument' in board)) throw usage(`${command} needs a PostgreSQL board: ${flag} postgres://user@host:port/db?board=NAME`);
  return board as PgBoard;
}
