import type { HeldPath } from '../board/path-types.js';
import { MdclaimError } from '../errors.js';
import type { PathMode } from '../format/paths.js';
import { RolledBack, type Conn } from './db.js';
import { isoSecond } from './rows.js';
import { PATHS_LOCK_CLASS } from './constants.js';
import { heldBy as holdInTheWay } from '../board/messages.js';

// What live claims hold, as the views mdclaim.held_path and
// mdclaim.blocking_holds (migrations/002-path-locks.ts) state it.

/** A hold `h` (mdclaim.held_path) with the id of its task from `o` (its task_view row). */
export const HOLD_COLUMNS = `h.path, h.mode, h.kind, h.by, ${isoSecond('h.since')} AS since, o.id AS task, o.text AS task_text`;

export interface HoldRow {
  path: string;
  mode: PathMode;
  kind: 'declared' | 'locked';
  by: string | null;
  since: string | null;
  task: string;
  /** Its task's text, for the message that names it. */
  task_text: string;
}

export function toHeldPath(r: HoldRow): HeldPath {
  return { path: r.path, mode: r.mode, task: r.task, ...(r.by === null ? {} : { by: r.by }), ...(r.since === null ? {} : { since: r.since }), kind: r.kind };
}

/** One line naming who holds what where, as the file board says it. */
export function heldBy(r: HoldRow): MdclaimError {
  return holdInTheWay({ by: r.by ?? undefined, path: r.path, mode: r.mode, task: { id: r.task, text: r.task_text } });
}

/**
 * The board's path lock, until the transaction ends: taken by every claim of a
 * task that declares paths and by every lockPaths, after the row lock of the
 * task (always in that order, so two of them never wait on each other in a
 * cycle), and before the statement that checks the paths.
 */
export async function lockBoardPaths(c: Conn, board: number): Promise<void> {
  await c.query('SELECT pg_advisory_xact_lock($1, $2)', [PATHS_LOCK_CLASS, board]);
}

/** A claim lost a race for its paths after its statement ran: roll back and try again. */
export class PathRace extends RolledBack {
  constructor() {
    super('a claim on another task took an overlapping path first');
  }
}
