/**
 * Durations as the format writes them (a claim's lease) and the CLI takes them:
 * `1500ms`, `90s`, `30m`, `2h`, `1d`. Pure: no errors thrown, callers decide.
 */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The longest duration mdclaim accepts: 100 years. Beyond it dates stop being dates. */
export const MAX_DURATION_MS = 36_525 * 86_400_000;

/** The lease of a timed claim whose line has no lease field. */
export const DEFAULT_LEASE_MS = 30 * 60_000;

const DURATION = /^(\d{1,20}(?:\.\d{1,20})?)(ms|s|m|h|d)$/;

/** Milliseconds of a duration text, or null when it is not one or is out of bounds. */
export function readDuration(text: string): number | null {
  const m = DURATION.exec(text);
  if (!m) return null;
  return boundedMs(Math.round(Number(m[1]) * UNIT_MS[m[2]!]!));
}

/** A number of milliseconds, if it is one mdclaim accepts: finite, 0 to 100 years. */
export function boundedMs(ms: number): number | null {
  return Number.isFinite(ms) && ms >= 0 && ms <= MAX_DURATION_MS ? ms : null;
}

/** The normal form: the largest unit that measures it exactly (`90m`, `2h`, `1d`, `1500ms`). */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    const size = UNIT_MS[unit]!;
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return ms === 0 ? '0s' : `${ms}ms`;
}
