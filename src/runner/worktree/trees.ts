import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { MdclaimError } from '../../errors.js';
import type { Task } from '../../format/task.js';
import { worktreeOf } from '../../format/worktree-section.js';
import { sleep } from '../../storage/deadline.js';
import { acquire, chooseLock } from '../../storage/lock.js';
import { git, gitOut, lastLine, retryingLocks } from '../git.js';
import { treesDir } from './dir.js';
import { boardKeyOf, readRecord, writeRecord } from './record.js';
import { forgetStale } from './stale.js';

/** Where the worktrees of a run live, and what a new one starts from. */
export interface Trees {
  /** The top of the repository the runner works in (its main checkout). */
  top: string;
  /** The repository's common git directory, absolute (`.git` of the main checkout). */
  common: string;
  /** The directory the worktrees are made in, absolute. */
  dir: string;
  /** What a new worktree's branch starts from, as given (`HEAD` by default). */
  base: string;
  /** The board whose tasks run here, as a worktree's record names it (boardKeyOf). */
  board: string;
}

/** One task's worktree: its name under the trees, its directory, its branch and the path a claim holds for it. */
export interface Place {
  name: string;
  dir: string;
  branch: string;
  /** The path locked under the claim while a task runs here: one task at a time per worktree. */
  lock: string;
}

/** A worktree ready for a command: where it is, and the commit its branch started from. */
export interface Entered extends Place {
  base: string;
  created: boolean;
  /** Made now on a branch that was there before (a person's): used as it is, never deleted by mdclaim. */
  existingBranch?: boolean;
}

/** Where a run's worktrees go: `dir` (default `trees` at the top of the repository that holds `cwd`). */
export async function findTrees(cwd: string, dir: string | undefined, base: string | undefined, board: string): Promise<Trees> {
  const r = await git(cwd, ['rev-parse', '--show-toplevel', '--git-common-dir']);
  if (r.code !== 0) throw new MdclaimError('WORKTREE', `${cwd} is in no git repository (${lastLine(r.err)}): --worktree needs one`);
  const [shown, common] = r.out.trim().split('\n') as [string, string];
  const top = realpathSync(shown);
  const trees = { top, common: resolve(cwd, common), dir: resolve(top, dir === undefined ? 'trees' : resolve(cwd, dir)), base: base ?? 'HEAD', board: boardKeyOf(board) };
  treesDir(trees.dir, lockOf('NAME', trees), false);
  return trees;
}

/** A name git takes as a branch and a directory, as ADW's worktree names are. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * Why `name` cannot name a worktree and its branch, or undefined when it can:
 * letters, digits, ".", "_" and "-", and what `git check-ref-format --branch`
 * takes of those (no "..", no ending in "." or ".lock", not HEAD, which git
 * reads as the current commit and so would run the task on no branch).
 */
export function nameProblem(name: string): string | undefined {
  if (!NAME.test(name)) return `"${name}" cannot name a worktree and its branch (letters, digits, ".", "_" and "-")`;
  if (name === 'HEAD' || name.includes('..') || name.endsWith('.') || name.endsWith('.lock')) return `"${name}" cannot name a worktree and its branch (git takes no branch named so)`;
  return undefined;
}

/** The worktree a task runs in: a section's name, else the task's id. */
function nameOf(task: Task): { name: string; section: boolean } {
  const section = task.section === undefined ? undefined : worktreeOf(task.section);
  return { name: section ?? task.id, section: section !== undefined };
}

/** Why the task has no worktree it could run in (its section's name is none git takes), or undefined. */
export function placeProblem(task: Task): string | undefined {
  return nameProblem(nameOf(task).name);
}

/** ADW's layout: a task under `## Git Worktree NAME` runs in DIR/NAME on branch NAME; any other in DIR/<id> on branch `task-<id>`. */
export function placeOf(task: Task, trees: Trees): Place {
  const { name, section } = nameOf(task);
  const problem = nameProblem(name);
  if (problem !== undefined) throw new MdclaimError('WORKTREE', `${problem}: the task was given back`);
  return { name, dir: join(trees.dir, name), branch: section ? name : `task-${name}`, lock: lockOf(name, trees) };
}

/** The path a claim locks for worktree `name`: its path from the repository's top (`trees/api/`), the same on every host that keeps that layout. */
export function lockOf(name: string, trees: Trees): string {
  const within = relative(trees.top, join(trees.dir, name));
  return within === '' || within.startsWith('..') || isAbsolute(within) ? `worktrees/${name}/` : `${within.split(sep).join('/')}/`;
}

/** What git locks a worktree with while `git worktree add` makes it (its HEAD is not yet the branch's). */
const INITIALIZING = 'initializing';

/** The reason `worktrees prune` locks a worktree with while it decides: a runner waits for it to finish. */
export const PRUNING = 'mdclaim prune';

