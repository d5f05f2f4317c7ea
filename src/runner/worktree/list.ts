import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { stillClaimable } from '../../board/claimable.js';
import type { Task } from '../../format/task.js';
import { worktreeOf } from '../../format/worktree-section.js';
import { git } from '../git.js';
import { branchWork } from './branch.js';
import { uncommittedPaths } from './changes.js';
import { readRecord } from './record.js';
import { listWorktrees, recordedBase, recordedBaseRef, type Listed, type Trees } from './trees.js';

/** A worktree's tasks on the board, by where they stand. */
export interface WorktreeTasks {
  running: { id: string; by?: string }[];
  open: string[];
  /** `[⏰]`: waiting for the tasks above them. */
  waiting: string[];
  done: string[];
  failed: string[];
  /** Not claimed, yet could still become claimable (the rule `run --until-settled` asks): each keeps the worktree. A `[⏰]` behind a `[❌]` never can. */
  couldRun: string[];
}

/** One worktree under the trees directory, as `mdclaim worktrees` shows it. */
export interface WorktreeInfo {
  name: string;
  path: string;
  /** Did mdclaim make it for this board (its record names this board)? Prune and remove touch no other. */
  ours: boolean;
  /** The board its record names, when it has one (this board's, or another's in the same repository). */
  board?: string;
  /** The branch its record names: the one mdclaim made it on. */
  madeOn?: string;
  /** Did mdclaim make its branch (and may delete it), as recorded? */
  madeBranch?: boolean;
  /** Absent for a detached HEAD. */
  branch?: string;
  /** The commit checked out in it. */
  head: string;
  /** The commit its branch was made from, when mdclaim made it. */
  base?: string;
  /** The branch compared with: the one the base was taken from (`main`), else the main checkout's. */
  baseBranch?: string;
  /** Commits on its branch since the base; null when the base is unknown. */
  ahead: number | null;
  /** How many paths are changed or untracked in it, edits to skip-worktree and assume-unchanged files too; -1 when git could not say. */
  changes: number;
  /** Is its work in its base branch: every commit reachable from it, or its change (non-empty) found there (a squash merge, a rebase)? */
  merged: boolean;
  /** Its commits no other ref reaches (`1a2b3c4 subject`): lost if its branch were deleted. */
  onlyHere: string[];
  /** Its commits add up to no change from its base (a commit and its revert). */
  cancelsOut: boolean;
  /** May its branch be deleted without losing a commit (every commit on another ref, or its change found on the base branch)? */
  deletable: boolean;
  /** git has it locked (`git worktree lock`), with the reason. */
  locked?: string;
  tasks: WorktreeTasks;
}

/** Which worktree a task runs in: its ADW section's name, else its id (see placeOf). */
export function worktreeNameOf(task: Task): string {
  return (task.section === undefined ? undefined : worktreeOf(task.section)) ?? task.id;
}

/**
 * Every worktree directly under the trees directory, in name order, with its
 * state and its tasks. The main checkout is never one of them, whatever the
 * trees directory (`--trees ..`). A worktree mdclaim did not make for this
 * board (no record, or another board's) is listed with `ours: false` and none
 * of this board's tasks. `only`: just the worktree at that path.
 */
export async function listTrees(trees: Trees, tasks: readonly Task[], only?: string): Promise<WorktreeInfo[]> {
  const all = await listWorktrees(trees.top);
  // Status 1 is a detached HEAD; that and any failure leave '': no branch of the main checkout's to compare with, never a wrong one.
  const mainBranch = (await git(trees.top, ['symbolic-ref', '--quiet', '--short', 'HEAD'])).out.trim();
  const dirs = [trees.dir, realDir(trees.dir)];
  // git lists the main worktree first.
  const under = all.filter((w, i) => i > 0 && !samePath(w.path, trees.top) && dirs.includes(dirname(w.path)) && (only === undefined || w.path === only));
  const could = stillClaimable(tasks);
  const couldRun = new Set(tasks.filter((t, i) => could[i] && t.status !== 'claimed').map((t) => t.id));
  const infos = await Promise.all(under.map((w) => describeTree(trees, w, tasks, couldRun, mainBranch)));
  return infos.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function realDir(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

function samePath(a: string, b: string): boolean {
  return a === b || realDir(a) === realDir(b);
}

async function describeTree(trees: Trees, w: Listed, tasks: readonly Task[], couldRun: ReadonlySet<string>, mainBranch: string): Promise<WorktreeInfo> {
  const name = w.path.slice(w.path.lastIndexOf('/') + 1);
  const record = w.prunable ? undefined : await readRecord(w.path);
  const ours = record !== undefined && record.board === trees.board;
  const branch = w.branch?.replace(/^refs\/heads\//, '');
  const base = record?.base ?? (branch === undefined ? undefined : await recordedBase(trees.top, branch));
  const baseBranch = record?.baseRef ?? (branch === undefined ? undefined : await recordedBaseRef(trees.top, branch)) ?? (mainBranch === '' ? undefined : mainBranch);
  const work = await branchWork(trees.top, branch ?? '', w.head, base, baseBranch);
  // One that cannot be read is not clean: -1 keeps it.
  const changes = w.prunable ? 0 : await uncommittedPaths(w.path).catch(() => -1);
  return {
    name,
    path: w.path,
    ours,
    ...(record === undefined ? {} : { board: record.board, madeOn: record.branch, madeBranch: record.madeBranch }),
    ...(branch === undefined ? {} : { branch }),
    head: w.head,
    ...(base === undefined ? {} : { base }),
    ...(baseBranch === undefined ? {} : { baseBranch }),
    ahead: work.ahead,
    changes,
    merged: work.merged,
    onlyHere: work.onlyHere,
    cancelsOut: work.cancelsOut,
    deletable: work.deletable,
    ...(w.locked === undefined ? {} : { locked: w.locked }),
    tasks: tasksOf(name, ours ? tasks : [], couldRun),
  };
}

function tasksOf(name: string, tasks: readonly Task[], couldRun: ReadonlySet<string>): WorktreeTasks {
  const out: WorktreeTasks = { running: [], open: [], waiting: [], done: [], failed: [], couldRun: [] };
  for (const t of tasks) {
    if (worktreeNameOf(t) !== name) continue;
    if (couldRun.has(t.id)) out.couldRun.push(t.id);
    if (t.status === 'claimed') out.running.push({ id: t.id, ...(t.by === undefined ? {} : { by: t.by }) });
    else if (t.status === 'open') out.open.push(t.id);
    else if (t.status === 'blocked') out.waiting.push(t.id);
    else if (t.status === 'done') out.done.push(t.id);
    else out.failed.push(t.id);
  }
  return out;
}
