import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openBoard } from '../src/index.js';
import { cleanEnv, CLI } from './helpers/cli.js';
import { boardFile, read } from './helpers/tmp.js';
import { fdsOn, until } from './helpers/locks.js';

const BOARD = '- [ ] one\n- [ ] two\n- [ ] three\n';

const afterTurn = () => new Promise<void>((resolve) => process.nextTick(resolve));

const linux = process.platform === 'linux';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe.skipIf(!linux)('what a board keeps open after an operation', () => {
  it('a CLI call that replaces the board starts no thread besides those `node -e 0` has', () => {
    // Counted at exit, before Node joins its threads: libuv's pool, once started, is four more.
    const preload = join(dirname(boardFile('')), 'threads.cjs');
    writeFileSync(preload, "process.on('exit', () => process.stderr.write(`\\nthreads=${require('fs').readdirSync('/proc/self/task').length}\\n`));\n");
    const threads = (args: string[]): number => {
      const r = spawnSync(process.execPath, ['--require', preload, ...args], { encoding: 'utf8', env: cleanEnv({}) });
      expect(r.status, r.stderr).toBe(0);
      return Number(/threads=(\d+)/.exec(r.stderr)![1]);
    };
    const file = boardFile(BOARD);
    const claimed = threads([CLI, 'next', '--file', file, '--by', 'a', '--write', 'replace']);
    expect(read(file)).toMatch(/^- \[🟡, a, [^\]]+\] one\n- \[ \] two\n/);
    expect(claimed).toBe(threads(['-e', '0']));
  });

  it('closes the file it replaced and its directory by the time close() returns, when closed in the same turn', async () => {
    const file = boardFile(BOARD);
    const board = openBoard(file, { write: 'replace' });
    await expect(board.next({ by: 'a' })).resolves.toMatchObject({ text: 'one' });
    await board.close();
    expect(fdsOn(`${file} (deleted)`)).toBe(0);
    expect(fdsOn(dirname(file))).toBe(0);
  });

  it('closes the file it replaced after the turn, when the board stays open', async () => {
    const file = boardFile(BOARD);
    const board = openBoard(file, { write: 'replace' });
    await board.next({ by: 'a' });
    await board.next({ by: 'b' });
    await until(() => fdsOn(`${file} (deleted)`) === 0, 'the replaced board to be closed');
    expect(fdsOn(dirname(file))).toBe(1);
    await board.close();
    expect(fdsOn(dirname(file))).toBe(0);
  });

  it('keeps no pile of replaced boards open through a loop of claims that never gives the event loop a turn', async () => {
    const file = boardFile(Array.from({ length: 60 }, (_, i) => `- [ ] task ${i}\n`).join(''));
    const board = openBoard(file, { write: 'replace' });
    // Each claim takes a free lock at once, so the loop runs in one turn: the close after the turn never comes between.
    let most = 0;
    for (let i = 0; i < 60; i++) {
      await board.next({ by: 'a' });
      most = Math.max(most, fdsOn(`${file} (deleted)`));
    }
    // Each earlier one is on its way to the pool as the next is replaced (a few may still be in flight); one per claim before.
    expect(most).toBeLessThan(30);
    await board.close();
    await until(() => fdsOn(`${file} (deleted)`) === 0, 'the replaced boards to be closed');
  });

  it('arms no timer when closed in the turn of its last operation', async () => {
    const file = boardFile(BOARD);
    const board = openBoard(file);
    const timers = vi.spyOn(globalThis, 'setTimeout');
    await board.next({ by: 'a' });
    await board.close();
    await afterTurn();
    expect(timers).not.toHaveBeenCalled();
    expect(fdsOn(dirname(file))).toBe(0);
  });

  it('lets the directory go 10 s after the last operation when the board is never closed', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const file = boardFile(BOARD);
    const dir = dirname(file);
    const board = openBoard(file);
    await board.next({ by: 'a' });
    await afterTurn();
    vi.advanceTimersByTime(5_000);
    await board.next({ by: 'b' }); // the 10 s start again from here
    await afterTurn();
    vi.advanceTimersByTime(9_000);
    expect(fdsOn(dir)).toBe(1);
    vi.advanceTimersByTime(1_500);
    expect(fdsOn(dir)).toBe(0);
    // The next operation opens it again.
    await board.next({ by: 'c' });
    expect(fdsOn(dir)).toBe(1);
    await board.close();
    expect(fdsOn(dir)).toBe(0);
  });
});
