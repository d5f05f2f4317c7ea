import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MdclaimError, openBoard } from '../src/index.js';
import { CLI, mdclaim, mdclaimAsync } from './helpers/cli.js';
import { fixture, lines, start } from './helpers/procs.js';
import { outsideHolder, until } from './helpers/locks.js';
import { boardFile, bytesOf, read } from './helpers/tmp.js';
import { lockWaits } from '../src/storage/dir-lock.js';

const BOARD = '- [ ] one\n- [ ] two\n';

/** A process holding the board's lock through the library, started and holding. */
async function holder(file: string, env: Record<string, string>, mode = 'exclusive') {
  const h = start(fixture('hold.mjs'), [file, mode], env);
  await new Promise<void>((resolve, reject) => {
    h.child.stdout!.on('data', (d) => String(d).includes('held') && resolve());
    h.done.then((e) => reject(new Error(`holder exited: ${e.stderr}`)));
  });
  return h;
}

describe('the lock is flock(2) on the board’s directory', () => {
  it('waits for a flock(1) on the directory and times out with exit 1, the file unchanged', async () => {
    const file = boardFile(BOARD);
    // Held until the CLI has given up, however long a busy machine takes to start it.
    const held = await outsideHolder(dirname(file));
    try {
      const r = await mdclaimAsync(['next', '--file', file, '--by', 'w', '--lock-timeout', '300ms']);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/^error\[LOCK_TIMEOUT\]: .*lock still held by another process after 300 ms\n$/);
      expect(bytesOf(file).equals(Buffer.from(BOARD))).toBe(true);
    } finally {
      held.release();
    }
    await held.gone;
  });

  it('is not a flock on tasks.md: a bare flock(1) on the file excludes nothing', async () => {
    const file = boardFile(BOARD);
    const held = await outsideHolder(file);
    try {
      const r = await mdclaimAsync(['next', '--file', file, '--by', 'w', '--lock-timeout', '300ms']);
      expect(r.status).toBe(0);
      expect(read(file)).toMatch(/^- \[🟡, w, /);
    } finally {
      held.release();
    }
    await held.gone;
  });

  it('proceeds as soon as the holder lets go', async () => {
    const file = boardFile(BOARD);
    const held = await outsideHolder(dirname(file));
    let settled = false;
    const waits = lockWaits.waits;
    const claim = openBoard(file, { lockTimeout: '10m' }).next({ by: 'w' }).finally(() => (settled = true));
    // The claim waits for as long as the lock is held (in the kernel's queue, on its thread between turns of the event loop), then goes on.
    await until(() => lockWaits.waits > waits, 'the claim to wait behind the holder');
    expect(settled).toBe(false);
    expect(read(file)).toBe(BOARD);
    held.release();
    expect(await claim).toMatchObject({ text: 'one', by: 'w' });
    await held.gone;
  });

  it('keeps other file I/O of the process running while it waits (no pool thread is pinned)', async () => {
    const file = boardFile(BOARD);
    const holder = await outsideHolder(dirname(file));
    // More waiters than libuv has pool threads: a blocking flock in each would stall every read below.
    const waiters = Array.from({ length: 6 }, () => openBoard(file, { lockTimeout: '10m' }).next({ by: 'w' }));
    const { readFile } = await import('node:fs/promises');
    // The lock is held until the reads are done: they finish while every waiter still waits.
    await Promise.all(Array.from({ length: 8 }, () => readFile(file)));
    holder.release();
    await holder.gone;
    const got = await Promise.all(waiters);
    expect(got.filter(Boolean)).toHaveLength(2);
  });

  it('works the same with durable writes', async () => {
    const file = boardFile(BOARD);
    const board = openBoard(file, { durable: true });
    const t = (await board.next({ by: 'w' }))!;
    await board.release(t.id, { by: 'w' });
    expect(read(file)).toBe(BOARD);
  });
});

