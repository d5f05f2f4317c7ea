import type { ChildProcess } from 'node:child_process';
import { childProcess } from '../builtins.js';
import { atDeadline } from './deadline.js';

/** How a wait in the kernel's queue ended: the lock is ours, the deadline came first, or flock(1) could not wait for us. */
export type QueueResult = 'held' | 'timeout' | 'unavailable';

/** False once flock(1) proved missing: every later wait polls without trying to spawn it again. */
let available = true;
const alive = new Set<ChildProcess>();
let exitHookSet = false;

/**
 * A child waiting for the lock for us (flock(1), a QueueHelper) still running
 * when this process exits would take the lock after us for nothing: end it
 * with us. Returns the function to call once it has gone by itself.
 */
export function endWithUs(child: ChildProcess): () => void {
  alive.add(child);
  if (!exitHookSet) {
    exitHookSet = true;
    process.on('exit', () => {
      for (const c of alive) c.kill('SIGKILL');
    });
  }
  return () => void alive.delete(child);
}

/**
 * Wait for flock(2) on `fd` in the kernel's queue, where waiters are woken as
 * the lock is let go, instead of polling for it. A blocking flock in this
 * process could not be cancelled and would pin a libuv thread (or the main
 * thread), so util-linux flock(1) blocks for us: it inherits `fd`, and since
 * a flock lock belongs to the open file description, the lock it takes is
 * ours and stays ours when it exits. At the deadline it is killed (a fatal
 * signal ends a blocking flock); `unlock` then drops whatever it may have
 * taken in its last instant. Nothing here keeps the process from exiting:
 * the child is unref'd and killed on exit, and at worst (this process
 * SIGKILLed) it takes the lock after us, exits, and so lets go.
 */
export function queueFlock(fd: number, exclusive: boolean, deadline: number, unlock: () => void): Promise<QueueResult> {
  if (!available) return Promise.resolve('unavailable');
  const left = deadline - Date.now();
  if (left <= 0) return Promise.resolve('timeout');
  return new Promise((resolve) => {
    // -w: if this process dies without its exit hook (SIGKILL), the child still gives up soon after our deadline.
    const backstop = String(Math.min(Math.ceil(left / 1000) + 1, 1e9));
    let child: ChildProcess;
    try {
      child = childProcess().spawn('flock', [exclusive ? '-x' : '-s', '-w', backstop, '3'], { stdio: ['ignore', 'ignore', 'ignore', fd] });
    } catch {
      resolve('unavailable');
      return;
    }
    let timedOut = false;
    // This timer, not the child, keeps the process alive while it waits: unref'd, the child holds nothing up.
    const cancel = atDeadline(deadline, () => {
      timedOut = true;
      child.kill('SIGKILL');
      child.ref(); // the timer is spent: keep the process alive until the child is reaped and the wait settles
    });
    child.unref();
    const forget = endWithUs(child);
    let settled = false;
    const done = (result: QueueResult) => {
      if (settled) return; // a failed spawn reports both 'error' and 'exit'
      settled = true;
      cancel();
      forget();
      resolve(result);
    };
    child.once('error', (err) => {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') available = false;
      done('unavailable');
    });
    child.once('exit', (code) => {
      if (code === 0) return done('held');
      // Killed at the deadline: it may have taken the lock just before the signal landed.
      unlock();
      done(timedOut ? 'timeout' : 'unavailable');
    });
  });
}
