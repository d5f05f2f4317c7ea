import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MdclaimError, openBoard } from '../src/index.js';
import { fixture, track } from './helpers/procs.js';
import { children, fdsOn, hasFlock1, heldElsewhere, outsideHolder, queuedOn, queuedWaiter, until } from './helpers/locks.js';
import { boardFile, bytesOf, read, scratchDir } from './helpers/tmp.js';

const BOARD = '- [ ] one\n- [ ] two\n- [ ] three\n- [ ] four\n- [ ] five\n- [ ] six\n';

const hasPerl = spawnSync('perl', ['-v']).status === 0;

// Where a pool thread can wait in the kernel's queue (see pool-wait.ts), it does; these tests are of the helper and
// flock(1), the way every other machine waits and the fallback here, so this process and its children take that way.
beforeAll(() => void (process.env['MDCLAIM_LOCK_WAIT'] = 'helper'));
afterAll(() => void delete process.env['MDCLAIM_LOCK_WAIT']);

describe.skipIf(!hasFlock1 || !hasPerl)('a long-lived process waits through one queue helper', () => {
  it('queues every contended wait in the kernel through one helper, without a flock(1) per wait, and claims once each holder lets go', async () => {
    const file = boardFile(BOARD);
    const dir = dirname(file);
    const board = openBoard(file, { lockTimeout: '30s' });
    const claimed: string[] = [];
    for (let round = 0; round < 5; round++) {
      const h = await outsideHolder(dir);
      const claim = board.next({ by: 'w' });
      await until(() => queuedOn(dir) === 1, `wait ${round} to queue`);
      // Every wait is the helper's: one perl child, and never a flock(1) child.
      expect(children(process.pid, 'perl')).toHaveLength(1);
      expect(children(process.pid, 'flock').filter((pid) => pid !== h.pid)).toEqual([]);
      expect(read(file).split('\n').filter((l) => l.startsWith('- [🟡')).length).toBe(round);
      h.release();
      claimed.push((await claim)!.text);
      await h.gone;
      expect(queuedOn(dir)).toBe(0);
    }
    expect(claimed).toEqual(['one', 'two', 'three', 'four', 'five']);
    const helper = children(process.pid, 'perl');
    expect(helper).toHaveLength(1);
    // close() lets the directory go, and the helper with it.
    await board.close();
    expect(fdsOn(dir)).toBe(0);
    await until(() => children(process.pid, 'perl').length === 0, 'the helper to end');
  });

  it('kills the helper at the deadline and drops what it may have taken: the holder keeps holding, then the lock is free', async () => {
    const file = boardFile(BOARD);
    const dir = dirname(file);
    const h = await outsideHolder(dir);
    const board = openBoard(file, { lockTimeout: '400ms' });
    const started = Date.now();
    const err = await board.next({ by: 'w' }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect((err as MdclaimError).code).toBe('LOCK_TIMEOUT');
    expect(children(process.pid, 'perl')).toEqual([]);
    expect(queuedOn(dir)).toBe(0);
    expect(heldElsewhere(dir)).toBe(true);
    h.release();
    await h.gone;
    expect(heldElsewhere(dir)).toBe(false);
    // The next wait starts a new helper and still works.
    const h2 = await outsideHolder(dir);
    const claim = openBoard(file, { lockTimeout: '30s' }).next({ by: 'w' });
    await until(() => queuedOn(dir) === 1, 'the next wait to queue');
    h2.release();
    await expect(claim).resolves.toMatchObject({ text: 'one' });
    await h2.gone;
    expect(bytesOf(file).toString()).toMatch(/^- \[🟡, w, \S+\] one\n- \[ \] two\n/);
    await board.close();
  });

  it('lets go when the waiting process is SIGKILLed: its helper takes the lock, finds nobody to answer, and exits', async () => {
    const file = boardFile(BOARD);
    const dir = dirname(file);
    const h = await outsideHolder(dir);
    const w = queuedWaiter(file);
    await until(() => queuedOn(dir) === 1 && children(w.child.pid!, 'perl').length === 1, 'the waiter’s helper to queue');
    const [helper] = children(w.child.pid!, 'perl');
    w.child.kill('SIGKILL');
    await w.exited;
    h.release();
    await h.gone;
    await until(() => !existsSync(`/proc/${helper}`) || readFileSync(`/proc/${helper}/stat`, 'utf8').includes(') Z '), 'the orphaned helper to exit');
    await until(() => !heldElsewhere(dir), 'the lock to come back');
    expect(read(file)).toBe(BOARD);
  });
  it('keeps its helper through a Ctrl-C to the waiting process’s group: the helper has a group of its own', async () => {
    const file = boardFile(BOARD);
    const dir = dirname(file);
    const h = await outsideHolder(dir);
    const w = track(spawn(process.execPath, [fixture('queued-sigint.mjs'), file], { stdio: ['ignore', 'pipe', 'inherit'], detached: true }), { group: true });
    let out = '';
    w.stdout!.on('data', (d) => (out += d));
    const done = new Promise((r) => w.on('close', r));
    await until(() => queuedOn(dir) === 1 && children(w.pid!, 'perl').length === 1, 'the waiter’s helper to queue');
    const [helper] = children(w.pid!, 'perl');
    process.kill(-w.pid!, 'SIGINT'); // what a terminal's Ctrl-C does to the foreground group
    await until(() => out.includes('sigint'), 'the waiter to see SIGINT');
    expect(children(w.pid!, 'perl')).toEqual([helper]);
    expect(queuedOn(dir)).toBe(1);
    h.release();
    await h.gone;
    await done;
    expect(out).toBe('sigint\ngot\n');
    expect(read(file)).toMatch(/^- \[🟡, q, /);
    // The claim was the helper's wait, not a fallback's.
    expect(children(w.pid!, 'flock')).toEqual([]);
  });
});

describe.skipIf(!hasFlock1)('waiting without perl', () => {
  it('queues each wait through a flock(1) child instead', async () => {
    const file = boardFile(BOARD);
    const dir = dirname(file);
    const bin = scratchDir('mdclaim-path-');
    const flock = spawnSync('sh', ['-c', 'command -v flock'], { encoding: 'utf8' }).stdout.trim();
    symlinkSync(flock, join(bin, 'flock'));
    const h = await outsideHolder(dir);
    const w = queuedWaiter(file, { PATH: bin });
    await until(() => queuedOn(dir) === 1 && children(w.child.pid!, 'flock').length === 1, 'a flock(1) child to queue');
    expect(children(w.child.pid!, 'perl')).toEqual([]);
    h.release();
    await h.gone;
    await until(() => w.out().includes('got'), 'the waiter to claim');
    w.exit();
    await w.exited;
    expect(read(file)).toMatch(/^- \[🟡, q, /);
  });
});

describe.skipIf(!hasFlock1)('one process, one descriptor, its operations in turn', () => {
  it('lets no shared operation pass an exclusive one waiting, and grants them in the order asked', async () => {
    const file = boardFile(BOARD);
    const board = openBoard(file, { lock: 'flock', lockTimeout: '30s' });
    const order: string[] = [];
    const release = await board.hold({ shared: true });
    // Shared with a shared holder, and nothing waiting: at once.
    await board.list().then(() => order.push('list 1'));
    const claim = board.next({ by: 'w' }).then((t) => order.push(`claim ${t!.text}`));
    const list2 = board.list().then(() => order.push('list 2'));
    await new Promise((r) => setTimeout(r, 100));
    expect(order).toEqual(['list 1']);
    release();
    await Promise.all([claim, list2]);
    expect(order).toEqual(['list 1', 'claim one', 'list 2']);
    await board.close();
  });

  it('keeps one descriptor of the directory for all of its operations, and lets it go at close()', async () => {
    const file = boardFile(BOARD);
    const dir = dirname(file);
    const a = openBoard(file);
    const b = openBoard(file);
    await Promise.all([a.next({ by: 'a' }), b.next({ by: 'b' }), a.list(), b.list(), a.next({ by: 'a' })]);
    expect(fdsOn(dir)).toBe(1);
    await a.close();
    await b.close();
    expect(fdsOn(dir)).toBe(0);
    expect(read(file).split('\n').filter((l) => l.startsWith('- [🟡')).length).toBe(3);
  });

  it('locks the directory the path names now when the one it kept a descriptor of was replaced', async () => {
    const root = scratchDir('mdclaim-swap-');
    const dir = join(root, 'board');
    mkdirSync(dir);
    const file = join(dir, 'tasks.md');
    writeFileSync(file, BOARD);
    const board = openBoard(file, { lockTimeout: '30s' });
    await board.next({ by: 'w' });
    // The directory is moved away and a new one takes its name; someone holds the new one's lock.
    renameSync(dir, join(root, 'old'));
    mkdirSync(dir);
    writeFileSync(file, BOARD);
    const h = await outsideHolder(dir);
    let done = false;
    const claim = board.next({ by: 'w' }).then((t) => ((done = true), t));
    await new Promise((r) => setTimeout(r, 150));
    expect(done).toBe(false);
    expect(read(file)).toBe(BOARD);
    h.release();
    await expect(claim).resolves.toMatchObject({ text: 'one' });
    await h.gone;
    await board.close();
  });
});

describe('a flock that fails outright while operations wait', () => {
  it('fails the operation it was taken for with IO and leaves the queue moving', async () => {
    const { createRequire } = await import('node:module');
    const { DirLock } = await import('../src/storage/dir-lock.js');
    const real = (createRequire(import.meta.url)('fs-ext') as { flockSync: (fd: number, f: string) => void }).flockSync;
    const dir = dirname(boardFile(BOARD));
    let failNext = false;
    // The real flock, except once: a failure that is not "held elsewhere" (as NFS without local locks gives).
    const flock = (fd: number, f: 'sh' | 'ex' | 'shnb' | 'exnb' | 'un') => {
      if (failNext && f !== 'un') {
        failNext = false;
        throw Object.assign(new Error('EIO: i/o error, flock'), { code: 'EIO' });
      }
      real(fd, f);
    };
    const lock = new DirLock(dir, flock, () => {});
    expect(lock.tryTake(true)).toBe(true);
    const deadline = Date.now() + 60_000;
    const second = lock.take(true, deadline);
    const third = lock.take(false, deadline);
    failNext = true;
    lock.release(); // the second's flock fails here, inside the release
    await expect(second).rejects.toMatchObject({ message: expect.stringMatching(/^cannot lock .*EIO/) });
    await expect(third).resolves.toBe(true);
    expect(heldElsewhere(dir)).toBe(true);
    lock.release();
    expect(heldElsewhere(dir)).toBe(false);
    lock.close();
  });
});
