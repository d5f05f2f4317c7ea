import { usage } from '../errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parse `1500ms`, `90s`, `30m`, `2h`, `1d` (or a number of milliseconds) into milliseconds. */
export function parseDuration(value: string | number, name = 'duration'): number {
  if (typeof value === 'number') {
    if (Number.isFinite(value) && value >= 0) return value;
    throw usage(`${name} must be a non-negative number of milliseconds, got ${value}`);
  }
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(value.trim());
  if (!m) throw usage(`${name} "${value}" is not a duration (use e.g. 1500ms, 90s, 30m, 2h, 1d)`);
  return Math.round(Number(m[1]) * UNIT_MS[m[2]!]!);
}