describe('a board object kept between operations, whose path changes meanwhile', () => {
  // The object locks where the path led last time without looking again; the open under the lock must catch every change.
  it('locks and claims where a symlink put in place since leads, and refuses a directory or nothing as a fresh object would', async () => {
    const file = boardFile(BOARD);
    const board = openBoard(file, { lockTimeout: 300 });
    expect((await board.next({ by: 'w' }))?.text).toBe('one');
    // The path becomes a symlink to a board in another directory.
    const other = boardFile('- [ ] elsewhere\n');
    const { renameSync, rmSync, mkdirSync, symlinkSync, readlinkSync } = await import('node:fs');
    const kept = `${file}.kept`;
    renameSync(file, kept);
    symlinkSync(other, file);
    // The other board's directory is locked: the claim waits there (and times out), not in the old directory.
    const held = await outsideHolder(dirname(other));
    const err = await board.next({ by: 'w' }).catch((e: unknown) => e);
    held.release();
    await held.gone;
    expect(err).toBeInstanceOf(MdclaimError);
    expect((err as MdclaimError).code).toBe('LOCK_TIMEOUT');
    expect((await board.next({ by: 'w' }))?.text).toBe('elsewhere');
    expect(read(other)).toMatch(/^- \[🟡, w, .*\] elsewhere\n$/);
    expect(readlinkSync(file)).toBe(other);
    expect(read(kept)).toMatch(/^- \[🟡, w, .*\] one\n- \[ \] two\n$/);
    // A directory, then nothing, where the board was: the same errors as a board object opened now.
    const fresh = async () => (await openBoard(file).list().catch((e: unknown) => e)) as MdclaimError;
    rmSync(file);
    mkdirSync(file);
    for (const op of [() => board.list(), () => board.next({ by: 'w' })]) {
      const e = (await op().catch((x: unknown) => x)) as MdclaimError;
      expect([e.code, e.message]).toEqual([(await fresh()).code, (await fresh()).message]);
      expect(e.message).toMatch(/not a regular file/);
    }
    rmSync(file, { recursive: true });
    const gone = (await board.next({ by: 'w' }).catch((x: unknown) => x)) as MdclaimError;
    expect([gone.code, gone.message]).toEqual([(await fresh()).code, (await fresh()).message]);
  });
});

describe('without fs-ext (no compiler at install)', () => {
  /** The CLI in a process where `fs-ext` (and, with `koffi`, koffi too) cannot load, with only the MDCLAIM_* variables given. */
  const unloadable = (args: string[], extra: Record<string, string> = {}, koffi = true) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MDCLAIM_')));
    const preload = ['--import', fixture('no-fs-ext.mjs'), ...(koffi ? [] : ['--import', fixture('no-koffi.mjs')])];
    return spawnSync(process.execPath, [...preload, CLI, ...args], { encoding: 'utf8', env: { ...env, ...extra } });
  };

  it('claims through koffi with no setting and without a word on stderr', () => {
    const file = boardFile(BOARD);
    const r = unloadable(['next', '--file', file, '--by', 'w']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(read(file)).toMatch(/^- \[🟡, w, /);
    expect(readdirSync(dirname(file))).toEqual(['tasks.md']);
  });

  it('waits through koffi for a flock(1) on the directory: the same kernel lock', async () => {
    const file = boardFile(BOARD);
    const h = await outsideHolder(dirname(file));
    try {
      const r = await mdclaimAsync(['next', '--file', file, '--by', 'w', '--lock-timeout', '300ms'], { NODE_OPTIONS: `--import=${fixture('no-fs-ext.mjs')}` });
      expect(r.stderr).toMatch(/^error\[LOCK_TIMEOUT\]: .*lock still held by another process after 300 ms\n$/);
      expect(r.status).toBe(1);
      expect(bytesOf(file).equals(Buffer.from(BOARD))).toBe(true);
    } finally {
      h.release();
      await h.gone;
    }
  });

  it('refuses with exit 1 and one line saying what fixes it when neither fs-ext nor koffi loads, the board unchanged', () => {
    const file = boardFile(BOARD);
    const r = unloadable(['next', '--file', file, '--by', 'w'], {}, false);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error\[IO\]: cannot take flock: neither fs-ext \(.*\) nor koffi \(.*\) loads; run `npm install` .*MDCLAIM_LOCK=mkdir for every process that claims from this board\n$/);
    expect(bytesOf(file).equals(Buffer.from(BOARD))).toBe(true);
    expect(readdirSync(dirname(file))).toEqual(['tasks.md']);
  });

  it.each(['mkdir', 'proper-lockfile'])('claims under MDCLAIM_LOCK=%s without a word on stderr, and leaves no lock behind', (lock) => {
    const file = boardFile(BOARD);
    const r = unloadable(['next', '--file', file, '--by', 'w'], { MDCLAIM_LOCK: lock }, false);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^claimed \w+ "[^"]*" by w /);
    expect(read(file)).toMatch(/^- \[🟡, w, /);
    expect(readdirSync(dirname(file))).toEqual(['tasks.md']);
  });
});

