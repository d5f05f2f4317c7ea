import type { Task } from '../../format/task.js';
import { git, lastLine } from '../git.js';
import { listTrees, type WorktreeInfo } from './list.js';
import { lockOf, PRUNING, type Trees } from './trees.js';

/** What prune needs of a board: its tasks, and the paths live claims hold. */
export interface PruneBoard {
  list(): Promise<Task[]>;
  paths(): Promise<readonly { path: string }[]>;
}

/** A worktree removed: its branch deleted with it (`branch`), or left where it is (`branchKept`, with why). */
export interface Removed {
  name: string;
  path: string;
  branch?: string;
  /** The commit the deleted branch was at, so a person can bring it back (`git branch NAME <at>`, until git gc). */
  at?: string;
  branchKept?: { branch: string; reason: string };
}

export interface PruneResult {
  /** Removed, with their branches (or, with dryRun, what would be). */
  removed: Removed[];
  /** Kept, each with why. */
  kept: { name: string; path: string; reason: string }[];
}

/**
 * Remove the worktrees (and the branches mdclaim made for them) whose work
 * is over and safe without them: made by mdclaim for this board, every task
 * of it settled (none claimed, none that could still become claimable),
 * nothing uncommitted (skip-worktree edits too), and its branch's work in its
 * base branch. Everything else is kept, with the reason. Before it removes
 * one it locks it in git (a runner waits for such a lock) and asks the board
 * again, so a claim taken meanwhile keeps it.
 */
export async function pruneTrees(board: PruneBoard, trees: Trees, options: { dryRun?: boolean } = {}): Promise<PruneResult> {
  const result: PruneResult = { removed: [], kept: [] };
  const held = new Set((await board.paths()).map((h) => h.path));
  for (const info of await listTrees(trees, await board.list())) {
    const reason = keptFor(info, held.has(lockOf(info.name, trees)));
    let outcome: { removed: Removed } | { kept: string };
    if (reason !== undefined) outcome = { kept: reason };
    else if (options.dryRun) outcome = { removed: removal(info, false) };
    else outcome = await removeTree(board, trees, info, keptFor, false);
    if ('kept' in outcome) result.kept.push({ name: info.name, path: info.path, reason: outcome.kept });
    else result.removed.push(outcome.removed);
  }
  return result;
}

/** Why no one may remove this worktree now, prune or a person: not this board's, locked, claimed, or holding uncommitted work. */
export function heldBack(info: WorktreeInfo, held: boolean): { code: 'WORKTREE' | 'CONFLICT'; reason: string } | undefined {
  if (!info.ours) return { code: 'WORKTREE', reason: `not made by mdclaim for this board (${info.board === undefined ? 'no record of mdclaim in it' : `made for ${info.board}`})` };
  if (info.locked !== undefined) return { code: 'CONFLICT', reason: `locked in git${info.locked === '' ? '' : ` (${info.locked})`}` };
  if (held || info.tasks.running.length > 0) {
    const r = info.tasks.running[0];
    return { code: 'CONFLICT', reason: r === undefined ? 'a claim holds it' : `task ${r.id} is claimed${r.by === undefined ? '' : ` by ${r.by}`}` };
  }
  if (info.changes < 0) return { code: 'WORKTREE', reason: 'git cannot tell what in it is uncommitted' };
  if (info.changes > 0) return { code: 'WORKTREE', reason: plural(info.changes, 'uncommitted or untracked change') };
  return undefined;
}

/** Why prune must keep a worktree, or undefined when it may remove it. */
export function keptFor(info: WorktreeInfo, held: boolean): string | undefined {
  const back = heldBack(info, held);
  if (back !== undefined) return back.reason;
  const next = info.tasks.couldRun[0];
  if (next !== undefined) {
    const why = info.tasks.waiting.includes(next) ? 'it is [⏰] behind tasks that are done or could still end done' : 'it is open';
    return `task ${next} could still run here: ${why}${info.tasks.couldRun.length > 1 ? ` (${plural(info.tasks.couldRun.length - 1, 'other task')} too)` : ''}`;
  }
  if (info.branch !== info.madeOn) return `it is on ${info.branch === undefined ? 'a detached HEAD' : `branch ${info.branch}`}, not on branch ${info.madeOn} it was made on`;
  // A branch mdclaim did not make stays, with every commit on it: the worktree alone goes.
  if (info.madeBranch !== true) return undefined;
  if (info.baseBranch === undefined) return 'no base branch to compare it with';
  if (info.cancelsOut && info.onlyHere.length > 0) {
    return `its ${plural(info.onlyHere.length, 'commit')} add up to no change from its base and no other ref has them: a person decides (npx mdclaim worktrees remove ${info.name} --force)`;
  }
  if (!info.merged) return `its changes are not in ${info.baseBranch}${info.ahead ? ` (${plural(info.ahead, 'commit')} ahead of its base)` : ''}`;
  if (!info.deletable) return `${plural(info.onlyHere.length, 'commit')} of it on no other ref`;
  return undefined;
}

