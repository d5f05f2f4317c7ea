import { spawn, spawnSync } from 'node:child_process';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MdclaimError, openBoard } from '../src/index.js';
import { CLI } from './helpers/cli.js';
import { fixture, start, track } from './helpers/procs.js';
import { children, expectExitWhileQueued, hasFlock1, heldElsewhere, outsideHolder, queuedOn, queuedWaiter, until, whileHeld } from './helpers/locks.js';
import { boardFile, bytesOf, read } from './helpers/tmp.js';

const BOARD = '- [ ] one\n- [ ] two\n';

/** flock processes whose parent is `pid`, other than the outside holder `but`. */
const flockChildren = (pid: number, but: number) => children(pid, 'flock').filter((c) => c !== but);

describe.skipIf(!hasFlock1)('a contended wait queues in the kernel', () => {
  it('waits in the kernel’s queue on the directory and takes the lock once the holder lets go', async () => {
    const file = boardFile(BOARD);
    const dir = dirname(file);
    const h = await outsideHolder(dir);
    // Another process: one whose own thread waits in the kernel is seen there from outside, between its blocks never.
    const w = queuedWaiter(file);
    await until(() => queuedOn(dir) === 1, 'the waiter to queue');
    expect(read(file)).toBe(BOARD);
    h.release();
    expect(await w.exited).toBe(0);
    expect(w.out()).toBe('got\n');
    expect(read(file)).toMatch(/^- \[🟡, q, \S+\] one\n- \[ \] two\n$/);
    await h.gone;
    expect(queuedOn(dir)).toBe(0);
    expect(flockChildren(w.child.pid!, h.pid)).toEqual([]);
  });

  it('times out at the deadline, leaves the holder holding and no flock child behind', async () => {
    const file = boardFile(BOARD);
    const dir = dirname(file);
    await whileHeld(dir, async (h) => {
      const started = Date.now();
      const err = await openBoard(file, { lockTimeout: '300ms' }).next({ by: 'w' }).catch((e: unknown) => e);
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
      expect(err).toBeInstanceOf(MdclaimError);
      expect((err as MdclaimError).code).toBe('LOCK_TIMEOUT');
      expect(flockChildren(process.pid, h.pid)).toEqual([]);
      expect(queuedOn(dir)).toBe(0);
      expect(heldElsewhere(dir)).toBe(true);
      expect(bytesOf(file).equals(Buffer.from(BOARD))).toBe(true);
    });
    // The lock is free again: nothing of the timed-out wait kept it.
    expect(heldElsewhere(dir)).toBe(false);
  });

  it('times out shared waits too, and many in one process at once', async () => {
    const file = boardFile(BOARD);
    const dir = dirname(file);
    await whileHeld(dir, async (h) => {
      const board = openBoard(file, { lockTimeout: '200ms' });
      const results = await Promise.allSettled([board.list(), board.list(), board.next({ by: 'a' }), board.next({ by: 'b' })]);
      for (const r of results) expect(r.status === 'rejected' && (r.reason as MdclaimError).code).toBe('LOCK_TIMEOUT');
      expect(flockChildren(process.pid, h.pid)).toEqual([]);
    });
  });

  it('lets a process waiting in the queue exit while the lock is still held elsewhere', async () => {
    await expectExitWhileQueued(boardFile(BOARD));
  });
});

describe('without flock(1) on PATH', () => {
  it('polls instead: still waits for the holder, claims once it lets go, and times out', async () => {
    const file = boardFile(BOARD);
    const dir = dirname(file);
    const env = { ...process.env, PATH: '/nonexistent' };
    const h = start(fixture('hold.mjs'), [file]);
    await new Promise<void>((r) => h.child.stdout!.on('data', (d) => String(d).includes('held') && r()));
    const timedOut = spawnSync(process.execPath, [CLI, 'next', '--file', file, '--by', 'w', '--lock-timeout', '200ms'], { encoding: 'utf8', env });
    expect(timedOut.status).toBe(1);
    expect(timedOut.stderr).toMatch(/^error\[LOCK_TIMEOUT\]/);
    const waiter = track(spawn(process.execPath, [CLI, 'next', '--file', file, '--by', 'w', '--lock-timeout', '60s'], { env }));
    const status = new Promise((r) => waiter.on('close', r));
    h.child.kill('SIGTERM');
    await h.done;
    expect(await status).toBe(0);
    expect(read(file)).toMatch(/^- \[🟡, w, /);
    expect(queuedOn(dir)).toBe(0);
  });
});
