/** The codes an mdclaim operation can fail with; the CLI maps each to one exit status. */
export type ErrorCode =
  | 'CONFLICT' // held by another, not the holder, already finished, or blocked
  | 'NOT_FOUND' // no task with that id
  | 'NO_TASK' // nothing claimable (next) or nothing matches
  | 'USAGE' // bad argument or option
  | 'LOCK_TIMEOUT' // could not take the lock before the deadline
  | 'IO' // the file system said no
  | 'VERIFY' // the write did not read back as written
  | 'UNSUPPORTED_FS' // network file system without opt-in
  | 'UNSUPPORTED_PLATFORM' // a markdown board, run or lock on Windows
  | 'EDITOR' // mdclaim edit: the editor failed, or the copy it edited is gone
  | 'COMMAND' // run: the command cannot start (not found, not executable), so no task is failed for it
  | 'WORKTREE'; // run --worktree: the task's worktree cannot be had (a path in the way, its branch checked out elsewhere), so no task is failed for it

/**
 * The one error class mdclaim throws. `code` says what kind of failure it is;
 * `holder` names who holds the task when `code` is `CONFLICT` and someone does.
 */
export class MdclaimError extends Error {
  readonly code: ErrorCode;
  readonly holder?: string;
  readonly file?: string;

  constructor(code: ErrorCode, message: string, details: { holder?: string; file?: string; cause?: unknown } = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'MdclaimError';
    this.code = code;
    if (details.holder !== undefined) this.holder = details.holder;
    if (details.file !== undefined) this.file = details.file;
  }
}

export function usage(message: string): MdclaimError {
  return new MdclaimError('USAGE', message);
}

/** A failure as every face of mdclaim reports it: the code, a one-line message, the holder when one is named. */
export interface ErrorReport {
  code: ErrorCode | 'INTERNAL';
  message: string;
  holder?: string;
  /** `error[CODE]: message`, the one line the CLI prints and an MCP tool error carries. */
  line: string;
}

export function errorReport(err: unknown): ErrorReport {
  const known = err instanceof MdclaimError;
  const code = known ? err.code : 'INTERNAL';
  const message = (err instanceof Error ? err.message : String(err)).replace(/\s*\n\s*/g, ' ');
  return { code, message, ...(known && err.holder !== undefined ? { holder: err.holder } : {}), line: `error[${code}]: ${message}` };
}
