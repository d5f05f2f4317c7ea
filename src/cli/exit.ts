import type { ErrorCode } from '../errors.js';

/** Exit statuses: a lost race (4) and "nothing to do" (3) are outcomes, not failures. */
export const EXIT = {
  OK: 0,
  FAILURE: 1,
  USAGE: 2,
  NO_TASK: 3,
  CONFLICT: 4,
  /** Stdout closed by its reader: 128 + SIGPIPE, what sh shows for `yes | head -1`'s `yes`. */
  BROKEN_PIPE: 141,
} as const;

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
