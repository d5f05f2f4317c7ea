import type { ChildProcess } from 'node:child_process';
import { childProcess } from '../builtins.js';
import { readdirSync, readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { after, sleep } from '../storage/deadline.js';
import { cannotRun } from './program.js';
import type { Watchdog } from './watchdog.js';

export interface GroupExit {
  /** The command's exit status, or null when a signal ended it. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last non-blank line it wrote to stderr ('' when none). */
  lastStderrLine: string;
}

export interface GroupOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Put this before every line of output (several commands share one terminal); null passes output through as is. */
  prefix: string | null;
  /** How long stragglers left in the group get between SIGTERM and SIGKILL once the command itself has exited. */
  graceMs: number;
  stdout: Writable;
  stderr: Writable;
  /** Holds the group while it runs, to stop it should the runner die. */
  watchdog: Watchdog;
  /** With no prefix: the command's stdout goes to the runner's stderr (a setup's output is progress, not a result). */
  stdoutToStderr?: boolean;
}

const TAIL = 4096;
/** How long after SIGKILL a member still listed is waited for. */
const KILLED_WAIT_MS = 5000;

/**
 * What the process that becomes the command does first: wait for the
 * runner's word on fd 3 that the watchdog holds its group, then become the
 * command, fd 3 closed. So no command runs unwatched, even for the moment
 * after its start; a runner that dies before the word leaves nothing to run.
 */
export const GATE = 'IFS= read -r go <&3 && exec "$@" 3<&-';

/**
 * One command in its own process group (a new session: `detached`), so a
 * signal sent to the group reaches everything it started, `sh -c` pipelines
 * included. stdin is /dev/null; stderr always passes through the runner,
 * which keeps its last line for a failure's reason. The command is the
 * runner's own child (its exit status and signal come straight from the
 * kernel); the watchdog stops its group if the runner dies first.
 */
export class ProcessGroup {
  readonly exited: Promise<GroupExit>;
  private cancelKill: (() => void) | undefined;
  /** Set once the group is empty: its id may be reused, so it is signalled no more. */
  private ended = false;
  private tail = '';
  private killSent = false;

  private constructor(private readonly child: ChildProcess, private readonly opts: GroupOptions) {
    this.exited = new Promise((resolve) => {
      let leader: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      let closed = false;
      let empty = false;
      const finish = () => {
        if (!closed || !empty) return;
        opts.watchdog.disarm(this.pid);
        resolve({ ...leader!, lastStderrLine: lastLine(this.tail) });
      };
      child.on('exit', (code, signal) => {
        leader = { code, signal };
        void this.untilEmpty().then(() => {
          empty = true;
          if (closed) return finish();
          // Someone outside the group still holds the pipes: stop reading them.
          setTimeout(() => {
            child.stdout?.destroy();
            child.stderr?.destroy();
          }, 200).unref();
        });
      });
      child.on('close', () => {
        closed = true;
        finish();
      });
    });
  }

