import { spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBoard } from '../src/index.js';
import { CLI, mdclaim } from './helpers/cli.js';
import { fixture } from './helpers/procs.js';
import { boardFile, bytesOf, read } from './helpers/tmp.js';

const BOARD = '- [ ] one\n- [ ] two\n';

/**
 * Hold an exclusive flock(1) on the file for `ms` — the same lock a person editing
 * under `flock tasks.md vi tasks.md` holds. Resolves once the lock is taken, with
 * a promise that settles when it is let go.
 */
async function holdLock(file: string, ms: number): Promise<{ released: Promise<unknown> }> {
  const child = spawn('flock', ['-x', file, 'sh', '-c', `echo locked; sleep ${ms / 1000}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const released = new Promise((r) => child.on('close', r));
  await new Promise((r) => child.stdout.once('data', r));
  return { released };
}

describe('the lock', () => {
  it('waits for a holder outside mdclaim and times out with exit 1, the file unchanged', async () => {
    const file = boardFile(BOARD);
    const held = (await holdLock(file, 1500)).released;
    const r = mdclaim(['next', '--file', file, '--by', 'w', '--lock-timeout', '300ms']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error\[LOCK_TIMEOUT\]: .*lock still held by another process after 300 ms\n$/);
    expect(bytesOf(file).equals(Buffer.from(BOARD))).toBe(true);
    await held;
  });

  it('proceeds as soon as the holder lets go', async () => {
    const file = boardFile(BOARD);
    const held = (await holdLock(file, 400)).released;
    const started = Date.now();
    const task = await openBoard(file).next({ by: 'w' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(task).toMatchObject({ text: 'one', by: 'w' });
    await held;
  });

  it('keeps other file I/O of the process running while it waits (no pool thread is pinned)', async () => {
    const file = boardFile(BOARD);
    const held = (await holdLock(file, 3000)).released;
    // More waiters than libuv has pool threads: a blocking flock in each would stall every read below.
    const waiters = Array.from({ length: 6 }, () => openBoard(file).next({ by: 'w' }));
    const { readFile } = await import('node:fs/promises');
    const reads = Promise.all(Array.from({ length: 8 }, () => readFile(file)));
    const first = await Promise.race([reads.then(() => 'reads'), held.then(() => 'holder let go')]);
    expect(first).toBe('reads');
    await held;
    const got = await Promise.all(waiters);
    expect(got.filter(Boolean)).toHaveLength(2);
  });

  it('falls back to proper-lockfile with one warning line when fs-ext cannot load', () => {
    const file = boardFile(BOARD);
    const r = spawnSync(process.execPath, ['--import', fixture('no-fs-ext.mjs'), CLI, 'next', '--file', file, '--by', 'w'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^claimed \w+ by w /);
    const warnings = r.stderr.split('\n').filter((l) => l.includes('MdclaimWarning'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('using proper-lockfile');
    expect(read(file)).toMatch(/^- \[🟡, w, /);
    // Its lock directory is gone once the claim is made.
    expect(readdirSync(dirname(file))).toEqual(['tasks.md']);
  });

  it('works the same with durable writes', async () => {
    const file = boardFile(BOARD);
    const board = openBoard(file, { durable: true });
    const t = (await board.next({ by: 'w' }))!;
    await board.release(t.id, { by: 'w' });
    expect(read(file)).toBe(BOARD);
  });
});
