import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MdclaimError } from '../../errors.js';
import { real } from '../../platform/followed-path.js';
import { gitOut } from '../git.js';
import { readRecordAt } from './record.js';
import type { Trees } from './trees.js';

/**
 * The registration of a worktree whose directory is gone, at the exact path
 * being made: removed when mdclaim made that worktree (its record says so)
 * and no one has locked it, else refused. Never `git worktree prune`, which
 * forgets every such worktree of the repository, a person's on an absent
 * disk (and its staged index) included.
 */
export async function forgetStale(trees: Trees, dir: string, locked: boolean): Promise<void> {
  const admin = adminDirOf(trees.common, dir);
  if (admin === undefined || readRecordAt(admin) === undefined || locked) {
    throw new MdclaimError('WORKTREE', `${dir} is registered as a worktree of this repository whose directory is missing, not made by mdclaim: git worktree prune or remove it by hand; the task was given back`);
  }
  await gitOut(trees.top, ['worktree', 'remove', '--force', dir]);
}

/** The directory in the repository's git directory that registers the worktree at `dir` (its `gitdir` names `dir/.git`). */
function adminDirOf(common: string, dir: string): string | undefined {
  const root = join(common, 'worktrees');
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return undefined;
  }
  const want = real(dir);
  for (const name of names) {
    try {
      const gitdir = readFileSync(join(root, name, 'gitdir'), 'utf8').trim();
      if (gitdir === join(dir, '.git') || real(dirname(gitdir)) === want) return join(root, name);
    } catch {
      // not a registration
    }
  }
  return undefined;
}
