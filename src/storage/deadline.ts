/** Longest delay setTimeout takes as given; a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

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
