import type { Task } from '../format/task.js';
import { git, lastLine } from './git.js';
import { listTrees, type WorktreeInfo } from './worktree-list.js';
import { dirtyPaths } from './worktree-task.js';
import { lockOf, PRUNING, type Trees } from './worktree.js';

/** What prune needs of a board: its tasks, and the paths live claims hold. */
export interface PruneBoard {
  list(): Promise<Task[]>;
  paths(): Promise<readonly { path: string }[]>;
}

export interface PruneResult {
  /** Removed, with their branches (or, with dryRun, what would be). */
  removed: { name: string; path: string; branch?: string }[];
  /** Kept, each with why. */
  kept: { name: string; path: string; reason: string }[];
}

/**
 * Remove the worktrees (and their branches) whose work is over and already
 * in their base branch: every task settled (none claimed, open or waiting),
 * nothing uncommitted or untracked, and merging the branch into the base
 * would change nothing. Everything else is kept, with the reason. Before it
 * removes one it locks it in git (a runner waits for such a lock) and asks
 * the board again, so a claim taken meanwhile keeps it.
 */
export async function pruneTrees(board: PruneBoard, trees: Trees, options: { dryRun?: boolean } = {}): Promise<PruneResult> {
  const result: PruneResult = { removed: [], kept: [] };
  const held = new Set((await board.paths()).map((h) => h.path));
  for (const info of await listTrees(trees, await board.list())) {
    const reason = keptFor(info, held.has(lockOf(info.name, trees)));
    if (reason !== undefined) {
      result.kept.push({ name: info.name, path: info.path, reason });
      continue;
    }
    const why = options.dryRun ? undefined : await remove(board, trees, info);
    if (why === undefined) result.removed.push({ name: info.name, path: info.path, ...(info.branch === undefined ? {} : { branch: info.branch }) });
    else result.kept.push({ name: info.name, path: info.path, reason: why });
  }
  return result;
}

/** Why a worktree must stay, or undefined when prune may remove it. */
export function keptFor(info: WorktreeInfo, held: boolean): string | undefined {
  const { tasks } = info;
  if (info.locked !== undefined) return `locked in git${info.locked === '' ? '' : ` (${info.locked})`}`;
  if (held || tasks.running.length > 0) {
    const r = tasks.running[0];
    return r === undefined ? 'a claim holds it' : `task ${r.id} is claimed${r.by === undefined ? '' : ` by ${r.by}`}`;
  }
  const unsettled = [...tasks.open, ...tasks.waiting];
  if (unsettled.length > 0) return `${plural(unsettled.length, 'task')} not settled (${unsettled.join(', ')})`;
  if (info.changes > 0) return `${plural(info.changes, 'uncommitted or untracked change')}`;
  if (info.baseBranch === undefined) return 'no base branch to compare it with';
  if (!info.merged) return `its changes are not in ${info.baseBranch}${info.ahead ? ` (${plural(info.ahead, 'commit')} ahead of its base)` : ''}`;
  return undefined;
}

/** Lock, look again, remove: undefined when removed, else why it was kept after all. */
async function remove(board: PruneBoard, trees: Trees, info: WorktreeInfo): Promise<string | undefined> {
  const locked = await git(trees.top, ['worktree', 'lock', '--reason', PRUNING, info.path]);
  if (locked.code !== 0) return `cannot lock it: ${lastLine(locked.err)}`;
  const unlock = () => git(trees.top, ['worktree', 'unlock', info.path]);
  const [tasks, paths] = await Promise.all([board.list(), board.paths()]);
  const fresh = (await listTrees(trees, tasks)).find((w) => w.path === info.path);
  const again = fresh === undefined ? 'it is gone' : keptFor({ ...fresh, locked: undefined } as WorktreeInfo, paths.some((p) => p.path === lockOf(info.name, trees)));
  if (again !== undefined || (await dirtyPaths(info.path)) > 0) {
    await unlock();
    return again ?? 'it changed while prune looked';
  }
  // Locked by us, checked clean: --force twice removes a locked worktree.
  const removed = await git(trees.top, ['worktree', 'remove', '--force', '--force', info.path]);
  if (removed.code !== 0) {
    await unlock();
    return `git worktree remove failed: ${lastLine(removed.err)}`;
  }
  if (info.branch !== undefined) await git(trees.top, ['branch', '-D', info.branch]);
  return undefined;
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}
