import { createRequire } from 'node:module';
import { MdclaimError } from '../errors.js';

export type LockKind = 'flock' | 'proper-lockfile' | 'none';

/** Try once, without waiting, to lock an open file; returns an unlock function, or null when it is held. */
export type TryLock = (fd: number, path: string, exclusive: boolean) => (() => void) | null;

const require = createRequire(import.meta.url);

interface FsExt {
  flockSync(fd: number, flags: 'sh' | 'ex' | 'shnb' | 'exnb' | 'un'): void;
}

let fsExt: FsExt | null | undefined;
let warned = false;

function loadFsExt(): FsExt | null {
  if (fsExt === undefined) {
    try {
      fsExt = require('fs-ext') as FsExt;
    } catch {
      fsExt = null;
    }
  }
  return fsExt;
}

/**
 * flock(2) on the board's own descriptor, never blocking: a blocking flock
 * would pin one of libuv's four pool threads per waiter and stall all fs I/O.
 * flock locks belong to the open file description, so two operations of one
 * process on two fresh descriptors exclude each other like two processes do.
 */
const tryFlock = (ext: FsExt): TryLock => (fd, _path, exclusive) => {
  try {
    ext.flockSync(fd, exclusive ? 'exnb' : 'shnb');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return null;
    throw new MdclaimError('IO', `cannot lock: ${(err as Error).message}`, { cause: err });
  }
  return () => ext.flockSync(fd, 'un');
};

/**
 * The fallback when fs-ext cannot load: proper-lockfile's mkdir lock on the
 * board's path. It has no shared mode, so readers take it exclusively too.
 */
const tryProperLockfile: TryLock = (_fd, path) => {
  const lockfile = require('proper-lockfile') as typeof import('proper-lockfile');
  try {
    // realpath: boards reached through different symlinks share one lock directory, beside the target.
    return lockfile.lockSync(path, { realpath: true, stale: 10_000 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') return null;
    throw new MdclaimError('IO', `cannot lock: ${(err as Error).message}`, { cause: err });
  }
};

/** No lock at all: only for the control run that proves the race tests can see a race. */
const tryNothing: TryLock = () => () => {};

/** The lock to use: `kind`, else `MDCLAIM_LOCK`, else flock, else proper-lockfile with a warning. */
export function chooseLock(kind: LockKind | undefined): { kind: LockKind; tryLock: TryLock } {
  const wanted = kind ?? (process.env['MDCLAIM_LOCK'] as LockKind | undefined) ?? 'flock';
  if (wanted === 'none') return { kind: 'none', tryLock: tryNothing };
  if (wanted === 'proper-lockfile') return { kind: wanted, tryLock: tryProperLockfile };
  if (wanted !== 'flock') throw new MdclaimError('USAGE', `unknown lock "${String(wanted)}" (expected flock, proper-lockfile or none)`);
  const ext = loadFsExt();
  if (ext) return { kind: 'flock', tryLock: tryFlock(ext) };
  if (!warned) {
    warned = true;
    process.emitWarning('fs-ext could not load (no native build?); using proper-lockfile instead of flock', 'MdclaimWarning');
  }
  return { kind: 'proper-lockfile', tryLock: tryProperLockfile };
}

const MAX_BACKOFF_MS = 4;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Take the lock, retrying with capped exponential back-off (1, 2, 4 ms) and
 * full jitter until `timeoutMs` has passed, then fail with LOCK_TIMEOUT.
 * Returns null as soon as `current()` says the descriptor no longer names
 * the board (a writer renamed a new file over it): waiting for a lock on a
 * replaced file would only queue behind other waiters to learn that.
 */
export async function acquire(
  tryLock: TryLock,
  fd: number,
  path: string,
  exclusive: boolean,
  timeoutMs: number,
  current: () => boolean,
): Promise<(() => void) | null> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    const unlock = tryLock(fd, path, exclusive);
    if (unlock) return unlock;
    if (!current()) return null;
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new MdclaimError('LOCK_TIMEOUT', `${path}: lock still held by another process after ${timeoutMs} ms`, { file: path });
    }
    // Short waits: a claim holds the lock for about a millisecond, and a
    // waiter that slept long behind faster pollers is what makes a p99 bad.
    const cap = Math.min(2 ** attempt, MAX_BACKOFF_MS);
    await sleep(Math.min(left, Math.random() * cap));
  }
}
