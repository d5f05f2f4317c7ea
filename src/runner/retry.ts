// When a failed task is tried again: the delay doubles with each attempt, and a little jitter
// (only ever added) keeps runners that failed together from coming back together.

/** The longest wait a retry is given, however many attempts came before: a day. */
const LONGEST_MS = 86_400_000;

/** Up to this share of the delay is added at random. */
export const JITTER = 0.2;

/**
 * The wait before retrying a task whose `attempt`-th attempt (1 for the
 * first) just failed: `baseMs`, 2·baseMs, 4·baseMs … up to a day, plus up to
 * a fifth more at random. Never shorter than the doubled delay.
 */
export function retryDelayMs(baseMs: number, attempt: number, random: () => number = Math.random): number {
  const doubled = Math.min(LONGEST_MS, baseMs * 2 ** Math.min(40, Math.max(0, attempt - 1)));
  return Math.round(doubled * (1 + JITTER * random()));
}

/** May a task whose `attempts`-th attempt failed be retried, with `retries` allowed? */
export function mayRetry(attempts: number, retries: number): boolean {
  return attempts <= retries;
}

/** A failure's reason once retries ran out: it says how many attempts the task had. */
export function finalReason(reason: string, attempts: number, retries: number): string {
  return retries === 0 ? reason : `${reason} (after ${attempts} attempt${attempts === 1 ? '' : 's'})`;
}
