// The one way a span of time is written for a person: list's time left and
// retry wait, a refusal's wait, status and watch. Its largest two units,
// down to the second: `45s`, `4m05s`, `2h03m`, `3d04h` (a wait of years is
// `2912106d17h`, wherever it is shown).

/** A span of time as a person reads it at a glance, its whole seconds. */
export function span(ms: number): string {
  const s = Math.floor(Math.abs(ms) / 1000);
  const two = (n: number) => String(n).padStart(2, '0');
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${two(s % 60)}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${two(Math.floor(s / 60) % 60)}m`;
  return `${Math.floor(s / 86_400)}d${two(Math.floor(s / 3600) % 24)}h`;
}

/** A span still ahead (a wait, a lease's time left), rounded up: what is not yet due never reads `0s`. */
export function spanAhead(ms: number): string {
  return span(Math.max(0, Math.ceil(ms / 1000)) * 1000);
}
