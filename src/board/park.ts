import { MdclaimError } from '../errors.js';
import { named } from '../format/named.js';
import { attemptsOf, recordedTries, renderTries } from '../format/attempts.js';
import { bytes, utf8, type ByteString } from '../format/bytes.js';
import type { Edit } from '../format/edit.js';
import { renderMarker } from '../format/marker.js';
import { FAILED_SEP, reshaped, type Task } from '../format/task.js';
import { dropLocks, type Changed, type Plan } from './plan.js';
import { taskOf, type Seen } from './walk.js';
import type { Reaped } from './types.js';

// A poison task (one whose claims keep lapsing) is parked at its budget instead of reopened:
// by the reaper (`reap --max-attempts`) or by a claimer that passes the same limit on a takeover.

/** `abandoned after 3 attempts; last held by agent-7`: why a task was parked. */
export function parkReason(attempts: number, by: string | undefined): string {
  return `abandoned after ${attempts} attempt${attempts === 1 ? '' : 's'}${by === undefined ? '' : `; last held by ${by}`}`;
}

/**
 * Does a change to this line write its attempts? Once the line counts them, or a
 * budget asks: a board that never uses a budget or a retry keeps its lines as
 * they always read (docs/FORMAT.md, attempts).
 */
export function countsAttempts(s: Seen, max: number | undefined): boolean {
  return s.tries !== null || max !== undefined;
}

/** Has a lapsed claim's task used up a budget of `max` attempts? */
export function atBudget(s: Seen, max: number | undefined): boolean {
  return max !== undefined && s.t.marker.status === 'claimed' && attemptsOf('claimed', s.tries) >= max;
}

/**
 * Park a lapsed claim's task: `[❌]` (no one failed it), its attempts kept
 * and the reason after them, in one edit from the marker to the line's end.
 */
export function parkEdit(src: ByteString, s: Seen): { edit: Edit; want: (text: string) => Changed['want'] } {
  const attempts = attemptsOf('claimed', s.tries);
  const reason = parkReason(attempts, s.t.marker.by);
  const bytesOut = bytes(renderMarker({ status: 'failed' })) + src.slice(s.t.marker.end, s.text[1]) + renderTries('failed', attempts) + bytes(`${FAILED_SEP} ${reason}`);
  return {
    edit: { start: s.t.markerStart, end: s.t.end, bytes: bytesOut },
    want: (text) => ({ status: 'failed', text, reason, locks: [], ...recordedTries('failed', attempts) }),
  };
}

/** `plan` with the parking of `parked` (and their lock lines) made in the same write. */
export function withParks<T>(src: ByteString, parked: readonly Seen[], plan: Plan<T>): Plan<T> {
  if (parked.length === 0) return plan;
  const edits: Edit[] = [];
  const changes: Changed[] = [];
  for (const s of parked) {
    const park = parkEdit(src, s);
    edits.push(park.edit, ...dropLocks(src, s));
    changes.push({ seen: s, want: park.want(utf8(src, s.text[0], s.text[1])) });
  }
  return { ...plan, edits: [...edits, ...plan.edits], changes: [...changes, ...plan.changes] };
}

/** The task as parking leaves it, for a caller that asked to claim it. */
export function parkedTask(src: ByteString, s: Seen): Task {
  return parkedView(taskOf(src, s));
}

/** A lapsed claim (as it read) as parking leaves it: failed, no holder, its reason saying why. */
export function parkedView(was: Task): Task {
  const attempts = attemptsOfTask(was);
  const task = reshaped(was, { status: 'failed', reason: parkReason(attempts, was.by) }, ['by', 'fields', 'claimedAt', 'lease', 'expiresAt', 'locks', 'notBefore', 'attempts']);
  return { ...task, ...recordedTries('failed', attempts) };
}

/** How many claims a task has had, by what its line records and its status implies. */
export function attemptsOfTask(t: Pick<Task, 'status' | 'attempts'>): number {
  return attemptsOf(t.status, t);
}

/** Does a reap with this budget park the lapsed claim `t` (as reap returns it), rather than reopen it? */
export function isParked(t: Pick<Task, 'status' | 'attempts'>, maxAttempts: number | undefined): boolean {
  return maxAttempts !== undefined && attemptsOfTask(t) >= maxAttempts;
}

/**
 * What a reap did, from the claims it reaped as they were: the same array, and
 * beside it which it reopened and which it parked (at the budget, by isParked,
 * the rule both boards' reaps apply). Not enumerable, so the array reads as before.
 */
export function reapedOf(tasks: Task[], maxAttempts: number | undefined): Reaped {
  const parked = tasks.filter((t) => isParked(t, maxAttempts));
  const reopened = tasks.filter((t) => !parked.includes(t));
  return Object.defineProperties(tasks, { reopened: { value: reopened }, parked: { value: parked } }) as Reaped;
}

/** A claim by id that parked its task instead (a takeover at the budget): CONFLICT, saying so, once the parking is written. */
export function parkedIsConflict(task: Task): Task {
  if (task.status !== 'failed') return task;
  throw new MdclaimError('CONFLICT', `${named(task)} was not taken over but parked: ${task.reason}`);
}
