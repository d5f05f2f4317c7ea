import { isPgUrl } from './pg/url.js';
import { PgBoard, type PgBoardOptions } from './pg/board.js';
import type { Board, BoardOptions } from './file/board.js';
import { openFileBoard } from './open-file.js';
import { usage } from './errors.js';

export type OpenOptions = BoardOptions & PgBoardOptions;

/** A board of either kind, told apart by `kind` (the type system narrows on it). */
export type AnyBoard = Board | PgBoard;

/**
 * Open a board: a `postgres://` or `postgresql://` URL is a PostgreSQL
 * board, anything else a path to a markdown file. Nothing is read, and no
 * connection made, until an operation runs (`pg` itself loads only then).
 */
export function openBoard(location: `postgres://${string}` | `postgresql://${string}`, options?: PgBoardOptions): PgBoard;
export function openBoard(location: string, options?: OpenOptions): AnyBoard;
export function openBoard(location: string, options: OpenOptions = {}): AnyBoard {
  if (typeof location === 'string' && isPgUrl(location)) {
    // Options about the file cannot hold for rows: refused, not dropped (a file board leaves pool and connectTimeout, which tune nothing there, unused).
    for (const [name, why] of FILE_ONLY) {
      if (options[name] !== undefined) throw usage(`${name} does not apply to a PostgreSQL board: ${why}`);
    }
    const { lease, pool, connectTimeout, lockTimeout, durable } = options;
    return new PgBoard(location, {
      ...(lease === undefined ? {} : { lease }),
      ...(pool === undefined ? {} : { pool }),
      ...(connectTimeout === undefined ? {} : { connectTimeout }),
      ...(lockTimeout === undefined ? {} : { lockTimeout }),
      ...(durable === undefined ? {} : { durable }),
    });
  }
  return openFileBoard(location, options);
}

/** What a PostgreSQL board refuses, and why. */
const FILE_ONLY: ReadonlyArray<readonly [keyof BoardOptions, string]> = [
  ['write', 'a PostgreSQL board has no file to write in place or replace; every change is one transaction'],
  ['lock', 'a PostgreSQL board takes its locks in the database, not on a file'],
  ['allowNetworkFs', 'a PostgreSQL board is not on a file system'],
  ['now', 'a PostgreSQL board decides on the server\'s clock alone'],
  ['history', 'a PostgreSQL board keeps its history in the transaction of each change, always'],
  ['onWarning', 'a PostgreSQL board has no journal to fail while its change stands'],
];
