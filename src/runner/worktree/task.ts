import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { MdclaimError } from '../../errors.js';
import type { Task } from '../../format/task.js';
import type { RunEventBody } from '../events.js';
import { git, gitOut, lastLine, retryingLocks } from '../git.js';
import type { Heartbeat } from '../heartbeat.js';
import { enter, placeOf, type Entered, type Trees } from './trees.js';
import { setUpOnce, type SetupControl, type SetupOptions } from './setup.js';

/** What a run in worktrees needs of the task's run. */
export interface WorktreeRun {
  trees: Trees;
  /** Run once in a worktree when it is made (`cp ../../.env . && npm ci`). */
  setup: string | undefined;
  /** Commit what the command left uncommitted, with the task's text as the message, before recording the commit. */
  commitChanges: boolean;
  /** The trees directory excluded in the main checkout: once a run (see ignoreTrees). */
  ignored?: Promise<void>;
}

/**
 * Make or reuse the task's worktree under its claim, renewing the claim while
 * it is made and set up (a setup may take longer than a lease). The setup
 * runs as the task's command does, in a process group the runner's signals,
 * its watchdog and a lost claim stop (see setUpOnce). Resolves with the
 * worktree, or 'lost' when the claim went meanwhile. A worktree that cannot
 * be had throws WORKTREE (the caller gives the task back and stops).
 */
export async function enterWorktree(run: WorktreeRun, task: Task, hb: Heartbeat, env: NodeJS.ProcessEnv, emit: (e: RunEventBody) => void, setup: SetupOptions, ctl: SetupControl): Promise<Entered | 'lost'> {
  // A claim found lost stops the setup: what runs under a claim ends with it.
  void hb.lost.then(() => ctl.stop('SIGTERM'));
  const work = hb.during(async (renew) => {
    await (run.ignored ??= ignoreTrees(run.trees));
    const made = await enter(placeOf(task, run.trees), run.trees);
    if (run.setup !== undefined && !ctl.stopped) await setUpOnce(run.setup, made, { ...env, ...worktreeEnv(made) }, setup, ctl, renew, (pgid) => emit({ event: 'setup waits', id: task.id, path: made.dir, pgid }));
    return made;
  });
  // A setup stopped because the claim was lost fails: the claim's loss is what happened.
  const { value: entered, lost } = await work.catch((err: unknown) => {
    if (hb.lostReason !== undefined) return { value: undefined, lost: true };
    throw err;
  });
  if (entered === undefined) return 'lost';
  emit({ event: 'worktree', id: task.id, path: entered.dir, branch: entered.branch, base: entered.base, created: entered.created, ...(entered.existingBranch ? { existingBranch: true } : {}) });
  return lost ? 'lost' : entered;
}

/** The worktree as the command's environment tells it. */
export function worktreeEnv(w: Entered): NodeJS.ProcessEnv {
  return { MDCLAIM_WORKTREE: w.dir, MDCLAIM_BRANCH: w.branch, MDCLAIM_BASE: w.base };
}

/**
 * What the command left uncommitted in its worktree: kept, always, and told
 * in one line. With `commitChanges` it is committed first (every change,
 * untracked files too), the task's text the message, and only under a claim
 * renewed right before `git add` and again right before `git commit`: once
 * the claim is gone, another holder may be working in the worktree, so
 * nothing is committed and the changes stay where they are, told the same
 * way. A commit git refuses leaves them there too. Resolves false when the
 * claim was found lost.
 */
export async function keepChanges(run: WorktreeRun, w: Entered, task: Task, env: NodeJS.ProcessEnv, emit: (e: RunEventBody) => void, renew: () => Promise<boolean>): Promise<boolean> {
  // Tolerated on purpose: when git cannot say what is uncommitted (a command that broke the worktree's index, say), the command's
  // success still stands and nothing is committed; the worktree keeps what it holds, and prune, asking again, keeps the worktree.
  const changed = await dirtyPaths(w.dir).catch(() => 0);
  if (changed === 0) return true;
  let refused: string | undefined;
  if (run.commitChanges) {
    if (!(await renew())) return lostBeforeCommit(w, task, changed, emit);
    const added = await retryingLocks(() => git(w.dir, ['add', '--all']));
    if (added.code === 0 && !(await renew())) return lostBeforeCommit(w, task, changed, emit);
    // The commit is made with the command's environment: its author is the task's.
    const r = added.code === 0 ? await retryingLocks(() => git(w.dir, ['commit', '--quiet', '--no-verify', '-m', task.text], { env })) : added;
    if (r.code === 0) return true;
    refused = lastLine(r.err || r.out) || `exit ${r.code}`;
  }
  emit({ event: 'uncommitted', id: task.id, path: w.dir, changes: changed, ...(refused === undefined ? {} : { refused }) });
  return true;
}

function lostBeforeCommit(w: Entered, task: Task, changes: number, emit: (e: RunEventBody) => void): false {
  emit({ event: 'uncommitted', id: task.id, path: w.dir, changes, lost: true });
  return false;
}

/** How many paths `git status` shows changed or untracked in `dir`. */
export async function dirtyPaths(dir: string): Promise<number> {
  const out = await gitOut(dir, ['status', '--porcelain', '--untracked-files=all']);
  return out === '' ? 0 : out.split('\n').length;
}

/**
 * The worktrees are no change of the main checkout's: DIR is excluded there
 * (in the repository's info/exclude) unless something already ignores it.
 * An exclude that already names it needs no git at all.
 */
export async function ignoreTrees(trees: Trees): Promise<void> {
  const rel = relative(trees.top, trees.dir).split('\\').join('/');
  if (rel === '' || rel.startsWith('..')) return;
  const exclude = join(trees.common, 'info', 'exclude');
  const line = `/${rel}/`;
  const now = existsSync(exclude) ? readFileSync(exclude, 'utf8') : '';
  if (now.split('\n').includes(line)) return;
  // Status 0: ignored already (a .gitignore); 1: not ignored; anything else is git failing, said as such.
  const checked = await git(trees.top, ['check-ignore', '-q', `${rel}/`]);
  if (checked.code === 0) return;
  if (checked.code !== 1) throw new MdclaimError('WORKTREE', `git check-ignore failed in ${trees.top}: ${lastLine(checked.err) || `exit ${checked.code}`}`);
  mkdirSync(dirname(exclude), { recursive: true });
  appendFileSync(exclude, `${now === '' || now.endsWith('\n') ? '' : '\n'}${line}\n`);
}
