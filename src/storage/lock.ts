import { MdclaimError } from '../errors.js';
import { flockDir, loadFsExt } from './flock.js';
import { mkdirLock, removeDeadPrepared } from './mkdir-lock.js';

/** `proper-lockfile` is the old name of `mkdir`, still accepted. */
export type LockKind = 'flock' | 'mkdir' | 'none';

/** One operation's hold on the lock: `try` takes it without waiting (true: held), `release` lets go and frees what it opened. */
export interface LockAttempt {
  try(): boolean;
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
  const ext = loadFsExt();
  return { kind: 'flock', attempt: (t, exclusive) => flockDir(ext, t.dir, exclusive) };
}

const MAX_BACKOFF_MS = 4;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Take the lock before `deadline`, retrying with capped exponential back-off
 * (1, 2, 4 ms) and full jitter, else fail with LOCK_TIMEOUT. One deadline for
 * the whole operation, however long the wait.
 */
export async function acquire(attempt: LockAttempt, path: string, deadline: number, timeoutMs: number): Promise<void> {
  for (let round = 0; ; round++) {
    if (attempt.try()) return;
    const left = deadline - Date.now();
    if (left <= 0) {
      const who = attempt.holder?.();
      throw new MdclaimError('LOCK_TIMEOUT', `${path}: lock still held by ${who || 'another process'} after ${timeoutMs} ms`, { file: path });
    }
    // Short waits: a claim holds the lock for well under a millisecond, and a
    // waiter that slept long behind faster pollers is what makes a p99 bad.
    const cap = Math.min(2 ** round, MAX_BACKOFF_MS);
    await sleep(Math.min(left, Math.random() * cap));
  }
}
