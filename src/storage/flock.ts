import { closeSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { MdclaimError } from '../errors.js';
import { queueFlock } from './flock-queue.js';
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
 * flock(2) on a descriptor of the board's directory, opened for this one
 * operation. The directory, not the file: a rename over tasks.md (mdclaim's
 * own replace, `sed -i`, an editor's save) cannot orphan a lock on it.
 * flock locks belong to the open file description, so two operations of one
 * process, each on its own descriptor, exclude each other as two processes do.
 * Never blocking in this process: a blocking flock would pin one of libuv's
 * four pool threads per waiter and cannot be cancelled; a wait queues in the
 * kernel through flock(1) instead (see queueFlock).
 */
export function flockDir(ext: FsExt, dir: string, exclusive: boolean): LockAttempt {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch (err) {
    throw new MdclaimError('IO', `cannot open ${dir} to lock the board: ${(err as Error).message}`, { cause: err });
  }
  let held = false;
  return {
    try() {
      try {
        ext.flockSync(fd, exclusive ? 'exnb' : 'shnb');
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return false;
        throw new MdclaimError('IO', `cannot lock ${dir}: ${(err as Error).message}${code === 'EBADF' || code === 'ENOLCK' ? ' (on NFS, mount with local_lock=flock)' : ''}`, { cause: err });
      }
      held = true;
      return true;
    },
    async queue(deadline) {
      const result = await queueFlock(fd, exclusive, deadline, () => ext.flockSync(fd, 'un'));
      if (result === 'held') held = true;
      return result;
    },
    release() {
      try {
        // Explicitly: a child forked meanwhile may still share the descriptor until it execs.
        if (held) ext.flockSync(fd, 'un');
      } finally {
        closeSync(fd);
      }
    },
  };
}
