import { randomHex } from '../builtins.js';
import { claimInstant } from '../format/claim-time.js';
import type { Task } from '../format/task.js';
import { after } from '../storage/deadline.js';
import { refuseCommandOn } from '../platform/windows.js';
import { passesFilter } from '../format/worktree-section.js';
import { stillClaimable } from '../board/claimable.js';
import { stamp, type RunEventBody } from './events.js';
import { Heartbeat } from './heartbeat.js';
import { settle, type Settings } from './options.js';
import { RunningTask } from './task.js';
import type { RunnerBoard, RunOptions, RunResult, StopSignal, TaskOutcome } from './types.js';
import type { PassedOver } from '../board/types.js';
import { Watchdog } from './watchdog.js';
import { inDirectory, inWorktrees, type Workplaces } from './worktree/place.js';

/**
 * The polling trigger as a library function: claim the next task, run the
 * command with it, keep the claim alive, write ✅ or ❌ when the command
 * ends, give the task back when stopped. It uses only what RunnerBoard
 * names of the board, so it runs the same on any storage.
 */
export async function runTasks(board: RunnerBoard, options: RunOptions): Promise<RunResult> {
  refuseCommandOn(process.platform, 'run'); // process groups, /bin/sh and the watchdog's signals are POSIX's
  const s = settle(board, options);
  const by = s.by ?? `run-${randomHex(4)}`;
  const emit = (e: RunEventBody) => options.onEvent?.(stamp(e));
  const loop = new Loop(board, s, by, emit);
  const onSignal = (sig: StopSignal) => loop.stop(sig);
  const onAbort = () => loop.stop('SIGTERM');
  if (options.handleSignals) for (const sig of SIGNALS) process.on(sig, onSignal);
  const unwatch = watchOutput(loop);
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener('abort', onAbort);
  emit({ event: 'start', by });
  try {
    const stoppedBy = await loop.run();
    emit({ event: 'stop', stoppedBy });
    return { by, stoppedBy, tasks: loop.outcomes };
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    if (options.handleSignals) for (const sig of SIGNALS) process.off(sig, onSignal);
    unwatch();
  }
}

// How long past a retry's time a runner keeps looking for it, and how often.
const DUE_GRACE_MS = 2000;
const DUE_STEP_MS = 100;

// A closed terminal (SIGHUP) stops the runner as SIGTERM does: its tasks are given back.
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * The commands' output goes to this process's stdout and stderr. A stdout
 * whose reader left (`run … | head -1`) stops the run as a signal would,
 * giving the tasks back; a closed stderr loses only the output it carried.
 * Either way the failed write is no crash.
 */
function watchOutput(loop: Loop): () => void {
  const onStdout = () => loop.outputClosed();
  const onStderr = () => {};
  process.stdout.on('error', onStdout);
  process.stderr.on('error', onStderr);
  return () => {
    process.stdout.off('error', onStdout);
    process.stderr.off('error', onStderr);
  };
}

class Loop {
  readonly outcomes: TaskOutcome[] = [];
  private readonly running = new Set<RunningTask>();
  private stopping: StopSignal | undefined;
  private fatal: { error: unknown } | undefined;
  private claimed = 0;
  /** The ids of the tasks passed over so far (see passedOver). */
  private readonly told = new Set<string>();
  /** Stops the commands' groups should this process die before it has seen them end. */
  private readonly watchdog: Watchdog;
  /** When retries fall due (ms since the epoch): a runner waits for the first, not for its next poll. */
  private readonly dueAt = new Set<number>();
  /** Nothing running and nothing to claim: said once, as is the end of it. */
  private idle = false;
  /** Where the commands run: `cwd`, or each task's worktree. */
  private readonly places: Workplaces;
  /** Ends the current wait: a task ended, or a signal came. */
  private wake: () => void = () => {};

  constructor(
    private readonly board: RunnerBoard,
    private readonly s: Settings,
    private readonly by: string,
    private readonly emit: (e: RunEventBody) => void,
  ) {
    this.watchdog = new Watchdog(s.graceMs);
    this.places = s.worktree === undefined ? inDirectory(s.cwd, s.commit) : inWorktrees(s.cwd, s.worktree, board.handOff, s.commit);
  }

  /** The reader of stdout left: stop once, as on SIGTERM (every later failed write says the same). */
  outputClosed(): void {
    if (this.stopping === undefined) this.stop('SIGPIPE');
  }

  /** First signal: stop claiming and pass it on to the commands; a second kills them at once. */
  stop(sig: StopSignal): void {
    if (this.stopping === undefined) {
      this.stopping = sig;
      this.emit({ event: 'stopping', signal: sig, running: this.running.size });
      for (const t of this.running) t.stop(sig);
    } else {
      for (const t of this.running) t.kill();
    }
    this.wake();
  }

  async run(): Promise<RunResult['stoppedBy']> {
    let stoppedBy: RunResult['stoppedBy'] = 'pass';
    try {
      stoppedBy = await this.claimWhileAllowed();
    } catch (error) {
      // The board failed us (a missing file, say): claim no more, but see the running tasks through.
      this.fatal ??= { error };
    }
    while (this.running.size > 0) await this.nap(Infinity);
    await this.watchdog.close();
    if (this.fatal) throw this.fatal.error;
    return this.stopping ?? stoppedBy;
  }

