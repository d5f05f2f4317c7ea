import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { expect } from 'vitest';
import { MdclaimError, openBoard } from '../../src/index.js';
import { fixture, track } from './procs.js';

// What the lock tests look at from outside: an outside flock(1) holder, the
// kernel's queue in /proc/locks, and the children a waiting process starts.

/** An outside flock(1) on `dir`, held until `release()` (its stdin closes). */
export async function outsideHolder(dir: string) {
  const child = track(spawn('flock', ['-x', dir, 'sh', '-c', 'echo locked; cat >/dev/null'], { stdio: ['pipe', 'pipe', 'inherit'] }));
  // Letting go of a holder that is already gone is nothing (its stdin's end may meet a closed pipe: EPIPE).
  child.stdin.on('error', () => {});
  const gone = new Promise((r) => child.on('close', r));
  await new Promise((r) => child.stdout.once('data', r));
  return { release: () => child.stdin.end(), gone, pid: child.pid! };
}

/** Run `body` while an outside flock(1) holds `dir`; the holder lets go and is gone afterwards, however `body` ends. */
export async function whileHeld<T>(dir: string, body: (holder: Awaited<ReturnType<typeof outsideHolder>>) => Promise<T>): Promise<T> {
  const h = await outsideHolder(dir);
  try {
    return await body(h);
  } finally {
    h.release();
    await h.gone;
  }
}

/** fixtures/queued-exit.mjs on `file`: it waits for the board's lock, prints `got` if it takes it, and exits when `exit()` writes it a line. */
export function queuedWaiter(file: string, env: Record<string, string> = {}) {
  const child = track(spawn(process.execPath, [fixture('queued-exit.mjs'), file], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...env } }));
  // It exits by itself once it has the lock: asked to exit after that, the line meets a closed pipe (EPIPE), and that is nothing.
  child.stdin.on('error', () => {});
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return { child, out: () => out, exited, exit: () => child.stdin.write('exit\n') };
}

/**
 * A process waiting in the kernel's queue behind an outside holder exits when
 * asked, before the holder lets go: it takes nothing, the holder still holds,
 * its queued wait goes with it, and the board is as it was.
 */
export async function expectExitWhileQueued(file: string, env: Record<string, string> = {}): Promise<void> {
  const dir = dirname(file);
  const before = readFileSync(file);
  await whileHeld(dir, async () => {
    const w = queuedWaiter(file, env);
    await until(() => queuedOn(dir) === 1, 'the waiter to queue');
    w.exit();
    expect(await w.exited).toBe(0);
    expect(w.out()).toBe('');
    expect(heldElsewhere(dir)).toBe(true);
    await until(() => queuedOn(dir) === 0, 'the exited waiter’s queued child to go');
  });
  expect(readFileSync(file).equals(before)).toBe(true);
}

/** Blocked flock requests ("->" lines of /proc/locks) queued on `dir` in the kernel. */
export function queuedOn(dir: string): number {
  const { ino } = statSync(dir);
  return readFileSync('/proc/locks', 'utf8')
    .split('\n')
    .filter((l) => l.includes('->') && l.includes(' FLOCK ') && new RegExp(`:${ino} `).test(l)).length;
}

/** Wait for a condition, checked every 5 ms, up to `ms` (a process's start on a machine at a load of 20 takes seconds). */
export async function until(cond: () => boolean, what: string, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Whether a non-blocking exclusive flock on `dir` from another process fails: someone holds it. */
export const heldElsewhere = (dir: string) => spawnSync('flock', ['-n', '-x', dir, 'true']).status !== 0;

/** Children of `pid` by command name (perl: queue helpers; flock: one-wait flock(1) children, or an outside holder). */
export function children(pid: number, name: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const m = /^\d+ \((.*)\) \S+ (\d+)/.exec(readFileSync(`/proc/${entry}/stat`, 'utf8'));
      if (m && m[1] === name && Number(m[2]) === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

export const hasFlock1 = spawnSync('flock', ['--version']).status === 0;

/**
 * SIGSTOP `pid` at a moment it does not hold the board's lock. Stopped inside
 * a write (a heartbeat's, say), it would hold the board for as long as it is
 * stopped, and no one could take its claim over: while a reader cannot get in
 * at once, let it go on a moment and stop it again.
 */
export async function stopOutsideLock(pid: number, location: string): Promise<void> {
  const probe = openBoard(location, { lockTimeout: '300ms' });
  try {
    for (;;) {
      process.kill(pid, 'SIGSTOP');
      const free = await probe.list().then(
        () => true,
        (err: unknown) => (err instanceof MdclaimError && err.code === 'LOCK_TIMEOUT' ? false : Promise.reject(err)),
      );
      if (free) return;
      process.kill(pid, 'SIGCONT');
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await probe.close();
  }
}

/** Descriptors of this process open on `path`, as readlink shows it (a removed file's ends in " (deleted)"). */
export function fdsOn(path: string): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === path) n++;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}