/** A worktree as `git worktree list --porcelain` tells it. */
export interface Listed {
  path: string;
  head: string;
  /** `refs/heads/NAME`, absent for a detached HEAD. */
  branch?: string;
  prunable: boolean;
  /** Locked by `git worktree lock`: its reason, or '' for none. */
  locked?: string;
}

export async function listWorktrees(top: string): Promise<Listed[]> {
  const out = await gitOut(top, ['worktree', 'list', '--porcelain']);
  const listed: Listed[] = [];
  for (const block of out.split(/\n\n+/)) {
    const fields = new Map(block.split('\n').map((l) => [l.split(' ')[0]!, l.includes(' ') ? l.slice(l.indexOf(' ') + 1) : ''] as const));
    const path = fields.get('worktree');
    if (path === undefined) continue;
    listed.push({ path, head: fields.get('HEAD') ?? '', ...(fields.has('branch') ? { branch: fields.get('branch')! } : {}), prunable: fields.has('prunable'), ...(fields.has('locked') ? { locked: fields.get('locked')! } : {}) });
  }
  return listed;
}

/** The same directory, however it is spelt (a symlinked /tmp, say). */
function samePath(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/**
 * The task's worktree, made if missing: its branch from the base, then the
 * worktree on it. Two runners making one worktree at once both end in it;
 * git's own lock files, contended by worktrees made side by side, are waited
 * out. `git worktree add` is judged by what exists afterwards (a hook may fail
 * it after the worktree was made); one that made nothing leaves nothing
 * registered (git undoes it), and a branch made for it and still unused is
 * deleted again, only while it points where it was made and no worktree has
 * it checked out. A path that is something else, or the branch
 * checked out elsewhere, is refused: a person decides, nothing is moved.
 */
export function enter(place: Place, trees: Trees): Promise<Entered> {
  return holdingTrees(trees, () => enterHeld(place, trees));
}

const MAKING_MS = 10 * 60_000;
/** The name the mkdir lock takes in the trees directory (`.mdclaim-trees.lock`); flock locks the directory itself. */
const TREES_LOCK = '.mdclaim-trees';

/**
 * Run `work` holding the lock of the trees directory. Two `git worktree add`
 * of one path at once may both succeed, registering one directory twice: on
 * one host, the runners make worktrees one at a time (each takes well under
 * a second; the commands still run side by side).
 */
async function holdingTrees<T>(trees: Trees, work: () => Promise<T>): Promise<T> {
  const { dir } = trees;
  treesDir(dir, lockOf('NAME', trees), true);
  // The board's own lock (MDCLAIM_LOCK: flock on the directory, or the mkdir lock beside a name of its own), taken as a board's is.
  const lock = chooseLock(undefined).attempt({ dir, file: join(dir, TREES_LOCK) }, true);
  try {
    await acquire(lock, dir, Date.now() + MAKING_MS, MAKING_MS);
  } catch (err) {
    if (err instanceof MdclaimError && err.code === 'LOCK_TIMEOUT') {
      throw new MdclaimError('WORKTREE', `another runner held ${dir} for 10 minutes while making a worktree; the task was given back`);
    }
    throw err;
  }
  try {
    return await work();
  } finally {
    lock.release();
  }
}

async function enterHeld(place: Place, trees: Trees): Promise<Entered> {
  const { commit: baseCommit, named } = await baseOf(trees);
  const ref = `refs/heads/${place.branch}`;
  let failures = 0;
  for (let attempt = 1; ; attempt++) {
    const listed = await listWorktrees(trees.top);
    const here = listed.find((w) => samePath(w.path, place.dir));
    if ((here?.locked === PRUNING || here?.locked === INITIALIZING) && attempt < 600) {
      // A prune is deciding about it (kept, or removed and made anew below), or another git is still making it: wait.
      await sleep(100);
      continue;
    }
    if (here && !here.prunable) {
      if (here.branch !== ref) throw refused(`${place.dir} is a worktree of ${here.branch === undefined ? 'a detached HEAD' : `branch ${short(here.branch)}`}, not of branch ${place.branch}`);
      // The base its record keeps (read without git), else the one kept beside its branch.
      return { ...place, base: (await readRecord(place.dir))?.base ?? (await recordedBase(trees.top, place.branch)) ?? baseCommit, created: false };
    }
    const elsewhere = listed.find((w) => w.branch === ref && !samePath(w.path, place.dir));
    if (elsewhere) throw refused(`branch ${place.branch} is checked out in ${elsewhere.path}`);
    if (here?.prunable) await forgetStale(trees, place.dir, here.locked !== undefined && here.locked !== PRUNING);
    if (existsOrLink(place.dir)) throw refused(`${place.dir} exists and is not the worktree of branch ${place.branch}`);

    const made = await retryingLocks(() => git(trees.top, ['branch', '--no-track', place.branch, baseCommit]));
    // A branch that is there already is a person's, taken up as it is below: that failure is the answer, not an error.
    const madeBranch = made.code === 0;
    const baseRef = named === '' ? baseCommit : named;
    if (madeBranch) await setBase(trees, place.branch, baseCommit, baseRef);
    const added = await retryingLocks(() => git(trees.top, ['worktree', 'add', '--quiet', place.dir, place.branch]));
    // Judged by what exists, not git's status: a post-checkout hook cut short (^C) fails `git worktree add` after the worktree was made.
    if (added.code === 0 || (await madeOn(trees.top, place))) {
      // A branch that was there (a person's `release`) is used as it is, recorded as not mdclaim's, so that nothing of mdclaim's ever deletes it; its base is where it left the base.
      const base = madeBranch ? baseCommit : ((await recordedBase(trees.top, place.branch)) ?? (await forkPoint(trees.top, baseCommit, place.branch)));
      await writeRecord(place.dir, { version: 1, board: trees.board, branch: place.branch, madeBranch, ...(madeBranch ? { base, baseRef } : {}) });
      return { ...place, base, created: true, ...(madeBranch ? {} : { existingBranch: true }) };
    }
    // Not made: undo our branch if no one took it up (never one a worktree has checked out), then look again (a racing runner may have made the worktree).
    if (madeBranch && !(await listWorktrees(trees.top)).some((w) => w.branch === ref)) {
      // Deleted only while it is where it was made; one that moved is someone's now and stays, with its config.
      const undone = await git(trees.top, ['update-ref', '-d', ref, baseCommit]);
      if (undone.code === 0) await gitOut(trees.top, ['config', '--remove-section', `branch.${place.branch}`]);
    }
    if (++failures >= 5) throw new MdclaimError('WORKTREE', `cannot make the worktree ${place.dir}: ${lastLine(added.err)}; the task was given back`);
  }
}

/** Is the place's worktree registered, checked out (git no longer making it) and on its branch? */
async function madeOn(top: string, place: Place): Promise<boolean> {
  const here = (await listWorktrees(top)).find((w) => samePath(w.path, place.dir));
  return here !== undefined && !here.prunable && here.locked !== INITIALIZING && here.branch === `refs/heads/${place.branch}`;
}

/** Where `branch` left `base`'s history (their merge base), else `base`. */
async function forkPoint(top: string, base: string, branch: string): Promise<string> {
  const r = await git(top, ['merge-base', base, `refs/heads/${branch}`]);
  return r.code === 0 && r.out.trim() !== '' ? r.out.trim() : base;
}

function refused(what: string): MdclaimError {
  return new MdclaimError('WORKTREE', `${what}; the task was given back`);
}

function short(ref: string): string {
  return ref.replace(/^refs\/heads\//, '');
}

function existsOrLink(path: string): boolean {
  if (existsSync(path)) return true;
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The base a branch was made from, kept in the repository's config beside the branch (it goes when the branch does). */
export async function recordedBase(top: string, branch: string): Promise<string | undefined> {
  const r = await git(top, ['config', '--get', `branch.${branch}.mdclaimBase`]);
  return r.code === 0 && r.out.trim() !== '' ? r.out.trim() : undefined;
}

/** The branch the base was taken from (`main`), which prune compares with; the commit when it was none. */
export async function recordedBaseRef(top: string, branch: string): Promise<string | undefined> {
  const r = await git(top, ['config', '--get', `branch.${branch}.mdclaimBaseRef`]);
  return r.code === 0 && r.out.trim() !== '' ? r.out.trim() : undefined;
}

async function setBase(trees: Trees, branch: string, commit: string, baseRef: string): Promise<void> {
  await gitOut(trees.top, ['config', `branch.${branch}.mdclaimBase`, commit]);
  await gitOut(trees.top, ['config', `branch.${branch}.mdclaimBaseRef`, baseRef]);
}

/**
 * The commit a new branch starts from, and the branch it is taken from
 * ('' for none: a commit, a tag, a detached HEAD). The default base, HEAD,
 * is read with its branch in one git command.
 */
async function baseOf(trees: Trees): Promise<{ commit: string; named: string }> {
  const noCommit = () => new MdclaimError('WORKTREE', `--base ${trees.base} names no commit in ${trees.top}`);
  if (trees.base !== 'HEAD') {
    const commit = await gitOut(trees.top, ['rev-parse', '--verify', '--quiet', `${trees.base}^{commit}`]).catch(() => {
      throw noCommit();
    });
    return { commit, named: trees.base };
  }
  // A detached HEAD's name reads `HEAD`: no branch.
  const r = await git(trees.top, ['rev-parse', 'HEAD^{commit}', '--abbrev-ref', 'HEAD']);
  const [commit, name] = r.out.trim().split('\n');
  if (r.code !== 0 || commit === undefined || name === undefined) throw noCommit();
  return { commit, named: name === 'HEAD' ? '' : name };
}
