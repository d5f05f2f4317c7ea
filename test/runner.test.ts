import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stillClaimable } from '../src/board/claimable.js';
import { formatElapsed } from '../src/runner/events.js';
import { lastLine } from '../src/runner/group.js';
import { heartbeatEvery } from '../src/runner/heartbeat.js';
import { settle } from '../src/runner/options.js';
import { failureReason } from '../src/runner/task.js';
import { exitCodeForRun } from '../src/cli/exit.js';
import { MdclaimError, openBoard, parseTasks, runTasks, type RunEvent, type RunnerBoard } from '../src/index.js';
import { groupAlive, pidIn } from './helpers/runner.js';
import { boardFile, bytesOf } from './helpers/tmp.js';

const WAIT_GO = 'echo $$ > "$DIR/cmd.pid"; while [ ! -e "$DIR/go" ]; do sleep 0.05; done';

/** A real board whose heartbeats, after the first `passing`, fail `times` calls with `code` (Infinity: always), as a busy lock or a failing disk would. */
function failingHeartbeats(file: string, code: 'LOCK_TIMEOUT' | 'IO', times: number, passing = 0): RunnerBoard & { failed: number } {
  const board = openBoard(file);
  let passed = 0;
  const wrapped = {
    failed: 0,
    location: board.location,
    handOff: board.handOff,
    list: () => board.list(),
    next: (o: Parameters<RunnerBoard['next']>[0]) => board.next(o),
    heartbeat: async (id: string, f: { by: string; claimedAt?: string }) => {
      if (passed++ >= passing && wrapped.failed < times) {
        wrapped.failed++;
        throw new MdclaimError(code, `injected ${code}`);
      }
      return board.heartbeat(id, f);
    },
    done: (id: string, f: { by: string; claimedAt?: string; commit?: string }) => board.done(id, f),
    fail: (id: string, f: { by: string; claimedAt?: string; reason?: string }) => board.fail(id, f),
    release: (id: string, f: { by: string; claimedAt?: string }) => board.release(id, f),
    retry: (id: string, f: { by: string; claimedAt?: string; delay: number }) => board.retry(id, f),
    lockPaths: (id: string, o: Parameters<RunnerBoard['lockPaths']>[1]) => board.lockPaths(id, o),
    paths: () => board.paths(),
    waitForWork: (signal: AbortSignal | undefined, ms: number) => board.waitForWork(signal, ms),
  };
  return wrapped;
}

describe('the heartbeat schedule', () => {
  it('beats every min(lease/3, (lease-1s)/2), so a claim outlives one late beat', () => {
    expect(heartbeatEvery(2000)).toBe(500);
    expect(heartbeatEvery(3000)).toBe(1000);
    expect(heartbeatEvery(30 * 60_000)).toBe(10 * 60_000);
    fc.assert(
      fc.property(fc.integer({ min: 2000, max: 36_525 * 86_400_000 }), (lease) => {
        const every = heartbeatEvery(lease);
        // A beat at w writes floor(w): the claim lapses after w + lease - 1s; two intervals must fit.
        return every > 0 && 2 * every <= lease - 1000 && every <= lease / 3;
      }),
    );
  });

  it('refuses a lease under 2s as usage', () => {
    expect(() => heartbeatEvery(1999)).toThrow(expect.objectContaining({ code: 'USAGE' }));
  });
});

describe('could a task still become claimable', () => {
  const could = (board: string) => {
    const tasks = parseTasks(board);
    const flags = stillClaimable(tasks);
    return tasks.filter((_, i) => flags[i]).map((t) => t.text);
  };

  it('says yes for open tasks, timed claims and blocked tasks whose tasks above could all still end done', () => {
    expect(could('[] a\n[🟡, x, 2026-01-01T00:00:00Z] b\n[⏰] c\n[✅, x] d\n[⏰] e\n')).toEqual(['a', 'b', 'c', 'e']);
  });

  it('says no below a failed task, below an untimed claim, and for the untimed claim itself, within the section only', () => {
    const board = '## A\n[❌, x] broke\n[⏰] after broke\n[⏰] further down\n## B\n[🟡, adw] untimed\n[⏰] after untimed\n## C\n[⏰] fresh section\n';
    expect(could(board)).toEqual(['fresh section']);
  });

  it('says nothing finished or failed could', () => {
    expect(could('[x] done\n[❌, a] failed\n')).toEqual([]);
  });

  it('says no for a task whose paths an untimed claim holds (declared or locked), and for the tasks waiting below it', () => {
    const board = [
      '## A',
      '[🟡, adw] agent {writes: src/}',
      '  - 🔒 write docs/guide.md since 2026-01-01T00:00:00Z',
      '## B',
      '[] edits a source file {writes: src/a.ts}',
      '[⏰] after the source file',
      '## C',
      '[] reads the guide {reads: docs/}',
      '[] elsewhere {writes: test/a.ts}',
      '',
    ].join('\n');
    expect(could(board)).toEqual(['elsewhere {writes: test/a.ts}']);
  });

  it('says yes for a task whose paths only a timed claim holds: that claim lapses or ends', () => {
    expect(could('[🟡, x, 2026-01-01T00:00:00Z] holder {writes: src/}\n## B\n[] edits {writes: src/a.ts}\n')).toEqual(['holder {writes: src/}', 'edits {writes: src/a.ts}']);
  });
});

