import { usage } from '../errors.js';
import { claimInstant } from '../format/claim-time.js';
import { DEFAULT_LEASE_MS } from '../format/duration.js';
import { formatClaimedAt } from '../format/marker.js';
import type { Task } from '../format/task.js';
import { after, sleep } from '../storage/deadline.js';
import { parseDuration } from '../board/duration.js';
import type { RunEventBody } from './events.js';
import type { Fence, RunnerBoard } from './types.js';

/** The shortest lease a runner takes: below it no beat schedule leaves room for a late beat. */
export const MIN_LEASE_MS = 2000;

/**
 * How often to beat so the claim never lapses between two beats, with room
 * for one late beat. A beat at time w writes floor(w) to the second, so the
 * claim lapses at floor(w) + lease > w + lease - 1s; two intervals of at most
 * (lease - 1s) / 2 fit inside that, and lease / 3 keeps long leases renewed
 * well before their end.
 */
export function heartbeatEvery(leaseMs: number): number {
  if (!(leaseMs >= MIN_LEASE_MS)) throw usage(`lease must be at least 2s for a runner to heartbeat it safely, got ${leaseMs}ms`);
  return Math.min(leaseMs / 3, (leaseMs - 1000) / 2);
}

/** How long to wait before retrying a write that failed for a passing reason. */
export function retryDelay(everyMs: number): number {
  return Math.min(1000, everyMs / 4);
}

/** When a claim lapses, in epoch ms: the board's `expiresAt`, else its claim time plus its lease. */
export function expiresAtMs(task: Task, leaseMs: number): number {
  if (task.expiresAt !== undefined) return claimInstant(task.expiresAt) ?? NaN;
  return (claimInstant(task.claimedAt!) ?? NaN) + leaseMs;
}

/** The claim's own lease: what the board says it is, else what the runner asked for, else the default. */
export function leaseOf(task: Task, askedMs: number | undefined): number {
  if (task.lease !== undefined) return parseDuration(task.lease, 'lease');
  return askedMs ?? DEFAULT_LEASE_MS;
}

/** A refusal that means the claim is no longer ours: someone else's claim, a finished or reopened line, or no line at all. */
export function isLostError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'CONFLICT' || code === 'NOT_FOUND';
}

