import { MdclaimError, usage } from '../errors.js';
import { named } from '../format/named.js';
import type { PathMode } from '../format/paths.js';

// The refusals both boards give in the same words, written once: a board
// hands over the facts (which tasks, which hold) and the words come from here.

/** A task as a message names it, and where it is. */
export interface TaskAt {
  id: string;
  text: string;
  /** 1-based line in the board's document. */
  line: number;
}

/** A tracker key on several lines names no one task: USAGE, saying which ids do. `what` says what kind of tasks they are. */
export function ambiguousKey(key: string, tasks: readonly TaskAt[], what = 'tasks'): MdclaimError {
  return usage(`${key} is on ${tasks.length} ${what}, so it is not an id: use one of ${tasks.map((t) => `${named(t)} (line ${t.line})`).join(', ')}`);
}

/** A path a live claim holds, in the way. */
export interface HoldFacts {
  /** The holder; a claim without one is "someone unnamed". */
  by: string | undefined;
  path: string;
  mode: PathMode;
  /** The task whose claim holds it. */
  task: { id: string; text: string };
}

/** CONFLICT in one line naming who holds what where: `dana holds src/auth/login.ts (write) on a1b2c3d4e5f6 "Login"`. */
export function heldBy(h: HoldFacts): MdclaimError {
  return new MdclaimError('CONFLICT', `${h.by ?? 'someone unnamed'} holds ${h.path} (${h.mode}) on ${named(h.task)}`, h.by === undefined ? {} : { holder: h.by });
}
