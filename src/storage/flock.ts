import { createRequire } from 'node:module';
import { MdclaimError } from '../errors.js';
import { dirLock } from './dir-lock.js';
import type { LockAttempt } from './lock.js';

interface FsExt {
  flockSync(fd: number, flags: 'sh' | 'ex' | 'shnb' | 'exnb' | 'un'): void;
}

const require = createRequire(import.meta.url);
let fsExt: FsExt | undefined;

/**
 * fs-ext, the one native dependency (optional: it builds from source). Without
 * it mdclaim refuses to run rather than quietly take a different lock that
 * other claimers of the board would not see.
 */
export function loadFsExt(): FsExt {
  if (fsExt) return fsExt;
  try {
    fsExt = require('fs-ext') as FsExt;
    return fsExt;
  } catch (err) {
    const why = (err as Error).message.split('\n')[0];
    throw new MdclaimError(
      'IO',
      `cannot load fs-ext, which mdclaim needs for flock (${why}); install a C++ toolchain and run \`npm rebuild fs-ext\`, or set MDCLAIM_LOCK=mkdir for every process that claims from this board`,
      { cause: err },
    );
  }
}

/**
 * flock(2) on the board's directory, through this process's DirLock for it.
 * The directory, not the file: a rename over tasks.md (mdclaim's own
 * replace, `sed -i`, an editor's save) cannot orphan a lock on it. The
 * DirLock keeps one descriptor per directory and queues this process's own
 * operations, so they exclude each other as two processes do; it never
 * blocks the thread (see DirLock and QueueHelper).
 */
export function flockDir(ext: FsExt, dir: string, exclusive: boolean): LockAttempt {
  const lock = dirLock(dir, ext.flockSync);
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