function isBug(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'USAGE';
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * Keeps one claim alive and makes every write on it fenced: each names the
 * holder and the claim time last written, so it applies only to this claim.
 */
export class Heartbeat {
  /** Why the claim is no longer ours, once it is not. */
  lostReason: string | undefined;
  private task: Task;
  private readonly leaseMs: number;
  private readonly everyMs: number;
  private cancelTimer: () => void = () => {};
  private inFlight: Promise<void> = Promise.resolve();
  private stopped = false;
  private onLost: (() => void) | undefined;
  /** The last renewal asked for by `during`: the next waits for it. */
  private renewing: Promise<boolean> = Promise.resolve(true);
  /** Settles when the claim is found lost by a heartbeat. */
  readonly lost: Promise<void>;

  constructor(
    private readonly board: RunnerBoard,
    claimed: Task,
    private readonly by: string,
    askedLeaseMs: number | undefined,
    private readonly emit: (e: RunEventBody) => void,
  ) {
    this.task = claimed;
    this.leaseMs = leaseOf(claimed, askedLeaseMs);
    this.everyMs = heartbeatEvery(this.leaseMs);
    this.lost = new Promise((resolve) => (this.onLost = resolve));
  }

  get id(): string {
    return this.task.id;
  }

  get expiresAt(): number {
    return expiresAtMs(this.task, this.leaseMs);
  }

  /** The fence for the next write: this holder, this claim's time. */
  get fence(): Fence {
    return { by: this.by, claimedAt: this.task.claimedAt! };
  }

  start(): void {
    this.schedule(this.everyMs);
  }

  /**
   * Renew the claim now, fenced, before its command starts: false (the claim
   * recorded lost) when it is no longer this holder's, as after a freeze past
   * its lease. A command never starts on a claim its runner no longer holds.
   */
  async confirm(): Promise<boolean> {
    const ok = await this.write(async (fence) => {
      const t = await this.board.heartbeat(this.task.id, fence);
      this.task = { ...this.task, ...t };
      return t;
    });
    if (ok) this.emit({ event: 'heartbeat', id: this.task.id, claimedAt: this.task.claimedAt!, expiresAt: formatClaimedAt(this.expiresAt) });
    return ok;
  }

  /**
   * Run `work` (made outside the beat's schedule: worktree, setup, the commit
   * of its changes) while the claim is renewed every beat's interval, however
   * long it takes. `renew` renews now, for a write that must happen under a
   * claim renewed right before it: false once the claim is lost. Renewals are
   * made one at a time, so each carries the claim time the one before wrote.
   * Resolves with what `work` gave and whether the claim was lost meanwhile.
   */
  async during<T>(work: (renew: () => Promise<boolean>) => Promise<T>): Promise<{ value: T; lost: boolean }> {
    const pending = work(() => this.renew());
    let finished = false;
    const settled = pending.then(
      () => (finished = true),
      () => (finished = true),
    );
    while (!finished && this.lostReason === undefined) {
      let cancel = () => {};
      await Promise.race([settled, new Promise<void>((resolve) => (cancel = after(this.everyMs, resolve)))]);
      cancel(); // a pending renewal timer would keep the runner alive after its last task
      if (!finished) await this.renew();
    }
    const value = await pending;
    return { value, lost: this.lostReason !== undefined };
  }

  /** Renew now, after any renewal in flight; false once the claim is lost. */
  private renew(): Promise<boolean> {
    const next = this.renewing.then(() => (this.lostReason === undefined ? this.confirm() : false));
    this.renewing = next;
    return next;
  }

  /** Stop beating; resolves once a beat in flight has settled, so the fence is the last one written. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelTimer();
    await this.inFlight;
  }

  /**
   * Make one fenced write (done, fail, release), retrying passing failures
   * while the lease lasts. Returns false when the claim turned out lost.
   */
  async write(op: (fence: Fence) => Promise<Task>): Promise<boolean> {
    for (;;) {
      try {
        await op(this.fence);
        return true;
      } catch (err) {
        if (!this.retryable(err)) return false;
      }
      await sleep(retryDelay(this.everyMs));
    }
  }

  private schedule(ms: number): void {
    if (this.stopped || this.lostReason !== undefined) return;
    this.cancelTimer = after(ms, () => {
      this.inFlight = this.beat();
    });
  }

  private async beat(): Promise<void> {
    try {
      const t = await this.board.heartbeat(this.task.id, this.fence);
      this.task = { ...this.task, ...t };
      this.emit({ event: 'heartbeat', id: t.id, claimedAt: t.claimedAt!, expiresAt: formatClaimedAt(this.expiresAt) });
      this.schedule(this.everyMs);
    } catch (err) {
      // A refused argument cannot pass with time: the claim cannot be kept.
      if (isBug(err)) this.markLost(message(err));
      else if (this.retryable(err)) this.schedule(retryDelay(this.everyMs));
    }
  }

  /** Decide about a failed write: true to retry; false when the claim is lost (recorded); throws on a bug. */
  private retryable(err: unknown): boolean {
    if (isLostError(err)) {
      this.markLost(message(err));
      return false;
    }
    if (isBug(err)) throw err;
    if (Date.now() + retryDelay(this.everyMs) >= this.expiresAt) {
      this.markLost(`the lease lapsed while the board refused writes: ${message(err)}`);
      return false;
    }
    this.emit({ event: 'retry', id: this.task.id, error: message(err) });
    return true;
  }

  private markLost(reason: string): void {
    if (this.lostReason !== undefined) return;
    this.lostReason = reason;
    this.onLost!();
  }
}
