import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Task } from '../format/task.js';
import { worktreeOf } from '../format/worktree-section.js';
import { git } from './git.js';
import { dirtyPaths } from './worktree-task.js';
import { listWorktrees, recordedBase, recordedBaseRef, type Trees } from './worktree.js';

/** A worktree's tasks on the board, by where they stand. */
export interface WorktreeTasks {
  running: { id: string; by?: string }[];
  open: string[];
  /** `[⏰]`: waiting for the tasks above them. */
  waiting: string[];
  done: string[];
  failed: string[];
}

/** One worktree under the trees directory, as `mdclaim worktrees` shows it. */
export interface WorktreeInfo {
  name: string;
  path: string;
  /** Absent for a detached HEAD. */
  branch?: string;
  /** The commit its branch was made from, when mdclaim made it. */
  base?: string;
  /** The branch compared with: the one the base was taken from (`main`), else the main checkout's. */
  baseBranch?: string;
  /** Commits on its branch since the base; null when the base is unknown. */
  ahead: number | null;
  /** How many paths are changed or untracked in it. */
  changes: number;
  /** Would merging its branch into the base branch change nothing? (Merged, fast-forwarded, rebased or squash-merged alike.) */
  merged: boolean;
  /** git has it locked (`git worktree lock`), with the reason. */
  locked?: string;
  tasks: WorktreeTasks;
}

/** Which worktree a task runs in: its ADW section's name, else its id (see placeOf). */
export function worktreeNameOf(task: Task): string {
  return (task.section === undefined ? undefined : worktreeOf(task.section)) ?? task.id;
}

/** Every worktree directly under the trees directory, in name order, with its state and its tasks. */
export async function listTrees(trees: Trees, tasks: readonly Task[]): Promise<WorktreeInfo[]> {
  const all = await listWorktrees(trees.top);
  const mainBranch = (await git(trees.top, ['symbolic-ref', '--quiet', '--short', 'HEAD'])).out.trim();
  const mine = all.filter((w) => dirname(w.path) === trees.dir || dirname(w.path) === realDir(trees.dir));
  const infos = await Promise.all(mine.map((w) => describeTree(trees, w, tasks, mainBranch)));
  return infos.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function realDir(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

async function describeTree(trees: Trees, w: Awaited<ReturnType<typeof listWorktrees>>[number], tasks: readonly Task[], mainBranch: string): Promise<WorktreeInfo> {
  const name = w.path.slice(w.path.lastIndexOf('/') + 1);
  const branch = w.branch?.replace(/^refs\/heads\//, '');
  const base = branch === undefined ? undefined : await recordedBase(trees.top, branch);
  const baseBranch = (branch === undefined ? undefined : await recordedBaseRef(trees.top, branch)) ?? (mainBranch === '' ? undefined : mainBranch);
  const ahead = base === undefined ? null : Number((await git(trees.top, ['rev-list', '--count', `${base}..${w.head}`])).out.trim()) || 0;
  const changes = w.prunable ? 0 : await dirtyPaths(w.path).catch(() => 0);
  const merged = baseBranch !== undefined && (await mergesToNothing(trees.top, baseBranch, w.head));
  return {
    name,
    path: w.path,
    ...(branch === undefined ? {} : { branch }),
    ...(base === undefined ? {} : { base }),
    ...(baseBranch === undefined ? {} : { baseBranch }),
    ahead,
    changes,
    merged,
    ...(w.locked === undefined ? {} : { locked: w.locked }),
    tasks: tasksOf(name, tasks),
  };
}

/**
 * Are `head`'s changes already in `base`? Judged by content, never by
 * ancestry alone: merging head into base would leave base's tree as it is.
 * So a squash merge, a rebase or a cherry-pick counts as merged, and an
 * ancestor does too. A merge with conflicts is not merged.
 */
export async function mergesToNothing(top: string, base: string, head: string): Promise<boolean> {
  const baseTree = await git(top, ['rev-parse', '--verify', '--quiet', `${base}^{tree}`]);
  if (baseTree.code !== 0) return false;
  const merged = await git(top, ['merge-tree', '--write-tree', '--no-messages', base, head]);
  return merged.code === 0 && merged.out.split('\n')[0]!.trim() === baseTree.out.trim();
}

function tasksOf(name: string, tasks: readonly Task[]): WorktreeTasks {
  const out: WorktreeTasks = { running: [], open: [], waiting: [], done: [], failed: [] };
  for (const t of tasks) {
    if (worktreeNameOf(t) !== name) continue;
    if (t.status === 'claimed') out.running.push({ id: t.id, ...(t.by === undefined ? {} : { by: t.by }) });
    else if (t.status === 'open') out.open.push(t.id);
    else if (t.status === 'blocked') out.waiting.push(t.id);
    else if (t.status === 'done') out.done.push(t.id);
    else out.failed.push(t.id);
  }
  return out;
}