/** What removing the worktree does to its branch: deleted only when mdclaim made it and (unless forced) deleting it loses no commit. */
export function removal(info: WorktreeInfo, force: boolean): Removed {
  const base = { name: info.name, path: info.path };
  const branch = info.branch;
  if (branch === undefined) return base;
  if (info.madeBranch !== true || branch !== info.madeOn) return { ...base, branchKept: { branch, reason: 'mdclaim did not make it' } };
  if (!info.deletable && !force) return { ...base, branchKept: { branch, reason: `${plural(info.onlyHere.length, 'commit')} on no other ref` } };
  return { ...base, branch };
}

/**
 * Lock, look again, remove: the worktree, then its branch as `removal`
 * says. `check` is the caller's rule, asked again of what is there now under
 * the lock (a claim taken, a file changed meanwhile keeps it).
 */
export async function removeTree(board: PruneBoard, trees: Trees, info: WorktreeInfo, check: (fresh: WorktreeInfo, held: boolean) => string | undefined, force: boolean): Promise<{ removed: Removed } | { kept: string }> {
  const locked = await git(trees.top, ['worktree', 'lock', '--reason', PRUNING, info.path]);
  if (locked.code !== 0) return { kept: `cannot lock it: ${lastLine(locked.err)}` };
  // Kept after all: our lock goes again, and a lock that cannot go is said (a runner would wait on it).
  const kept = async (reason: string) => {
    const unlocked = await git(trees.top, ['worktree', 'unlock', info.path]);
    return { kept: unlocked.code === 0 ? reason : `${reason}; it stays locked in git (${PRUNING}): ${lastLine(unlocked.err)}` };
  };
  let fresh: WorktreeInfo | undefined;
  try {
    const [tasks, paths] = await Promise.all([board.list(), board.paths()]);
    [fresh] = await listTrees(trees, tasks, info.path);
    const again = fresh === undefined ? 'it is gone' : check({ ...fresh, locked: undefined } as WorktreeInfo, paths.some((p) => p.path === lockOf(info.name, trees)));
    if (again !== undefined || fresh === undefined || fresh.head !== info.head) return await kept(again ?? 'it changed while mdclaim looked');
  } catch (err) {
    // The board or git failed us while it was locked: unlocked again (tried; the error thrown is the one to tell), then thrown.
    await kept('');
    throw err;
  }
  // Locked by us, checked clean: --force twice removes a locked worktree.
  const removed = await git(trees.top, ['worktree', 'remove', '--force', '--force', info.path]);
  if (removed.code !== 0) return kept(`git worktree remove failed: ${lastLine(removed.err)}`);
  const outcome = removal(fresh, force);
  if (outcome.branch === undefined) return { removed: outcome };
  // Deleted only while it points where it was judged: a branch moved meanwhile stays.
  const deleted = await git(trees.top, ['update-ref', '-d', `refs/heads/${outcome.branch}`, fresh.head]);
  if (deleted.code !== 0) return { removed: { name: info.name, path: info.path, branchKept: { branch: outcome.branch, reason: `it moved: ${lastLine(deleted.err)}` } } };
  // Tolerated on purpose: the branch is gone, and its config (mdclaim's base, git's upstream) may be gone already; what is left of it harms nothing.
  await git(trees.top, ['config', '--remove-section', `branch.${outcome.branch}`]);
  // A branch whose commits go with it (forced): where it was, to bring it back.
  return { removed: fresh.deletable ? outcome : { ...outcome, at: fresh.head } };
}

export function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}
