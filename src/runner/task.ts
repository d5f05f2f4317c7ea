import type { Writable } from 'node:stream';
import { MdclaimError } from '../errors.js';
import type { Task } from '../format/task.js';
import { taskEnv } from './env.js';
import type { RunEventBody } from './events.js';
import { ProcessGroup, type GroupExit } from './group.js';
import { Heartbeat } from './heartbeat.js';
import { formatClaimedAt } from '../format/marker.js';
import type { Fence, RunnerBoard, StopSignal, TaskOutcome } from './types.js';
import { named } from '../format/named.js';
import type { Watchdog } from './watchdog.js';
import { finalReason, mayRetry, retryDelayMs } from './retry.js';
import type { Workplace, Workplaces } from './worktree/place.js';
import { SetupControl } from './worktree/setup.js';

/** What every task of one run shares. */
export interface TaskContext {
  board: RunnerBoard;
  by: string;
  leaseMs: number | undefined;
  graceMs: number;
  command: readonly string[];
  env: NodeJS.ProcessEnv;
  file: string | undefined;
  prefixOutput: boolean;
  failOnSignal: boolean;
  retries: number;
  retryDelayMs: number;
  stdout: Writable;
  stderr: Writable;
  emit: (e: RunEventBody) => void;
  watchdog: Watchdog;
  /** Where the command runs (the run's `cwd`, or the task's worktree), and the commit recorded when it ends well. */
  places: Workplaces;
}

/**
 * One claimed task: its command runs while a heartbeat keeps the claim; the
 * end is written with the claim's fence, or not at all once the claim is lost.
 */
export class RunningTask {
  readonly outcome: Promise<TaskOutcome>;
  private stopSignal: StopSignal | undefined;
  private killed = false;
  private group: ProcessGroup | undefined;
  private readonly startedAt = Date.now();
  /** Where the command runs, once entered. */
  private place: Workplace | undefined;
  /** Its worktree's setup, while one runs. */
  private readonly setup: SetupControl;

  constructor(private readonly ctx: TaskContext, private readonly task: Task) {
    this.setup = new SetupControl(ctx.graceMs);
    this.outcome = this.run();
  }

  get id(): string {
    return this.task.id;
  }

  /** The runner was signalled: pass the signal on to the command's group, SIGKILL after the grace. */
  stop(sig: StopSignal): void {
    this.stopSignal ??= sig;
    this.setup.stop(passedOn(sig));
    void this.group?.stop(passedOn(sig), this.ctx.graceMs);
  }

  /** A second signal: kill the command (or its worktree's setup) now (the task is still released). */
  kill(): void {
    this.killed = true;
    this.setup.kill();
    void this.group?.kill();
  }

  private async run(): Promise<TaskOutcome> {
    const { ctx, task } = this;
    let hb: Heartbeat;
    try {
      hb = new Heartbeat(ctx.board, task, ctx.by, ctx.leaseMs, ctx.emit);
    } catch (err) {
      // A board whose lease is too short to keep: give the task back untouched.
      await ctx.board.release(task.id, { by: ctx.by, claimedAt: task.claimedAt! }).catch(() => {});
      throw err;
    }
    ctx.emit({ event: 'claimed', id: task.id, text: task.text, by: ctx.by, claimedAt: task.claimedAt!, expiresAt: formatClaimedAt(hb.expiresAt) });
    const entered = await this.enter(hb);
    if (entered === 'lost') return this.lost(hb.lostReason!);
    if ('outcome' in entered) return entered;
    this.place = entered;
    let group: ProcessGroup;
    try {
      group = await ProcessGroup.start(ctx.command, {
        env: this.env(),
        cwd: entered.dir,
        prefix: ctx.prefixOutput ? `[${task.id}] ` : null,
        graceMs: ctx.graceMs,
        stdout: ctx.stdout,
        stderr: ctx.stderr,
        watchdog: ctx.watchdog,
      });
    } catch (err) {
      // A command that cannot start is the runner's mistake, not the task's: give the task back.
      await hb.write((fence) => ctx.board.release(task.id, fence));
      const why = (err as Error).message;
      throw cannotStart(ctx.command, why, why === 'not an executable file' ? 'command not executable' : 'command not found');
    }
    this.group = group;
    // The command waits at its gate while the claim is renewed: it never starts on a claim that lapsed meanwhile.
    if (!(await hb.confirm())) {
      await group.kill();
      return this.lost(hb.lostReason!);
    }
    hb.start();
    group.go();
    if (this.killed) void group.kill();
    else if (this.stopSignal) void group.stop(passedOn(this.stopSignal), ctx.graceMs);

    const first = await Promise.race([group.exited.then(() => 'exit' as const), hb.lost.then(() => 'lost' as const)]);
    // The command may have finished its task itself: let it end its own way, and report that ending.
    const ended = first === 'lost' ? await this.endedByCommand(hb) : null;
    if (ended !== null) {
      ctx.emit({ event: 'ended', id: task.id, status: ended.status as 'done' | 'failed' });
      await group.exited;
      return this.ownEnding(hb, ended);
    }
    if (first === 'lost') {
      // The task is someone else's now (or no one's): stop the work, write nothing.
      const stopping = group.stop('SIGTERM', ctx.graceMs);
      await hb.stop();
      await stopping;
      return this.lost(hb.lostReason!);
    }
    const exit = await group.exited;
    // Whether the runner had passed a signal on by the time the command ended: one that came after does not undo its result.
    const stoppedBy = this.stopSignal;
    ctx.emit({ event: 'exit', id: task.id, code: exit.code, signal: exit.signal });
    await hb.stop();
    if (hb.lostReason !== undefined) return this.ownEnding(hb);
    return this.finish(hb, exit, stoppedBy);
  }

