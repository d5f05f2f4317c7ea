import { dirname, resolve } from 'node:path';
import { usage, type MdclaimError } from '../errors.js';

// What only one kind of board does, said once: each board names its kind
// (TaskBoard.kind), and a feature the other kind lacks is refused here, with
// one message, wherever it is asked for.

/** The kinds of board: a markdown file, or a board in PostgreSQL. */
export type BoardKind = 'file' | 'pg';

const NAMES: Record<BoardKind, string> = { file: 'a file board', pg: 'a PostgreSQL board' };

/** How to name a PostgreSQL board after `flag`: what a PostgreSQL-only feature asks for. */
export function pgForm(flag = '--file'): string {
  return `${flag} postgres://user@host:port/db?board=NAME`;
}

/**
 * USAGE: `what` needs a board of kind `needs`; `hint` says how to name one,
 * or what to do instead on the other kind (`on a PostgreSQL board, …`).
 */
export function needsKind(what: string, needs: BoardKind, hint: string): MdclaimError {
  return usage(`${what} needs ${NAMES[needs]}: ${hint}`);
}

/**
 * The directory a board's declared paths are relative to: a file board's
 * own directory (its path as this process opened it); a database board's,
 * the caller's (the project a hook or agent runs in, `cwd`).
 */
export function pathsBase(board: { readonly kind: BoardKind; readonly location: string }, cwd: string): string {
  return board.kind === 'file' ? dirname(resolve(board.location)) : cwd;
}
