import { parseLease } from '../board/duration.js';
import { noTask } from '../board/resolve-id.js';
import type { CheckPathsOptions, HeldPath } from '../board/path-types.js';
import { Heartbeat, heartbeatEvery, isLostError } from '../runner/heartbeat.js';
import { formatClaimedAt } from '../format/marker.js';
import type { Fence } from '../runner/types.js';
import type { NextOptions, TaskBoard } from '../board/types.js';
import { notHolder } from '../board/conflict.js';
import { MdclaimError } from '../errors.js';
import type { Task } from '../format/task.js';

/** A claim this session made: its task as last written, and the heartbeat that keeps it live. */
interface Held {
  task: Task;
  /** The lease asked for; undefined: the board's. */
  leaseMs: number | undefined;
  beat: Heartbeat;
}

/**
 * One MCP session as one holder: every claim it makes is beaten on the
 * runner's schedule while it lives, every holder write names the claim time
 * of its own last write, and `close` gives every claim back.
 */
export class Session {
  private readonly held = new Map<string, Held>();
  /** Per task, the end of the last call on it: calls on one task run one after another, never beside a beat. */
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly calls = new Set<Promise<unknown>>();
  private closing = false;

  constructor(
    private readonly board: TaskBoard,
    readonly by: string,
    /** The lease of a claim that names none. */
    private readonly lease: string | number | undefined,
  ) {}

  /** The ids this session holds now. */
  get holding(): string[] {
    return [...this.held.keys()];
  }

  /** Run one tool call, refused once the session is ending; `close` waits for those under way. */
  track<T>(call: () => Promise<T>): Promise<T> {
    if (this.closing) return Promise.reject(new MdclaimError('IO', 'the session is ending: its claims are being released'));
    const p = call();
    this.calls.add(p);
    const forget = () => this.calls.delete(p);
    p.then(forget, forget);
    return p;
  }

  async next(options: Omit<NextOptions, 'by' | 'lease'> & { lease?: string }): Promise<Task | null> {
    const { value, ms } = this.leaseFor(options.lease);
    const t = await this.board.next({ ...options, by: this.by, ...(value === undefined ? {} : { lease: value }) });
    if (t) await this.serial(t.id, async () => this.hold(t, ms));
    return t;
  }

  claim(id: string, lease?: string, maxAttempts?: number): Promise<Task> {
    const { value, ms } = this.leaseFor(lease);
    return this.serial(id, async () => {
      const t = await this.board.claim(id, { by: this.by, ...(value === undefined ? {} : { lease: value }), ...(maxAttempts === undefined ? {} : { maxAttempts }) });
      await this.held.get(id)?.beat.stop();
      this.hold(t, ms);
      return t;
    });
  }

  heartbeat(id: string): Promise<Task> {
    return this.write(id, true, (f) => this.board.heartbeat(id, f));
  }

  done(id: string, commit?: string): Promise<Task> {
    return this.write(id, false, (f) => this.board.done(id, { ...f, ...(commit === undefined ? {} : { commit }) }));
  }

  fail(id: string, reason?: string): Promise<Task> {
    return this.write(id, false, (f) => this.board.fail(id, { ...f, ...(reason === undefined ? {} : { reason }) }));
  }

  release(id: string): Promise<Task> {
    return this.write(id, false, (f) => this.board.release(id, f));
  }

  retry(id: string, delay: string): Promise<Task> {
    return this.write(id, false, (f) => this.board.retry(id, { ...f, delay }));
  }

  lockPaths(id: string, paths: { writes?: string[]; reads?: string[] }): Promise<Task> {
    return this.write(id, true, (f) => this.board.lockPaths(id, { ...f, ...paths }));
  }

  unlockPaths(id: string, paths?: string[]): Promise<Task> {
    return this.write(id, true, (f) => this.board.unlockPaths(id, { ...f, ...(paths === undefined ? {} : { paths }) }));
  }

  checkPaths(paths: Omit<CheckPathsOptions, 'by'>): Promise<HeldPath[]> {
    return this.board.checkPaths({ ...paths, by: this.by });
  }

  /** End the session: refuse new calls, let those under way finish, then release every claim still held. */
  async close(): Promise<{ released: string[]; failed: string[] }> {
    this.closing = true;
    await Promise.allSettled([...this.calls]);
    const released: string[] = [];
    const failed: string[] = [];
    await Promise.all(
      [...this.held.keys()].map((id) =>
        this.release(id).then(
          () => released.push(id),
          // A claim no longer ours is not ours to give back.
          (err: unknown) => isLostError(err) || failed.push(id),
        ),
      ),
    );
    // What could not be released is not beaten either: nothing keeps the process alive.
    await Promise.all([...this.held.values()].map((h) => h.beat.stop()));
    return { released, failed };
  }

  /** The lease a new claim is taken with, checked to be one a heartbeat can keep (at least 2s). */
  private leaseFor(asked: string | undefined): { value: string | number | undefined; ms: number | undefined } {
    const value = asked ?? this.lease;
    if (value === undefined) return { value, ms: undefined };
    const ms = parseLease(value, 'lease');
    heartbeatEvery(ms);
    return { value, ms };
  }

  private hold(t: Task, leaseMs: number | undefined): void {
    const beat = new Heartbeat(this.board, t, this.by, leaseMs, () => {});
    this.held.set(t.id, { task: t, leaseMs, beat });
    beat.start();
  }

  /**
   * A holder write on a claim of this session's: the beat stops so the fence
   * is the last claim time written, the write names it, and the claim is
   * beaten again from what was written (`keep`) or from before a passing failure.
   */
  private write(id: string, keep: boolean, op: (fence: Fence) => Promise<Task>): Promise<Task> {
    return this.serial(id, async () => {
      const h = this.held.get(id);
      if (!h) throw await this.notHeld(id);
      await h.beat.stop();
      const fence = h.beat.fence;
      let t: Task;
      try {
        t = await op(fence);
      } catch (err) {
        // Taken over, finished or gone: no longer this session's to beat.
        if (isLostError(err)) this.held.delete(id);
        else this.hold({ ...h.task, claimedAt: fence.claimedAt!, expiresAt: formatClaimedAt(h.beat.expiresAt) }, h.leaseMs);
        throw err;
      }
      this.held.delete(id);
      if (keep) this.hold(t, h.leaseMs);
      return t;
    });
  }

  /** Why this session may not write on a task it holds no claim on: the board's own refusal, from the task as it is now. */
  private async notHeld(id: string): Promise<MdclaimError> {
    const task = (await this.board.list()).find((t) => t.id === id);
    if (task === undefined) return noTask(id);
    if (task.status === 'claimed' && task.by === this.by) {
      return new MdclaimError('CONFLICT', `${id} is claimed by ${this.by}, but not by this session: only the session that made a claim writes on it`, { holder: this.by });
    }
    return notHolder(task, { by: this.by });
  }

  private serial<T>(id: string, call: () => Promise<T>): Promise<T> {
    const prev = this.queues.get(id) ?? Promise.resolve();
    const p = prev.then(call, call);
    const tail = p.catch(() => {});
    this.queues.set(id, tail);
    tail.then(() => {
      if (this.queues.get(id) === tail) this.queues.delete(id);
    });
    return p;
  }
}