  /**
   * The task as the command left it, when the command ended it itself
   * (`mdclaim done|fail "$MDCLAIM_TASK_ID"` with our MDCLAIM_BY): done or
   * failed by our `by`, read back before our own claim could have lapsed, so
   * no one else could have claimed it in between: fenced by our claim. Else null.
   */
  private async endedByCommand(hb: Heartbeat): Promise<Task | null> {
    const { board, by } = this.ctx;
    let now: Task | undefined;
    try {
      now = (await board.list()).find((t) => t.id === this.task.id && (t.status === 'done' || t.status === 'failed') && t.by === by);
    } catch {
      return null;
    }
    return now !== undefined && Date.now() < hb.expiresAt ? now : null;
  }

  /** After the heartbeat found the claim gone: the command's own ending of the task, else lost. */
  private async ownEnding(hb: Heartbeat, seen?: Task): Promise<TaskOutcome> {
    const ended = seen ?? (await this.endedByCommand(hb));
    if (ended === null) return this.lost(hb.lostReason!);
    const { id } = this.task;
    if (ended.status === 'done') {
      const commit = ended.commit === undefined ? {} : { commit: ended.commit };
      this.ctx.emit({ event: 'done', id, ...commit, ms: this.ms() });
      return { id, outcome: 'done', ...commit, ms: this.ms() };
    }
    const reason = ended.reason ?? 'failed by the command';
    this.ctx.emit({ event: 'failed', id, reason, ms: this.ms() });
    return { id, outcome: 'failed', reason, ms: this.ms() };
  }

  private async finish(hb: Heartbeat, exit: GroupExit, stoppedBy: StopSignal | undefined): Promise<TaskOutcome> {
    const { ctx, task } = this;
    const { board } = ctx;
    if (stoppedBy !== undefined) {
      if (ctx.failOnSignal) return this.failed(hb, `stopped by ${stoppedBy}`);
      if (!(await hb.write((fence) => board.release(task.id, fence)))) return this.ownEnding(hb);
      ctx.emit({ event: 'released', id: task.id, ms: this.ms() });
      return { id: task.id, outcome: 'released', ms: this.ms() };
    }
    if (exit.code === 126 || exit.code === 127) return this.unstartable(hb, exit);
    if (exit.code !== 0) return this.failedOrRetried(hb, failureReason(exit));
    const withCommit = await this.place!.finish({ task, hb, env: this.env(), emit: ctx.emit });
    if (withCommit === 'lost') return this.ownEnding(hb);
    if (!(await this.ending(hb, 'done', (fence) => board.done(task.id, { ...fence, ...withCommit })))) return this.ownEnding(hb);
    ctx.emit({ event: 'done', id: task.id, ...withCommit, ms: this.ms() });
    return { id: task.id, outcome: 'done', ...withCommit, ms: this.ms() };
  }

  private async failed(hb: Heartbeat, reason: string): Promise<TaskOutcome> {
    const { board } = this.ctx;
    if (!(await this.ending(hb, 'fail', (fence) => board.fail(this.task.id, { ...fence, reason })))) return this.ownEnding(hb);
    this.ctx.emit({ event: 'failed', id: this.task.id, reason, ms: this.ms() });
    return { id: this.task.id, outcome: 'failed', reason, ms: this.ms() };
  }