describe.each(['flock', 'mkdir'])('holding the lock (%s)', (lock) => {
  const env = { MDCLAIM_LOCK: lock };

  it("keeps this process's own operations out until released", async () => {
    const file = boardFile(BOARD);
    const board = openBoard(file, { lock: lock as 'flock', lockTimeout: '200ms' });
    const release = await board.hold();
    await expect(board.next({ by: 'w' })).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    await expect(board.list()).rejects.toBeInstanceOf(MdclaimError);
    release();
    release(); // a second call is a no-op, not someone else's release
    expect(await board.next({ by: 'w' })).toMatchObject({ text: 'one' });
  });

  it('gives the lock back when its holder is SIGKILLed', async () => {
    const file = boardFile(BOARD);
    const h = await holder(file, env);
    expect(mdclaim(['next', '--file', file, '--by', 'w', '--lock-timeout', '300ms'], env).status).toBe(1);
    h.child.kill('SIGKILL');
    await h.done;
    const r = mdclaim(['next', '--file', file, '--by', 'w', '--lock-timeout', '5s'], env);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(readdirSync(dirname(file))).toEqual(['tasks.md']);
  });
});

// The first test waits out an 11 s deadline on a stopped holder: the other runs beside it, on a board of its own.
describe.concurrent('the mkdir lock', () => {
  const env = { MDCLAIM_LOCK: 'mkdir' };

  it('is never taken from a stopped holder, however long it is stopped, and comes back once it is gone', async () => {
    const file = boardFile(BOARD);
    const h = await holder(file, env);
    const pid = h.child.pid!;
    h.child.kill('SIGSTOP');
    try {
      // Longer than the 10 s after which proper-lockfile called a lock stale.
      const r = await mdclaimAsync(['next', '--file', file, '--by', 'w', '--lock-timeout', '11s'], env);
      expect(r.stderr).toBe(`error[LOCK_TIMEOUT]: ${file}: lock still held by pid ${pid} after 11000 ms\n`);
      expect(r.status).toBe(1);
      expect(bytesOf(file).equals(Buffer.from(BOARD))).toBe(true);
    } finally {
      h.child.kill('SIGKILL');
      await h.done;
    }
    const r = mdclaim(['next', '--file', file, '--by', 'w', '--lock-timeout', '5s'], env);
    expect(r.status).toBe(0);
    expect(readdirSync(dirname(file))).toEqual(['tasks.md']);
  });

  it("lets exactly one of many waiters take over a dead holder's lock at a time", async () => {
    const tasks = 120;
    const file = boardFile(Array.from({ length: tasks }, (_, i) => `- [ ] t${i}\n`).join(''));
    const h = await holder(file, env);
    // Waiters queue behind the live holder, then all see it die at once.
    const runs = Array.from({ length: 6 }, (_, i) => start(fixture('claimer.mjs'), [file, `w${i}`, '2'], env));
    // Each waiting operation has its own prepared lock directory beside the board.
    const waiting = () => readdirSync(dirname(file)).filter((n) => n.startsWith('tasks.md.lock.')).length;
    while (waiting() < 6) await new Promise((r) => setTimeout(r, 10));
    h.child.kill('SIGKILL');
    const exits = await Promise.all(runs.map((r) => r.done));
    for (const e of exits) expect(e.stderr).toBe('');
    const claimed = exits.flatMap((e) => lines(e.stdout, 'claimed'));
    expect(new Set(claimed).size).toBe(tasks);
    expect(claimed).toHaveLength(tasks);
    expect(readdirSync(dirname(file)).filter((n) => n !== 'tasks.md')).toEqual([]);
  });
});
