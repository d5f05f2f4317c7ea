import { compareAt, type ByteString } from '../format/bytes.js';
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
export function isLapsed(m: Pick<Marker, 'status' | 'claimedAt'>, limit: Cutoff): boolean {
  const at = m.claimedAt;
  if (m.status !== 'claimed' || at === undefined) return false;
  if (limit.iso !== null && at.length === 20 && at.charCodeAt(19) === 0x5a) return at <= limit.iso;
  return Date.parse(at) <= limit.ms;
}

/** isLapsed for a claim time as mdclaim writes it (`2026-11-30T04:06:29Z`) at `at` in the file's bytes, compared where it lies. */
export function isLapsedAt(src: ByteString, at: number, limit: Cutoff): boolean {
  if (limit.iso !== null) return compareAt(src, at, limit.iso) <= 0;
  return Date.parse(src.slice(at, at + 20)) <= limit.ms;
}

/**
 * The one claimable predicate: open; or blocked (`[⏰]`) with every task above
 * it in its section done; or claimed with a lapsed lease (takeover).
 */
export function isClaimable(m: Pick<Marker, 'status' | 'claimedAt'>, aboveAllDone: boolean, limit: Cutoff): boolean {
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
