import type { RunEvent } from './events.js';
import type { TaskBoard } from '../board/types.js';

/** A holder write names the claim it applies to: who made it, and the claim time last written. */
export interface Fence {
  by: string;
  claimedAt?: string;
}

/**
 * The board as the runner uses it: the part of TaskBoard it calls, so the
 * same loop runs on the markdown file and on a database, and every board
 * `openBoard` returns is one. Nothing in it is optional: a run with
 * `retries` retries, one with `worktree` locks its worktree's path, and the
 * wait between polls is the board's own `waitForWork`.
 */
export type RunnerBoard = Pick<TaskBoard, 'location' | 'handOff' | 'list' | 'next' | 'heartbeat' | 'done' | 'fail' | 'release' | 'retry' | 'lockPaths' | 'paths' | 'waitForWork'>;

/** What stopped a runner: a signal, or `SIGPIPE` for a stdout whose reader left (the status a shell shows for it). */
export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP' | 'SIGPIPE';

export interface RunOptions {
  /** The command and its arguments; it runs once per task, in its own process group. */
  command: readonly string[];
  /** Who claims (default: an id made up for this runner, `run-` and 8 hex digits). */
  by?: string;
  /** The lease each claim is taken with, at least `2s` (default: the board's, `30m` unless it was opened with another). */
  lease?: string | number;
  /** Only tasks with every one of these tags. */
  tags?: readonly string[];
  /** Only tasks under this heading or ADW worktree. */
  section?: string;
  /** Keep claiming when nothing is claimable, polling every `interval` (default false: one pass). */
  loop?: boolean;
  /** How long to wait between polls when nothing is claimable (default `5s`, jittered by ±20%). */
  interval?: string | number;
  /** Keep up to this many tasks running at once (default 1). */
  concurrency?: number;
  /** Stop claiming after this many tasks (default: no limit). */
  max?: number;
  /** Stop once no task matching the filters could still become claimable (implies `loop`). */
  untilSettled?: boolean;
  /** How long a command, and whatever it left in its group, may take to exit after SIGTERM/SIGINT before SIGKILL (default `10s`). */
  grace?: string | number;
  /**
   * Retry a task whose command fails (exits non-zero or is killed) up to this
   * many times: it goes back to open, and no one claims it before a delay of
   * `retryDelay`, doubled for each attempt it has had (plus up to 20% at
   * random). After the last retry it is failed, its reason saying how many
   * attempts it had. A looping runner takes a due retry like any other task
   * (default 0: a failure is final).
   */
  retries?: number;
  /** The first retry's delay; each further one doubles it (default `30s`). */
  retryDelay?: string | number;
  /**
   * The attempts budget for takeovers: a lapsed claim whose task has had this
   * many attempts is parked (failed) instead of taken over (default: no
   * budget; with `retries`, `retries + 1`).
   */
  maxAttempts?: number;
  /** When stopped by a signal, mark running tasks failed instead of releasing them. */
  failOnSignal?: boolean;
  /** On success, record `git rev-parse --short HEAD` of `cwd` as the commit (default true). */
  commit?: boolean;
  /**
   * Run each task in its own git worktree (ADW's layout): a task under
   * `## Git Worktree NAME` in `trees/NAME` on branch NAME, any other in
   * `trees/<id>` on branch `task-<id>`; made under the claim, one task at a
   * time in each, never discarded. See docs/worktrees.md.
   */
  worktree?: boolean | WorktreeOptions;
  /** The command's working directory (default `process.cwd()`); with `worktree`, where the repository is found. */
  cwd?: string;
  /** The environment the task's variables are added to (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Prefix each line of the command's output with `[id] ` (default: when `concurrency` > 1). */
  prefixOutput?: boolean;
  /** Stop as on SIGTERM when this aborts. */
  signal?: AbortSignal;
  /** Stop on this process's SIGINT/SIGTERM/SIGHUP (a second one kills the commands at once). */
  handleSignals?: boolean;
  /** Called with every event, in order (see RunEvent). */
  onEvent?: (event: RunEvent) => void;
}

/** How a task's run ended. */
export interface TaskOutcome {
  id: string;
  /** `retried`: the command failed and the task went back to be tried again after a delay. */
  outcome: 'done' | 'failed' | 'lost' | 'released' | 'retried';
  /** Why it failed, or how the claim was lost. */
  reason?: string;
  commit?: string;
  /** From the claim to the end, in milliseconds. */
  ms: number;
}

export interface RunResult {
  /** The claimant id the runner used. */
  by: string;
  /** Why the run ended: one pass done, `max` tasks claimed, the board settled, a signal, or `SIGPIPE`: stdout's reader left. */
  stoppedBy: 'pass' | 'max' | 'settled' | StopSignal;
  /** Every task the runner claimed, in the order they ended. */
  tasks: TaskOutcome[];
}

export interface WorktreeOptions {
  /** Where the worktrees are made (default `trees` at the top of the repository that holds `cwd`). */
  trees?: string;
  /** What a new worktree's branch starts from (default the repository's `HEAD`). */
  base?: string;
  /** A shell command run once in a worktree when it is made, before the task's command (`npm ci`). */
  setup?: string;
  /** Commit what the command leaves uncommitted when it exits 0, the task's text the message (default false: reported and kept). */
  commit?: boolean;
}