describe('pieces of a task end', () => {
  it('reasons from the exit status and the last non-blank stderr line, kept short', () => {
    expect(failureReason({ code: 2, signal: null, lastStderrLine: '' })).toBe('exit 2');
    expect(failureReason({ code: null, signal: 'SIGSEGV', lastStderrLine: 'core dumped' })).toBe('killed by SIGSEGV: core dumped');
    expect(lastLine('first\r\n  last one  \n\n')).toBe('last one');
    expect(lastLine('x'.repeat(500))).toHaveLength(200);
  });

  it('says how long a task ran', () => {
    expect([850, 12_400, 192_000, 7_500_000].map(formatElapsed)).toEqual(['850ms', '12s', '3m12s', '2h05m']);
  });

  it('maps how a run ended to its exit status', () => {
    const tasks = (outcomes: string[]) => outcomes.map((outcome, i) => ({ id: `t${i}`, outcome }));
    const one = (outcomes: string[], stoppedBy = 'pass') => exitCodeForRun({ loop: false, stoppedBy, tasks: tasks(outcomes) });
    expect([one(['done']), one(['failed']), one(['retried']), one([]), one(['lost']), one(['done', 'failed', 'lost'])]).toEqual([0, 1, 1, 3, 4, 4]);
    expect([one(['released'], 'SIGINT'), one([], 'SIGTERM'), one(['released'], 'SIGHUP'), one(['released'], 'SIGPIPE')]).toEqual([130, 143, 129, 141]);
  });

  it('gives a loop stopped by --max or --until-settled success only when every task it ended is done', () => {
    const loop = (stoppedBy: string, ...ends: Array<[string, string]>) => exitCodeForRun({ loop: true, stoppedBy, tasks: ends.map(([id, outcome]) => ({ id, outcome })) });
    expect([loop('max'), loop('settled'), loop('max', ['a', 'done'], ['b', 'done'])]).toEqual([0, 0, 0]);
    expect([loop('max', ['a', 'done'], ['b', 'failed']), loop('settled', ['a', 'failed']), loop('max', ['a', 'retried'])]).toEqual([1, 1, 1]);
    // A task retried and then done here counts as done; one failed for good after its retries, as failed.
    expect([loop('settled', ['a', 'retried'], ['a', 'done']), loop('settled', ['a', 'retried'], ['a', 'retried'], ['a', 'failed'])]).toEqual([0, 1]);
    expect(loop('settled', ['a', 'done'], ['b', 'lost'])).toBe(4);
  });
});

describe('the documented defaults', () => {
  const board = { location: 'tasks.md', handOff: 'tasks.md' } as RunnerBoard;

  it('are what the code uses', () => {
    expect(settle(board, { command: ['x'] })).toMatchObject({
      lease: undefined, // the board's: 30m unless it was opened with another
      loop: false,
      intervalMs: 5000,
      concurrency: 1,
      max: 1,
      untilSettled: false,
      graceMs: 10_000,
      failOnSignal: false,
      commit: true,
      cwd: process.cwd(),
      prefixOutput: false,
    });
    expect(settle(board, { command: ['x'] }).file).toBe(join(process.cwd(), 'tasks.md'));
  });

  it('follow the options they depend on', () => {
    expect(settle(board, { command: ['x'], concurrency: 3 })).toMatchObject({ max: 3, prefixOutput: true });
    expect(settle(board, { command: ['x'], loop: true })).toMatchObject({ max: Infinity });
    expect(settle(board, { command: ['x'], untilSettled: true })).toMatchObject({ loop: true, max: Infinity });
    expect(settle({ location: 'postgres://u@h/db?board=b', handOff: 'postgres://u@h/db?board=b' } as RunnerBoard, { command: ['x'] }).file).toBe('postgres://u@h/db?board=b');
  });
});

