import type { Db, Listener } from './db.js';
import { listenBoard } from './listen.js';
import { after } from '../storage/deadline.js';

/**
 * LISTEN on a connection of its own, so a runner with nothing to claim wakes
 * when a task may have become claimable (a release, a reap, a done that
 * unblocks a ⏰, an add or an import) instead of sleeping a whole interval.
 * A claim that lapses makes no event: the timeout covers that.
 */
export class WorkListener {
  private client: Promise<Listener> | null = null;
  // Set by a notification nobody was waiting for, and before the first LISTEN (what happened then is unknown).
  private pending = true;
  private wake: (() => void) | null = null;

  constructor(private readonly db: Db, private readonly board: () => Promise<number>) {}

  async wait(signal: AbortSignal | undefined, timeoutMs: number): Promise<void> {
    if (signal?.aborted) return;
    await this.listen();
    // The signal may have aborted while LISTEN was being set up: an abort event already fired is never fired again.
    if (signal?.aborted) return;
    if (this.pending) {
      this.pending = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const done = () => {
        cancel();
        signal?.removeEventListener('abort', done);
        this.wake = null;
        resolve();
      };
      const cancel = after(timeoutMs, done);
      signal?.addEventListener('abort', done, { once: true });
      this.wake = done;
    });
    this.pending = false;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (client) await (await client).end().catch(() => {});
  }

  private listen(): Promise<Listener> {
    this.client ??= (async () => {
      const heard = () => {
        if (this.wake) this.wake();
        else this.pending = true;
      };
      // A dropped connection is made again on the next wait, which first returns at once: events may have been missed.
      const ended = () => {
        this.client = null;
        this.pending = true;
        this.wake?.();
      };
      return listenBoard(this.db, await this.board(), heard, ended);
    })();
    return this.client;
  }
}
