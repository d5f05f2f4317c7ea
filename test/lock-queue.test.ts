import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MdclaimError, openBoard } from '../src/index.js';
import { CLI } from './helpers/cli.js';
import { fixture, start } from './helpers/procs.js';
import { boardFile, bytesOf, read } from './helpers/tmp.js';

const BOARD = '- [ ] one\n- [ ] two\n';

/** An outside flock(1) on `dir`, held until `release()` (its stdin closes). */
async function outsideHolder(dir: string) {
  const child = spawn('flock', ['-x', dir, 'sh', '-c', 'echo locked; cat >/dev/null'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const gone = new Promise((r) => child.on('close', r));
  await new Promise((r) => child.stdout.once('data', r));
  return { release: () => child.stdin.end(), gone, pid: child.pid! };
}

/** Blocked flock requests ("->" lines of /proc/locks) queued on `dir` in the kernel. */
function queuedOn(dir: string): number {
  const { ino } = statSync(dir);
  return readFileSync('/proc/locks', 'utf8')
    .split('\n')
    .filter((l) => l.includes('->') && l.includes(' FLOCK ') && new RegExp(`:${ino} `).test(l)).length;
}

async function until(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Whether a non-blocking exclusive flock on `dir` from another process fails: someone holds it. */
const heldElsewhere = (dir: string) => spawnSync('flock', ['-n', '-x', dir, 'true']).status !== 0;

/** flock processes whose parent is `pid`, other than the outside holder `but`. */
function flockChildren(pid: number, but: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const m = /^\d+ \((.*)\) \S+ (\d+)/.exec(stat);
      if (m && m[1] === 'flock' && Number(m[2]) === pid && Number(name) !== but) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

const hasFlock1 = spawnSync('flock', ['--version']).status === 0;

describe.skipIf(!hasFlock1)('a contended wait queues in the kernel', () => {
  it('waits in the kernel’s queue on the directory and takes the lock once the holder lets go', async () => {
    const file = boardFile(BOARD);
    const dir = dirname(file);
    const h = await outsideHolder(dir);
    const claim = openBoard(file, { lockTimeout: '30s' }).next({ by: 'w' });
    await until(() => queuedOn(dir) === 1, 'the waiter to queue');
    expect(read(file)).toBe(BOARD);
    h.release();
    await expect(claim).resolves.toMatchObject({ text: 'one', by: 'w' });
    await h.gone;
    expect(queuedOn(dir)).toBe(0);
    expect(flockChildren(process.pid, h.pid)).toEqual([]);
  });

  it('times out at the deadline, leaves the holder holding and no flock child behind', async () => {
    const file = boardFile(BOARD);
    const dir = dirname(file);
    const h = await outsideHolder(dir);
    const started = Date.now();
    const err = await openBoard(file, { lockTimeout: '300ms' }).next({ by: 'w' }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(err).toBeInstanceOf(MdclaimError);
    expect((err as MdclaimError).code).toBe('LOCK_TIMEOUT');
    expect(flockChildren(process.pid, h.pid)).toEqual([]);
    expect(queuedOn(dir)).toBe(0);
    expect(heldElsewhere(dir)).toBe(true);
    expect(bytesOf(file).equals(Buffer.from(BOARD))).toBe(true);
    h.release();
    await h.gone;
    // The lock is free again: nothing of the timed-out wait kept it.
    expect(heldElsewhere(dir)).toBe(false);
  });

  it('times out shared waits too, and many in one process at once', async () => {
    const file = boardFile(BOARD);
    const dir = dirname(file);
    const h = await outsideHolder(dir);
    const board = openBoard(file, { lockTimeout: '200ms' });
    const results = await Promise.allSettled([board.list(), board.list(), board.next({ by: 'a' }), board.next({ by: 'b' })]);
    for (const r of results) expect(r.status === 'rejected' && (r.reason as MdclaimError).code).toBe('LOCK_TIMEOUT');
    expect(flockChildren(process.pid, h.pid)).toEqual([]);
    h.release();
    await h.gone;
  });

  it('lets a process waiting in the queue exit while the lock is still held elsewhere', async () => {
    const file = boardFile(BOARD);
    const dir = dirname(file);
    const h = await outsideHolder(dir);
    const w = spawn(process.execPath, [fixture('queued-exit.mjs'), file], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    w.stdout.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => w.on('close', (code) => r(code)));
    await until(() => queuedOn(dir) === 1, 'the waiter to queue');
    w.stdin.write('exit\n');
    // The holder has not let go: the waiter ends on its own, before it.
    expect(await exited).toBe(0);
    expect(out).toBe('');
    expect(heldElsewhere(dir)).toBe(true);
    // Its queued child went with it: nobody waits on the directory any more.
    await until(() => queuedOn(dir) === 0, 'the exited waiter’s queued child to go');
    h.release();
    await h.gone;
    expect(read(file)).toBe(BOARD);
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
    const waiter = spawn(process.execPath, [CLI, 'next', '--file', file, '--by', 'w', '--lock-timeout', '30s'], { env });
    const status = new Promise((r) => waiter.on('close', r));
    h.child.kill('SIGTERM');
    await h.done;
    expect(await status).toBe(0);
    expect(read(file)).toMatch(/^- \[🟡, w, /);
    expect(queuedOn(dir)).toBe(0);
  });
});
