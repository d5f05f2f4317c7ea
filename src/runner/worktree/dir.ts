import { accessSync, constants, lstatSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { MdclaimError, usage } from '../../errors.js';
import { pathList } from '../../board/path-options.js';

/**
 * The directory worktrees are made in, checked before anything is claimed:
 * a worktree's path is a path its claim locks, so it must be one a path lock
 * can hold (USAGE), and the directory must be one that is, or can be made,
 * a directory (WORKTREE, one line naming what is in the way). With `make`,
 * it is made, a level at a time: never a recursive mkdir, which on some
 * paths (`/proc/self/x`) loops without end and holds the event loop.
 */
export function treesDir(dir: string, lock: string, make: boolean): void {
  try {
    pathList([lock], 'the worktrees\' path lock');
  } catch (err) {
    throw usage(`--trees ${dir} cannot hold worktrees: ${(err as Error).message.replace(/^[^:]*: /, '')}`);
  }
  const missing: string[] = [];
  let at = dir;
  for (;;) {
    const kind = kindOf(at);
    if (kind === 'dir') break;
    if (kind === 'dangling') throw refused(dir, `${at} is a symbolic link to nothing`);
    if (kind !== 'missing') throw refused(dir, `${at} is ${kind}, not a directory`);
    missing.push(at);
    const up = dirname(at);
    if (up === at) throw refused(dir, 'no directory above it exists');
    at = up;
  }
  if (!make) {
    if (missing.length > 0) writable(dir, at);
    return;
  }
  for (const m of missing.reverse()) {
    try {
      mkdirSync(m);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && kindOf(m) === 'dir') continue;
      throw refused(dir, `cannot make ${m}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
}

function kindOf(path: string): 'dir' | 'missing' | 'dangling' | string {
  try {
    return statSync(path).isDirectory() ? 'dir' : 'a file';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') return 'missing'; // a file above it: found on the way up
    if (code !== 'ENOENT') return `unreadable (${code})`;
    // Asked again without following links: a symbolic link to nothing, or (a runner beside this one making
    // it between the two calls) what is there now, never taken for a link it is not.
    let l;
    try {
      l = lstatSync(path);
    } catch {
      return 'missing';
    }
    if (l.isSymbolicLink()) return 'dangling';
    return l.isDirectory() ? 'dir' : 'a file';
  }
}

function writable(dir: string, parent: string): void {
  try {
    accessSync(parent, constants.W_OK | constants.X_OK);
  } catch (err) {
    throw refused(dir, `${parent} cannot be written (${(err as NodeJS.ErrnoException).code})`);
  }
}

function refused(dir: string, why: string): MdclaimError {
  return new MdclaimError('WORKTREE', `--trees ${dir} cannot hold worktrees: ${why}`);
}
