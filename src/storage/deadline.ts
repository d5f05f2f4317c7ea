/** Longest delay setTimeout takes as given (about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Call `fire` once `deadline` (ms since the epoch) has come, never before,
 * however far off it is: a delay past setTimeout's longest (about 24.8 days)
 * is waited out in steps. It fires from a timer, never at once, and the timer
 * keeps the process alive meanwhile. Returns the function that cancels it.
 */
export function atDeadline(deadline: number, fire: () => void): () => void {
  let timer: NodeJS.Timeout;
  const arm = () => {
    const rest = deadline - Date.now();
    timer = setTimeout(() => (deadline - Date.now() > 0 ? arm() : fire()), Math.max(0, Math.min(rest, MAX_TIMER_MS)));
  };
  arm();
  return () => clearTimeout(timer);
}

/**
 * Call `fire` after `ms`, whatever its length: the one timer every wait of
 * the runner, its heartbeats and its grace goes through, so a duration the
 * options accept (`90d`) is waited out, not fired at once. Returns the
 * function that cancels it.
 */
export function after(ms: number, fire: () => void): () => void {
  return atDeadline(Date.now() + Math.max(0, ms), fire);
}

/** Resolve after `ms`, whatever its length. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => after(ms, resolve));
}

/** A delay handed to something that takes it as a 32-bit count of ms (a PostgreSQL setting, a library's timer): at most the longest. */
export function capped(ms: number): number {
  return Math.min(ms, MAX_TIMER_MS);
}
