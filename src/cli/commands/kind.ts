import { Board } from '../../board/board.js';
import type { TaskBoard } from '../../board/types.js';
import { usage } from '../../errors.js';
import type { PgBoard } from '../../pg/board.js';
import type { PathLocking } from '../../board/path-types.js';

/** The commands that exist only for a PostgreSQL board refuse a file board as a usage error. */
export function pgBoard(board: TaskBoard, command: string, flag: string): PgBoard {
  if (!('exportDocument' in board)) throw usage(`${command} needs a PostgreSQL board: ${flag} postgres://user@host:port/db?board=NAME`);
  return board as PgBoard;
}

/** The commands only a file board has (edit, path locks) refuse a PostgreSQL board, saying what to do instead where there is something. */
export function fileBoard(board: TaskBoard, command: string, instead?: string): Board {
  if (!(board instanceof Board)) throw usage(`${command} works on a file board only${instead ? `; for a PostgreSQL board: ${instead}` : ''}`);
  return board;
}

/** The path-lock commands run on every board that offers path locks (the file board and the PostgreSQL board). */
export function pathBoard(board: TaskBoard, command: string): TaskBoard & PathLocking {
  if (!('lockPaths' in board)) throw usage(`${command} works on a board with path locks only`);
  return board as TaskBoard & PathLocking;
}
