import { isPgUrl } from '../pg/url.js';
import { PgBoard, type PgBoardOptions } from '../pg/board.js';
import { Board, type BoardOptions } from './board.js';
import type { TaskBoard } from './types.js';
import { usage } from '../errors.js';

export type OpenOptions = BoardOptions & PgBoardOptions;

/**
 * Open a board: a `postgres://` or `postgresql://` URL is a PostgreSQL
 * board, anything else a path to a markdown file. Nothing is read, and no
 * connection made, until an operation runs (`pg` itself loads only then).
 */
export function openBoard(location: `postgres://${string}` | `postgresql://${string}`, options?: PgBoardOptions): PgBoard;
export function openBoard(location: string, options?: OpenOptions): TaskBoard;
export function openBoard(location: string, options: OpenOptions = {}): TaskBoard {
  if (typeof location !== 'string' || location === '') throw usage('openBoard: the path or URL must be a non-empty string');
  if (isPgUrl(location)) {
    const { lease, pool, connectTimeout } = options;
    return new PgBoard(location, { ...(lease === undefined ? {} : { lease }), ...(pool === undefined ? {} : { pool }), ...(connectTimeout === undefined ? {} : { connectTimeout }) });
  }
  return new Board(location, options);
}
