import { MdclaimError } from '../errors.js';
import type { Conn } from './db.js';
import { LOCK_CLASS } from './constants.js';

/** The id of the board named `name`, or null when there is none. */
export async function findBoard(c: Conn, name: string): Promise<number | null> {
  const rows = await c.query<{ id: number }>('SELECT id FROM mdclaim.board WHERE name = $1', [name]);
  return rows[0]?.id ?? null;
}

/** The board's id, creating an empty board of that name if there is none. */
export async function createBoard(c: Conn, name: string): Promise<number> {
  await c.query('INSERT INTO mdclaim.board (name) VALUES ($1) ON CONFLICT (name) DO NOTHING', [name]);
  const id = await findBoard(c, name);
  if (id === null) throw new MdclaimError('IO', `board "${name}" vanished while it was being created`);
  return id;
}

/**
 * Structural changes (add, import) take the board's advisory lock for their
 * transaction: they read the whole board to decide where bytes go, so two of
 * them must not interleave. Claims and holder writes never take it.
 */
export async function lockStructure(c: Conn, board: number): Promise<void> {
  await c.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_CLASS, board]);
}
