import type { ChildProcess } from 'node:child_process';
import { childProcess } from '../builtins.js';
import { atDeadline } from './deadline.js';
import { endWithUs, type QueueResult } from './flock-queue.js';

/**
 * The helper's whole program. It inherits our directory descriptor as fd 3,
 * says `r` once it is running, and then for each `x` (exclusive) or `s`
 * (shared) read on stdin blocks in flock(2) on that descriptor and answers
 * `k` once the lock is taken. The lock belongs to the open file description,
 * which this process shares, so it is ours. 1 and 2 are LOCK_SH and LOCK_EX.
 * Perl, not a second Node: perl-base starts in a few milliseconds (Node in
 * ~40 ms of CPU), and flock is a builtin of the language.
 */
const PROGRAM =
  'open(my $d, "<&=", 3) or exit 1; syswrite(STDOUT, "r") == 1 or exit 1; ' +
  'while (sysread(STDIN, my $c, 1) == 1) { flock($d, $c eq "s" ? 1 : 2) or exit 2; syswrite(STDOUT, "k") == 1 or exit 3 }';

/** False once perl proved missing or unable to run the helper: nobody tries to start one again. */
let available = true;

/**
 * One long-lived process that waits in the kernel's flock queue for us, on
 * one directory descriptor, as often as asked: a wait costs a pipe round
 * trip (tens of µs) where starting flock(1) for each one costs a fork and an
 * exec (1-3 ms, and the CPU the holder needed). Started on this process's
 * first contended wait on the directory, ready a few ms later; until then,
 * and wherever perl is missing, waits go through flock(1).
 *
 * Nothing here keeps the process alive or from exiting: the child and its
 * pipes are unref'd, it is SIGKILLed on exit, and if we are SIGKILLed it sees
 * the end of its stdin, or takes the lock, fails to answer, and exits, which
 * lets go. At a wait's deadline it is killed (a fatal signal is the one thing
 * that ends a blocking flock) and the lock it may have taken in its last
 * instant is dropped by `unlock` once it has gone; the next wait starts a new one.
 */
export class QueueHelper {
  private child: ChildProcess | null = null;
  private ready = false;
  private reply: ((c: string) => void) | null = null;
  private onGone: (() => void) | null = null;
  /** Helpers that went without being asked to (killed from outside, or flock failed): after a few, this directory waits without one. */
  private lost = 0;
  private killing = false;
  private startedAt = 0;

  constructor(private readonly fd: number, private readonly unlock: () => void) {}

  /** Is a helper running and waiting for work? */
  get isReady(): boolean {
    return this.ready;
  }

  /** Started, not yet ready (for long: a helper that does not say ready within a second is not waited for). */
  get isStarting(): boolean {
    return this.child !== null && !this.ready && Date.now() - this.startedAt < 1000;
  }

  /** Start one in the background, if none is running and perl can. */
  start(): void {
    if (this.child || !available || this.lost >= 3) return;
    let child: ChildProcess;
    try {
      // Its own process group: a Ctrl-C meant for this process's group does not end the helper under a wait (it ends with us, as above).
      child = childProcess().spawn('perl', ['-e', PROGRAM], { stdio: ['pipe', 'pipe', 'ignore', this.fd], detached: true });
    } catch {
      available = false;
      return;
    }
    this.child = child;
    this.startedAt = Date.now();
    const forget = endWithUs(child);
    child.unref();
    const stdin = child.stdin as unknown as { unref?: () => void; on: (e: string, f: () => void) => void };
    const stdout = child.stdout as unknown as { unref?: () => void; on: (e: string, f: (d: Buffer) => void) => void };
    stdin.unref?.();
    stdout.unref?.();
    stdin.on('error', () => {}); // EPIPE once it has gone: 'exit' says so
    stdout.on('data', (d: Buffer) => {
      // Read after its exit, a helper's last answer is not the current one's: its wait was settled when it went.
      if (this.child !== child) return;
      for (const c of d.toString('latin1')) {
        if (c === 'r') this.ready = true;
        else this.reply?.(c);
      }
    });
    child.once('error', (err) => {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') available = false;
    });
    child.once('exit', (code) => {
      // Exit 1 before saying ready: this perl cannot run the helper; do not try again.
      if (!this.ready && code === 1) available = false;
      if (!this.killing) this.lost++;
      this.killing = false;
      forget();
      if (this.child === child) (this.child = null), (this.ready = false);
      const gone = this.onGone;
      this.onGone = null;
      gone?.();
    });
  }

  /** Wait in the kernel's queue for the lock, until `deadline` (ms since the epoch). Only when ready, one wait at a time. */
  wait(exclusive: boolean, deadline: number): Promise<QueueResult> {
    const child = this.child!;
    return new Promise((resolve) => {
      let cancel = () => {};
      let settled = false;
      const done = (result: QueueResult) => {
        if (settled) return;
        settled = true;
        cancel();
        this.reply = null;
        this.onGone = null;
        resolve(result);
      };
      // Killed at the deadline, or gone on its own: it may hold the lock it was asked for; drop it once it cannot take it any more.
      const gone = (result: QueueResult) => () => {
        this.unlock();
        done(result);
      };
      this.onGone = gone('unavailable');
      this.reply = (c) => c === 'k' && done('held');
      // This timer keeps the process alive while it waits: the child and its pipes hold nothing up.
      cancel = atDeadline(deadline, () => {
        this.onGone = gone('timeout');
        this.reply = null;
        this.ready = false;
        child.ref(); // keep the process alive until it is reaped and the wait settles
        this.killing = true;
        child.kill('SIGKILL');
      });
      child.stdin!.write(exclusive ? 'x' : 's');
    });
  }

  /** Stop it (the directory lock is being closed). */
  stop(): void {
    if (!this.child) return;
    this.killing = true;
    this.child.kill('SIGKILL');
  }
}