  private async claimWhileAllowed(): Promise<RunResult['stoppedBy']> {
    const { s } = this;
    for (;;) {
      if (this.stopping !== undefined || this.fatal) return 'pass';
      if (this.claimed >= s.max) return 'max';
      if (this.running.size >= s.concurrency) {
        await this.nap(Infinity);
        continue;
      }
      const task = await this.next();
      if (task === undefined) continue; // the board was busy: try again after a pause
      if (task) {
        this.claimed++;
        if (this.idle) {
          this.idle = false;
          this.emit({ event: 'awake' });
        }
        if (this.stopping !== undefined) await this.giveBack(task);
        else this.start(task);
        continue;
      }
      if (!s.loop) return 'pass';
      if (s.untilSettled && this.running.size === 0) {
        const tasks = await this.board.list();
        if (this.settled(tasks)) return 'settled';
        for (const t of tasks) if (t.status === 'open' && t.notBefore !== undefined && this.wants(t)) this.due(t.notBefore);
      }
      if (this.running.size === 0 && !this.idle) {
        this.idle = true;
        this.emit({ event: 'idle' });
      }
      await this.nap(this.untilDue(s.intervalMs * (0.8 + 0.4 * Math.random())));
    }
  }

  /** The next claim; undefined when the board's lock was busy and a loop should try again. */
  private async next(): Promise<Task | null | undefined> {
    const { s } = this;
    try {
      const max = s.maxAttempts === undefined ? {} : { maxAttempts: s.maxAttempts };
      const options = { by: this.by, ...(s.lease === undefined ? {} : { lease: s.lease }), ...(s.tags ? { tags: s.tags } : {}), ...(s.section === undefined ? {} : { section: s.section }), ...max, onPassOver: (p: PassedOver) => this.passedOver(p) };
      return await this.places.claim(this.board, options);
    } catch (err) {
      if (!s.loop || (err as { code?: unknown }).code !== 'LOCK_TIMEOUT') throw err;
      await this.nap(s.intervalMs);
      return undefined;
    }
  }

  /** A task the board passed over: said once a run, however often it is passed over again. */
  private passedOver({ task, reason }: PassedOver): void {
    if (this.told.has(task.id)) return;
    this.told.add(task.id);
    this.emit({ event: 'passed over', id: task.id, text: task.text, reason });
  }

  private start(task: Task): void {
    const { board, by, watchdog } = this;
    const emit = (e: RunEventBody) => {
      if (e.event === 'retrying') this.due(e.notBefore);
      this.emit(e);
    };
    const t = new RunningTask({ ...this.s, board, by, stdout: process.stdout, stderr: process.stderr, emit, watchdog, places: this.places }, task);
    this.running.add(t);
    t.outcome.then(
      (o) => this.outcomes.push(o),
      (error: unknown) => (this.fatal ??= { error }),
    ).finally(() => {
      this.running.delete(t);
      this.wake();
    });
  }

  /** A claim that landed after the signal: hand it straight back. */
  private async giveBack(task: Task): Promise<void> {
    const hb = new Heartbeat(this.board, task, this.by, this.s.leaseMs, this.emit);
    if (await hb.write((fence) => this.board.release(task.id, fence))) {
      this.emit({ event: 'released', id: task.id, ms: 0 });
      this.outcomes.push({ id: task.id, outcome: 'released', ms: 0 });
    }
  }

  /** Wake for a retry due at `notBefore` (a time that names no instant is no wake-up). */
  private due(notBefore: string): void {
    const at = claimInstant(notBefore);
    if (at !== null) this.dueAt.add(at);
  }

  /**
   * A poll's wait, cut short to just after the first retry still to fall due.
   * One due a moment ago is looked at again for a while: a board whose clock
   * runs a little behind ours (a database's) may not give it out yet.
   */
  private untilDue(ms: number): number {
    const now = Date.now();
    let first = Infinity;
    for (const at of this.dueAt) {
      if (at < now - DUE_GRACE_MS) this.dueAt.delete(at);
      else first = Math.min(first, at);
    }
    return Number.isFinite(first) ? Math.min(ms, Math.max(first - now, 0) + DUE_STEP_MS) : ms;
  }

  /** Could any task matching the filters still become claimable? */
  private settled(tasks: Task[]): boolean {
    const could = stillClaimable(tasks);
    // With worktrees, a task with no worktree it could run in (passed over) will never run here.
    return !tasks.some((t, i) => could[i] && this.wants(t) && this.places.canRun(t));
  }

  /** Does the task pass the runner's --section and --tag filters? */
  private wants(t: Task): boolean {
    return passesFilter(t.section, t.tags, this.s);
  }

  /** Wait for `ms`, a task's end or a signal, or until the board says work may have appeared. */
  private async nap(ms: number): Promise<void> {
    // Once stopping, only the commands' ends are worth waiting for.
    if (this.stopping !== undefined && (Number.isFinite(ms) || this.running.size === 0)) return;
    const woken = new AbortController();
    const done = new Promise<void>((resolve) => {
      this.wake = () => {
        woken.abort();
        resolve();
      };
    });
    const cancel = Number.isFinite(ms) ? after(ms, this.wake) : undefined;
    if (Number.isFinite(ms)) this.board.waitForWork(woken.signal, ms).then(this.wake, this.wake);
    await done;
    cancel?.();
    this.wake = () => {};
  }
}
