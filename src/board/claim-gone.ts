import { MdclaimError } from '../errors.js';
import { claimInstant } from '../format/claim-time.js';
import { named } from '../format/named.js';
import type { Task } from '../format/task.js';

/**
 * Is the claim `by` took at `claimedAt` still the task's? It is while a line
 * of the task reads claimed by `by` at that time or later (a heartbeat moves
 * the time on): the line holding this claim. Once `by` has finished it (its
 * own ending) the line keeps no claim time, so a finished line counts only
 * when it is the task's one line: two lines with the same text share an id,
 * and another line finished by `by` earlier says nothing of this claim.
 * Otherwise it is gone (taken over, reaped, given back, finished by someone
 * else): a CONFLICT naming who holds the task now. A git hook asks this so
 * that work done under a lost claim is never committed or pushed.
 */
export function refuseGoneClaim(tasks: readonly Task[], id: string, by: string, claimedAt: string): void {
  const mine = tasks.filter((t) => t.id === id);
  if (mine.length === 0) throw new MdclaimError('CONFLICT', `the claim by ${by} at ${claimedAt} is gone: no task ${id} on the board`);
  const since = claimInstant(claimedAt);
  const holding = (t: Task) => {
    if (t.by !== by || t.status !== 'claimed' || t.claimedAt === undefined) return false;
    const at = claimInstant(t.claimedAt);
    return since !== null && at !== null && at >= since;
  };
  const ownEnding = (t: Task) => mine.length === 1 && t.by === by && (t.status === 'done' || t.status === 'failed');
  const kept = mine.some((t) => holding(t) || ownEnding(t));
  if (kept) return;
  // Of several lines, the one someone else holds now says most; else the first.
  const now = mine.find((t) => t.status === 'claimed' && t.by !== by) ?? mine.find((t) => t.by !== by) ?? mine[0]!;
  const who = now.by;
  const state =
    now.status === 'claimed'
      ? `is claimed by ${who ?? 'an unnamed holder'}${now.claimedAt === undefined ? '' : ` since ${now.claimedAt}`}`
      : now.status === 'done' || now.status === 'failed'
        ? `was ${now.status === 'done' ? 'done' : 'failed'} by ${who ?? 'no one named'}`
        : 'was given back or reaped: no one holds it';
  throw new MdclaimError('CONFLICT', `${named(now)} ${state}; the claim by ${by} at ${claimedAt} is gone`, who === undefined ? {} : { holder: who });
}
