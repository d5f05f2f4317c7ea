import type { ErrorCode } from '../errors.js';

/** Exit statuses: a lost race (4) and "nothing to do" (3) are outcomes, not failures. */
export const EXIT = {
  OK: 0,
  FAILURE: 1,
  USAGE: 2,
  NO_TASK: 3,
  CONFLICT: 4,
  /** status --fail-on-lapsed: a claim is past its lease (a cron job's alert, told apart from a failure to look). */
  LAPSED: 5,
  /** Stdout closed by its reader: 128 + SIGPIPE, what sh shows for `yes | head -1`'s `yes`. */
  BROKEN_PIPE: 141,
  /** 128 + the signal's number, as a shell reports a command a signal stopped. */
  SIGHUP: 129,
  SIGINT: 130,
  SIGTERM: 143,
} as const;

/** How `run` ended, as an exit status. */
export interface RunEnd {
  loop: boolean;
  stoppedBy: string;
  outcomes: readonly string[];
}

/**
 * `run`'s status: after a signal 129/130/143, 141 when its stdout closed; a loop that stopped by itself 0;
 * one pass by its worst task: lost 4, failed 1, done 0, nothing claimed 3.
 */
export function exitCodeForRun(end: RunEnd): number {
  if (end.stoppedBy === 'SIGHUP') return EXIT.SIGHUP;
  if (end.stoppedBy === 'SIGINT') return EXIT.SIGINT;
  if (end.stoppedBy === 'SIGTERM') return EXIT.SIGTERM;
  if (end.stoppedBy === 'SIGPIPE') return EXIT.BROKEN_PIPE;
  if (end.loop) return EXIT.OK;
  if (end.outcomes.length === 0) return EXIT.NO_TASK;
  if (end.outcomes.includes('lost')) return EXIT.CONFLICT;
  if (end.outcomes.includes('failed') || end.outcomes.includes('retried')) return EXIT.FAILURE;
  return EXIT.OK;
}

/** The one place an error code becomes an exit status. */
export function exitCodeFor(code: ErrorCode | 'INTERNAL'): number {
  switch (code) {
    case 'USAGE':
      return EXIT.USAGE;
    case 'NO_TASK':
    case 'NOT_FOUND':
      return EXIT.NO_TASK;
    case 'CONFLICT':
      return EXIT.CONFLICT;
    default:
      return EXIT.FAILURE;
  }
}