  /**
   * Start the command, held at its gate until go(); rejects when it cannot
   * be started at all (no such program, not executable).
   */
  static async start(argv: readonly string[], opts: GroupOptions): Promise<ProcessGroup> {
    const why = cannotRun(argv[0]!, opts.env, opts.cwd);
    if (why !== undefined) throw new Error(why);
    const child = childProcess().spawn('/bin/sh', ['-c', GATE, 'mdclaim-run', ...argv], {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      stdio: ['ignore', opts.prefix !== null ? 'pipe' : opts.stdoutToStderr ? 2 : 'inherit', 'pipe', 'pipe'],
    });
    // Listen before anything can end it, so no exit goes unseen.
    const group = new ProcessGroup(child, opts);
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      child.once('spawn', () => {
        child.off('error', reject);
        resolve();
      });
    });
    group.passThrough();
    try {
      await opts.watchdog.arm(child.pid!);
    } catch (err) {
      group.signal('SIGKILL');
      throw err;
    }
    return group;
  }

  /** Let the command run: the gate becomes it. */
  go(): void {
    const go = this.child.stdio[3] as Writable;
    go.on('error', () => {}); // the gate was killed before the word: its exit says so
    go.write('go\n', () => go.destroy());
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Send a signal to every process in the group (none once it is empty: its id may be someone else's). */
  signal(sig: NodeJS.Signals): void {
    if (this.ended) return;
    try {
      process.kill(-this.pid, sig);
    } catch {
      // the group is gone
    }
  }

  /** Send `sig` now and SIGKILL after `graceMs` unless the group has ended; resolves when it has. */
  stop(sig: NodeJS.Signals, graceMs: number): Promise<GroupExit> {
    this.signal(sig);
    this.cancelKill ??= after(graceMs, () => void this.kill());
    return this.exited;
  }

  kill(): Promise<GroupExit> {
    this.signal('SIGKILL');
    this.killSent = true;
    return this.exited;
  }

  /**
   * Once the command has exited: stop what it left in its group (SIGTERM,
   * SIGKILL after the grace) and resolve when no member is left. The group,
   * not the pipes, says when the task's work has ended: a straggler that
   * redirected its output closes them long before it is gone.
   */
  private async untilEmpty(): Promise<void> {
    // Nothing of a finished task keeps running.
    if (groupHasLiveMembers(this.pid)) void this.stop('SIGTERM', this.opts.graceMs);
    let killedAt: number | undefined;
    while (groupHasLiveMembers(this.pid)) {
      // A member SIGKILL cannot end within seconds is not running (a zombie where /proc cannot tell): give up on it.
      if (killedAt !== undefined && Date.now() - killedAt > KILLED_WAIT_MS) break;
      await sleep(50);
      if (killedAt === undefined && this.killSent) killedAt = Date.now();
    }
    this.ended = true;
    this.cancelKill?.();
  }

  private passThrough(): void {
    const { prefix, stdout, stderr } = this.opts;
    const keep = (chunk: Buffer | string) => {
      this.tail = (this.tail + String(chunk)).slice(-TAIL);
    };
    if (prefix === null) {
      this.child.stderr!.on('data', (chunk: Buffer) => {
        keep(chunk);
        stderr.write(chunk);
      });
      return;
    }
    prefixLines(this.child.stdout!, stdout, prefix);
    this.child.stderr!.on('data', keep);
    prefixLines(this.child.stderr!, stderr, prefix);
  }
}

/** Copy `from` to `to` a whole line at a time, each line prefixed; a last line without a newline is flushed at the end. */
function prefixLines(from: Readable, to: Writable, prefix: string): void {
  let partial = '';
  from.setEncoding('utf8');
  from.on('data', (chunk: string) => {
    const text = partial + chunk;
    const cut = text.lastIndexOf('\n') + 1;
    partial = text.slice(cut);
    if (cut > 0) to.write(text.slice(0, cut - 1).split('\n').map((l) => prefix + l + '\n').join(''));
  });
  from.on('end', () => {
    if (partial !== '') to.write(prefix + partial + '\n');
  });
}

/** The last non-blank line of a tail of output, kept short enough for a task's line. */
export function lastLine(tail: string): string {
  const lines = tail.split(/\r?\n|\r/).map((l) => l.trim()).filter((l) => l !== '');
  const last = lines.at(-1) ?? '';
  return last.length > 200 ? last.slice(0, 199) + '…' : last;
}

/**
 * Is a process of the group still running? A zombie does not count: where no
 * one reaps orphans (PID 1 in many containers), a dead member stays in its
 * group as a zombie, and signalling the group would still succeed. Linux
 * reads /proc; elsewhere `kill(-pgid, 0)` has to do.
 */
export function groupHasLiveMembers(pgid: number): boolean {
  if (process.platform !== 'linux') return signalOk(pgid);
  let pids: string[];
  try {
    pids = readdirSync('/proc');
  } catch {
    return signalOk(pgid);
  }
  for (const pid of pids) {
    if (pid.charCodeAt(0) > 0x39) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}

function signalOk(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
