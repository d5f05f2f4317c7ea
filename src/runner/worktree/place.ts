import type { NextOptions } from '../../board/types.js';
import type { Task } from '../../format/task.js';
import type { RunEventBody } from '../events.js';
import { git } from '../git.js';
import type { Heartbeat } from '../heartbeat.js';
import type { RunnerBoard, WorktreeOptions } from '../types.js';
import { nextInWorktree } from './next.js';
import type { SetupControl, SetupOptions } from './setup.js';
import { enterWorktree, keepChanges, worktreeEnv, type WorktreeRun } from './task.js';
import { findTrees, placeProblem } from './trees.js';

/**
 * Where a run's commands run: all in one directory (`inDirectory`), or each
 * task in its own git worktree (`inWorktrees`). The runner asks it three
 * things and never which of the two it is: the next task to claim, whether a
 * task could ever run here, and the task's place, which the command runs in
 * and which says, when the command has ended well, the commit to record.
 */
export interface Workplaces {
  /** Claim the next task that may run here now (with worktrees: one whose worktree no other claim holds, holding it). */
  claim(board: RunnerBoard, options: NextOptions): Promise<Task | null>;
  /** Could the task ever run here (with worktrees: is there a worktree git can make for it)? A settled run asks. */
  canRun(task: Task): boolean;
  /**
   * Get the task's place ready under its claim: 'lost' when the claim went
   * meanwhile. One that cannot be had throws (the caller gives the task back).
   */
  enter(visit: Visit & { setup: SetupOptions; ctl: SetupControl }): Promise<Workplace | 'lost'>;
}

/** A claimed task at its place: the claim's heartbeat, the command's environment, and where its events go. */
export interface Visit {
  task: Task;
  hb: Heartbeat;
  env: NodeJS.ProcessEnv;
  emit: (e: RunEventBody) => void;
}

/** One task's place. */
export interface Workplace {
  /** The command's working directory. */
  readonly dir: string;
  /** What the place adds to the command's environment. */
  readonly env: NodeJS.ProcessEnv;
  /**
   * The command exited 0: keep what it left (in a worktree, committed under
   * the claim when asked), then the commit to record (none when commits are
   * not recorded, or `dir` has none); 'lost' when the claim went first.
   */
  finish(visit: Visit): Promise<{ commit?: string } | 'lost'>;
}

/** Every task's command in `cwd`; with `commit`, `cwd`'s HEAD recorded. */
export function inDirectory(cwd: string, commit: boolean): Workplaces {
  const place: Workplace = { dir: cwd, env: {}, finish: () => recorded(cwd, commit) };
  return {
    claim: (board, options) => board.next(options),
    canRun: () => true,
    enter: async () => place,
  };
}

/**
 * Each task in its worktree (see docs/worktrees.md), found from `cwd` at the
 * first claim; `board` is the board as a worktree's record names it.
 */
export function inWorktrees(cwd: string, options: WorktreeOptions, board: string, commit: boolean): Workplaces {
  let run: WorktreeRun | undefined;
  return {
    async claim(b, next) {
      run ??= { trees: await findTrees(cwd, options.trees, options.base, board), setup: options.setup, commitChanges: options.commit ?? false };
      return nextInWorktree(b, next, run.trees);
    },
    canRun: (task) => placeProblem(task) === undefined,
    async enter({ task, hb, env, emit, setup, ctl }) {
      const w = await enterWorktree(run!, task, hb, env, emit, setup, ctl);
      if (w === 'lost') return 'lost';
      return {
        dir: w.dir,
        env: worktreeEnv(w),
        async finish(visit) {
          // The command's changes are committed under the claim, renewed through git add and commit: a lost claim commits nothing.
          const { lost } = await visit.hb.during((renew) => keepChanges(run!, w, visit.task, visit.env, visit.emit, renew));
          return lost ? 'lost' : recorded(w.dir, commit);
        },
      };
    },
  };
}

/** `{commit}`: `git rev-parse --short HEAD` of `dir`, with `commit`; `{}` without, or where `dir` has no commit. */
async function recorded(dir: string, commit: boolean): Promise<{ commit?: string }> {
  if (!commit) return {};
  const r = await git(dir, ['rev-parse', '--short', 'HEAD']);
  // Tolerated on purpose: a directory in no repository (or one with no commit yet, or no git) has no commit to record, and that fails no task.
  if (r.code !== 0) return {};
  const head = r.out.trim();
  return /^[A-Za-z0-9._/-]{1,64}$/.test(head) ? { commit: head } : {};
}
