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
  /** Every task's end, in the order they came (a retried task may come again). */
  tasks: readonly { id: string; outcome: string }[];
}

/**
 * `run`'s status: after a signal 129/130/143, 141 when its stdout closed;
 * nothing claimed 3 (0 for a loop); else by the worst of its tasks, each as it
 * last ended here: lost 4, failed (or given back for a retry not run again
 * here) 1, all done 0. A scheduler sees success only when all it ran is done.
 */
export function exitCodeForRun(end: RunEnd): number {
  if (end.stoppedBy === 'SIGHUP') return EXIT.SIGHUP;
  if (end.stoppedBy === 'SIGINT') return EXIT.SIGINT;
  if (end.stoppedBy === 'SIGTERM') return EXIT.SIGTERM;
  if (end.stoppedBy === 'SIGPIPE') return EXIT.BROKEN_PIPE;
  if (end.tasks.length === 0) return end.loop ? EXIT.OK : EXIT.NO_TASK;
  const last = [...new Map(end.tasks.map((t) => [t.id, t.outcome])).values()];
  if (last.includes('lost')) return EXIT.CONFLICT;
  if (last.includes('failed') || last.includes('retried')) return EXIT.FAILURE;
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
