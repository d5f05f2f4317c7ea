import { closeSync, fstatSync, openSync, statSync } from 'node:fs';
import { MdclaimError } from '../errors.js';
import { atDeadline, sleep } from './deadline.js';
import type { FlockFn } from './flock/types.js';
import { queueFlock, type QueueResult } from './flock-queue.js';
import { QueueHelper } from './queue-helper.js';
import { blockFor, canBlock, poolWait, type PoolWait } from './flock/pool-wait.js';

/** How long one block of this thread in flock lasts before the event loop gets a turn (see DirLock.blockBriefly). */
const BLOCK_MS = 20;

/** A wait of this process is blocked on a pool thread (see DirLock.poolWaitFor). */
let poolWaiting = false;

/** How many of this process's directory locks hold their kernel lock: while one does, this thread never blocks in flock. */
let holding = 0;

export type { FlockFn } from './flock/types.js';

/** How long a contended waiter polls before it asks flock(1) to queue for it, while no helper is ready. */
const POLL_FIRST_MS = 2;

/** A directory lock nobody used for this long lets its descriptor (and helper) go. */
const IDLE_MS = 10_000;

/**
 * How this process's contended lock waits went, counted since it started:
 * waits (requests that found the lock taken), brief blocks of this thread
 * in flock (see blockBriefly), kernel waits off the thread (a pool thread,
 * the helper or flock(1): each a second wake-up when it answers), polls
 * (sleeps between tries) and non-blocking tries. Read by the bench; a few
 * integer increments.
 */
export const lockWaits = { waits: 0, kernelWaits: 0, polls: 0, tries: 0, blocks: 0 };

/** Whether a contended wait may block this thread now (see DirLock.blockBriefly). */
function mayBlock(): boolean {
  const how = process.env['MDCLAIM_LOCK_WAIT'];
  return how !== 'helper' && how !== 'pool' && holding === 0 && canBlock();
}

interface Request {
  exclusive: boolean;
  deadline: number;
  resolve: (held: boolean) => void;
  reject: (err: unknown) => void;
  /** Cancels its deadline's timer. */
  cancel: () => void;
}

/**
 * This process's flock(2) on one directory: one descriptor, kept open, and a
 * first-come first-served queue of the operations that want it.
 *
 * Across processes, the kernel excludes: the lock belongs to this
 * descriptor's open file description. Within the process, the queue does:
 * any number of shared holders or one exclusive holder, granted in the order
 * asked (a shared request never passes a waiting exclusive one). The kernel
 * lock is taken when the first holder comes and let go when the last leaves,
 * so other processes get their turn between this one's operations.
 *
 * A contended wait queues in the kernel, where waiters are woken as the lock
 * is let go (polling leaves it idle between a release and the next try, and
 * lets an unlucky waiter lose round after round): on this thread, BLOCK_MS
 * at a time with a turn of the event loop between (Linux, see blockBriefly);
 * else on a pool thread (MDCLAIM_LOCK_WAIT=pool), else through a QueueHelper
 * once one is ready, else flock(1), else by polling. The thread blocks
 * BLOCK_MS at a time at most, at most one pool thread waits per process, and
 * every wait ends at its deadline.
 */
export class DirLock {
  readonly dev: number;
  readonly ino: number;
  private fd: number;
  private holders = 0;
  private exclusiveHeld = false;
  private queue: Request[] = [];
  /** The request at the head of the queue is waiting in the kernel (or polling) for the lock. */
  private waiting = false;
  private helper: QueueHelper;
  private lastUsed = Date.now();
  private idleTimer: NodeJS.Timeout | undefined;
  /** The idle timer is to be armed after this turn (see armIdle). */
  private idleArming = false;
  private closed = false;
  private retired = false;

  constructor(readonly dir: string, private readonly flock: FlockFn, private readonly onClose: (l: DirLock) => void) {
    try {
      this.fd = openSync(dir, 'r');
    } catch (err) {
      throw new MdclaimError('IO', `cannot open ${dir} to lock the board: ${(err as Error).message}`, { cause: err });
    }
    const st = fstatSync(this.fd);
    this.dev = st.dev;
    this.ino = st.ino;
    this.helper = new QueueHelper(this.fd, () => this.unlockKernel());
  }

  /** Does `dir` still name the directory this descriptor is open on? */
  stillNames(): boolean {
    try {
      const st = statSync(this.dir);
      return st.ino === this.ino && st.dev === this.dev;
    } catch {
      return false;
    }
  }

  /** Take it now if that needs no wait (true: held). */
  tryTake(exclusive: boolean): boolean {
    if (this.closed || this.queue.length > 0) return false;
    if (this.holders > 0) {
      if (exclusive || this.exclusiveHeld) return false;
      this.holders++;
      return true;
    }
    if (!this.tryKernel(exclusive)) return false;
    this.grant(exclusive);
    return true;
  }