  /** A failure with retries left goes back to the board with a growing delay; the last one is final, its reason saying how many attempts there were. */
  private async failedOrRetried(hb: Heartbeat, reason: string): Promise<TaskOutcome> {
    const { board, retries, retryDelayMs: base } = this.ctx;
    const attempts = this.task.attempts ?? 1;
    if (!mayRetry(attempts, retries)) return this.failed(hb, finalReason(reason, attempts, retries));
    const delay = retryDelayMs(base, attempts);
    let back: Task | undefined;
    if (!(await this.ending(hb, 'retry', async (fence) => (back = await board.retry(this.task.id, { ...fence, delay }))))) return this.ownEnding(hb);
    const notBefore = back?.notBefore ?? formatClaimedAt(Date.now() + delay);
    this.ctx.emit({ event: 'retrying', id: this.task.id, reason, attempts, notBefore, ms: this.ms() });
    return { id: this.task.id, outcome: 'retried', reason, ms: this.ms() };
  }

  /** A shell's 126/127 (not executable, not found) is the runner's mistake, not the task's: give it back and stop. */
  private async unstartable(hb: Heartbeat, exit: GroupExit): Promise<TaskOutcome> {
    const { board } = this.ctx;
    if (!(await hb.write((fence) => board.release(this.task.id, fence)))) return this.lost(hb.lostReason!);
    this.ctx.emit({ event: 'released', id: this.task.id, ms: this.ms() });
    throw cannotStart(this.ctx.command, failureReason(exit), exit.code === 126 ? 'command not executable' : 'command not found');
  }

  /**
   * A fenced write that ends the task (done, fail, retry). One the board
   * refuses as a usage error (a reason the board cannot hold, say) cannot
   * pass with time: the task is given back, so no claim is left behind for
   * its lease, and the run stops saying why (as hb.write says false when the
   * claim turned out lost).
   */
  private async ending(hb: Heartbeat, what: string, op: (fence: Fence) => Promise<Task>): Promise<boolean> {
    try {
      return await hb.write(op);
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'USAGE') throw err;
      let back: string;
      try {
        const released = await hb.write((fence) => this.ctx.board.release(this.task.id, fence));
        if (released) this.ctx.emit({ event: 'released', id: this.task.id, ms: this.ms() });
        back = released ? 'the task was given back' : 'the task was no longer ours to give back';
      } catch (again) {
        back = `giving the task back failed too: ${(again as Error).message}`;
      }
      throw new MdclaimError('USAGE', `the board refused to ${what} ${named(this.task)}: ${(err as Error).message}; ${back}`, { cause: err });
    }
  }

  /** The command's environment: the task's variables, and its place's (a worktree's). */
  private env(): NodeJS.ProcessEnv {
    const env = taskEnv(this.ctx.env, this.task, this.ctx.by, this.ctx.file);
    return this.place === undefined ? env : { ...env, ...this.place.env };
  }

  /**
   * Get the task's place ready under the claim (a worktree made or reused);
   * one that cannot be had gives the task back and stops the runner, as a
   * command that cannot start does. Stopped by a signal meanwhile (its
   * setup with it), the task is given back as a stopped command's is.
   */
  private async enter(hb: Heartbeat): Promise<Workplace | 'lost' | TaskOutcome> {
    const { ctx, task } = this;
    const setup = { graceMs: ctx.graceMs, watchdog: ctx.watchdog, prefix: ctx.prefixOutput ? `[${task.id}] ` : null, stderr: ctx.stderr };
    try {
      return await ctx.places.enter({ task, hb, env: this.env(), emit: ctx.emit, setup, ctl: this.setup });
    } catch (err) {
      const released = await hb.write((fence) => ctx.board.release(task.id, fence));
      if (released) ctx.emit({ event: 'released', id: task.id, ms: this.ms() });
      if (this.stopSignal === undefined && !this.killed) throw err;
      return released ? { id: task.id, outcome: 'released', ms: this.ms() } : this.lost(hb.lostReason!);
    }
  }

  private lost(reason: string): TaskOutcome {
    this.ctx.emit({ event: 'lost', id: this.task.id, reason, ms: this.ms() });
    return { id: this.task.id, outcome: 'lost', reason, ms: this.ms() };
  }

  private ms(): number {
    return Date.now() - this.startedAt;
  }
}

/** What the command's group is sent when the runner is stopped: ^C as ^C, anything else (a hangup, a closed stdout) as SIGTERM. */
function passedOn(sig: StopSignal): NodeJS.Signals {
  return sig === 'SIGINT' ? 'SIGINT' : 'SIGTERM';
}

/** The one line a runner stops with when its command cannot start: it names the command and why. */
function cannotStart(command: readonly string[], why: string, what: string): MdclaimError {
  return new MdclaimError('COMMAND', `${what}: ${command.map(quoted).join(' ')} (${why}); the task was given back`);
}

function quoted(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** `exit 1: <last stderr line>`, or `killed by SIGSEGV`, for the task's line. */
export function failureReason(exit: GroupExit): string {
  const how = exit.signal !== null ? `killed by ${exit.signal}` : `exit ${exit.code}`;
  return exit.lastStderrLine === '' ? how : `${how}: ${exit.lastStderrLine}`;
}
