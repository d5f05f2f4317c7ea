import { MdclaimError } from '../errors.js';
import { named } from '../format/named.js';
import { spanAhead } from '../format/span.js';
import type { Task } from '../format/task.js';
import type { Blocker } from './claimable.js';
import { heldBy, type HoldFacts } from './messages.js';
import { refusedLine } from './unclaimable.js';

/** A blocker (blockerOf, task_view.blocker) with what its refusal names: the task waited for, and the hold in the way with its task. */
export type RefusedFor = Blocker<unknown, HoldFacts, { id: string; text: string; status: Task['status']; by?: string | undefined }>;

/**
 * The one error for a task that cannot be claimed, on every board: from its
 * blocker, the first of what stands in its way (blockerOf), so a claim's
 * refusal says what a listing says. A line no one can claim as it is is the
 * usage error naming the line (exit 2), whatever else stands in its way;
 * anything else is a CONFLICT (exit 4), naming the holder where there is one.
 * `by` is who asked: a live claim is not claimable by its own holder either,
 * and the line says what renews it; `nowMs` says when a retry's wait ends.
 * With no blocker (the board changed between the claim and the look), a
 * CONFLICT that says only that.
 */
export function refusal(task: Task, b: RefusedFor | null, nowMs?: number, by?: string): MdclaimError {
  const holder = task.by === undefined ? {} : { holder: task.by };
  // No answer: what stood in its way when the claim looked has gone since.
  if (b === null) return new MdclaimError('CONFLICT', `${named(task)} cannot be claimed`);
  switch (b.kind) {
    case 'line':
      return refusedLine(b.reason, task.line);
    case 'status':
      return new MdclaimError('CONFLICT', `${named(task)} already ${b.status}${byOf(task)}`, holder);
    case 'claimed':
      return new MdclaimError('CONFLICT', `${named(task)} already claimed${byOf(task)}${task.claimedAt ? ` since ${task.claimedAt}` : ''}${task.by !== undefined && task.by === by ? ': a live claim is never claimed again, even under its holder\'s name (heartbeat renews it)' : ''}`, holder);
    case 'retry': {
      const attempts = task.attempts === undefined ? '' : ` after ${task.attempts} attempt${task.attempts === 1 ? '' : 's'}`;
      return new MdclaimError('CONFLICT', `${named(task)} waits for a retry${attempts}: not before ${b.notBefore}${nowMs === undefined ? '' : ` (in ${spanAhead(Date.parse(b.notBefore) - nowMs)})`}`);
    }
    case 'above':
      return new MdclaimError('CONFLICT', `${named(task)} is blocked: tasks above it${task.section ? ` in "${task.section}"` : ''} are not all done`);
    case 'after':
      return new MdclaimError('CONFLICT', `${named(task)} ${waitsText(b.task)}`);
    case 'path':
      return heldBy(b.hold);
  }
}

/** How a task waited for stands, as a blocker's words say it: `claimed by r1`, `failed`, `open`. */
function afterState(dep: { status: Task['status']; by?: string | undefined }): string {
  return dep.status === 'claimed' && dep.by !== undefined ? `claimed by ${dep.by}` : dep.status;
}

/** `waits for 9f2c41d0aa13 "Add the /health endpoint" (claimed by r1)`: the words for a task waited for. */
export function waitsText(dep: { id: string; text: string; status: Task['status']; by?: string | undefined }): string {
  return `waits for ${named(dep)} (${afterState(dep)})`;
}

/** Only the holder may heartbeat, finish or release a claim, and a fenced write only the claim it names. */
export function notHolder(task: Task, who: { by: string; claimedAt?: string }): MdclaimError {
  if (task.status !== 'claimed') {
    if (task.status === 'done' || task.status === 'failed') return refusal(task, { kind: 'status', status: task.status });
    return new MdclaimError('CONFLICT', `${named(task)} is not claimed by anyone (it is ${task.status})`);
  }
  if (task.by === undefined) return new MdclaimError('CONFLICT', `${named(task)} is claimed by someone unnamed, not ${who.by}`);
  if (task.by === who.by && who.claimedAt !== undefined) {
    const since = task.claimedAt === undefined ? 'with no claim time' : `since ${task.claimedAt}`;
    return new MdclaimError('CONFLICT', `${named(task)} holds another claim by ${task.by} (${since}), not the one of ${who.claimedAt}`, { holder: task.by });
  }
  return new MdclaimError('CONFLICT', `${named(task)} is claimed by ${task.by}, not ${who.by}`, { holder: task.by });
}

function byOf(task: Task): string {
  return task.by === undefined ? '' : ` by ${task.by}`;
}

/** Why a task that is not finished cannot be reopened. */
export function notReopenable(task: Task): MdclaimError {
  if (task.status === 'claimed') {
    const since = task.claimedAt ? ` since ${task.claimedAt}` : '';
    return new MdclaimError(
      'CONFLICT',
      `${named(task)} is claimed by ${task.by ?? 'someone unnamed'}${since}, not finished: its holder gives it back with release (a lapsed claim: reap)`,
      task.by === undefined ? {} : { holder: task.by },
    );
  }
  return new MdclaimError('CONFLICT', `${named(task)} is ${task.status}, not done or failed: nothing to reopen`);
}
