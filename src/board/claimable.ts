import type { Marker } from '../format/marker.js';

/**
 * Has a timed claim outlived the lease? One notion for `next --lease`,
 * `claim --lease` and `reap --ttl`. An untimed ADW claim (`[🟡, id]`) has no
 * age, so it never lapses by itself.
 */
export function isLapsed(m: Marker, now: number, leaseMs: number): boolean {
  if (m.status !== 'claimed' || m.claimedAt === undefined) return false;
  return now - Date.parse(m.claimedAt) >= leaseMs;
}

/**
 * The one claimable predicate: open; or blocked (`[⏰]`) with every task above
 * it in its section done; or claimed with a lapsed lease (takeover).
 */
export function isClaimable(m: Marker, aboveAllDone: boolean, now: number, leaseMs: number): boolean {
  switch (m.status) {
    case 'open':
      return true;
    case 'blocked':
      return aboveAllDone;
    case 'claimed':
      return isLapsed(m, now, leaseMs);
    default:
      return false;
  }
}
