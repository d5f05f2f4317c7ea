import type { Marker } from '../format/marker.js';
import { formatClaimedAt } from '../format/marker.js';

/** The latest claim time that counts as lapsed: `now - lease`, computed once per operation. */
export interface Cutoff {
  ms: number;
  /** The same instant as mdclaim writes it, so canonical timestamps compare as strings. */
  iso: string | null;
}

export function cutoff(now: number, leaseMs: number): Cutoff {
  const ms = now - leaseMs;
  // Timestamps are whole seconds: at <= ms exactly when at <= floor(ms) to the second.
  return { ms, iso: ms >= 0 && ms < 253402300800000 ? formatClaimedAt(ms) : null };
}

/**
 * Has a timed claim outlived the lease? One notion for `next --lease`,
 * `claim --lease` and `reap --ttl`: lapsed when now - claimed_at >= lease.
 * An untimed ADW claim (`[🟡, id]`) has no age, so it never lapses by itself.
 */
export function isLapsed(m: Marker, limit: Cutoff): boolean {
  const at = m.claimedAt;
  if (m.status !== 'claimed' || at === undefined) return false;
  if (limit.iso !== null && at.length === 20 && at.charCodeAt(19) === 0x5a) return at <= limit.iso;
  return Date.parse(at) <= limit.ms;
}

/**
 * The one claimable predicate: open; or blocked (`[⏰]`) with every task above
 * it in its section done; or claimed with a lapsed lease (takeover).
 */
export function isClaimable(m: Marker, aboveAllDone: boolean, limit: Cutoff): boolean {
  switch (m.status) {
    case 'open':
      return true;
    case 'blocked':
      return aboveAllDone;
    case 'claimed':
      return isLapsed(m, limit);
    default:
      return false;
  }
}

/** The fields of a task (or marker) the settling rule reads. */
export interface Standing {
  status: Marker['status'];
  claimedAt?: string | undefined;
}

/**
 * Could this task still end done, with nobody editing the board by hand?
 * Done, open, a timed claim (its holder finishes it, or it lapses and someone
 * else does), or a `[⏰]` that could still become claimable. Never a failed
 * task, and never an untimed ADW claim: it does not lapse, and its holder may
 * never come back.
 */
export function couldEndDone(m: Standing, aboveCouldAllEndDone: boolean): boolean {
  return m.status === 'done' || couldBecomeClaimable(m, aboveCouldAllEndDone);
}

/**
 * Could this task still become claimable (the question `run --until-settled`
 * asks): open; a timed claim, which may lapse; or a `[⏰]` whose tasks above
 * it in its section could all still end done (so a `[❌]` above settles it).
 */
export function couldBecomeClaimable(m: Standing, aboveCouldAllEndDone: boolean): boolean {
  switch (m.status) {
    case 'open':
      return true;
    case 'claimed':
      return m.claimedAt !== undefined;
    case 'blocked':
      return aboveCouldAllEndDone;
    default:
      return false;
  }
}

/**
 * `couldBecomeClaimable` for each task of a board in file order, with
 * sections taken as `walk` takes them: a run of tasks under one heading.
 */
export function stillClaimable(tasks: readonly (Standing & { section?: string | undefined })[]): boolean[] {
  let section: string | undefined;
  let allCould = true;
  return tasks.map((t, i) => {
    if (i === 0 || t.section !== section) {
      section = t.section;
      allCould = true;
    }
    const could = couldBecomeClaimable(t, allCould);
    if (!couldEndDone(t, allCould)) allCould = false;
    return could;
  });
}
