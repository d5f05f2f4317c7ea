import { usage } from '../errors.js';
import { boundedMs, readDuration } from '../format/duration.js';

/**
 * Parse `1500ms`, `90s`, `30m`, `2h`, `1d` (or a number of milliseconds) into
 * milliseconds, 0 to 100 years; anything else is a usage error, raised before
 * anything is written.
 */
export function parseDuration(value: string | number, name = 'duration'): number {
  if (typeof value === 'number') {
    const ms = boundedMs(value);
    if (ms !== null) return Math.round(ms);
    throw usage(`${name} must be 0 to 100 years in milliseconds, got ${value}`);
  }
  if (typeof value !== 'string') throw usage(`${name} must be a duration string or a number of milliseconds, got ${typeof value}`);
  const ms = readDuration(value.trim());
  if (ms !== null) return ms;
  throw usage(`${name} "${value}" is not a duration of at most 100 years (use e.g. 1500ms, 90s, 30m, 2h, 1d)`);
}

/** The shortest lease a claim may be taken with. */
export const MIN_LEASE_MS = 1000;

/**
 * A claim's lease as a caller gives it (parseDuration's forms), at least a
 * second. Claim times are written to the second, rounded down, and a claim
 * lapses at that time plus its lease: with a lease of a second or more, a
 * claim taken after another lapsed always has a later claim time, even by
 * the same name, so the old claim's fence can never match the new one.
 */
export function parseLease(value: string | number, name = 'lease'): number {
  const ms = parseDuration(value, name);
  if (ms < MIN_LEASE_MS) throw usage(`${name} must be at least 1s (claim times are to the second), got ${typeof value === 'number' ? `${value}ms` : `"${value}"`}`);
  return ms;
}
