import type { AnyBoard } from '../../open.js';
import type { Board } from '../../file/board.js';
import { needsKind, pgForm } from '../../board/capabilities.js';
import type { PgBoard } from '../../pg/board.js';

/** The commands that exist only for a PostgreSQL board refuse a file board (see needsKind). */
export function pgBoard(board: AnyBoard, command: string, flag: string): PgBoard {
  if (board.kind !== 'pg') throw needsKind(command, 'pg', pgForm(flag));
  return board;
}

/** The commands only a file board has refuse a PostgreSQL board, saying what to do there instead. */
export function fileBoard(board: AnyBoard, command: string, instead: string): Board {
  if (board.kind !== 'file') throw needsKind(command, 'file', `on a PostgreSQL board, ${instead}`);
  return board;
}
