import { DEFAULT_LEASE_MS } from '../format/duration.js';
import type { Marker } from '../format/marker.js';
import { formatClaimedAt } from '../format/marker.js';

/** An instant and the claim time that is that old: `now - age`, computed once per operation. */
export interface Cutoff {
  now: number;
  ms: number;
  /** The same instant as mdclaim writes it, so canonical timestamps compare as strings. */
  iso: string | null;
}

export function cutoff(now: number, ageMs: number = DEFAULT_LEASE_MS): Cutoff {
  const ms = now - ageMs;
  // Timestamps are whole seconds: at <= ms exactly when at <= floor(ms) to the second.
  return { now, ms, iso: ms >= 0 && ms < 253402300800000 ? formatClaimedAt(ms) : null };
}

/** Is a timed claim at least as old as the cutoff's age? (`reap --ttl`'s override.) */
export function isOlderThan(m: Marker, limit: Cutoff): boolean {
  const at = m.claimedAt;
  if (m.status !== 'claimed' || at === undefined) return false;
  if (limit.iso !== null && at.length === 20 && at.charCodeAt(19) === 0x5a) return at <= limit.iso;
  return Date.parse(at) <= limit.ms;
}

/**
 * Has a timed claim outlived its own lease? Lapsed when now >= claimed_at +
 * lease, with the lease the claim's line names (30m when it names none), so
 * every reader agrees whatever lease it would give its own claims. `now` is
 * the cutoff's; a line without a lease compares as a string against the
 * default-lease cutoff (pass `cutoff(now)`). An untimed ADW claim (`[🟡, id]`)
 * has no age, so it never lapses by itself.
 */
export function isLapsed(m: Marker, now: Cutoff): boolean {
  if (m.leaseMs === undefined || m.leaseMs === DEFAULT_LEASE_MS) return isOlderThan(m, now);
  if (m.status !== 'claimed' || m.claimedAt === undefined) return false;
  return Date.parse(m.claimedAt) + m.leaseMs <= now.now;
}

/**
 * The one claimable predicate: open; or blocked (`[⏰]`) with every task above
 * it in its section done; or claimed with a lapsed lease (takeover).
 */
export function isClaimable(m: Marker, aboveAllDone: boolean, now: Cutoff): boolean {
  switch (m.status) {
    case 'open':
      return true;
    case 'blocked':
      return aboveAllDone;
    case 'claimed':
      return isLapsed(m, now);
    default:
      return false;
  }
}
