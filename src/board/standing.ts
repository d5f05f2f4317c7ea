import { readDuration } from '../format/duration.js';
import type { Marker } from '../format/marker.js';
import { normalisePath } from '../format/paths.js';
import type { Task } from '../format/task.js';
import { blockingHold, cutoff, holdsPaths, isDue, isLapsed, type Cutoff, type ModedPath } from './claimable.js';
import { attemptsOfTask } from './park.js';
import type { HeldPath } from './path-types.js';

// The claimable rules (claimable.ts) read from tasks as every board's list()
// returns them, for views that see a board only through its interface.

/** Where a claim stands: live, past its own lease, or an ADW claim with no time (it never lapses by itself). */
export type ClaimState = 'live' | 'lapsed' | 'untimed';

/** A path a live claim holds, and the task holding it. */
export interface TaskHold extends ModedPath {
  kind: 'declared' | 'locked';
  task: Task;
  /** When it was locked; for a declared path, the claim's time. */
  since?: string;
}

/** What stands in the way of a task that waits. */
export type Blocker =
  | { kind: 'path'; hold: TaskHold }
  /** A `[⏰]` task: the first task above it in its section that is not done. */
  | { kind: 'above'; task: Task }
  /** A task given back for a retry whose time has not come (isDue). */
  | { kind: 'retry'; notBefore: string };

/** The fields of a task's marker the rules read, as its line wrote them. */
function markerOf(t: Task): Marker {
  const leaseMs = t.lease === undefined ? null : readDuration(t.lease);
  return {
    status: t.status,
    end: 0,
    ...(t.by === undefined ? {} : { by: t.by }),
    ...(t.claimedAt === undefined ? {} : { claimedAt: t.claimedAt }),
    ...(leaseMs === null ? {} : { leaseMs }),
  };
}

/** A claimed task's state at `nowMs` (isLapsed: by its own lease); null for a task that is not claimed. */
export function claimState(t: Task, nowMs: number, now: Cutoff = cutoff(nowMs)): ClaimState | null {
  if (t.status !== 'claimed') return null;
  if (t.claimedAt === undefined) return 'untimed';
  return isLapsed(markerOf(t), now) ? 'lapsed' : 'live';
}

/** Every path the live claims hold (holdsPaths: a lapsed claim holds nothing), in board order. */
export function taskHolds(tasks: readonly Task[], now: Cutoff): TaskHold[] {
  const out: TaskHold[] = [];
  for (const t of tasks) {
    if (!holdsPaths(markerOf(t), now)) continue;
    const since = t.claimedAt === undefined ? {} : { since: t.claimedAt };
    for (const path of t.writes ?? []) out.push({ path, mode: 'write', kind: 'declared', task: t, ...since });
    for (const path of t.reads ?? []) out.push({ path, mode: 'read', kind: 'declared', task: t, ...since });
    for (const lock of t.locks ?? []) {
      const n = normalisePath(lock.path);
      if ('path' in n) out.push({ path: n.path, mode: lock.mode, kind: 'locked', task: t, ...(lock.since === undefined ? {} : { since: lock.since }) });
    }
  }
  return out;
}

/**
 * Why each waiting task (open, or `[⏰]`) cannot be claimed now, by the
 * claimable predicate: a retry whose time has not come; a `[⏰]` with a task above it in its section not done
 * (sections as walk takes them: a run of tasks under one heading), or a path
 * it declares that a live claim on another task holds (blockingHold).
 * Tasks not in the map are claimable, or not waiting.
 */
export function blockers(tasks: readonly Task[], now: Cutoff, holds: readonly TaskHold[] = taskHolds(tasks, now)): Map<Task, Blocker> {
  const out = new Map<Task, Blocker>();
  let section: string | undefined;
  let notDone: Task | null = null;
  tasks.forEach((t, i) => {
    if (i === 0 || t.section !== section) {
      section = t.section;
      notDone = null;
    }
    const waiting = t.status === 'open' || t.status === 'blocked';
    if (waiting && t.notBefore !== undefined && !isDue(t.notBefore, now)) out.set(t, { kind: 'retry', notBefore: t.notBefore });
    else if (t.status === 'blocked' && notDone !== null) out.set(t, { kind: 'above', task: notDone });
    else if ((t.status === 'open' || t.status === 'blocked') && (t.writes !== undefined || t.reads !== undefined)) {
      const hold = blockingHold({ writes: t.writes ?? [], reads: t.reads ?? [] }, holds.filter((h) => h.task !== t));
      if (hold) out.set(t, { kind: 'path', hold });
    }
    if (t.status !== 'done') notDone ??= t;
  });
  return out;
}

/** What a listing adds to a task: how its claim stands, or who blocks it by a path. */
export interface Standing {
  /** A timed claim: milliseconds until it lapses (0 or less once lapsed). */
  timeLeftMs?: number;
  /** A timed claim: has it outlived its lease? */
  lapsed?: boolean;
  /** A waiting task a live claim on another task blocks by a path it declares: the first such hold. */
  blockedBy?: HeldPath;
  /** How many claims the task has had, when any: what its line records, else what its status implies (1 claimed or finished). */
  attempts?: number;
  /** A retry whose time has not come: milliseconds until it may be claimed. */
  retryInMs?: number;
}

/** How each task stands at `nowMs`, by the rules above, so a listing and a claim never disagree. */
export function standings(tasks: readonly Task[], nowMs: number): Standing[] {
  const now = cutoff(nowMs);
  const blocked = blockers(tasks, now);
  return tasks.map((t) => {
    const attempts = attemptsOfTask(t);
    return { ...standing(t, nowMs, now, blocked.get(t)), ...(attempts > 0 ? { attempts } : {}) };
  });
}

function standing(t: Task, nowMs: number, now: Cutoff, b: Blocker | undefined): Omit<Standing, 'attempts'> {
  const state = claimState(t, nowMs, now);
  if (state !== null) {
    if (state === 'untimed' || t.expiresAt === undefined) return {};
    return { timeLeftMs: Date.parse(t.expiresAt) - nowMs, lapsed: state === 'lapsed' };
  }
  if (b?.kind === 'retry') return { retryInMs: Date.parse(b.notBefore) - nowMs };
  if (b?.kind !== 'path') return {};
  const h = b.hold;
  const by = h.task.by === undefined ? {} : { by: h.task.by };
  return { blockedBy: { path: h.path, mode: h.mode, task: h.task.id, ...by, ...(h.since === undefined ? {} : { since: h.since }), kind: h.kind } };
}
