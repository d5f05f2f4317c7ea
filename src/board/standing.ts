import type { Task } from '../format/task.js';
import { blockingHold } from './claimable.js';
import type { HeldPath } from './path-types.js';

/** What a listing adds to a task: how its claim stands, or who blocks it by a path. */
export interface Standing {
  /** A timed claim: milliseconds until it lapses (0 or less once lapsed). */
  timeLeftMs?: number;
  /** A timed claim: has it outlived its lease? */
  lapsed?: boolean;
  /** An open (or waiting ⏰) task a live claim on another task blocks by a path it declares: the first such hold. */
  blockedBy?: HeldPath;
}

/**
 * How each task stands at `now`, given what live claims hold (`held`, as
 * board.paths() returns it): by the claimable predicate's path rule
 * (blockingHold), so a listing and a claim never disagree.
 */
export function standings(tasks: readonly Task[], held: readonly HeldPath[], now: number): Standing[] {
  return tasks.map((t) => {
    if (t.status === 'claimed') {
      if (t.expiresAt === undefined) return {};
      const timeLeftMs = Date.parse(t.expiresAt) - now;
      return { timeLeftMs, lapsed: timeLeftMs <= 0 };
    }
    if ((t.status !== 'open' && t.status !== 'blocked') || (t.writes === undefined && t.reads === undefined)) return {};
    const others = held.filter((h) => h.task !== t.id);
    const blocker = blockingHold({ writes: t.writes ?? [], reads: t.reads ?? [] }, others);
    return blocker === null ? {} : { blockedBy: blocker };
  });
}

/** Does any task declare a path (so that a listing needs to know what live claims hold)? */
export function declaresPaths(tasks: readonly Task[]): boolean {
  for (const t of tasks) if (t.writes !== undefined || t.reads !== undefined) return true;
  return false;
}

/** `45s`, `24m`, `2h05m`, `3d04h`: a time left, for a person. */
export function formatLeft(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${String(Math.floor(s / 60) % 60).padStart(2, '0')}m`;
  return `${Math.floor(s / 86_400)}d${String(Math.floor(s / 3600) % 24).padStart(2, '0')}h`;
}
