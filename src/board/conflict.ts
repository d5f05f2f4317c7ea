import { MdclaimError } from '../errors.js';
import { named } from '../format/named.js';
import { spanAhead } from '../format/span.js';
import type { Task } from '../format/task.js';

/**
 * Why `task` cannot be claimed now: one line naming the holder where there
 * is one. `by` is who asked: a live claim is not claimable by its own holder
 * either, and the line says what renews it.
 */
export function notClaimable(task: Task, nowMs?: number, by?: string): MdclaimError {
  const holder = task.by === undefined ? {} : { holder: task.by };
  // A retry's wait, on a task that would otherwise be free to take: say when it ends.
  if (task.notBefore !== undefined && (task.status === 'open' || task.status === 'blocked')) {
    const attempts = task.attempts === undefined ? '' : ` after ${task.attempts} attempt${task.attempts === 1 ? '' : 's'}`;
    return new MdclaimError('CONFLICT', `${named(task)} waits for a retry${attempts}: not before ${task.notBefore}${nowMs === undefined ? '' : ` (in ${spanAhead(Date.parse(task.notBefore) - nowMs)})`}`);
  }
  switch (task.status) {
    case 'claimed':
      return new MdclaimError('CONFLICT', `${named(task)} already claimed${byOf(task)}${task.claimedAt ? ` since ${task.claimedAt}` : ''}${task.by !== undefined && task.by === by ? ': a live claim is never claimed again, even under its holder\'s name (heartbeat renews it)' : ''}`, holder);
    case 'done':
      return new MdclaimError('CONFLICT', `${named(task)} already done${byOf(task)}`, holder);
    case 'failed':
      return new MdclaimError('CONFLICT', `${named(task)} already failed${byOf(task)}`, holder);
    case 'blocked':
      return new MdclaimError('CONFLICT', `${named(task)} is blocked: tasks above it${task.section ? ` in "${task.section}"` : ''} are not all done`);
    default:
      return new MdclaimError('CONFLICT', `${named(task)} cannot be claimed`);
  }
}

/** How a task waited for stands, as a blocker's words say it: `claimed by r1`, `failed`, `open`. */
export function afterState(dep: { status: Task['status']; by?: string | undefined }): string {
  return dep.status === 'claimed' && dep.by !== undefined ? `claimed by ${dep.by}` : dep.status;
}

/** `waits for 9f2c41d0aa13 "Add the /health endpoint" (claimed by r1)`: the words for a task waited for. */
export function waitsText(dep: { id: string; text: string; status: Task['status']; by?: string | undefined }): string {
  return `waits for ${named(dep)} (${afterState(dep)})`;
}

/** Why `task` cannot be claimed while a task it waits for (`{after: …}`) is not done. */
export function waitsFor(task: { id: string; text: string }, dep: { id: string; text: string; status: Task['status']; by?: string | undefined }): MdclaimError {
  return new MdclaimError('CONFLICT', `${named(task)} ${waitsText(dep)}`);
}

/** Only the holder may heartbeat, finish or release a claim, and a fenced write only the claim it names. */
export function notHolder(task: Task, who: { by: string; claimedAt?: string }): MdclaimError {
  if (task.status !== 'claimed') {
    if (task.status === 'done' || task.status === 'failed') return notClaimable(task);
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
