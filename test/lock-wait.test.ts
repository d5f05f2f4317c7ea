import { readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MdclaimError, openBoard } from '../src/index.js';
import { children, hasFlock1, heldElsewhere, outsideHolder, queuedOn, until, whileHeld } from './helpers/locks.js';
import { lockWaits } from '../src/storage/dir-lock.js';
import { boardFile, bytesOf, read } from './helpers/tmp.js';

const BOARD = '- [ ] one\n- [ ] two\n';

/** flock(2)'s system call number where a pool thread waits (the numbers /proc shows). */
const FLOCK_NR: Partial<Record<string, number>> = { x64: 73, arm64: 32 };

/** Threads of this process blocked in flock(2) now. */
function threadsInFlock(): number {
  let n = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      if (Number(readFileSync(`/proc/self/task/${tid}/syscall`, 'latin1').split(' ')[0]) === FLOCK_NR[process.arch]) n++;
    } catch {
      // the thread has gone
    }
  }
  return n;
}

const glibc = process.platform === 'linux' && (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime !== undefined;

/**
 * A next that waits behind an outside holder: `waiting` (asked for the board's directory before the claim starts)
 * tells when the wait is under way, said as `what`; `during` checks it while it goes on and the event loop turns
 * (given the holder's pid and the directory); then the holder lets go and the claim is made, the board untouched until then.
 */
async function waitBehindHolder(what: string, waiting: (dir: string) => () => boolean, during: (holder: number, dir: string) => void): Promise<void> {
  const file = boardFile(BOARD);
  const dir = dirname(file);
  const h = await outsideHolder(dir);
  let ticks = 0;
  const tick = setInterval(() => ticks++, 5);
  try {
    const underWay = waiting(dir);
    const claim = openBoard(file, { lockTimeout: '60s' }).next({ by: 'w' });
    await until(underWay, what);
    const before = ticks;
    // A thread blocks for 20 ms at most: timers fire while the wait goes on.
    await until(() => ticks > before + 2, 'the event loop to turn while the wait goes on');
    during(h.pid, dir);
    expect(read(file)).toBe(BOARD);
    h.release();
    await expect(claim).resolves.toMatchObject({ text: 'one', by: 'w' });
    await h.gone;
  } finally {
    clearInterval(tick);
  }
}

describe.skipIf(!hasFlock1 || !glibc || FLOCK_NR[process.arch] === undefined)('a contended wait on Linux, on its own thread', () => {
  it('blocks its thread in flock 20 ms at a time, the event loop turning between, with no helper or flock(1) child; claims once the holder lets go', async () => {
    // Each block ends at its 20 ms, and the loop runs the check between two of them.
    const threeBlocks = () => {
      const blocks = lockWaits.blocks;
      return () => lockWaits.blocks >= blocks + 3;
    };
    await waitBehindHolder('three blocks of the thread', threeBlocks, (holder) => {
      expect(children(process.pid, 'perl')).toEqual([]);
      expect(children(process.pid, 'flock').filter((pid) => pid !== holder)).toEqual([]);
    });
  });
});

describe.skipIf(!hasFlock1 || !glibc || FLOCK_NR[process.arch] === undefined)('a contended wait on a pool thread (MDCLAIM_LOCK_WAIT=pool)', () => {
  beforeEach(() => {
    process.env['MDCLAIM_LOCK_WAIT'] = 'pool';
  });
  afterEach(() => {
    delete process.env['MDCLAIM_LOCK_WAIT'];
  });

  it('queues in the kernel on a pool thread of its own, with no helper or flock(1) child, while the event loop runs; claims once the holder lets go', async () => {
    const perlBefore = children(process.pid, 'perl');
    await waitBehindHolder('the waiter to queue', (dir) => () => queuedOn(dir) === 1, (holder, dir) => {
      expect(queuedOn(dir)).toBe(1);
      expect(threadsInFlock()).toBe(1);
      // No helper of this wait's (an earlier test's, for another directory, may still be there).
      expect(children(process.pid, 'perl').filter((p) => !perlBefore.includes(p))).toEqual([]);
      expect(children(process.pid, 'flock').filter((p) => p !== holder)).toEqual([]);
    });
    expect(threadsInFlock()).toBe(0);
  });

  it('interrupts the pool thread at the deadline: nothing queued, no thread left in flock, the holder still holding', async () => {
    const file = boardFile(BOARD);
    const dir = dirname(file);
    await whileHeld(dir, async () => {
      const started = Date.now();
      const err = await openBoard(file, { lockTimeout: '300ms' }).next({ by: 'w' }).catch((e: unknown) => e);
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
      expect((err as MdclaimError).code).toBe('LOCK_TIMEOUT');
      await until(() => threadsInFlock() === 0, 'the interrupted thread to leave flock');
      expect(queuedOn(dir)).toBe(0);
      expect(heldElsewhere(dir)).toBe(true);
      expect(bytesOf(file).equals(Buffer.from(BOARD))).toBe(true);
    });
    expect(heldElsewhere(dir)).toBe(false);
    // The next wait finds the pool free and takes the lock.
    await expect(openBoard(file).next({ by: 'w' })).resolves.toMatchObject({ text: 'one' });
  });
});
