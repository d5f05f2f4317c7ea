import { dirLock } from './dir-lock.js';
import type { FlockFn } from './flock/types.js';
import type { LockAttempt } from './lock.js';

/**
 * flock(2) on the board's directory, through this process's DirLock for it.
 * The directory, not the file: a rename over tasks.md (mdclaim's own
 * replace, `sed -i`, an editor's save) cannot orphan a lock on it. The
 * DirLock keeps one descriptor per directory and queues this process's own
 * operations, so they exclude each other as two processes do; a wait
 * blocks the thread 20 ms at most (see DirLock and pool-wait.ts). `flock`
 * is whichever provider loaded (see flockProvider): the waits do not
 * depend on it.
 */
export function flockDir(flock: FlockFn, dir: string, exclusive: boolean): LockAttempt {
  const lock = dirLock(dir, flock);
  let held = false;
  return {
    try() {
      held = lock.tryTake(exclusive);
      return held;
    },
    queue(deadline) {
      const taken = lock.take(exclusive, deadline);
      // Registered before the caller's await, so `held` is set by the time it resumes.
      taken.then(
        (h) => void (held = h),
        () => {},
      );
      return taken;
    },
    stillNames() {
      if (lock.stillNames()) return true;
      lock.retire();
      return false;
    },
    release() {
      if (!held) return;
      held = false;
      lock.release();
    },
  };
}
