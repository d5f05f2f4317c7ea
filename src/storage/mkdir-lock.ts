import { mkdirSync, readdirSync, renameSync, rmdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { MdclaimError } from '../errors.js';
import type { LockAttempt } from './lock.js';
import { isGone, ownerName, parseOwner, selfOwner } from './owner.js';

let seq = 0;

/**
 * The lock for machines where no flock(2) provider loads (`MDCLAIM_LOCK=mkdir`): the
 * directory `<board>.lock`, holding one entry named after its owner (host,
 * boot, pid, start time). No shared mode: readers take it exclusively too.
 *
 * - Taking it is one rename(2) of a prepared directory, owner entry inside,
 *   onto `<board>.lock`: it fails while that is a held lock (never empty) and
 *   succeeds onto a missing or empty one, so a lock never exists without its owner.
 * - A holder is never timed out: a stopped or slow holder keeps its lock. Only
 *   when its owner is certainly gone is the lock taken over, by removing that
 *   owner's entry (an rmdir of a name only that owner had, so it cannot remove
 *   a fresh lock that replaced the stale one meanwhile); the emptied directory
 *   is then taken by the next rename, atomically, by exactly one process.
 * - Release removes only this owner's entry, then the directory if it is still empty.
 */
export function mkdirLock(file: string): LockAttempt {
  const lock = `${file}.lock`;
  const me = ownerName(selfOwner());
  let prepared: string | null = null;
  let held = false;
  let holder = '';

  const prepare = (): string => {
    if (prepared) return prepared;
    const dir = `${lock}.${me}.${seq++}`;
    try {
      mkdirSync(dir);
      mkdirSync(join(dir, me));
    } catch (err) {
      removeQuietly(dir, me);
      throw cannotLock(lock, err);
    }
    return (prepared = dir);
  };

  const attempt = (): boolean => {
    try {
      renameSync(prepare(), lock);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST') return false;
      throw cannotLock(lock, err);
    }
    prepared = null;
    held = true;
    return true;
  };

  return {
    try() {
      if (attempt()) return true;
      // Held: by whom, and are they still there?
      let names: string[];
      try {
        names = readdirSync(lock);
      } catch {
        return attempt(); // released while we looked
      }
      const owner = names.length === 1 ? parseOwner(names[0]!) : null;
      holder = owner ? `pid ${owner.pid}${owner.host === selfOwner().host ? '' : ` on ${owner.host}`}` : `an unknown owner (remove ${lock} if no mdclaim is running)`;
      if (!owner || !isGone(owner)) return false;
      try {
        rmdirSync(join(lock, names[0]!));
      } catch {
        // another waiter took the dead owner's entry out first
      }
      return attempt();
    },
    release() {
      if (held) {
        held = false;
        removeQuietly(lock, me);
      }
      if (prepared) {
        removeQuietly(prepared, me);
        prepared = null;
      }
    },
    holder: () => holder,
  };
}

/**
 * Prepared lock directories of processes that are gone (killed while they
 * waited), found among the names in the board's directory. Called under the
 * lock, by the clean-up that removes a killed writer's temp files.
 */
export function removeDeadPrepared(file: string, names: readonly string[]): void {
  const dir = dirname(file);
  const prefix = `${basename(file)}.lock.`;
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const m = /^(.+)\.\d+$/.exec(name.slice(prefix.length));
    const owner = m ? parseOwner(m[1]!) : null;
    if (owner && isGone(owner)) removeQuietly(join(dir, name), m![1]!);
  }
}

/** Remove `dir/entry` and then `dir`; each may already be gone, or (dir) taken by another lock. */
function removeQuietly(dir: string, entry: string): void {
  try {
    rmdirSync(join(dir, entry));
  } catch {
    // not ours, or already gone
  }
  try {
    rmdirSync(dir);
  } catch {
    // not empty: someone else's lock was renamed onto it
  }
}

function cannotLock(lock: string, err: unknown): MdclaimError {
  return new MdclaimError('IO', `cannot lock ${lock}: ${(err as Error).message}`, { cause: err });
}