describe('runTasks', () => {
  it('retries a heartbeat that failed for a passing reason while the lease lasts, and finishes the task', async () => {
    const file = boardFile('[] job\n');
    const dir = dirname(file);
    const board = failingHeartbeats(file, 'LOCK_TIMEOUT', 2);
    const events: RunEvent[] = [];
    const result = await runTasks(board, {
      by: 'r1',
      lease: '2s',
      command: ['sh', '-c', WAIT_GO],
      env: { ...process.env, DIR: dir },
      commit: false,
      onEvent: (e) => {
        events.push(e);
        // Let the command end once a beat has got through after the failures.
        if (e.event === 'heartbeat') writeFileSync(join(dir, 'go'), '');
      },
    });
    expect(result.tasks.map((t) => t.outcome)).toEqual(['done']);
    expect(events.filter((e) => e.event === 'retry')).toHaveLength(2);
    expect(board.failed).toBe(2);
    expect((await openBoard(file).list())[0]).toMatchObject({ status: 'done', by: 'r1' });
  });

  it('stops the command and writes nothing when heartbeats keep failing until the lease is gone', async () => {
    const file = boardFile('[] job\n');
    const dir = dirname(file);
    let claimed: Buffer | undefined;
    // The beat before the command starts gets through; every later one fails.
    const result = await runTasks(failingHeartbeats(file, 'IO', Infinity, 1), {
      by: 'r1',
      lease: '2s',
      grace: '1s',
      command: ['sh', '-c', WAIT_GO],
      env: { ...process.env, DIR: dir },
      onEvent: (e) => {
        if (e.event === 'heartbeat') claimed = bytesOf(file); // the one beat that got through
      },
    });
    expect(result.tasks).toEqual([expect.objectContaining({ outcome: 'lost', reason: expect.stringMatching(/lease lapsed.*injected IO/) })]);
    expect(groupAlive(await pidIn(join(dir, 'cmd.pid')))).toBe(false);
    expect(bytesOf(file)).toEqual(claimed);
    expect(existsSync(join(dir, 'go'))).toBe(false);
  });

  it("waits on the board's waitForWork between polls, not a sleep of its own", async () => {
    const file = boardFile('[x] nothing to do yet\n');
    const board = openBoard(file);
    const waits: number[] = [];
    const withWake: RunnerBoard = {
      location: file,
      handOff: file,
      list: () => board.list(),
      next: (o) => board.next(o),
      heartbeat: (id, f) => board.heartbeat(id, f),
      done: (id, f) => board.done(id, f),
      fail: (id, f) => board.fail(id, f),
      release: (id, f) => board.release(id, f),
      retry: (id, f) => board.retry(id, f),
      lockPaths: (id, o) => board.lockPaths(id, o),
      paths: () => board.paths(),
      // As a database's notification would: work appears, and the wait ends long before the poll interval.
      waitForWork: async (_signal, timeoutMs) => {
        waits.push(timeoutMs);
        await board.add('new work');
      },
    };
    const result = await runTasks(withWake, { command: ['true'], loop: true, max: 1, interval: '1h', commit: false });
    expect(result.stoppedBy).toBe('max');
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(0.8 * 3_600_000);
    expect(waits[0]).toBeLessThanOrEqual(1.2 * 3_600_000);
    expect((await board.list()).map((t) => t.status)).toEqual(['done', 'done']);
  });

  it('stops when its AbortSignal aborts, passing SIGTERM to the command and releasing the task', async () => {
    const file = boardFile('- [ ] job\n');
    const before = bytesOf(file);
    const dir = dirname(file);
    const stop = new AbortController();
    const result = await runTasks(openBoard(file), {
      command: ['sh', '-c', WAIT_GO],
      env: { ...process.env, DIR: dir },
      signal: stop.signal,
      onEvent: (e) => {
        if (e.event === 'claimed') void pidIn(join(dir, 'cmd.pid')).then(() => stop.abort());
      },
    });
    expect(result).toMatchObject({ stoppedBy: 'SIGTERM', tasks: [{ outcome: 'released' }] });
    expect(bytesOf(file)).toEqual(before);
  });

  it.each([
    [{ command: [] }, /command must be a non-empty array/],
    [{ command: ['true'], lease: '1s' }, /lease must be at least 2s/],
    [{ command: ['true'], concurrency: 1.5 }, /concurrency must be a whole number/],
    [{ command: ['true'], by: 'no spaces please' }, /by must be/],
  ])('refuses %j before claiming anything', async (options, message) => {
    const file = boardFile('[] job\n');
    const before = bytesOf(file);
    await expect(runTasks(openBoard(file), options as never)).rejects.toThrow(message);
    expect(bytesOf(file)).toEqual(before);
  });
});

