import { MdclaimError } from '../errors.js';
import { flockDir } from './flock.js';
import { flockProvider } from './flock/choose.js';
import { mkdirLock, removeDeadPrepared } from './mkdir-lock.js';
import { sleep } from './deadline.js';

/** `proper-lockfile` is the old name of `mkdir`, still accepted. */
export type LockKind = 'flock' | 'mkdir' | 'none';

/** One operation's hold on the lock: `try` takes it without waiting (true: held), `release` lets go and frees what it opened. */
export interface LockAttempt {
  try(): boolean;
  /** Wait, in turn, until held (true) or `deadline` (ms since the epoch; false), when the lock can; without it, acquire polls. */
  queue?(deadline: number): Promise<boolean>;
  /** Once held: does the lock still stand for the board's directory (false: it was replaced; release and take it again)? */
  stillNames?(): boolean;
  release(): void;
  /** Who holds it, when the lock can tell (for the timeout message). */
  holder?(): string;
}

/** Where a board's lock lives: the real directory holding the board, and the board's real path. */
export interface LockTarget {
  dir: string;
  file: string;
}

export interface Lock {
  kind: LockKind;
  attempt(target: LockTarget, exclusive: boolean): LockAttempt;
  /** Remove what holders that died left beside the board, given the directory's names (under the lock). */
  cleanUp?(file: string, names: readonly string[]): void;
}

/** No lock at all: only for the control run that proves the race tests can see a race. */
const nothing: LockAttempt = { try: () => true, release: () => {} };

/** The lock to use: `kind`, else `MDCLAIM_LOCK`, else flock. No silent fallback: every claimer of a board must take the same lock. */
export function chooseLock(kind: string | undefined): Lock {
  const wanted = kind ?? (process.env['MDCLAIM_LOCK'] || 'flock');
  if (wanted === 'none') return { kind: 'none', attempt: () => nothing };
  if (wanted === 'mkdir' || wanted === 'proper-lockfile') {
    return { kind: 'mkdir', attempt: (t) => mkdirLock(t.file), cleanUp: removeDeadPrepared };
  }
  if (wanted !== 'flock') throw new MdclaimError('USAGE', `unknown lock "${String(wanted)}" (expected flock or mkdir)`);
  const { flock } = flockProvider();
  return { kind: 'flock', attempt: (t, exclusive) => flockDir(flock, t.dir, exclusive) };
}

const MAX_BACKOFF_MS = 4;


function timedOut(attempt: LockAttempt, path: string, timeoutMs: number): MdclaimError {
  const who = attempt.holder?.();
  return new MdclaimError('LOCK_TIMEOUT', `${path}: lock still held by ${who || 'another process'} after ${timeoutMs} ms`, { file: path });
}

/**
 * Take the lock before `deadline`, else fail with LOCK_TIMEOUT; one deadline
 * for the whole operation, however long the wait. A lock that can wait in
 * turn (flock: see DirLock) does; one that cannot (the mkdir lock) is polled
 * with capped exponential back-off (1, 2, 4 ms) and full jitter. Taken at
 * once, it returns null rather than a promise: an operation that need not
 * wait does not yield to the event loop for it.
 */
export function acquire(attempt: LockAttempt, path: string, deadline: number, timeoutMs: number): Promise<void> | null {
  if (attempt.try()) return null;
  return waitFor(attempt, path, deadline, timeoutMs);
}

function waitFor(attempt: LockAttempt, path: string, deadline: number, timeoutMs: number): Promise<void> {
  if (!attempt.queue) return poll(attempt, path, deadline, timeoutMs);
  return attempt.queue(deadline).then((held) => {
    if (!held) throw timedOut(attempt, path, timeoutMs);
  });
}

async function poll(attempt: LockAttempt, path: string, deadline: number, timeoutMs: number): Promise<void> {
  for (let round = 0; ; round++) {
    const now = Date.now();
    if (deadline - now <= 0) throw timedOut(attempt, path, timeoutMs);
    await sleep(Math.min(deadline - now, Math.random() * Math.min(2 ** round, MAX_BACKOFF_MS)));
    if (attempt.try()) return;
  }
}