  /** Wait for it, in turn, until `deadline` (ms since the epoch): true once held, false at the deadline. */
  take(exclusive: boolean, deadline: number): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const req: Request = { exclusive, deadline, resolve, reject, cancel: () => {} };
      this.queue.push(req);
      this.armTimeout(req);
      this.pump();
    });
  }

  release(): void {
    if (--this.holders > 0) return;
    this.holders = 0;
    holding--;
    this.exclusiveHeld = false;
    this.unlockKernel();
    this.lastUsed = Date.now();
    if (this.queue.length > 0) this.pump();
    else if (this.retired) this.close();
    else this.armIdle();
  }

  private grant(exclusive: boolean): void {
    if (this.holders++ === 0) holding++;
    this.exclusiveHeld = exclusive;
    this.lastUsed = Date.now();
  }

  /** A request not at the head (or at the head but polling) gives up at its own deadline. */
  private armTimeout(req: Request): void {
    req.cancel = atDeadline(req.deadline, () => {
      if (this.waiting && this.queue[0] === req) return; // its kernel wait ends at the same deadline and says so
      const at = this.queue.indexOf(req);
      if (at < 0) return;
      this.queue.splice(at, 1);
      req.resolve(false);
      this.pump();
    });
  }

  private settle(req: Request, held: boolean | { error: unknown }): void {
    req.cancel();
    const at = this.queue.indexOf(req);
    if (at >= 0) this.queue.splice(at, 1);
    if (typeof held === 'boolean') req.resolve(held);
    else req.reject(held.error);
  }

  /** Grant what can be granted from the head of the queue; start a kernel wait for the head when the lock is elsewhere. */
  private pump(): void {
    while (!this.waiting && this.queue.length > 0) {
      const head = this.queue[0]!;
      if (head.deadline - Date.now() <= 0) {
        this.settle(head, false);
        continue;
      }
      if (this.holders > 0) {
        if (head.exclusive || this.exclusiveHeld) return;
        this.holders++;
        this.settle(head, true);
        continue;
      }
      let free: boolean;
      try {
        free = this.tryKernel(head.exclusive);
      } catch (error) {
        // The lock cannot be taken at all (IO): this request fails with that; the next tries for itself.
        this.settle(head, { error });
        continue;
      }
      if (free) {
        this.grant(head.exclusive);
        this.settle(head, true);
        continue;
      }
      lockWaits.waits++;
      if (mayBlock()) {
        if (this.blockBriefly(head)) {
          this.grant(head.exclusive);
          this.settle(head, true);
          continue;
        }
        // Not yet: the event loop gets a turn, and the head blocks again (pump looks at its deadline first).
        this.waiting = true;
        setImmediate(() => {
          this.waiting = false;
          this.pump();
        });
        return;
      }
      this.waiting = true;
      if (this.poolWaitFor(head)) return;
      // The common wait, through a ready helper, settles in the callback that gets its answer: no promise between.
      if (this.helper.isReady) {
        lockWaits.kernelWaits++;
        void this.helper.wait(head.exclusive, head.deadline).then((result) => {
          if (result === 'unavailable') this.waitFor(head, false);
          else this.endWait(head, result === 'held');
        });
      } else this.waitFor(head, true);
      return;
    }
  }

  /**
   * Block this thread in flock for the head, up to BLOCK_MS (or its
   * deadline), as a plain blocking claimer does: the kernel then wakes the
   * very thread that goes on to read the board, one wake-up where any wait
   * off the thread costs two. A wait of eight claimers' turns fits in one
   * block; a longer one blocks again after a turn of the event loop, so
   * the loop never stops for more than BLOCK_MS, and a long wait never
   * ends through a slower way back (the helper's two wake-ups were the
   * longest waits). A timer of this thread's interrupts each block (see
   * blockFor). Only while this process holds no lock of its own (mayBlock):
   * an operation of its own that holds one goes on only while the thread
   * is free, so its waits go through the helper.
   */
  private blockBriefly(head: Request): boolean {
    lockWaits.blocks++;
    return blockFor(this.fd, head.exclusive, Math.min(BLOCK_MS, head.deadline - Date.now()));
  }

  /**
   * With MDCLAIM_LOCK_WAIT=pool only (measured beside the default in the
   * bench): wait for the head in the kernel's queue on a pool thread (see
   * poolWait), one such wait per process at a time, so that the pool keeps
   * threads for file I/O. At the deadline the wait is interrupted; a lock
   * it took in the last instant is let go. Not the default: a process that
   * exits just as its pool thread enters flock cannot interrupt it, and
   * libuv joins its pool threads at exit, so that exit waits for the lock.
   */
  private poolWaitFor(head: Request): boolean {
    if (poolWaiting || process.env['MDCLAIM_LOCK_WAIT'] !== 'pool') return false;
    let timedOut = false;
    let w: PoolWait | null = null;
    const cancel = atDeadline(head.deadline, () => {
      timedOut = true;
      w?.cancel();
    });
    w = poolWait(this.fd, head.exclusive, (r) => {
      poolWaiting = false;
      cancel();
      if (r === 'held' && !timedOut) return this.endWait(head, true);
      if (r === 'held') this.unlockKernel();
      if (timedOut) return this.endWait(head, false);
      this.waitFor(head, false);
    });
    if (w === null) {
      cancel();
      return false;
    }
    poolWaiting = true;
    lockWaits.kernelWaits++;
    return true;
  }

  private waitFor(head: Request, justTried: boolean): void {
    this.waitKernel(head, justTried).then(
      (held) => this.endWait(head, held),
      (error: unknown) => this.endWait(head, { error }),
    );
  }

  private endWait(head: Request, held: boolean | { error: unknown }): void {
    this.waiting = false;
    if (held === true) this.grant(head.exclusive);
    this.settle(head, held);
    this.pump();
  }

  /**
   * Wait for the kernel lock for `head` until its deadline: through the
   * helper, else poll a moment and then flock(1), else poll. `justTried`: the
   * caller found it taken a moment ago (a failed try costs a syscall and an
   * exception), so the first round goes straight to waiting.
   */
  private async waitKernel(head: Request, justTried: boolean): Promise<boolean> {
    const pollUntil = Date.now() + POLL_FIRST_MS;
    let queueable = true;
    for (let round = 0; ; round++) {
      if (!(round === 0 && justTried) && this.tryKernel(head.exclusive)) return true;
      const now = Date.now();
      if (head.deadline - now <= 0) return false;
      let result: QueueResult | null = null;
      if (this.helper.isReady) {
        lockWaits.kernelWaits++;
        result = await this.helper.wait(head.exclusive, head.deadline);
      }
      else {
        // Contended once: start a helper, and poll while it starts (a few ms) rather than start flock(1) for this one wait.
        this.helper.start();
        if (queueable && now >= pollUntil && !this.helper.isStarting) {
          lockWaits.kernelWaits++;
          result = await queueFlock(this.fd, head.exclusive, head.deadline, () => this.unlockKernel());
        }
      }
      if (result === 'held') return true;
      if (result === 'timeout') return false;
      if (result === 'unavailable') queueable = false;
      // Polling: a claim holds the lock for well under a millisecond; short sleeps with full jitter.
      const cap = queueable ? 1 : Math.min(2 ** round, 4);
      lockWaits.polls++;
      await sleep(Math.min(head.deadline - Date.now(), Math.random() * cap));
    }
  }

  private tryKernel(exclusive: boolean): boolean {
    lockWaits.tries++;
    try {
      this.flock(this.fd, exclusive ? 'exnb' : 'shnb');
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return false;
      throw new MdclaimError('IO', `cannot lock ${this.dir}: ${(err as Error).message}${code === 'EBADF' || code === 'ENOLCK' ? ' (on NFS, mount with local_lock=flock)' : ''}`, { cause: err });
    }
  }

  private unlockKernel(): void {
    if (!this.closed) this.flock(this.fd, 'un');
  }

  /**
   * Let the descriptor go once the lock has been idle a while; a later
   * operation opens a new one. The timer is armed once this turn of the event
   * loop is over, not at the release: a process that closes the board in the
   * same turn (the CLI, which then exits) never arms one, and so never loads
   * the timers' code for a timer it would cancel at once.
   */
  private armIdle(): void {
    if (this.idleTimer || this.idleArming) return;
    this.idleArming = true;
    process.nextTick(() => {
      this.idleArming = false;
      // Closed meanwhile; or held again, and its release arms it.
      if (this.closed || this.idleTimer || this.holders > 0 || this.queue.length > 0 || this.waiting) return;
      this.armIdleTimer(IDLE_MS - (Date.now() - this.lastUsed));
    });
  }

  private armIdleTimer(ms: number): void {
    const check = () => {
      this.idleTimer = undefined;
      if (this.holders > 0 || this.queue.length > 0 || this.waiting) return;
      const idle = Date.now() - this.lastUsed;
      if (idle < IDLE_MS) {
        this.idleTimer = setTimeout(check, IDLE_MS - idle).unref();
        return;
      }
      this.close();
    };
    this.idleTimer = setTimeout(check, Math.max(0, ms)).unref();
  }

  /** Only when idle: nothing is held or waited for. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.helper.stop();
    this.onClose(this);
    closeSync(this.fd);
  }

  /** Closed, or replaced: no new operation starts here; close once the last holder and waiter are gone. */
  retire(): void {
    this.retired = true;
    this.onClose(this);
    if (this.holders === 0 && this.queue.length === 0 && !this.waiting) this.close();
  }

  get isClosed(): boolean {
    return this.closed;
  }
}


/** This process's directory locks, by the path the board's directory was reached by. */
const locks = new Map<string, DirLock>();

/** The lock on `dir` for this process, opened at first use. */
export function dirLock(dir: string, flock: FlockFn): DirLock {
  let l = locks.get(dir);
  if (!l || l.isClosed) {
    l = new DirLock(dir, flock, (gone) => {
      if (locks.get(dir) === gone) locks.delete(dir);
    });
    locks.set(dir, l);
  }
  return l;
}

/** No new operation of this process starts on `dir`'s current lock; it closes once idle (the next operation opens a new one). */
export function retireDirLock(dir: string): void {
  locks.get(dir)?.retire();
}
