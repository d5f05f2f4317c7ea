import { Board, type BoardOptions } from './file/board.js';
import { redactUrl } from './pg/redact.js';
import { usage } from './errors.js';

/**
 * The opener's file half: a path to a markdown file. Apart from `open.ts`,
 * so that what opens a file board (a CLI call on a path) loads none of the
 * PostgreSQL board's code (its SQL, its migrations) and never pays for it.
 */
export function openFileBoard(location: string, options: BoardOptions = {}): Board {
  if (typeof location !== 'string' || location === '') throw usage('openBoard: the path or URL must be a non-empty string');
  // Another scheme is a URL mistyped or of a store mdclaim has no board for, not a file to create: said without its password.
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(location)) throw usage(`"${redactUrl(location)}" is not a board: give a file path or a postgres:// URL`);
  return new Board(location, options);
}
